/**
 * Operation ids are UUIDv7 (RFC 9562): time-ordered, so each new record's key lands beside
 * the last one in the stores' indexes, and still unguessable (74 random bits). Ids made one
 * after another sort in the order their operations opened, and never repeat.
 */
import { afterAll, expect, it } from "vitest";
import { createHost, createMemoryRecords } from "../../host/index.js";

const records = createMemoryRecords();
const host = createHost({ workers: 1, records });
afterAll(() => host.close());

it("are version-7 UUIDs in the order their operations opened, all distinct", async () => {
  const ids: string[] = [];
  for (let i = 0; i < 200; i++) {
    const r = await host.tool({ spaceId: "s" }, { toolId: "t", name: "t", schema: { type: "object" }, arguments: {}, callId: `c${i}` }, async () => ({}));
    expect(r.ok).toBe(true);
    ids.push(r.facts.operationId);
  }
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
  expect((await records.get(ids[0]!))?.operationId).toBe(ids[0]);
});
