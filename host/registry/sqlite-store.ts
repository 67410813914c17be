/**
 * The registry store on an embedded SQLite database (better-sqlite3): WAL, so readers do
 * not wait for a writer; IMMEDIATE transactions for every check-then-write; a busy
 * timeout, so two processes on one data directory queue instead of failing. The statements
 * are synchronous ({@link SqliteOps}); the contract's async shape and its transactions
 * come from one queue over the connection (storage/sqlite-serial.ts).
 */
import { openSqlite } from "../storage/sqlite-open.js";
import type Database from "better-sqlite3";
import { canonicalJson } from "../pipeline/canonical-json.js";
import type { AfterOrderMode } from "../pipeline/bindings.js";
import { SluiceError } from "../errors/sluice-error.js";
import { SqliteSerial } from "../storage/sqlite-serial.js";
import { REGISTRY_MIGRATIONS } from "./migrations.js";
import { bindingConflict, bindingNotFound } from "./lookup-errors.js";
import { bindingOf, pluginOf, releaseOf, type Row } from "./rows.js";
import type { ActivationReason, ActivationRecord, BindingRecord, BindingSpec, PluginRecord, ReleaseRecord } from "./records.js";
import type { NewRelease, RegistryStore, RegistryTx } from "./store.js";


const now = (): string => new Date().toISOString();


/** Opens (creating and migrating) the database at `file`; `:memory:` gives a throwaway store for tests. */
export function openSqliteStore(file: string, options: { busyTimeoutMs?: number } = {}): RegistryStore {
  const db = openSqlite(file, { what: "the registry database", migrations: [REGISTRY_MIGRATIONS], synchronous: "NORMAL", foreignKeys: true, openBusyMs: options.busyTimeoutMs ?? 5000 });
  return sqliteRegistry(db);
}

/** The contract with its promises taken off: what a synchronous engine implements. */
type SyncOf<T> = { [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never };

/** The statements that exist as they are on every path: with and without an explicit transaction. */
const TX_METHODS = [
  "insertPlugin", "getPlugin", "listPlugins", "listBindings", "getBinding", "insertBinding", "updateBinding", "deleteBinding", "reorderBindings",
  "draftOrderMode", "setDraftOrderMode", "insertRelease", "getRelease", "listReleases", "activeRevision", "listActivations",
] as const satisfies readonly (keyof RegistryTx & keyof SqliteOps)[];
/** The methods that only read: outside a transaction they take no write lock (the release feed and prefetch poll them). */
const READS: ReadonlySet<string> = new Set(["getPlugin", "listPlugins", "listBindings", "getBinding", "draftOrderMode", "getRelease", "listReleases", "activeRevision", "listActivations"]);

function sqliteRegistry(db: Database.Database): RegistryStore {
  const ops = new SqliteOps(db);
  const serial = new SqliteSerial(db, storeError);
  /** Inside a transaction: the statements run at once; after it ended, the tx refuses (a leaked tx would write outside any transaction). */
  const txOf = (live: () => boolean): RegistryTx => {
    const tx = {} as Record<string, unknown>;
    for (const m of TX_METHODS) {
      tx[m] = async (...args: unknown[]) => {
        if (!live()) throw new Error(`registry tx.${m} called after its transaction ended`);
        return (ops[m] as (...a: unknown[]) => unknown)(...args);
      };
    }
    tx.activate = async (revision: number, reason: ActivationReason, apply: () => void | Promise<void>) => {
      if (!live()) throw new Error("registry tx.activate called after its transaction ended");
      const record = ops.recordActivation(revision, reason);
      await apply();
      return record;
    };
    return tx as unknown as RegistryTx;
  };
  const transaction = <T>(fn: (tx: RegistryTx) => Promise<T>): Promise<T> => serial.transaction(async () => {
    let live = true;
    try { return await fn(txOf(() => live)); } finally { live = false; }
  });
  const store = {} as Record<string, unknown>;
  // One statement or one short synchronous transaction each: alone on the connection.
  for (const m of TX_METHODS) store[m] = (...args: unknown[]) => serial.run(() => ops.transaction(() => (ops[m] as (...a: unknown[]) => unknown)(...args), READS.has(m) ? "read" : "write"));
  store.activate = (revision: number, reason: ActivationReason, apply: () => void | Promise<void>) => transaction((tx) => tx.activate(revision, reason, apply));
  store.transaction = transaction;
  store.close = () => serial.run(() => db.close());
  // Not part of the contract: fault tests reach the connection (to fill the disk, say).
  Object.defineProperty(store, "db", { value: db });
  return store as unknown as RegistryStore;
}

/** The registry's statements, synchronous; callers hold the connection (see sqliteRegistry). */
class SqliteOps implements Omit<SyncOf<RegistryTx>, "activate"> {
  constructor(private readonly db: Database.Database) {}

  /**
   * Joins the open transaction, or opens one: IMMEDIATE to write, DEFERRED to read (one
   * snapshot, no write lock: WAL readers never wait for writers, nor make them wait).
   * SQLite's failures leave as catalogue codes.
   */
  transaction<T>(fn: () => T, mode: "read" | "write" = "write"): T {
    if (this.db.inTransaction) return fn();
    try {
      return mode === "read" ? this.db.transaction(fn).deferred() : this.db.transaction(fn).immediate();
    } catch (err) {
      throw storeError(err);
    }
  }

  insertPlugin(record: PluginRecord): "inserted" | "exists" {
    return this.transaction(() => {
      const existing = this.getPlugin(record.id, record.version);
      if (existing) {
        if (existing.sha256 === record.sha256 && canonicalJson(existing.manifest) === canonicalJson(record.manifest)) return "exists";
        throw new SluiceError("VERSION_CONFLICT", `${record.id}@${record.version} is already stored with ${existing.sha256 === record.sha256 ? "a different manifest" : `different code (sha256 ${existing.sha256.slice(0, 12)}…)`}; versions are immutable: bump the version in hook.yaml`, { id: record.id, version: record.version, stored_sha256: existing.sha256, sha256: record.sha256 });
      }
      this.db.prepare("INSERT INTO plugins (id, version, sha256, size, manifest, created_at, source) VALUES (?, ?, ?, ?, ?, ?, ?)")
        .run(record.id, record.version, record.sha256, record.size, JSON.stringify(record.manifest), record.created_at, record.source ? JSON.stringify(record.source) : null);
      return "inserted";
    });
  }

  getPlugin(id: string, version: string): PluginRecord | undefined {
    const r = this.db.prepare("SELECT * FROM plugins WHERE id = ? AND version = ?").get(id, version) as Row | undefined;
    return r && pluginOf(r);
  }

  listPlugins(id?: string): PluginRecord[] {
    const rows = id === undefined
      ? this.db.prepare("SELECT * FROM plugins ORDER BY id, created_at, rowid").all()
      : this.db.prepare("SELECT * FROM plugins WHERE id = ? ORDER BY created_at, rowid").all(id);
    return (rows as Row[]).map(pluginOf);
  }

  listBindings(): BindingRecord[] {
    return (this.db.prepare("SELECT * FROM bindings ORDER BY position, id").all() as Row[]).map(bindingOf);
  }

  getBinding(id: string): BindingRecord | undefined {
    const r = this.db.prepare("SELECT * FROM bindings WHERE id = ?").get(id) as Row | undefined;
    return r && bindingOf(r);
  }

  insertBinding(spec: BindingSpec): BindingRecord {
    return this.transaction(() => {
      if (this.getBinding(spec.id)) throw bindingConflict(spec.id);
      const { next } = this.db.prepare("SELECT COALESCE(MAX(position), -1) + 1 AS next FROM bindings").get() as { next: number };
      const at = now();
      this.db.prepare("INSERT INTO bindings (id, position, spec, registered_at, updated_at) VALUES (?, ?, ?, ?, ?)").run(spec.id, next, JSON.stringify(spec), at, at);
      return this.getBinding(spec.id)!;
    });
  }

  updateBinding(spec: BindingSpec): BindingRecord {
    return this.transaction(() => {
      const changed = this.db.prepare("UPDATE bindings SET spec = ?, updated_at = ? WHERE id = ?").run(JSON.stringify(spec), now(), spec.id).changes;
      if (changed === 0) throw notFound(spec.id);
      return this.getBinding(spec.id)!;
    });
  }

  deleteBinding(id: string): void {
    if (this.transaction(() => this.db.prepare("DELETE FROM bindings WHERE id = ?").run(id).changes) === 0) throw notFound(id);
  }

  reorderBindings(ids: readonly string[]): BindingRecord[] {
    return this.transaction(() => {
      const current = this.listBindings();
      const known = new Set(current.map((b) => b.id));
      const missing = ids.find((id) => !known.has(id));
      if (missing !== undefined) throw notFound(missing);
      const named = new Set(ids);
      const order = [...ids, ...current.map((b) => b.id).filter((id) => !named.has(id))];
      const set = this.db.prepare("UPDATE bindings SET position = ? WHERE id = ?");
      order.forEach((id, position) => set.run(position, id));
      return this.listBindings();
    });
  }

  draftOrderMode(): AfterOrderMode {
    const r = this.db.prepare("SELECT value FROM settings WHERE key = 'draft_order_mode'").get() as { value: string } | undefined;
    return (r?.value as AfterOrderMode | undefined) ?? "staged";
  }

  setDraftOrderMode(mode: AfterOrderMode): void {
    this.transaction(() => this.db.prepare("INSERT INTO settings (key, value) VALUES ('draft_order_mode', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(mode));
  }

  insertRelease(release: NewRelease): ReleaseRecord {
    return this.transaction(() => {
      const { revision } = this.db.prepare("SELECT COALESCE(MAX(revision), 0) + 1 AS revision FROM releases").get() as { revision: number };
      this.db.prepare("INSERT INTO releases (revision, order_mode, bindings, based_on, note, created_at) VALUES (?, ?, ?, ?, ?, ?)")
        .run(revision, release.order_mode, JSON.stringify(release.bindings), release.based_on, release.note, now());
      return this.getRelease(revision)!;
    });
  }

  getRelease(revision: number): ReleaseRecord | undefined {
    const r = this.db.prepare("SELECT * FROM releases WHERE revision = ?").get(revision) as Row | undefined;
    return r && releaseOf(r);
  }

  listReleases(): ReleaseRecord[] {
    return (this.db.prepare("SELECT * FROM releases ORDER BY revision").all() as Row[]).map(releaseOf);
  }

  activeRevision(): number {
    const r = this.db.prepare("SELECT revision FROM activations ORDER BY seq DESC LIMIT 1").get() as { revision: number } | undefined;
    return r?.revision ?? 0;
  }

  /** The activation's row; the caller applies it to the host inside the same transaction. */
  recordActivation(revision: number, reason: ActivationReason): ActivationRecord {
    const at = now();
    const { lastInsertRowid } = this.db.prepare("INSERT INTO activations (revision, reason, activated_at) VALUES (?, ?, ?)").run(revision, reason, at);
    return { seq: Number(lastInsertRowid), revision, reason, activated_at: at };
  }

  listActivations(): ActivationRecord[] {
    return this.db.prepare("SELECT seq, revision, reason, activated_at FROM activations ORDER BY seq").all() as ActivationRecord[];
  }

}

function storeError(err: unknown): unknown {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== "string" || !code.startsWith("SQLITE_")) return err;
  if (code.startsWith("SQLITE_FULL")) return new SluiceError("STORE_FULL", "the registry database is full (disk or quota); nothing was written", { sqlite: code }, { cause: err });
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new SluiceError("STORE_UNAVAILABLE", "the registry database is locked by another writer; nothing was written, retry", { sqlite: code }, { cause: err });
  }
  return new SluiceError("STORE_UNAVAILABLE", `the registry database failed (${code}); nothing was written`, { sqlite: code }, { cause: err });
}

const notFound = bindingNotFound;
