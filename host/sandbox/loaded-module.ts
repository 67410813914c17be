import { createHash } from "node:crypto";
import type { Capability } from "./capabilities.js";
import type { ComponentCode } from "./loader/component/protocol.js";
import type { PluginLimits } from "./limits.js";

/** How a worker puts a used instance back into a fresh one's state (abi/README.md §8). */
export interface Reuse {
  /** The export that sets the globals to their initial values and runs the start function (reset-export.ts). */
  reset: string;
  /** Instantiation writes data segments below this offset only (wasm-shape.ts dataEnd): the image a worker copies. */
  imageBytes: number;
}

export interface LoadOptions {
  limits?: Partial<PluginLimits>;
  capabilities?: readonly string[];
}

/** A guest that passed every static check, compiled once with its memory capped. Plain data plus a Module: safe to send to workers. */
export type CompileTier = "optimised" | "baseline";

export interface LoadedModule {
  sha256: string;
  abi: { major: number; minor: number };
  limits: PluginLimits;
  capabilities: readonly Capability[];
  /** Compiled with its memory turned into an import the host supplies (see hostMemory). */
  module: WebAssembly.Module;
  memory: { initialPages: number; maxPages: number };
  byteLength: number;
  /**
   * The code a first call runs: "optimised" when every core module was compiled by V8's
   * optimising compiler at upload (optimised-compile.ts), "baseline" when one was too large
   * for that and starts in baseline code until V8 tiers it up in the background.
   */
  tier: CompileTier;
  /** Set when a used instance may serve again (instance-pool.ts); absent: every invocation gets a fresh instance. */
  reuse?: Reuse;
  /** Set for a component guest: the worker runs it through component/run-component.ts. */
  component?: ComponentCode;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
