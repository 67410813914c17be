/**
 * POST /v1/messages (the Anthropic Messages API, `?beta=true` or not) through the same chat
 * boundary, hook points and payloads as /v1/chat/completions: the body's view is what
 * model.chat.before sees (anthropic-request.ts), the upstream is an Anthropic one, and the
 * answer goes back as the upstream's message or its events, with only what the hooks changed
 * changed (anthropic-response.ts, anthropic-relay.ts). A stream's headers wait for its first
 * effective chunk, so a reject is a plain HTTP error in Anthropic's format.
 *
 * POST /v1/messages/count_tokens is forwarded as it came: it produces no answer and calls
 * no model, so no hook point applies to it. GET /v1/models (and /v1/models/{id}) is relayed
 * too, for clients that list models before they pick one.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { CallContext } from "../engine/call-types.js";
import type { Host } from "../host.js";
import { callerOf } from "./auth.js";
import { readAnthropicBody, toAnthropicView } from "./anthropic-request.js";
import { anthropicFacts, eventsCall, messageCall } from "./anthropic-upstream.js";
import { toMessage } from "./anthropic-response.js";
import { AnthropicRelay, namedEvent } from "./anthropic-relay.js";
import { anthropicStreamError, replyAnthropicError } from "./anthropic-error.js";
import { openStream } from "./open-stream.js";
import { clientSignal } from "./client-signal.js";
import { writeFrame } from "./sse.js";
import { logUnfinishedRecord } from "./unfinished-record.js";
import type { Upstream } from "./upstream.js";
import { passedQuery } from "./passed-query.js";

/** The client's protocol headers the upstream needs; never its key. */
const PASSED_ON = ["anthropic-version", "anthropic-beta"] as const;

function passedOn(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASSED_ON) {
    const v = request.headers[name];
    if (v !== undefined) out[name] = Array.isArray(v) ? v.join(",") : v;
  }
  out["anthropic-version"] ??= "2023-06-01";
  return out;
}

export function anthropicMessages(host: Host, upstream: Upstream) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const caller = callerOf(request);
    const body = readAnthropicBody(request.body);
    const view = toAnthropicView(body);
    const headers = passedOn(request);
    const ctx: CallContext = { spaceId: caller.spaceId, actorId: caller.id, purpose: "action", signal: clientSignal(reply.raw) };
    const facts = anthropicFacts();
    if (body.stream !== true) {
      const r = await host.chat(ctx, view.request, messageCall(upstream, body, view, headers, facts));
      reply.header("x-sluice-operation-id", r.facts.operationId);
      logUnfinishedRecord(reply, r.facts);
      if (!r.ok) return replyAnthropicError(reply, r.error);
      return toMessage(facts.message, body.model, r.output);
    }
    const opened = await openStream(host, ctx, view.request, eventsCall(upstream, body, view, headers, facts), reply, replyAnthropicError);
    if ("replied" in opened) return opened.replied;
    const { stream, it, res } = opened;
    let step = opened.step;
    const relay = new AnthropicRelay(facts, body.model);
    try {
      for (; !step.done; step = await it.next()) {
        const frames = relay.frames(step.value);
        if (frames !== "") await writeFrame(res, frames);
      }
      const result = await stream.result;
      logUnfinishedRecord(reply, result.facts);
      if (result.ok) {
        const frames = relay.finish(result.output);
        if (frames !== "") await writeFrame(res, frames);
      }
    } catch (err) {
      // Headers are sent: the error travels as Anthropic's error event, which the SDK raises as an APIError.
      await writeFrame(res, namedEvent("error", JSON.stringify(anthropicStreamError(reply, err))));
    } finally {
      res.end();
    }
    return reply;
  };
}

export function anthropicCountTokens(upstream: Upstream) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    callerOf(request);
    readAnthropicBody(request.body);
    const counted = await upstream.json("/messages/count_tokens", request.body, clientSignal(reply.raw), passedOn(request));
    return reply.send(counted);
  };
}

/**
 * GET /v1/models and /v1/models/{id}, relayed. OpenAI clients ask the same path: a request
 * without `anthropic-version` (which every Anthropic client sends) is not this route's.
 */
export function anthropicModels(upstream: Upstream) {
  return async (request: FastifyRequest<{ Params: { id?: string } }>, reply: FastifyReply): Promise<unknown> => {
    if (request.headers["anthropic-version"] === undefined) return reply.callNotFound();
    callerOf(request);
    const id = request.params.id;
    const path = `/models${id === undefined ? "" : `/${encodeURIComponent(id)}`}${passedQuery(request.url)}`;
    return reply.send(await upstream.getJson(path, clientSignal(reply.raw), passedOn(request)));
  };
}
