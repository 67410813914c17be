import { spawnSync } from "node:child_process";
import { describe, expect, inject, it } from "vitest";
import pg from "pg";
import { testDatabaseUrl } from "../helpers/postgres.js";

describe("the test run's PostgreSQL server", () => {
  it("is a real PostgreSQL 18 on loopback, started from the npm package rather than the machine's PATH", async () => {
    const url = new URL(inject("postgresUrl"));
    expect(url.hostname).toBe("127.0.0.1");
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
      expect(Number(rows[0]!.v)).toBeGreaterThanOrEqual(180000);
    } finally {
      await client.end();
    }
  });

  it("gives each caller a database of its own, so tables made by one file are not seen by another", async () => {
    const [a, b] = await Promise.all([testDatabaseUrl("server-a"), testDatabaseUrl("server-b")]);
    expect(a).not.toBe(b);
    const ca = new pg.Client({ connectionString: a });
    const cb = new pg.Client({ connectionString: b });
    await Promise.all([ca.connect(), cb.connect()]);
    try {
      await ca.query("CREATE TABLE only_here (x int)");
      const seen = await cb.query("SELECT to_regclass('only_here') AS t");
      expect(seen.rows[0].t).toBeNull();
    } finally {
      await Promise.all([ca.end(), cb.end()]);
    }
  });

  it("runs its server processes as an unprivileged user (PostgreSQL refuses root, and CI runs as root)", () => {
    const ps = spawnSync("ps", ["-o", "user=,args=", "-C", "postgres"], { encoding: "utf8" });
    const lines = ps.stdout.split("\n").filter((l) => l.trim());
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.split(/\s+/)[0]).not.toBe("root");
  });
});
