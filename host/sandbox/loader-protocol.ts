import type { ErrorData } from "../errors/sluice-error.js";
import type { LoadedModule, LoadOptions } from "./loaded-module.js";

/** Main thread → loader thread: one guest to check and compile. */
export interface LoaderRequest { id: number; bytes: Uint8Array; sha256: string; options: LoadOptions }

/** Loader thread → main thread. */
export type LoaderReply = { id: number; ok: true; loaded: LoadedModule } | { id: number; ok: false; error: ErrorData };
