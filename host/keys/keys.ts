/**
 * Gateway API keys: the credentials OpenAI-compatible clients send to `sluice serve`.
 * Only the sha256 of a key is stored; the plaintext exists once, in the create answer.
 */
import { createHash, randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { SluiceError } from "../errors/sluice-error.js";
import { KEY_SCOPES, type GatewayKeyRow, type GatewayKeyStore, type KeyScope } from "./key-store.js";
import { openSqliteKeyStore } from "./sqlite-key-store.js";

/** Every gateway key starts with it, so leaked keys are easy to recognise and scan for. */
export const GATEWAY_KEY_PREFIX = "sk-sluice-";
/** Space ids follow binding ids: letters, digits, ".", "_" and "-", never "/" or "..". */
export const SPACE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** How many verified keys are remembered (past it the cache starts again empty). */
const VERIFIED_MAX = 10_000;
/** Added to a store's generation lease before a revocation answers: clocks of two hosts may run at slightly different rates. */
const LEASE_MARGIN_MS = 25;

/** A stored key, without its secret. */
export type GatewayKeyRecord = GatewayKeyRow;

/**
 * The gateway key service over a {@link GatewayKeyStore}: key generation, validation and a
 * verify cache above any engine that never outlives a revocation (see `verified`). Give it a
 * store, a SQLite file path, or the management API's open database to share its file (it
 * only adds the `gateway_keys` and `gateway_key_generation` tables).
 *
 * @example
 * const keys = new GatewayKeys("/var/lib/sluice/sluice.db");
 * const { key, record } = await keys.create({ spaceId: "team-a", name: "ci agent" });
 * (await keys.verify(key))?.spaceId; // "team-a"
 * await keys.revoke(record.id);
 * await keys.verify(key); // null
 */
export class GatewayKeys {
  private readonly store: GatewayKeyStore;
  /**
   * Verified keys, each with the store's revocation generation read before its lookup. A hit
   * counts only while the generation is still that one, so a revocation anywhere (this
   * process, another process or host on the store, `sluice keys`) refuses the key on the
   * next request: a hash and a query (about 20 µs a request on SQLite, a round trip on
   * PostgreSQL) become one generation read (SQLite), or one per lease for all requests (PostgreSQL).
   */
  private readonly verified = new Map<string, { record: GatewayKeyRecord; generation: number }>();
  /** The last generation read of a leased store, trusted until `sent + lease` (sent: when the read was asked for). */
  private leased: { value: number; sent: number } | undefined;
  private reading: { promise: Promise<number>; sent: number } | undefined;

  constructor(storeOrPath: GatewayKeyStore | string | Database.Database) {
    this.store = typeof storeOrPath === "string" || storeOrPath instanceof Database ? openSqliteKeyStore(storeOrPath) : storeOrPath;
  }

  /** Creates a key for a space (scope `gateway` unless given). The plaintext `key` is returned here and never again. */
  async create(input: { spaceId: string; name?: string | null; scope?: KeyScope }): Promise<{ key: string; record: GatewayKeyRecord }> {
    if (typeof input.spaceId !== "string" || !SPACE_ID_PATTERN.test(input.spaceId) || input.spaceId.includes("..")) {
      throw new SluiceError("ID_INVALID", `space id ${JSON.stringify(String(input.spaceId).slice(0, 80))} is invalid: use 1-128 characters of letters, digits, ".", "_" and "-" (no "..")`, { field: "space_id" });
    }
    if (input.name != null && (typeof input.name !== "string" || input.name.length > 200)) {
      throw new SluiceError("REQUEST_INVALID", "a key's name must be a string of at most 200 characters", { field: "name" });
    }
    const scope = input.scope ?? "gateway";
    if (!(KEY_SCOPES as readonly unknown[]).includes(scope)) {
      throw new SluiceError("REQUEST_INVALID", `a key's scope must be one of ${KEY_SCOPES.join(", ")}, got ${JSON.stringify(String(scope).slice(0, 40))}`, { field: "scope" });
    }
    const key = GATEWAY_KEY_PREFIX + randomBytes(32).toString("base64url");
    const record: GatewayKeyRecord = { id: `gk_${randomBytes(9).toString("base64url")}`, spaceId: input.spaceId, name: input.name ?? null, prefix: key.slice(0, GATEWAY_KEY_PREFIX.length + 4), createdAt: new Date().toISOString(), revokedAt: null, scope };
    await this.store.insert(record, sha256(key));
    return { key, record };
  }

  /** The live record of a presented key, or null when it is unknown or revoked. */
  async verify(key: string): Promise<GatewayKeyRecord | null> {
    if (!key.startsWith(GATEWAY_KEY_PREFIX)) return null;
    const generation = await this.generation();
    const hit = this.verified.get(key);
    if (hit && hit.generation === generation) return hit.record;
    const record = await this.store.byHash(sha256(key));
    if (!record) return null;
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
    this.verified.set(key, { record, generation });
    return record;
  }

  /** Keys without secrets, oldest first; revoked ones included (their `revokedAt` is set). */
  list(filter: { spaceId?: string } = {}): Promise<GatewayKeyRecord[]> {
    return this.store.list(filter.spaceId);
  }

  /** Revokes a key at once (idempotent); GATEWAY_KEY_NOT_FOUND for an unknown id. */
  async revoke(id: string): Promise<GatewayKeyRecord> {
    const record = await this.store.revoke(id, new Date().toISOString());
    this.verified.clear();
    if (!record) throw new SluiceError("GATEWAY_KEY_NOT_FOUND", `no gateway key with id ${JSON.stringify(id.slice(0, 80))}`, { id });
    // Every host trusts a generation it read for at most the lease from when it asked: once
    // the lease has passed since the commit, none still accepts the key.
    const lease = this.store.generationLeaseMs;
    if (lease > 0) await new Promise((resolve) => setTimeout(resolve, lease + LEASE_MARGIN_MS));
    return record;
  }

  /** Closes the store (a SQLite database given open is left to its owner). */
  close(): Promise<void> {
    return this.store.close();
  }

  /**
   * The store's revocation generation as far as a verify may trust it: read every time on a
   * store without a lease; on a leased one the last read while its lease holds (re-read in
   * the background in the lease's second half), else a read whose request left within the lease.
   */
  private generation(): Promise<number> | number {
    const lease = this.store.generationLeaseMs;
    if (lease <= 0) return this.store.generation();
    const now = performance.now();
    const last = this.leased;
    if (last && now < last.sent + lease) {
      if (now >= last.sent + lease / 2) this.readGeneration(now, lease).catch(() => { /* the next verify reads again */ });
      return last.value;
    }
    return this.readGeneration(now, lease);
  }

  /** One read in flight at a time, joined only while what it will answer is still within the lease. */
  private readGeneration(now: number, lease: number): Promise<number> {
    const inFlight = this.reading;
    if (inFlight && inFlight.sent > now - lease) return inFlight.promise;
    const sent = now;
    const promise = this.store.generation().then((value) => {
      if (!this.leased || this.leased.sent < sent) this.leased = { value, sent };
      return value;
    }).finally(() => { if (this.reading?.promise === promise) this.reading = undefined; });
    this.reading = { promise, sent };
    return promise;
  }
}

function sha256(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
