/**
 * Content sealed at rest, as an operator runs it: `sluice serve` with the gateway and the payload
 * store, a tool result carrying a secret, and an after hook that fails (fail-closed) so the
 * operation stays resumable with its real result stored. Every file of the data folder
 * (the -wal and -shm files included) and every row of the PostgreSQL database hold the
 * secret in no form (UTF-8, UTF-16, hex, base64), while serving and after shutdown; after
 * a restart the stored result still opens, and resume returns it.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sluice, spawnSluice, stop, waitFor } from "../cli/run-cli.js";
import { startStubUpstream, type StubUpstream } from "../gateway/upstream-stub.js";
import { filesHolding, filesIn, tablesHolding } from "../helpers/at-rest.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { tempDir } from "../registry/fixtures.js";

const SECRET = "transfer PIN is 4821";
const TOKEN = "sealed-serve-token-0123456789abcdefghijkl";
const BROKEN = `id: broken\nversion: 1.0.0\nabi: "1.0"\nentry: malformed-output.wat\npoints:\n  model.chat.after:\nfailure_policy: fail-closed\ncapability_boundary: none\n`;

const children: ReturnType<typeof spawnSluice>[] = [];
let upstream: StubUpstream | undefined;
afterEach(async () => {
  await Promise.all(children.splice(0).map(stop));
  await upstream?.close();
  upstream = undefined;
});

interface Served { api: string; gateway: string; child: ReturnType<typeof spawnSluice> }

function serveEnv(dataDir: string, database: string | undefined, keyFile: string | undefined): Record<string, string> {
  return {
    SLUICE_DATA_DIR: dataDir, SLUICE_TOKEN: TOKEN, SLUICE_WORKERS: "1", SLUICE_LOG_LEVEL: "warn", SLUICE_UPSTREAM: upstream!.url,
    ...(database !== undefined ? { SLUICE_DATABASE_URL: database } : {}), ...(keyFile !== undefined ? { SLUICE_DIGEST_KEY_FILE: keyFile } : {}),
  };
}

async function start(dataDir: string, database: string | undefined, keyFile?: string): Promise<Served> {
  const child = spawnSluice(["serve", "--port", "0", "--gateway-port", "0", "--payload-store"], serveEnv(dataDir, database, keyFile));
  children.push(child);
  const out = await waitFor(child, /sluice listening on \S+/);
  return { child, api: /sluice listening on (\S+)/.exec(out)![1]!, gateway: /gateway listening on (\S+)\/v1/.exec(out)![1]! };
}

async function call(url: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(url, {
    method: init.method ?? (init.body !== undefined ? "POST" : "GET"),
    headers: { authorization: `Bearer ${init.token ?? TOKEN}`, ...(init.body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, json: res.status === 204 ? null : await res.json() };
}

const toolTurn = {
  model: "m",
  messages: [
    { role: "user", content: "pay the invoice" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "pay", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "call_1", content: SECRET },
  ],
};

/** A key file outside any data folder, as a fleet's hosts share one. */
function keyFileOf(dir: string): string {
  const file = path.join(dir, "fleet.key");
  writeFileSync(file, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
  return file;
}

/**
 * On SQLite the host keeps its key in the data folder; on PostgreSQL the hosts share a key
 * file, and the restart is another host (a data folder of its own) with that key.
 */
async function scenario(database: string | undefined): Promise<void> {
  upstream = await startStubUpstream();
  const work = tempDir("sluice-sealed-");
  const dataDir = path.join(work, "data");
  const keyFile = database !== undefined ? keyFileOf(work) : undefined;
  let s = await start(dataDir, database, keyFile);
  const wasm = readFileSync(new URL("../../build/fixtures/malformed-output.wasm", import.meta.url));
  expect((await call(`${s.api}/api/v1/plugins`, { body: { manifest: BROKEN, wasm_base64: wasm.toString("base64") } })).status).toBe(201);
  expect((await call(`${s.api}/api/v1/bindings`, { body: { id: "broken", hook_ref: "broken@1.0.0", point: "model.chat.after", failure_policy: "fail-closed" } })).status).toBe(201);
  const env = { SLUICE_URL: s.api, SLUICE_TOKEN: TOKEN };
  expect((await sluice(["publish", "--activate"], env)).code).toBe(0);
  const key = (await call(`${s.api}/api/v1/gateway/keys`, { body: { space_id: "acme" } })).json.key as string;

  // The fail-closed after hook fails: the caller gets an error, the real result stays stored for resume.
  const failed = await call(`${s.gateway}/v1/chat/completions`, { token: key, body: toolTurn });
  expect(failed.status).toBe(502);
  expect(upstream.chatCalls).toBe(1);
  const listed = (await call(`${s.api}/api/v1/operations`)).json.items as { operationId: string; phase: string; realStatus: string }[];
  expect(listed).toMatchObject([{ phase: "after", realStatus: "succeeded" }]);
  const id = listed[0]!.operationId;
  // A second operation, stopped the same way.
  const ok = await call(`${s.gateway}/v1/chat/completions`, { token: key, body: { ...toolTurn, messages: [...toolTurn.messages.slice(0, 2), { role: "tool", tool_call_id: "call_1", content: `${SECRET} (again)` }] } });
  expect(ok.status).toBe(502);
  // A streamed call is recorded like the others: its text held back for the after hook that
  // may rewrite it, which fails; its real result stays stored (sealed) for resume.
  const streamed = await call(`${s.gateway}/v1/chat/completions`, { token: key, body: { ...toolTurn, stream: true, messages: [...toolTurn.messages.slice(0, 2), { role: "tool", tool_call_id: "call_1", content: `${SECRET} (streamed)` }] } });
  expect(streamed.status).toBe(502);
  expect(upstream.chatCalls).toBe(3);
  const all = (await call(`${s.api}/api/v1/operations`)).json.items as { operationId: string }[];
  expect(all).toMatchObject([{ phase: "after", realStatus: "succeeded" }, { phase: "after", realStatus: "succeeded" }, { phase: "after", realStatus: "succeeded" }]);
  // Newest first: the streamed one.
  const streamedId = all[0]!.operationId;

  // While serving: the databases, their WAL and shared-memory files, the payload store.
  const files = filesIn(dataDir);
  if (database === undefined) expect(files).toEqual(expect.arrayContaining(["sluice.db", "sluice.db-wal", "sluice.db-shm", "payloads.db", "payloads.db-wal", "digest.key"]));
  expect(filesHolding(dataDir, SECRET)).toEqual([]);
  if (database !== undefined) {
    const scan = await tablesHolding(database, SECRET);
    expect(scan.rows).toMatchObject({ operation_records: 3, operation_results: 3, protected_payloads: expect.any(Number) });
    expect(scan.rows.protected_payloads).toBeGreaterThan(0);
    expect(scan.holding).toEqual([]);
  }

  await stop(s.child);
  expect(filesHolding(dataDir, SECRET)).toEqual([]);
  if (database !== undefined) expect((await tablesHolding(database, SECRET)).holding).toEqual([]);

  let next = dataDir;
  if (database !== undefined) {
    // A host given another key cannot read the fleet's records: it refuses to start, naming the row, not its content.
    const wrong = spawnSluice(["serve", "--port", "0", "--gateway-port", "0"], serveEnv(path.join(work, "wrong"), database, keyFileOf(tempDir("sluice-wrong-key-"))));
    children.push(wrong);
    let err = "";
    wrong.stderr.on("data", (d: Buffer) => { err += d; });
    expect(await new Promise<number | null>((resolve) => wrong.once("exit", resolve))).not.toBe(0);
    expect(err).toMatch(/RECORD_UNREADABLE: records store: operation_records\.record of \S+ cannot be read: it is sealed under key [0-9a-f]{8}, this host's key is [0-9a-f]{8}; hosts sharing a database must share the key/);
    expect(err).not.toContain("4821");
    next = path.join(work, "second-host");
  }
  // Restarted (SQLite: the same folder and its digest.key; PostgreSQL: another host with the fleet's key): the sealed result opens, and resume returns it.
  s = await start(next, database, keyFile);
  expect((await call(`${s.api}/api/v1/bindings/broken`, { method: "DELETE" })).status).toBe(204);
  expect((await sluice(["publish", "--activate"], { SLUICE_URL: s.api, SLUICE_TOKEN: TOKEN })).code).toBe(0);
  const resumed = await call(`${s.api}/api/v1/operations/${id}/resume`, { body: {} });
  expect(resumed.status).toBe(200);
  expect(JSON.stringify(resumed.json.output)).toContain(`tool said: ${SECRET}`);
  // The streamed call resumes the same way: its after stage on its stored answer, the model not asked again.
  const resumedStream = await call(`${s.api}/api/v1/operations/${streamedId}/resume`, { body: {} });
  expect(resumedStream.status).toBe(200);
  expect(JSON.stringify(resumedStream.json.output)).toContain(`tool said: ${SECRET} (streamed)`);
  expect(upstream.chatCalls).toBe(3);
  for (const dir of [dataDir, next]) expect(filesHolding(dir, SECRET)).toEqual([]);
  if (database !== undefined) expect((await tablesHolding(database, SECRET)).holding).toEqual([]);
}

describe("sluice serve keeps no plaintext at rest", () => {
  it("SQLite: no file of the data folder holds a tool result's secret, while serving or after; resume after a restart reads it", async () => {
    await scenario(undefined);
  }, 120_000);

  it("PostgreSQL: no row of any table holds it either; another host with the fleet's key resumes it, one with another key refuses to start", async () => {
    await scenario(await testDatabaseUrl("sealed-serve"));
  }, 120_000);
});
