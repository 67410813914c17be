/**
 * A core guest is compiled by V8's optimising compiler (TurboFan) at upload, never by its
 * baseline compiler (Liftoff). By default V8 runs a new module's functions in Liftoff code
 * and tiers them up in the background, but WebAssembly has no on-stack replacement: a call
 * that starts in Liftoff code stays in it to its end. In Liftoff code the first call of a
 * freshly uploaded guest runs several times slower than later ones (the `loop` fixture's
 * first call 109 ms of CPU against 23 ms after, `fuel-price-store-miss` 222 and 634 ms of
 * wall time in a sandbox), so at the default limits the clock, which terminates the worker,
 * would stop it instead of its fuel. Compiled here: 22-53 ms, as later calls.
 *
 * The flag is process-wide and V8 reads it when a compilation starts, so it is set only for
 * the span of one synchronous compile of a guest (this is the loader thread: nothing else
 * runs on it meanwhile) and put back at once. Set for the whole process it would also put
 * binaryen (the meter's own 10+ MB of wasm) through TurboFan: the first upload went from
 * about 1.1 s to 10-17 s. Components keep V8's default: their SpiderMonkey core module
 * (14 MiB metered) takes 0.4 s of wall time in Liftoff and 7.4 s (14.6 s of CPU, +245 MiB)
 * in TurboFan. A small plugin takes 17-25 ms either way.
 *
 * The same rule holds for a component's core modules as for a core guest: a module over
 * OPTIMISED_MAX_BYTES keeps V8's default (the SpiderMonkey core module of a JavaScript
 * component above took 7.4 s optimised; a 15.4 MiB module of 100,000 functions 3.5 s and
 * 112 MiB against 0.3-0.5 s and 77 MiB), so its first call may still run baseline code
 * (abi/README.md §11 says so); every smaller one is compiled optimised, an AssemblyScript
 * hook wrapped as a component included.
 *
 * Where the process was started with its own choice of liftoff flags, that choice stands.
 */
import { setFlagsFromString } from "node:v8";
import type { CompileTier } from "../loaded-module.js";

const userChoseTier = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((a) => /^--(no-)?liftoff/.test(a));

/** The largest (metered) core module compiled optimised: far above any AssemblyScript reference plugin (the largest is 30 KB). */
export const OPTIMISED_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Compiles a guest's (metered) core module bytes, up to OPTIMISED_MAX_BYTES with every
 * function in optimised code, and says which. Throws WebAssembly.CompileError as compiling does.
 */
export function compileOptimised(bytes: Uint8Array): { module: WebAssembly.Module; tier: CompileTier } {
  if (userChoseTier || bytes.byteLength > OPTIMISED_MAX_BYTES) return { module: new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), tier: "baseline" };
  setFlagsFromString("--no-liftoff");
  try {
    return { module: new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), tier: "optimised" };
  } finally {
    setFlagsFromString("--liftoff");
  }
}
