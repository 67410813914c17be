/**
 * `sluice serve --database postgres://...` (and SLUICE_DATABASE_URL): the server keeps its
 * registry in the shared database; what one server publishes, another started on the same
 * URL with a data folder of its own serves on start. The password is never printed.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { pluginWasm } from "../helpers/fixtures.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { tempDir } from "../registry/fixtures.js";
import { spawnSluice, stop, TOKEN, waitFor } from "./run-cli.js";

const LIMIT_MANIFEST = readFileSync(new URL("../../plugins/order-search-limit/hook.yaml", import.meta.url), "utf8");
const children: ReturnType<typeof spawnSluice>[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map(stop));
});

async function start(env: Record<string, string>): Promise<{ url: string; output: string }> {
  const child = spawnSluice(["serve", "--port", "0", "--workers", "1"], { SLUICE_TOKEN: TOKEN, ...env });
  children.push(child);
  const output = await waitFor(child, /sluice listening on (http:\/\/\S+)/);
  return { url: /sluice listening on (http:\/\/\S+)/.exec(output)![1]!, output };
}

const api = async (url: string, method: string, route: string, body?: string) => {
  const res = await fetch(`${url}${route}`, { method, headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) }, ...(body !== undefined ? { body } : {}) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
  return json as Record<string, unknown>;
};

describe("sluice serve --database", () => {
  it("keeps the registry in PostgreSQL: a second server on the same URL serves what the first published, and neither prints the password", async () => {
    const database = await testDatabaseUrl("serve");
    const password = new URL(database).password;
    const first = await start({ SLUICE_DATA_DIR: tempDir(), SLUICE_DATABASE_URL: database });
    expect(first.output).toContain("database postgres://");
    expect(first.output).not.toContain(password);
    await api(first.url, "POST", "/api/v1/plugins", JSON.stringify({ manifest: LIMIT_MANIFEST, wasm_base64: Buffer.from(pluginWasm("order-search-limit")).toString("base64") }));
    await api(first.url, "POST", "/api/v1/bindings", JSON.stringify({ id: "orders-limit", hook_ref: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 100 } }));
    await api(first.url, "POST", "/api/v1/releases", JSON.stringify({ activate: true }));

    const second = await start({ SLUICE_DATA_DIR: tempDir(), SLUICE_DATABASE_URL: database });
    expect(second.output).toContain("active revision 1");
    expect(second.output).not.toContain(password);
    const releases = await api(second.url, "GET", "/api/v1/releases");
    expect(JSON.stringify(releases)).toContain("orders-limit");
  });

  it("refuses to start when the database cannot be reached, with STORE_UNAVAILABLE and without the password", async () => {
    const child = spawnSluice(["serve", "--port", "0", "--database", "postgres://u:unreachable-pw@127.0.0.1:1/none"], { SLUICE_TOKEN: TOKEN, SLUICE_DATA_DIR: tempDir() });
    children.push(child);
    let err = "";
    child.stderr.on("data", (d: Buffer) => { err += d; });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(err).toContain("STORE_UNAVAILABLE");
    expect(err).not.toContain("unreachable-pw");
  });
});
