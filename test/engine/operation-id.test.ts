/** Operation ids stay UUIDv7 as `uuid` makes them: valid, unique, time-ordered, in creation order. */
import { validate, version } from "uuid";
import { expect, it } from "vitest";
import { newOperationId } from "../../host/engine/operation-id.js";

it("makes valid, unique UUIDv7 ids that sort in the order they were made, across many refills of the random pool", () => {
  const before = Date.now();
  const ids = Array.from({ length: 5_000 }, () => newOperationId());
  const after = Date.now();
  for (const id of ids) {
    expect(validate(id)).toBe(true);
    expect(version(id)).toBe(7);
  }
  expect(new Set(ids).size).toBe(ids.length);
  // Thousands share a millisecond: the sequence keeps them in order there too.
  expect([...ids].sort()).toEqual(ids);
  const msOf = (id: string) => parseInt(id.replace(/-/g, "").slice(0, 12), 16);
  expect(msOf(ids[0]!)).toBeGreaterThanOrEqual(before);
  expect(msOf(ids.at(-1)!)).toBeLessThanOrEqual(after + 1);
  // The random tail differs between consecutive ids (not a counter alone).
  expect(new Set(ids.map((id) => id.slice(-12))).size).toBe(ids.length);
});
