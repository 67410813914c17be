/**
 * Ajv's errors, said so a person knows what to change: every problem names its path, the
 * offending value or key, and the allowed values. Shared by every check of author input
 * (manifests, bindings, binding configs) on the server and in the CLI's sample runner.
 */
import type { ErrorObject } from "ajv";

export interface Problem {
  /** JSON Pointer of the offending value ("/" for the root). */
  path: string;
  message: string;
}

const shown = (v: unknown): string => {
  const text = JSON.stringify(v);
  return text === undefined ? String(v) : text.length > 100 ? `${text.slice(0, 97)}...` : text;
};

function valueAt(root: unknown, pointer: string): unknown {
  return pointer.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((v, k) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), root);
}

/** The allowed name closest to `name` (edit distance at most 2), for "did you mean". */
export function closest(name: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of allowed) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) { best = candidate; bestDistance = d; }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The properties a schema at `schemaPath` declares, for naming them next to an unknown one. */
function declaredProperties(schema: unknown, schemaPath: string): string[] {
  const parts = schemaPath.replace(/^#\/?/, "").split("/").filter(Boolean);
  // schemaPath ends in ".../additionalProperties"; the declaring object is its parent.
  const node = parts.slice(0, -1).reduce<unknown>((v, k) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[decodeURIComponent(k.replace(/~1/g, "/").replace(/~0/g, "~"))] : undefined), schema);
  const props = (node as { properties?: Record<string, unknown> } | undefined)?.properties;
  return props ? Object.keys(props) : [];
}

/** One problem, with the value, the key or the allowed values Ajv's message leaves out. */
export function explainError(e: ErrorObject, root: unknown, schema?: unknown): Problem {
  const path = e.instancePath || "/";
  const at = valueAt(root, e.instancePath);
  const params = e.params as Record<string, unknown>;
  const where = e.instancePath || "the root";
  if (e.keyword === "enum") {
    const allowed = (params.allowedValues as unknown[] | undefined) ?? [];
    const subject = e.propertyName !== undefined ? `property name ${shown(e.propertyName)}` : `${e.instancePath ? `${e.instancePath} ` : ""}${shown(at)}`;
    const guess = typeof (e.propertyName ?? at) === "string" ? closest(String(e.propertyName ?? at), allowed.filter((a): a is string => typeof a === "string")) : undefined;
    return { path: e.propertyName !== undefined ? `${path === "/" ? "" : path}/${e.propertyName}` : path, message: `${subject} is not one of the allowed values (${allowed.map(shown).join(", ")})${guess ? `; did you mean ${shown(guess)}?` : ""}` };
  }
  if (e.keyword === "const") return { path, message: `${shown(at)} must be ${shown(params.allowedValue)}` };
  if (e.keyword === "additionalProperties") {
    const key = String(params.additionalProperty);
    const allowed = schema ? declaredProperties(schema, e.schemaPath) : [];
    const guess = closest(key, allowed);
    return { path: `${path === "/" ? "" : path}/${key}`, message: `unknown property ${shown(key)} at ${where}${allowed.length ? ` (allowed: ${allowed.join(", ")})` : ""}${guess ? `; did you mean ${shown(guess)}?` : ""}` };
  }
  if (e.keyword === "required") return { path, message: `${where} is missing the required property ${shown(params.missingProperty)}` };
  if (e.keyword === "propertyNames") return { path, message: `${where} has an invalid property name ${shown(e.propertyName ?? params.propertyName)}` };
  return { path, message: `${where} ${e.message ?? "is invalid"}${at !== undefined && typeof at !== "object" ? ` (got ${shown(at)})` : ""}` };
}

/**
 * Every problem explained, unknown keys and bad values before missing ones (a typo in a key
 * is what also makes the right key "missing"), Ajv's redundant follow-ups dropped.
 */
export function explainErrors(errors: readonly ErrorObject[] | null | undefined, root: unknown, schema?: unknown): Problem[] {
  const rank = (e: ErrorObject) => (e.keyword === "additionalProperties" || e.keyword === "enum" ? 0 : e.keyword === "required" ? 2 : 1);
  const kept = [...(errors ?? [])]
    // propertyNames is always followed by the enum error that says which name and why.
    .filter((e) => e.keyword !== "propertyNames" || !(errors ?? []).some((o) => o.keyword === "enum" && o.propertyName !== undefined))
    .sort((a, b) => rank(a) - rank(b));
  const out: Problem[] = [];
  for (const e of kept) {
    const p = explainError(e, root, schema);
    if (!out.some((o) => o.path === p.path && o.message === p.message)) out.push(p);
  }
  return out;
}

/** The problems as one line: the first few in full, then how many more. */
export function problemsText(problems: readonly Problem[], max = 3): string {
  const shownProblems = problems.slice(0, max).map((p) => p.message).join("; ");
  return problems.length > max ? `${shownProblems} (and ${problems.length - max} more problem(s))` : shownProblems;
}
