/** CLI conventions: --version, exit codes, --json, progress only on a terminal, table headers, serve's environment and --print-config. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { table } from "../../host/cli/output.js";
import { defaultMaxConnections, descriptorLimit } from "../../host/http/server-limits.js";
import { tempDir } from "../registry/fixtures.js";
import { serve, sluice, type Server } from "./run-cli.js";

const VERSION = (JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as { version: string }).version;
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

describe("sluice conventions", () => {
  it("prints its version", async () => {
    expect(await sluice(["--version"])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    expect((await sluice(["-V"])).stdout).toBe(`${VERSION}\n`);
  });

  it("ends usage errors with 2, refusals with 3, unknown names with 4, an unreachable server with 5", async () => {
    const unknownCommand = await sluice(["bogus"]);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toBe("error: unknown command 'bogus'\n(run with --help for usage)\n");
    expect((await sluice(["list", "--bogus"])).code).toBe(2);
    expect((await sluice(["bind", "x@1.0.0"])).code).toBe(2); // --point is required
    expect((await sluice(["build", tempDir(), "--optimize", "fast"])).stderr).toBe('error: --optimize must be speed or size, got "fast"\n');
    expect((await sluice(["build", tempDir()])).code).toBe(2);
    expect((await sluice(["bind", "x@1.0.0", "--point", "tool.before", "--config", "{oops"])).code).toBe(2);
    expect((await sluice(["serve", "--port", "70000"])).stderr).toBe('error: --port (SLUICE_PORT) must be an integer from 0 to 65535, got "70000"\n');
    expect((await sluice(["help"])).code).toBe(0);

    const s = await serve(tempDir());
    servers.push(s);
    expect((await sluice(["list", "--token", "wrong-token"], { SLUICE_URL: s.url })).code).toBe(3);
    expect((await sluice(["bind", "../x@1.0.0", "--point", "tool.before"], s.env)).code).toBe(3);
    expect((await sluice(["activate", "7"], s.env)).code).toBe(4);
    expect((await sluice(["operation", "no-such-operation"], s.env)).code).toBe(4);
    expect((await sluice(["list"], { SLUICE_URL: "http://127.0.0.1:9", SLUICE_TOKEN: "x" })).code).toBe(5);
  }, 60_000);

  it("prints data as JSON with --json, and tables with a header line", async () => {
    const s = await serve(tempDir());
    servers.push(s);
    expect(JSON.parse((await sluice(["list", "bindings", "--json"], s.env)).stdout)).toEqual({ items: [] });
    expect(JSON.parse((await sluice(["quarantine", "list", "--json"], s.env)).stdout)).toEqual([]);
    expect(JSON.parse((await sluice(["publish", "--json"], s.env)).stdout)).toMatchObject({ created: true, release: { revision: 1, bindings: [] }, active_revision: 0 });
    expect(JSON.parse((await sluice(["activate", "1", "--json"], s.env)).stdout)).toMatchObject({ activation: { revision: 1 } });
    await s.registry.host.tool({ spaceId: "s1" }, { toolId: "orders.search", name: "search", schema: { type: "object" }, arguments: {}, callId: "c1" }, async () => ({}));
    const [op] = await s.registry.host.records!.list();
    const lines = (await sluice(["operations"], s.env)).stdout.split("\n");
    expect(lines[0]).toBe(`${"OPERATION".padEnd(op!.operationId.length)}  KIND  PHASE     REAL STATUS  OUTCOME    REVISION`);
    expect(lines[1]).toBe(`${op!.operationId}  tool  finished  succeeded    succeeded  1`);
    expect(JSON.parse((await sluice(["operations", "--json"], s.env)).stdout)).toHaveLength(1);
  }, 60_000);

  it("lays tables out under their headers", () => {
    expect(table(["A", "LONG HEADER", "C"], [["wide cell", "x", "last"], ["y", "z", ""]])).toEqual([
      "A          LONG HEADER  C",
      "wide cell  x            last",
      "y          z",
    ]);
  });

  it("shows progress only when stderr is a terminal", async () => {
    const dir = path.join(tempDir(), "p");
    expect((await sluice(["new", "p", "--dir", dir])).code).toBe(0);
    const built = await sluice(["build", dir]);
    expect(built.code).toBe(0);
    expect(built.stderr).toBe("");
    expect(built.stdout).toMatch(/^built .*p\.wasm \(\d+ bytes, sha256 [0-9a-f]{64}\)\n$/);
  }, 60_000);
});

describe("sluice serve configuration", () => {
  it("takes every option from the environment, lets flags win, and prints the resolved configuration with secrets masked", async () => {
    const env = {
      SLUICE_DATA_DIR: "/srv/sluice", SLUICE_PORT: "9000", SLUICE_WORKERS: "3", SLUICE_UPSTREAM: "http://upstream.test/v1", SLUICE_UPSTREAM_API_KEY: "sk-upstream-secret-1234",
      SLUICE_TOKEN: "env-token-secret-abcdefghijklmnopqrstuvwxyz", SLUICE_LOG_LEVEL: "warn", SLUICE_ALLOWED_HOSTS: "a.example,b.example", SLUICE_PAYLOAD_STORE: "1",
      SLUICE_MAX_MODULE_MB: "8", SLUICE_GATEWAY_PORT: "9001", SLUICE_REQUEST_TIMEOUT_MS: "30000", SLUICE_MAX_CONNECTIONS: "5000",
      SLUICE_DATABASE_URL: "postgres://fleet:db-secret-pw@db.internal:5432/sluice?sslmode=require",
    };
    const r = await sluice(["serve", "--print-config", "--json", "--port", "9100", "--log-level", "debug"], env);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("secret");
    expect(JSON.parse(r.stdout)).toEqual({
      dataDir: "/srv/sluice", database: "postgres://fleet:***@db.internal:5432/sluice?sslmode=require", host: "127.0.0.1", port: 9100, token: "(set)", allowedHosts: ["a.example", "b.example"],
      limits: { requestTimeoutMs: 30000, headersTimeoutMs: 10000, keepAliveTimeoutMs: 5000, maxConnections: 5000 },
      resultRetentionMs: 86400000, payloadStore: true, payloadRetentionMs: 86400000, workers: 3, maxQueue: 10000, maxModuleBytes: 8 * 1024 * 1024,
      gateway: { upstream: "http://upstream.test/v1", port: 9001, timeoutMs: 60000, maxBytes: 16 * 1024 * 1024, apiKey: "(set)" },
      logLevel: "debug",
    });
    // Without one, the cap is what the descriptor limit holds: both servers full, and each
    // gateway connection with its upstream one, still within the limit.
    const defaults = JSON.parse((await sluice(["serve", "--print-config", "--json"], {})).stdout);
    expect(defaults.limits.maxConnections).toBe(defaultMaxConnections());
    expect(3 * defaults.limits.maxConnections).toBeLessThanOrEqual(descriptorLimit()!);
    expect(defaults.limits.maxConnections).toBeGreaterThan(0);
    // The executor's queue holds a task for every connection both servers accept: a request they admit is not refused QUEUE_FULL.
    expect(defaults.maxQueue).toBe(2 * defaultMaxConnections());
    expect(JSON.parse((await sluice(["serve", "--print-config", "--json", "--max-queue", "64"], {})).stdout).maxQueue).toBe(64);
    const text = await sluice(["serve", "--print-config"], {});
    expect(text.stdout.split("\n").slice(0, 5)).toEqual(['dataDir = ".sluice/data"', 'database = "(SQLite in <data-dir>)"', 'host = "127.0.0.1"', "port = 8787", 'token = "(generated into <data-dir>/api-token on start unless it exists)"']);
  });

  it("refuses a bad value naming the flag and its variable", async () => {
    expect((await sluice(["serve", "--print-config"], { SLUICE_WORKERS: "many" })).stderr).toBe('error: --workers (SLUICE_WORKERS) must be an integer from 1 to 256, got "many"\n');
    expect((await sluice(["serve", "--print-config"], { SLUICE_MAX_QUEUE: "-1" })).stderr).toBe('error: --max-queue (SLUICE_MAX_QUEUE) must be an integer from 0 to 2000000, got "-1"\n');
    expect((await sluice(["serve", "--print-config"], { SLUICE_LOG_LEVEL: "loud" })).stderr).toBe('error: --log-level (SLUICE_LOG_LEVEL) must be one of fatal, error, warn, info, debug, trace, silent, got "loud"\n');
    expect((await sluice(["serve", "--print-config", "--token-file", "/x"], { SLUICE_TOKEN: "t".repeat(40) })).stderr).toBe("error: give the token once: --token (or SLUICE_TOKEN) or --token-file (or SLUICE_TOKEN_FILE), not both\n");
    expect((await sluice(["serve", "--print-config", "--database", "mysql://u:hidden-pw@db/x"], {})).stderr).toBe('error: --database (SLUICE_DATABASE_URL) must be a postgres:// or postgresql:// URL, got "mysql://u:***@db/x"\n');
  });
});
