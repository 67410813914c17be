/**
 * The named API tokens' storage contract, one for every engine (SQLite:
 * sqlite-api-token-store.ts; PostgreSQL: postgres-api-token-store.ts), in the database the
 * registry and the records use. Only a token's sha256 is stored. Contract suite:
 * test/keys/api-token-store.contract.test.ts over test/helpers/store-engines.ts.
 */
import type { ApiRole } from "./api-roles.js";

/** One stored token, without its secret. */
export interface ApiTokenRow {
  id: string;
  name: string;
  role: ApiRole;
  /** The token's first characters, to tell tokens apart in a list. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface ApiTokenStore {
  /** Inserts a new token; ids, names of live tokens and hashes are unique (a duplicate fails STORE_UNAVAILABLE or API_TOKEN_NAME_TAKEN, never overwrites). */
  insert(row: ApiTokenRow, sha256: string): Promise<void>;
  /** The live (not revoked) token with this hash. */
  byHash(sha256: string): Promise<ApiTokenRow | undefined>;
  /** Oldest first; revoked tokens included. */
  list(): Promise<ApiTokenRow[]>;
  /** Sets `revokedAt` once (a second revocation keeps the first time); the row after, or undefined for an unknown id. */
  revoke(id: string, at: string): Promise<ApiTokenRow | undefined>;
  close(): Promise<void>;
}
