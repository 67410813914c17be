/**
 * Compiles an AssemblyScript hook into a Sluice guest module, in-process, with the
 * compiler Sluice itself resolves (asc-compile.ts does the work).
 */
import asc from "assemblyscript/asc";
import { compileWith, type CompileOptions } from "./asc-compile.js";

export { GUEST_SDK_DIR, GUEST_SDK_PACKAGE, REPO_ROOT, type CompileOptions } from "./asc-compile.js";

/**
 * Compiles `opts.entry` (see {@link compileWith}).
 * @example
 * const wasm = await compileAssemblyScript({ entry: path.resolve("plugins/cap-limit/hook.ts") });
 */
export function compileAssemblyScript(opts: CompileOptions): Promise<Uint8Array<ArrayBuffer>> {
  return compileWith(asc, opts);
}
