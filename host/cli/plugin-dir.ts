/** A plugin folder on disk: its manifest, and building its module with the ABI's compiler flags. */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { loadModule, sha256Hex } from "../sandbox/main/load-module.js";
import { manifestLimits, parseManifest, type Manifest } from "../registry/manifest.js";
import { loadCompiler } from "../toolchain/load-compiler.js";
import { compileC } from "../toolchain/c.js";
import { languageOf } from "../toolchain/language.js";
import { compileRust } from "../toolchain/rust.js";
import { EXIT } from "./exit-codes.js";
import { CliError, step } from "./output.js";

export interface PluginDir {
  dir: string;
  manifestText: string;
  manifest: Manifest;
}

/** Reads and validates `<dir>/hook.yaml` with the same rules as the registry. */
export async function readPluginDir(dir: string): Promise<PluginDir> {
  const abs = path.resolve(dir);
  const file = path.join(abs, "hook.yaml");
  let manifestText: string;
  try {
    manifestText = await readFile(file, "utf8");
  } catch {
    throw new CliError(`no hook.yaml in ${abs}`, "run this in a plugin folder, pass its path, or create one with `sluice new <name>`");
  }
  return { dir: abs, manifestText, manifest: parseManifest(manifestText) };
}

/** Where `sluice build` writes the module. */
export function wasmPath(p: PluginDir): string {
  return path.join(p.dir, "build", `${p.manifest.id}.wasm`);
}

const COMPILE_HINT = {
  assemblyscript: "fix the compile errors above; the SDK is imported as @sluice/guest-sdk",
  rust: "fix the compile errors above; the SDK is the sluice-guest crate (guest-sdk/rust/README.md)",
  c: "fix the compile errors above; the SDK is sluice.h (guest-sdk/c/README.md)",
} as const;

/**
 * Compiles the manifest's entry with its language's toolchain (AssemblyScript: the stub
 * runtime and the SDK's abort handler, see toolchain/assemblyscript.ts; Rust: cargo; C:
 * clang and wasm-ld), checks the result the way the host will, and writes it.
 */
export async function buildPlugin(p: PluginDir, options: { optimize?: "speed" | "size"; out?: string } = {}): Promise<{ file: string; wasm: Uint8Array; sha256: string }> {
  const entry = path.resolve(p.dir, p.manifest.entry);
  const language = languageOf(p.manifest);
  const wasm = await step(`compiling ${path.relative(process.cwd(), entry) || entry} (${language})`, async () => {
    // Loaded here: the compiler takes a second to load, most commands never need it, and a
    // service's install may not have it at all (an optional peer: TOOLCHAIN_MISSING says what to install).
    const compile = language === "rust" ? () => compileRust(p.dir, entry)
      : language === "c" ? () => compileC(entry, options.optimize ?? "speed")
      : async () => (await loadCompiler(p.dir)).compileAssemblyScript({ entry, optimize: options.optimize ?? "speed" });
    try {
      return await compile();
    } catch (err) {
      if ((err as { code?: string }).code === "TOOLCHAIN_MISSING") throw err;
      throw new CliError((err as Error).message, COMPILE_HINT[language], EXIT.refused);
    }
  });
  await loadModule(wasm, { capabilities: p.manifest.capabilities, limits: manifestLimits(p.manifest) });
  const file = path.resolve(options.out ?? wasmPath(p));
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, wasm);
  return { file, wasm, sha256: sha256Hex(wasm) };
}

/** The module to use: `--module <file>` when given, otherwise a fresh build. */
export async function moduleFor(p: PluginDir, wasmFile?: string): Promise<Uint8Array> {
  if (wasmFile) return new Uint8Array(await readFile(path.resolve(wasmFile)));
  return (await buildPlugin(p)).wasm;
}
