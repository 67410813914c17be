/** The public entry of `sluice`: the host, its boundary types, and the error catalogue. */
export { createHost, Host, type HostOptions, type PluginInput } from "./host.js";
export type { CallContext, OperationContext, ExecutionFacts, BoundaryResult, BoundaryOptions, HookTrace, RealStatus } from "./boundary/types.js";
export type { ChatRequest, ChatResponse, ChatMessage, ToolCallOut } from "./boundary/chat.js";
export type { ChatStream, StreamChunk, EmittedChunk, ToolCallDelta } from "./boundary/stream.js";
export type { ToolCall, ToolOutput } from "./boundary/tool.js";
export type { EmbedRequest, EmbedOutput, EmbedOptions } from "./boundary/embed.js";
export type { InProcessHook, Grants, GuestPlugin } from "./pipeline/hooks.js";
export type { ReleaseInput, BindingInput, Release } from "./pipeline/release.js";
export { POINTS, POINT_NAMES, getPoint, type PointName } from "./pipeline/points.js";
export { SluiceError, isSluiceError, type ErrorData } from "./errors/sluice-error.js";
export { ERROR_CODES, type ErrorCode } from "./errors/codes.js";
export { createSandbox, Sandbox, type SandboxOptions } from "./sandbox/index.js";
export type { Outcome, PatchOp, RequestEnvelope, HookContext } from "../abi/envelope.js";
