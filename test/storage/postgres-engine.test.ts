import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { deferredPostgresStores } from "../../host/registry/postgres-stores.js";
import { openPostgres, redactDatabaseUrl, type PostgresEngine } from "../../host/storage/postgres.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { until } from "../helpers/until.js";


describe("the PostgreSQL engine", () => {
  let url: string;
  let a: PostgresEngine;
  let b: PostgresEngine;
  beforeAll(async () => {
    url = await testDatabaseUrl("engine");
    [a, b] = await Promise.all([openPostgres(url, { applicationName: "host-a" }), openPostgres(url, { applicationName: "host-b" })]);
    await a.query("CREATE TABLE counter (n int NOT NULL)");
    await a.query("INSERT INTO counter VALUES (0)");
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it("retries a serializable transaction PostgreSQL aborted, so concurrent read-then-write increments from two pools all land", async () => {
    const increment = (e: PostgresEngine) => e.transaction(async (sql) => {
      const { rows } = await sql.query<{ n: number }>("SELECT n FROM counter");
      await sql.query("UPDATE counter SET n = $1", [rows[0]!.n + 1]);
    });
    await Promise.all(Array.from({ length: 40 }, (_, i) => increment(i % 2 ? a : b)));
    const { rows } = await a.query<{ n: number }>("SELECT n FROM counter");
    expect(rows[0]!.n).toBe(40);
  });

  it("rolls back a transaction whose body throws, and rethrows the error", async () => {
    const before = (await a.query<{ n: number }>("SELECT n FROM counter")).rows[0]!.n;
    await expect(a.transaction(async (sql) => {
      await sql.query("UPDATE counter SET n = n + 100");
      throw new Error("refused");
    })).rejects.toThrow("refused");
    expect((await a.query<{ n: number }>("SELECT n FROM counter")).rows[0]!.n).toBe(before);
  });

  it("delivers a NOTIFY from one engine to a listener on another, and not after unsubscribing", async () => {
    const got: string[] = [];
    const stop = await b.listen("sluice_test", (p) => got.push(p));
    await a.notify("sluice_test", "one");
    expect(await until(() => got.length === 1)).toBe(true);
    expect(got).toEqual(["one"]);
    await stop();
    // One sender's notifications arrive in the order sent: once the marker sent after "two"
    // is heard on the same listening connection, "two" would have been heard before it.
    const markers: string[] = [];
    const stopMarker = await b.listen("sluice_test_marker", (p) => markers.push(p));
    await a.notify("sluice_test", "two");
    await a.notify("sluice_test_marker", "after two");
    expect(await until(() => markers.length === 1)).toBe(true);
    await stopMarker();
    expect(got).toEqual(["one"]);
  });

  it("delivers a NOTIFY sent inside a transaction only when it commits", async () => {
    const got: string[] = [];
    const stop = await b.listen("sluice_tx", (p) => got.push(p));
    await expect(a.transaction(async (sql) => {
      await a.notify("sluice_tx", "rolled-back", sql);
      throw new Error("abort");
    })).rejects.toThrow("abort");
    await a.transaction((sql) => a.notify("sluice_tx", "committed", sql));
    // The rolled-back notification was sent first: had it been delivered, it would be heard before this one.
    expect(await until(() => got.length >= 1)).toBe(true);
    expect(got).toEqual(["committed"]);
    await stop();
  });

  it("reconnects its listening connection when the server drops it, tells the subscriber, and delivers again", async () => {
    const got: string[] = [];
    let reconnects = 0;
    const stop = await b.listen("sluice_drop", { onNotify: (p) => got.push(p), onReconnect: () => reconnects++ });
    await a.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'host-b:listen'");
    expect(await until(() => reconnects === 1)).toBe(true);
    await a.notify("sluice_drop", "after");
    expect(await until(() => got.includes("after"))).toBe(true);
    await stop();
  });

  it("refuses an unreachable database with STORE_UNAVAILABLE, naming the URL without its password", async () => {
    const err = await openPostgres("postgres://me:s3cret-pw@127.0.0.1:1/nowhere").catch((e: unknown) => e);
    expect(isSluiceError(err, "STORE_UNAVAILABLE")).toBe(true);
    expect((err as Error).message).toContain("127.0.0.1:1/nowhere");
    expect((err as Error).message).not.toContain("s3cret-pw");
  });

  it("refuses a URL that is not postgres:// with CONFIG_INVALID", async () => {
    const err = await openPostgres("mysql://me:pw@127.0.0.1/db").catch((e: unknown) => e);
    expect(isSluiceError(err, "CONFIG_INVALID")).toBe(true);
    expect((err as Error).message).not.toContain(":pw@");
  });

  it("opens deferred: stores answer their first call once the database is connected and migrated", async () => {
    const shared = deferredPostgresStores(await testDatabaseUrl("deferred"));
    try {
      await shared.gatewayKeys.insert({ id: "k1", spaceId: "s", name: null, prefix: "sk-x", createdAt: "2026-01-01T00:00:00.000Z", revokedAt: null, scope: "gateway" }, "a".repeat(64));
      expect((await shared.gatewayKeys.byHash("a".repeat(64)))?.id).toBe("k1");
    } finally {
      await shared.close();
    }
  });

  it("opens deferred on an unreachable database: each call fails STORE_UNAVAILABLE without the password", async () => {
    const shared = deferredPostgresStores("postgres://me:deferred-pw@127.0.0.1:1/none");
    try {
      for (let i = 0; i < 2; i++) {
        const err = await shared.quarantine.list(Date.now()).catch((e: unknown) => e);
        expect(isSluiceError(err, "STORE_UNAVAILABLE")).toBe(true);
        expect((err as Error).message).not.toContain("deferred-pw");
      }
    } finally {
      await shared.close();
    }
  });

  it("survives the server ending a connection in the middle of a transaction: the transaction fails, the process and the pool go on", async () => {
    // A checked-out client has no listener of the pool's: before, the server's "terminating
    // connection" (a restart, a failover, an operator) was an uncaught 'error' that ended the
    // process (vitest reports it as an unhandled error and fails the run).
    const admin = await openPostgres(url, { applicationName: "admin" });
    try {
      const outcome = await a.transaction(async (sql) => {
        const { rows } = await sql.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
        await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
        // The termination reaches this client while it is checked out, between two statements.
        await new Promise((r) => setTimeout(r, 300));
        await sql.query("SELECT 1");
      }).then(() => "committed", (e: unknown) => (e as Error).message);
      expect(outcome).toMatch(/terminat|connection error/i);
      expect((await a.query<{ x: number }>("SELECT 1 AS x")).rows[0]!.x).toBe(1);
      expect(await a.transaction(async (sql) => (await sql.query<{ x: number }>("SELECT 2 AS x")).rows[0]!.x)).toBe(2);
    } finally {
      await admin.close();
    }
  });

  it("answers STORE_COMMIT_UNKNOWN, not STORE_UNAVAILABLE, when the connection is lost while COMMIT runs, and a failure before COMMIT stays a plain failure", async () => {
    // A deferred constraint trigger holds COMMIT open long enough to end the backend under it.
    await a.query("CREATE TABLE slow_commit (id int PRIMARY KEY)");
    await a.query("CREATE FUNCTION slow_commit_check() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(2); RETURN NULL; END $$");
    await a.query("CREATE CONSTRAINT TRIGGER slow_commit_check AFTER INSERT ON slow_commit DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit_check()");
    const admin = await openPostgres(url, { applicationName: "admin" });
    try {
      let pid = 0;
      const write = a.transaction(async (sql) => {
        pid = (await sql.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
        await sql.query("INSERT INTO slow_commit VALUES (1)");
      }).then(() => null, (e: unknown) => e);
      expect(await until(async () => pid !== 0 && (await admin.query<{ query: string }>("SELECT query FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", [pid])).rows[0]?.query === "COMMIT")).toBe(true);
      await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      const error = await write;
      expect(isSluiceError(error) && error.code).toBe("STORE_COMMIT_UNKNOWN");
      expect((error as Error).message).toContain("may or may not be stored");

      const before = await a.transaction(async (sql) => {
        const own = (await sql.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
        await admin.query("SELECT pg_terminate_backend($1)", [own]);
        await new Promise((r) => setTimeout(r, 300));
        await sql.query("INSERT INTO slow_commit VALUES (2)");
      }).then(() => null, (e: unknown) => e);
      expect(before).toBeInstanceOf(Error);
      expect((before as { code?: unknown }).code).not.toBe("STORE_COMMIT_UNKNOWN");
      expect((await a.query("SELECT 1 FROM slow_commit WHERE id = 2")).rowCount).toBe(0);
    } finally {
      await admin.close();
    }
  });

  it("redacts the password of a database URL, in the authority and in the query string", () => {
    expect(redactDatabaseUrl("postgres://u:hunter2@db:5432/x?sslmode=require&password=hunter3")).toBe("postgres://u:***@db:5432/x?sslmode=require&password=***");
    expect(redactDatabaseUrl("postgres://db/x")).toBe("postgres://db/x");
  });
});
