/**
 * `sluice serve --database` through an outage of its database: the server's connections
 * are ended and new ones refused for a while (a restart, a failover), then the database
 * comes back. The process stays up; every gateway request during the outage is answered
 * (a 503 a client can retry, nothing reset, nothing hanging); a stream already sent upstream
 * is answered whole, and if its record could not be finished the log names it; readiness
 * says so; and once the database is back the same process serves again, without a restart.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { spawnSluice, stop, waitFor } from "../cli/run-cli.js";
import { startStubUpstream, type StubUpstream } from "../gateway/upstream-stub.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { until } from "../helpers/until.js";
import { tempDir } from "../registry/fixtures.js";

const TOKEN = "outage-token-0123456789abcdefghijklmnopq";
let stub: StubUpstream;
let child: ReturnType<typeof spawnSluice>;
let admin: pg.Client;
let name = "";
let api = "";
let gateway = "";
let key = "";
let log = "";

beforeAll(async () => {
  stub = await startStubUpstream();
  const url = await testDatabaseUrl("outage");
  name = new URL(url).pathname.slice(1);
  admin = new pg.Client({ connectionString: inject("postgresUrl") });
  await admin.connect();
  const work = tempDir("sluice-outage-");
  child = spawnSluice(["serve", "--port", "0", "--gateway-port", "0", "--workers", "1"], {
    SLUICE_DATA_DIR: path.join(work, "data"), SLUICE_TOKEN: TOKEN, SLUICE_DATABASE_URL: url, SLUICE_UPSTREAM: `${stub.url}/v1`, SLUICE_LOG_LEVEL: "warn",
  }, work);
  child.stderr.on("data", (d: Buffer) => { log += d; });
  const out = await waitFor(child, /sluice listening on \S+/);
  api = /sluice listening on (\S+)/.exec(out)![1]!;
  gateway = /gateway listening on (\S+)\/v1/.exec(out)![1]!;
  const res = await post("/gateway/keys", { space_id: "acme" });
  key = ((await res.json()) as { key: string }).key;
  const plugins = new URL("../../", import.meta.url);
  expect((await post("/plugins", { manifest: readFileSync(new URL("plugins/pii-redact/hook.yaml", plugins), "utf8"), wasm_base64: readFileSync(new URL("build/plugins/pii-redact.wasm", plugins)).toString("base64") })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await admin?.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`).catch(() => undefined);
  await admin?.end();
  if (child) await stop(child);
  await stub?.close();
});

const post = (p: string, body: unknown) => fetch(`${api}/api/v1${p}`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(15_000) });

async function chat(i: number): Promise<string> {
  try {
    const res = await fetch(`${gateway}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: `call ${i}` }] }), signal: AbortSignal.timeout(15_000) });
    const body = await res.json() as { choices?: { message: { content: string } }[]; error?: { sluice_code?: string } };
    return res.status === 200 ? `200 ${body.choices![0]!.message.content === `You said: call ${i}`}` : `${res.status} ${body.error?.sluice_code}`;
  } catch (e) {
    return `failed: ${(e as Error).name}`;
  }
}

/** A streamed call: its text, how it ended (done, an error event, an HTTP error, a failed connection) and its operation id. */
async function stream(i: number): Promise<{ text: string; end: string; operationId?: string }> {
  let text = "";
  try {
    const res = await fetch(`${gateway}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: `[slow] stream ${i}` }] }), signal: AbortSignal.timeout(15_000) });
    if (res.status !== 200) return { text, end: `${res.status} ${((await res.json()) as { error: { sluice_code?: string } }).error.sluice_code}` };
    const operationId = res.headers.get("x-sluice-operation-id") ?? "none";
    let end = "no [DONE]";
    for (const event of (await res.text()).split("\n\n")) {
      if (event === "data: [DONE]") end = "done";
      else if (event.startsWith("data: {")) {
        const data = JSON.parse(event.slice(6)) as { choices?: { delta: { content?: string } }[]; error?: { sluice_code?: string } };
        if (data.error) end = `error event ${data.error.sluice_code}`;
        text += data.choices?.[0]?.delta.content ?? "";
      }
    }
    return { text, end, operationId };
  } catch (e) {
    return { text, end: `failed: ${(e as Error).name}` };
  }
}

describe("sluice serve through an outage of its PostgreSQL database", () => {
  it("stays up, answers every new request during it with a 503 and every stream under way whole, and serves again once the database is back", async () => {
    expect(new Set(await Promise.all(Array.from({ length: 10 }, (_, i) => chat(i))))).toEqual(new Set(["200 true"]));

    // The cut lands while calls and registry writes (each a transaction) are in flight: their
    // statements are ended under them. Each is answered: done before the cut, or 503.
    // Streams whose call is under way when the cut lands: each was recorded "running" and sent
    // upstream, which answers 150 ms after it is asked.
    const asked = stub.chatCalls;
    const streams = Array.from({ length: 10 }, (_, i) => stream(i));
    expect(await until(() => stub.chatCalls >= asked + 10)).toBe(true);
    const inFlight = Array.from({ length: 40 }, (_, i) => chat(50 + i));
    const writes = Array.from({ length: 20 }, (_, i) => post("/bindings", { id: `during-${i}`, hook_ref: "pii-redact@1.0.0", point: "model.chat.after" })
      .then(async (r) => ({ id: `during-${i}`, status: r.status, code: r.status === 201 ? undefined : ((await r.json()) as { error: { code: string } }).error.code }), (e: Error) => ({ id: `during-${i}`, status: 0, code: e.name })));
    await new Promise((r) => setTimeout(r, 5));
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
    const crossing = await Promise.all(inFlight);
    // A stream whose call was made before the cut is answered whole: the model was paid for.
    const streamed = await Promise.all(streams);
    expect(streamed.map((s) => [s.text, s.end]), log.slice(-2000)).toEqual(streamed.map((_, i) => [`You said: [slow] stream ${i}`, "done"]));
    const written = await Promise.all(writes);
    // A process that died would show here as failed fetches: its last lines say why.
    expect(crossing.filter((a) => a !== "200 true" && a !== "503 STORE_UNAVAILABLE"), `${crossing.join(", ")}\n${log.slice(-2000)}`).toEqual([]);
    // A write whose COMMIT was under way when its connection ended cannot know its fate: it says so (STORE_COMMIT_UNKNOWN), never that nothing was written.
    expect(written.filter((w) => w.status !== 201 && !(w.status === 503 && (w.code === "STORE_UNAVAILABLE" || w.code === "STORE_COMMIT_UNKNOWN" || w.code === "CONTROL_AUDIT_UNWRITTEN"))), JSON.stringify(written)).toEqual([]);
    const during = await Promise.all(Array.from({ length: 10 }, (_, i) => chat(100 + i)));
    expect(during.filter((a) => a !== "503 STORE_UNAVAILABLE"), during.join(", ")).toEqual([]);
    expect((await fetch(`${gateway}/readyz`)).status).toBe(503);
    expect(child.exitCode).toBeNull();

    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    expect(await until(async () => (await fetch(`${gateway}/readyz`)).status === 200)).toBe(true);
    expect(new Set(await Promise.all(Array.from({ length: 10 }, (_, i) => chat(200 + i))))).toEqual(new Set(["200 true"]));
    // Each of those streams has its ending on record, or (written during the outage) the log names it.
    for (const s of streamed) {
      const record = await (await fetch(`${api}/api/v1/operations/${s.operationId}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json() as { phase: string };
      if (record.phase !== "finished") expect(log).toContain(`"event":"record.unfinished","operationId":"${s.operationId}","errorCode":"STORE_UNAVAILABLE"`);
    }
    expect(log.split("record.unfinished").length - 1).toBeGreaterThan(0);
    // What was acknowledged is stored; what was refused as STORE_UNAVAILABLE is not.
    const listed = await (await fetch(`${api}/api/v1/bindings`, { headers: { authorization: `Bearer ${TOKEN}` } })).json() as { items?: { id: string }[] } | { id: string }[];
    const ids = new Set((Array.isArray(listed) ? listed : listed.items ?? []).map((b) => b.id).filter((id) => id.startsWith("during-")));
    expect(written.filter((w) => w.status === 201 && !ids.has(w.id)), JSON.stringify(written)).toEqual([]);
    expect(written.filter((w) => w.code === "STORE_UNAVAILABLE" && ids.has(w.id)), JSON.stringify(written)).toEqual([]);
    // The binding was stored and only its control-audit entry failed: the answer says the change stands.
    expect(written.filter((w) => w.code === "CONTROL_AUDIT_UNWRITTEN" && !ids.has(w.id)), JSON.stringify(written)).toEqual([]);
    expect(child.exitCode).toBeNull();
    expect(log).not.toMatch(/uncaught|"level":60/i);
  }, 60_000);
});
