/**
 * The Rust and C guest SDKs do what the AssemblyScript SDK does (guest-sdk-outcomes.test.ts):
 * one suite, one fixture per SDK (test/fixtures/rust/outcomes, test/fixtures/c/outcomes.c),
 * compiled by the real toolchain and run by the real host.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encode } from "../../abi/codec.js";
import { parseReply, type HookContext, type RequestEnvelope } from "../../abi/envelope.js";
import { BUILT_OUTCOMES } from "./outcome-cases.js";
import { createSandbox, type LoadedModule, type Sandbox } from "../../host/sandbox/index.js";
import { repoRoot } from "../helpers/fixtures.js";
import { cGuest, rustGuest } from "../helpers/native-guests.js";

const context: HookContext = {
  space_id: "sp_1", actor_id: "user_7", run_id: "run_9", instance_id: "main", operation_id: "op_3",
  parent_operation_id: null, call_id: "call_1", point: "tool.before", purpose: "action", binding_id: "b_2",
  published_revision: 4, deadline: 1764441600000,
};
const kvScope = { spaceId: "sp_1", ownerId: "sdk-outcomes" };

const sdks = {
  rust: () => rustGuest(path.join(repoRoot, "test/fixtures/rust/outcomes"), path.join(repoRoot, "build/fixtures/rust-outcomes.wasm")),
  c: () => cGuest(path.join(repoRoot, "test/fixtures/c/outcomes.c"), path.join(repoRoot, "build/fixtures/c-outcomes.wasm")),
};

for (const [sdk, build] of Object.entries(sdks)) {
  let sandbox: Sandbox;
  let guest: LoadedModule;

  async function run(payload: Record<string, unknown>, extra: Partial<RequestEnvelope> = {}) {
    const request: RequestEnvelope = { abi: "1.2", point: "tool.before", context, payload, config: { max_limit: 100 }, ...extra };
    return sandbox.invokeBytes(guest, encode(request), { timeoutMs: 5000, raw: true, kvScope });
  }

  async function outcomeOf(payload: Record<string, unknown>, extra: Partial<RequestEnvelope> = {}) {
    const r = await run(payload, extra);
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    expect(parseReply(r.reply, (v) => encode(v).length)).toStrictEqual({ ok: true, outcome: r.outcome });
    return r.outcome;
  }

  describe(`the ${sdk} guest SDK's outcomes, request, log and kv, through the real host`, () => {
    beforeAll(async () => {
      sandbox = createSandbox({ workers: 1 });
      guest = await sandbox.load(await build(), { capabilities: ["kv"], limits: { timeoutMs: 5000 } });
    }, 180_000);
    afterAll(async () => {
      await sandbox?.close();
    });

    it("builds continue with nothing else, and logs the case as UTF-8", async () => {
      const r = await run({ case: "continue" });
      expect(r.ok && r.outcome).toStrictEqual({ kind: "continue" });
      expect(r.logs).toStrictEqual([{ level: 1, message: "continue" }]);
    });

    it.each(BUILT_OUTCOMES)("builds $title", async ({ case: name, outcome }) => {
      expect(await outcomeOf({ case: name })).toStrictEqual(outcome);
    });

    it("builds ask, which the host accepts from the SDK's 1.2 marker", async () => {
      expect(await outcomeOf({ case: "ask" })).toStrictEqual({ kind: "ask", reason: "deleting files needs a person's approval" });
    });

    it("builds ask with a machine code", async () => {
      expect(await outcomeOf({ case: "ask_code" })).toStrictEqual({ kind: "ask", code: "needs.review", reason: "deleting files needs a person's approval" });
    });

    it("keeps a reason and an annotation key the hook wrote in a buffer on its own stack", async () => {
      expect(await outcomeOf({ case: "reason_from_stack", arguments: { limit: 4096 } })).toStrictEqual({
        kind: "reject", code: "limit_exceeded", reason: "too many: 4096", annotations: { limit_seen: true },
      });
    });

    it("reads the context, accepting the deadline the host sends as float64", async () => {
      expect(await outcomeOf({ case: "context" })).toStrictEqual({
        kind: "short_circuit",
        result: {
          space_id: "sp_1", binding_id: "b_2", operation_id: "op_3", call_id: "call_1", purpose: "action", instance_id: "main",
          published_revision: 4, deadline: 1764441600000, point: "tool.before", abi: "1.2",
        },
      });
    });

    it("reads an integer field sent as an integral float64", async () => {
      expect(await outcomeOf({ case: "int_from_float", n: 2 ** 40 })).toStrictEqual({ kind: "short_circuit", result: 2 ** 40 });
    });

    it("reads a request key this SDK does not name, as a later ABI minor may add", async () => {
      expect(await outcomeOf({ case: "future" }, { future_key: { n: 1, s: "é" } } as Partial<RequestEnvelope>)).toStrictEqual({
        kind: "short_circuit", result: { n: 1, s: "é" },
      });
    });

    it("hands the carry of the paired before hook to the hook", async () => {
      expect(await outcomeOf({ case: "carry" }, { carry: { t0: 5, note: "héllo" } })).toStrictEqual({
        kind: "short_circuit", result: { t0: 5, note: "héllo" },
      });
    });

    it("reads every field of ToolBefore / the sluice_tool_* views at tool.before", async () => {
      const payload = { case: "view", as: "tool.before", tool_id: "search", name: "web_search", arguments: { limit: 7, q: "café" }, call_id: "c1" };
      expect(await outcomeOf(payload)).toStrictEqual({
        kind: "short_circuit", result: { tool_id: "search", name: "web_search", arguments: { limit: 7, q: "café" }, call_id: "c1" },
      });
    });

    it("reads every field of ToolAfter at a failed tool.after, duration and artifacts included", async () => {
      const payload = {
        case: "view", as: "tool.after", tool_id: "fs", name: "write", arguments: {}, call_id: "c2", status: "failed", result: null,
        view: "could not write", duration_ms: 12.5, error: { code: "EACCES", message: "denied" }, artifacts: [{ kind: "file", path: "/tmp/a" }],
      };
      expect(await outcomeOf(payload)).toStrictEqual({
        kind: "short_circuit",
        result: {
          tool_id: "fs", name: "write", arguments: {}, call_id: "c2", status: "failed", result: null, view: "could not write",
          duration_ms: 12.5, error: { code: "EACCES", message: "denied" }, artifacts: [{ kind: "file", path: "/tmp/a" }],
        },
      });
    });

    it("reads ChatBefore: a message's text parts joined, its reasoning, and the params", async () => {
      const payload = {
        case: "view", as: "chat.before", model: "m-1", params: { temperature: 0.5 },
        messages: [{ role: "system", content: "x" }, { role: "assistant", content: [{ type: "text", text: "un" }, { type: "image_url", image_url: { url: "u" } }, { type: "text", text: "deux" }], reasoning_content: "pensée" }],
      };
      expect(await outcomeOf(payload)).toStrictEqual({
        kind: "short_circuit", result: { model: "m-1", messages: 2, text_1: "un\ndeux", reasoning_1: "pensée", temperature: 0.5 },
      });
    });

    it("reads ChatAfter: content from parts, refusal, reasoning, tool calls, finish reason and usage", async () => {
      const payload = {
        case: "view", as: "chat.after", model: "m-1", content: [{ type: "text", text: "bonjour" }, { type: "text", text: "à tous" }],
        refusal: "non", reasoning_content: "parce que", tool_calls: [], finish_reason: "stop", usage: { total_tokens: 12 },
      };
      expect(await outcomeOf(payload)).toStrictEqual({
        kind: "short_circuit",
        result: { model: "m-1", content: "bonjour\nà tous", content_parts: 2, refusal: "non", reasoning_content: "parce que", tool_calls: 0, finish_reason: "stop", total_tokens: 12 },
      });
    });

    it("reads ChatChunk, the channel defaulting to content", async () => {
      const payload = { case: "view", as: "chat.chunk", model: "m-1", delta: "中文", chunk_index: 3, is_last: true, request_id: "r1" };
      expect(await outcomeOf(payload)).toStrictEqual({
        kind: "short_circuit", result: { model: "m-1", delta: "中文", chunk_index: 3, is_last: true, channel: "content", request_id: "r1" },
      });
      expect(await outcomeOf({ ...payload, channel: "reasoning" })).toMatchObject({ result: { channel: "reasoning" } });
    });

    it("reads EmbeddingBefore", async () => {
      expect(await outcomeOf({ case: "view", as: "embedding.before", model: "e-1", texts: ["abc", "éa"] })).toStrictEqual({
        kind: "short_circuit", result: { model: "e-1", count: 2, text_1: "éa" },
      });
    });

    it("walks a map's entries in order, tells a present nil from a missing key, and reads binary bytes", async () => {
      const payload = { case: "walk", map: { b: 1, a: "é", x: null }, blob: new Uint8Array([1, 2, 3]) };
      expect(await outcomeOf(payload)).toStrictEqual({
        kind: "short_circuit", result: { keys: ["b", "a", "x"], values: [1, "é", null], has_x: true, has_nothing: false, blob: 3 },
      });
    });

    it("logs at every level, each line kept with its level", async () => {
      const r = await run({ case: "logs" });
      expect(r.logs).toStrictEqual([
        { level: 1, message: "logs" }, { level: 0, message: "débogage" }, { level: 2, message: "attention" }, { level: 3, message: "erreur" },
      ]);
    });

    it("sets, reads back (past its first 256-byte buffer), deletes and misses a key in the kv store", async () => {
      const value = `héllo, this value is longer than the first buffer of two hundred and fifty-six bytes: ${"0123456789".repeat(20)}`;
      expect(await outcomeOf({ case: "kv" })).toStrictEqual({
        kind: "short_circuit", result: { before: false, set: 0, got: value, deleted: true, deleted_again: false, after: false },
      });
    });

    it("ends the invocation with GUEST_ABORTED and the hook's message when it calls fatal", async () => {
      const r = await run({ case: "fatal" });
      expect(!r.ok && r.error.code).toBe("GUEST_ABORTED");
      expect(!r.ok && r.error.message).toContain("the hook gave up: ça suffit");
    });

    if (sdk === "c") {
      it("ends the invocation with GUEST_ABORTED saying so when the hook returns NULL", async () => {
        const r = await run({ case: "null" });
        expect(!r.ok && r.error.code).toBe("GUEST_ABORTED");
        expect(!r.ok && r.error.message).toContain("sluice: the hook returned NULL instead of an outcome");
      });
    }

    if (sdk === "rust") {
      it("ends the invocation with GUEST_ABORTED carrying the panic's message and place when the hook panics", async () => {
        const r = await run({ case: "panic", items: [1] });
        expect(!r.ok && r.error.code).toBe("GUEST_ABORTED");
        expect(!r.ok && r.error.message).toMatch(/sluice: panicked at 'index out of bounds: the len is 1 but the index is 7', src\/lib\.rs:\d+:\d+/);
      });

      it("ends the invocation with GUEST_ABORTED saying how much it could not allocate when the hook runs out of memory", async () => {
        const r = await run({ case: "oom" });
        expect(!r.ok && r.error.code).toBe("GUEST_ABORTED");
        expect(!r.ok && r.error.message).toContain("sluice: out of memory: could not allocate 67108864 bytes");
      });

      it("still says so when the memory is full to the last byte, with nothing left to build the message in", async () => {
        const r = await run({ case: "oom_full" });
        expect(!r.ok && r.error.code).toBe("GUEST_ABORTED");
        expect(!r.ok && r.error.message).toContain("sluice: out of memory: could not allocate 100 bytes");
      });
    }

    it("answers 0 from sluice_alloc when the request does not fit in its memory limit, which the host reports as GUEST_MEMORY_LIMIT", async () => {
      const small = await sandbox.load(await build(), { capabilities: ["kv"], limits: { timeoutMs: 5000, memoryBytes: 256 * 1024 } });
      const r = await sandbox.invokeBytes(small, encode({ abi: "1.2", point: "tool.before", context, payload: { case: "continue", big: "x".repeat(512 * 1024) }, config: {} }), { timeoutMs: 5000, raw: true, kvScope });
      expect(!r.ok && r.error.code).toBe("GUEST_MEMORY_LIMIT");
    });

    it("ends the invocation with GUEST_ABORTED naming the fault when the request is not msgpack", async () => {
      const r = await sandbox.invokeBytes(guest, new Uint8Array([0x81, 0xa3, 0x61, 0x62]), { timeoutMs: 5000, raw: true, kvScope });
      expect(!r.ok && r.error.code).toBe("GUEST_ABORTED");
      expect(!r.ok && r.error.message).toContain("sluice: malformed request: string length exceeds the remaining input");
    });
  });
}
