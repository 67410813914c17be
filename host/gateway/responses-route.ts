/**
 * POST /v1/responses (the OpenAI Responses API) through the same chat boundary, hook
 * points and payloads as /v1/chat/completions: the body is translated into the chat body it
 * means (responses-request.ts), the upstream is asked for a chat completion, and the
 * effective answer goes back as a response or as its event stream (responses-output.ts).
 * So one hook serves both APIs, and the same rules hold: a stream's headers wait for its
 * first effective chunk, nothing a chunk hook has not seen is sent, and when an after hook
 * may change the answer, the text is held until it has run.
 *
 * A tool the chat upstream cannot run is left out of the upstream request, recorded with the
 * operation and shown to the hooks (responses-request.ts): a request is never refused for it.
 *
 * The reasoning item carries the upstream's reasoning as it came, so it is relayed only when
 * no binding at model.chat.chunk or model.chat.after may change the answer; otherwise the
 * reasoning item goes out without its summary (its token count stays). (The hooks do see
 * the reasoning since ABI 1.1; /v1/chat/completions relays what they left of it.)
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { CallContext } from "../engine/call-types.js";
import { instanceOf } from "../boundary/instance.js";
import type { Host } from "../host.js";
import { callerOf } from "./auth.js";
import { toChatRequest } from "./chat-request.js";
import { ownMeta } from "./chat-response.js";
import { chunksCall, completionCall, type UpstreamFacts } from "./chat-upstream.js";
import { openStream } from "./open-stream.js";
import { clientSignal } from "./client-signal.js";
import { replyError, streamErrorBody } from "./openai-error.js";
import { readResponsesBody, type DroppedItem } from "./responses-request.js";
import type { ChatRequest } from "../boundary/chat.js";
import { ResponseEvents, responseIds, toResponse } from "./responses-output.js";
import { writeFrame } from "./sse.js";
import type { Upstream } from "./upstream.js";
import { logUnfinishedRecord } from "./unfinished-record.js";
import { withChanges } from "../objects/with-keys.js";

/** Whether a binding that may change the answer runs on this call's chunks or answer. */
function governed(host: Host, ctx: CallContext, model: string): boolean {
  const purpose = ctx.purpose ?? "action";
  const stages = host.begin({ spaceId: ctx.spaceId, actorId: ctx.actorId, purpose }, { purpose, modelId: model, instance: instanceOf(ctx), spaceId: ctx.spaceId });
  try {
    return stages.outputMayChange("model.chat.chunk") || stages.outputMayChange("model.chat.after");
  } finally {
    stages.end();
  }
}

/**
 * The hooks' view with each dropped tool listed among the tools (read-only at
 * model.chat.before), so a policy on what an agent may use sees the whole request. Its
 * description says it does not reach the model.
 */
function withDroppedTools(view: ChatRequest, dropped: readonly DroppedItem[]): ChatRequest {
  const tools = dropped.filter((d) => d.param.startsWith("tools[")).map((d) => ({
    name: d.name ?? d.type,
    description: `not forwarded: a ${d.type} tool, which the chat-completions upstream cannot run`,
    parameters: { type: "object", properties: {} },
  }));
  return tools.length === 0 ? view : withChanges(view, { tools: [...(view.tools ?? []), ...tools] });
}

export function responses(host: Host, upstream: Upstream) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const caller = callerOf(request);
    const raw = request.body as Record<string, any>;
    const { chat, stream, dropped } = readResponsesBody(raw);
    const view = withDroppedTools(toChatRequest(chat), dropped);
    const ctx: CallContext = { spaceId: caller.spaceId, actorId: caller.id, purpose: "action", signal: clientSignal(reply.raw) };
    const facts: UpstreamFacts = { reasoning: "", ...(dropped.length > 0 ? { dropped } : {}) };

    if (!stream) {
      const r = await host.chat(ctx, view, completionCall(upstream, chat, view, facts));
      reply.header("x-sluice-operation-id", r.facts.operationId);
      logUnfinishedRecord(reply, r.facts);
      if (!r.ok) return replyError(reply, r.error);
      const reasoning = facts.reasoning === "" ? null : governed(host, ctx, chat.model) ? "" : facts.reasoning;
      return toResponse(responseIds(), facts.meta ?? ownMeta(chat.model), raw, r.output, reasoning);
    }

    const opened = await openStream(host, ctx, view, chunksCall(upstream, chat, view, facts), reply, replyError);
    if ("replied" in opened) return opened.replied;
    const { stream: s, it, res } = opened;
    let step = opened.step;
    const events = new ResponseEvents(responseIds(), facts.meta ?? ownMeta(chat.model), raw);
    const withhold = governed(host, ctx, chat.model);
    let reasoned = 0;
    // Reasoning the upstream sent before this chunk goes out ahead of it.
    const reasoning = (): string => {
      if (withhold || facts.reasoning.length === reasoned) return "";
      const delta = facts.reasoning.slice(reasoned);
      reasoned = facts.reasoning.length;
      return events.reasoning(delta);
    };
    let frames = events.start();
    try {
      for (; !step.done; step = await it.next()) {
        frames += reasoning() + events.text(step.value.delta) + (step.value.tool_calls ? events.toolCalls(step.value.tool_calls) : "");
        if (frames !== "") await writeFrame(res, frames);
        frames = "";
      }
      const result = await s.result;
      logUnfinishedRecord(reply, result.facts);
      if (result.ok) await writeFrame(res, reasoning() + events.finish(result.output, withhold && facts.reasoning !== ""));
    } catch (err) {
      // Headers are sent: the error travels as an event, which OpenAI clients raise as an APIError.
      await writeFrame(res, frames + events.error(streamErrorBody(reply, err)));
    } finally {
      res.end();
    }
    return reply;
  };
}
