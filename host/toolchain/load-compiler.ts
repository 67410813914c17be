/**
 * The AssemblyScript compiler, loaded on demand. It is an optional peer dependency: a
 * service that only runs hooks never installs it, so an author command that
 * needs it and finds it missing says exactly what to install, at the version this Sluice
 * was built and tested with.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { SluiceError } from "../errors/sluice-error.js";
import type { CompileOptions } from "./asc-compile.js";
import { isMissingPackage, peerVersion } from "../sandbox/loader/peer-package.js";

interface Compiler { compileAssemblyScript(opts: CompileOptions): Promise<Uint8Array<ArrayBuffer>> }

/**
 * The compiler: the one Sluice itself resolves (installed beside it), else the one
 * installed in the plugin's folder or a folder above it (`sluice new` installs it there,
 * and an `npx sluice` lives elsewhere), or TOOLCHAIN_MISSING naming the package and the
 * install command when neither is there.
 * @example const { compileAssemblyScript } = await loadCompiler(pluginDir);
 */
export async function loadCompiler(fromDir?: string): Promise<Compiler> {
  try {
    return await import("./assemblyscript.js");
  } catch (err) {
    if (!isMissingPackage(err, "assemblyscript")) throw err;
    const local = fromDir !== undefined ? ascIn(fromDir) : undefined;
    if (local !== undefined) {
      const asc = ((await import(pathToFileURL(local).href)) as { default: import("./asc-compile.js").Asc }).default;
      const { compileWith } = await import("./asc-compile.js");
      return { compileAssemblyScript: (opts) => compileWith(asc, opts) };
    }
    const install = `npm install -D -E assemblyscript@${peerVersion("assemblyscript")}`;
    throw new SluiceError("TOOLCHAIN_MISSING", `building a plugin needs the AssemblyScript compiler, and it is not installed (it is an optional peer dependency of sluice): run \`${install}\``, { package: "assemblyscript", install });
  }
}

/** The path of `assemblyscript/dist/asc.js` as Node resolves it from `dir`, if installed there or above. */
function ascIn(dir: string): string | undefined {
  try {
    const pkg = createRequire(path.join(path.resolve(dir), "package.json")).resolve("assemblyscript/package.json");
    return path.join(path.dirname(pkg), "dist", "asc.js");
  } catch {
    return undefined;
  }
}
