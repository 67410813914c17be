/**
 * Readiness follows the shared database for real (host/http/probes.ts): a host whose
 * PostgreSQL database stops taking connections answers GET /readyz 503 while its liveness
 * stays 200, and is ready again once the database is back. Only this file's own database
 * is cut (ALLOW_CONNECTIONS false and its sessions ended), not the run's server.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { startApiServer } from "../../host/api/server.js";
import { Registry } from "../../host/registry/registry.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { until } from "../helpers/until.js";
import { tempDir } from "../registry/fixtures.js";

const TOKEN = "readiness-token-0123456789abcdefghijklmn";
let registry: Registry;
let server: Awaited<ReturnType<typeof startApiServer>>;
let admin: pg.Client;
let name = "";

beforeAll(async () => {
  const url = await testDatabaseUrl("ready");
  name = new URL(url).pathname.slice(1);
  registry = await Registry.open({ dataDir: tempDir(), database: url, hostOptions: { workers: 1 } });
  server = await startApiServer({ registry, token: TOKEN, port: 0, logger: false });
  admin = new pg.Client({ connectionString: inject("postgresUrl") });
  await admin.connect();
});

afterAll(async () => {
  await admin?.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`).catch(() => undefined);
  await admin?.end();
  await server?.close();
  await registry?.close().catch(() => undefined);
});

const status = async (path: string) => {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, body: await res.json() as unknown };
};

describe("readiness on a shared PostgreSQL database", () => {
  it("is 503 while the database refuses connections, liveness stays 200, and ready again once it is back", async () => {
    expect(await status("/readyz")).toEqual({ status: 200, body: { status: "ready" } });
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
    expect(await status("/readyz")).toEqual({ status: 503, body: { status: "not_ready", reason: "store_unavailable" } });
    expect(await status("/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    await until(async () => (await status("/readyz")).status === 200);
  });
});
