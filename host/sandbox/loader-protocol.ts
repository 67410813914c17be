import type { ErrorData } from "../errors/sluice-error.js";
import type { LoadedModule, LoadOptions } from "./loaded-module.js";

/** Main thread → loader thread: one guest to check and compile, announced, then sent in parts. */
export type LoaderRequest =
  | { kind: "begin"; id: number; length: number; sha256: string; options: LoadOptions }
  | { kind: "part"; id: number; offset: number; part: Uint8Array };

/** Loader thread → main thread. */
export type LoaderReply = { id: number; ok: true; loaded: LoadedModule } | { id: number; ok: false; error: ErrorData };
