/**
 * Which bindings form one extension (seed 004: each extension is a pre/post pair). Carries
 * and symmetric unwinding are keyed by the pair, never by the plugin, so a plugin bound
 * several times (with different configs) is several extensions.
 */
import { getPoint, type PointName } from "./points.js";

export interface PairInput {
  id: string;
  hookRef: string;
  point: PointName;
  /** An explicit extension id: the bindings that share it are one pair. */
  extension?: string | undefined;
}

/**
 * The pair id of every binding, by binding id:
 * - an explicit `extension` id is the pair (`ext:<id>`);
 * - otherwise a plugin bound at most once per point of an operation pairs implicitly by
 *   its `hookRef` (`ref:<hookRef>`): its before, chunk and after bindings are one extension;
 * - otherwise (the same plugin bound several times at one point without extension ids, so
 *   which before goes with which after is ambiguous) each binding is its own pair
 *   (`binding:<id>`): it gets no carry and is never unwound as part of another's pair.
 * @example pairIds([{ id: "a", hookRef: "cache@1", point: "model.chat.before" }, { id: "b", hookRef: "cache@1", point: "model.chat.after" }]) // a, b → "ref:cache@1"
 */
export function pairIds(bindings: readonly PairInput[]): Map<string, string> {
  const implicit = bindings.filter((b) => b.extension === undefined);
  const perPoint = new Map<string, number>();
  for (const b of implicit) perPoint.set(`${b.hookRef}\u0000${b.point}`, (perPoint.get(`${b.hookRef}\u0000${b.point}`) ?? 0) + 1);
  const ambiguous = new Set(implicit.filter((b) => perPoint.get(`${b.hookRef}\u0000${b.point}`)! > 1 && pairable(b.point)).map((b) => b.hookRef));
  return new Map(bindings.map((b) => [
    b.id,
    b.extension !== undefined ? `ext:${b.extension}` : ambiguous.has(b.hookRef) ? `binding:${b.id}` : `ref:${b.hookRef}`,
  ]));
}

/** Only before, chunk and after stages take part in pairs. */
function pairable(point: PointName): boolean {
  const stage = getPoint(point).stage;
  return stage === "before" || stage === "after" || stage === "chunk";
}
