// errorMode "original" hands the wrapped call's own error back to the caller (a
// framework's retry logic then sees its own error class), while the host still records
// the failure: error and finally stages, facts in the record, OPERATION_FAILED events.
import { afterAll, describe, expect, it } from "vitest";
import { createHost, createMemoryRecords } from "../../host/index.js";

class RateLimited extends Error {
  readonly status = 429;
  readonly isRetryable = true;
}

const records = createMemoryRecords();
const host = createHost({ workers: 1, records });
const diagnostics: string[] = [];
host.registerHook("diag", (req) => { diagnostics.push(`${req.point}:${String((req.payload as { error?: { code?: string } }).error?.code ?? (req.payload as { outcome?: string }).outcome)}`); return { kind: "continue" }; });
host.activate({ revision: 1, bindings: [{ id: "e", hookRef: "diag", point: "operation.error" }, { id: "f", hookRef: "diag", point: "operation.finally" }] } as never);
afterAll(() => host.close());
const ctx = { spaceId: "s" };
const request = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };

describe("errorMode", () => {
  it("is \"result\" by default: the wrapped call's failure is OPERATION_FAILED with the original as its cause", async () => {
    const original = new RateLimited("slow down");
    const r = await host.chat(ctx, request, async () => { throw original; });
    expect(!r.ok && r.error.code).toBe("OPERATION_FAILED");
    expect(!r.ok && r.error.details.cause).toBe(original);
  });

  it("\"original\" rejects host.chat with the very error the model call threw, after recording the failure", async () => {
    diagnostics.length = 0;
    const original = new RateLimited("slow down");
    const seen = await host.chat(ctx, request, async () => { throw original; }, { errorMode: "original", retries: 1 }).then(() => undefined, (e: unknown) => e);
    expect(seen).toBe(original);
    expect(seen).toBeInstanceOf(RateLimited);
    expect(diagnostics).toEqual(["operation.error:OPERATION_FAILED", "operation.finally:failed"]);
    // The only chat so far that made two attempts: this one; its record keeps the failure.
    const recorded = (await records.list()).filter((r) => r.identity.operation === "chat" && r.attempts === 2);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ realStatus: "failed", outcome: "failed", error: { code: "OPERATION_FAILED" } });
  });

  it("\"original\" rejects host.tool and host.embed with their own errors too", async () => {
    const toolError = new TypeError("tool broke");
    const t = await host.tool(ctx, { toolId: "t", name: "t", schema: { type: "object" }, arguments: {}, callId: "c" }, async () => { throw toolError; }, { errorMode: "original" }).then(() => undefined, (e: unknown) => e);
    expect(t).toBe(toolError);
    const embedError = new RangeError("embedder broke");
    const e = await host.embed(ctx, { model: "e", texts: ["a"] }, async () => { throw embedError; }, { errorMode: "original" }).then(() => undefined, (x: unknown) => x);
    expect(e).toBe(embedError);
  });

  it("\"original\" makes a streamed call's iteration throw the source's own error; its result still settles as OPERATION_FAILED", async () => {
    const original = new RateLimited("mid-stream");
    const stream = host.chatStream(ctx, request, async function* () { yield { delta: "a" }; throw original; }, { errorMode: "original" });
    const thrown = await (async () => { for await (const _ of stream) { /* drain */ } })().then(() => undefined, (e: unknown) => e);
    expect(thrown).toBe(original);
    const r = await stream.result;
    expect(!r.ok && r.error.code).toBe("OPERATION_FAILED");
  });

  it("\"original\" leaves every other failure a result (a hook's reject is not the model's error)", async () => {
    host.registerHook("no", () => ({ kind: "reject", code: "nope", reason: "no" }));
    host.activate({ revision: 2, bindings: [{ id: "r", hookRef: "no", point: "model.chat.before" }] } as never);
    const r = await host.chat(ctx, request, async () => { throw new Error("never called"); }, { errorMode: "original" });
    expect(!r.ok && r.error.code).toBe("HOOK_REJECTED");
    host.activate({ revision: 3, bindings: [{ id: "e", hookRef: "diag", point: "operation.error" }, { id: "f", hookRef: "diag", point: "operation.finally" }] } as never);
  });

  it("refuses an unknown errorMode with PAYLOAD_INVALID naming the option", async () => {
    const r = await host.chat(ctx, request, async () => ({ content: "x", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 0, output_tokens: 0 } }), { errorMode: "throw" as never });
    expect(!r.ok && r.error.details).toMatchObject({ field: "options.errorMode" });
  });
});
