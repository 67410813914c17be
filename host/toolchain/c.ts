/**
 * Builds a C hook (using guest-sdk/c, freestanding: no libc) with clang and wasm-ld for
 * wasm32, with a 16 KiB stack and a 2-page initial memory (abi/README.md §9).
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { SluiceError } from "../errors/sluice-error.js";
import { REPO_ROOT } from "./asc-compile.js";
import { pathWithout, runTool, which } from "./run-tool.js";

/** The C SDK: sluice.h and sluice.c. */
export const C_SDK_DIR = path.join(REPO_ROOT, "guest-sdk", "c");
export const C_INSTALL_APT = "apt-get install -y clang lld";

export interface CToolchain { clang: string; wasmLd: string }

let found: Promise<CToolchain | undefined> | undefined;

function firstOnPath(names: string[]): string | undefined {
  for (const n of names) {
    const f = which(n);
    if (f !== undefined) return f;
  }
  return undefined;
}

const VERSIONS = [20, 19, 18, 17, 16, 15, 14];

/** clang (`SLUICE_CLANG` when set, else the first on PATH) with the WebAssembly back end and a wasm-ld, or undefined. */
export function findC(opts: { fresh?: boolean } = {}): Promise<CToolchain | undefined> {
  if (opts.fresh) found = undefined;
  found ??= (async () => {
    const chosen = process.env.SLUICE_CLANG;
    const clang = chosen !== undefined ? (existsSync(chosen) ? chosen : undefined) : firstOnPath(["clang", ...VERSIONS.map((v) => `clang-${v}`)]);
    const wasmLd = firstOnPath(["wasm-ld", ...VERSIONS.map((v) => `wasm-ld-${v}`)]) ?? VERSIONS.map((v) => `/usr/lib/llvm-${v}/bin/wasm-ld`).find((f) => existsSync(f));
    if (clang === undefined || wasmLd === undefined) return undefined;
    const targets = await runTool(clang, ["--print-targets"]);
    return /\bwasm32\b/.test(targets.stdout) ? { clang, wasmLd } : undefined;
  })();
  return found;
}

/** The toolchain, or TOOLCHAIN_MISSING naming the command that installs it. */
export async function requireC(): Promise<CToolchain> {
  const t = await findC();
  if (t !== undefined) return t;
  throw new SluiceError("TOOLCHAIN_MISSING", `building a C plugin needs clang (with its wasm32 back end) and wasm-ld, and they are not installed: run \`${C_INSTALL_APT}\``, { language: "c", install: C_INSTALL_APT });
}

/** The compiler and linker flags of a Sluice C guest. */
export function cFlags(optimize: "speed" | "size"): string[] {
  return [
    "--target=wasm32-unknown-unknown", "-ffreestanding", "-nostdlib", optimize === "size" ? "-Oz" : "-Os", "-flto", "-mbulk-memory",
    "-Wall", "-Wextra", `-I${C_SDK_DIR}`,
    "-Wl,--no-entry", "-Wl,-z,stack-size=16384", "-Wl,--initial-memory=131072", "-Wl,--strip-all",
  ];
}

/**
 * Compiles `entry` with the SDK's sluice.c into one module and returns the wasm. Throws an
 * Error carrying clang's diagnostics when it does not compile.
 * @example const wasm = await compileC(path.resolve("plugins/order-search-limit-c/hook.c"));
 */
export async function compileC(entry: string, optimize: "speed" | "size" = "speed"): Promise<Uint8Array<ArrayBuffer>> {
  const { clang, wasmLd } = await requireC();
  const tmp = await mkdtemp(path.join(os.tmpdir(), "sluice-c-"));
  try {
    const out = path.join(tmp, "hook.wasm");
    // clang runs a wasm-opt it finds on PATH (binaryen's, in node_modules/.bin under npm)
    // without the feature flags the module uses, and the build fails: keep it out of sight.
    const env = { ...process.env, PATH: pathWithout("wasm-opt") };
    const r = await runTool(clang, [...cFlags(optimize), `--ld-path=${wasmLd}`, "-o", out, entry, path.join(C_SDK_DIR, "sluice.c")], { cwd: path.dirname(entry), env });
    if (r.code !== 0 || !existsSync(out)) throw new Error(`C compilation of ${entry} failed: clang exited with ${r.code}\n${r.stderr.trim()}`);
    return new Uint8Array(await readFile(out));
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
