/**
 * A request whose client goes away before its answer is out has an access line of its own
 * ("request aborted", its time, no status): Fastify writes "request completed" only on the
 * answer's finish, so such a request had none and the load it made was invisible.
 */
import { Writable } from "node:stream";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logOptions } from "../../host/api/log-options.js";
import { startGateway, type GatewayUnderTest } from "./setup.js";
import { until } from "../helpers/until.js";

let gw: GatewayUnderTest;
const lines: Record<string, unknown>[] = [];
beforeAll(async () => {
  const stream = new Writable({ write(chunk: Buffer, _enc, done) { for (const l of chunk.toString("utf8").split("\n")) if (l) lines.push(JSON.parse(l) as Record<string, unknown>); done(); } });
  gw = await startGateway({ timeoutMs: 5_000, logger: logOptions("info", stream) });
  gw.bind([]);
});
afterAll(() => gw.close());

/** A request the client drops after `ms` (before any answer); resolves once it is dropped. */
function dropped(body: Record<string, unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const req = request(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${gw.key.key}`, "content-type": "application/json" } });
    req.on("error", () => resolve());
    req.end(JSON.stringify(body));
    setTimeout(() => { req.destroy(); resolve(); }, ms);
  });
}


describe("a request whose client goes away", () => {
  it("gets one access line, 'request aborted', with its time and no status, streamed or not", async () => {
    await dropped({ model: "m1", messages: [{ role: "user", content: "[hang] plain" }] }, 200);
    await dropped({ model: "m1", stream: true, messages: [{ role: "user", content: "[stall] streamed" }] }, 200);
    await until(() => lines.filter((l) => l.msg === "request aborted").length === 2);
    const aborted = lines.filter((l) => l.msg === "request aborted");
    expect(aborted).toHaveLength(2);
    for (const l of aborted) {
      expect(l).toMatchObject({ level: 30, aborted: true, req: { method: "POST", url: "/v1/chat/completions", remoteAddress: "127.0.0.1" }, reqId: expect.any(String) });
      expect(l.responseTime).toBeGreaterThanOrEqual(150);
      expect(l.res).toBeUndefined();
    }
    // Neither also has a completion line.
    const ids = aborted.map((l) => l.reqId);
    expect(lines.filter((l) => l.msg === "request completed" && ids.includes(l.reqId))).toEqual([]);
  });

  it("an answered request has its completion line and no aborted one", async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${gw.key.key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "m1", messages: [{ role: "user", content: "hello" }] }) });
    expect(res.status).toBe(200);
    const id = res.headers.get("x-request-id");
    await until(() => lines.some((l) => l.reqId === id && l.msg === "request completed"));
    expect(lines.filter((l) => l.reqId === id).map((l) => l.msg)).toEqual(["request completed"]);
  });
});
