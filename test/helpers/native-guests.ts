/**
 * Rust and C guests for tests: scripts/build.mjs builds them into build/ where the
 * toolchains are installed; when a copy is missing or older than its sources (or the
 * SDK's), it is compiled here (test/setup/toolchains.ts installs the toolchains).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { compileC } from "../../host/toolchain/c.js";
import { compileRust } from "../../host/toolchain/rust.js";
import { REPO_ROOT as repoRoot } from "../../host/toolchain/asc-compile.js";

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "target" || e.name === "build") continue;
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

async function cached(out: string, sources: string[], compile: () => Promise<Uint8Array>): Promise<Uint8Array> {
  if (existsSync(out) && statSync(out).mtimeMs >= Math.max(...sources.map((s) => (statSync(s).isDirectory() ? newest(s) : statSync(s).mtimeMs)))) {
    return new Uint8Array(readFileSync(out));
  }
  const wasm = await compile();
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, wasm);
  return wasm;
}

const RUST_SDK = path.join(repoRoot, "guest-sdk", "rust");
const C_SDK = path.join(repoRoot, "guest-sdk", "c");

/** A Rust crate's module: `dir` holds Cargo.toml and src/lib.rs. */
export function rustGuest(dir: string, out: string): Promise<Uint8Array> {
  return cached(out, [dir, RUST_SDK], () => compileRust(dir, path.join(dir, "src", "lib.rs")));
}

/** A C file's module, linked with the SDK. */
export function cGuest(file: string, out: string): Promise<Uint8Array> {
  return cached(out, [file, C_SDK], () => compileC(file));
}

/** A reference plugin's module (plugins/<name>), by its hook.yaml's language. */
export function nativePluginWasm(name: string, language: "rust" | "c", entry: string): Promise<Uint8Array> {
  const dir = path.join(repoRoot, "plugins", name);
  const out = path.join(repoRoot, "build", "plugins", `${name}.wasm`);
  return language === "rust" ? rustGuest(dir, out) : cGuest(path.join(dir, entry), out);
}
