/** What a hook author meets: samples checked as the server checks, errors that name what to change, field-level diffs, unbind, publish, deploy, dev. */
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../registry/fixtures.js";
import { serve, sluice, spawnSluice, stop, waitFor, type Server } from "./run-cli.js";

let scaffold = "";
let wasm = "";
const servers: Server[] = [];

beforeAll(async () => {
  scaffold = path.join(tempDir("sluice-author-"), "my-hook");
  expect((await sluice(["new", "my-hook", "--dir", scaffold])).code).toBe(0);
  const built = await sluice(["build", scaffold, "--json"]);
  expect(built.code).toBe(0);
  wasm = (JSON.parse(built.stdout) as { file: string }).file;
}, 120_000);

afterAll(async () => {
  for (const s of servers) await s.close();
});

/** A copy of the built scaffold to change. */
function plugin(): string {
  const dir = path.join(tempDir("sluice-author-"), "my-hook");
  cpSync(scaffold, dir, { recursive: true });
  return dir;
}

function sample(dir: string, file: string, value: unknown): void {
  writeFileSync(path.join(dir, "samples", file), typeof value === "string" ? value : JSON.stringify(value));
}

const PAYLOAD = { tool_id: "orders.search", name: "search", revision: 1, schema: { type: "object" }, arguments: { q: "late", limit: 500 }, call_id: "c1" };

async function server(): Promise<Server> {
  const s = await serve(tempDir());
  servers.push(s);
  return s;
}

describe("sluice test checks samples as the server checks bindings", () => {
  it("fails a sample whose config breaks the config_schema, one at an undeclared point, and an unknown expect key, naming each", async () => {
    const dir = plugin();
    sample(dir, "03-bad-config.json", { name: "bad config", point: "tool.before", config: { max_limit: 0 }, payload: PAYLOAD, expect: { outcome: "patch_input" } });
    sample(dir, "04-undeclared-point.json", { name: "undeclared point", point: "tool.after", config: {}, payload: PAYLOAD, expect: { outcome: "continue" } });
    sample(dir, "05-typo.json", { name: "typo", point: "tool.before", config: {}, payload: PAYLOAD, expect: { outcom: "continue" } });
    const r = await sluice(["test", dir, "--module", wasm]);
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n").filter((l) => !/^pass /.test(l))).toEqual([
      "FAIL bad config (0.0 ms)",
      "    config: PLUGIN_CONFIG_INVALID: config does not match the config_schema of my-hook@0.1.0: /max_limit must be >= 1 (got 0)",
      "FAIL undeclared point (0.0 ms)",
      '    point "tool.after" is not declared in hook.yaml (it declares tool.before); bind would refuse it',
      "FAIL typo (0.0 ms)",
      '    unknown expect key "outcom" (did you mean "outcome"?); allowed: outcome, payload, code, reason, annotations, result, carry, error, emitted, blocked, outcomes',
      "2 passed, 3 failed",
      "",
    ]);
  }, 60_000);

  it("shows a payload mismatch field by field, as JSON Pointer paths", async () => {
    const dir = plugin();
    sample(dir, "03-diff.json", { name: "diff", point: "tool.before", config: { max_limit: 100 }, payload: PAYLOAD, expect: { outcome: "patch_input", payload: { ...PAYLOAD, arguments: { q: "early", limit: 99 }, extra: true } } });
    const r = await sluice(["test", dir, "--module", wasm]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain([
      "FAIL diff (",
    ].join(""));
    expect(r.stdout.split("\n").filter((l) => l.startsWith("    "))).toEqual([
      '    payload/arguments/q: expected "early", got "late"',
      "    payload/arguments/limit: expected 99, got 100",
      "    payload/extra: expected true, missing",
    ]);
  }, 60_000);

  it("names a sample file with bad JSON", async () => {
    const dir = plugin();
    sample(dir, "03-broken.json", "{broken");
    const r = await sluice(["test", dir, "--module", wasm]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`error SAMPLE_INVALID: ${path.join(dir, "samples", "03-broken.json")}:1:2 is not valid JSON: Expected property name or '}' (line 1, column 2)`);
    sample(dir, "03-broken.json", '{\n  "name": "x",\n  "point": "tool.before",,\n}');
    const lined = await sluice(["test", dir, "--module", wasm]);
    expect(lined.stderr).toContain(`${path.join(dir, "samples", "03-broken.json")}:3:26 is not valid JSON`);
  });

  it("with --json, a failure is JSON on stdout with its code and hint", async () => {
    const dir = plugin();
    sample(dir, "03-broken.json", "{broken");
    const r = await sluice(["test", dir, "--module", wasm, "--json"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: "SAMPLE_INVALID", message: expect.stringContaining("03-broken.json:1:2 is not valid JSON"), details: { line: 1, column: 2 } } });
    const usage = await sluice(["test", tempDir(), "--json"]);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toMatchObject({ error: { code: "CLI_ERROR", message: expect.stringContaining("no hook.yaml"), hint: expect.any(String) } });
  });

  it("prints results as JSON with --json", async () => {
    const r = await sluice(["test", scaffold, "--module", wasm, "--json"]);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as { passed: number; failed: number; results: { name: string; pass: boolean; mismatches: string[] }[] };
    expect(body).toMatchObject({ passed: 2, failed: 0 });
    expect(body.results.map((x) => [x.name, x.pass, x.mismatches])).toEqual([["clamps a large limit", true, []], ["leaves a small limit alone", true, []]]);
  });
});

describe("errors name the key, the value and the allowed values", () => {
  it("a manifest key typo names the key, the allowed keys and the likely one", async () => {
    const dir = plugin();
    const manifest = path.join(dir, "hook.yaml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace("version: 0.1.0", "versoin: 0.1.0"));
    const r = await sluice(["test", dir, "--module", wasm]);
    expect(r.code).toBe(3);
    expect(r.stderr.split("\n")[0]).toBe('error MANIFEST_INVALID: hook.yaml: unknown property "versoin" at the root (allowed: id, version, abi, entry, language, description, points, config_schema, capabilities, limits, failure_policy, capability_boundary, bindings); did you mean "version"?; the root is missing the required property "version"');
  });

  it("a bad point in a manifest names it, the allowed points and the likely one", async () => {
    const dir = plugin();
    const manifest = path.join(dir, "hook.yaml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace("  tool.before:", "  tool.befor:"));
    const r = await sluice(["build", dir]);
    expect(r.code).toBe(3);
    expect(r.stderr.split("\n")[0]).toBe('error MANIFEST_INVALID: hook.yaml: property name "tool.befor" is not one of the allowed values ("model.chat.before", "model.chat.after", "model.chat.chunk", "model.embedding.before", "model.embedding.after", "tool.before", "tool.after", "operation.error", "operation.finally", "run.start", "run.end", "subtask.start", "subtask.end"); did you mean "tool.before"?');
  });

  it("bind with an unknown point names the value and the allowed points; a config that breaks the schema names the field", async () => {
    const s = await server();
    expect((await sluice(["upload", scaffold, "--module", wasm], s.env)).code).toBe(0);
    const bad = await sluice(["bind", "my-hook@0.1.0", "--point", "tool.befor"], s.env);
    expect(bad.code).toBe(3);
    expect(bad.stderr.split("\n")[0]).toBe('error REQUEST_INVALID: body: /point "tool.befor" is not one of the allowed values ("model.chat.before", "model.chat.after", "model.chat.chunk", "model.embedding.before", "model.embedding.after", "tool.before", "tool.after", "operation.error", "operation.finally", "run.start", "run.end", "subtask.start", "subtask.end"); did you mean "tool.before"?');
    const undeclared = await sluice(["bind", "my-hook@0.1.0", "--point", "tool.after"], s.env);
    expect(undeclared.code).toBe(3);
    expect(undeclared.stderr.split("\n")[0]).toBe("error BINDING_INVALID: binding my-hook-tool-after: my-hook@0.1.0 does not declare the point tool.after in its manifest (it declares tool.before)");
    const config = await sluice(["bind", "my-hook@0.1.0", "--point", "tool.before", "--config", '{"max_limit": "ten", "maxlimit": 3}'], s.env);
    expect(config.code).toBe(3);
    expect(config.stderr.split("\n")[0]).toBe('error PLUGIN_CONFIG_INVALID: config does not match the config_schema of my-hook@0.1.0: unknown property "maxlimit" at the root (allowed: max_limit); did you mean "max_limit"?');
  }, 60_000);
});

describe("bindings and releases", () => {
  it("unbind and binding delete remove draft bindings; publishing nothing new creates nothing; an empty release warns", async () => {
    const s = await server();
    expect((await sluice(["upload", scaffold, "--module", wasm], s.env)).code).toBe(0);
    expect((await sluice(["bind", "my-hook@0.1.0", "--point", "tool.before"], s.env)).stdout).toBe("bound my-hook-tool-before: my-hook@0.1.0 at tool.before (position 0); run `sluice publish --activate` to release it\n");
    expect((await sluice(["bind", "my-hook@0.1.0", "--point", "tool.before", "--id", "second"], s.env)).code).toBe(0);
    expect((await sluice(["publish", "--activate"], s.env)).stdout).toBe("published revision 1 (2 binding(s)); active revision: 1\n");
    const again = await sluice(["publish", "--activate", "--json"], s.env);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: false, release: { revision: 1 }, active_revision: 1 });
    expect((await sluice(["publish"], s.env)).stdout).toBe("nothing changed since revision 1; no release created; active revision: 1\n");
    expect((await s.registry.listReleases()).map((r) => r.revision)).toEqual([1]);

    expect((await sluice(["unbind", "second"], s.env)).stdout).toBe("removed second from the draft; run `sluice publish --activate` to release the change\n");
    const deleted = await sluice(["binding", "delete", "my-hook-tool-before", "--json"], s.env);
    expect(JSON.parse(deleted.stdout)).toEqual({ deleted: "my-hook-tool-before" });
    expect(await s.registry.listBindings()).toEqual([]);
    const missing = await sluice(["unbind", "second"], s.env);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toBe("error BINDING_NOT_FOUND: no binding second; list them with GET /api/v1/bindings\n  → `sluice list bindings` shows the binding ids\n");

    const empty = await sluice(["publish"], s.env);
    expect(empty.stderr).toBe("warning: the draft has no bindings: this release runs no hook (activating it turns every hook off)\n");
    expect(empty.stdout).toBe("published revision 2 (0 binding(s)); active revision: 1\nactivate it with: sluice activate 2\n");
  }, 60_000);

  it("deploy uploads, binds from hook.yaml, publishes and activates; deploying again changes nothing", async () => {
    const s = await server();
    const first = await sluice(["deploy", scaffold, "--module", wasm], s.env);
    expect(first.code).toBe(0);
    expect(first.stdout.replace(/sha256 [0-9a-f]{64}/, "sha256 <hash>")).toBe([
      "uploaded my-hook@0.1.0 sha256 <hash>",
      "bound my-hook-tool-before: my-hook@0.1.0 at tool.before",
      "published revision 1 (1 binding(s)); active revision: 1",
      "",
    ].join("\n"));
    expect(await s.registry.activeRevision()).toBe(1);
    expect((await s.registry.getRelease(1)).bindings.map((b) => [b.id, b.hook_ref, b.config])).toEqual([["my-hook-tool-before", "my-hook@0.1.0", { max_limit: 100 }]]);
    let seen: unknown;
    await s.registry.host.tool({ spaceId: "s1" }, { toolId: "orders.search", name: "search", schema: { type: "object" }, arguments: { limit: 500 }, callId: "c1" }, async (args) => { seen = args.limit; return {}; });
    expect(seen).toBe(100);

    const second = await sluice(["deploy", scaffold, "--module", wasm], s.env);
    expect(second.stdout.replace(/sha256 [0-9a-f]{64}/, "sha256 <hash>")).toBe([
      "already uploaded (identical) my-hook@0.1.0 sha256 <hash>",
      "rebound my-hook-tool-before: my-hook@0.1.0 at tool.before",
      "nothing changed since revision 1; no release created; active revision: 1",
      "",
    ].join("\n"));
  }, 60_000);

  it("deploy without a bindings section says what to add", async () => {
    const dir = plugin();
    const manifest = path.join(dir, "hook.yaml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace(/^bindings:[\s\S]*$/m, ""));
    const r = await sluice(["deploy", dir, "--module", wasm], { SLUICE_URL: "http://127.0.0.1:9" });
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe(`error: ${dir}/hook.yaml has no bindings section, so deploy has nothing to bind`);
  });
});

describe("sluice deploy checks everything before it stores anything", () => {
  it("a binding config in hook.yaml that its config_schema refuses stops deploy and test before anything is stored, naming hook.yaml", async () => {
    const s = await server();
    const dir = plugin();
    const manifest = path.join(dir, "hook.yaml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace("config: { max_limit: 100 }", "config: { max_limit: 0 }"));
    const r = await sluice(["deploy", dir, "--module", wasm], s.env);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error PLUGIN_CONFIG_INVALID: hook\.yaml: bindings\[0\] \(my-hook-tool-before\): config does not match the config_schema of my-hook@0\.1\.0/);
    expect(r.stderr).toContain("→ fix the binding's config in hook.yaml");
    expect(r.stderr).not.toContain("--config");
    expect(await s.registry.listPlugins()).toEqual([]);
    expect(await s.registry.listBindings()).toEqual([]);

    const tested = await sluice(["test", dir, "--module", wasm]);
    expect(tested.code).toBe(3);
    expect(tested.stderr).toMatch(/^error PLUGIN_CONFIG_INVALID: hook\.yaml: bindings\[0\]/);
  }, 60_000);

  it("a failing sample stops the deploy and says so; --force deploys anyway", async () => {
    const s = await server();
    const dir = plugin();
    sample(dir, "03-wrong.json", { name: "expects the wrong limit", point: "tool.before", config: { max_limit: 100 }, payload: PAYLOAD, expect: { outcome: "continue" } });
    const r = await sluice(["deploy", dir, "--module", wasm], s.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: 1 of 3 samples failed, so nothing was deployed");
    expect(r.stderr).toContain("→ fix the hook or its samples (`sluice test` shows them), or deploy anyway with --force");
    expect(await s.registry.listPlugins()).toEqual([]);
    expect(await s.registry.activeRevision()).toBe(0);

    const forced = await sluice(["deploy", dir, "--module", wasm, "--force"], s.env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain("warning: 1 of 3 samples failed; deploying anyway (--force)");
    expect(await s.registry.activeRevision()).toBe(1);
  }, 60_000);

  it("changing only a binding in hook.yaml deploys a new revision of the same version", async () => {
    const s = await server();
    const dir = plugin();
    expect((await sluice(["deploy", dir, "--module", wasm], s.env)).code).toBe(0);
    const manifest = path.join(dir, "hook.yaml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace("config: { max_limit: 100 }", "config: { max_limit: 50 }"));
    const again = await sluice(["deploy", dir, "--module", wasm], s.env);
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^already uploaded \(identical\) my-hook@0\.1\.0/m);
    expect(again.stdout).toMatch(/^published revision 2 \(1 binding\(s\)\); active revision: 2$/m);
    expect((await s.registry.getRelease(2)).bindings.map((b) => b.config)).toEqual([{ max_limit: 50 }]);
    expect((await s.registry.listPlugins()).map((p) => [p.id, p.version, "bindings" in p.manifest])).toEqual([["my-hook", "0.1.0", false]]);
  }, 60_000);
});

describe("sluice dev", () => {
  it("re-runs the samples on every change to a sample or the source, and keeps watching after a broken build", async () => {
    const dir = plugin();
    rmSync(path.join(dir, "build"), { recursive: true });
    const dev = spawnSluice(["dev", dir, "--no-serve"]);
    try {
      const first = await waitFor(dev, /results in \d+ ms; watching/);
      expect(first).toMatch(/^— first build\npass clamps a large limit \([\d.]+ ms, fuel [\d,]+ of 50,000,000\)\npass leaves a small limit alone \([\d.]+ ms, fuel [\d,]+ of 50,000,000\)\n2 passed, 0 failed\nresults in \d+ ms; watching /);

      // Each step waits for the state it leads to (a file write can be seen as two changes;
      // a repeated run prints the state before, which the next step does not wait for).
      const changedSample = waitFor(dev, /1 passed, 1 failed\nresults in/);
      const file = path.join(dir, "samples", "02-leaves-a-small-limit-alone.json");
      writeFileSync(file, readFileSync(file, "utf8").replace('"outcome": "continue"', '"outcome": "patch_input"'));
      expect(await changedSample).toMatch(/— changed: samples\/02-leaves-a-small-limit-alone\.json\npass clamps a large limit \([\d.]+ ms, fuel [\d,]+ of 50,000,000\)\nFAIL leaves a small limit alone \([\d.]+ ms, fuel [\d,]+ of 50,000,000\)\n {4}outcome: expected patch_input, got continue\n1 passed, 1 failed\nresults in/);

      const changedSource = waitFor(dev, /2 passed, 0 failed\nresults in/);
      const source = path.join(dir, "assembly", "index.ts");
      writeFileSync(source, readFileSync(source, "utf8").replace("limit.asFloat() <= <f64>max", "limit.asFloat() <= 0"));
      expect(await changedSource).toMatch(/— changed: assembly\/index\.ts\npass clamps a large limit \([\d.]+ ms, fuel [\d,]+ of 50,000,000\)\npass leaves a small limit alone \([\d.]+ ms, fuel [\d,]+ of 50,000,000\)\n2 passed, 0 failed\nresults in/);

      const broken = waitFor(dev, /\nerror: [^\n]*[\s\S]*?results in/);
      writeFileSync(source, "this is not AssemblyScript(");
      expect(await broken).toMatch(/— changed: assembly\/index\.ts\nerror: /);
      const fixed = waitFor(dev, /1 passed, 1 failed\nresults in/);
      writeFileSync(source, readFileSync(path.join(scaffold, "assembly", "index.ts"), "utf8"));
      expect(await fixed).toMatch(/— changed: assembly\/index\.ts\n[\s\S]*1 passed, 1 failed\nresults in/);
    } finally {
      await stop(dev);
    }
  }, 120_000);
});
