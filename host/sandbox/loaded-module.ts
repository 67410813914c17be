import { createHash } from "node:crypto";
import type { Capability } from "./capabilities.js";
import type { ComponentCode } from "./component/protocol.js";
import type { PluginLimits } from "./limits.js";

export interface LoadOptions {
  limits?: Partial<PluginLimits>;
  capabilities?: readonly string[];
}

/** A guest that passed every static check, compiled once with its memory capped. Plain data plus a Module: safe to send to workers. */
export interface LoadedModule {
  sha256: string;
  abi: { major: number; minor: number };
  limits: PluginLimits;
  capabilities: readonly Capability[];
  /** Compiled with its memory turned into an import the host supplies (see hostMemory). */
  module: WebAssembly.Module;
  memory: { initialPages: number; maxPages: number };
  byteLength: number;
  /** The export that resets a used instance to a fresh one's state (reset-export.ts); absent: every invocation gets a fresh instance. */
  reset?: string;
  /** Set for a component guest (issue #11): the worker runs it through component/run-component.ts. */
  component?: ComponentCode;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
