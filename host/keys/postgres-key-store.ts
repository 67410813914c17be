/** Gateway keys on PostgreSQL: every host of a fleet verifies the same keys. Only a key's sha256 is stored. */
import { postgresGuarded, type PostgresEngine } from "../storage/postgres.js";
import type { GatewayKeyRow, GatewayKeyStore } from "./key-store.js";

type Row = { id: string; space_id: string; name: string | null; prefix: string; created_at: string; revoked_at: string | null; scope: string };
const COLUMNS = "id, space_id, name, prefix, created_at, revoked_at, scope";
const rowOf = (r: Row): GatewayKeyRow => ({ id: r.id, spaceId: r.space_id, name: r.name, prefix: r.prefix, createdAt: r.created_at, revokedAt: r.revoked_at, scope: r.scope === "hooks" ? "hooks" : "gateway" });

const guard = <T>(what: string, fn: () => Promise<T>): Promise<T> => postgresGuarded(`gateway keys: ${what}`, fn);

/**
 * How long a generation read on PostgreSQL is trusted (keys.ts): a host re-reads it at most
 * every half of this under traffic, and a revocation waits this long before it answers, so
 * every host has stopped trusting an older read by then.
 */
export const POSTGRES_GENERATION_LEASE_MS = 250;

/** The key store on `db` (already migrated: see openPostgresStores); `db` stays the caller's. */
export function postgresKeyStore(db: PostgresEngine): GatewayKeyStore {
  return {
    insert: (row, sha256) => guard("insert", async () => {
      await db.query("INSERT INTO gateway_keys (id, space_id, name, prefix, sha256, created_at, revoked_at, scope) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        [row.id, row.spaceId, row.name, row.prefix, sha256, row.createdAt, row.revokedAt, row.scope]);
    }),
    byHash: (sha256) => guard("lookup", async () => {
      const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM gateway_keys WHERE sha256 = $1 AND revoked_at IS NULL`, [sha256]);
      return rows[0] && rowOf(rows[0]);
    }),
    byId: (id) => guard("lookup", async () => {
      const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM gateway_keys WHERE id = $1`, [id]);
      return rows[0] && rowOf(rows[0]);
    }),
    list: (spaceId) => guard("list", async () => {
      const { rows } = spaceId === undefined
        ? await db.query<Row>(`SELECT ${COLUMNS} FROM gateway_keys ORDER BY created_at, id`)
        : await db.query<Row>(`SELECT ${COLUMNS} FROM gateway_keys WHERE space_id = $1 ORDER BY created_at, id`, [spaceId]);
      return rows.map(rowOf);
    }),
    revoke: (id, at) => guard("revoke", async () => {
      // COALESCE keeps the first revocation time: revoking twice changes nothing.
      const { rows } = await db.query<Row>(`UPDATE gateway_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING ${COLUMNS}`, [id, at]);
      return rows[0] && rowOf(rows[0]);
    }),
    generation: () => guard("lookup", async () => {
      const { rows } = await db.query<{ n: string }>("SELECT n FROM gateway_key_generation WHERE id = 1");
      return Number(rows[0]!.n);
    }),
    generationLeaseMs: POSTGRES_GENERATION_LEASE_MS,
    close: async () => {},
  };
}
