/**
 * V8 compiles WebAssembly functions lazily, on their first call, by default. The first call
 * would then compile the guest in whichever worker runs it first, on that call's clock (a
 * fresh worker's first call cost about 250 µs more). Compiling every function at upload
 * puts that cost where the host already pays for validation and compilation. The flag is
 * process-wide: every module compiled in this process afterwards is compiled eagerly.
 */
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--no-wasm-lazy-compilation");
