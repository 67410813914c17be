/**
 * Static limits on an author's config schema and on a config checked against it, so the
 * check a binding write runs on the main thread has a small, known cost. The schema's cost
 * is bounded by its size with every `$ref` expanded (a chain of refs that each use the
 * next twice doubles per link; a cycle is unbounded), and by the keywords whose cost is not
 * linear in the data (`uniqueItems` over objects is quadratic). The config's cost is
 * bounded by its depth and node count. Each walk stops at its limit, so a hostile input
 * costs no more than the limit to refuse.
 */
import { SluiceError } from "../errors/sluice-error.js";

export const SCHEMA_LIMITS = {
  /** Nesting of objects and arrays in the schema document. */
  depth: 32,
  /** Subschemas with every `$ref` expanded in place. */
  expandedNodes: 256,
  /** `$ref`s in the document. */
  refs: 64,
  /** Characters of one `pattern` (RE2's compile cost grows with it). */
  patternLength: 1_000,
  /** Patterns (`pattern` and `patternProperties` keys) in the document. */
  patterns: 64,
} as const;

export const CONFIG_LIMITS = {
  /** Nesting of objects and arrays in a config. */
  depth: 32,
  /** Values (objects, arrays, scalars) in a config. */
  nodes: 10_000,
} as const;

const REFUSED_KEYWORDS = ["$dynamicRef", "$recursiveRef", "$dynamicAnchor", "$recursiveAnchor"] as const;
const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

function tooComplex(message: string, limit: Record<string, unknown>): SluiceError {
  return new SluiceError("MANIFEST_INVALID", `config_schema ${message}`, { field: "config_schema", ...limit });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The value a local `#/a/b` pointer names inside `root`, or undefined. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Throws MANIFEST_INVALID when `schema` exceeds {@link SCHEMA_LIMITS} or uses a refused keyword. */
export function checkSchemaLimits(schema: unknown): void {
  const refs: string[] = [];
  let patterns = 0;
  const walk = (node: unknown, depth: number): void => {
    if (depth > SCHEMA_LIMITS.depth) throw tooComplex(`is nested deeper than ${SCHEMA_LIMITS.depth} levels`, { limit: "depth", max: SCHEMA_LIMITS.depth });
    if (Array.isArray(node)) { for (const item of node) walk(item, depth + 1); return; }
    if (!isObject(node)) return;
    for (const keyword of REFUSED_KEYWORDS) {
      if (keyword in node) throw tooComplex(`uses ${keyword}; dynamic references are not allowed in config schemas (use $ref to #/$defs/...)`, { limit: "keyword", keyword });
    }
    if (typeof node.$ref === "string") {
      if (node.$ref !== "#" && !node.$ref.startsWith("#/")) throw tooComplex(`has $ref ${JSON.stringify(node.$ref.slice(0, 100))}; only local references (#/$defs/...) are allowed`, { limit: "ref" });
      refs.push(node.$ref);
      if (refs.length > SCHEMA_LIMITS.refs) throw tooComplex(`has more than ${SCHEMA_LIMITS.refs} $refs`, { limit: "refs", max: SCHEMA_LIMITS.refs });
    }
    patterns += (typeof node.pattern === "string" ? 1 : 0) + (isObject(node.patternProperties) ? Object.keys(node.patternProperties).length : 0);
    if (patterns > SCHEMA_LIMITS.patterns) throw tooComplex(`has more than ${SCHEMA_LIMITS.patterns} patterns`, { limit: "patterns", max: SCHEMA_LIMITS.patterns });
    if (typeof node.pattern === "string" && node.pattern.length > SCHEMA_LIMITS.patternLength) {
      throw tooComplex(`has a pattern longer than ${SCHEMA_LIMITS.patternLength} characters`, { limit: "patternLength", max: SCHEMA_LIMITS.patternLength });
    }
    if (node.uniqueItems === true && !scalarItems(node.items)) {
      throw tooComplex("uses uniqueItems on items that are not typed as scalars (string, number, integer, boolean, null): comparing objects is quadratic; give items a scalar type", { limit: "uniqueItems" });
    }
    for (const value of Object.values(node)) walk(value, depth + 1);
  };
  walk(schema, 0);
  expandedSize(schema);
}

function scalarItems(items: unknown): boolean {
  if (!isObject(items)) return false;
  if (items.type === undefined) return enumTypes(items) !== undefined;
  const types = Array.isArray(items.type) ? items.type : [items.type];
  return types.length > 0 && types.every((t) => typeof t === "string" && SCALAR_TYPES.has(t));
}

/** The JSON types of an `enum` or `const` made only of scalars, or undefined. */
function enumTypes(schema: Record<string, unknown>): string[] | undefined {
  const values = Array.isArray(schema.enum) ? schema.enum : "const" in schema ? [schema.const] : undefined;
  if (!values || values.length === 0) return undefined;
  const types = new Set<string>();
  for (const v of values) {
    if (v === null) types.add("null");
    else if (typeof v === "string" || typeof v === "boolean" || typeof v === "number") types.add(typeof v);
    else return undefined;
  }
  return [...types];
}

/**
 * A copy of `schema` in which `items` of a `uniqueItems` array that are an enum of scalars
 * also say their type. It accepts exactly the same configs (such an item can only be one
 * of those scalars), and lets Ajv check uniqueness in linear time instead of comparing
 * every pair (a 10,000-item config took over a second). Call after {@link checkSchemaLimits}.
 */
export function withScalarItemTypes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withScalarItemTypes);
  if (!isObject(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = key === "enum" || key === "const" || key === "default" || key === "examples" ? value : withScalarItemTypes(value);
  if (copy.uniqueItems === true && isObject(copy.items) && copy.items.type === undefined) {
    const types = enumTypes(copy.items);
    if (types) copy.items = { ...copy.items, type: types.length === 1 ? types[0] : types };
  }
  return copy;
}

/**
 * Counts the subschemas of `schema` with every `$ref` replaced by its target, memoised per
 * target, refusing a cycle (a ref reached again while it is being expanded).
 */
function expandedSize(root: unknown): number {
  const sizes = new Map<string, number>();
  const expanding = new Set<string>();
  const max = SCHEMA_LIMITS.expandedNodes;
  const over = () => tooComplex(`expands to more than ${max} subschemas once its $refs are followed`, { limit: "expandedNodes", max });
  const size = (node: unknown): number => {
    if (Array.isArray(node)) return node.reduce<number>((n, item) => { const s = n + size(item); if (s > max) throw over(); return s; }, 0);
    if (!isObject(node)) return 0;
    let n = 1;
    if (typeof node.$ref === "string") n += sizeOfRef(node.$ref);
    for (const [key, value] of Object.entries(node)) {
      // Definitions count where they are used, not where they are written.
      if (key === "$defs" || key === "definitions" || key === "const" || key === "enum" || key === "default" || key === "examples") continue;
      n += size(value);
      if (n > max) throw over();
    }
    return n;
  };
  const sizeOfRef = (ref: string): number => {
    const known = sizes.get(ref);
    if (known !== undefined) return known;
    if (expanding.has(ref)) throw tooComplex(`has a $ref cycle through ${JSON.stringify(ref.slice(0, 100))}; recursive config schemas are not allowed`, { limit: "refCycle" });
    const target = resolvePointer(root, ref);
    if (target === undefined) return 0; // Ajv refuses the unresolvable ref when it compiles.
    expanding.add(ref);
    const n = size(target);
    expanding.delete(ref);
    sizes.set(ref, n);
    return n;
  };
  return size(root);
}

/** Throws PLUGIN_CONFIG_INVALID when `config` exceeds {@link CONFIG_LIMITS}. */
export function checkConfigLimits(config: unknown, ref: string): void {
  let nodes = 0;
  const refuse = (what: string, limit: Record<string, unknown>) => new SluiceError("PLUGIN_CONFIG_INVALID", `config for ${ref} ${what}`, { ref, ...limit });
  const walk = (value: unknown, depth: number): void => {
    if (++nodes > CONFIG_LIMITS.nodes) throw refuse(`has more than ${CONFIG_LIMITS.nodes} values`, { limit: "nodes", max: CONFIG_LIMITS.nodes });
    if (typeof value !== "object" || value === null) return;
    if (depth >= CONFIG_LIMITS.depth) throw refuse(`is nested deeper than ${CONFIG_LIMITS.depth} levels`, { limit: "depth", max: CONFIG_LIMITS.depth });
    for (const item of Array.isArray(value) ? value : Object.values(value)) walk(item, depth + 1);
  };
  walk(config, 0);
}
