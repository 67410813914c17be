// A hook that changes an MCP tool's output: replaced where the agent takes the new value, blocked with the reason where it would not.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveDoor, type Door } from "./door-helpers.js";

const pre = (agent: string, id: string) => ({ session_id: `s-${agent}`, hook_event_name: "PreToolUse", tool_name: "mcp__vault__read", tool_input: { name: id }, tool_use_id: id });
const post = (agent: string, id: string, response: unknown) => ({ ...pre(agent, id), hook_event_name: "PostToolUse", tool_response: response });

describe("an MCP tool's output a hook changed", () => {
  let door: Door;
  beforeAll(async () => {
    door = await serveDoor({
      hide: (r) => {
        const name = String(r.payload.call_id);
        const value = name.startsWith("text") ? "[hidden]" : { content: [{ type: "text", text: "[hidden]" }] };
        return { kind: "patch_output", patch: [{ op: "replace", path: "/view", value }] };
      },
    }, [{ id: "b-hide", hookRef: "hide", point: "tool.after" }]);
  });
  afterAll(async () => door?.close());

  it("replaces it on Codex with the new JSON object", async () => {
    await door.post("codex", "PreToolUse", pre("codex", "obj-1"));
    const r = await door.post("codex", "PostToolUse", post("codex", "obj-1", { content: [{ type: "text", text: "SECRET" }] }));
    expect(r.body).toEqual({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: { content: [{ type: "text", text: "[hidden]" }] } } });
  });

  it("blocks it on Codex, whose updatedMCPToolOutput takes only a JSON object, when the new view is not one", async () => {
    await door.post("codex", "PreToolUse", pre("codex", "text-1"));
    const r = await door.post("codex", "PostToolUse", post("codex", "text-1", { content: [{ type: "text", text: "SECRET" }] }));
    expect(r.body).toEqual({ decision: "block", reason: expect.stringContaining("[hidden]") });
    expect(JSON.stringify(r.body)).not.toContain("SECRET");
  });

  it("replaces it on Claude Code whatever the new view is", async () => {
    await door.post("claude-code", "PreToolUse", pre("claude-code", "text-2"));
    const r = await door.post("claude-code", "PostToolUse", post("claude-code", "text-2", { content: [{ type: "text", text: "SECRET" }] }));
    expect(r.body).toEqual({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: "[hidden]" } });
  });
});
