/**
 * `{ ...base, ...extra }`, as a new object with the keys of both (extra's win), built so that
 * objects made the same way share one hidden class.
 *
 * On Node 20 (V8 11.3) an object literal that starts with a spread and then gains keys the
 * spread did not copy gets a map of its own every time it runs: V8's fast clone makes a map
 * outside the shared transition tree, and each key added to it makes another. Every such map
 * lives until the next full collection, so on a per-call path they are most of what survives
 * each young one (measured on the sandbox's call path: about 1 MB per scavenge at 28k calls a
 * second, and scavenge pauses of 2-3 ms instead of under 1). Object.assign onto a fresh `{}`
 * follows the shared transitions, up to a dozen keys or so ({@link large}: past that it may
 * leave the copy in dictionary mode, and a spread is the better of the two).
 * test/package/hot-path-objects.test.ts keeps hot-path folders free of the literal form.
 */
type Without<A, K extends PropertyKey> = A extends unknown ? Omit<A, K> : never;

export function withKeys<A extends object, B extends object>(base: A, extra: B): Without<A, keyof B> & B {
  // Object.assign sets keys, so an own key "__proto__" (JSON.parse makes one from a caller's
  // or a guest's data) would become the prototype; spread defines it as a plain key.
  if (Object.hasOwn(base, "__proto__") || Object.hasOwn(extra, "__proto__") || large(base)) return { ...base, ...extra } as unknown as Without<A, keyof B> & B;
  return Object.assign({}, base, extra) as unknown as Without<A, keyof B> & B;
}

/**
 * Past a dozen keys, Object.assign onto `{}` can leave the copy in dictionary mode (an operation
 * record's 23 keys did: every later read, and the JSON.stringify that seals it, then go through
 * a hash table; 3.2 µs a merge against 0.4 for a spread). A spread copies the source's map,
 * which V8 keeps and shares from one call to the next for the same source map.
 */
const LARGE = 12;
function large(o: object): boolean {
  let n = 0;
  for (const _ in o) if (++n > LARGE) return true;
  return false;
}

/** `{ ...base, ...changes }` where the changes are some of base's own keys: the result keeps base's type. */
export function withChanges<A extends object>(base: A, changes: Partial<A>): A {
  return withKeys(base, changes) as unknown as A;
}
