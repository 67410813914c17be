import { SluiceError } from "../errors/sluice-error.js";
import { matchBindings, type Binding, type MatchTarget } from "../pipeline/bindings.js";
import type { PointName } from "../pipeline/points.js";
import { skippedAtPlan, type SkippedHook } from "../pipeline/skipped-hooks.js";
import type { Release } from "../pipeline/release.js";
import type { GuestPlugin, InProcessHook, InProcessHookOptions, ResolvedHook } from "./hooks.js";

/** Targets whose matched hooks are kept per release before the cache starts over. */
const MATCH_CACHE_SIZE = 4096;

/**
 * What a binding's hookRef can name: the guest plugins loaded (`id@version`) and the
 * in-process hooks registered, and which of them a release runs for a target.
 */
export class HookTable {
  private readonly plugins = new Map<string, GuestPlugin>();
  private readonly inProcess = new Map<string, { hook: InProcessHook; options: InProcessHookOptions }>();
  private matched = new WeakMap<Release, Map<string, StagePlan>>();

  plugin(ref: string): GuestPlugin | undefined {
    return this.plugins.get(ref);
  }

  addPlugin(plugin: GuestPlugin): void {
    this.plugins.set(plugin.ref, plugin);
    this.matched = new WeakMap();
  }

  addInProcess(name: string, hook: InProcessHook, options: InProcessHookOptions): void {
    this.inProcess.set(name, { hook, options });
    this.matched = new WeakMap();
  }

  resolve(binding: Binding): ResolvedHook {
    const plugin = this.plugins.get(binding.hookRef);
    if (plugin) return { kind: "guest", binding, plugin };
    const registered = this.inProcess.get(binding.hookRef);
    if (registered) return { kind: "in-process", binding, hook: registered.hook, options: registered.options };
    throw new SluiceError("CONFIG_INVALID", `binding ${binding.id} refers to "${binding.hookRef}", which is neither a loaded plugin (id@version) nor a registered in-process hook`, { binding: binding.id });
  }

  /**
   * The hooks a release runs at `point` for `target`. A release never changes, so the match
   * is kept per release (and dropped when a plugin or hook is added); the arrays are
   * shared and never modified.
   */
  hooksFor(release: Release, point: PointName, target: MatchTarget): ResolvedHook[] {
    return this.planFor(release, point, target).hooks;
  }

  /** The hooks that run at `point` for `target`, and the bindings there that do not (disabled, not matched), worked out once per release and target. */
  planFor(release: Release, point: PointName, target: MatchTarget): StagePlan {
    let byTarget = this.matched.get(release);
    if (!byTarget) this.matched.set(release, (byTarget = new Map()));
    const key = `${point}\u0000${target.purpose ?? ""}\u0000${target.toolId ?? ""}\u0000${target.modelId ?? ""}\u0000${target.instance}\u0000${byInstanceId(release, point) ? target.instanceId ?? "" : ""}\u0000${target.spaceId}`;
    let plan = byTarget.get(key);
    if (!plan) {
      if (byTarget.size >= MATCH_CACHE_SIZE) byTarget.clear();
      const bindings = release.byPoint.get(point) ?? [];
      plan = { hooks: matchBindings(bindings, point, target).map((b) => this.resolve(b)), skipped: skippedAtPlan(bindings, point, target) };
      byTarget.set(key, plan);
    }
    return plan;
  }
}

/** What a release does at one point for one target: shared, never modified. */
export interface StagePlan {
  hooks: ResolvedHook[];
  skipped: readonly SkippedHook[];
}

/** Whether a binding at `point` filters by instance id: only then does the instance id take part in the match cache's key (child ids are many). */
function byInstanceId(release: Release, point: PointName): boolean {
  return (release.byPoint.get(point) ?? []).some((b) => b.match.instanceIds !== undefined);
}
