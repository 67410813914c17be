/**
 * Which bindings form one extension (abi/README.md §4.3: each extension is a pre/post pair). Carries
 * and symmetric unwinding are keyed by the pair, never by the plugin, so a plugin bound
 * several times (with different configs) is several extensions.
 *
 * Implicit pairs are decided statically, per binding, from the match conditions: the pair
 * of a binding is the same in every operation it runs in (so the extension list can show
 * it), and it is its plugin's only binding at its point in every operation where it pairs
 * by `hook_ref`. The same plugin bound once per point in each of several spaces (tenants)
 * pairs in each space; two bindings of one plugin at one point whose matches can overlap
 * (pipeline/match-overlap.ts) are each their own pair everywhere, even in calls only one of
 * them matches: give them `extension` ids to pair them.
 */
import { canonicalJson } from "./canonical-json.js";
import type { BindingMatch } from "./bindings.js";
import { matchesOverlap } from "./match-overlap.js";
import { getPoint, type PointName } from "./points.js";

export interface PairInput {
  id: string;
  hookRef: string;
  point: PointName;
  /** An explicit extension id: the bindings that share it are one pair. */
  extension?: string | undefined;
  /** Absent: matches every call. */
  match?: BindingMatch;
  /** A disabled binding (unless mandatory) never runs, so it meets nothing. Default true. */
  enabled?: boolean;
  mandatory?: boolean;
  /** Two implicit bindings of one plugin with the same config run once where both match (bindings.ts): not ambiguous. */
  config?: unknown;
}

/** A binding's extension, as the extension list shows it. */
export interface Pairing {
  /** `ext:<extension>`, `ref:<hook_ref>` or `binding:<id>`. */
  pair: string;
  /** The bindings at the other points of its operation that share its pair and can run in one call with it. */
  pairsWith: string[];
  /** Its plugin's other implicit bindings at its point that can run in one call with it: why it is its own pair. */
  ambiguousWith: string[];
}

/**
 * The pair id of every binding, by binding id:
 * - an explicit `extension` id is the pair (`ext:<id>`);
 * - otherwise a binding that is its plugin's only one at its point in every call it
 *   matches pairs implicitly by its `hookRef` (`ref:<hookRef>`): its plugin's before,
 *   chunk and after bindings that meet it in a call are one extension;
 * - otherwise (another binding of the same plugin at the same point, without extension
 *   ids and with another config, can match the same call, so which before goes with which
 *   after is ambiguous) the binding is its own pair (`binding:<id>`): it gets no carry and
 *   is never unwound as part of another's pair.
 * @example pairIds([{ id: "a", hookRef: "cache@1", point: "model.chat.before" }, { id: "b", hookRef: "cache@1", point: "model.chat.after" }]) // a, b → "ref:cache@1"
 */
export function pairIds(bindings: readonly PairInput[]): Map<string, string> {
  return new Map([...pairings(bindings)].map(([id, p]) => [id, p.pair]));
}

/** {@link pairIds}, with each binding's counterparts and the bindings that made it ambiguous. */
export function pairings(bindings: readonly PairInput[]): Map<string, Pairing> {
  const runs = (b: PairInput): boolean => b.enabled !== false || b.mandatory === true;
  const matchOf = (b: PairInput): BindingMatch => b.match ?? {};
  const configs = new Map<PairInput, string>();
  const configOf = (b: PairInput): string => {
    let c = configs.get(b);
    if (c === undefined) configs.set(b, (c = canonicalJson(b.config ?? {})));
    return c;
  };
  const atPoint = new Map<string, PairInput[]>();
  for (const b of bindings) {
    if (b.extension !== undefined || !pairable(b.point) || !runs(b)) continue;
    const key = `${b.hookRef}\u0000${b.point}`;
    const list = atPoint.get(key);
    if (list) list.push(b);
    else atPoint.set(key, [b]);
  }
  const ambiguous = new Map<string, string[]>();
  for (const list of atPoint.values()) {
    for (const b of list) {
      const others = list.filter((o) => o !== b && configOf(o) !== configOf(b) && matchesOverlap(matchOf(o), matchOf(b))).map((o) => o.id);
      if (others.length > 0) ambiguous.set(b.id, others);
    }
  }
  const pairOf = (b: PairInput): string => (b.extension !== undefined ? `ext:${b.extension}` : ambiguous.has(b.id) ? `binding:${b.id}` : `ref:${b.hookRef}`);
  const pairs = new Map(bindings.map((b) => [b, pairOf(b)]));
  const byPair = new Map<string, PairInput[]>();
  for (const b of bindings) {
    if (!pairable(b.point) || !runs(b)) continue;
    const list = byPair.get(pairs.get(b)!);
    if (list) list.push(b);
    else byPair.set(pairs.get(b)!, [b]);
  }
  return new Map(bindings.map((b) => {
    const pair = pairs.get(b)!;
    const pairsWith = !pairable(b.point) || !runs(b) ? [] : (byPair.get(pair) ?? [])
      .filter((o) => o.point !== b.point && getPoint(o.point).operation === getPoint(b.point).operation && matchesOverlap(matchOf(o), matchOf(b)))
      .map((o) => o.id);
    return [b.id, { pair, pairsWith, ambiguousWith: ambiguous.get(b.id) ?? [] }];
  }));
}

/** Only before, chunk and after stages take part in pairs. */
function pairable(point: PointName): boolean {
  const stage = getPoint(point).stage;
  return stage === "before" || stage === "after" || stage === "chunk";
}
