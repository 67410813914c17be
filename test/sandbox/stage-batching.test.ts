import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type LoadedModule, type Sandbox } from "../../host/sandbox/index.js";
import { Lane } from "../../host/sandbox/main/lane.js";
import type { StageInput } from "../../host/pipeline/run-steps.js";
import { fixture, BACKSTOP_FUEL } from "../helpers/fixtures.js";
import { context } from "../helpers/requests.js";

let sandbox: Sandbox;
let hook: LoadedModule;
beforeAll(async () => {
  sandbox = createSandbox({ workers: 1 });
  hook = await sandbox.load(fixture("contract-hook"), { limits: { timeoutMs: 2_000, fuel: BACKSTOP_FUEL } });
});
afterAll(() => sandbox.close());

function stage(mode: string, tag: string): StageInput {
  return {
    point: "tool.before",
    context: context("tool.before"),
    payload: { tool_id: "t", name: "t", schema: { type: "object" }, arguments: { trace: "" }, call_id: "c" },
    steps: [{ bindingId: `b-${tag}`, hookRef: "contract@1.0.0", policy: "fail-closed", observeOnly: false, config: { mode, tag } }],
  };
}
const step = (timeoutMs = 2_000) => [{ module: hook, timeoutMs }];
const kinds: string[] = [];

describe("stages of different operations waiting for a busy worker", () => {
  beforeAll(async () => {
    await sandbox.ready();
    // Every task reaches a worker through Lane.post: recorded here by kind.
    const post = Lane.prototype.post;
    Lane.prototype.post = function (this: Lane, task: unknown, spin: number) { kinds.push((task as { kind: string }).kind); return post.call(this, task, spin); };
  });

  it("go to the worker together, each with its own result", async () => {
    const busy = sandbox.runStage(stage("append", "first"), step());
    const waiting = Array.from({ length: 6 }, (_, i) => sandbox.runStage(stage("append", String(i)), step()));
    const results = await Promise.all([busy, ...waiting]);
    expect(results.map((r) => r.ok && (r.value.payload.arguments as { trace: string }).trace)).toEqual(["first", "0", "1", "2", "3", "4", "5"]);
    expect(kinds).toContain("stages");
  });

  it("a stage whose guest runs past its limit fails alone; the others in its task run again and succeed", async () => {
    const busy = sandbox.runStage(stage("append", "first"), step());
    const others = [sandbox.runStage(stage("append", "a"), step()), sandbox.runStage(stage("loop", "stuck"), step(60)), sandbox.runStage(stage("append", "b"), step())];
    const [, a, stuck, b] = await Promise.all([busy, ...others]);
    expect(a!.ok && (a!.value.payload.arguments as { trace: string }).trace).toBe("a");
    expect(b!.ok && (b!.value.payload.arguments as { trace: string }).trace).toBe("b");
    expect(!stuck!.ok && stuck!.error.code).toBe("GUEST_TIMEOUT");
    expect(!stuck!.ok && stuck!.index).toBe(0);
  });

  it("a stage that asked to be told its running step hears its own step index, not the batch's", async () => {
    const busy = sandbox.runStage(stage("append", "first"), step());
    const two = (tag: string, second: string): StageInput => {
      const s = stage("append", tag);
      return { ...s, steps: [s.steps[0]!, { ...s.steps[0]!, bindingId: `b-${tag}-2`, config: { mode: second, tag: `${tag}2` } }] };
    };
    const heard: number[] = [];
    const others = [
      sandbox.runStage(two("a", "append"), [...step(), ...step()]),
      sandbox.runStage(two("watched", "loop"), [...step(), ...step(60)], undefined, (i) => heard.push(i)),
    ];
    const [, a, watched] = await Promise.all([busy, ...others]);
    expect(a!.ok).toBe(true);
    expect(!watched!.ok && watched!.error.code).toBe("GUEST_TIMEOUT");
    expect(kinds).toContain("stages");
    // Its step 1 spun for 60 ms, looked at every 2 ms: told 1 many times (the batch's index is 3),
    // and before that at most its step 0 (the worker readies a call before it starts it).
    expect(heard.filter((i) => i === 1).length).toBeGreaterThan(3);
    expect(heard.every((i) => i === 0 || i === 1)).toBe(true);
  });

  it("cancelling one waiting stage leaves the others alone", async () => {
    const controller = new AbortController();
    const busy = sandbox.runStage(stage("append", "first"), step());
    const cancelled = sandbox.runStage(stage("append", "x"), step(), controller.signal);
    const kept = sandbox.runStage(stage("append", "y"), step());
    controller.abort();
    const [, c, k] = await Promise.all([busy, cancelled, kept]);
    expect(!c.ok && c.error.code).toBe("CALL_CANCELLED");
    expect(k.ok && (k.value.payload.arguments as { trace: string }).trace).toBe("y");
  });
});
