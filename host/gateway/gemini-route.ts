/**
 * POST /v1beta/models/{model}:generateContent and :streamGenerateContent (`?alt=sse`), the
 * Gemini API, through the same chat boundary, hook points and payloads as
 * /v1/chat/completions (gemini-request.ts for the view, gemini-relay.ts for the stream).
 * `:countTokens` (Gemini CLI asks it before compressing a conversation) is forwarded as it
 * came, and so are GET /v1beta/models and /v1beta/models/{model} (a model list and a model's
 * limits): none of them calls a model or returns text.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";
import type { ChatResponse } from "../boundary/chat.js";
import { answerText, usageView } from "../boundary/chat.js";
import type { CallContext } from "../engine/call-types.js";
import type { Host } from "../host.js";
import { callerOf } from "./auth.js";
import { readGeminiBody, toGeminiView } from "./gemini-request.js";
import { fromGenerate, generateCall, streamCall, type GeminiFacts } from "./gemini-upstream.js";
import { GeminiRelay } from "./gemini-relay.js";
import { geminiStreamError, replyGeminiError } from "./gemini-error.js";
import { openStream } from "./open-stream.js";
import { clientSignal } from "./client-signal.js";
import { sseEvent, writeFrame } from "./sse.js";
import { logUnfinishedRecord } from "./unfinished-record.js";
import type { Upstream } from "./upstream.js";
import { passedQuery } from "./passed-query.js";
import { withChanges, withKeys } from "../objects/with-keys.js";

type Json = Record<string, any>;

const CALL = /^([A-Za-z0-9._-]+):(generateContent|streamGenerateContent|countTokens)$/;

/** A chat finish reason as Gemini's finishReason (a short-circuit may give either); a call of functions ends with STOP. */
function finishReasonOf(finish: string): string {
  if (finish === "stop" || finish === "tool_calls") return "STOP";
  if (finish === "length") return "MAX_TOKENS";
  if (finish === "content_filter") return "SAFETY";
  return finish;
}

/** The answer as the client gets it: the upstream's, with the text the hooks changed written back; or the host's own (a short-circuit). */
function toAnswer(upstream: Json | undefined, model: string, out: ChatResponse): Json {
  const parts: Json[] = [];
  if (upstream) {
    const real = fromGenerate(upstream);
    if (answerText(out.content) === answerText(real.content) && (out.reasoning_content ?? "") === (real.reasoning_content ?? "")) return upstream;
    let text = false;
    let thought = false;
    // The hooks' text goes in the first part of its kind; a later part of that kind stays only for its thoughtSignature (the upstream's), emptied.
    const emptied = (p: Json) => { if (p.thoughtSignature !== undefined) parts.push(withKeys(p, { text: "" })); };
    for (const p of upstream.candidates?.[0]?.content?.parts ?? []) {
      if (typeof p?.text !== "string") { parts.push(p); continue; }
      if (p.thought === true) {
        if (!thought && out.reasoning_content) parts.push(withKeys(p, { text: out.reasoning_content }));
        else emptied(p);
        thought = true;
        continue;
      }
      if (!text && answerText(out.content) !== "") parts.push(withKeys(p, { text: answerText(out.content) }));
      else emptied(p);
      text = true;
    }
    if (!text && answerText(out.content) !== "") parts.push({ text: answerText(out.content) });
    // A blocked prompt has no candidate: a hook's text for it goes in one of its own.
    const [first, ...rest] = Array.isArray(upstream.candidates) && upstream.candidates.length > 0 ? upstream.candidates : [{ index: 0 }];
    return withKeys(upstream, { candidates: [withKeys(first, { content: withKeys(first.content ?? {}, { parts }) }), ...rest] });
  }
  if (out.reasoning_content) parts.push({ text: out.reasoning_content, thought: true });
  if (answerText(out.content) !== "") parts.push({ text: answerText(out.content) });
  for (const c of out.tool_calls) parts.push({ functionCall: { id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments || "{}") } });
  const usage = usageView(out.usage);
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: finishReasonOf(out.finish_reason), index: 0 }],
    usageMetadata: { promptTokenCount: usage.input_tokens, candidatesTokenCount: usage.output_tokens, totalTokenCount: usage.input_tokens + usage.output_tokens },
    modelVersion: model,
  };
}

export function geminiGenerate(host: Host, upstream: Upstream) {
  return async (request: FastifyRequest<{ Params: { call: string } }>, reply: FastifyReply): Promise<unknown> => {
    const caller = callerOf(request);
    const match = CALL.exec(request.params.call);
    if (!match) throw new SluiceError("ROUTE_NOT_FOUND", `no route POST ${request.url.split("?", 1)[0]}; the gateway serves POST /v1beta/models/{model}:generateContent, :streamGenerateContent and :countTokens, and GET /v1beta/models`);
    const [, model, method] = match as unknown as [string, string, string];
    // Counting calls no model and returns no text: forwarded as it came, as Anthropic's count_tokens is.
    if (method === "countTokens") return reply.send(await upstream.json(`/models/${model}:countTokens`, request.body, clientSignal(reply.raw)));
    // Without alt=sse the Gemini API streams one JSON array; the gateway writes events only.
    if (method === "streamGenerateContent" && (request.query as Record<string, unknown>).alt !== "sse") {
      throw new SluiceError("REQUEST_INVALID", "streamGenerateContent is served as server-sent events only: add ?alt=sse (as @google/genai and Gemini CLI do)", { param: "alt" });
    }
    const body = readGeminiBody(request.body);
    const view = toGeminiView(body, model);
    const ctx: CallContext = { spaceId: caller.spaceId, actorId: caller.id, purpose: "action", signal: clientSignal(reply.raw) };
    const facts: GeminiFacts = { chunks: [] };
    const path = `/models/${model}:${method}${method === "streamGenerateContent" ? "?alt=sse" : ""}`;
    if (method === "generateContent") {
      const r = await host.chat(ctx, view.request, generateCall(upstream, path, body, view, facts));
      reply.header("x-sluice-operation-id", r.facts.operationId);
      logUnfinishedRecord(reply, r.facts);
      if (!r.ok) return replyGeminiError(reply, r.error);
      return toAnswer(facts.answer, model, r.output);
    }
    const opened = await openStream(host, ctx, view.request, streamCall(upstream, path, body, view, facts), reply, replyGeminiError);
    if ("replied" in opened) return opened.replied;
    const { stream, it, res } = opened;
    let step = opened.step;
    const relay = new GeminiRelay(facts);
    let own = "";
    try {
      for (; !step.done; step = await it.next()) {
        // A short-circuit answer has no upstream responses: its text goes out as the host's own.
        if (facts.chunks.length === 0) { own += step.value.delta; continue; }
        const frames = relay.frames(step.value);
        if (frames !== "") await writeFrame(res, frames);
      }
      const result = await stream.result;
      logUnfinishedRecord(reply, result.facts);
      if (result.ok && facts.chunks.length === 0) await writeFrame(res, sseEvent(toAnswer(undefined, model, withChanges(result.output, { content: own === "" ? result.output.content : own }))));
    } catch (err) {
      // Headers are sent: the error travels as one more event, which @google/genai raises.
      await writeFrame(res, sseEvent(geminiStreamError(reply, err)));
    } finally {
      res.end();
    }
    return reply;
  };
}

/** GET /v1beta/models and /v1beta/models/{model}, relayed with the gateway's own key. */
export function geminiModels(upstream: Upstream) {
  return async (request: FastifyRequest<{ Params: { model?: string } }>, reply: FastifyReply): Promise<unknown> => {
    callerOf(request);
    const model = request.params.model;
    const path = `/models${model === undefined ? "" : `/${encodeURIComponent(model)}`}${passedQuery(request.url)}`;
    return reply.send(await upstream.getJson(path, clientSignal(reply.raw)));
  };
}
