import { describe, expect, it } from "vitest";
import { reply, refusal } from "../../host/agents/replies.js";

describe("the agents' replies", () => {
  it("asks where the agent can ask, and elsewhere denies saying approval is needed", () => {
    const ask = { kind: "ask", reason: "a reviewer must approve pushes" } as const;
    const needed = (agent: string) => `approval needed (${agent} cannot ask for it from a hook, so the call is denied): a reviewer must approve pushes`;
    expect(reply("claude-code", "PreToolUse", "tool.before", ask)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "a reviewer must approve pushes" } });
    // Codex 0.171 takes permissionDecision "ask" as unsupported and runs the command.
    expect(reply("codex", "PreToolUse", "tool.before", ask)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: needed("codex") } });
    expect(reply("gemini-cli", "BeforeTool", "tool.before", ask)).toEqual({ decision: "deny", reason: needed("gemini-cli") });
    expect(reply("copilot-cli", "preToolUse", "tool.before", ask)).toEqual({ permissionDecision: "deny", permissionDecisionReason: needed("copilot-cli") });
  });

  it("answers a refused event with a block before a tool and at a prompt, and neutrally elsewhere", () => {
    expect(refusal("codex", "UserPromptSubmit", "prompt", "why")).toEqual({ decision: "block", reason: "why" });
    expect(refusal("gemini-cli", "AfterTool", "tool.after", "why")).toEqual({});
    expect(refusal("claude-code", "SessionStart", "run.start", "why")).toEqual({});
  });

  it("gives added context only to agents that take it", () => {
    expect(reply("copilot-cli", "preToolUse", "tool.before", { kind: "continue", context: "c" })).toEqual({});
    expect(reply("codex", "UserPromptSubmit", "prompt", { kind: "continue", context: "c" })).toEqual({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "c" } });
  });
});
