/** `sluice/openai-agents`: OpenAI Agents SDK models and function tools, run through the host's hooks. */
export { SluiceModel, type SluiceModelOptions } from "./model.js";
export { SluiceModelProvider, type SluiceModelProviderOptions } from "./provider.js";
export { guardTool, type GuardToolOptions } from "./tool.js";
