/**
 * Whether two bindings' match conditions can both hold for one call: the static test
 * behind implicit pairs (pipeline/pairs.ts). It may say "yes" for two bindings that never
 * meet (it treats each filter on its own, e.g. `instances` apart from `instance_ids`), never
 * "no" for two that can: a wrong "yes" only costs an implicit pair, a wrong "no" would hand
 * one binding's carry to another's hook.
 */
import type { BindingMatch } from "./bindings.js";

/** True when some call matches both `a` and `b` (bindings.ts: an absent filter matches anything, an empty one nothing). */
export function matchesOverlap(a: BindingMatch, b: BindingMatch): boolean {
  return valuesMeet(a.purposes, b.purposes)
    && valuesMeet(a.toolIds, b.toolIds)
    && valuesMeet(a.modelIds, b.modelIds)
    && valuesMeet(a.instances, b.instances)
    && patternsMeet(a.instanceIds, b.instanceIds)
    && valuesMeet(a.spaces, b.spaces);
}

function valuesMeet<T>(x: readonly T[] | undefined, y: readonly T[] | undefined): boolean {
  if (x === undefined) return y === undefined || y.length > 0;
  if (y === undefined) return x.length > 0;
  return x.some((v) => y.includes(v));
}

function patternsMeet(x: readonly string[] | undefined, y: readonly string[] | undefined): boolean {
  if (x === undefined) return y === undefined || y.length > 0;
  if (y === undefined) return x.length > 0;
  return x.some((p) => y.some((q) => globsMeet(p, q)));
}

/**
 * Whether some string matches both instance-id patterns (`*`: any run of characters,
 * everything else literal): a walk over both patterns at once, each state tried once.
 * @example globsMeet("researcher-*", "*-1") // true: "researcher-1"
 */
export function globsMeet(p: string, q: string): boolean {
  const seen = new Map<number, boolean>();
  const meet = (i: number, j: number): boolean => {
    const key = i * (q.length + 1) + j;
    const known = seen.get(key);
    if (known !== undefined) return known;
    let r: boolean;
    if (i === p.length && j === q.length) r = true;
    // A star stops here, or takes the next character the other pattern must produce.
    else if (p[i] === "*") r = meet(i + 1, j) || (j < q.length && meet(i, j + 1));
    else if (q[j] === "*") r = meet(i, j + 1) || (i < p.length && meet(i + 1, j));
    else r = i < p.length && j < q.length && p[i] === q[j] && meet(i + 1, j + 1);
    seen.set(key, r);
    return r;
  };
  return meet(0, 0);
}
