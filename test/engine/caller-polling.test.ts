/**
 * The caller polls for a guest hook's reply (the sandbox's `spin.caller`) only while its
 * operation is the host's only one: a poll holds the event loop, and another operation's
 * request or upstream answer would wait behind it. The engine tells the sandbox how many
 * operations are in flight as each one opens and ends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost } from "../../host/index.js";
import { Lane } from "../../host/sandbox/main/lane.js";
import { fixture } from "../helpers/fixtures.js";

// A budget far above any worker's time on a `continue` hook, so only the rule under test decides.
const CALLER_SPIN = 5_000;
const host = createHost({ workers: 1, spin: { caller: CALLER_SPIN } });
const polls: number[] = [];
const post = Lane.prototype.post;

beforeAll(async () => {
  await host.loadPlugin({ id: "plain", version: "1.0.0", wasm: fixture("continue") });
  host.activate({ revision: 1, bindings: [{ id: "guest-before", hookRef: "plain@1.0.0", point: "tool.before", match: { toolIds: ["t"] } }] });
  Lane.prototype.post = function (this: Lane, task: unknown, spin: number) { polls.push(spin); return post.call(this, task, spin); };
});
afterAll(async () => {
  Lane.prototype.post = post;
  await host.close();
});

const toolCall = (execute: () => Promise<unknown> = async () => ({})) =>
  host.tool({ spaceId: "s" }, { toolId: "t", name: "t", schema: { type: "object" }, arguments: {}, callId: "c" }, execute);

describe("polling for a guest's reply", () => {
  it("polls when the operation is the host's only one", async () => {
    polls.length = 0;
    expect((await toolCall()).ok).toBe(true);
    expect(polls).toEqual([CALLER_SPIN]);
    expect(host.sandbox.operationsInFlight).toBe(0);
  });

  it("does not poll while another operation is in flight, and polls again once it has ended", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    polls.length = 0;
    // The first operation's before hook runs alone (polled); its real call then waits on the gate.
    const first = toolCall(() => gate.then(() => ({})));
    await expect.poll(() => polls.length, { timeout: 10_000 }).toBe(1);
    expect(host.sandbox.operationsInFlight).toBe(1);
    const second = await toolCall();
    expect(second.ok).toBe(true);
    expect(polls).toEqual([CALLER_SPIN, 0]);
    release();
    expect((await first).ok).toBe(true);
    expect(host.sandbox.operationsInFlight).toBe(0);
    polls.length = 0;
    expect((await toolCall()).ok).toBe(true);
    expect(polls).toEqual([CALLER_SPIN]);
  });
});
