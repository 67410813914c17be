/** The shared pool of random bytes (nonces, operation ids): each value fresh, none changed later. */
import { expect, it } from "vitest";
import { freshRandom } from "../../host/objects/fresh-random.js";

it("hands out each value once, of the size asked, and leaves values handed out as they were across refills", () => {
  const first = freshRandom(12);
  const copy = Buffer.from(first);
  // Many pools' worth, in sizes that do not divide 4096.
  const seen = new Set<string>();
  for (let i = 0; i < 3_000; i++) {
    const v = freshRandom(i % 2 ? 12 : 16);
    expect(v.byteLength).toBe(i % 2 ? 12 : 16);
    seen.add(v.toString("hex"));
  }
  expect(seen.size).toBe(3_000);
  expect(first.equals(copy)).toBe(true);
  expect(freshRandom(5_000).byteLength).toBe(5_000);
});
