/** sluice/ai-sdk through the real `ai` streamText: text the model streamed before a tool call reaches the consumer before that call. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamText, wrapLanguageModel } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { sluiceMiddleware } from "sluice/ai-sdk";
import { adapterHost, type AdapterHost } from "./setup.js";

let h: AdapterHost;
beforeAll(async () => { h = await adapterHost(); });
afterAll(() => h.close());

const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
const call = { type: "tool-call", toolCallId: "call-1", toolName: "orders.search", input: "{\"query\":\"shoes\",\"limit\":5}" } as const;
const text: LanguageModelV4StreamPart[] = [
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "Let me look " },
  { type: "text-delta", id: "t", delta: "that up for you." },
  { type: "text-end", id: "t" },
];
const finish: LanguageModelV4StreamPart = { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage };
const streamed: LanguageModelV4StreamPart[] = [
  { type: "tool-input-start", id: "call-1", toolName: "orders.search" },
  { type: "tool-input-delta", id: "call-1", delta: "{\"query\":\"shoes\",\"limit\":5}" },
  { type: "tool-input-end", id: "call-1" },
];

async function partsOf(model: LanguageModelV4StreamPart[]): Promise<{ type: string; text?: string }[]> {
  const inner = new MockLanguageModelV4({ doStream: { stream: convertArrayToReadableStream([{ type: "stream-start", warnings: [] }, ...model]) } });
  const r = streamText({ model: wrapLanguageModel({ model: inner, middleware: sluiceMiddleware({ host: h.host, context: { spaceId: "space-a" } }) }), prompt: "find shoes" });
  const parts: { type: string; text?: string }[] = [];
  for await (const p of r.fullStream) parts.push(p as { type: string; text?: string });
  return parts;
}

/** The parts' types, with a run of text deltas as one (a chunk hook may release held text in more pieces than the model sent). */
const order = (parts: { type: string }[]) =>
  parts.map((p) => p.type).filter((t, i, all) => /^(text|tool-call|tool-input)/.test(t) && !(t === "text-delta" && all[i - 1] === "text-delta"));

describe("text the model streams before a tool call, in one step", () => {
  for (const [what, hooks] of [["with a chunk hook that holds text back", [{ hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]], ["with no hooks", []]] as const) {
    it(`reaches the consumer whole before the tool-call part (${what}), a whole call`, async () => {
      h.bind([...hooks]);
      const parts = await partsOf([...text, call, finish]);
      expect(order(parts)).toEqual(["text-start", "text-delta", "text-end", "tool-call"]);
      expect(parts.filter((p) => p.type === "text-delta").map((p) => p.text).join("")).toBe("Let me look that up for you.");
    });

    it(`reaches the consumer whole before the tool's input starts (${what}), a streamed call`, async () => {
      h.bind([...hooks]);
      const parts = await partsOf([...text, ...streamed, call, finish]);
      expect(order(parts)).toEqual(["text-start", "text-delta", "text-end", "tool-input-start", "tool-input-delta", "tool-input-end", "tool-call"]);
    });
  }
});
