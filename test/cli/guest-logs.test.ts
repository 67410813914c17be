/**
 * What an author sees of a failing or chatty hook: the guest's log lines and the cause
 * inside HOOK_FAILED, in `sluice test` (local) and `sluice call` (deployed), human and JSON,
 * and the log's counts in the operation's record (`sluice operation`).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../registry/fixtures.js";
import { serve, sluice, type Server } from "./run-cli.js";

/** The scaffold's hook, which also logs, logs 70 lines when asked, and spins until its fuel runs out when asked. */
const SOURCE = `import { registerHook, Outcome, Value, ToolBefore, log } from "@sluice/guest-sdk";
export * from "@sluice/guest-sdk/exports";

let spins: i64 = 0;

registerHook((req) => {
  const max = req.config.get("max_limit").asIntOr(100);
  const args = ToolBefore.of(req).arguments;
  if (args.get("spin").asIntOr(0) == 1) { while (spins >= 0) spins++; }
  if (args.get("chatty").asIntOr(0) == 1) { for (let i = 0; i < 70; i++) log.debug("line " + i.toString()); }
  const limit = args.get("limit");
  log.info("checking limit " + limit.asIntOr(-1).toString() + " against " + max.toString());
  log.warn("bell \\u0007 rung");
  if (!limit.isInt() || limit.asFloat() <= <f64>max) return Outcome.continue();
  return Outcome.patchInput().replace("/arguments/limit", Value.int(max));
});
`;

const PAYLOAD = { tool_id: "orders.search", name: "search", revision: 1, schema: { type: "object" }, arguments: { q: "late", limit: 500 }, call_id: "c1" };

let dir = "";
let wasm = "";
let s: Server;

beforeAll(async () => {
  dir = path.join(tempDir("sluice-guest-logs-"), "my-guard");
  expect((await sluice(["new", "my-guard", "--dir", dir, "--no-install"])).code).toBe(0);
  writeFileSync(path.join(dir, "assembly/index.ts"), SOURCE);
  // A small fuel budget and a generous clock: a spinning hook runs out of fuel, not time.
  const manifest = readFileSync(path.join(dir, "hook.yaml"), "utf8").replace(/^limits: .*$/m, "limits: { memory_mb: 16, timeout_ms: 2000, input_kb: 256, output_kb: 64, fuel: 5000000 }");
  writeFileSync(path.join(dir, "hook.yaml"), manifest);
  const built = await sluice(["build", dir, "--json"]);
  expect(built.code, built.stderr).toBe(0);
  wasm = (JSON.parse(built.stdout) as { file: string }).file;
  s = await serve(tempDir());
  const deployed = await sluice(["deploy", dir], s.env);
  expect(deployed.code, deployed.stderr).toBe(0);
  // Failing samples, added after the deploy (which runs the samples first).
  writeFileSync(path.join(dir, "samples/03-expects-no-change.json"), JSON.stringify({ name: "expects no change", point: "tool.before", config: { max_limit: 100 }, payload: PAYLOAD, expect: { outcome: "continue" } }));
  writeFileSync(path.join(dir, "samples/04-spins.json"), JSON.stringify({ name: "spins", point: "tool.before", config: { max_limit: 100 }, payload: { ...PAYLOAD, arguments: { limit: 5, spin: 1 } }, expect: { outcome: "continue" } }));
}, 240_000);
afterAll(async () => { await s?.close(); });

describe("sluice test shows a guest's log lines and the cause of a hook's failure", () => {
  it("prints a failing sample's log lines under it, and a passing one's only with --verbose", async () => {
    const r = await sluice(["test", dir, "--module", wasm]);
    expect(r.code).toBe(1);
    const lines = r.stdout.split("\n");
    const failing = lines.indexOf(lines.find((l) => l.startsWith("FAIL expects no change"))!);
    expect(lines.slice(failing + 1, failing + 4)).toEqual([
      "    outcome: expected continue, got patch_input",
      "    log info: checking limit 500 against 100",
      "    log warn: bell \\x07 rung",
    ]);
    const passing = lines.findIndex((l) => l.startsWith("pass clamps a large limit"));
    expect(lines[passing + 1]).toMatch(/^pass /);
    const verbose = await sluice(["test", dir, "--module", wasm, "--verbose"]);
    const shown = verbose.stdout.split("\n");
    const at = shown.findIndex((l) => l.startsWith("pass clamps a large limit"));
    expect(shown.slice(at + 1, at + 3)).toEqual(["    log info: checking limit 500 against 100", "    log warn: bell \\x07 rung"]);
  }, 120_000);

  it("names GUEST_FUEL_EXHAUSTED beside HOOK_FAILED, and --json carries the error with its cause and every sample's log", async () => {
    const r = await sluice(["test", dir, "--module", wasm, "--json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { results: { name: string; error?: { code: string; cause?: { code: string } }; logs?: { lines: { level: string; message: string }[]; dropped: number } }[] };
    const spins = out.results.find((x) => x.name === "spins")!;
    expect(spins.error).toMatchObject({ code: "HOOK_FAILED", cause: { code: "GUEST_FUEL_EXHAUSTED" } });
    const clamps = out.results.find((x) => x.name === "clamps a large limit")!;
    expect(clamps.logs).toEqual({ lines: [{ level: "info", message: "checking limit 500 against 100" }, { level: "warn", message: "bell \\x07 rung" }], dropped: 0 });
    const human = await sluice(["test", dir, "--module", wasm]);
    expect(human.stdout).toContain("FAIL spins");
    expect(human.stdout).toMatch(/unexpected error: HOOK_FAILED \(GUEST_FUEL_EXHAUSTED: /);
  }, 120_000);
});

describe("sluice call shows a deployed guest's log lines and the cause of its failure", () => {
  it("prints each hook's log lines under it, and how many past the 64 kept were dropped", async () => {
    const r = await sluice(["call", "tool.before", "--args", '{"limit":5000}'], s.env);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    const hook = lines.findIndex((l) => l.startsWith("hook my-guard-tool-before"));
    expect(lines.slice(hook + 1, hook + 3)).toEqual(["    log info: checking limit 5000 against 100", "    log warn: bell \\x07 rung"]);
    const chatty = await sluice(["call", "tool.before", "--args", '{"limit":1,"chatty":1}', "--json"], s.env);
    const called = JSON.parse(chatty.stdout) as { hooks: { logs: { lines: { level: string; message: string }[]; dropped: number } }[] };
    expect(called.hooks[0]!.logs.lines).toHaveLength(64);
    expect(called.hooks[0]!.logs.lines[0]).toEqual({ level: "debug", message: "line 0" });
    expect(called.hooks[0]!.logs.dropped).toBe(8);
    const human = await sluice(["call", "tool.before", "--args", '{"limit":1,"chatty":1}'], s.env);
    expect(human.stdout).toContain("    log: 8 more lines dropped (64 are kept per call)\n");
  });

  it("names GUEST_FUEL_EXHAUSTED beside HOOK_FAILED in the decision, the hook's line and --json", async () => {
    const r = await sluice(["call", "tool.before", "--args", '{"limit":1,"spin":1}'], s.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^decision: refused: HOOK_FAILED \(GUEST_FUEL_EXHAUSTED\): /);
    expect(r.stdout).toMatch(/\nhook my-guard-tool-before \(my-guard@0\.1\.0\) at tool\.before: failed \(GUEST_FUEL_EXHAUSTED\) in /);
    const json = await sluice(["call", "tool.before", "--args", '{"limit":1,"spin":1}', "--json"], s.env);
    const called = JSON.parse(json.stdout) as { error: { code: string; cause?: { code: string; message: string } } };
    expect(called.error).toMatchObject({ code: "HOOK_FAILED", cause: { code: "GUEST_FUEL_EXHAUSTED", message: expect.stringContaining("fuel") } });
  });

  it("the operation's record keeps the log's counts, not its lines, when the server keeps no payloads", async () => {
    const called = JSON.parse((await sluice(["call", "tool.before", "--args", '{"limit":5000}', "--json"], s.env)).stdout) as { operation_id: string };
    const r = await sluice(["operation", called.operation_id], s.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("hooks:\nhook my-guard-tool-before (my-guard@0.1.0) at tool.before: patch_input in ");
    expect(r.stdout).toContain("\n    log: 2 lines (1 info, 1 warn); the lines are kept only with the server's payload store on\n");
    expect(r.stdout).not.toContain("checking limit");
    const json = JSON.parse((await sluice(["operation", called.operation_id, "--json"], s.env)).stdout) as { operation: { operationId: string }; hooks: { logs: unknown }[] };
    expect(json.operation.operationId).toBe(called.operation_id);
    expect(json.hooks[0]!.logs).toEqual({ count: 2, dropped: 0, levels: { debug: 0, info: 1, warn: 1, error: 0 } });
  });
});
