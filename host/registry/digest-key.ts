/**
 * The deployment's digest key (records/digest.ts): the operator's own, or 32 random bytes
 * generated into `<data>/digest.key` (0600) on first open and read back on every open
 * after, so digests stay comparable across restarts.
 *
 * Rotation: stop the server, move `digest.key` aside (keep it: it is what verifies the
 * digests already recorded), start again (a new key is generated) or give the new key. Records
 * written before keep their old-key digests; records written after use the new key.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { SluiceError } from "../errors/sluice-error.js";

export const DIGEST_KEY_FILE = "digest.key";

/** The key to use: `given`, else the data folder's key file (created when missing). */
export function loadDigestKey(dataDir: string, given?: Uint8Array | string): Uint8Array | string {
  if (given !== undefined) return given;
  const file = path.join(dataDir, DIGEST_KEY_FILE);
  try {
    if (existsSync(file)) return readFileSync(file, "utf8").trim();
    const key = randomBytes(32).toString("hex");
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${key}\n`, { mode: 0o600 });
    renameSync(temp, file);
    return key;
  } catch (err) {
    throw new SluiceError("STORE_UNAVAILABLE", `cannot read or create the digest key ${DIGEST_KEY_FILE} in the data folder (${(err as { code?: string }).code ?? "I/O error"})`, { file: DIGEST_KEY_FILE }, { cause: err });
  }
}
