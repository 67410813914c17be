export { Sandbox, createSandbox, type SandboxOptions, type CallOptions, type InvokeResult, type PlannedCall } from "./main/sandbox.js";
export { loadModule, sha256Hex, type LoadedModule, type LoadOptions } from "./main/load-module.js";
export { resolveLimits, DEFAULT_LIMITS, HOST_MAX_LIMITS, type PluginLimits } from "./limits.js";
export { CAPABILITIES, type Capability } from "./capabilities.js";
export type { LogLine } from "./protocol.js";
