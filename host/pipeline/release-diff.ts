/**
 * What one revision changes against another, field by field, with direction: the console's
 * Releases page and confirmations, and the CLI's confirmation of a rollback or activation.
 * Plain data in, plain data out (no Node or DOM), so the console's bundle uses it as is.
 */
export interface Binding { id: string; position: number; [field: string]: unknown }
export interface Release { revision: number; order_mode: string; bindings: Binding[]; note?: string }

export interface FieldChange { path: string; from: unknown; to: unknown }
export interface ReleaseDiff {
  from: number;
  to: number;
  added: Binding[];
  removed: Binding[];
  changed: { id: string; fields: FieldChange[] }[];
  order: { from: string[]; to: string[] } | null;
  orderMode: { from: string; to: string } | null;
}

const IGNORED = new Set(["position", "registered_at", "updated_at"]);

/** Leaf-by-leaf differences of two JSON values, as JSON-pointer-like paths. */
export function fieldChanges(a: unknown, b: unknown, path = ""): FieldChange[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => fieldChanges(a[k], b[k], `${path}/${k}`));
  }
  return [{ path: path || "/", from: a, to: b }];
}

export function diffReleases(from: Release, to: Release): ReleaseDiff {
  const before = new Map(from.bindings.map((b) => [b.id, b]));
  const after = new Map(to.bindings.map((b) => [b.id, b]));
  const strip = (b: Binding) => Object.fromEntries(Object.entries(b).filter(([k]) => !IGNORED.has(k)));
  const changed = [...after.values()].filter((b) => before.has(b.id))
    .map((b) => ({ id: b.id, fields: fieldChanges(strip(before.get(b.id)!), strip(b)) }))
    .filter((c) => c.fields.length > 0);
  const ordered = (r: Release) => [...r.bindings].sort((x, y) => x.position - y.position).map((b) => b.id);
  const common = (ids: string[], other: Map<string, Binding>) => ids.filter((id) => other.has(id));
  const o1 = common(ordered(from), after);
  const o2 = common(ordered(to), before);
  return {
    from: from.revision, to: to.revision,
    added: to.bindings.filter((b) => !before.has(b.id)),
    removed: from.bindings.filter((b) => !after.has(b.id)),
    changed,
    order: o1.join("\u0000") === o2.join("\u0000") ? null : { from: o1, to: o2 },
    orderMode: from.order_mode === to.order_mode ? null : { from: from.order_mode, to: to.order_mode },
  };
}

/** A value as a line shows it: strings bare, the rest as JSON, long ones cut. */
export function shown(v: unknown): string {
  if (v === undefined) return "(none)";
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** "guard-prompts: enabled true → false", "guard-prompts: config.max 5 → 10". */
export function fieldLine(id: string, f: FieldChange): string {
  return `${id}: ${f.path.replace(/^\//, "").replace(/\//g, ".")} ${shown(f.from)} → ${shown(f.to)}`;
}

/** One line per change, with its direction, for the confirmation of anything that changes the serving release. */
export function summarize(d: ReleaseDiff): string[] {
  const lines = [
    ...d.added.map((b) => `adds ${b.id} (${String(b.hook_ref)} at ${String(b.point)})`),
    ...d.removed.map((b) => `removes ${b.id} (${String(b.hook_ref)} at ${String(b.point)})`),
    ...d.changed.flatMap((c) => c.fields.map((f) => fieldLine(c.id, f))),
  ];
  if (d.order) lines.push(`reorders: ${d.order.to.join(" → ")}`);
  if (d.orderMode) lines.push(`order mode ${d.orderMode.from} → ${d.orderMode.to}`);
  return lines.length ? lines : ["no binding changes (same bindings, config and order)"];
}
