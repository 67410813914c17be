/**
 * Bindings: which hook runs at which point, for which calls, in which order
 * (abi/README.md §4.3: ordering, symmetric pairs).
 */
import { canonicalJson } from "./canonical-json.js";
import type { PointName, Purpose } from "./points.js";
import { withKeys } from "../objects/with-keys.js";

export type Instance = "main" | "child";

/** Each present filter must contain the target's value; an absent filter matches anything, an empty one nothing. */
export interface BindingMatch {
  purposes?: readonly Purpose[];
  toolIds?: readonly string[];
  modelIds?: readonly string[];
  instances?: readonly Instance[];
  /** Particular instances by id: exact ids, or patterns with `*` (any run of characters), e.g. `researcher-*`. */
  instanceIds?: readonly string[];
  spaces?: readonly string[];
}

export interface Binding {
  id: string;
  /** `plugin-id@version` for a guest, or the registered name of an in-process hook. */
  hookRef: string;
  point: PointName;
  match: BindingMatch;
  /** Lower runs first. */
  priority: number;
  /** Position in the published binding list; breaks priority ties. */
  order: number;
  timeoutMs: number;
  failurePolicy: "fail-closed" | "fail-open";
  observeOnly: boolean;
  config: unknown;
  /** Ignored for mandatory bindings: a platform rule cannot be switched off. */
  enabled: boolean;
  /**
   * A platform rule: runs before every non-mandatory binding of its stage, whatever the
   * priorities, and again on the final payload when a later hook changed it (see
   * pipeline/mandatory.ts); at model.chat.chunk it runs last instead. Its verdict holds
   * on what crosses the boundary.
   */
  mandatory: boolean;
  /**
   * The extension (a pre/post pair, abi/README.md §4.3) this binding belongs to: carries and
   * symmetric unwinding are keyed by it. Resolved by pipeline/pairs.ts from the binding's
   * `extension` id, or implicitly.
   */
  pair: string;
}

/** The call a hook stage runs for. A filter on a field the target lacks does not match. */
export interface MatchTarget {
  purpose?: Purpose;
  toolId?: string;
  modelId?: string;
  instance: Instance;
  /** The instance's own id ("main" for the main agent); filters by `instanceIds` need it. */
  instanceId?: string;
  spaceId: string;
}

/** Execution order: mandatory first, then ascending priority, then binding order, then id (so the order is total). */
export function compareBindings(a: Binding, b: Binding): number {
  return Number(b.mandatory) - Number(a.mandatory) || a.priority - b.priority || a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The bindings that run at `point` for `target`, in execution order.
 *
 * A hook bound twice for the same call (the same binding id, or the same `hookRef` with
 * the same config and no different extension id, e.g. at agent scope and at tool scope) runs once, at the earlier of
 * its positions. The survivor keeps its own id, priority and timeout, but takes the
 * strictest safety settings of the duplicates: fail-closed if any was, observe-only only
 * if all were, so a duplicate can never weaken a binding.
 * @example matchBindings(release.bindings, "tool.before", { toolId: "search", instance: "main", spaceId: "s1" })
 */
export function matchBindings(bindings: readonly Binding[], point: PointName, target: MatchTarget): Binding[] {
  const candidates = bindings
    .filter((b) => b.point === point && (b.enabled || b.mandatory) && matches(b.match, target))
    .sort(compareBindings);
  const kept: Binding[] = [];
  const byKey = new Map<string, number>();
  for (const b of candidates) {
    // Bindings of two named extensions are two extensions, even with the same plugin and config.
    const keys = [`id:${b.id}`, `ref:${b.hookRef}\u0000${canonicalJson(b.config)}\u0000${b.pair.startsWith("ext:") ? b.pair : ""}`];
    const at = keys.map((k) => byKey.get(k)).find((i) => i !== undefined);
    if (at === undefined) {
      keys.forEach((k) => byKey.set(k, kept.length));
      kept.push(b);
      continue;
    }
    const first = kept[at]!;
    kept[at] = withKeys(first, {
      failurePolicy: first.failurePolicy === "fail-closed" || b.failurePolicy === "fail-closed" ? "fail-closed" as const : "fail-open" as const,
      observeOnly: first.observeOnly && b.observeOnly,
    });
    keys.forEach((k) => byKey.set(k, at));
  }
  return kept;
}

/** Whether every filter of `match` admits `target` (what {@link matchBindings} asks of each binding). */
export function matches(match: BindingMatch, target: MatchTarget): boolean {
  const within = <T>(filter: readonly T[] | undefined, value: T | undefined) =>
    filter === undefined || (value !== undefined && filter.includes(value));
  return within(match.purposes, target.purpose)
    && within(match.toolIds, target.toolId)
    && within(match.modelIds, target.modelId)
    && within(match.instances, target.instance)
    && (match.instanceIds === undefined || match.instanceIds.some((p) => instancePattern(p).test(target.instanceId ?? "main")))
    && within(match.spaces, target.spaceId);
}

const patterns = new Map<string, RegExp>();
/** `*` matches any run of characters; everything else is literal. */
function instancePattern(pattern: string): RegExp {
  let re = patterns.get(pattern);
  if (!re) {
    re = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
    patterns.set(pattern, re);
  }
  return re;
}

/**
 * `staged` (the default): after hooks run in the same order as before hooks.
 * `symmetric`: they unwind like a stack, in reverse.
 */
export type AfterOrderMode = "staged" | "symmetric";

/**
 * The order of an after (or chunk) stage, given its bindings in execution order (as
 * from {@link matchBindings}). In symmetric mode the list is reversed, and when a before
 * hook short-circuited, `unwind` says which before hooks were reached: an extension (by
 * its `pair`, see pipeline/pairs.ts) whose before hook was never reached does not get
 * its paired after hook, while after-only hooks (no before binding) still run, since
 * they guard the output whatever produced it, and so do mandatory bindings (a platform
 * rule is never unwound away). Staged mode has no implicit unwinding: every after hook
 * runs. Pairs are expected to be bound with the same priority, so reversing the after
 * list mirrors the before list.
 * @example afterOrder(matchBindings(bs, "model.chat.after", t), "symmetric", { before, reached: 2 })
 */
export function afterOrder(
  ordered: readonly Binding[],
  mode: AfterOrderMode,
  unwind?: { before: readonly Binding[]; reached: number },
): Binding[] {
  if (mode === "staged") return [...ordered];
  const reversed = [...ordered].reverse();
  if (!unwind) return reversed;
  const paired = new Set(unwind.before.map((b) => b.pair));
  const reached = new Set(unwind.before.slice(0, unwind.reached).map((b) => b.pair));
  return reversed.filter((b) => b.mandatory || !paired.has(b.pair) || reached.has(b.pair));
}
