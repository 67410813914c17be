/** The "running" record is written, and its write has completed, before the wrapped call starts. */
import { afterAll, expect, it } from "vitest";
import { createHost, createMemoryRecords, type OperationStore } from "../../host/index.js";
import { call, ctx } from "./scenarios.js";

const inner = createMemoryRecords();
const completed: string[] = [];
// A slow engine: every update completes 20 ms after it was asked for.
const slow: OperationStore = {
  ...inner,
  update: (id, changes, result) => new Promise((resolve, reject) => setTimeout(() => {
    inner.update(id, changes, result).then(() => { if (changes.realStatus) completed.push(changes.realStatus); resolve(); }, reject);
  }, 20)),
};
const host = createHost({ workers: 1, records: slow });
afterAll(() => host.close());

it("the wrapped call starts only after the store has completed the running write", async () => {
  host.activate({ revision: 1, bindings: [] });
  let seenAtCall: string[] | undefined;
  const r = await host.tool(ctx, call, async () => { seenAtCall = [...completed]; return "ok"; });
  expect(r.ok).toBe(true);
  expect(seenAtCall).toEqual(["running"]);
  // The real result is on record before the after stage and the ending follow it.
  expect(completed).toEqual(["running", "succeeded", "succeeded"]);
});
