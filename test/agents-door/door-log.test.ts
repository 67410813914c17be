import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logOptions } from "../../host/api/log-options.js";
import { serveDoor, type Door } from "./door-helpers.js";
import { until } from "../helpers/until.js";

describe("the agents' door's log", () => {
  const lines: Record<string, unknown>[] = [];
  let door: Door;
  beforeAll(async () => {
    const stream = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l)); done(); } });
    door = await serveDoor({}, [], { logger: logOptions("info", stream) });
  });
  afterAll(async () => door?.close());

  it("writes one access line per event at info, with neither the body nor the key", async () => {
    const secret = "do-not-log-this-command";
    await door.post("claude-code", "PreToolUse", { session_id: "s", tool_name: "Bash", tool_input: { command: secret }, tool_use_id: "t" });
    await door.post("claude-code", "PreToolUse", { session_id: "s", tool_name: "Bash", tool_input: { command: secret } }, { authorization: "Bearer sk-sluice-not-a-key" });
    await until(() => lines.filter((l) => l.msg === "request completed").length >= 2);
    const access = lines.filter((l) => l.msg === "request completed");
    expect(access.map((l) => [(l.req as { url: string }).url, (l.res as { statusCode: number }).statusCode, l.level])).toEqual([
      ["/v1/agent-hooks/claude-code/PreToolUse", 200, 30],
      ["/v1/agent-hooks/claude-code/PreToolUse", 200, 30],
    ]);
    const text = JSON.stringify(lines);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(door.hooksKey);
    expect(text).not.toContain("sk-sluice-not-a-key");
  });
});
