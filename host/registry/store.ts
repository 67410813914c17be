/**
 * The registry's storage contract, one for every engine (SQLite: sqlite-store.ts; PostgreSQL:
 * the `pg` store). Every method returns a Promise. Check-then-write sequences (immutable
 * versions, unique binding ids, numbered revisions) never interleave, within a process or
 * across processes sharing one database:
 * - each write method of the store is one transaction by itself;
 * - {@link RegistryStore.transaction} runs several reads and writes as one, through the
 *   {@link RegistryTx} it hands to `fn` (never the store itself: a call on the store inside
 *   `fn` is a second transaction, which waits for this one — a nested call is refused).
 * Isolation each engine must give a transaction: as if every registry write transaction ran
 * alone. SQLite: `BEGIN IMMEDIATE` (the database's one write lock) plus an in-process queue,
 * since one connection serves every caller. PostgreSQL: `pg_advisory_xact_lock(REGISTRY_LOCK)`
 * as the first statement of every write transaction (so `MAX(revision) + 1` stays gapless and
 * unique), or SERIALIZABLE with a retry on 40001 — `fn` may run more than once then, so it
 * must be free of effects other than through `tx` (the `apply` of {@link RegistryTx.activate}
 * is idempotent: activating a release twice leaves the host as once).
 * One contract suite runs against every engine: test/registry/store.contract.test.ts over
 * test/helpers/store-engines.ts.
 */
import type { AfterOrderMode } from "../pipeline/bindings.js";
import type { ActivationReason, ActivationRecord, BindingRecord, BindingSpec, PluginRecord, ReleaseBinding, ReleaseRecord } from "./records.js";

/** The advisory lock key a PostgreSQL registry takes in every write transaction (any fixed 64-bit number; this one is "sluicereg"). */
export const REGISTRY_LOCK = 0x736c7569636572;

/** A release to freeze: {@link RegistryTx.insertRelease} gives it the next revision. */
export interface NewRelease {
  order_mode: AfterOrderMode;
  bindings: ReleaseBinding[];
  based_on: number | null;
  note: string;
}

/** What can be read and written inside one transaction. */
export interface RegistryTx {
  /** Inserts a plugin version; `exists` when the very same version (same code and manifest) is there; VERSION_CONFLICT when a different one is. */
  insertPlugin(record: PluginRecord): Promise<"inserted" | "exists">;
  getPlugin(id: string, version: string): Promise<PluginRecord | undefined>;
  /** All versions, or all versions of one plugin, oldest first. */
  listPlugins(id?: string): Promise<PluginRecord[]>;

  listBindings(): Promise<BindingRecord[]>;
  getBinding(id: string): Promise<BindingRecord | undefined>;
  /** Appends to the draft order; BINDING_CONFLICT when the id exists. */
  insertBinding(spec: BindingSpec): Promise<BindingRecord>;
  /** BINDING_NOT_FOUND when the id does not exist. */
  updateBinding(spec: BindingSpec): Promise<BindingRecord>;
  /** BINDING_NOT_FOUND when the id does not exist. */
  deleteBinding(id: string): Promise<void>;
  /** Puts the named bindings first, in this order; the others keep their relative order after them. BINDING_NOT_FOUND for an unknown id. */
  reorderBindings(ids: readonly string[]): Promise<BindingRecord[]>;

  draftOrderMode(): Promise<AfterOrderMode>;
  setDraftOrderMode(mode: AfterOrderMode): Promise<void>;

  /** Freezes a snapshot as the next revision: MAX(revision) + 1, unique and gapless. */
  insertRelease(release: NewRelease): Promise<ReleaseRecord>;
  getRelease(revision: number): Promise<ReleaseRecord | undefined>;
  listReleases(): Promise<ReleaseRecord[]>;

  /** The revision active now, 0 when none was ever activated. */
  activeRevision(): Promise<number>;
  /**
   * Records `revision` as active. `apply` runs inside the same transaction, after the
   * write: when it throws or rejects (the host refused the release), nothing is recorded.
   */
  activate(revision: number, reason: ActivationReason, apply: () => void | Promise<void>): Promise<ActivationRecord>;
  /** Oldest first. */
  listActivations(): Promise<ActivationRecord[]>;
}

/** The registry's persistent state: plugins, bindings, releases and activations (SQLite by {@link openSqliteStore}, PostgreSQL by openPostgresStore). */
export interface RegistryStore extends RegistryTx {
  /**
   * Runs `fn` as one transaction with the isolation above: committed when its promise
   * resolves, rolled back when it rejects (the rejection is passed on). Engine failures
   * leave as STORE_UNAVAILABLE / STORE_FULL.
   */
  transaction<T>(fn: (tx: RegistryTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
