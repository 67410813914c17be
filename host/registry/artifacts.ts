/**
 * Plugin code on disk, content-addressed: a module lives at `sha256/<hex>.wasm` and is
 * never modified. Writes go to a temporary file first and are renamed into place, so a
 * reader sees a whole module or none; two concurrent writes of the same bytes both land
 * on the same, identical file. Only sha256 hex strings ever become file names.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { SluiceError } from "../errors/sluice-error.js";
import { sha256Async } from "../sandbox/main/load-module.js";
import { SHA256_PATTERN } from "./ids.js";
import { ensurePrivateDir } from "../storage/private-files.js";

/**
 * Where plugin code is kept, content-addressed by sha256: this folder store, or the shared
 * PostgreSQL database's table (postgres-artifacts.ts), so every host of a fleet can load it.
 */
export interface Artifacts {
  /** Stores `bytes` and returns their sha256 (`known` when the caller has just computed it). */
  put(bytes: Uint8Array, known?: string): Promise<string>;
  has(sha256: string): boolean | Promise<boolean>;
  /** Removes a module no record refers to. */
  remove(sha256: string): Promise<void>;
  /** Reads a stored module and checks it still hashes to its name. */
  get(sha256: string): Promise<Uint8Array>;
}

export class ArtifactStore implements Artifacts {
  private readonly dir: string;
  private readonly tmp: string;

  constructor(root: string) {
    this.dir = path.join(root, "sha256");
    this.tmp = path.join(root, "tmp");
    ensurePrivateDir(root);
    ensurePrivateDir(this.dir);
    ensurePrivateDir(this.tmp);
  }

  private file(sha256: string): string {
    if (!SHA256_PATTERN.test(sha256)) throw new SluiceError("ID_INVALID", `artifact name must be a sha256 hex digest, got ${JSON.stringify(sha256.slice(0, 80))}`);
    return path.join(this.dir, `${sha256}.wasm`);
  }

  /** Stores `bytes` and returns their sha256 (`known` when the caller has just computed it). */
  async put(bytes: Uint8Array, known?: string): Promise<string> {
    const sha256 = known ?? (await sha256Async(bytes));
    const temp = path.join(this.tmp, `${sha256}.${randomUUID()}.part`);
    try {
      await writeFile(temp, bytes, { flag: "wx", mode: 0o600 });
      await rename(temp, this.file(sha256));
    } catch (err) {
      await rm(temp, { force: true });
      // The code, not the message: Node's message names the absolute path of the data folder.
      throw new SluiceError("STORE_UNAVAILABLE", `cannot write artifact ${sha256} (${fsCode(err)})`, { sha256 }, { cause: err });
    }
    return sha256;
  }

  has(sha256: string): boolean {
    return existsSync(this.file(sha256));
  }

  /** Removes a module no record refers to (an upload whose record could not be written). */
  async remove(sha256: string): Promise<void> {
    await rm(this.file(sha256), { force: true });
  }

  /** Reads a stored module and checks it still hashes to its name. */
  async get(sha256: string): Promise<Uint8Array> {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await readFile(this.file(sha256)));
    } catch (err) {
      throw new SluiceError("STORE_UNAVAILABLE", `artifact ${sha256} cannot be read (${fsCode(err)})`, { sha256 }, { cause: err });
    }
    // Hashed on the thread pool: a 15 MB module would hold the event loop for ~30 ms.
    if ((await sha256Async(bytes)) !== sha256) throw new SluiceError("STORE_UNAVAILABLE", `artifact ${sha256} is corrupt on disk (its content no longer matches its hash)`, { sha256 });
    return bytes;
  }
}

/** ENOENT, EACCES, ...: what went wrong, without the path Node puts in its message. */
function fsCode(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" ? code : "I/O error";
}
