/**
 * withKeys is `{ ...base, ...extra }` for the hot paths: the same keys, values and order,
 * objects made the same way sharing one hidden class, and a "__proto__" key in data kept as
 * data (never made the prototype).
 */
import { setFlagsFromString } from "node:v8";
import { describe, expect, it } from "vitest";
import { withChanges, withKeys } from "../../host/objects/with-keys.js";
import { operationRecord } from "../helpers/operation-record.js";

setFlagsFromString("--allow-natives-syntax");
const sameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;
const fast = new Function("o", "return %HasFastProperties(o)") as (o: object) => boolean;

describe("withKeys", () => {
  it("has the keys of both, extra's values winning, in spread order", () => {
    const base = { a: 1, b: 2, c: 3 };
    const out = withKeys(base, { b: 20, d: 4 });
    expect(out).toEqual({ a: 1, b: 20, c: 3, d: 4 });
    expect(Object.keys(out)).toEqual(Object.keys({ ...base, ...{ b: 20, d: 4 } }));
    expect(base).toEqual({ a: 1, b: 2, c: 3 });
  });

  it("copies own symbol keys and leaves out inherited ones, as spread does", () => {
    const s = Symbol("s");
    const base = Object.assign(Object.create({ inherited: true }), { own: 1, [s]: 2 }) as Record<string | symbol, unknown>;
    const out = withKeys(base, { x: 3 }) as Record<string | symbol, unknown>;
    expect(out[s]).toBe(2);
    expect("inherited" in out).toBe(false);
    expect(out).toEqual({ own: 1, x: 3, [s]: 2 });
  });

  it("keeps a __proto__ key from parsed data as a plain key, not the prototype", () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const out = withKeys(hostile, { b: 2 }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.polluted).toBeUndefined();
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(out.a).toBe(1);
    expect(out.b).toBe(2);
  });

  it("withChanges applies a partial update and leaves the base as it was", () => {
    const base = { id: "op", phase: "running" as string, attempts: 1 };
    expect(withChanges(base, { phase: "finished", attempts: undefined })).toEqual({ id: "op", phase: "finished", attempts: undefined });
    expect(base).toEqual({ id: "op", phase: "running", attempts: 1 });
  });

  it("gives objects made the same way one hidden class (what the helper is for)", () => {
    const make = (i: number) => withKeys({ id: "x", n: i, flag: null }, { request: i, more: true });
    const made = Array.from({ length: 50 }, (_, i) => make(i));
    expect(made.slice(1).every((o) => sameMap(o, made[0]!))).toBe(true);
  });

  it("keeps an operation record (23 keys) in fast mode through a phase's changes, and records changed alike share one hidden class", () => {
    // Object.assign onto {} turned such a record into a hash table (dictionary mode): every
    // later read, and the JSON.stringify that seals it, went through it.
    const phases = (r: ReturnType<typeof operationRecord>) => {
      const running = withChanges(r, { phase: "operation", realStatus: "running", updatedAt: 2 });
      const after = withChanges(running, { phase: "after", realStatus: "succeeded", inProgress: { point: "tool.after", bindingId: "b" }, updatedAt: 3 });
      return withChanges(after, { phase: "finished", owner: null, inProgress: null, updatedAt: 4 });
    };
    for (const base of [operationRecord("op-1"), JSON.parse(JSON.stringify(operationRecord("op-2"))) as ReturnType<typeof operationRecord>]) {
      const done = phases(base);
      expect(fast(done)).toBe(true);
      expect(done).toEqual({ ...base, phase: "finished", realStatus: "succeeded", inProgress: null, owner: null, updatedAt: 4 });
    }
    const made = Array.from({ length: 20 }, (_, i) => phases(operationRecord(`op-${i}`)));
    expect(made.slice(1).every((o) => sameMap(o, made[0]!))).toBe(true);
  });
});
