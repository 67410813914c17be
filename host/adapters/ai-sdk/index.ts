/** `sluice/ai-sdk`: the AI SDK's language models and tools, run through the host's hooks. */
export { sluiceMiddleware, type SluiceMiddlewareOptions } from "./middleware.js";
export { guardTools, type GuardToolsOptions } from "./tools.js";
