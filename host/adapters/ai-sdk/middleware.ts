import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4GenerateResult, LanguageModelV4Middleware, LanguageModelV4StreamResult } from "@ai-sdk/provider";
import type { CallContext, Host } from "../../index.js";
import { answerOf, chunkOf, responseOf } from "../shared/host-chat.js";
import { answerOfResult, resultOf } from "./answer.js";
import { callOf, requestOf } from "./request.js";
import { hookedParts } from "./parts-stream.js";
import { pieceReader, streamLog } from "./stream.js";

/** Options of {@link sluiceMiddleware}. */
export interface SluiceMiddlewareOptions {
  host: Host;
  /** The hooks' context of each call (space, actor, run, ...): a fixed one, or one per call. */
  context: CallContext | ((call: LanguageModelV4CallOptions) => CallContext);
  /** The model id bindings match and hooks see; the wrapped model's id by default. */
  modelId?: string;
}

/** A failing model call rejects with the model's own error, after the host recorded it: the AI SDK's retries see their APICallError. */
const ORIGINAL = { errorMode: "original" } as const;

function contextOf(options: SluiceMiddlewareOptions, call: LanguageModelV4CallOptions): CallContext {
  const base = typeof options.context === "function" ? options.context(call) : options.context;
  const signals = [base.signal, call.abortSignal].filter((s): s is AbortSignal => s !== undefined);
  return { ...base, ...(signals.length ? { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) } : {}) };
}

/**
 * A language-model middleware that runs every generate and stream call of the wrapped
 * model through the host: `model.chat.before` on the prompt, `model.chat.chunk` on every
 * text, reasoning and tool-input delta, `model.chat.after` on the answer. A reject, block
 * is thrown as the host's SluiceError (its `code` says which); a failure of the model
 * itself as the model's own error, so the AI SDK's retry logic sees its APICallError.
 *
 * @example
 * const model = wrapLanguageModel({ model: openai("gpt-4o"), middleware: sluiceMiddleware({ host, context: { spaceId: "support" } }) });
 * const { text } = await generateText({ model, prompt: "Where is my order?" });
 */
export function sluiceMiddleware(options: SluiceMiddlewareOptions): LanguageModelV4Middleware {
  const { host } = options;
  const idOf = (model: LanguageModelV4): string => options.modelId ?? model.modelId;
  return {
    specificationVersion: "v4",

    async wrapGenerate({ params, model }) {
      const mapped = requestOf(idOf(model), params);
      let real: LanguageModelV4GenerateResult | undefined;
      const r = await host.chat(contextOf(options, params), mapped.request, async (request, op) => {
        real = await model.doGenerate(callOf(params, mapped, request, op.signal));
        return responseOf(answerOfResult(real));
      }, ORIGINAL);
      if (!r.ok) throw r.error;
      return resultOf(answerOf(r.output), r.facts.called ? real : undefined, idOf(model));
    },

    async wrapStream({ params, model }) {
      const mapped = requestOf(idOf(model), params);
      const log = streamLog();
      let opened: LanguageModelV4StreamResult | undefined;
      const read = pieceReader(log);
      const stream = host.chatStream(contextOf(options, params), mapped.request, async function* (request, op) {
        opened = await model.doStream(callOf(params, mapped, request, op.signal));
        log.opened = true;
        const reader = opened.stream.getReader();
        try {
          for (let part = await reader.read(); !part.done; part = await reader.read()) {
            const piece = read(part.value);
            if (piece) yield chunkOf(piece);
          }
        } finally {
          // Stopped early (a block, a cancel): the model's stream is cancelled, not left running.
          void reader.cancel().catch(() => undefined);
        }
      }, ORIGINAL);
      const chunks = stream[Symbol.asyncIterator]();
      // The first effective chunk is awaited here, so a reject or a failure before any text throws from the call itself.
      const first = await chunks.next();
      const parts = hookedParts(chunks, first, stream.result, log);
      return { stream: parts, ...(opened?.request ? { request: opened.request } : {}), ...(opened?.response ? { response: opened.response } : {}) };
    },
  };
}
