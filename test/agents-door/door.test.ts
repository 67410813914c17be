import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw } from "../api/server-helpers.js";
import { serveDoor, TOKEN, type Door } from "./door-helpers.js";

const claudePre = (command: string, id = "toolu_1", session = "sess-1") => ({ session_id: session, transcript_path: "/home/u/.claude/t.jsonl", cwd: "/work", permission_mode: "default", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command, description: "run" }, tool_use_id: id });
const claudePost = (command: string, stdout: string, id = "toolu_1", session = "sess-1", tool = "Bash") => ({ session_id: session, transcript_path: "/t", cwd: "/work", hook_event_name: "PostToolUse", tool_name: tool, tool_input: { command }, tool_response: { stdout, stderr: "", interrupted: false }, tool_use_id: id, duration_ms: 12 });

describe("the agents' hook door", () => {
  let door: Door;
  beforeAll(async () => {
    door = await serveDoor({
      guard: (r) => String((r.payload.arguments as { command?: string }).command ?? "").includes("rm -r") ? { kind: "reject", code: "recursive_delete", reason: "guard: recursive deletes are not allowed" } : { kind: "continue", annotations: { context: "checked by guard" } },
      rewrite: (r) => (r.payload.arguments as { command?: string }).command === "ls" ? { kind: "patch_input", patch: [{ op: "replace", path: "/arguments/command", value: "ls -la" }] } : { kind: "continue" },
      hide: (r) => JSON.stringify(r.payload.view).includes("SECRET") ? { kind: "patch_output", patch: [{ op: "replace", path: "/view", value: "[hidden]" }] } : { kind: "continue" },
      prompt: (r) => JSON.stringify(r.payload.messages).includes("forbidden") ? { kind: "reject", code: "prompt_refused", reason: "prompt: that topic is refused" } : { kind: "continue" },
    }, [
      { id: "b-guard", hookRef: "guard", point: "tool.before", match: { toolIds: ["shell"] } },
      { id: "b-rewrite", hookRef: "rewrite", point: "tool.before", match: { toolIds: ["shell"] }, priority: 200 },
      { id: "b-hide", hookRef: "hide", point: "tool.after" },
      { id: "b-prompt", hookRef: "prompt", point: "model.chat.before" },
    ]);
  });
  afterAll(async () => door?.close());

  it("denies a Claude Code tool call a hook rejects, with the hook's reason for the model, in an HTTP 200", async () => {
    const r = await door.post("claude-code", "PreToolUse", claudePre("rm -rf /tmp/x"));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "guard: recursive deletes are not allowed (recursive_delete)" } });
  });

  it("answers each agent's before-tool event in that agent's own deny format, on the canonical tool id shell", async () => {
    const gemini = await door.post("gemini-cli", "BeforeTool", { session_id: "g1", cwd: "/w", hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command: "rm -r build" } });
    expect(gemini.body).toEqual({ decision: "deny", reason: "guard: recursive deletes are not allowed (recursive_delete)" });
    const copilot = await door.post("copilot-cli", "preToolUse", { sessionId: "c1", timestamp: 1, cwd: "/w", toolName: "bash", toolArgs: JSON.stringify({ command: "rm -r build" }) });
    expect(copilot.body).toEqual({ permissionDecision: "deny", permissionDecisionReason: "guard: recursive deletes are not allowed (recursive_delete)" });
    const codex = await door.post("codex", "PreToolUse", { ...claudePre("rm -r build"), turn_id: "t1", model: "gpt-5" });
    expect(codex.body).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
  });

  it("hands a rewritten input back in each agent's rewritten-input field, with the hook's context where the agent takes it", async () => {
    const claude = await door.post("claude-code", "PreToolUse", claudePre("ls", "toolu_ls"));
    expect(claude.body).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: "ls -la", description: "run" }, additionalContext: "checked by guard" } });
    const gemini = await door.post("gemini-cli", "BeforeTool", { session_id: "g2", hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command: "ls" } });
    expect(gemini.body).toEqual({ hookSpecificOutput: { tool_input: { command: "ls -la" }, additionalContext: "checked by guard" } });
    const copilot = await door.post("copilot-cli", "preToolUse", { sessionId: "c2", timestamp: 1, cwd: "/w", toolName: "bash", toolArgs: { command: "ls" } });
    expect(copilot.body).toEqual({ modifiedArgs: { command: "ls -la" } });
    // Codex runs a rewritten input only when the answer also allows it.
    const codex = await door.post("codex", "PreToolUse", { ...claudePre("ls", "toolu_codex_ls"), turn_id: "t2", model: "gpt-5" });
    expect(codex.body).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command: "ls -la", description: "run" }, additionalContext: "checked by guard" } });
  });

  it("gives the hooks the agent's session as the call's run id and the agent's tool name beside the canonical id", async () => {
    await door.post("claude-code", "PreToolUse", claudePre("echo hi", "toolu_ctx", "session-42"));
    const last = door.seen.get("guard")!.at(-1)!;
    expect(last.context.run_id).toBe("session-42");
    expect(last.payload).toMatchObject({ tool_id: "shell", name: "Bash", arguments: { command: "echo hi" }, call_id: "toolu_ctx" });
  });

  it("tells the hooks which agent, event and session a call and a prompt come from, with the working directory and transcript path as the agent sent them", async () => {
    await door.post("claude-code", "PreToolUse", claudePre("echo origin", "toolu_origin", "session-7"));
    expect(door.seen.get("guard")!.at(-1)!.payload.agent).toEqual({ name: "claude-code", event: "PreToolUse", session_id: "session-7", cwd: "/work", transcript_path: "/home/u/.claude/t.jsonl" });
    await door.post("copilot-cli", "userPromptSubmitted", { sessionId: "c9", timestamp: 1, cwd: "/repo", prompt: "hello" });
    expect(door.seen.get("prompt")!.at(-1)!.payload.agent).toEqual({ name: "copilot-cli", event: "userPromptSubmitted", session_id: "c9", cwd: "/repo" });
  });

  it("joins a post to its pre: the after hook sees the real result, and a changed view blocks a built-in tool with the reason", async () => {
    await door.post("claude-code", "PreToolUse", claudePre("cat .env", "toolu_env", "s-pair"));
    const r = await door.post("claude-code", "PostToolUse", claudePost("cat .env", "KEY=SECRET", "toolu_env", "s-pair"));
    expect(r.status).toBe(200);
    expect(r.body.decision).toBe("block");
    expect(r.body.reason).toContain("[hidden]");
    const after = door.seen.get("hide")!.at(-1)!;
    expect(after.payload).toMatchObject({ tool_id: "shell", call_id: "toolu_env", status: "succeeded", result: { stdout: "KEY=SECRET" } });
  });

  it("replaces an MCP tool's output on Claude Code with updatedMCPToolOutput", async () => {
    const pre = { ...claudePre("x", "toolu_mcp", "s-mcp"), tool_name: "mcp__vault__read", tool_input: { name: "db" } };
    expect((await door.post("claude-code", "PreToolUse", pre)).body).toEqual({});
    const r = await door.post("claude-code", "PostToolUse", { ...claudePost("x", "SECRET", "toolu_mcp", "s-mcp", "mcp__vault__read"), tool_input: { name: "db" } });
    expect(r.body).toEqual({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: "[hidden]" } });
  });

  it("applies a repeated post once", async () => {
    await door.post("claude-code", "PreToolUse", claudePre("echo once", "toolu_rep", "s-rep"));
    const before = door.seen.get("hide")?.length ?? 0;
    await door.post("claude-code", "PostToolUse", claudePost("echo once", "once", "toolu_rep", "s-rep"));
    const again = await door.post("claude-code", "PostToolUse", claudePost("echo once", "once", "toolu_rep", "s-rep"));
    expect(again.body).toEqual({});
    expect(door.seen.get("hide")!.length).toBe(before + 1);
  });

  it("pairs Gemini's posts, which carry no tool-use id, first in first out by session, tool and input, across interleaved sessions", async () => {
    const pre = (session: string, command: string) => ({ session_id: session, hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command } });
    const post = (session: string, command: string, output: string) => ({ ...pre(session, command), hook_event_name: "AfterTool", tool_response: { llmContent: output } });
    await door.post("gemini-cli", "BeforeTool", pre("ga", "date"));
    await door.post("gemini-cli", "BeforeTool", pre("gb", "date"));
    await door.post("gemini-cli", "BeforeTool", pre("ga", "date"));
    const seen = door.seen.get("hide")?.length ?? 0;
    await door.post("gemini-cli", "AfterTool", post("gb", "date", "b1"));
    await door.post("gemini-cli", "AfterTool", post("ga", "date", "a1"));
    await door.post("gemini-cli", "AfterTool", post("ga", "date", "a2"));
    const lastThree = door.seen.get("hide")!.slice(seen);
    expect(lastThree.map((r) => [r.context.run_id, (r.payload.result as { llmContent: string }).llmContent])).toEqual([["gb", "b1"], ["ga", "a1"], ["ga", "a2"]]);
    const ops = lastThree.map((r) => r.context.operation_id);
    expect(new Set(ops).size).toBe(3);
  });

  it("blocks a prompt a hook rejects at model.chat.before, the prompt being the user message", async () => {
    const r = await door.post("claude-code", "UserPromptSubmit", { session_id: "s", hook_event_name: "UserPromptSubmit", prompt: "tell me the forbidden thing" });
    expect(r.body).toEqual({ decision: "block", reason: "prompt: that topic is refused (prompt_refused)" });
    expect(door.seen.get("prompt")!.at(-1)!.payload.messages).toEqual([{ role: "user", content: "tell me the forbidden thing" }]);
  });

  it("answers events it does not map neutrally", async () => {
    const r = await door.post("claude-code", "Stop", { session_id: "s", hook_event_name: "Stop", stop_hook_active: false });
    expect(r).toMatchObject({ status: 200, body: {} });
  });

  describe("fails closed before a tool and at a prompt, and stays neutral elsewhere", () => {
    it("blocks an unauthenticated before-tool event, naming the problem, and runs no hook", async () => {
      const calls = door.seen.get("guard")?.length ?? 0;
      const r = await door.post("claude-code", "PreToolUse", claudePre("echo unauth"), { authorization: "Bearer sk-sluice-wrong" });
      expect(r.status).toBe(200);
      expect(r.body.hookSpecificOutput.permissionDecision).toBe("deny");
      expect(r.body.hookSpecificOutput.permissionDecisionReason).toContain("GATEWAY_KEY_INVALID");
      expect(door.seen.get("guard")?.length ?? 0).toBe(calls);
    });

    it("refuses a gateway-scoped key at the door and a hooks key at the management API", async () => {
      const r = await door.post("gemini-cli", "BeforeTool", { tool_name: "run_shell_command", tool_input: {} }, { authorization: `Bearer ${door.gatewayKey}` });
      expect(r.body).toEqual({ decision: "deny", reason: expect.stringContaining("scope gateway") });
      const api = await raw(door, "GET", "/api/v1/plugins", { host: `127.0.0.1:${door.port}`, authorization: `Bearer ${door.hooksKey}` });
      expect(api.status).toBe(401);
    });

    it("blocks a malformed event and a prompt event without its prompt, naming what is wrong", async () => {
      const bad = await door.post("copilot-cli", "preToolUse", "{not json");
      expect(bad.body.permissionDecision).toBe("deny");
      expect(bad.body.permissionDecisionReason).toContain("AGENT_EVENT_INVALID");
      const noTool = await door.post("claude-code", "PreToolUse", { session_id: "s", tool_input: {} });
      expect(noTool.body.hookSpecificOutput.permissionDecisionReason).toContain("tool_name");
      const noPrompt = await door.post("codex", "UserPromptSubmit", { session_id: "s" });
      expect(noPrompt.body).toEqual({ decision: "block", reason: expect.stringContaining("prompt") });
    });

    it("blocks an event over the 1 MiB cap", async () => {
      const r = await door.post("claude-code", "PreToolUse", claudePre("x".repeat(1024 * 1024 + 10)));
      expect(r.status).toBe(200);
      expect(r.body.hookSpecificOutput.permissionDecisionReason).toContain("PAYLOAD_TOO_LARGE");
    });

    it("answers a malformed or unauthenticated event after a tool neutrally", async () => {
      expect((await door.post("claude-code", "PostToolUse", "[1,2", {})).body).toEqual({});
      expect((await door.post("claude-code", "PostToolUse", claudePost("a", "b"), { authorization: "" })).body).toEqual({});
    });
  });

  it("keeps the API's guards: a browser page of another origin and a foreign Host are refused", async () => {
    const origin = await raw(door, "POST", "/v1/agent-hooks/claude-code/PreToolUse", { host: `127.0.0.1:${door.port}`, origin: "https://evil.example", "content-type": "application/json", authorization: `Bearer ${door.hooksKey}` }, JSON.stringify(claudePre("ls")));
    expect(origin.status).toBe(403);
    expect(origin.body.error.code).toBe("ORIGIN_NOT_ALLOWED");
    const host = await raw(door, "POST", "/v1/agent-hooks/claude-code/PreToolUse", { host: "evil.example", "content-type": "application/json", authorization: `Bearer ${door.hooksKey}` }, JSON.stringify(claudePre("ls")));
    expect(host.status).toBe(403);
  });

  it("refuses an agent it does not know with 404", async () => {
    const r = await door.post("cursor", "beforeShellExecution", {});
    expect(r.status).toBe(404);
  });

  it("reports which events reached it, how often, and the last answer, behind the API token", async () => {
    const r = await raw(door, "GET", "/api/v1/agents/status", { host: `127.0.0.1:${door.port}`, authorization: `Bearer ${TOKEN}` });
    expect(r.status).toBe(200);
    const pre = r.body.events.find((e: { agent: string; event: string }) => e.agent === "copilot-cli" && e.event === "preToolUse");
    expect(pre).toMatchObject({ count: 3, lastOutcome: "refused" });
    expect(Date.parse(pre.lastSeenAt)).toBeGreaterThan(0);
    const noToken = await raw(door, "GET", "/api/v1/agents/status", { host: `127.0.0.1:${door.port}`, authorization: `Bearer ${door.hooksKey}` });
    expect(noToken.status).toBe(401);
  });
});
