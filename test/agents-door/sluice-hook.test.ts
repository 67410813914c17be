// sluice-hook as every agent runs it: a child process fed the event on stdin (`npm run build` first).
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { createServer as createHttpServer, type RequestListener, type Server } from "node:http";
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

/** An HTTP server on a free loopback port answering every request with `handler`. */
async function answering(handler: RequestListener): Promise<{ url: string; server: Server }> {
  const server = createHttpServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
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

  it("blocks on an answer that trickles in past --timeout-ms, however steadily its bytes come", async () => {
    const timers = new Set<NodeJS.Timeout>();
    const { url, server } = await answering((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const body = `{"hookSpecificOutput":{"hookEventName":"PreToolUse"}}`;
      let i = 0;
      const t = setInterval(() => { if (i < body.length) res.write(body[i++]!); else { clearInterval(t); res.end(); } }, 40);
      timers.add(t);
    });
    try {
      const r = await hook(["claude-code", "PreToolUse", "--url", url, "--key-env", "K", "--timeout-ms", "300"], pre, { K: "x" });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("no answer within 300 ms");
      expect(r.stdout).toBe("");
    } finally {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      server.close();
    }
  });

  it("blocks on a 200 whose JSON is not an object, as no door answers", async () => {
    for (const text of ["null", "[]", "\"allow\"", "1"]) {
      const { url, server } = await answering((_req, res) => { res.writeHead(200, { "content-type": "application/json" }); res.end(text); });
      try {
        const claude = await hook(["claude-code", "PreToolUse", "--url", url, "--key-env", "K"], pre, { K: "x" });
        expect(claude.code, text).toBe(2);
        expect(claude.stderr).toContain("not a JSON object");
        const copilot = await hook(["copilot-cli", "preToolUse", "--url", url, "--key-env", "K"], "{}", { K: "x" });
        expect(JSON.parse(copilot.stdout), text).toMatchObject({ permissionDecision: "deny" });
      } finally {
        server.close();
      }
    }
  });

  it("answers each agent's block on a non-200 and on a body that is not JSON", async () => {
    for (const [status, text] of [[500, "{}"], [404, "not found"], [200, "<html>"]] as const) {
      const { url, server } = await answering((_req, res) => { res.writeHead(status); res.end(text); });
      try {
        for (const [agent, event] of [["claude-code", "PreToolUse"], ["codex", "UserPromptSubmit"], ["gemini-cli", "BeforeTool"]] as const) {
          const r = await hook([agent, event, "--url", url, "--key-env", "K"], "{}", { K: "x" });
          expect(r, `${agent} ${status}`).toMatchObject({ code: 2, stdout: "" });
          expect(r.stderr).toContain(`Sluice could not check this ${event} event`);
        }
        const copilot = await hook(["copilot-cli", "preToolUse", "--url", url, "--key-env", "K"], "{}", { K: "x" });
        expect(copilot.code).toBe(0);
        expect(JSON.parse(copilot.stdout)).toMatchObject({ permissionDecision: "deny" });
        const observed = await hook(["gemini-cli", "AfterTool", "--url", url, "--key-env", "K"], "{}", { K: "x" });
        expect(observed).toMatchObject({ code: 0, stdout: "{}\n" });
      } finally {
        server.close();
      }
    }
  });

  it("fails a misconfigured hook of an observing event with exit 1, which no agent reads as a block", async () => {
    // Exit 2 on Claude Code's Stop would keep the agent working instead of letting it stop.
    const stop = await hook(["claude-code", "Stop", "--url", door.url], "{}");
    expect(stop.code).toBe(1);
    expect(stop.stderr).toContain("--key-env is required");
    const post = await hook(["codex", "PostToolUse", "--url", "not a url", "--key-env", "K"], "{}");
    expect(post.code).toBe(1);
  });

  it("blocks on a misconfigured hook before a tool and at a prompt, in each agent's way", async () => {
    const claude = await hook(["claude-code", "PreToolUse", "--url", door.url, "--timeout-ms", "soon", "--key-env", "K"], pre);
    expect(claude.code).toBe(2);
    expect(claude.stderr).toContain("--timeout-ms must be a positive integer");
    const copilot = await hook(["copilot-cli", "preToolUse", "--key-env", "K"], "{}");
    expect(copilot.code).toBe(0);
    expect(JSON.parse(copilot.stdout)).toEqual({ permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("--url is required") });
    const misspelled = await hook(["claude-code", "pretooluse", "--url", door.url, "--key-env", "K"], pre, { K: door.hooksKey });
    expect(misspelled.code).toBe(2);
    expect(misspelled.stderr).toContain("configure the hook on PreToolUse");
    const unknown = await hook(["cursor", "beforeShellExecution", "--url", door.url, "--key-env", "K"], "{}");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown agent");
  });

  it("refuses Copilot CLI's VS Code-compatible PreToolUse before posting it, blocking and naming preToolUse", async () => {
    const r = await hook(["copilot-cli", "PreToolUse", "--url", door.url, "--key-env", "K"], "{}", { K: door.hooksKey });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("preToolUse") });
  });
});
