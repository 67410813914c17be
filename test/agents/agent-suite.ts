/**
 * The behaviour every coding agent must show with Sluice's hooks, as one suite each agent's
 * test file runs (the CLI itself is the client: its own hook runner, its own reply parser).
 * One server per agent, with shell-guard, secret-redact, a test plugin that rewrites a
 * marked shell word and one that asks for approval of a marked command deployed; each test scripts one shell command through the fake model.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentName } from "./clis.js";
import { PLUGINS, startAgentBench, type AgentBench } from "./harness.js";

/** A made-up token in the shape secret scanners look for (GitHub's ghp_ plus 36 characters). */
const SECRET = "ghp_Zq9w8E7r6T5y4U3i2O1p0AsDfGhJkLzXcVbN";

export function agentSuite(agent: AgentName): void {
  describe(`${agent} with Sluice's hooks (the real CLI, offline)`, () => {
    let bench: AgentBench;

    beforeAll(async () => {
      bench = await startAgentBench(agent, [PLUGINS.shellGuard, PLUGINS.secretRedact, PLUGINS.shellRewrite, PLUGINS.shellAsk]);
    }, 600_000);
    afterAll(async () => { await bench?.close(); });

    it("shell-guard denies a recursive delete: the folder survives and the model is told why", async () => {
      const sentinel = join(bench.world.project, "sentinel");
      mkdirSync(sentinel, { recursive: true });
      writeFileSync(join(sentinel, "keep.txt"), "keep me\n");
      // Codex refuses `rm -f` by itself, so the scripted delete is `rm -r` for every agent.
      const turn = await bench.turn("rm -r sentinel");
      expect(turn.toolCalls.length, `${turn.exit.stdout}\n${turn.exit.stderr}`).toBeGreaterThan(0);
      expect(existsSync(join(sentinel, "keep.txt"))).toBe(true);
      expect(turn.modelWasTold("shell-guard")).toBe(true);
    }, 300_000);

    it("runs the tool with the argument a plugin rewrote", async () => {
      const turn = await bench.turn("echo ORIGINAL > rewritten.txt");
      expect(turn.toolCalls.length, `${turn.exit.stdout}\n${turn.exit.stderr}`).toBeGreaterThan(0);
      expect(readFileSync(join(bench.world.project, "rewritten.txt"), "utf8")).toBe("REWRITTEN\n");
    }, 300_000);

    it("never runs a command a hook asks approval for unasked: a -p run has no one to ask, the other agents deny saying approval is needed", async () => {
      const turn = await bench.turn("touch ASKME.txt");
      expect(turn.toolCalls.length, `${turn.exit.stdout}\n${turn.exit.stderr}`).toBeGreaterThan(0);
      expect(existsSync(join(bench.world.project, "ASKME.txt")), `${turn.exit.stdout}\n${turn.exit.stderr}`).toBe(false);
      if (agent !== "claude-code") expect(turn.modelWasTold("approval needed"), `${turn.exit.stdout}\n${turn.exit.stderr}`).toBe(true);
    }, 300_000);

    it("keeps a secret in a tool result from the model, or blocks the call and tells the model why", async () => {
      writeFileSync(join(bench.world.project, "token.txt"), `token=${SECRET}\n`);
      const turn = await bench.turn("cat token.txt");
      expect(turn.toolCalls.length, `${turn.exit.stdout}\n${turn.exit.stderr}`).toBeGreaterThan(0);
      const redacted = !turn.modelWasTold(SECRET);
      // A block after a built-in tool does not hide its output from Claude Code or Codex:
      // then the model must also be told the output was refused, with the redacted text.
      const blocked = turn.modelWasTold(/secret-redact|\[secret:github_token\]/);
      expect(redacted || blocked, turn.requests.flatMap((r) => r.toolResults).join("\n")).toBe(true);
    }, 300_000);

    it("blocks through sluice-hook when the server is stopped: the command does not run", async () => {
      await bench.stopServer();
      const turn = await bench.turn("touch made-while-down.txt");
      expect(existsSync(join(bench.world.project, "made-while-down.txt"))).toBe(false);
      // The prompt hook fails closed first. Claude Code, Gemini CLI and Copilot CLI show
      // sluice-hook's reason (or tell the model); Codex's exec shows none, and never asks the model.
      const asked = turn.requests.filter((r) => r.method === "POST" && r.protocol !== "other").length;
      const shown = turn.modelWasTold(/sluice/i) || /sluice/i.test(`${turn.exit.stdout}\n${turn.exit.stderr}`);
      expect(agent === "codex" ? asked === 0 : shown, `${turn.exit.stdout}\n${turn.exit.stderr}`).toBe(true);
    }, 300_000);
  });
}
