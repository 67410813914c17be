/**
 * The gateway keys' storage contract, one for every engine (SQLite: sqlite-key-store.ts;
 * PostgreSQL: the `pg` store). Rows only: key generation, validation and the short verify
 * cache live in {@link GatewayKeys} (keys.ts), above any engine. Only a key's sha256 is stored.
 * Contract suite: test/gateway/key-store.contract.test.ts over test/helpers/store-engines.ts.
 */

/** One stored key, without its secret. */
export interface GatewayKeyRow {
  id: string;
  spaceId: string;
  name: string | null;
  /** The first characters of the key, to tell keys apart in a list. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  /** What the key opens: `gateway` (the model gateway) or `hooks` (the coding agents' hook door, and nothing else). */
  scope: KeyScope;
}

/** What a key opens; a key opens exactly one of them. */
export const KEY_SCOPES = ["gateway", "hooks"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export interface GatewayKeyStore {
  /** Inserts a new key; ids and hashes are unique (a duplicate is a STORE_UNAVAILABLE failure, never a silent overwrite). */
  insert(row: GatewayKeyRow, sha256: string): Promise<void>;
  /** The live (not revoked) key with this hash. */
  byHash(sha256: string): Promise<GatewayKeyRow | undefined>;
  byId(id: string): Promise<GatewayKeyRow | undefined>;
  /** Oldest first; revoked keys included. */
  list(spaceId?: string): Promise<GatewayKeyRow[]>;
  /** Sets `revokedAt` once (a revoked key keeps its first revocation time); the row after, or undefined for an unknown id. */
  revoke(id: string, at: string): Promise<GatewayKeyRow | undefined>;
  /**
   * The revocation generation: a number that changes in the same transaction as any revocation
   * (or deletion) of a key, by whichever process or host shares the store.
   */
  generation(): Promise<number>;
  /**
   * How long a generation read may be trusted without reading it again: 0 reads it on every
   * verify; above 0 it is a lease, and a revocation through GatewayKeys waits it out before answering.
   */
  readonly generationLeaseMs: number;
  close(): Promise<void>;
}
