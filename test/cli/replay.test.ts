/** `sluice replay`: a recorded operation's hooks again, with a local build or another version, never the tool. */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryPayloads } from "../../host/records/memory-store.js";
import { tempDir } from "../registry/fixtures.js";
import { serve, sluice, type Server } from "./run-cli.js";

let s: Server;
let scaffold = "";
let operationId = "";
let toolCalls = 0;

const call = { toolId: "orders.search", name: "search", schema: { type: "object" }, arguments: { q: "late", limit: 500 }, callId: "c1" };

beforeAll(async () => {
  scaffold = path.join(tempDir("sluice-replay-"), "my-hook");
  expect((await sluice(["new", "my-hook", "--dir", scaffold])).code).toBe(0);
  s = await serve(tempDir(), { hostOptions: { workers: 1, payloads: createMemoryPayloads({ retentionMs: 60_000 }) } });
  expect((await sluice(["deploy", scaffold], s.env)).code).toBe(0);
  const r = await s.registry.host.tool({ spaceId: "acme" }, call, async () => { toolCalls++; return { orders: [] }; });
  expect(r.ok).toBe(true);
  operationId = (await s.registry.host.records!.list())[0]!.operationId;
}, 120_000);

afterAll(async () => {
  await s?.close();
});

describe("sluice replay", () => {
  it("says nothing would change when the local build is the deployed one", async () => {
    const r = await sluice(["replay", operationId, "--dir", scaffold, "--exit-code"], s.env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`operation ${operationId} (revision 1) replayed with my-hook@0.1.0: no change\n  tool.before: unchanged\n`);
  }, 60_000);

  it("shows the patch a changed local build would make, without calling the tool", async () => {
    const dir = path.join(tempDir("sluice-replay-"), "my-hook");
    cpSync(scaffold, dir, { recursive: true });
    const source = path.join(dir, "assembly", "index.ts");
    writeFileSync(source, readFileSync(source, "utf8").replace('Value.int(max)', "Value.int(max / 10)"));
    const before = toolCalls;
    const r = await sluice(["replay", operationId, "--dir", dir, "--exit-code"], s.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe([
      `operation ${operationId} (revision 1) replayed with my-hook@0.1.0: changes`,
      "  tool.before",
      "    my-hook-tool-before (my-hook@0.1.0, replaced): patch_input (unchanged)",
      "    output/arguments/limit: 100 → 10",
      "",
    ].join("\n"));
    const json = JSON.parse((await sluice(["replay", operationId, "--dir", dir, "--json"], s.env)).stdout) as { changed: boolean; stages: { point: string; output: unknown[] }[] };
    expect(json).toMatchObject({ changed: true, stages: [{ point: "tool.before", output: [{ path: "/arguments/limit", expected: 100, actual: 10 }] }] });
    expect(toolCalls).toBe(before);
    // Replay stores nothing: no new operation, no new plugin version.
    expect(await s.registry.host.records!.list()).toHaveLength(1);
    expect(await s.registry.listPlugins()).toHaveLength(1);
  }, 60_000);

  it("names what is missing: an unknown operation, a server without a payload store", async () => {
    const missing = await sluice(["replay", "no-such-op", "--ref", "my-hook@0.1.0"], s.env);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toBe("error OPERATION_NOT_FOUND: no operation record no-such-op\n  → `sluice operations` lists the recorded operations\n");

    const plain = await serve(tempDir());
    try {
      expect((await sluice(["deploy", scaffold], plain.env)).code).toBe(0);
      await plain.registry.host.tool({ spaceId: "acme" }, call, async () => ({}));
      const id = (await plain.registry.host.records!.list())[0]!.operationId;
      const r = await sluice(["replay", id, "--ref", "my-hook@0.1.0"], plain.env);
      expect(r.code).toBe(3);
      expect(r.stderr).toBe(`error PAYLOADS_UNAVAILABLE: operation ${id} cannot be replayed: this server keeps no payloads; start it with --payload-store (SLUICE_PAYLOAD_STORE=1) and replay an operation recorded after that\n  → start the server with --payload-store (SLUICE_PAYLOAD_STORE=1); operations recorded from then on can be replayed\n`);
    } finally {
      await plain.close();
    }
  }, 120_000);
});
