/**
 * An operation wakes the worker its guest hooks will run on ahead of their task
 * (Sandbox.expectTask): when it opens, if its before stage runs guest hooks, and when its
 * real call returns, if its after stage does, before the records write that precedes the
 * after hooks. An operation with no guest hook at the stage to come wakes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, createMemoryRecords } from "../../host/index.js";
import { Lane } from "../../host/sandbox/main/lane.js";
import { fixture } from "../helpers/fixtures.js";

const records = createMemoryRecords();
const host = createHost({ workers: 1, records });
const events: string[] = [];

beforeAll(async () => {
  await host.loadPlugin({ id: "plain", version: "1.0.0", wasm: fixture("continue") });
  host.registerHook("local", () => ({ kind: "continue" as const }));
  host.activate({ revision: 1, bindings: [
    { id: "guest-before", hookRef: "plain@1.0.0", point: "tool.before", match: { toolIds: ["both", "before-only"] } },
    { id: "guest-after", hookRef: "plain@1.0.0", point: "tool.after", match: { toolIds: ["both"] } },
    { id: "local-before", hookRef: "local", point: "tool.before", match: { toolIds: ["local"] } },
  ] });
  const expectTask = host.sandbox.expectTask.bind(host.sandbox);
  host.sandbox.expectTask = () => { events.push("warm"); expectTask(); };
  for (const name of ["insert", "update"] as const) {
    const write = records[name].bind(records) as (...args: unknown[]) => Promise<void>;
    (records as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => { events.push(name); return write(...args); };
  }
  const post = Lane.prototype.post;
  Lane.prototype.post = function (this: Lane, task: unknown, spin: number) { events.push("task"); return post.call(this, task, spin); };
});
afterAll(() => host.close());

async function toolCall(toolId: string): Promise<string[]> {
  events.length = 0;
  const r = await host.tool({ spaceId: "s" }, { toolId, name: toolId, schema: { type: "object" }, arguments: {}, callId: "c" }, async () => { events.push("call"); return {}; });
  expect(r.ok).toBe(true);
  return [...events];
}

describe("waking the worker of the next guest stage", () => {
  it("wakes it when the operation opens and when its real call returns, each time before that stage's task", async () => {
    expect(await toolCall("both")).toEqual([
      "warm", "task", // the before stage
      "insert", "call", // running, then the real call
      "warm", "update", "task", // awake while the real result is written, before the after hook runs
      "update", // the ending
    ]);
  });

  it("wakes nothing for a stage without guest hooks", async () => {
    expect(await toolCall("before-only")).toEqual(["warm", "task", "insert", "call", "update"]);
    expect(await toolCall("local")).toEqual(["insert", "call", "update"]);
    expect(await toolCall("bare")).toEqual(["insert", "call", "update"]);
  });
});
