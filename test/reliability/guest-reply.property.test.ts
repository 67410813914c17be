/**
 * Whatever bytes a guest returns, the host answers with an outcome or a structured error:
 * the echo-reply fixture hands back the request's bytes verbatim, so fast-check chooses
 * the reply. Many runs go through runCall on this thread (microseconds each), fewer
 * through the real worker pool.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encode } from "../../abi/codec.js";
import { OUTCOME_KINDS, parseReply } from "../../abi/envelope.js";
import { loadModule, type LoadedModule } from "../../host/sandbox/main/load-module.js";
import { runCall } from "../../host/sandbox/worker/run-call.js";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import type { CallReport } from "../../host/sandbox/protocol.js";
import { fixture } from "../helpers/fixtures.js";

/** Replies near the envelope's shape, so parsing gets past the first checks often. */
const nearReply = fc.record({
  abi: fc.oneof(fc.constant("1.0"), fc.constantFrom("2.0", "1", "", 1, null)),
  outcome: fc.oneof(fc.constantFrom(...OUTCOME_KINDS), fc.constantFrom("", "CONTINUE", 7)),
  patch: fc.oneof(
    fc.array(fc.record({ op: fc.constantFrom("add", "replace", "remove", "move", 1), path: fc.oneof(fc.constantFrom("", "/arguments/limit", "/x", "no-slash"), fc.string()), value: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: ["op"] }), { maxLength: 4 }),
    fc.jsonValue({ maxDepth: 1 })),
  code: fc.oneof(fc.constantFrom("ok.code", "x".repeat(65), "Bad Code"), fc.string()),
  reason: fc.oneof(fc.string(), fc.constant("é".repeat(600)), fc.integer()),
  result: fc.jsonValue({ maxDepth: 3 }),
  content: fc.oneof(fc.string(), fc.integer()),
  hold: fc.oneof(fc.string(), fc.boolean()),
  carry: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant("c".repeat(5_000))),
  annotations: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), fc.constant({ big: "a".repeat(5_000) }), fc.array(fc.integer())),
}, { requiredKeys: [] });

/** Replies that follow every rule of the ABI (annotations with arbitrary non-reserved keys), so the accepting path is reached often. */
const validReply = fc.record({
  abi: fc.constant("1.0"),
  outcome: fc.constant("continue"),
  annotations: fc.dictionary(fc.string().filter((k) => !["__proto__", "constructor", "prototype"].includes(k)), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
});

/** Arbitrary bytes, valid replies, and valid replies with bytes flipped or cut. */
const replyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 2_048 }),
  nearReply.map((r) => encode(r)),
  validReply.map((r) => encode(r)),
  fc.tuple(nearReply, fc.nat(), fc.integer({ min: 0, max: 255 })).map(([r, at, byte]) => {
    const b = encode(r).slice();
    if (b.length > 0) b[at % b.length] = byte;
    return b;
  }),
  fc.tuple(nearReply, fc.nat()).map(([r, cut]) => { const b = encode(r); return b.slice(0, cut % (b.length + 1)); }),
);

const REPLY_ERRORS = new Set(["OUTPUT_MALFORMED", "OUTPUT_INVALID"]);

function checkReport(report: CallReport | { ok: boolean; outcome?: { kind: string }; error?: { code: string; message: string; details?: Record<string, unknown> } }): void {
  if (report.ok) {
    expect(OUTCOME_KINDS).toContain(report.outcome!.kind);
  } else if (report.error!.code === "PATCH_INVALID") {
    // abi/README.md §4: a patch array whose header says more than 4,096 operations is refused
    // from the header, before the rest is decoded (so even when the rest is cut or damaged).
    expect(report.error!.details).toMatchObject({ limit: 4096, size: expect.any(Number) });
    expect(report.error!.details!.size as number).toBeGreaterThan(4096);
  } else {
    expect(REPLY_ERRORS).toContain(report.error!.code);
    expect(typeof report.error!.message).toBe("string");
  }
}

let echo: LoadedModule;
let sandbox: Sandbox;
beforeAll(async () => {
  echo = await loadModule(fixture("echo-reply"));
  sandbox = createSandbox({ workers: 2 });
});
afterAll(() => sandbox.close());

describe("arbitrary guest replies never crash the host", () => {
  it("runCall turns any reply bytes into an outcome or OUTPUT_MALFORMED / OUTPUT_INVALID", () => {
    const spec = { module: echo.module, moduleId: "echo", memoryBytes: echo.limits.memoryBytes, memoryPages: { initial: echo.memory.initialPages, maximum: echo.memory.maxPages }, inputBytes: echo.limits.inputBytes, outputBytes: echo.limits.outputBytes, fuel: echo.limits.fuel, abiMajor: 1, kvScope: null };
    let accepted = 0;
    fc.assert(fc.property(replyBytes, (bytes) => {
      const report = runCall(spec, { bytes, raw: false }, () => { throw new Error("no kv"); });
      checkReport(report);
      if (report.ok) accepted++;
    }), { numRuns: 3_000 });
    // The generator reaches the accepting path too, not only refusals.
    expect(accepted).toBeGreaterThan(10);
  });

  it("refuses a patch whose array header says 43,873 operations from the header, though the bytes after it are cut (found by a seed of the property above)", () => {
    const spec = { module: echo.module, moduleId: "echo", memoryBytes: echo.limits.memoryBytes, memoryPages: { initial: echo.memory.initialPages, maximum: echo.memory.maxPages }, inputBytes: echo.limits.inputBytes, outputBytes: echo.limits.outputBytes, fuel: echo.limits.fuel, abiMajor: 1, kvScope: null };
    // {abi: nil, outcome: "CONTINUE", patch: array16 of 0xab61 items, …} with the items missing.
    const bytes = Uint8Array.from([132, 163, 97, 98, 105, 192, 167, 111, 117, 116, 99, 111, 109, 101, 168, 67, 79, 78, 84, 73, 78, 85, 69, 165, 112, 97, 116, 99, 104, 220, 171, 97, 110, 110, 111, 116, 97, 116, 105, 111, 110, 115, 144]);
    const report = runCall(spec, { bytes, raw: false }, () => { throw new Error("no kv"); });
    expect(report.ok ? "ok" : report.error).toMatchObject({ code: "PATCH_INVALID", details: { limit: 4096, size: 43_873 } });
  });

  it("parseReply never throws, for any JavaScript value", () => {
    fc.assert(fc.property(fc.oneof(fc.anything(), nearReply), (value) => {
      const r = parseReply(value, (v) => encode(v).byteLength);
      expect(typeof r.ok).toBe("boolean");
    }), { numRuns: 3_000 });
  });

  it("through the worker pool, every reply comes back as data and the pool keeps serving", async () => {
    await fc.assert(fc.asyncProperty(fc.array(replyBytes, { minLength: 1, maxLength: 8 }), async (batch) => {
      const reports = await sandbox.runCalls(batch.map((request) => ({ module: echo, request })));
      expect(reports).toHaveLength(batch.length);
      reports.forEach(checkReport);
    }), { numRuns: 150 });
    expect(sandbox.threadCount).toBe(2 + sandbox.options.spareWorkers);
  });
});
