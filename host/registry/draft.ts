/**
 * The draft pipeline: the bindings the next publish freezes, each checked against the
 * plugin version it names, and freezing them into a revision.
 */
import { SluiceError } from "../errors/sluice-error.js";
import { canonicalJson } from "../pipeline/canonical-json.js";
import { resolveBindingInput } from "./binding-input.js";
import { checkBindingId, parseHookRef } from "./ids.js";
import { bindingNotFound, pluginNotFound } from "./lookup-errors.js";
import type { BindingRecord, BindingSpec, PluginRecord, ReleaseBinding, ReleaseRecord } from "./records.js";
import type { RegistryStore, RegistryTx } from "./store.js";

/** A binding's spec without its place or times. */
export function specOf(b: BindingRecord | ReleaseBinding): BindingSpec {
  return {
    id: b.id, hook_ref: b.hook_ref, point: b.point, match: b.match, priority: b.priority, timeout_ms: b.timeout_ms,
    failure_policy: b.failure_policy, observe_only: b.observe_only, config: b.config, enabled: b.enabled, mandatory: b.mandatory,
    ...(b.extension !== undefined ? { extension: b.extension } : {}),
  };
}

/** The plugin a binding input names, looked up ahead (the input's own checks report a malformed ref). */
async function pluginsOf(tx: RegistryTx, input: unknown): Promise<(id: string, version: string) => PluginRecord | undefined> {
  const ref = (input as { hook_ref?: unknown } | null)?.hook_ref;
  let found: PluginRecord | undefined;
  let parsed: { id: string; version: string } | undefined;
  if (typeof ref === "string") {
    try { parsed = parseHookRef(ref); } catch { /* resolveBindingInput explains it */ }
  }
  // Outside the catch: a store that fails the read is STORE_UNAVAILABLE, not a plugin that is not there.
  if (parsed) found = await tx.getPlugin(parsed.id, parsed.version);
  return (id, version) => (found && found.id === id && found.version === version ? found : undefined);
}

export class Draft {
  constructor(private readonly store: RegistryStore) {}

  list(): Promise<BindingRecord[]> {
    return this.store.listBindings();
  }

  async get(id: string): Promise<BindingRecord> {
    const b = await this.store.getBinding(checkBindingId(id));
    if (!b) throw bindingNotFound(id);
    return b;
  }

  /** Adds a binding at the end of the draft order; its config is checked against the plugin's schema. */
  create(input: unknown): Promise<BindingRecord> {
    return this.store.transaction(async (tx) => tx.insertBinding(resolveBindingInput(input, await pluginsOf(tx, input))));
  }

  /** Replaces a binding (keeping its place in the order). */
  async update(id: string, input: Record<string, unknown>): Promise<BindingRecord> {
    await this.get(id);
    if (input.id !== undefined && input.id !== id) throw new SluiceError("BINDING_INVALID", `body id ${String(input.id)} differs from the binding ${id} in the path`, { field: "id" });
    const body = { ...input, id };
    return this.store.transaction(async (tx) => tx.updateBinding(resolveBindingInput(body, await pluginsOf(tx, body))));
  }

  async delete(id: string): Promise<void> {
    await this.store.deleteBinding(checkBindingId(id));
  }

  /** Inside `tx`: the draft as the next revision, or the latest one when the draft is identical to it (`same`). */
  async freeze(tx: RegistryTx, note: string | undefined): Promise<{ release: ReleaseRecord; same: boolean }> {
    const bindings = await tx.listBindings();
    const draft = {
      order_mode: await tx.draftOrderMode(),
      bindings: await Promise.all(bindings.map(async (b, position) => {
        const { id, version } = parseHookRef(b.hook_ref);
        const plugin = await tx.getPlugin(id, version);
        if (!plugin) throw pluginNotFound(id, version);
        return { ...specOf(b), position, registered_at: b.registered_at, code_sha256: plugin.sha256 };
      })),
    };
    const latest = (await tx.listReleases()).reduce<ReleaseRecord | undefined>((a, r) => (a === undefined || r.revision > a.revision ? r : a), undefined);
    const same = latest !== undefined && canonicalJson({ order_mode: latest.order_mode, bindings: latest.bindings }) === canonicalJson(draft);
    return { release: same ? latest : await tx.insertRelease({ ...draft, based_on: null, note: note ?? "" }), same };
  }
}
