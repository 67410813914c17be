/**
 * The servers' access log (host/http/access-log.ts): one line per request, written once the
 * answer is out, with what an operator needs to read it; the arrival line only at debug.
 */
import { PassThrough } from "node:stream";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { logOptions, type LogLevel } from "../../host/api/log-options.js";
import { resolveServerLimits, serverOptions } from "../../host/http/server-limits.js";

async function logged(level: LogLevel): Promise<Record<string, unknown>[]> {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (d: Buffer) => { text += d; });
  const app = Fastify({ logger: logOptions(level, stream) as Record<string, unknown>, ...serverOptions(resolveServerLimits()) });
  app.get("/ok", async () => ({ ok: true }));
  app.post("/fails", async () => { throw Object.assign(new Error("no"), { statusCode: 409 }); });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  expect((await fetch(`${base}/ok?token=query-SECRET`)).status).toBe(200);
  expect((await fetch(`${base}/fails`, { method: "POST" })).status).toBe(409);
  await app.close();
  return text.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("the access log", () => {
  it("writes one line per request at info, after the answer: method, path without query, address, status, time", async () => {
    const lines = await logged("info");
    const requests = lines.filter((l) => l.reqId !== undefined && l.req !== undefined);
    expect(requests.map((l) => [l.msg, (l.req as { method: string }).method, (l.req as { url: string }).url, (l.res as { statusCode: number }).statusCode])).toEqual([
      ["request completed", "GET", "/ok", 200],
      ["request completed", "POST", "/fails", 409],
    ]);
    for (const l of requests) expect(l).toMatchObject({ level: 30, req: { remoteAddress: "127.0.0.1" }, responseTime: expect.any(Number) });
    expect(lines.some((l) => l.msg === "incoming request")).toBe(false);
    expect(JSON.stringify(lines)).not.toContain("query-SECRET");
  });

  it("adds each request's arrival at debug, with the same request id", async () => {
    const lines = await logged("debug");
    const arrivals = lines.filter((l) => l.msg === "incoming request");
    const completions = lines.filter((l) => l.msg === "request completed");
    expect(arrivals).toHaveLength(2);
    expect(arrivals.map((l) => l.reqId)).toEqual(completions.map((l) => l.reqId));
    expect(arrivals[0]).toMatchObject({ level: 20, req: { method: "GET", url: "/ok", remoteAddress: "127.0.0.1" } });
  });
});
