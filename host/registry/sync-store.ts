/**
 * The registry's storage contract. Synchronous on purpose: every method is one short
 * SQLite transaction, so check-then-write sequences (immutable versions, unique binding
 * ids, numbered revisions) cannot interleave with another request.
 */
import type { AfterOrderMode } from "../pipeline/bindings.js";
import type { ActivationReason, ActivationRecord, BindingRecord, BindingSpec, PluginRecord, ReleaseBinding, ReleaseRecord } from "./records.js";

/** Transitional: the synchronous contract, until every caller uses the async one in store.ts. */
export interface SyncRegistryStore {
  /** Inserts a plugin version; `exists` when the very same version (same code and manifest) is there; VERSION_CONFLICT when a different one is. */
  insertPlugin(record: PluginRecord): "inserted" | "exists";
  getPlugin(id: string, version: string): PluginRecord | undefined;
  /** All versions, or all versions of one plugin, oldest first. */
  listPlugins(id?: string): PluginRecord[];

  listBindings(): BindingRecord[];
  getBinding(id: string): BindingRecord | undefined;
  /** Appends to the draft order; BINDING_CONFLICT when the id exists. */
  insertBinding(spec: BindingSpec): BindingRecord;
  /** BINDING_NOT_FOUND when the id does not exist. */
  updateBinding(spec: BindingSpec): BindingRecord;
  deleteBinding(id: string): void;
  /** Puts the named bindings first, in this order; the others keep their relative order after them. */
  reorderBindings(ids: readonly string[]): BindingRecord[];

  draftOrderMode(): AfterOrderMode;
  setDraftOrderMode(mode: AfterOrderMode): void;

  /** Freezes a snapshot as the next revision. */
  insertRelease(release: { order_mode: AfterOrderMode; bindings: ReleaseBinding[]; based_on: number | null; note: string }): ReleaseRecord;
  getRelease(revision: number): ReleaseRecord | undefined;
  listReleases(): ReleaseRecord[];

  /** The revision active now, 0 when none was ever activated. */
  activeRevision(): number;
  /**
   * Records `revision` as active. `apply` runs inside the same transaction, after the
   * write: when it throws (the host refused the release), nothing is recorded.
   */
  activate(revision: number, reason: ActivationReason, apply: () => void): ActivationRecord;
  listActivations(): ActivationRecord[];

  /** Runs `fn` in one transaction (nested calls join it). */
  transaction<T>(fn: () => T): T;
  close(): void;
}
