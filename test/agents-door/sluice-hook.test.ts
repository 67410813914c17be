// sluice-hook as every agent runs it: a child process fed the event on stdin (`npm run build` first).
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveDoor, type Door } from "./door-helpers.js";

const BIN = fileURLToPath(new URL("../../dist/host/agents/sluice-hook.cjs", import.meta.url));

interface Run { code: number | null; stdout: string; stderr: string }

function hook(args: string[], stdin: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => { stdout += d; });
    child.stderr.on("data", (d: Buffer) => { stderr += d; });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** A port nothing listens on: taken, then freed. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const pre = JSON.stringify({ session_id: "s", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -r /tmp/sentinel" }, tool_use_id: "t1" });

describe("sluice-hook", () => {
  let door: Door;
  beforeAll(async () => {
    door = await serveDoor({ guard: (r) => String((r.payload.arguments as { command?: string }).command).includes("rm -r") ? { kind: "reject", code: "rm", reason: "no recursive deletes" } : { kind: "continue" } },
      [{ id: "g", hookRef: "guard", point: "tool.before", match: { toolIds: ["shell"] } }]);
  });
  afterAll(async () => door?.close());

  it("prints the door's reply and exits 0", async () => {
    const r = await hook(["claude-code", "PreToolUse", "--url", door.url, "--key-env", "SLUICE_HOOKS_KEY"], pre, { SLUICE_HOOKS_KEY: door.hooksKey });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no recursive deletes (rm)" } });
  });

  it("blocks a tool when the server cannot be reached: exit 2 with a message the agent shows", async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const r = await hook(["claude-code", "PreToolUse", "--url", url, "--key-env", "K"], pre, { K: door.hooksKey });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Sluice could not check this PreToolUse event");
    expect(r.stdout).toBe("");
  });

  it("answers Copilot CLI's block as its deny JSON, and lets an observing event through", async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const copilot = await hook(["copilot-cli", "preToolUse", "--url", url, "--key-env", "K"], JSON.stringify({ sessionId: "s", toolName: "bash", toolArgs: "{}" }), { K: "x" });
    expect(copilot.code).toBe(0);
    expect(JSON.parse(copilot.stdout)).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("Sluice could not check") });
    const post = await hook(["claude-code", "PostToolUse", "--url", url, "--key-env", "K"], "{}", { K: "x" });
    expect(post).toMatchObject({ code: 0, stdout: "{}\n" });
  });

  it("blocks when the key's variable is unset, and --on-error allow lets the tool run", async () => {
    const unset = await hook(["gemini-cli", "BeforeTool", "--url", door.url, "--key-env", "NOPE"], "{}");
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain("NOPE");
    const allowed = await hook(["gemini-cli", "BeforeTool", "--url", door.url, "--key-env", "NOPE", "--on-error", "allow"], "{}");
    expect(allowed).toMatchObject({ code: 0, stdout: "{}\n" });
  });

  it("blocks on an answer later than --timeout-ms", async () => {
    const silent = createServer(() => { /* accepts, never answers */ });
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const r = await hook(["codex", "PreToolUse", "--url", `http://127.0.0.1:${(silent.address() as { port: number }).port}`, "--key-env", "K", "--timeout-ms", "300"], pre, { K: "x" });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("no answer within 300 ms");
    } finally {
      silent.close();
    }
  });
});
