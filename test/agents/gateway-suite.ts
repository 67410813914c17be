/**
 * What every coding agent shows when its model traffic goes through `sluice serve`'s gateway,
 * as one suite each agent's test file runs (the CLI itself is the client: its own requests,
 * its own stream parser, its own error display). One server per agent with pii-redact (chunk
 * and after) and prompt-guard (before, refusing one word) released; see gateway-harness.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../helpers/until.js";
import type { AgentName } from "./clis.js";
import { DENIED_WORD, startGatewayBench, type GatewayBench } from "./gateway-harness.js";
import { RAW_EMAIL, REDACTED_ANSWER } from "./gateway-upstream.js";

/** How each protocol's 401 body names the failure (docs/gateway.md, "Keys"). */
const UNAUTHORIZED: Partial<Record<AgentName, RegExp>> = {
  "claude-code": /"type":"error","error":\{"type":"authentication_error"/,
  codex: /"error":\{"message":"[^"]+","type":"authentication_error"/,
  "gemini-cli": /"status":"UNAUTHENTICATED"/,
};

/** The gateway routes each CLI calls in a turn, as "METHOD path" (docs/gateway.md, "Which agent speaks which protocol"). */
const ROUTES: Partial<Record<AgentName, RegExp[]>> = {
  "claude-code": [/^HEAD \/$/, /^POST \/v1\/messages\?beta=true$/],
  codex: [/^POST \/v1\/responses$/],
  "gemini-cli": [/^POST \/v1beta\/models\/[^/:]+:streamGenerateContent\?alt=sse$/, /^POST \/v1beta\/models\/[^/:]+:generateContent$/],
};

export function gatewaySuite(agent: AgentName): void {
  describe(`${agent} through sluice serve's gateway (the real CLI, offline)`, () => {
    let bench: GatewayBench;

    beforeAll(async () => { bench = await startGatewayBench(agent); }, 600_000);
    afterAll(async () => { await bench?.close(); });

    it("completes a turn with a shell tool call; the CLI prints the answer pii-redact redacted, whose first text reached it before the upstream's last chunk", async () => {
      const turn = await bench.run("Run the command the task needs, then report.");
      const seen = turn.upstream();
      expect(seen.toolCalls.length, turn.output).toBeGreaterThan(0);
      expect(readFileSync(join(bench.world.project, "ran.txt"), "utf8")).toBe("tool-ran\n");
      expect(turn.output).toContain(REDACTED_ANSWER);
      for (const raw of [RAW_EMAIL, "alice.smith", "@example.com"]) expect(turn.output).not.toContain(raw);
      const called = seen.clientRequests.map((r) => `${r.method} ${r.path}`);
      for (const route of ROUTES[agent]!) expect(called, route.source).toEqual(expect.arrayContaining([expect.stringMatching(route)]));

      // The upstream held its last chunk until the relay at the gateway's output saw the first
      // text go to the CLI. The gateway keeps no time of a chunk (its chunk hooks are not
      // audited), so the relay takes it, on the same clock as the upstream's.
      const stream = seen.streams.at(-1);
      expect(stream, JSON.stringify(seen.requests.map((r) => r.url))).toBeDefined();
      expect(stream!.releasedBy).toBe("first text seen by the relay");
      const first = seen.sightings.find((s) => s.at >= stream!.piecesSentAt[0]!)!;
      expect(first.at).toBeLessThan(stream!.lastChunkAt);
      // That answer is the gateway's recorded operation, which ended after the upstream's last chunk.
      const op = await bench.operation(first.operationId!);
      expect(op).toMatchObject({ phase: "finished", outcome: "succeeded", identity: { operation: "chat" } });
      expect(op.createdAt).toBeLessThan(first.at);
      expect(op.updatedAt).toBeGreaterThanOrEqual(Math.floor(stream!.lastChunkAt));
      // Codex's default tools reach the gateway: the hosted and namespace ones are recorded as left out (design b).
      if (agent === "codex") {
        expect(op.artifacts).toEqual(expect.arrayContaining([
          expect.objectContaining({ kind: "gateway.dropped", type: "web_search" }),
          expect.objectContaining({ kind: "gateway.dropped", type: "namespace" }),
        ]));
      }
    }, 300_000);

    it("shows prompt-guard's reject as an error naming the reason, and the upstream is never asked", async () => {
      const before = bench.upstream().requests.length;
      const turn = await bench.run(`What is the CEO's ${DENIED_WORD}?`);
      expect(turn.output).toMatch(/matches deny pattern 0/);
      expect(bench.upstream().requests.slice(before).filter((r) => JSON.stringify(r.body).includes(DENIED_WORD))).toEqual([]);
    }, 300_000);

    it("answers a wrong key with the protocol's 401, which the CLI shows", async () => {
      const before = bench.upstream().errors.length;
      const turn = await bench.run("Say hello.", "sk-sluice-not-a-key");
      await until(() => bench.upstream().errors.length > before, 10_000);
      const errors = bench.upstream().errors.slice(before);
      expect(errors.map((e) => e.status)).toContain(401);
      expect(errors.find((e) => e.status === 401)!.body).toMatch(UNAUTHORIZED[agent]!);
      // Each CLI shows the status and the gateway's message (docs/gateway.md, "Keys").
      expect(turn.output).toMatch(/\b401\b/);
      expect(turn.output).toContain("the API key is unknown or revoked");
    }, 300_000);
  });
}
