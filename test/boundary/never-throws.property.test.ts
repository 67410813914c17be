// No boundary call ever throws or rejects. Whatever a caller (or a model, tool
// or embedder it wraps) hands in — non-objects, cyclic objects, getters and proxies that
// throw, BigInt, symbols, functions, huge numbers, schemas that do not compile — every
// entry settles with a result whose error carries a catalogue code.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "../../host/index.js";
import { ERROR_CODES } from "../../host/errors/codes.js";
import { isSluiceError } from "../../host/errors/sluice-error.js";

const host = createHost({ workers: 1 });
host.registerHook("observe", () => ({ kind: "continue" }));
host.activate({ revision: 1, bindings: ["model.chat.before", "model.chat.after", "model.chat.chunk", "tool.before", "tool.after", "model.embedding.before", "run.start"].map((point, i) => ({ id: `o${i}`, hookRef: "observe", point })) } as never);
afterAll(() => host.close());

const cyclic = fc.constant(null).map(() => { const o: Record<string, unknown> = { role: "user", content: "x" }; o.self = o; o.messages = [o]; o.content = [o]; return o; });
const throwingGetter = fc.constant(null).map(() => Object.defineProperty({}, "model", { enumerable: true, get() { throw new Error("getter says no"); } }));
// Symbol-keyed reads are left alone: fast-check itself looks for its clone method on every value.
const throwingEverywhere = fc.constant(null).map(() => new Proxy({}, { get(_t, key) { if (typeof key === "symbol") return undefined; throw new TypeError("proxy says no"); }, ownKeys() { throw new TypeError("no keys"); }, getOwnPropertyDescriptor() { throw new TypeError("no descriptor"); } }));
const odd = fc.oneof(
  fc.bigInt(), fc.constant(Symbol("s")), fc.constant(() => 1), fc.constant(Number.MAX_VALUE), fc.constant(-Infinity), fc.constant(Number.NaN), fc.constant(2 ** 64),
  fc.constant(new Date(0)), fc.constant(new Map([[1, 2]])), fc.constant(new Uint8Array(3)), fc.constant(Object.create(null)),
);
const garbage = fc.oneof(fc.anything(), odd, cyclic, throwingGetter, throwingEverywhere);
/** A sound value with one of its fields (or nested fields) swapped for garbage. */
function spoiled<T extends Record<string, unknown>>(base: T, paths: readonly string[][]) {
  return fc.tuple(fc.constantFrom(...paths), garbage).map(([path, value]) => {
    const copy = structuredClone(base) as Record<string, unknown>;
    let at: Record<string, unknown> = copy;
    for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
    at[path.at(-1)!] = value;
    return copy as T;
  });
}
const ctx = { spaceId: "s" };
const request = { model: "m", messages: [{ role: "user", content: "hi" }], params: { temperature: 0.5 } };
const requests = fc.oneof(garbage, spoiled(request, [["model"], ["messages"], ["messages", "0"], ["messages", "0", "content"], ["messages", "0", "role"], ["params"], ["params", "seed"], ["params", "stop"], ["tools"]]));
const contexts = fc.oneof(garbage, spoiled(ctx, [["spaceId"], ["signal"], ["deadline"], ["purpose"], ["runId"]]));
const answer = { content: "ok", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 1 } };
const answers = fc.oneof(garbage, spoiled(answer, [["content"], ["tool_calls"], ["usage"], ["finish_reason"], ["refusal"], ["reasoning_content"]]));
const schema = { type: "object", properties: { q: { type: "string" } } };
const schemas = fc.oneof(garbage, fc.constantFrom<unknown>({ $schema: "http://json-schema.org/draft-03/schema#" }, { type: "nope" }, { $ref: "#/missing" }, { properties: { a: { pattern: "(" } } }), spoiled(schema, [["type"], ["properties"], ["$schema"]]));
const options = fc.oneof(fc.constant(undefined), garbage, fc.record({ retries: fc.oneof(fc.integer(), garbage) }), fc.record({ errorMode: garbage.filter((v) => v !== "original") }));

const RUNS = { numRuns: 150 };

/** A settled result whose failure, if any, names a catalogue code. */
function expectResult(r: unknown): void {
  expect(typeof r === "object" && r !== null).toBe(true);
  const result = r as { ok: boolean; error?: { code: string } };
  if (!result.ok) expect(Object.keys(ERROR_CODES)).toContain(result.error!.code);
}

/** Calls `call`, failing the property if it throws synchronously or its promise rejects. */
async function settles(call: () => unknown): Promise<unknown> {
  let pending: unknown;
  expect(() => { pending = call(); }).not.toThrow();
  return await (pending as Promise<unknown>);
}

describe("no boundary entry throws or rejects, whatever it is given", () => {
  it("host.chat, with garbage for the context, the request, the options or the model's answer", async () => {
    await fc.assert(fc.asyncProperty(contexts, requests, answers, options, async (c, req, ans, opt) => {
      expectResult(await settles(() => host.chat(c as never, req as never, async () => ans as never, opt as never)));
    }), RUNS);
  });

  it("host.chat refuses a context or request that cannot be read at all with PAYLOAD_INVALID", async () => {
    await fc.assert(fc.asyncProperty(fc.oneof(throwingGetter, throwingEverywhere, cyclic, odd), async (bad) => {
      const r = await settles(() => host.chat(bad as never, bad as never, async () => answer as never)) as { ok: boolean; error: { code: string } };
      expect(r.ok).toBe(false);
      expect(r.error.code).toBe("PAYLOAD_INVALID");
    }), { numRuns: 40 });
  });

  it("host.chatStream: the call and its result never throw; iterating throws only catalogue errors", async () => {
    await fc.assert(fc.asyncProperty(contexts, requests, fc.array(answers, { maxLength: 3 }), async (c, req, chunks) => {
      const stream = await settles(() => host.chatStream(c as never, req as never, async function* () { for (const k of chunks) yield k as never; })) as ReturnType<typeof host.chatStream>;
      try { for await (const _ of stream) { /* drain */ } } catch (err) {
        expect(isSluiceError(err)).toBe(true);
        expect(Object.keys(ERROR_CODES)).toContain((err as { code: string }).code);
      }
      expectResult(await stream.result);
    }), RUNS);
  });

  it("host.tool, with garbage for the call, its schema, its arguments or what the tool returns or throws", async () => {
    const call = { toolId: "t", name: "t", schema, arguments: { q: "x" }, callId: "c1" };
    const calls = fc.oneof(garbage, spoiled(call, [["toolId"], ["name"], ["arguments"], ["callId"], ["revision"]]), schemas.map((s) => ({ ...call, schema: s })));
    await fc.assert(fc.asyncProperty(contexts, calls, garbage, fc.boolean(), options, async (c, k, out, throws, o) => {
      expectResult(await settles(() => host.tool(c as never, k as never, async () => { if (throws) throw out; return out; }, o as never)));
    }), RUNS);
  });

  it("host.tool with a draft-07 schema (as the AI SDK, the Agents SDK and MCP send) validates, and without $schema reads 2020-12", async () => {
    const draft07 = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { limit: { type: "integer", maximum: 10 } }, required: ["limit"], additionalProperties: false };
    const ok = await host.tool(ctx, { toolId: "t", name: "t", schema: draft07, arguments: { limit: 5 }, callId: "d7" }, async () => "done");
    expect(ok.ok && ok.output.view).toBe("done");
    const refused = await host.tool(ctx, { toolId: "t", name: "t", schema: draft07, arguments: { limit: 50 }, callId: "d7b" }, async () => "done");
    expect(!refused.ok && refused.error.code).toBe("FINAL_CHECK_FAILED");
    // 2020-12 only: prefixItems means nothing to draft-07, so this proves which draft was used.
    const tuple = { type: "object", properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false } } };
    const bad = await host.tool(ctx, { toolId: "t", name: "t", schema: tuple, arguments: { pair: ["a", "b"] }, callId: "p1" }, async () => "done");
    expect(!bad.ok && bad.error.code).toBe("FINAL_CHECK_FAILED");
    const good = await host.tool(ctx, { toolId: "t", name: "t", schema: tuple, arguments: { pair: ["a", 1] }, callId: "p2" }, async () => "done");
    expect(good.ok).toBe(true);
  });

  it("host.embed, with garbage for the request or the vectors", async () => {
    const req = { model: "e", texts: ["a", "b"] };
    const reqs = fc.oneof(garbage, spoiled(req, [["model"], ["texts"], ["texts", "0"]]));
    await fc.assert(fc.asyncProperty(contexts, reqs, fc.oneof(garbage, fc.constant({ vectors: [[1], [2]] }), fc.record({ vectors: garbage })), options, async (c, r, out, o) => {
      expectResult(await settles(() => host.embed(c as never, r as never, async () => out as never, o as never)));
    }), RUNS);
  });

  it("host.resume, host.lifecycle and host.report", async () => {
    await fc.assert(fc.asyncProperty(garbage, garbage, contexts, async (id, payload, c) => {
      expectResult(await settles(() => host.resume(id as never, payload as never)));
      expectResult(await settles(() => host.lifecycle(id as never, c as never, payload as never)));
      expectResult(await settles(() => host.lifecycle("run.start", c as never, payload as never)));
      expectResult(await settles(() => Promise.resolve(host.report(c as never, payload as never))));
    }), RUNS);
  });

  it("host.resume without a records store is CONFIG_INVALID, returned", async () => {
    const r = await host.resume("op-1");
    expect(!r.ok && r.error.code).toBe("CONFIG_INVALID");
  });
});
