/** `sluice/langchain`: LangChain chat models and `createAgent` model and tool calls, run through the host's hooks. */
export { SluiceChatModel, type SluiceChatModelFields, type SluiceChatModelCallOptions, type WrappedChatModel } from "./chat-model.js";
export { sluiceMiddleware, type SluiceMiddlewareOptions } from "./middleware.js";
