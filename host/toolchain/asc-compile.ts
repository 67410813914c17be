/**
 * Compiles an AssemblyScript hook into a Sluice guest module, in-process, with the
 * compiler given (this file never imports it: see assemblyscript.ts and load-compiler.ts).
 *
 * Plugins import the SDK as `@sluice/guest-sdk` from any folder, also outside this
 * repository: the compiler looks packages up through `node_modules/<pkg>/...` paths, and
 * the file callbacks below serve those paths from this repository's `guest-sdk/assembly/`.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type ascModule from "assemblyscript/asc";

/** The compiler's API used here: the one Sluice itself resolves, or one installed in a plugin's folder (load-compiler.ts). */
export type Asc = Pick<typeof ascModule, "main" | "createMemoryStream">;

function findRepoRoot(from: string): string {
  // Works from host/toolchain/*.ts (source) and dist/host/toolchain/*.js (compiled):
  // dist/ has no package.json, so the walk reaches the repository root either way.
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`cannot find package.json above ${from}`);
  }
}

export const REPO_ROOT = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
/** Absolute path of the guest SDK's AssemblyScript sources. */
export const GUEST_SDK_DIR = path.join(REPO_ROOT, "guest-sdk", "assembly");
/** The module name plugins import the SDK by. */
export const GUEST_SDK_PACKAGE = "@sluice/guest-sdk";

const SDK_MARKER = `node_modules/${GUEST_SDK_PACKAGE}/`;
// The compiler names package files `~lib/<pkg>/<file>`; `--use abort=` takes that name.
const ABORT_FUNCTION = `~lib/${GUEST_SDK_PACKAGE}/abort/sluiceAbort`;

export interface CompileOptions {
  /** Absolute path of the guest's entry `.ts` file. */
  entry: string;
  /** Default "speed" (-O3); "size" is -Oz. */
  optimize?: "speed" | "size";
}

/** Maps a path the compiler asks for to a file of the SDK, or null when it is not one. */
function sdkFile(requested: string): string | null {
  const normalized = requested.split(path.sep).join("/");
  const at = normalized.lastIndexOf(SDK_MARKER);
  if (at < 0) return null;
  // Packages conventionally keep sources in assembly/; accept both spellings.
  const rest = normalized.slice(at + SDK_MARKER.length).replace(/^assembly\//, "");
  const file = path.resolve(GUEST_SDK_DIR, rest);
  return file.startsWith(GUEST_SDK_DIR + path.sep) ? file : null;
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return null;
  }
}

/**
 * Compiles `opts.entry` with the stub runtime, the SDK's abort handler and no bindings,
 * and returns the wasm bytes. Throws an Error carrying the compiler's diagnostics when the
 * source does not compile.
 *
 * @example
 * const wasm = await compileWith((await import("assemblyscript/asc")).default, { entry: path.resolve("plugins/cap-limit/hook.ts") });
 */
export async function compileWith(asc: Asc, opts: CompileOptions): Promise<Uint8Array<ArrayBuffer>> {
  if (!path.isAbsolute(opts.entry)) throw new Error(`compileAssemblyScript: entry must be an absolute path, got "${opts.entry}"`);
  const baseDir = path.dirname(opts.entry);
  const argv = [
    path.basename(opts.entry),
    "--baseDir", baseDir,
    "--outFile", "out.wasm",
    "--runtime", "stub",
    opts.optimize === "size" ? "-Oz" : "-O3",
    "--use", `abort=${ABORT_FUNCTION}`,
    "--noColors",
  ];
  let wasm: Uint8Array | null = null;
  const stdout = asc.createMemoryStream();
  const stderr = asc.createMemoryStream();
  const { error } = await asc.main(argv, {
    stdout,
    stderr,
    readFile: (name: string, dir: string) => readOrNull(sdkFile(path.resolve(dir, name)) ?? path.resolve(dir, name)),
    writeFile: (name: string, contents: Uint8Array | string) => {
      if (name === "out.wasm" && typeof contents !== "string") wasm = contents;
    },
    listFiles: async (dir: string, base: string) => {
      const resolved = path.resolve(base, dir);
      try {
        return (await readdir(sdkFile(resolved + "/") ?? resolved)).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
      } catch {
        return null;
      }
    },
  });
  if (error || wasm === null) {
    const diagnostics = stderr.toString().trim();
    throw new Error(`AssemblyScript compilation of ${opts.entry} failed: ${error?.message ?? "no output"}\n${diagnostics}`);
  }
  return new Uint8Array(wasm);
}
