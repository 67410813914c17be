import type { Model, ModelProvider } from "@openai/agents";
import type { CallContext, Host } from "../../index.js";
import { SluiceModel } from "./model.js";

/** What a {@link SluiceModelProvider} is built from. */
export interface SluiceModelProviderOptions {
  /** The provider whose models are guarded, e.g. `new OpenAIProvider()`. */
  provider: ModelProvider;
  host: Host;
  /** The hooks' context of each call: a fixed one, or one per call. */
  context: CallContext | ((request: Parameters<Model["getResponse"]>[0]) => CallContext);
}

/**
 * A model provider whose every model is a {@link SluiceModel}: agents that name their
 * model by a string (`model: "gpt-4o"`) are guarded too, and bindings match that name.
 *
 * @example
 * const runner = new Runner({ modelProvider: new SluiceModelProvider({ provider: new OpenAIProvider(), host, context: { spaceId: "support" } }) });
 * await runner.run(new Agent({ name: "support", model: "gpt-4o" }), "Where is my order?");
 */
export class SluiceModelProvider implements ModelProvider {
  constructor(private readonly options: SluiceModelProviderOptions) {}

  async getModel(modelName?: string): Promise<Model> {
    const model = await this.options.provider.getModel(modelName);
    return model instanceof SluiceModel ? model : new SluiceModel({ model, modelId: modelName ?? "default", host: this.options.host, context: this.options.context });
  }
}
