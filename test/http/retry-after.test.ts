/** retry-after on busy answers (host/http/retry-after.ts): the management API's, and an upstream's passed on. */
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { installErrorHandlers } from "../../host/api/errors.js";
import { SluiceError } from "../../host/errors/sluice-error.js";
import type { ErrorCode } from "../../host/errors/codes.js";
import { upstreamRetryAfter } from "../../host/http/retry-after.js";

describe("the management API's busy answers", () => {
  it("carry retry-after: 1 when the server was over a cap or a worker failed in passing, and none otherwise", async () => {
    const app = Fastify({ logger: false });
    installErrorHandlers(app);
    app.get("/fail/:code", async (request) => { throw new SluiceError((request.params as { code: ErrorCode }).code, "no"); });
    const answer = async (code: ErrorCode) => {
      const res = await app.inject({ url: `/fail/${code}` });
      return [code, res.statusCode, res.headers["retry-after"] ?? null];
    };
    const got = [];
    for (const code of ["QUEUE_FULL", "WORKER_CRASHED", "EXECUTOR_CLOSED", "STORE_UNAVAILABLE", "WORKER_RESTART_LIMITED", "PLUGIN_QUARANTINED", "REQUEST_INVALID"] as const) got.push(await answer(code));
    expect(got).toEqual([
      ["QUEUE_FULL", 503, "1"], ["WORKER_CRASHED", 503, "1"], ["EXECUTOR_CLOSED", 503, "1"],
      // A broken store, a spent restart budget or a quarantine is not over in a second.
      ["STORE_UNAVAILABLE", 503, null], ["WORKER_RESTART_LIMITED", 503, null], ["PLUGIN_QUARANTINED", 503, null],
      ["REQUEST_INVALID", 400, null],
    ]);
    await app.close();
  });
});

describe("an upstream's retry-after", () => {
  const now = Date.parse("2026-12-04T12:00:00Z");
  it("is read as seconds or an HTTP date, with OpenAI's retry-after-ms", () => {
    expect(upstreamRetryAfter({ "retry-after": "7", "retry-after-ms": "6500.5" }, now)).toEqual({ seconds: 7, ms: 6501 });
    expect(upstreamRetryAfter({ "retry-after": "Fri, 04 Dec 2026 12:00:30 GMT" }, now)).toEqual({ seconds: 30 });
    expect(upstreamRetryAfter({ "retry-after": " 0 " }, now)).toEqual({ seconds: 0 });
  });

  it("is dropped when it does not parse, is in the past, or is longer than an hour", () => {
    for (const value of ["soon", "-3", "1.5e3", "Fri, 04 Dec 2026 11:59:00 GMT", "3601", ""]) expect(upstreamRetryAfter({ "retry-after": value }, now), value).toEqual({});
    for (const value of ["-5", "later", "3600001", "1e3"]) expect(upstreamRetryAfter({ "retry-after-ms": value }, now), value).toEqual({});
  });
});
