import { describe, expect, it } from "vitest";
import { readView, withheldFields } from "../../host/pipeline/read-view.js";
import { getPoint } from "../../host/pipeline/points.js";

const payload = {
  tool_id: "shell", name: "Bash", arguments: { command: "ls" }, call_id: "t1",
  agent: { name: "claude-code", event: "PreToolUse", session_id: "s1", cwd: "/home/dev/project", transcript_path: "/home/dev/.claude/t.jsonl" },
};
const restricted = getPoint("tool.before").restricted;

describe("a point's restricted fields", () => {
  it("are the agent's working directory and transcript path at the points a coding agent's events reach", () => {
    for (const point of ["tool.before", "tool.after", "model.chat.before"] as const) expect(getPoint(point).restricted).toEqual(["/agent/cwd", "/agent/transcript_path"]);
    expect(getPoint("model.chat.after").restricted).toBeUndefined();
  });

  it("are withheld from a plugin with no read grant, which still sees every other field", () => {
    const view = readView(payload, undefined, withheldFields(restricted, undefined));
    expect(view).toEqual({ ...payload, agent: { name: "claude-code", event: "PreToolUse", session_id: "s1" } });
    expect(payload.agent.cwd).toBe("/home/dev/project");
  });

  it("are withheld from a grant of their parent", () => {
    const read = ["/agent", "/arguments"];
    expect(readView(payload, read, withheldFields(restricted, read))).toEqual({ arguments: { command: "ls" }, agent: { name: "claude-code", event: "PreToolUse", session_id: "s1" } });
  });

  it("reach a plugin whose grant names them, and only the ones it names", () => {
    const read = ["/agent/cwd", "/arguments"];
    expect(withheldFields(restricted, read)).toEqual(["/agent/transcript_path"]);
    expect(readView(payload, read, withheldFields(restricted, read))).toEqual({ arguments: { command: "ls" }, agent: { cwd: "/home/dev/project" } });
    const both = ["/agent"].concat(restricted!);
    expect(withheldFields(restricted, both)).toBeUndefined();
    expect(readView(payload, both, withheldFields(restricted, both))).toEqual({ agent: payload.agent });
  });

  it("leave a payload without them untouched, as the same object", () => {
    const plain = { tool_id: "shell", name: "Bash", arguments: {}, call_id: "t1" };
    expect(readView(plain, undefined, withheldFields(restricted, undefined))).toBe(plain);
  });
});
