/**
 * A guest's log lines in the operation's record: the audit row keeps how many lines of
 * each level (never the text, which may quote the payload); with the payload store on, the
 * lines are kept there, sealed like payloads, and the API's operation detail and audit show
 * them.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import Fastify from "fastify";
import wabtInit from "wabt";
import { afterEach, describe, expect, it } from "vitest";
import { installErrorHandlers } from "../../host/api/errors.js";
import { recordRoutes } from "../../host/api/routes/records.js";
import { addShapes } from "../../host/api/shapes/components.js";
import { createHost, createMemoryRecords, openSqliteRecords, type Host } from "../../host/index.js";
import { openSqlitePayloads } from "../../host/records/sqlite-store.js";
import { tempDir } from "../registry/fixtures.js";
import { call, ctx, MARKER } from "./scenarios.js";

/** Logs the whole request it is given (as a careless guest would: it quotes the payload), then a warning; continues. */
const LOGS_ITS_INPUT = `(module
  (import "sluice_v1" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "\\82\\a3abi\\a31.0\\a7outcome\\a8continue")
  (data (i32.const 64) "second line\\07")
  (global $next (mut i32) (i32.const 8192))
  (func (export "sluice_abi_v1_0"))
  (func (export "sluice_alloc") (param $n i32) (result i32)
    (local $p i32) (local.set $p (global.get $next))
    (global.set $next (i32.add (global.get $next) (local.get $n))) (local.get $p))
  (func (export "sluice_handle") (param $p i32) (param $n i32) (result i64)
    (call $log (i32.const 1) (local.get $p) (local.get $n))
    (call $log (i32.const 2) (i32.const 64) (i32.const 12))
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 26))))`;

async function guest(): Promise<Uint8Array> {
  const wabt = await wabtInit();
  return new Uint8Array(wabt.parseWat("logs.wat", LOGS_ITS_INPUT).toBinary({}).buffer);
}

const hosts: Host[] = [];
afterEach(async () => { for (const h of hosts.splice(0)) await h.close(); });

async function hostWith(options: Parameters<typeof createHost>[0]): Promise<Host> {
  const host = createHost({ workers: 1, ...options });
  hosts.push(host);
  await host.loadPlugin({ id: "logger", version: "1.0.0", wasm: await guest() });
  host.activate({ revision: 1, bindings: [{ id: "logs-input", hookRef: "logger@1.0.0", point: "tool.before", timeoutMs: 5_000 }] });
  return host;
}

async function detail(host: Host, id: string) {
  const app = Fastify();
  installErrorHandlers(app);
  addShapes(app);
  recordRoutes(app, host);
  const shown = (await app.inject({ url: `/api/v1/operations/${id}` })).json() as { hooks: { bindingId: string; logs: unknown }[] };
  const audit = (await app.inject({ url: `/api/v1/audit?operation_id=${id}` })).json() as { items: { logs: unknown }[] };
  return { hooks: shown.hooks, audit: audit.items };
}

function onDisk(file: string, text: string): boolean {
  return [file, `${file}-wal`].some((f) => existsSync(f) && readFileSync(f).includes(Buffer.from(text)));
}

describe("a guest's log lines in the operation's record", () => {
  it("are counted by level in the audit row, and their text is nowhere in the records when no payload store is on", async () => {
    const file = path.join(tempDir("sluice-guest-logs-"), "records.db");
    const records = openSqliteRecords(file);
    const host = await hostWith({ records });
    const r = await host.tool(ctx, call, async () => "done");
    expect(r.ok).toBe(true);
    // The caller's own trace has the lines: it is the answer, not a record.
    expect(r.hooks[0]!.logs!.lines.map((l) => l.level)).toEqual([1, 2]);
    expect(r.hooks[0]!.logs!.lines[0]!.message).toContain(MARKER);
    expect(r.hooks[0]!.logs!.lines[1]!.message).toBe("second line\\x07");
    const { hooks, audit } = await detail(host, r.facts.operationId);
    const counts = { count: 2, dropped: 0, levels: { debug: 0, info: 1, warn: 1, error: 0 } };
    expect(hooks).toEqual([expect.objectContaining({ bindingId: "logs-input", logs: counts })]);
    expect(audit).toEqual([expect.objectContaining({ logs: counts })]);
    await host.close();
    records.close();
    hosts.splice(0);
    expect(onDisk(file, "second line")).toBe(false);
    expect(onDisk(file, MARKER)).toBe(false);
  });

  it("are kept in the payload store when it is on, sealed there, and shown by the operation detail and the audit", async () => {
    const dir = tempDir("sluice-guest-logs-");
    const payloadFile = path.join(dir, "payloads.db");
    const payloads = openSqlitePayloads(payloadFile, { retentionMs: 60_000 });
    const host = await hostWith({ records: createMemoryRecords(), payloads });
    const r = await host.tool(ctx, call, async () => "done");
    expect(r.ok).toBe(true);
    const { hooks, audit } = await detail(host, r.facts.operationId);
    const logs = hooks[0]!.logs as { count: number; ref: string; lines: { level: string; message: string }[] };
    expect(logs).toMatchObject({ count: 2, dropped: 0, levels: { info: 1, warn: 1 }, ref: expect.stringMatching(/^[0-9a-f]{16,}/) });
    expect(logs.lines.map((l) => l.level)).toEqual(["info", "warn"]);
    expect(logs.lines[0]!.message).toContain(MARKER);
    expect(logs.lines[1]).toEqual({ level: "warn", message: "second line\\x07" });
    expect(audit[0]!.logs).toEqual(logs);
    await host.close();
    await payloads.close();
    hosts.splice(0);
    expect(onDisk(payloadFile, "second line")).toBe(false);
  });
});
