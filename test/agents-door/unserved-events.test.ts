// Copilot CLI's VS Code-compatible event names (PascalCase, snake_case fields): refused loudly, never answered as if nothing were wrong.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw } from "../api/server-helpers.js";
import { kindOf } from "../../host/agents/mapping.js";
import { serveDoor, TOKEN, type Door } from "./door-helpers.js";

describe("events an agent sends in a form the door does not read", () => {
  let door: Door;
  beforeAll(async () => {
    door = await serveDoor({ guard: () => ({ kind: "continue" }) }, [{ id: "b-guard", hookRef: "guard", point: "tool.before" }]);
  });
  afterAll(async () => door?.close());

  it("denies Copilot CLI's PreToolUse (its VS Code-compatible name), saying to configure preToolUse, and runs no hook", async () => {
    const r = await door.post("copilot-cli", "PreToolUse", { session_id: "c", timestamp: "2026-01-01T00:00:00Z", cwd: "/w", hook_event_name: "PreToolUse", tool_name: "bash", tool_input: { command: "rm -rf /" } });
    expect(r.body).toEqual({ permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("(AGENT_EVENT_INVALID)") });
    expect(r.body.permissionDecisionReason).toContain("preToolUse");
    expect(door.seen.get("guard")).toBeUndefined();
  });

  it("records the other VS Code-compatible names refused, and takes them as the camelCase events' kinds", async () => {
    expect(kindOf("copilot-cli", "PreToolUse")).toBe("tool.before");
    expect(kindOf("copilot-cli", "UserPromptSubmit")).toBe("prompt");
    expect(kindOf("copilot-cli", "Stop")).toBe("observe");
    expect((await door.post("copilot-cli", "PostToolUse", { session_id: "c", tool_name: "bash", tool_input: {}, tool_result: { result_type: "success", text_result_for_llm: "x" } })).body).toEqual({});
    const status = await raw(door, "GET", "/api/v1/agents/status", { host: `127.0.0.1:${door.port}`, authorization: `Bearer ${TOKEN}` });
    expect(status.body.events.find((e: { agent: string; event: string }) => e.agent === "copilot-cli" && e.event === "PostToolUse")).toMatchObject({ lastOutcome: "refused" });
  });
});

describe("an event posted under another event's name", () => {
  let door: Door;
  beforeAll(async () => {
    door = await serveDoor({ guard: () => ({ kind: "continue" }), after: () => ({ kind: "continue" }) }, [
      { id: "b-guard", hookRef: "guard", point: "tool.before" },
      { id: "b-after", hookRef: "after", point: "tool.after" },
    ]);
  });
  afterAll(async () => door?.close());
  const claudePre = { session_id: "s", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf /" }, tool_use_id: "toolu_x" };

  it("denies a PreToolUse a hook posts as PostToolUse, in PreToolUse's terms, naming hook_event_name, and runs no hook", async () => {
    const r = await door.post("claude-code", "PostToolUse", claudePre);
    expect(r.body).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("(AGENT_EVENT_INVALID)") } });
    expect(r.body.hookSpecificOutput.permissionDecisionReason).toContain("hook_event_name");
    const gemini = await door.post("gemini-cli", "AfterTool", { session_id: "g", hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command: "ls" } });
    expect(gemini.body).toEqual({ decision: "deny", reason: expect.stringContaining("hook_event_name") });
    expect(door.seen.get("guard")).toBeUndefined();
    expect(door.seen.get("after")).toBeUndefined();
  });

  it("denies an event whose name is spelled in another case than the agent's, in the agent's spelling", async () => {
    expect(kindOf("claude-code", "pretooluse")).toBe("tool.before");
    const r = await door.post("claude-code", "pretooluse", claudePre);
    expect(r.body.hookSpecificOutput).toMatchObject({ hookEventName: "PreToolUse", permissionDecision: "deny" });
    expect(r.body.hookSpecificOutput.permissionDecisionReason).toContain("configure the hook on PreToolUse");
  });

  it("takes Copilot CLI's notification, whose body names it Notification, as itself", async () => {
    const r = await door.post("copilot-cli", "notification", { sessionId: "c", timestamp: 1, cwd: "/w", hook_event_name: "Notification", message: "done", notification_type: "agent_idle" });
    expect(r.body).toEqual({});
    const status = await raw(door, "GET", "/api/v1/agents/status", { host: `127.0.0.1:${door.port}`, authorization: `Bearer ${TOKEN}` });
    expect(status.body.events.find((e: { agent: string; event: string }) => e.event === "notification")).toMatchObject({ lastOutcome: "neutral" });
  });
});
