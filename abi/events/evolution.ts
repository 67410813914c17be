/**
 * The rules every event schema is held to, built-in or a service's own (abi/events/README.md, "Versioning",
 * §5.3): closed objects at every level, and additive evolution from one version of a
 * kind to the next. Pure functions over JSON Schema objects, shared by the registry
 * (which refuses a schema that breaks them) and the schema tests.
 */

/** A JSON Schema object, as far as these rules look into it. */
export type SchemaNode = { readonly [key: string]: unknown };

/** Paths of objects with `properties` that do not say `additionalProperties: false`. */
export function openObjects(schema: SchemaNode, path = "#"): string[] {
  const props = propertiesOf(schema);
  const here = props && schema.additionalProperties !== false ? [path] : [];
  const children = Object.entries(props ?? {}).flatMap(([k, v]) => openObjects(v, `${path}/properties/${k}`));
  const items = isNode(schema.items) ? openObjects(schema.items, `${path}/items`) : [];
  return [...here, ...children, ...items];
}

/**
 * What `newer` takes away from `older`, so that some data valid under `older` might fail
 * under `newer`: a property removed, a property newly required, a type or an enum / const
 * value dropped, at any depth. Empty when the change only adds. Keywords that narrow a
 * value (pattern, maximum, ...) are not compared here: the frozen examples of the older
 * version, validated under the newer one, catch those.
 */
export function additiveProblems(older: SchemaNode, newer: SchemaNode, path = "#"): string[] {
  const problems: string[] = [];
  const oldTypes = typesOf(older);
  const newTypes = typesOf(newer);
  if (oldTypes && newTypes) for (const t of oldTypes) if (!newTypes.includes(t)) problems.push(`${path}: type "${t}" dropped`);
  const oldValues = valuesOf(older);
  const newValues = valuesOf(newer);
  if (oldValues && newValues) {
    for (const v of oldValues) if (!newValues.some((n) => JSON.stringify(n) === JSON.stringify(v))) problems.push(`${path}: value ${JSON.stringify(v)} dropped`);
  } else if (!oldValues && newValues) problems.push(`${path}: values newly restricted to ${JSON.stringify(newValues)}`);
  const oldRequired = new Set(Array.isArray(older.required) ? (older.required as string[]) : []);
  for (const r of Array.isArray(newer.required) ? (newer.required as string[]) : []) if (!oldRequired.has(r)) problems.push(`${path}: "${r}" newly required`);
  const oldProps = propertiesOf(older) ?? {};
  const newProps = propertiesOf(newer) ?? {};
  for (const [name, prop] of Object.entries(oldProps)) {
    const now = newProps[name];
    if (!now) problems.push(`${path}/properties/${name}: removed`);
    else problems.push(...additiveProblems(prop, now, `${path}/properties/${name}`));
  }
  if (isNode(older.items) && isNode(newer.items)) problems.push(...additiveProblems(older.items, newer.items, `${path}/items`));
  if (older.additionalProperties !== false && newer.additionalProperties === false && propertiesOf(older)) problems.push(`${path}: additional properties newly refused`);
  return problems;
}

function isNode(v: unknown): v is SchemaNode {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function propertiesOf(s: SchemaNode): Record<string, SchemaNode> | null {
  return isNode(s.properties) ? (s.properties as Record<string, SchemaNode>) : null;
}

function typesOf(s: SchemaNode): string[] | null {
  if (typeof s.type === "string") return [s.type];
  return Array.isArray(s.type) ? (s.type as string[]) : null;
}

function valuesOf(s: SchemaNode): unknown[] | null {
  if ("const" in s) return [s.const];
  return Array.isArray(s.enum) ? s.enum : null;
}
