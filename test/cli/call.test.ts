/**
 * `sluice call` (POST /api/v1/call): a deployed hook seen acting on the live release, through
 * the server's real pipeline with a test executor, recorded as a test call.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../registry/fixtures.js";
import { serve, sluice, TOKEN, type Server } from "./run-cli.js";

let s: Server;

beforeAll(async () => {
  s = await serve(tempDir());
  const dir = path.join(tempDir("sluice-call-"), "my-guard");
  expect((await sluice(["new", "my-guard", "--dir", dir, "--no-install"])).code).toBe(0);
  const deployed = await sluice(["deploy", dir], s.env);
  expect(deployed.code, deployed.stderr).toBe(0);
}, 180_000);
afterAll(async () => { await s?.close(); });

describe("sluice call", () => {
  it("tool.before shows the decision, the patch and the hook's timing through the live release", async () => {
    const r = await sluice(["call", "tool.before", "--tool", "orders.search", "--args", '{"limit":5000}'], s.env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("decision: allowed: the test executor was called with the patched input");
    expect(lines.slice(1, 3)).toEqual(["patch:", "  /limit: 5000 → 100"]);
    expect(lines[3]).toMatch(/^hook my-guard-tool-before \(my-guard@0\.1\.0\) at tool\.before: patch_input in \d+\.\d\d ms, fuel [\d,]+$/);
    expect(lines[4]).toMatch(/^total \d+\.\d\d ms; operation \S+ on revision 1 \(recorded as a test call\)$/);
  });

  it("records the call as a test call, and --json prints the server's answer", async () => {
    const r = await sluice(["call", "tool.before", "--args", '{"limit":7}', "--json"], s.env);
    expect(r.code).toBe(0);
    const called = JSON.parse(r.stdout) as { test: boolean; ok: boolean; operation_id: string; input: unknown; executed_with: unknown };
    expect(called).toMatchObject({ test: true, ok: true, input: { limit: 7 }, executed_with: { limit: 7 } });
    const record = await fetch(`${s.url}/api/v1/operations/${called.operation_id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(JSON.stringify(await record.json())).toContain("sluice-call:test");
  });

  it("model.chat and embedding run the same way; with no binding at their points no hook runs", async () => {
    const chat = await sluice(["call", "model.chat", "--message", "hello there"], s.env);
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toContain("decision: allowed: the test executor was called with the input unchanged\npatch: none\nno hook ran");
    const embed = await sluice(["call", "embedding", "--text", "a", "bc", "--json"], s.env);
    expect(embed.code, embed.stderr).toBe(0);
    expect(JSON.parse(embed.stdout)).toMatchObject({ ok: true, executed_with: ["a", "bc"], output: { vectors: [[1, 1, 0], [2, 1, 0]] } });
  });

  it("an unknown point is a usage error naming the points it knows", async () => {
    const r = await sluice(["call", "toolx", "--args", "{}"], s.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: unknown point "toolx"');
  });
});
