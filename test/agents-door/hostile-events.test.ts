// Events no agent sends, from a client holding a hooks key: each is refused with the field it gets wrong, never allowed and never echoed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw } from "../api/server-helpers.js";
import { serveDoor, TOKEN, type Door } from "./door-helpers.js";
import { memoryEventLog } from "../../host/agents/event-log.js";
import { memoryPairing } from "../../host/agents/pairing.js";

const claudePre = (over: Record<string, unknown>) => ({ session_id: "s-hostile", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_h", ...over });
const reasonOf = (body: { hookSpecificOutput?: { permissionDecisionReason?: string } }) => body.hookSpecificOutput?.permissionDecisionReason ?? "";

describe("the door on hostile and malformed events", () => {
  let door: Door;
  const guarded = () => door.seen.get("guard")?.length ?? 0;
  beforeAll(async () => {
    door = await serveDoor({ guard: () => ({ kind: "continue" }), after: () => ({ kind: "continue" }), prompt: () => ({ kind: "continue" }) }, [
      { id: "b-guard", hookRef: "guard", point: "tool.before" },
      { id: "b-after", hookRef: "after", point: "tool.after" },
      { id: "b-prompt", hookRef: "prompt", point: "model.chat.before" },
    ]);
  });
  afterAll(async () => door?.close());

  it("denies a before-tool event whose tool input is not an object, naming tool_input, and runs no hook", async () => {
    const before = guarded();
    for (const input of [["rm", "-rf", "/"], "rm -rf /", "{\"command\":\"ls\"}", 42, null, true]) {
      const r = await door.post("claude-code", "PreToolUse", claudePre({ tool_input: input }));
      expect(r.status).toBe(200);
      expect(r.body.hookSpecificOutput.permissionDecision, JSON.stringify(input)).toBe("deny");
      expect(reasonOf(r.body)).toContain("(AGENT_EVENT_INVALID)");
      expect(reasonOf(r.body)).toContain("tool_input");
    }
    const gemini = await door.post("gemini-cli", "BeforeTool", { session_id: "g", tool_name: "run_shell_command", tool_input: ["ls"] });
    expect(gemini.body).toEqual({ decision: "deny", reason: expect.stringContaining("tool_input") });
    expect(guarded()).toBe(before);
  });

  it("takes Copilot CLI's toolArgs as an object or a JSON text of one, and denies anything else naming toolArgs", async () => {
    const copilot = (toolArgs: unknown) => door.post("copilot-cli", "preToolUse", { sessionId: "c-hostile", timestamp: 1, cwd: "/w", toolName: "bash", toolArgs });
    const before = guarded();
    expect((await copilot({ command: "ls" })).body).toEqual({});
    expect((await copilot(JSON.stringify({ command: "ls -a" }))).body).toEqual({});
    expect(guarded()).toBe(before + 2);
    for (const bad of ["rm -rf /", "[1,2]", "5", ["ls"], 5]) {
      const r = await copilot(bad);
      expect(r.body, JSON.stringify(bad)).toEqual({ permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("toolArgs") });
    }
    expect(guarded()).toBe(before + 2);
  });

  it("denies an event whose session id, tool-use id or working directory is not a string, naming the field", async () => {
    for (const [field, value] of [["session_id", 42], ["session_id", { id: "s" }], ["tool_use_id", 7], ["cwd", ["/"]], ["transcript_path", 1]] as const) {
      const r = await door.post("claude-code", "PreToolUse", claudePre({ [field]: value }));
      expect(r.body.hookSpecificOutput.permissionDecision, field).toBe("deny");
      expect(reasonOf(r.body)).toContain(`(${field})`);
    }
    const prompt = await door.post("codex", "UserPromptSubmit", { session_id: 5, prompt: "hello" });
    expect(prompt.body).toEqual({ decision: "block", reason: expect.stringContaining("(session_id)") });
  });

  it("takes a null transcript path and working directory as absent, as Codex sends them", async () => {
    const r = await door.post("codex", "PreToolUse", claudePre({ transcript_path: null, cwd: null, tool_use_id: "toolu_null" }));
    expect(r.body).toEqual({});
    expect(door.seen.get("guard")!.at(-1)!.payload.agent).toEqual({ name: "codex", event: "PreToolUse", session_id: "s-hostile" });
  });

  it("denies a tool name or an id longer than 256 characters or holding control characters", async () => {
    const before = guarded();
    for (const [field, value] of [["tool_name", "B".repeat(257)], ["tool_name", "Bash\nrm"], ["tool_name", "Bash\u0000"], ["session_id", "s".repeat(257)], ["tool_use_id", "t\r\n1"]] as const) {
      const r = await door.post("claude-code", "PreToolUse", claudePre({ [field]: value }));
      expect(r.body.hookSpecificOutput.permissionDecision, JSON.stringify(value)).toBe("deny");
      expect(reasonOf(r.body)).toContain(`(${field})`);
    }
    expect(guarded()).toBe(before);
  });

  it("gives a tool named like an Object.prototype member its own <agent>.<name> id", async () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const r = await door.post("claude-code", "PreToolUse", claudePre({ tool_name: name, tool_use_id: `toolu_${name}` }));
      expect(r.body, name).toEqual({});
      expect(door.seen.get("guard")!.at(-1)!.payload).toMatchObject({ tool_id: `claude-code.${name}`, name });
    }
  });

  it("hands prototype keys in a tool input to the hooks as plain data and pollutes no object", async () => {
    const body = '{"session_id":"s","tool_name":"Bash","tool_use_id":"toolu_proto","tool_input":{"__proto__":{"command":"rm -rf /"},"constructor":{"prototype":{"polluted":1}}}}';
    const r = await door.post("claude-code", "PreToolUse", body);
    expect(r.body).toEqual({});
    const args = door.seen.get("guard")!.at(-1)!.payload.arguments as Record<string, unknown>;
    expect(Object.keys(args)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect((args as { command?: unknown }).command).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("says where a body stops being JSON without repeating what it holds", async () => {
    const r = await door.post("claude-code", "PreToolUse", '{"session_id":"s","tool_input": sk-live-SECRET-0123456789}');
    expect(r.body.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(reasonOf(r.body)).toContain("(AGENT_EVENT_INVALID)");
    expect(reasonOf(r.body)).not.toContain("SECRET");
    expect(reasonOf(r.body)).not.toContain("sk-live");
  });

  it("answers a post with a malformed field neutrally and records it refused", async () => {
    const r = await door.post("gemini-cli", "AfterTool", { session_id: 9, tool_name: "run_shell_command", tool_input: { command: "ls" }, tool_response: { llmContent: "x" } });
    expect(r.body).toEqual({});
    const status = await raw(door, "GET", "/api/v1/agents/status", { host: `127.0.0.1:${door.port}`, authorization: `Bearer ${TOKEN}` });
    expect(status.body.events.find((e: { agent: string; event: string }) => e.agent === "gemini-cli" && e.event === "AfterTool")).toMatchObject({ lastOutcome: "refused" });
  });

  it("answers an event of exactly 1 MiB, and denies one byte more", async () => {
    const base = JSON.stringify(claudePre({ tool_use_id: "toolu_size", tool_input: { command: "" } }));
    const exact = base.replace('"command":""', `"command":"${"x".repeat(1024 * 1024 - base.length)}"`);
    expect(Buffer.byteLength(exact)).toBe(1024 * 1024);
    expect((await door.post("claude-code", "PreToolUse", exact)).body).toEqual({});
    const over = exact.replace('"command":"x', '"command":"xx');
    expect(reasonOf((await door.post("claude-code", "PreToolUse", over)).body)).toContain("(PAYLOAD_TOO_LARGE)");
  });

  it("denies a second pre with a tool-use id the session already used, before any hook runs, and still pairs the first", async () => {
    const first = await door.post("claude-code", "PreToolUse", claudePre({ session_id: "s-dup", tool_use_id: "toolu_dup", tool_input: { command: "ls" } }));
    expect(first.body).toEqual({});
    const before = guarded();
    const again = await door.post("claude-code", "PreToolUse", claudePre({ session_id: "s-dup", tool_use_id: "toolu_dup", tool_input: { command: "rm -rf /" } }));
    expect(again.body.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(reasonOf(again.body)).toContain("(AGENT_EVENT_REPEATED)");
    expect(reasonOf(again.body)).toContain("tool_use_id");
    expect(guarded()).toBe(before);
    const afters = door.seen.get("after")?.length ?? 0;
    await door.post("claude-code", "PostToolUse", { ...claudePre({ session_id: "s-dup", tool_use_id: "toolu_dup", tool_input: { command: "ls" } }), hook_event_name: "PostToolUse", tool_response: { stdout: "a" } });
    expect(door.seen.get("after")!.length).toBe(afters + 1);
    const late = await door.post("claude-code", "PreToolUse", claudePre({ session_id: "s-dup", tool_use_id: "toolu_dup" }));
    expect(reasonOf(late.body)).toContain("(AGENT_EVENT_REPEATED)");
  });

  it("lets exactly one of two racing pres with one tool-use id through", async () => {
    const [a, b] = await Promise.all([1, 2].map(() => door.post("codex", "PreToolUse", claudePre({ session_id: "s-race", tool_use_id: "toolu_race" }))));
    const decisions = [a!, b!].map((r) => r.body.hookSpecificOutput?.permissionDecision ?? "none").sort();
    expect(decisions).toEqual(["deny", "none"]);
  });
});

describe("a hooks key with many tool calls awaiting their after event", () => {
  let door: Door;
  beforeAll(async () => {
    door = await serveDoor({ guard: () => ({ kind: "continue" }), after: () => ({ kind: "continue" }) }, [
      { id: "b-guard", hookRef: "guard", point: "tool.before" },
      { id: "b-after", hookRef: "after", point: "tool.after" },
    ], { agentDoor: { events: memoryEventLog(), pairing: memoryPairing({ maxPerKey: 2 }) } });
  });
  afterAll(async () => door?.close());

  it("denies its next pre rather than push out a waiting one, and takes pres again once a post frees a place", async () => {
    const gemini = (command: string) => ({ session_id: "g-full", hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command } });
    expect((await door.post("gemini-cli", "BeforeTool", gemini("one"))).body).toEqual({});
    expect((await door.post("gemini-cli", "BeforeTool", gemini("two"))).body).toEqual({});
    const third = await door.post("gemini-cli", "BeforeTool", gemini("three"));
    expect(third.body).toEqual({ decision: "deny", reason: expect.stringContaining("(AGENT_CALLS_FULL)") });
    const afters = door.seen.get("after")?.length ?? 0;
    await door.post("gemini-cli", "AfterTool", { ...gemini("one"), hook_event_name: "AfterTool", tool_response: { llmContent: "1" } });
    await door.post("gemini-cli", "AfterTool", { ...gemini("two"), hook_event_name: "AfterTool", tool_response: { llmContent: "2" } });
    expect(door.seen.get("after")!.length).toBe(afters + 2);
    expect((await door.post("gemini-cli", "BeforeTool", gemini("three"))).body).toEqual({});
  });
});
