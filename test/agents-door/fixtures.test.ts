// Every event the real CLIs sent (test/fixtures/agents/<agent>/<event>.json, recorded from them) read and answered by the door.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENTS } from "../../host/agents/agents.js";
import { kindOf } from "../../host/agents/mapping.js";
import { readEvent } from "../../host/agents/read-event.js";
import { serveDoor, type Door } from "./door-helpers.js";

const dir = (agent: string) => new URL(`../fixtures/agents/${agent}/`, import.meta.url);
const fixtures = AGENTS.flatMap((agent) => (existsSync(dir(agent)) ? readdirSync(dir(agent)).filter((f) => f.endsWith(".json")).map((f) => ({ agent, event: f.slice(0, -5), body: JSON.parse(readFileSync(new URL(f, dir(agent)), "utf8")) as Record<string, unknown> })) : []));

describe("the door on the events the real CLIs sent", () => {
  let door: Door;
  beforeAll(async () => {
    door = await serveDoor({ seen: () => ({ kind: "continue" }) }, [
      { id: "before", hookRef: "seen", point: "tool.before" },
      { id: "after", hookRef: "seen", point: "tool.after" },
      { id: "prompt", hookRef: "seen", point: "model.chat.before" },
    ]);
  });
  afterAll(async () => door?.close());

  it("has recorded fixtures of every agent", () => {
    expect(new Set(fixtures.map((f) => f.agent))).toEqual(new Set(AGENTS));
  });

  for (const f of fixtures) {
    it(`reads ${f.agent} ${f.event} and answers it with a 200`, async () => {
      const read = readEvent(f.agent, f.event, f.body);
      expect(read.ok).toBe(true);
      if (read.ok && (read.event.kind === "tool.before" || read.event.kind === "tool.after")) {
        expect(read.event.tool!.id).toBe("shell");
        expect(read.event.tool!.input).toMatchObject({ command: expect.any(String) });
        expect(read.event.sessionId).toBe("00000000-0000-4000-8000-000000000000");
      }
      if (read.ok && kindOf(f.agent, f.event) === "prompt") expect(read.event.prompt).toEqual(expect.any(String));
      const r = await door.post(f.agent, f.event, f.body);
      expect(r.status).toBe(200);
      // The bound hook lets everything through: any other answer is the door refusing what the real CLI sent.
      expect(r.body).toEqual({});
    });
  }

  it("pairs each agent's recorded before and after events into one operation", async () => {
    for (const [agent, pre, post] of [["claude-code", "PreToolUse", "PostToolUse"], ["codex", "PreToolUse", "PostToolUse"], ["gemini-cli", "BeforeTool", "AfterTool"], ["copilot-cli", "preToolUse", "postToolUse"]] as const) {
      const body = (event: string) => fixtures.find((f) => f.agent === agent && f.event === event)!.body;
      const seen = door.seen.get("seen")?.length ?? 0;
      await door.post(agent, pre, { ...body(pre), ...(agent === "copilot-cli" ? { sessionId: `pair-${agent}` } : { session_id: `pair-${agent}` }) });
      await door.post(agent, post, { ...body(post), ...(agent === "copilot-cli" ? { sessionId: `pair-${agent}` } : { session_id: `pair-${agent}` }) });
      const [before, after] = door.seen.get("seen")!.slice(seen);
      expect(after?.point, agent).toBe("tool.after");
      expect(after!.context.operation_id, agent).toBe(before!.context.operation_id);
    }
  });
});
