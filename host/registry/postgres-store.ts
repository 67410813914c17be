/**
 * The registry store on PostgreSQL, shared by every host of a fleet. Every write
 * transaction takes REGISTRY_LOCK first (a transaction-scoped advisory lock), so the
 * check-then-write sequences (immutable versions, unique binding ids, `MAX(revision) + 1`)
 * run one at a time across every process; READ COMMITTED then suffices, since each
 * statement's snapshot is taken after the lock is held. Reads outside a transaction take
 * no lock. An activation NOTIFYs {@link RELEASE_CHANNEL} when it commits.
 */
import { canonicalJson } from "../pipeline/canonical-json.js";
import type { AfterOrderMode } from "../pipeline/bindings.js";
import { SluiceError } from "../errors/sluice-error.js";
import { int, postgresGuarded, postgresStoreError, type PostgresEngine, type Sql } from "../storage/postgres.js";
import { ReentryGuard } from "../storage/reentry-guard.js";
import { bindingConflict, bindingNotFound } from "./lookup-errors.js";
import { bindingOf, pluginOf, releaseOf, type Row } from "./rows.js";
import type { ActivationReason, ActivationRecord, BindingRecord, BindingSpec, PluginRecord, ReleaseRecord } from "./records.js";
import { REGISTRY_LOCK, type NewRelease, type RegistryStore, type RegistryTx } from "./store.js";

/** Channel of the activation notices: payload `{"seq":…,"revision":…,"reason":…}`. */
export const RELEASE_CHANNEL = "sluice_release";

const now = (): string => new Date().toISOString();
const LOCK = BigInt(REGISTRY_LOCK).toString();


const notFound = bindingNotFound;

/** The reads and writes of the contract on one connection (a transaction's, or the pool for lone reads). */
class Queries implements RegistryTx {
  constructor(private readonly sql: Sql) {}

  private async rows(text: string, values: readonly unknown[] = []): Promise<Row[]> {
    return (await this.sql.query(text, values)).rows as Row[];
  }

  async insertPlugin(record: PluginRecord): Promise<"inserted" | "exists"> {
    const existing = await this.getPlugin(record.id, record.version);
    if (existing) {
      if (existing.sha256 === record.sha256 && canonicalJson(existing.manifest) === canonicalJson(record.manifest)) return "exists";
      throw new SluiceError("VERSION_CONFLICT", `${record.id}@${record.version} is already stored with ${existing.sha256 === record.sha256 ? "a different manifest" : `different code (sha256 ${existing.sha256.slice(0, 12)}…)`}; versions are immutable: bump the version in hook.yaml`, { id: record.id, version: record.version, stored_sha256: existing.sha256, sha256: record.sha256 });
    }
    await this.sql.query("INSERT INTO plugins (id, version, sha256, size, manifest, created_at, source) VALUES ($1, $2, $3, $4, $5, $6, $7)",
      [record.id, record.version, record.sha256, record.size, JSON.stringify(record.manifest), record.created_at, record.source ? JSON.stringify(record.source) : null]);
    return "inserted";
  }

  async getPlugin(id: string, version: string): Promise<PluginRecord | undefined> {
    const [r] = await this.rows("SELECT * FROM plugins WHERE id = $1 AND version = $2", [id, version]);
    return r && pluginOf(r);
  }

  async listPlugins(id?: string): Promise<PluginRecord[]> {
    const rows = id === undefined
      ? await this.rows("SELECT * FROM plugins ORDER BY id, created_at, seq")
      : await this.rows("SELECT * FROM plugins WHERE id = $1 ORDER BY created_at, seq", [id]);
    return rows.map(pluginOf);
  }

  async listBindings(): Promise<BindingRecord[]> {
    return (await this.rows("SELECT * FROM bindings ORDER BY position, id")).map(bindingOf);
  }

  async getBinding(id: string): Promise<BindingRecord | undefined> {
    const [r] = await this.rows("SELECT * FROM bindings WHERE id = $1", [id]);
    return r && bindingOf(r);
  }

  async insertBinding(spec: BindingSpec): Promise<BindingRecord> {
    if (await this.getBinding(spec.id)) throw bindingConflict(spec.id);
    const at = now();
    await this.sql.query("INSERT INTO bindings (id, position, spec, registered_at, updated_at) SELECT $1, COALESCE(MAX(position), -1) + 1, $2, $3, $3 FROM bindings", [spec.id, JSON.stringify(spec), at]);
    return (await this.getBinding(spec.id))!;
  }

  async updateBinding(spec: BindingSpec): Promise<BindingRecord> {
    const r = await this.sql.query("UPDATE bindings SET spec = $1, updated_at = $2 WHERE id = $3", [JSON.stringify(spec), now(), spec.id]);
    if (r.rowCount === 0) throw notFound(spec.id);
    return (await this.getBinding(spec.id))!;
  }

  async deleteBinding(id: string): Promise<void> {
    const r = await this.sql.query("DELETE FROM bindings WHERE id = $1", [id]);
    if (r.rowCount === 0) throw notFound(id);
  }

  async reorderBindings(ids: readonly string[]): Promise<BindingRecord[]> {
    const current = await this.listBindings();
    const known = new Set(current.map((b) => b.id));
    const missing = ids.find((id) => !known.has(id));
    if (missing !== undefined) throw notFound(missing);
    const named = new Set(ids);
    const order = [...ids, ...current.map((b) => b.id).filter((id) => !named.has(id))];
    await this.sql.query("UPDATE bindings b SET position = o.position - 1 FROM unnest($1::text[]) WITH ORDINALITY AS o(id, position) WHERE b.id = o.id", [order]);
    return this.listBindings();
  }

  async draftOrderMode(): Promise<AfterOrderMode> {
    const [r] = await this.rows("SELECT value FROM settings WHERE key = 'draft_order_mode'");
    return (r?.value as AfterOrderMode | undefined) ?? "staged";
  }

  async setDraftOrderMode(mode: AfterOrderMode): Promise<void> {
    await this.sql.query("INSERT INTO settings (key, value) VALUES ('draft_order_mode', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [mode]);
  }

  async insertRelease(release: NewRelease): Promise<ReleaseRecord> {
    const [r] = await this.rows(
      "INSERT INTO releases (revision, order_mode, bindings, based_on, note, created_at) SELECT COALESCE(MAX(revision), 0) + 1, $1, $2, $3, $4, $5 FROM releases RETURNING *",
      [release.order_mode, JSON.stringify(release.bindings), release.based_on, release.note, now()]);
    return releaseOf(r!);
  }

  async getRelease(revision: number): Promise<ReleaseRecord | undefined> {
    const [r] = await this.rows("SELECT * FROM releases WHERE revision = $1", [revision]);
    return r && releaseOf(r);
  }

  async listReleases(): Promise<ReleaseRecord[]> {
    return (await this.rows("SELECT * FROM releases ORDER BY revision")).map(releaseOf);
  }

  async activeRevision(): Promise<number> {
    const [r] = await this.rows("SELECT revision FROM activations ORDER BY seq DESC LIMIT 1");
    return (r?.revision as number | undefined) ?? 0;
  }

  async activate(revision: number, reason: ActivationReason, apply: () => void | Promise<void>): Promise<ActivationRecord> {
    const at = now();
    const [r] = await this.rows("INSERT INTO activations (revision, reason, activated_at) VALUES ($1, $2, $3) RETURNING seq", [revision, reason, at]);
    await apply();
    const record = { seq: int(r!.seq), revision, reason, activated_at: at };
    // Sent when the transaction commits; a rolled-back activation tells nobody.
    await this.sql.query("SELECT pg_notify($1, $2)", [RELEASE_CHANNEL, JSON.stringify({ seq: record.seq, revision, reason })]);
    return record;
  }

  async listActivations(): Promise<ActivationRecord[]> {
    return (await this.rows("SELECT seq, revision, reason, activated_at FROM activations ORDER BY seq")).map((r) => ({ ...(r as unknown as ActivationRecord), seq: int(r.seq) }));
  }
}

const WRITES = new Set<keyof RegistryTx>(["insertPlugin", "insertBinding", "updateBinding", "deleteBinding", "reorderBindings", "setDraftOrderMode", "insertRelease", "activate"]);

/**
 * The registry store on `db` (already migrated: see openPostgresStores). `db` stays the
 * caller's: closing the store does not close it.
 */
export function postgresRegistryStore(db: PostgresEngine): RegistryStore {
  const inside = new ReentryGuard();
  const lone = new Queries(db);
  const transaction = async <T>(fn: (tx: RegistryTx) => Promise<T>): Promise<T> => {
    // The lock is held by this transaction's connection: a second one from inside it would wait forever.
    if (inside.inside()) throw new Error("registry store: a store method was called inside a transaction; use the tx transaction() hands to fn");
    try {
      return await db.transaction(async (sql) => {
        await sql.query("SELECT pg_advisory_xact_lock($1::bigint)", [LOCK]);
        // A tx kept past its transaction would run on a connection back in the pool.
        let ended = false;
        const scoped: Sql = { query: (text, values) => (ended ? Promise.reject(new Error("registry store: a tx was used after its transaction ended")) : sql.query(text, values)) };
        try {
          return await inside.run(() => fn(new Queries(scoped)));
        } finally {
          ended = true;
        }
      }, "read committed");
    } catch (err) {
      throw postgresStoreError(err, "registry");
    }
  };
  const store = { transaction, close: async () => {} } as RegistryStore;
  for (const name of Object.getOwnPropertyNames(Queries.prototype) as (keyof RegistryTx)[]) {
    if ((name as string) === "constructor" || (name as string) === "rows") continue;
    const method = Queries.prototype[name] as (...args: unknown[]) => Promise<unknown>;
    (store as unknown as Record<string, unknown>)[name] = WRITES.has(name)
      ? (...args: unknown[]) => transaction((tx) => (tx[name] as (...a: unknown[]) => Promise<unknown>)(...args))
      : async (...args: unknown[]) => {
        if (inside.inside()) throw new Error("registry store: a store method was called inside a transaction; use the tx transaction() hands to fn");
        return postgresGuarded("registry", () => method.apply(lone, args));
      };
  }
  return store;
}

/**
 * Calls `onChange` whenever any host commits an activation (or rollback), and after the
 * listening connection came back (an activation may have been missed meanwhile): the
 * notification source of a release feed. Resolves with the function that stops it.
 */
export function watchReleases(db: PostgresEngine, onChange: () => void): Promise<() => Promise<void>> {
  return db.listen(RELEASE_CHANNEL, { onNotify: onChange, onReconnect: onChange });
}
