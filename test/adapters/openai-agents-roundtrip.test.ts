/**
 * sluice/openai-agents carries what it promises: the same fake model turn, unwrapped and
 * wrapped, gives the same run result item by item (annotations and provider data on every
 * part, reasoning with its raw content and encrypted data, function calls, usage,
 * response ids), except where a hook changed the text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, run, setTracingDisabled, tool, Usage, type AgentOutputItem, type Model, type ModelResponse, type StreamEvent } from "@openai/agents";
import { z } from "zod";
import { SluiceModel } from "sluice/openai-agents";
import { adapterHost, EMAIL, type AdapterHost } from "./setup.js";

let h: AdapterHost;
beforeAll(async () => { setTracingDisabled(true); h = await adapterHost(); });
afterAll(() => h.close());

const usage = () => new Usage({ requests: 1, inputTokens: 30, outputTokens: 50, totalTokens: 80, inputTokensDetails: [{ cached_tokens: 10 }], outputTokensDetails: [{ reasoning_tokens: 30 }] });
const citation = { type: "url_citation", url: "https://shop.example.org/orders", title: "Orders page", start_index: 0, end_index: 4 };

/** Reasoning (summary, raw text, encrypted), two messages with three output_text parts (the second carries the e-mail), a function call. */
const OUTPUT = (): AgentOutputItem[] => [
  { type: "reasoning", id: "rs_1", content: [{ type: "input_text", text: "The user wants orders." }], rawContent: [{ type: "reasoning_text", text: "Look up the orders first." }], providerData: { encrypted_content: "enc-1" } },
  {
    type: "message", id: "msg_1", role: "assistant", status: "completed", providerData: { phase: "final" },
    content: [
      { type: "output_text", text: "Here are your orders. ", providerData: { annotations: [citation] } },
      { type: "output_text", text: `Write to ${EMAIL} for help.`, providerData: { logprobs: [] } },
    ],
  },
  { type: "message", id: "msg_2", role: "assistant", status: "completed", content: [{ type: "output_text", text: " Anything else?", providerData: { annotations: [] } }] },
  { type: "function_call", id: "fc_1", callId: "call-1", name: "orders_search", arguments: "{\"query\":\"shoes\"}", status: "completed", providerData: { kept: true } },
] as AgentOutputItem[];
/** The text as streamed: the e-mail split; the reasoning only in the final response, as some providers send it. */
const DELTAS = ["Here are your orders. ", "Write to alice.", "smith@example.com for help.", " Anything else?"];

class RichModel implements Model {
  async getResponse(): Promise<ModelResponse> {
    return { usage: usage(), output: OUTPUT(), responseId: "resp-1", providerData: { service_tier: "default" } };
  }
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    yield { type: "response_started", providerData: { started: true } };
    for (const delta of DELTAS) {
      yield { type: "model", event: { type: "response.output_text.delta", delta } };
      yield { type: "output_text_delta", delta };
    }
    const u = usage();
    yield { type: "response_done", response: { id: "resp-1", usage: { requests: 1, inputTokens: u.inputTokens, outputTokens: u.outputTokens, totalTokens: u.totalTokens, inputTokensDetails: u.inputTokensDetails[0], outputTokensDetails: u.outputTokensDetails[0] }, output: OUTPUT() as never, providerData: { service_tier: "default" } } };
  }
}

const search = tool({ name: "orders_search", description: "Search orders", parameters: z.object({ query: z.string() }), execute: async ({ query }) => `2 orders for ${query}` });
const agentOn = (model: Model) => new Agent({ name: "support", model, tools: [search], toolUseBehavior: "stop_on_first_tool" });
const wrapped = () => new SluiceModel({ model: new RichModel(), modelId: "rich", host: h.host, context: { spaceId: "space-a" } });
const noop = (point: "model.chat.before" | "model.chat.after" | "model.chat.chunk") => ({ point, config: { mode: "continue" } });
const redacted = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replaceAll(EMAIL, "[email]"));
const plain = (v: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(v)) as Record<string, unknown>;

async function ran(wrap: boolean) {
  const r = await run(agentOn(wrap ? wrapped() : new RichModel()), "my orders");
  return plain({ finalOutput: r.finalOutput, items: r.newItems.map((i) => ({ type: i.type, raw: i.rawItem })), responses: r.rawResponses });
}

async function streamed(wrap: boolean) {
  const r = await run(agentOn(wrap ? wrapped() : new RichModel()), "my orders", { stream: true });
  let text = "";
  for await (const e of r) if (e.type === "raw_model_stream_event" && e.data.type === "output_text_delta") text += e.data.delta;
  await r.completed;
  return plain({ text, finalOutput: r.finalOutput, items: r.newItems.map((i) => ({ type: i.type, raw: i.rawItem })), responses: r.rawResponses });
}

describe("sluice/openai-agents round trip", () => {
  it("a run: with hooks that do nothing, every item equals the unwrapped run's, part for part", async () => {
    const bare = await ran(false);
    h.bind([noop("model.chat.before"), noop("model.chat.after")]);
    expect(await ran(true)).toEqual(bare);
  });

  it("a run: a redaction at model.chat.after changes only the output_text it redacted", async () => {
    const bare = await ran(false);
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.after" }]);
    const got = await ran(true);
    expect(got).toEqual(redacted(bare));
    expect(JSON.stringify(got)).toContain("Write to [email] for help.");
  });

  for (const [name, bindings] of [
    ["chunk hooks that do nothing", [noop("model.chat.before"), noop("model.chat.chunk")]],
    ["an after hook that may change the answer (the text held back)", [noop("model.chat.before"), noop("model.chat.chunk"), noop("model.chat.after")]],
  ] as const) {
    it(`a streamed run: with ${name}, the text and every item equal the unwrapped run's`, async () => {
      const bare = await streamed(false);
      h.bind([...bindings]);
      expect(await streamed(true)).toEqual(bare);
    });
  }

  for (const point of ["model.chat.chunk", "model.chat.after"] as const) {
    it(`a streamed run: a redaction at ${point} changes only the text it redacted`, async () => {
      const bare = await streamed(false);
      h.bind([{ hookRef: "pii-redact@1.0.0", point }]);
      const got = await streamed(true);
      expect(got).toEqual(redacted(bare));
    });
  }
});
