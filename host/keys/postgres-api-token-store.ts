/** Named API tokens on PostgreSQL: every host of a fleet accepts the same tokens. Only a token's sha256 is stored. */
import { SluiceError } from "../errors/sluice-error.js";
import { postgresGuarded, type PostgresEngine } from "../storage/postgres.js";
import type { ApiTokenStore } from "./api-token-store.js";
import { API_TOKEN_COLUMNS as COLUMNS, apiTokenRowOf, nameTaken, type Row } from "./sqlite-api-token-store.js";

const guard = <T>(what: string, fn: () => Promise<T>): Promise<T> => postgresGuarded(`API tokens: ${what}`, fn);

/** The token store on `db` (already migrated: see openPostgresStores); `db` stays the caller's. */
export function postgresApiTokenStore(db: PostgresEngine): ApiTokenStore {
  return {
    insert: async (row, sha256) => {
      try {
        await db.query("INSERT INTO api_tokens (id, name, role, prefix, sha256, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
          [row.id, row.name, row.role, row.prefix, sha256, row.createdAt]);
      } catch (err) {
        const taken = nameTaken(err, row.name);
        if (taken) throw taken;
        if (err instanceof SluiceError) throw err;
        throw new SluiceError("STORE_UNAVAILABLE", `API tokens: insert failed: ${(err as Error)?.message ?? String(err)}`, {}, { cause: err });
      }
    },
    byHash: (sha256) => guard("lookup", async () => {
      const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM api_tokens WHERE sha256 = $1 AND revoked_at IS NULL`, [sha256]);
      return rows[0] && apiTokenRowOf(rows[0]);
    }),
    list: () => guard("list", async () => (await db.query<Row>(`SELECT ${COLUMNS} FROM api_tokens ORDER BY created_at, id`)).rows.map(apiTokenRowOf)),
    revoke: (id, at) => guard("revoke", async () => {
      // COALESCE keeps the first revocation time: revoking twice changes nothing.
      const { rows } = await db.query<Row>(`UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING ${COLUMNS}`, [id, at]);
      return rows[0] && apiTokenRowOf(rows[0]);
    }),
    close: async () => {},
  };
}
