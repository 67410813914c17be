/**
 * `POST /api/v1/call`: one boundary call through the live release, with a test executor in
 * place of the real tool, model or embedder (it echoes what it receives), so an author
 * sees a deployed hook act (`sluice call`). The call runs the server's real pipeline and is
 * recorded like any other, marked as a test: actor_id "sluice-call:test", run_id
 * "test-<uuid>", and the stub's name as the tool name or model.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { BoundaryResult, HookTrace } from "../../engine/call-types.js";
import type { ChatRequest, ChatResponse } from "../../boundary/chat.js";
import type { Host } from "../../host.js";
import { errorResponses } from "../schemas.js";
import { causeOf } from "../../errors/error-cause.js";
import { levelName, type GuestLogs } from "../../pipeline/guest-logs.js";
import { DEPLOYER } from "../roles.js";

const CALL_BODY = {
  type: "object",
  additionalProperties: false,
  required: ["kind"],
  properties: {
    kind: { enum: ["tool", "chat", "embedding"], description: "tool: host.tool (tool.before/after); chat: host.chat (model.chat.*); embedding: host.embed (embedding.*)." },
    tool_id: { type: "string", minLength: 1, maxLength: 256, description: "kind tool: the tool's id (bindings match on it)." },
    arguments: { type: "object", additionalProperties: true, description: "kind tool: the call's arguments." },
    message: { type: "string", maxLength: 1_000_000, description: "kind chat: the user message." },
    model: { type: "string", minLength: 1, maxLength: 256, description: "kind chat or embedding: the model id (bindings match on it). Default test-model." },
    texts: { type: "array", items: { type: "string", maxLength: 1_000_000 }, maxItems: 1000, description: "kind embedding: the texts." },
    space_id: { type: "string", minLength: 1, maxLength: 256, description: "The space the call runs in (bindings match on it). Default default." },
  },
} as const;

const ERROR = {
  type: "object", additionalProperties: false, required: ["code", "message"],
  properties: {
    code: { type: "string" }, message: { type: "string" },
    cause: { type: "object", additionalProperties: false, required: ["code", "message"], properties: { code: { type: "string" }, message: { type: "string" } }, description: "The catalogued cause a wrapping error (HOOK_FAILED) carries." },
  },
} as const;

/** The test call's answer: what went in, what the stub received, what came out, and each hook. Payloads are open: they are the call's own. */
const CALLED = {
  type: "object", additionalProperties: false, required: ["test", "ok", "operation_id", "revision", "called", "input", "hooks", "duration_ms"],
  properties: {
    test: { type: "boolean", enum: [true] },
    ok: { type: "boolean" },
    operation_id: { type: "string" },
    revision: { type: "integer" },
    called: { type: "boolean", description: "Whether the stub in place of the real call ran." },
    input: { description: "The call's input as sent: a tool's arguments, a chat's messages, an embedding's texts." },
    executed_with: { description: "What the stub received: the input after the before hooks (absent when it was never called)." },
    output: { description: "What the caller got (when ok)." },
    error: ERROR,
    hooks: {
      type: "array",
      items: {
        type: "object", additionalProperties: false, required: ["point", "binding", "hook_ref", "outcome", "duration_ms"],
        properties: {
          point: { type: "string" }, binding: { type: "string" }, hook_ref: { type: "string" }, outcome: { type: "string" },
          duration_ms: { type: "number" }, fuel: { type: "number" }, error: ERROR,
          logs: {
            type: "object", additionalProperties: false, required: ["lines", "dropped"], description: "The guest's log lines, in full: this answer goes to the author testing the hook and is not stored.",
            properties: { lines: { type: "array", items: { type: "object", additionalProperties: false, required: ["level", "message"], properties: { level: { type: "string" }, message: { type: "string" } } } }, dropped: { type: "integer" } },
          },
        },
      },
    },
    duration_ms: { type: "number" },
  },
} as const;

/** The actor id of every test call, so records and audits tell them from real traffic. */
export const TEST_CALL_ACTOR = "sluice-call:test";

interface CallBody { kind: "tool" | "chat" | "embedding"; tool_id?: string; arguments?: Record<string, unknown>; message?: string; model?: string; texts?: string[]; space_id?: string }

/**
 * Each hook's trace. A guest's log lines are shown in full: the caller is the author
 * testing their own deployed hook, and this answer is not stored (the record keeps what
 * docs/guest-logs.md says).
 */
function hooksOf(hooks: readonly HookTrace[]) {
  return hooks.map((h) => ({
    point: h.point, binding: h.bindingId, hook_ref: h.hookRef, outcome: h.outcome, duration_ms: h.durationMs,
    ...(h.fuel !== undefined ? { fuel: h.fuel } : {}), ...(h.error ? { error: errorOf(h.error) } : {}), ...(h.logs ? { logs: logsOf(h.logs) } : {}),
  }));
}

/** Code and message, and the catalogued cause a wrapping error (HOOK_FAILED) carries. */
function errorOf(error: { code: string; message: string; details?: Record<string, unknown> }) {
  const cause = causeOf(error);
  return { code: error.code, message: error.message, ...(cause ? { cause } : {}) };
}

function logsOf(logs: GuestLogs) {
  return { lines: logs.lines.map((l) => ({ level: levelName(l.level), message: l.message })), dropped: logs.dropped };
}

function answer(result: BoundaryResult<unknown>, input: unknown, executedWith: unknown, startedAt: number) {
  return {
    test: true,
    ok: result.ok,
    operation_id: result.facts.operationId,
    revision: result.facts.revision,
    called: result.facts.called,
    input,
    // What the stub received: the input after the before hooks (absent when it was never called).
    ...(executedWith !== undefined ? { executed_with: executedWith } : {}),
    ...(result.ok ? { output: result.output } : { error: errorOf(result.error) }),
    hooks: hooksOf(result.hooks),
    duration_ms: Math.round((performance.now() - startedAt) * 100) / 100,
  };
}

export function callRoutes(app: FastifyInstance, host: Host): void {
  app.post<{ Body: CallBody }>("/api/v1/call", {
    config: DEPLOYER,
    schema: {
      tags: ["operations"],
      summary: "Run one tool, chat or embedding call through the active release with a test executor that echoes its input (no real tool or model is called); returns the decision, the input the stub received (after the hooks), the output and each hook's outcome and timing. Recorded as an operation with actor_id sluice-call:test.",
      body: CALL_BODY,
      response: { 200: CALLED, ...errorResponses(400) },
    },
  }, async (request) => {
    const b = request.body;
    const ctx = { spaceId: b.space_id ?? "default", actorId: TEST_CALL_ACTOR, runId: `test-${randomUUID()}` };
    const t0 = performance.now();
    let seen: unknown;
    if (b.kind === "tool") {
      const args = b.arguments ?? {};
      const toolId = b.tool_id ?? "test.tool";
      const result = await host.tool(ctx, { toolId, name: toolId.split(".").pop() ?? toolId, schema: { type: "object" }, arguments: args, callId: `test-${randomUUID()}` }, async (executed) => {
        seen = executed;
        return { echoed: executed };
      });
      return answer(result, args, seen, t0);
    }
    if (b.kind === "chat") {
      const req: ChatRequest = { model: b.model ?? "test-model", messages: [{ role: "user", content: b.message ?? "" }] };
      const result = await host.chat(ctx, req, async (executed): Promise<ChatResponse> => {
        seen = executed.messages;
        const last = executed.messages[executed.messages.length - 1];
        const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
        return { content: `echo: ${text}`, tool_calls: [], finish_reason: "stop", usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } };
      });
      return answer(result, req.messages, seen, t0);
    }
    const texts = b.texts ?? [];
    const result = await host.embed(ctx, { model: b.model ?? "test-model", texts }, async (executed) => {
      seen = executed;
      // One small deterministic vector per text: its length, so an author can tell texts apart.
      return { vectors: executed.map((t) => [t.length, 1, 0]) };
    });
    return answer(result, texts, seen, t0);
  });
}
