// A hook's ask (ABI 1.2) at tool.before through the door, on the before-tool events the real
// CLIs sent (test/fixtures/agents): Claude Code asks its user with the hook's reason; Codex
// (which takes "ask" as unsupported and runs the tool), Gemini CLI and Copilot CLI are told to deny, with a
// reason saying approval is needed and carrying the hook's. The tool never runs unasked.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw } from "../api/server-helpers.js";
import { serveDoor, TOKEN, type Door } from "./door-helpers.js";

const fixture = (agent: string, event: string) => JSON.parse(readFileSync(new URL(`../fixtures/agents/${agent}/${event}.json`, import.meta.url), "utf8")) as Record<string, unknown>;
const REASON = "shell-guard: `cat notes.txt` needs a reviewer's approval (rule ask)";
const needed = (agent: string) => `approval needed (${agent} cannot ask for it from a hook, so the call is denied): ${REASON} (shell.ask)`;

describe("a hook's ask before a tool, through the door", () => {
  let door: Door;
  beforeAll(async () => {
    door = await serveDoor({ asker: () => ({ kind: "ask", code: "shell.ask", reason: REASON }) }, [
      { id: "b-ask", hookRef: "asker", point: "tool.before", match: { toolIds: ["shell"] } },
    ]);
  });
  afterAll(async () => door?.close());

  it("is Claude Code's ask, with the hook's reason, in an HTTP 200", async () => {
    const r = await door.post("claude-code", "PreToolUse", fixture("claude-code", "PreToolUse"));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: `${REASON} (shell.ask)` } });
  });

  it("is a deny saying approval is needed for Codex, which does not honour ask", async () => {
    const r = await door.post("codex", "PreToolUse", fixture("codex", "PreToolUse"));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: needed("codex") } });
  });

  it("is a deny saying approval is needed for Gemini CLI, which has no ask", async () => {
    const r = await door.post("gemini-cli", "BeforeTool", fixture("gemini-cli", "BeforeTool"));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ decision: "deny", reason: needed("gemini-cli") });
  });

  it("is a deny saying approval is needed for Copilot CLI, which has no ask", async () => {
    const r = await door.post("copilot-cli", "preToolUse", fixture("copilot-cli", "preToolUse"));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ permissionDecision: "deny", permissionDecisionReason: needed("copilot-cli") });
  });

  it("records each asked call as an operation that ended asked (HOOK_ASKED), and the event's last answer as ask", async () => {
    const headers = { host: `127.0.0.1:${door.port}`, authorization: `Bearer ${TOKEN}` };
    const ops = await raw(door, "GET", "/api/v1/operations?outcome=asked", headers);
    expect(ops.status).toBe(200);
    expect(ops.body.total).toBe(4);
    for (const o of ops.body.items) expect(o).toMatchObject({ outcome: "asked", error: { code: "HOOK_ASKED" }, realStatus: "not_started" });
    const status = await raw(door, "GET", "/api/v1/agents/status", headers);
    const pre = status.body.events.find((e: { agent: string; event: string }) => e.agent === "claude-code" && e.event === "PreToolUse");
    expect(pre).toMatchObject({ count: 1, lastOutcome: "ask" });
  });
});

describe("a call Claude Code's user approved after a hook asked", () => {
  let door: Door;
  const pre = (id: string) => ({ session_id: "s-ask", transcript_path: "/t", cwd: "/w", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "cat .env" }, tool_use_id: id });
  const post = (id: string, stdout: string) => ({ ...pre(id), hook_event_name: "PostToolUse", tool_response: { stdout, stderr: "", interrupted: false } });
  beforeAll(async () => {
    door = await serveDoor({
      asker: () => ({ kind: "ask", code: "shell.ask", reason: REASON }),
      redact: (r) => JSON.stringify(r.payload.view).includes("sk-live") ? { kind: "patch_output", patch: [{ op: "replace", path: "/view", value: "[secret removed]" }] } : { kind: "continue" },
    }, [
      { id: "b-ask", hookRef: "asker", point: "tool.before", match: { toolIds: ["shell"] } },
      { id: "b-redact", hookRef: "redact", point: "tool.after" },
    ]);
  });
  afterAll(async () => door?.close());

  it("still has its output judged by the tool.after hooks: a secret in it blocks it with the reason", async () => {
    expect((await door.post("claude-code", "PreToolUse", pre("toolu_a1"))).body).toMatchObject({ hookSpecificOutput: { permissionDecision: "ask" } });
    const r = await door.post("claude-code", "PostToolUse", post("toolu_a1", "KEY=sk-live-123"));
    expect(r.body).toMatchObject({ decision: "block" });
    expect(JSON.stringify(r.body)).toContain("[secret removed]");
    expect(JSON.stringify(r.body)).not.toContain("sk-live-123");
    expect(door.seen.get("redact")!.map((q) => q.payload.result)).toEqual([{ stdout: "KEY=sk-live-123", stderr: "", interrupted: false }]);
  });

  it("lets a clean output through, and a repeated post is applied once", async () => {
    await door.post("claude-code", "PreToolUse", pre("toolu_a2"));
    expect((await door.post("claude-code", "PostToolUse", post("toolu_a2", "nothing secret"))).body).toEqual({});
    expect((await door.post("claude-code", "PostToolUse", post("toolu_a2", "nothing secret"))).body).toEqual({});
    expect(door.seen.get("redact")!.length).toBe(2);
  });
});
