// The friendly API of the Sluice guest SDK. Re-export the raw ABI from the entry file
// with `export * from "@sluice/guest-sdk/exports"`; the key-value store is imported
// separately from "@sluice/guest-sdk/kv" because it needs the `kv` capability.
export { Kind, Value } from "./value";
export { Context, Request } from "./request";
export { ABI, Outcome } from "./outcome";
export { Hook, registerHook } from "./hook";
export { log } from "./log";
export { fatal } from "./abort";
export { ToolBefore, ToolAfter, ChatBefore, ChatAfter, ChatChunk, EmbeddingBefore } from "./views";
export { decode, decodeBytes, Decoded, MAX_DEPTH } from "./msgpack/reader";
export { encode } from "./msgpack/writer";
