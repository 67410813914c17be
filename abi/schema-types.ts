/**
 * The TypeScript type a JSON Schema (the subset the point table uses) describes, so the
 * payload types derive from the one declaration instead of being written twice.
 * Supported: `type` (string or list), `const`, `enum`, `anyOf`, `properties` with
 * `required`, `items`. Anything else is `unknown`. Results are deeply read-only: a hook
 * reads a payload and proposes changes only as a patch.
 */
export type FromSchema<S> =
  S extends { const: infer C } ? C
  : S extends { enum: readonly (infer E)[] } ? E
  : S extends { anyOf: readonly (infer A)[] } ? FromSchema<A>
  : S extends { type: "object"; properties: infer P } ? ObjectOf<P, S extends { required: readonly (infer R)[] } ? R : never>
  : S extends { type: "array"; items: infer I } ? readonly FromSchema<I>[]
  : S extends { type: infer T } ? Primitive<T extends readonly (infer U)[] ? U : T>
  : unknown;

type Primitive<T> =
  T extends "string" ? string
  : T extends "number" | "integer" ? number
  : T extends "boolean" ? boolean
  : T extends "null" ? null
  : T extends "object" ? Readonly<Record<string, unknown>>
  : T extends "array" ? readonly unknown[]
  : unknown;

type ObjectOf<P, R> = Flatten<
  { readonly [K in keyof P & R]: FromSchema<P[K]> } & { readonly [K in Exclude<keyof P, R>]?: FromSchema<P[K]> }
>;

type Flatten<T> = { [K in keyof T]: T[K] } & {};
