/**
 * Gateway API keys: the credentials OpenAI-compatible clients send to `sluice serve`.
 * Only the sha256 of a key is stored; the plaintext exists once, in the create answer.
 */
import { createHash, randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { SluiceError } from "../errors/sluice-error.js";
import { ensurePrivateFile } from "../storage/private-files.js";

/** Every gateway key starts with it, so leaked keys are easy to recognise and scan for. */
export const GATEWAY_KEY_PREFIX = "sk-sluice-";
/** Space ids follow binding ids: letters, digits, ".", "_" and "-", never "/" or "..". */
export const SPACE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** How long a verified key is trusted without asking the database again, and how many are remembered. */
const VERIFIED_TTL_MS = 1_000;
const VERIFIED_MAX = 10_000;

/** A stored key, without its secret. */
export interface GatewayKeyRecord {
  id: string;
  spaceId: string;
  name: string | null;
  /** The first characters of the key, to tell keys apart in a list. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

interface Row { id: string; space_id: string; name: string | null; prefix: string; created_at: string; revoked_at: string | null }

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS gateway_keys (
    id TEXT PRIMARY KEY,
    space_id TEXT NOT NULL,
    name TEXT,
    prefix TEXT NOT NULL,
    sha256 TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  ) STRICT;
  CREATE INDEX IF NOT EXISTS gateway_keys_space ON gateway_keys (space_id);
`;

/**
 * The gateway key store (SQLite). Give it a file path, or the management API's open
 * database to share its file; it only adds the `gateway_keys` table.
 *
 * @example
 * const keys = new GatewayKeys("/var/lib/sluice/sluice.db");
 * const { key, record } = keys.create({ spaceId: "team-a", name: "ci agent" });
 * keys.verify(key)?.spaceId; // "team-a"
 * keys.revoke(record.id);
 * keys.verify(key); // null
 */
export class GatewayKeys {
  private readonly db: Database.Database;
  private readonly owned: boolean;
  private readonly stmt;
  /**
   * Keys verified in the last VERIFIED_TTL_MS (a hash and a query cost about 20 µs a
   * request). Revoking through this store clears it at once; a revocation by another
   * process sharing the file takes effect within the TTL.
   */
  private readonly verified = new Map<string, { record: GatewayKeyRecord; until: number }>();

  constructor(pathOrDb: string | Database.Database) {
    this.owned = typeof pathOrDb === "string";
    if (typeof pathOrDb === "string" && pathOrDb !== ":memory:") ensurePrivateFile(pathOrDb);
    this.db = typeof pathOrDb === "string" ? new Database(pathOrDb) : pathOrDb;
    if (this.owned) {
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("busy_timeout = 5000");
    }
    this.db.exec(SCHEMA);
    const columns = "id, space_id, name, prefix, created_at, revoked_at";
    this.stmt = {
      insert: this.db.prepare<[string, string, string | null, string, string, string]>("INSERT INTO gateway_keys (id, space_id, name, prefix, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?)"),
      byHash: this.db.prepare<[string], Row>(`SELECT ${columns} FROM gateway_keys WHERE sha256 = ? AND revoked_at IS NULL`),
      byId: this.db.prepare<[string], Row>(`SELECT ${columns} FROM gateway_keys WHERE id = ?`),
      all: this.db.prepare<[], Row>(`SELECT ${columns} FROM gateway_keys ORDER BY created_at, id`),
      inSpace: this.db.prepare<[string], Row>(`SELECT ${columns} FROM gateway_keys WHERE space_id = ? ORDER BY created_at, id`),
      revoke: this.db.prepare<[string, string]>("UPDATE gateway_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
    };
  }

  /** Creates a key for a space. The plaintext `key` is returned here and never again. */
  create(input: { spaceId: string; name?: string | null }): { key: string; record: GatewayKeyRecord } {
    if (typeof input.spaceId !== "string" || !SPACE_ID_PATTERN.test(input.spaceId) || input.spaceId.includes("..")) {
      throw new SluiceError("ID_INVALID", `space id ${JSON.stringify(String(input.spaceId).slice(0, 80))} is invalid: use 1-128 characters of letters, digits, ".", "_" and "-" (no "..")`, { field: "space_id" });
    }
    if (input.name != null && (typeof input.name !== "string" || input.name.length > 200)) {
      throw new SluiceError("REQUEST_INVALID", "a key's name must be a string of at most 200 characters", { field: "name" });
    }
    const key = GATEWAY_KEY_PREFIX + randomBytes(32).toString("base64url");
    const row: Row = { id: `gk_${randomBytes(9).toString("base64url")}`, space_id: input.spaceId, name: input.name ?? null, prefix: key.slice(0, GATEWAY_KEY_PREFIX.length + 4), created_at: new Date().toISOString(), revoked_at: null };
    this.stmt.insert.run(row.id, row.space_id, row.name, row.prefix, sha256(key), row.created_at);
    return { key, record: recordOf(row) };
  }

  /** The live record of a presented key, or null when it is unknown or revoked. */
  verify(key: string): GatewayKeyRecord | null {
    if (!key.startsWith(GATEWAY_KEY_PREFIX)) return null;
    const now = performance.now();
    const hit = this.verified.get(key);
    if (hit && hit.until > now) return hit.record;
    const row = this.stmt.byHash.get(sha256(key));
    if (!row) return null;
    const record = recordOf(row);
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
    this.verified.set(key, { record, until: now + VERIFIED_TTL_MS });
    return record;
  }

  /** Keys without secrets, oldest first; revoked ones included (their `revokedAt` is set). */
  list(filter: { spaceId?: string } = {}): GatewayKeyRecord[] {
    return (filter.spaceId === undefined ? this.stmt.all.all() : this.stmt.inSpace.all(filter.spaceId)).map(recordOf);
  }

  /** Revokes a key at once (idempotent); throws GATEWAY_KEY_NOT_FOUND for an unknown id. */
  revoke(id: string): GatewayKeyRecord {
    this.stmt.revoke.run(new Date().toISOString(), id);
    this.verified.clear();
    const row = this.stmt.byId.get(id);
    if (!row) throw new SluiceError("GATEWAY_KEY_NOT_FOUND", `no gateway key with id ${JSON.stringify(id.slice(0, 80))}`, { id });
    return recordOf(row);
  }

  /** Closes the database if this store opened it; a shared database is left to its owner. */
  close(): void {
    if (this.owned) this.db.close();
  }
}

function sha256(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

function recordOf(row: Row): GatewayKeyRecord {
  return { id: row.id, spaceId: row.space_id, name: row.name, prefix: row.prefix, createdAt: row.created_at, revokedAt: row.revoked_at };
}
