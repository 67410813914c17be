/**
 * Releases: numbered, frozen pipelines; which one is active; activating, rolling back,
 * and the control-plane switches (enable, disable, reorder) that derive a new revision
 * from the active one. Activating compiles the release's plugins first, then switches the
 * host in the same step the store records it.
 */
import type { Host } from "../host.js";
import { SluiceError } from "../errors/sluice-error.js";
import type { AfterOrderMode } from "../pipeline/bindings.js";
import type { ReleaseInput } from "../pipeline/release.js";
import { toHostBinding } from "./binding-input.js";
import { specOf, type Draft } from "./draft.js";
import { extensionList, type ExtensionList } from "./extensions.js";
import { checkBindingId, checkRevision, parseHookRef } from "./ids.js";
import { bindingNotFound, noEarlierRelease, pluginNotFound, releaseNotFound } from "./lookup-errors.js";
import type { PluginCatalogue } from "./plugin-catalogue.js";
import type { ActivationReason, ActivationRecord, ReleaseBinding, ReleaseRecord } from "./records.js";
import { rollbackTarget } from "./rollback.js";
import type { RegistryStore, RegistryTx } from "./store.js";

/** What toggling or reordering changed: the draft, and the new active revision when the active release held the binding. */
export interface ControlChange {
  revision: number;
  /** Set when the change created and activated a new revision. */
  created?: number;
}

/** The host's view of a frozen release. */
export function releaseInput(r: ReleaseRecord): ReleaseInput {
  return { revision: r.revision, orderMode: r.order_mode, bindings: [...r.bindings].sort((a, b) => a.position - b.position).map(toHostBinding) };
}

async function activeRelease(tx: RegistryTx): Promise<ReleaseRecord | undefined> {
  const revision = await tx.activeRevision();
  return revision ? tx.getRelease(revision) : undefined;
}

/** Named ids first, in the given order; the rest keep their relative order after them. */
function reordered<T extends { id: string; position: number }>(items: readonly T[], ids: readonly string[]): T[] {
  const sorted = [...items].sort((a, b) => a.position - b.position);
  const named = ids.map((id) => sorted.find((b) => b.id === id)).filter((b): b is T => b !== undefined);
  const rest = sorted.filter((b) => !ids.includes(b.id));
  return [...named, ...rest].map((b, position) => ({ ...b, position }));
}

export class Releases {
  constructor(private readonly store: RegistryStore, private readonly host: Host, private readonly catalogue: PluginCatalogue, private readonly draft: Draft) {}

  /** {@link Registry.publish}, saying whether a revision was created (false: nothing changed since the latest one). */
  async publish(options: { order_mode?: AfterOrderMode; note?: string; activate?: boolean }): Promise<{ release: ReleaseRecord; created: boolean }> {
    // One transaction from reading the draft to freezing it: a concurrent edit or publish
    // (in this process or another) lands before or after, never in between.
    const { release, same } = await this.store.transaction(async (tx) => {
      if (options.order_mode) await tx.setDraftOrderMode(options.order_mode);
      return this.draft.freeze(tx, options.note);
    });
    if (options.activate && (await this.store.activeRevision()) !== release.revision) await this.activate(release.revision);
    return { release, created: !same };
  }

  list(): Promise<ReleaseRecord[]> {
    return this.store.listReleases();
  }

  async get(revision: number | string): Promise<ReleaseRecord> {
    const n = checkRevision(revision);
    const r = await this.store.getRelease(n);
    if (!r) throw releaseNotFound(n);
    return r;
  }

  /** Makes `revision` the one new operations use; operations already running finish on theirs. */
  async activate(revision: number | string, reason: ActivationReason = "activate"): Promise<ActivationRecord> {
    const release = await this.get(revision);
    await this.catalogue.ensureLoaded(release);
    return this.store.activate(release.revision, reason, () => { this.host.activate(releaseInput(release)); });
  }

  /**
   * Inside `tx`: loads the release's plugins, read through `tx` (a version stored in the
   * same transaction is not visible outside it yet), then activates it; an activation that
   * cannot load stores nothing.
   */
  async activateIn(tx: RegistryTx, release: ReleaseRecord): Promise<void> {
    await Promise.all([...new Set(release.bindings.map((b) => b.hook_ref))].map(async (ref) => {
      const { id, version } = parseHookRef(ref);
      const plugin = await tx.getPlugin(id, version);
      if (!plugin) throw pluginNotFound(id, version);
      return this.catalogue.load(plugin);
    }));
    await tx.activate(release.revision, "activate", () => { this.host.activate(releaseInput(release)); });
  }

  /**
   * Activates `to`, or by default the revision that was active before the current one, and
   * resets the draft to that revision's bindings and order mode: the next publish starts
   * from what serves, so it cannot bring back the change the rollback undid.
   */
  async rollback(to?: number | string): Promise<ActivationRecord> {
    const target = to !== undefined ? checkRevision(to) : rollbackTarget(await this.store.listActivations());
    if (target === undefined) throw noEarlierRelease();
    const activation = await this.activate(target, "rollback");
    const release = await this.get(target);
    await this.store.transaction(async (tx) => {
      for (const b of await tx.listBindings()) await tx.deleteBinding(b.id);
      const ordered = [...release.bindings].sort((a, b) => a.position - b.position);
      for (const b of ordered) await tx.insertBinding(specOf(b));
      await tx.setDraftOrderMode(release.order_mode);
    });
    return activation;
  }

  /** Puts the active revision back into the host (on open). */
  async restore(): Promise<void> {
    const revision = await this.store.activeRevision();
    if (revision === 0) return;
    const release = (await this.store.getRelease(revision))!;
    await this.catalogue.ensureLoaded(release);
    this.host.activate(releaseInput(release));
  }

  async extensions(view: "active" | "draft"): Promise<ExtensionList> {
    const plugins = new Map((await this.store.listPlugins()).map((p) => [`${p.id}@${p.version}`, p]));
    const find = (ref: string) => plugins.get(ref);
    const revision = await this.store.activeRevision();
    if (view === "draft") return extensionList("draft", revision, await this.store.draftOrderMode(), await this.store.listBindings(), find);
    const release = revision ? await this.store.getRelease(revision) : undefined;
    return extensionList("active", revision, release?.order_mode ?? "staged", release?.bindings ?? [], find);
  }

  /**
   * Enables or disables a binding: in the draft, and, when the active release holds it, at
   * once, as a new revision derived from the active one (so the switch is a release like
   * any other, and rollback undoes it). A disabled binding keeps its place but is skipped.
   */
  setEnabled(id: string, enabled: boolean): Promise<ControlChange> {
    checkBindingId(id);
    return this.store.transaction(async (tx) => {
      const draft = await tx.getBinding(id);
      const active = await activeRelease(tx);
      const frozen = active?.bindings.find((b) => b.id === id);
      if (!draft && !frozen) throw bindingNotFound(id, "in the draft or the active release");
      if (draft && draft.enabled !== enabled) await tx.updateBinding({ ...specOf(draft), enabled });
      if (!active || !frozen || frozen.enabled === enabled) return { revision: await tx.activeRevision() };
      return this.derive(tx, active, active.bindings.map((b) => (b.id === id ? { ...b, enabled } : b)), active.order_mode, enabled ? "enable" : "disable");
    });
  }

  /** Moves the named bindings to the front, in this order, in the draft and (as a new revision) in the active release. */
  async reorder(ids: readonly string[], orderMode?: AfterOrderMode): Promise<ControlChange> {
    ids.forEach(checkBindingId);
    if (new Set(ids).size !== ids.length) throw new SluiceError("BINDING_INVALID", "order lists a binding twice", { field: "order" });
    return this.store.transaction(async (tx) => {
      const draft = await tx.listBindings();
      const active = await activeRelease(tx);
      const known = new Set([...draft.map((b) => b.id), ...(active?.bindings.map((b) => b.id) ?? [])]);
      const missing = ids.find((id) => !known.has(id));
      if (missing !== undefined) throw bindingNotFound(missing, "in the draft or the active release");
      await tx.reorderBindings(ids.filter((id) => draft.some((b) => b.id === id)));
      if (orderMode) await tx.setDraftOrderMode(orderMode);
      if (!active) return { revision: 0 };
      const next = reordered(active.bindings, ids);
      const mode = orderMode ?? active.order_mode;
      const same = mode === active.order_mode && next.every((b, i) => b.id === [...active.bindings].sort((x, y) => x.position - y.position)[i]!.id);
      return same ? { revision: active.revision } : this.derive(tx, active, next, mode, "reorder");
    });
  }

  /** Inside a transaction: freezes `bindings` as a new revision based on `from` and activates it. */
  private async derive(tx: RegistryTx, from: ReleaseRecord, bindings: ReleaseBinding[], orderMode: AfterOrderMode, reason: ActivationReason): Promise<ControlChange> {
    const release = await tx.insertRelease({ order_mode: orderMode, bindings, based_on: from.revision, note: `${reason} (from revision ${from.revision})` });
    // The plugins are those of the active release, already loaded: the switch stays synchronous.
    await tx.activate(release.revision, reason, () => { this.host.activate(releaseInput(release)); });
    return { revision: release.revision, created: release.revision };
  }
}
