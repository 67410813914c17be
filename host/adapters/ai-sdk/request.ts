/**
 * An AI SDK call (LanguageModelV4CallOptions) as a host chat request, and the call the model
 * gets after the hooks. Hooks see the declared view (messages, function tools, the declared
 * params: params.ts); everything else (provider options, provider tools, headers, topK, ...) goes to
 * the model untouched, because it is taken from the original call, never from the view.
 */
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import type { ChatRequest } from "../../index.js";
import { messagesOf, promptOf, type MappedPrompt } from "./prompt.js";
import { applyParams, paramsOf } from "./params.js";

export interface MappedCall {
  request: ChatRequest;
  prompt: MappedPrompt;
}

export function requestOf(modelId: string, call: LanguageModelV4CallOptions): MappedCall {
  const prompt = messagesOf(call.prompt);
  const tools = (call.tools ?? []).flatMap((t) => (t.type === "function" ? [{ name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.inputSchema as Record<string, unknown> }] : []));
  const params = paramsOf(call);
  const request: ChatRequest = { model: modelId, messages: prompt.messages, ...(tools.length ? { tools } : {}), ...(Object.keys(params).length ? { params } : {}) };
  return { request, prompt };
}

/** The call for the model: the original one with what the hooks changed in messages and params. */
export function callOf(call: LanguageModelV4CallOptions, mapped: MappedCall, hooked: ChatRequest, signal: AbortSignal): LanguageModelV4CallOptions {
  const out: LanguageModelV4CallOptions = { ...call, prompt: promptOf(call.prompt, mapped.prompt, hooked.messages), abortSignal: signal };
  applyParams(out, (mapped.request.params ?? {}) as Record<string, unknown>, (hooked.params ?? {}) as Record<string, unknown>);
  return out;
}
