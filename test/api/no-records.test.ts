/** A server whose host keeps no operation records: every route that reads them says so with CONFIG_INVALID, none answers an empty list. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../../host/api/server.js";
import { createHost, type Host } from "../../host/host.js";
import { Registry } from "../../host/registry/registry.js";
import { tempDir } from "../registry/fixtures.js";

const TOKEN = "no-records-token-0123456789abcdefghijklmn";
let host: Host;
let registry: Registry;
let app: Awaited<ReturnType<typeof createApiServer>>;

beforeAll(async () => {
  host = createHost({ workers: 1 });
  registry = await Registry.open({ dataDir: tempDir(), host });
  app = await createApiServer({ registry, token: TOKEN, logger: false });
});
afterAll(async () => { await app?.close(); await registry?.close(); await host?.close(); });

describe("a server without a records store", () => {
  it.each(["/api/v1/operations", "/api/v1/operations?outcome=hook_failed&from=0", "/api/v1/operations/op-1", "/api/v1/audit?from=0&to=10", "/api/v1/trends", "/api/v1/usage?from=0", "/api/v1/hook-figures?to=10"])("answers %s with CONFIG_INVALID naming the missing store", async (url) => {
    const res = await app.inject({ method: "GET", url, headers: { authorization: `Bearer ${TOKEN}` } });
    expect({ status: res.statusCode, code: res.json().error.code, message: res.json().error.message }).toEqual({
      status: 400, code: "CONFIG_INVALID", message: "this server's host keeps no operation records; start it with a records store",
    });
  });

  it.each(["/api/v1/operations?from=yesterday", "/api/v1/audit?from=yesterday", "/api/v1/trends?from=yesterday", "/api/v1/usage?from=yesterday", "/api/v1/hook-figures?from=yesterday"])("still refuses the bad range of %s by its name before looking for the store", async (url) => {
    const res = await app.inject({ method: "GET", url, headers: { authorization: `Bearer ${TOKEN}` } });
    expect({ status: res.statusCode, code: res.json().error.code, from: res.json().error.details?.from }).toEqual({ status: 400, code: "REQUEST_INVALID", from: "yesterday" });
  });
});
