/**
 * The declared view of a payload: hooks see only what a point's schema
 * declares, and everything else a real provider or framework sends passes through
 * untouched. Derived from the point table's schemas, so the table stays the one place
 * that says what a hook may see. `declaredView` drops the undeclared fields of every
 * closed object (`additionalProperties: false`); `restoreView` puts them back into the
 * view a hook left, by position, in the original key order, so a call no hook changed
 * comes out deep-equal (and key-for-key) to what came in. `isDeclared` tells a patch
 * path that names an undeclared field, which is never patchable.
 */
type Schema = Readonly<Record<string, unknown>>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function closed(schema: Schema): Record<string, Schema> | undefined {
  return schema.additionalProperties === false && isObject(schema.properties) ? (schema.properties as Record<string, Schema>) : undefined;
}

/**
 * The `anyOf` branch a value belongs to: for objects, the branch whose `type` const is the
 * value's `type` (content parts), else the first object branch without one (any other
 * part type); for other values, the first branch whose `type` admits it.
 */
function branchOf(schema: Schema, value: unknown): Schema | undefined {
  const branches = schema.anyOf as readonly Schema[] | undefined;
  if (!branches) return schema;
  if (isObject(value)) {
    const tagged = branches.find((b) => (b.properties as Record<string, Schema> | undefined)?.type?.const === value.type);
    if (tagged) return tagged;
    return branches.find((b) => b.type === "object" && (b.properties as Record<string, Schema> | undefined)?.type?.const === undefined);
  }
  if (Array.isArray(value)) return branches.find((b) => b.type === "array");
  return undefined;
}

/** The part of `value` that `schema` declares. Values the schema does not shape (strings, numbers, open objects) are returned as they are. */
export function declaredView(schema: Schema, value: unknown): unknown {
  const s = branchOf(schema, value);
  if (!s) return value;
  if (Array.isArray(value) && isObject(s.items)) return value.map((item) => declaredView(s.items as Schema, item));
  const props = closed(s);
  if (!props || !isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (Object.hasOwn(props, key)) out[key] = declaredView(props[key]!, value[key]);
  return out;
}

/** `view` (as the hooks left it) with the undeclared fields of `original` put back where they were. */
export function restoreView(schema: Schema, original: unknown, view: unknown): unknown {
  if (view === original) return original;
  const s = branchOf(schema, view);
  if (!s || s !== branchOf(schema, original)) return view;
  if (Array.isArray(view) && Array.isArray(original) && isObject(s.items)) {
    return view.map((item, i) => (i < original.length ? restoreView(s.items as Schema, original[i], item) : item));
  }
  const props = closed(s);
  if (!props || !isObject(view) || !isObject(original)) return view;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(original)) {
    if (!Object.hasOwn(props, key)) out[key] = original[key];
    else if (Object.hasOwn(view, key)) out[key] = restoreView(props[key]!, original[key], view[key]);
  }
  for (const key of Object.keys(view)) if (!Object.hasOwn(original, key)) out[key] = view[key];
  return out;
}

/**
 * Whether the schema declares the field at `path` (segments): every segment names a
 * declared property, an array item (an index or `-`), or lies inside a value the schema
 * leaves open (an object without closed properties). A path into any branch of an
 * `anyOf` that declares it counts.
 */
export function isDeclared(schema: Schema, path: readonly string[]): boolean {
  if (path.length === 0) return true;
  const [head, ...rest] = path as [string, ...string[]];
  const branches = (schema.anyOf as readonly Schema[] | undefined) ?? [schema];
  return branches.some((b) => {
    // Whether the segment is a valid index is the patch's own check (PATCH_INVALID), not a question of declaration.
    if (isObject(b.items)) return isDeclared(b.items as Schema, rest);
    const props = b.properties as Record<string, Schema> | undefined;
    if (props && Object.hasOwn(props, head)) return isDeclared(props[head]!, rest);
    if (isObject(b.additionalProperties)) return isDeclared(b.additionalProperties as Schema, rest);
    // Open: nothing below is shaped by the point, so nothing below is hidden either.
    return b.additionalProperties !== false && b.items === undefined && b.anyOf === undefined && (b.type === "object" || b.type === undefined);
  });
}
