/**
 * A tool call's before event whose after event never comes: the door's expiry round ends its
 * operation as unknown (OPERATION_RESULT_MISSING), runs the error stage, and a post arriving
 * afterwards applies nothing. The round runs on a timer; only that timer is faked here.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { memoryEventLog } from "../../host/agents/event-log.js";
import { memoryPairing } from "../../host/agents/pairing.js";
import { call } from "../api/server-helpers.js";
import { until } from "../helpers/until.js";
import { serveDoor, type Door } from "./door-helpers.js";

const pre = { session_id: "s-exp", transcript_path: "/t", cwd: "/w", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "make" }, tool_use_id: "toolu_exp" };
const post = { ...pre, hook_event_name: "PostToolUse", tool_response: { stdout: "built", stderr: "", interrupted: false } };

describe("a pre whose post never comes", () => {
  let door: Door;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      door = await serveDoor({
        allow: () => ({ kind: "continue" }),
        watch: () => ({ kind: "continue" }),
      }, [
        { id: "b-allow", hookRef: "allow", point: "tool.before" },
        { id: "b-after", hookRef: "watch", point: "tool.after" },
        { id: "b-error", hookRef: "watch", point: "operation.error" },
      ], { agentDoor: { events: memoryEventLog(), pairing: memoryPairing({ ttlMs: 0 }) } });
    } catch (e) {
      vi.useRealTimers();
      throw e;
    }
  });
  afterAll(async () => { vi.useRealTimers(); await door?.close(); });

  it("is ended by the expiry round as unknown with OPERATION_RESULT_MISSING, after which its post applies nothing", async () => {
    expect((await door.post("claude-code", "PreToolUse", pre)).body).toEqual({});
    const operations = async () => (await call(door, "GET", "/api/v1/operations?limit=10")).body.items as { operationId: string; phase: string; realStatus: string }[];
    const [open] = await operations();
    expect(open!.phase).toBe("awaiting");

    await vi.advanceTimersByTimeAsync(60_000);
    expect(await until(async () => (await operations())[0]!.phase === "finished")).toBe(true);
    const ended = (await call(door, "GET", `/api/v1/operations/${open!.operationId}`)).body.operation;
    expect(ended.realStatus).toBe("unknown");
    expect(JSON.stringify(ended)).toContain("OPERATION_RESULT_MISSING");
    expect(door.seen.get("watch")!.map((r) => [r.point, r.payload.real_status])).toEqual([["operation.error", "unknown"]]);

    expect((await door.post("claude-code", "PostToolUse", post)).body).toEqual({});
    expect(door.seen.get("watch")!.map((r) => r.point)).toEqual(["operation.error"]);
  });
});
