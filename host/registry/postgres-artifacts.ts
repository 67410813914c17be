/**
 * Plugin code in the shared PostgreSQL database, content-addressed by sha256 (table
 * `artifacts`): a host that has never seen an upload loads the module from here. The same
 * contract as the folder store (artifacts.ts): a row is written once and never changed,
 * two writes of the same bytes land on the same row, and a read checks the bytes still
 * hash to their name.
 */
import { SluiceError } from "../errors/sluice-error.js";
import { sha256Async } from "../sandbox/main/load-module.js";
import { postgresGuarded, type PostgresEngine } from "../storage/postgres.js";
import type { Artifacts } from "./artifacts.js";
import { SHA256_PATTERN } from "./ids.js";

function checked(sha256: string): string {
  if (!SHA256_PATTERN.test(sha256)) throw new SluiceError("ID_INVALID", `artifact name must be a sha256 hex digest, got ${JSON.stringify(sha256.slice(0, 80))}`);
  return sha256;
}

export class PostgresArtifactStore implements Artifacts {
  constructor(private readonly db: PostgresEngine) {}

  /** Stores `bytes` and returns their sha256 (`known` when the caller has just computed it). */
  async put(bytes: Uint8Array, known?: string): Promise<string> {
    const sha256 = checked(known ?? (await sha256Async(bytes)));
    await postgresGuarded(`writing artifact ${sha256}`, () => this.db.query("INSERT INTO artifacts (sha256, bytes, created_at) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING", [sha256, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), new Date().toISOString()]));
    return sha256;
  }

  async has(sha256: string): Promise<boolean> {
    return (await postgresGuarded(`reading artifact ${sha256}`, () => this.db.query("SELECT 1 FROM artifacts WHERE sha256 = $1", [checked(sha256)]))).rowCount === 1;
  }

  /** Removes a module no record refers to (an upload whose record could not be written). */
  async remove(sha256: string): Promise<void> {
    // Another host may have recorded a plugin on these bytes meanwhile: keep them then.
    await postgresGuarded(`removing artifact ${sha256}`, () => this.db.query("DELETE FROM artifacts a WHERE a.sha256 = $1 AND NOT EXISTS (SELECT 1 FROM plugins p WHERE p.sha256 = a.sha256)", [checked(sha256)]));
  }

  /** Reads a stored module and checks it still hashes to its name. */
  async get(sha256: string): Promise<Uint8Array> {
    const rows = (await postgresGuarded(`reading artifact ${sha256}`, () => this.db.query<{ bytes: Buffer }>("SELECT bytes FROM artifacts WHERE sha256 = $1", [checked(sha256)]))).rows;
    if (!rows[0]) throw new SluiceError("STORE_UNAVAILABLE", `artifact ${sha256} is not in the database`, { sha256 });
    const bytes = new Uint8Array(rows[0].bytes);
    if ((await sha256Async(bytes)) !== sha256) throw new SluiceError("STORE_UNAVAILABLE", `artifact ${sha256} is corrupt in the database (its content no longer matches its hash)`, { sha256 });
    return bytes;
  }
}
