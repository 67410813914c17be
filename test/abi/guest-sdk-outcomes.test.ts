import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encode } from "../../abi/codec.js";
import { parseReply, type HookContext, type RequestEnvelope } from "../../abi/envelope.js";
import { BUILT_OUTCOMES } from "./outcome-cases.js";
import { createSandbox, type LoadedModule, type Sandbox } from "../../host/sandbox/index.js";
import { guestFixture } from "./guest-fixtures.js";

const context: HookContext = {
  space_id: "sp_1", actor_id: "user_7", run_id: "run_9", instance_id: "main", operation_id: "op_3",
  parent_operation_id: null, call_id: "call_1", point: "tool.before", purpose: "action", binding_id: "b_2",
  published_revision: 4, deadline: 1764441600000,
};

let sandbox: Sandbox;
let guest: LoadedModule;

beforeAll(async () => {
  sandbox = createSandbox({ workers: 2 });
  guest = await sandbox.load(await guestFixture("outcomes"), { capabilities: [] });
});
afterAll(async () => {
  await sandbox?.close();
});

async function run(payload: Record<string, unknown>, extra: Partial<RequestEnvelope> = {}) {
  const request: RequestEnvelope = { abi: "1.0", point: "tool.before", context, payload, config: { max_limit: 100 }, ...extra };
  return sandbox.invokeBytes(guest, encode(request), { timeoutMs: 2000, raw: true });
}

async function outcomeOf(payload: Record<string, unknown>, extra: Partial<RequestEnvelope> = {}) {
  const r = await run(payload, extra);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  // The sandbox parses the reply itself; parse the raw reply again to pin the wire format.
  const parsed = parseReply(r.reply, (v) => encode(v).length);
  expect(parsed).toStrictEqual({ ok: true, outcome: r.outcome });
  return r.outcome;
}

describe("the guest SDK's outcome builders, through the real host", () => {
  it("builds continue with nothing else", async () => {
    expect(await outcomeOf({ case: "continue" })).toStrictEqual({ kind: "continue" });
  });

  it.each(BUILT_OUTCOMES)("builds $title", async ({ case: name, outcome }) => {
    expect(await outcomeOf({ case: name })).toStrictEqual(outcome);
  });

  it("passes log lines to the host as UTF-8", async () => {
    const r = await run({ case: "continue" });
    expect(r.logs).toStrictEqual([{ level: 1, message: "case continue" }]);
  });
});

describe("the guest SDK's request and typed views, through the real host", () => {
  it("reads the context, accepting the deadline the host sends as float64", async () => {
    expect(await outcomeOf({ case: "context" })).toStrictEqual({
      kind: "short_circuit",
      result: {
        space_id: "sp_1", binding_id: "b_2", operation_id: "op_3", call_id: "call_1", purpose: "action", instance_id: "main",
        published_revision: 4, deadline: 1764441600000, point: "tool.before", abi: "1.0",
      },
    });
  });

  it("reads an integer field sent as an integral float64", async () => {
    expect(await outcomeOf({ case: "int_from_float", n: 2 ** 40 })).toStrictEqual({ kind: "short_circuit", result: 2 ** 40 });
  });

  it("hands the carry of the paired before hook to the hook", async () => {
    expect(await outcomeOf({ case: "carry" }, { carry: { t0: 5, note: "héllo" } })).toStrictEqual({
      kind: "short_circuit", result: { t0: 5, note: "héllo" },
    });
  });

  it("reads a tool.before payload through ToolBefore", async () => {
    const payload = { case: "view", as: "tool.before", tool_id: "search", name: "web_search", arguments: { limit: 7 }, call_id: "c1" };
    expect((await outcomeOf(payload)) as unknown).toStrictEqual({
      kind: "short_circuit", result: { tool_id: "search", name: "web_search", limit: 7, call_id: "c1" },
    });
  });

  it("reads a tool.after payload through ToolAfter", async () => {
    const payload = { case: "view", as: "tool.after", status: "succeeded", result: { hits: [1, 2] }, view: "2 hits" };
    expect(await outcomeOf(payload)).toStrictEqual({
      kind: "short_circuit", result: { status: "succeeded", result: { hits: [1, 2] }, view: "2 hits" },
    });
  });

  it("reads a model.chat.before payload through ChatBefore", async () => {
    const payload = { case: "view", as: "chat.before", model: "m-1", messages: [{ role: "system", content: "x" }, { role: "user", content: "y" }], params: { temperature: 0.5 } };
    expect(await outcomeOf(payload)).toStrictEqual({
      kind: "short_circuit", result: { model: "m-1", messages: 2, first_role: "system", temperature: 0.5 },
    });
  });

  it("reads a model.chat.after payload through ChatAfter", async () => {
    const payload = { case: "view", as: "chat.after", content: "bonjour à tous", tool_calls: [], finish_reason: "stop", usage: { total_tokens: 12 } };
    expect(await outcomeOf(payload)).toStrictEqual({
      kind: "short_circuit", result: { content: "bonjour à tous", tool_calls: 0, finish_reason: "stop", total_tokens: 12 },
    });
  });

  it("reads a model.chat.chunk payload through ChatChunk", async () => {
    const payload = { case: "view", as: "chat.chunk", delta: "中文", chunk_index: 3, is_last: true, request_id: "r1" };
    expect(await outcomeOf(payload)).toStrictEqual({
      kind: "short_circuit", result: { delta: "中文", chunk_index: 3, is_last: true, request_id: "r1" },
    });
  });

  it("reads a model.embedding.before payload through EmbeddingBefore", async () => {
    const payload = { case: "view", as: "embedding.before", texts: ["abc", "éa"] };
    expect(await outcomeOf(payload)).toStrictEqual({ kind: "short_circuit", result: { count: 2, texts: ["ABC", "ÉA"] } });
  });

  it("aborts with a message naming both kinds when a hook reads a value as the wrong kind", async () => {
    const r = await run({ case: "wrong_kind" });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("GUEST_ABORTED");
      expect(r.error.message).toContain("expected a value of kind int, got str");
    }
  });
});
