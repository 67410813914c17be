import { Usage, type Model, type ModelRequest, type ModelResponse, type StreamEvent } from "@openai/agents";
import type { CallContext, ChatRequest, Host } from "../../index.js";
import { answerOf, chunkOf, pieceOf, responseOf, type Piece } from "../shared/host-chat.js";
import { inputAfter, messagesOf, type MappedInput } from "./items.js";
import { answerOfOutput, outputOf, outputSlots } from "./output.js";
import { paramsOf, settingsAfter } from "./params.js";

/** What a {@link SluiceModel} is built from. */
export interface SluiceModelOptions {
  model: Model;
  host: Host;
  /** The hooks' context of each call: a fixed one, or one per call. */
  context: CallContext | ((request: ModelRequest) => CallContext);
  /** The model id bindings match and hooks see. */
  modelId: string;
}

/** A failing model call rejects with the model's own error, after the host recorded it: the runner's retry advice sees it. */
const ORIGINAL = { errorMode: "original" } as const;

type ResponseDone = Extract<StreamEvent, { type: "response_done" }>["response"];

/**
 * An Agents SDK `Model` run through the host: `getResponse` through `host.chat`,
 * `getStreamedResponse` through `host.chatStream`. The items of a request are regrouped
 * into chat messages for the hooks and back; streamed text reaches the runner only as
 * hooked `output_text_delta` events, the model's raw events are not relayed, and the
 * final `response_done` carries the hooked text and tool calls. A reject or block
 * throws the host's SluiceError; a failure of the wrapped model its own error.
 *
 * @example
 * const model = new SluiceModel({ model: new OpenAIResponsesModel(client, "gpt-4o"), modelId: "gpt-4o", host, context: { spaceId: "support" } });
 * const agent = new Agent({ name: "support", model, tools: [guardTool(search, { host, context })] });
 */
export class SluiceModel implements Model {
  constructor(private readonly options: SluiceModelOptions) {}

  private contextOf(request: ModelRequest): CallContext {
    const base = typeof this.options.context === "function" ? this.options.context(request) : this.options.context;
    const signals = [base.signal, request.signal].filter((s): s is AbortSignal => s !== undefined);
    return { ...base, ...(signals.length ? { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) } : {}) };
  }

  private shown(request: ModelRequest): { mapped: MappedInput; chat: ChatRequest } {
    const mapped = messagesOf(request);
    const tools = request.tools.flatMap((t) => (t.type === "function" ? [{ name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters as Record<string, unknown> }] : []));
    const params = paramsOf(request.modelSettings ?? {});
    return { mapped, chat: { model: this.options.modelId, messages: mapped.messages, ...(tools.length ? { tools } : {}), ...(Object.keys(params).length ? { params } : {}) } };
  }

  /** The model's request after the hooks: their messages and params, everything else as the runner sent it. */
  private requestAfter(request: ModelRequest, mapped: MappedInput, hooked: ChatRequest, signal: AbortSignal): ModelRequest {
    const modelSettings = settingsAfter(request.modelSettings ?? {}, (hooked.params ?? {}) as Record<string, unknown>);
    return { ...request, ...inputAfter(request, mapped, hooked.messages), modelSettings, signal };
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const { mapped, chat } = this.shown(request);
    let real: ModelResponse | undefined;
    const r = await this.options.host.chat(this.contextOf(request), chat, async (hooked, op) => {
      real = await this.options.model.getResponse(this.requestAfter(request, mapped, hooked, op.signal));
      return responseOf(answerOfOutput(real.output, real.usage));
    }, ORIGINAL);
    if (!r.ok) throw r.error;
    const answer = answerOf(r.output);
    const usage = real && r.facts.called ? real.usage : usageOf(answer.usage);
    return { ...(r.facts.called ? real : {}), usage, output: outputOf(answer, r.facts.called ? real?.output : undefined) } as ModelResponse;
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const { mapped, chat } = this.shown(request);
    const inner = this.options.model;
    const self = this;
    let done: ResponseDone | undefined;
    const stream = this.options.host.chatStream(this.contextOf(request), chat, async function* (hooked, op) {
      const streamed = { text: "", reasoning: "" };
      for await (const event of inner.getStreamedResponse(self.requestAfter(request, mapped, hooked, op.signal))) {
        const piece = pieceOfEvent(event);
        if (event.type === "response_done") {
          done = event.response;
          // Text of the final items the model did not stream (reasoning sent only with the response, say) goes through the chunk hooks now.
          const slots = outputSlots(event.response.output as never);
          for (const [key, text] of [["text", slots.content.map((s) => s.text).join("")], ["reasoning", slots.reasoning.map((s) => s.text).join("")]] as const) {
            if (text.length > streamed[key].length && text.startsWith(streamed[key])) yield chunkOf({ [key]: text.slice(streamed[key].length) });
          }
        }
        if (piece?.text) streamed.text += piece.text;
        if (piece?.reasoning) streamed.reasoning += piece.reasoning;
        if (piece) yield chunkOf(piece);
      }
    }, ORIGINAL);

    yield { type: "response_started" };
    for await (const emitted of stream) {
      const piece = pieceOf(emitted);
      if (piece.reasoning) yield { type: "model", event: { type: "response.reasoning_summary_text.delta", delta: piece.reasoning } };
      if (piece.text) yield { type: "output_text_delta", delta: piece.text };
    }
    const r = await stream.result;
    if (!r.ok) throw r.error;
    const answer = answerOf(r.output);
    const called = r.facts.called && done;
    yield {
      type: "response_done",
      response: {
        ...(called ? done : {}),
        id: (called ? done!.id : undefined) ?? `sluice-${r.facts.operationId}`,
        usage: called ? done!.usage : usageOf(answer.usage),
        output: outputOf(answer, called ? (done!.output as never) : undefined) as never,
      },
    };
  }
}

function usageOf(u: { input: number; output: number }): ModelResponse["usage"] {
  return new Usage({ requests: 1, inputTokens: u.input, outputTokens: u.output, totalTokens: u.input + u.output });
}

/** What of a model's stream event goes through the chunk hooks; raw provider events carry text unscanned and are not relayed. */
function pieceOfEvent(event: StreamEvent): Piece | undefined {
  if (event.type === "output_text_delta") return { text: event.delta };
  if (event.type === "model") {
    const e = event.event as { type?: unknown; delta?: unknown } | undefined;
    return e && typeof e.delta === "string" && typeof e.type === "string" && e.type.startsWith("response.reasoning") ? { reasoning: e.delta } : undefined;
  }
  if (event.type === "response_done") {
    // Tool calls come whole with the response: one delta each, so the after stage sees them.
    const answer = answerOfOutput(event.response.output as never, event.response.usage as never);
    return {
      toolCalls: answer.toolCalls.map((c, index) => ({ index, id: c.id, function: { name: c.function.name, arguments: c.function.arguments } })),
      finishReason: answer.finishReason, usage: answer.usage,
    };
  }
  return undefined;
}
