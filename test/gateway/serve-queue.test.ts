/**
 * `sluice serve --max-queue` reaches the sandbox: with no room to wait, a gateway request
 * whose before hook finds the only worker busy is answered 503 QUEUE_FULL with retry-after
 * (the default, twice the connection cap, is checked in test/cli/conventions.test.ts).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../registry/fixtures.js";
import { sluice, spawnSluice, stop, waitFor } from "../cli/run-cli.js";
import { BACKSTOP_FUEL } from "../helpers/fixtures.js";
import { startStubUpstream, type StubUpstream } from "./upstream-stub.js";

const TOKEN = "queue-test-token-0123456789abcdefghijkl";
let stub: StubUpstream;
let child: ReturnType<typeof spawnSluice>;
let gateway = "";
let key = "";

beforeAll(async () => {
  stub = await startStubUpstream();
  const work = tempDir("sluice-queue-");
  child = spawnSluice(["serve", "--port", "0", "--gateway-port", "0", "--workers", "1", "--max-queue", "0"], {
    SLUICE_DATA_DIR: path.join(work, "data"), SLUICE_TOKEN: TOKEN, SLUICE_UPSTREAM: `${stub.url}/v1`, SLUICE_LOG_LEVEL: "silent",
  }, work);
  const out = await waitFor(child, /sluice listening on \S+/);
  const api = /sluice listening on (\S+)/.exec(out)![1]!;
  gateway = /gateway listening on (\S+)\/v1/.exec(out)![1]!;
  const post = (p: string, body: unknown) => fetch(`${api}/api/v1${p}`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  // Loops until its 400 ms limit, fail-open: the worker is busy that long per request.
  const wasm = readFileSync(new URL("../../build/fixtures/loop.wasm", import.meta.url));
  const manifest = `id: looper\nversion: 1.0.0\nabi: "1.0"\nentry: loop.wat\npoints:\n  model.chat.before:\nlimits: { timeout_ms: 400, fuel: ${BACKSTOP_FUEL} }\nfailure_policy: fail-open\ncapability_boundary: none\n`;
  expect((await post("/plugins", { manifest, wasm_base64: wasm.toString("base64") })).status).toBe(201);
  expect((await post("/bindings", { id: "loop", hook_ref: "looper@1.0.0", point: "model.chat.before", timeout_ms: 400 })).status).toBe(201);
  expect((await sluice(["publish", "--activate"], { SLUICE_URL: api, SLUICE_TOKEN: TOKEN })).code).toBe(0);
  key = ((await (await post("/gateway/keys", { space_id: "acme" })).json()) as { key: string }).key;
}, 120_000);

afterAll(async () => {
  if (child) await stop(child);
  await stub?.close();
});

const chat = () => fetch(`${gateway}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) });

describe("sluice serve --max-queue", () => {
  it("bounds the tasks waiting for a worker: past it a new request is answered 503 QUEUE_FULL with retry-after", async () => {
    // Four at once: one request's hook runs (400 ms), one waits as the worker's next task, and
    // the queue holds none, so the others are refused at once. With the option not passed on
    // (the library's 1,024) all four waited and were answered.
    const answers = await Promise.all(Array.from({ length: 4 }, async () => {
      const res = await chat();
      const body = await res.json() as { error?: { sluice_code: string } };
      return res.status === 200 ? "200" : `${res.status} ${res.headers.get("retry-after")} ${body.error?.sluice_code}`;
    }));
    expect(answers.filter((a) => a !== "200").length).toBeGreaterThan(0);
    expect(new Set(answers.filter((a) => a !== "200"))).toEqual(new Set(["503 1 QUEUE_FULL"]));
    // The admitted ones are answered (their hook's time limit ends it, fail-open).
    expect(answers.filter((a) => a === "200").length).toBeGreaterThan(0);
  });
});
