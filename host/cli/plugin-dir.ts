/** A plugin folder on disk: its manifest, and building its module with the ABI's compiler flags. */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { loadModule, sha256Hex } from "../sandbox/main/load-module.js";
import { manifestLimits, parseManifest, type Manifest } from "../registry/manifest.js";
import { loadCompiler } from "../toolchain/load-compiler.js";
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

/**
 * Compiles the manifest's entry (stub runtime, the SDK's abort handler: see
 * toolchain/assemblyscript.ts), checks the result the way the host will, and writes it.
 */
export async function buildPlugin(p: PluginDir, options: { optimize?: "speed" | "size"; out?: string } = {}): Promise<{ file: string; wasm: Uint8Array; sha256: string }> {
  const entry = path.resolve(p.dir, p.manifest.entry);
  const wasm = await step(`compiling ${path.relative(process.cwd(), entry) || entry}`, async () => {
    // Loaded here: the compiler takes a second to load, most commands never need it, and a
    // service's install may not have it at all (an optional peer: TOOLCHAIN_MISSING says what to install).
    const { compileAssemblyScript } = await loadCompiler(p.dir);
    try {
      return await compileAssemblyScript({ entry, optimize: options.optimize ?? "speed" });
    } catch (err) {
      throw new CliError((err as Error).message, "fix the compile errors above; the SDK is imported as @sluice/guest-sdk", EXIT.refused);
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
