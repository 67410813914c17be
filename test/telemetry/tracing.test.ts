/**
 * One agent turn (chat → tool → chat) traced with the OpenTelemetry SDK: one span per
 * boundary call under the service's own span, one span per hook under its boundary call,
 * hook spans laid end to end inside their call, and the service's spans inside `execute`
 * nested under the boundary span.
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, createObserver, ERROR_CODES, type Host } from "../../host/index.js";
import type { ChatResponse } from "../../host/boundary/chat.js";
import { fixture } from "../helpers/fixtures.js";
import { twin } from "../contract/twin.js";

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer("sluice-test");
let host: Host;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  host = createHost({ workers: 1, observer: createObserver({ tracer: provider.getTracer("sluice") }) });
  await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
  await host.loadPlugin({ id: "contract-b", version: "1.0.0", wasm: fixture("contract-hook") });
  host.registerHook("contract", twin);
  host.activate({
    revision: 1,
    bindings: [
      { id: "chat-before", hookRef: "contract@1.0.0", point: "model.chat.before", config: { mode: "continue" } },
      { id: "chat-after", hookRef: "contract", point: "model.chat.after", config: { mode: "continue" } },
      { id: "tool-before-1", hookRef: "contract@1.0.0", point: "tool.before", config: { mode: "continue" } },
      { id: "tool-before-2", hookRef: "contract-b@1.0.0", point: "tool.before", config: { mode: "continue" } },
      { id: "tool-after", hookRef: "contract", point: "tool.after", config: { mode: "continue" } },
    ],
  });
});
afterAll(async () => {
  await host.close();
  context.disable();
});

const ctx = { spaceId: "space-a", runId: "r1" };
const toolTurn: ChatResponse = { content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "search", arguments: "{}" } }], finish_reason: "tool_calls", usage: { input_tokens: 1, output_tokens: 1 } };
const finalTurn: ChatResponse = { content: "done", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 1 } };
const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
/** Spans ended so far (the SDK exports them asynchronously). */
async function finished(): Promise<ReadableSpan[]> {
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

describe("tracing a chat → tool → chat turn", () => {
  it("has one span per boundary call and one per hook, each under the right parent", async () => {
    await tracer.startActiveSpan("agent turn", async (root) => {
      await host.chat(ctx, { model: "m1", messages: [{ role: "user", content: "find shoes" }] }, async () => toolTurn);
      await host.tool(ctx, { toolId: "orders.search", name: "search", schema: { type: "object" }, arguments: {}, callId: "t1" }, async () => {
        tracer.startSpan("db query").end();
        return { rows: 2 };
      });
      await host.chat(ctx, { model: "m1", messages: [{ role: "user", content: "find shoes" }] }, async () => finalTurn);
      root.end();
    });
    const spans = await finished();
    const root = spans.find((s) => s.name === "agent turn")!;
    const boundaries = spans.filter((s) => s.name.startsWith("chat ") || s.name.startsWith("execute_tool "));
    expect(boundaries.map((s) => s.name)).toEqual(["chat m1", "execute_tool search", "chat m1"]);
    for (const b of boundaries) {
      expect(parentOf(b)).toBe(root.spanContext().spanId);
      expect(b.spanContext().traceId).toBe(root.spanContext().traceId);
    }
    const hooksOf = (b: ReadableSpan) => spans.filter((s) => parentOf(s) === b.spanContext().spanId && s.name.startsWith("sluice.hook"));
    const [chat1, toolCall, chat2] = boundaries as [ReadableSpan, ReadableSpan, ReadableSpan];
    expect(hooksOf(chat1).map((s) => s.attributes["sluice.hook.binding_id"])).toEqual(["chat-before", "chat-after"]);
    expect(hooksOf(toolCall).map((s) => s.attributes["sluice.hook.binding_id"])).toEqual(["tool-before-1", "tool-before-2", "tool-after"]);
    expect(hooksOf(chat2)).toHaveLength(2);
    expect(spans.filter((s) => s.name.startsWith("sluice.hook"))).toHaveLength(7);

    // The service's own span inside execute nests under the boundary span.
    expect(parentOf(spans.find((s) => s.name === "db query")!)).toBe(toolCall.spanContext().spanId);

    // Attributes name the call and the hooks.
    expect(toolCall.attributes).toMatchObject({ "gen_ai.tool.name": "search", "gen_ai.tool.call.id": "t1", "sluice.outcome": "succeeded", "sluice.real_status": "succeeded", "sluice.revision": 1 });
    expect(hooksOf(toolCall)[0]!.attributes).toMatchObject({ "sluice.hook.point": "tool.before", "sluice.hook.ref": "contract@1.0.0", "sluice.hook.outcome": "continue" });

    // Guest hooks of one stage are laid end to end, inside their boundary span.
    const [h1, h2] = hooksOf(toolCall) as [ReadableSpan, ReadableSpan];
    expect(ms(h2.startTime)).toBeCloseTo(ms(h1.endTime), 3);
    for (const h of hooksOf(toolCall)) {
      expect(ms(h.startTime)).toBeGreaterThanOrEqual(ms(toolCall.startTime) - 1);
      expect(ms(h.endTime)).toBeLessThanOrEqual(ms(toolCall.endTime) + 1);
    }
  });

  it("marks a rejected call and its rejecting hook", async () => {
    exporter.reset();
    host.activate({ revision: 2, bindings: [{ id: "deny", hookRef: "contract", point: "tool.before", config: { mode: "reject", code: "no", reason: "denied" } }] });
    await host.tool(ctx, { toolId: "orders.search", name: "search", schema: { type: "object" }, arguments: {}, callId: "t2" }, async () => 1);
    const spans = await finished();
    const call = spans.find((s) => s.name === "execute_tool search")!;
    expect(call.attributes).toMatchObject({ "sluice.outcome": "rejected", "error.type": "HOOK_REJECTED", "sluice.called": false });
    expect(call.status.code).toBe(2); // ERROR
    // The hook's reason is text: the span carries the code's summary (the error's own message only with payloads).
    expect(call.status.message).toBe(ERROR_CODES.HOOK_REJECTED.summary);
    expect(spans.find((s) => s.name === "sluice.hook tool.before")!.attributes["sluice.hook.outcome"]).toBe("reject");
  });

  it("is a no-op without an SDK: the default tracer records nothing and costs no parent", async () => {
    expect(trace.getTracerProvider().getTracer("sluice").startSpan("x").isRecording()).toBe(false);
  });

  it("starts no hook span under a boundary span that does not record (no SDK, or not sampled)", async () => {
    const noop = trace.getTracerProvider().getTracer("sluice");
    const started: string[] = [];
    const counting = { startSpan: (name: string, ...rest: unknown[]) => { started.push(name); return (noop.startSpan as (...a: unknown[]) => ReturnType<typeof noop.startSpan>)(name, ...rest); }, startActiveSpan: noop.startActiveSpan.bind(noop) } as typeof noop;
    const quiet = createHost({ workers: 1, observer: createObserver({ tracer: counting }) });
    try {
      await quiet.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
      quiet.activate({ revision: 1, bindings: [
        { id: "b1", hookRef: "contract@1.0.0", point: "model.chat.before", config: { mode: "continue" } },
        { id: "a1", hookRef: "contract@1.0.0", point: "model.chat.after", config: { mode: "continue" } },
      ] });
      const r = await quiet.chat(ctx, { model: "m", messages: [{ role: "user", content: "hi" }] }, async () => finalTurn);
      expect(r.ok).toBe(true);
      // The boundary span alone: its two hooks ran, and neither got a span nobody records.
      expect(started).toEqual(["chat m"]);
    } finally {
      await quiet.close();
    }
  });
});
