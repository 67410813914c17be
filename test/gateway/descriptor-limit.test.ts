/**
 * `sluice serve` under a low file-descriptor limit (a container or a unit with `ulimit -n
 * 1024`). The default connection cap is what the limit holds (server-limits.ts
 * `connectionsWithin`), so the connections past it are answered 503 CONNECTIONS_FULL with
 * retry-after and every admitted request reaches the upstream. With the old floor of 10,000
 * a burst of 1,500 streams got 532 resets (once accept fails with EMFILE, libuv resets what
 * waits to be accepted) and 968 answers 502 ("the upstream could not be reached": connect
 * EMFILE). A cap set above what the limit holds is warned about at start, and a request that
 * finds no descriptor left for its upstream connection is answered 503 CONNECTIONS_FULL,
 * which clients retry, not 502.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { request, type ClientRequest } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../registry/fixtures.js";
import { cleanEnv, MAIN, stop, waitFor } from "../cli/run-cli.js";
import { answerOf, startStubUpstream, type StubUpstream } from "./upstream-stub.js";
import { connectionsWithin, descriptorLimit } from "../../host/http/server-limits.js";
import { until } from "../helpers/until.js";

const TOKEN = "descriptor-test-token-0123456789abcdefgh";
const LIMIT = 1024;
const CAP = connectionsWithin(LIMIT);
/** More than the limit holds at once with an upstream connection each (2 × 600 > 1,024). */
const HELD = 600;
let stub: StubUpstream;
beforeAll(async () => {
  // This process holds the clients' sockets and the stub's: it needs a limit above the server's.
  expect(descriptorLimit(), "the test process needs an open-file limit of at least 4,096 (ulimit -n)").toBeGreaterThanOrEqual(4096);
  stub = await startStubUpstream();
});
afterAll(async () => { await stub?.close(); });

/** `sluice serve` with its open-file limit set to LIMIT (soft and hard, as a container or a systemd unit would). */
async function serveLimited(args: string[] = []): Promise<{ child: ChildProcessWithoutNullStreams; gateway: string; key: string; warnings: () => Record<string, unknown>[]; stderr: () => string }> {
  const work = tempDir("sluice-fds-");
  const child = spawn("sh", ["-c", `ulimit -n ${LIMIT} && exec "$0" "$@"`, process.execPath, MAIN, "serve", "--port", "0", "--gateway-port", "0", ...args], {
    env: cleanEnv({ SLUICE_DATA_DIR: path.join(work, "data"), SLUICE_TOKEN: TOKEN, SLUICE_UPSTREAM: `${stub.url}/v1` }), stdio: "pipe",
  }) as ChildProcessWithoutNullStreams;
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => { stderr += d; });
  const out = await waitFor(child, /gateway listening on \S+[\s\S]*sluice listening on \S+/);
  const api = /sluice listening on (\S+)/.exec(out)![1]!;
  const gateway = /gateway listening on (\S+)\/v1/.exec(out)![1]!;
  const res = await fetch(`${api}/api/v1/gateway/keys`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ space_id: "acme" }) });
  const warnings = () => stderr.split("\n").filter((l) => l.includes('"connections.limited"')).map((l) => JSON.parse(l) as Record<string, unknown>);
  return { child, gateway, key: ((await res.json()) as { key: string }).key, warnings, stderr: () => stderr };
}

type Outcome = { status: number; retryAfter: string | null; code?: string; text: string } | { error: string };

/** One client on a connection of its own (streamed when `i` is even); `sent` gets the request, to abort it. */
function ask(gateway: string, key: string, i: number, content: string, sent?: (req: ClientRequest) => void): Promise<Outcome> {
  const stream = i % 2 === 0;
  const body = JSON.stringify({ model: "m1", stream, messages: [{ role: "user", content }] });
  return new Promise((resolve) => {
    const req = request(`${gateway}/v1/chat/completions`, { method: "POST", agent: false, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } }, (res) => {
      let raw = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => { raw += c; });
      res.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        if (status !== 200) return resolve({ status, retryAfter: res.headers["retry-after"] ?? null, code: (JSON.parse(raw) as { error?: { sluice_code?: string } }).error?.sluice_code, text: "" });
        // A stream's text is its deltas joined; a plain answer's is its message.
        const text = stream
          ? raw.split("\n\n").filter((e) => e.startsWith("data: {")).map((e) => (JSON.parse(e.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? "").join("")
          : (JSON.parse(raw) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
        resolve({ status, retryAfter: null, text: text === answerOf(content) ? "right" : `wrong: ${text}` });
      });
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    sent?.(req);
    req.end(body);
  });
}

const kind = (o: Outcome): string => ("error" in o ? `socket ${o.error}` : o.status === 200 ? `200 ${o.text}` : `${o.status} ${o.code} retry-after ${o.retryAfter}`);

/** Opens HELD requests the upstream never answers; resolves once all but `stay` have their answer (or after `waitMs`), with those answers and the requests. */
async function holdMany(gateway: string, key: string, stay: number, waitMs = 20_000): Promise<{ answered: string[]; requests: ClientRequest[]; all: Promise<string[]> }> {
  const requests: ClientRequest[] = [];
  const answered: string[] = [];
  const all = Promise.all(Array.from({ length: HELD }, (_, i) => ask(gateway, key, i, `[hang] held ${i}`, (r) => requests.push(r)).then((o) => {
    answered.push(kind(o));
    return kind(o);
  })));
  await until(() => answered.length >= HELD - stay, waitMs);
  return { answered, requests, all };
}

describe("sluice serve under a file-descriptor limit of 1,024", () => {
  it("holds as many connections as the limit allows and answers the rest 503 with retry-after: no reset, no 502", async () => {
    const s = await serveLimited();
    try {
      // Said once at start, with the cap it chose and the limit it read.
      expect(s.warnings()).toEqual([expect.objectContaining({ level: 40, maxConnections: CAP, descriptorLimit: LIMIT, connectionsWithinLimit: CAP })]);
      expect(CAP).toBe(192);
      // 600 requests the upstream never answers: the cap's worth are admitted and wait on
      // their upstream connection; every other one is answered at once.
      const held = await holdMany(s.gateway, s.key, CAP);
      expect(held.answered).toEqual(Array.from({ length: HELD - CAP }, () => "503 CONNECTIONS_FULL retry-after 1"));
      // Full: a new client is told to come back, not reset.
      expect(kind(await ask(s.gateway, s.key, 1, "hello"))).toBe("503 CONNECTIONS_FULL retry-after 1");
      // The waiting clients give up; their connections (and the upstream's) are let go.
      for (const r of held.requests) r.destroy();
      await held.all;
      let after = "";
      let tries = 0;
      await until(async () => { after = kind(await ask(s.gateway, s.key, tries, `after ${tries++}`)); return after === "200 right"; }, 5_000);
      expect(after, `exit ${s.child.exitCode} ${s.child.signalCode}: ${s.stderr().split("\n").filter((l) => !l.includes("\"level\":30")).slice(-60).join("\n")}`).toBe("200 right");
    } finally {
      await stop(s.child);
    }
  }, 120_000);

  it("does not warn a management API without a gateway (sluice dev) about a cap it will not need", async () => {
    const work = tempDir("sluice-fds-api-");
    const child = spawn("sh", ["-c", `ulimit -n ${LIMIT} && exec "$0" "$@"`, process.execPath, MAIN, "serve", "--port", "0"], {
      env: cleanEnv({ SLUICE_DATA_DIR: path.join(work, "data"), SLUICE_TOKEN: TOKEN }), stdio: "pipe",
    }) as ChildProcessWithoutNullStreams;
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => { stderr += d; });
    try {
      await waitFor(child, /sluice listening on \S+/);
      // Its log line, written before the line above, may be read after it.
      await until(() => stderr.includes('"event":"api.listening"'), 2_000);
      expect(stderr).toContain('"event":"api.listening"');
      expect(stderr).not.toContain("connections.limited");
    } finally {
      await stop(child);
    }
  }, 60_000);

  it("warns at start when --max-connections is more than the limit holds; a request left without a descriptor for its upstream gets 503, not 502", async () => {
    const s = await serveLimited(["--max-connections", "5000"]);
    try {
      const [warning] = s.warnings();
      expect(warning).toMatchObject({ level: 40, maxConnections: 5000, descriptorLimit: LIMIT, connectionsWithinLimit: CAP });
      expect(warning!.msg).toContain("--max-connections 5000");
      // All 600 admitted, each wanting an upstream connection: past the limit some cannot have
      // one (and, as the warning said, some connections are reset). Every request answered
      // is answered 503 CONNECTIONS_FULL with retry-after.
      const held = await holdMany(s.gateway, s.key, 0, 3_000);
      for (const r of held.requests) r.destroy();
      const outcomes = await held.all;
      const answered = [...new Set(outcomes.filter((k) => !k.startsWith("socket ")))];
      expect(answered).toEqual(["503 CONNECTIONS_FULL retry-after 1"]);
    } finally {
      await stop(s.child);
    }
  }, 120_000);
});
