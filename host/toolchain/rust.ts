/**
 * Builds a Rust hook (a cdylib crate using guest-sdk/rust) with cargo for
 * wasm32-unknown-unknown, with the memory set-up that keeps its fuel at AssemblyScript's:
 * a 16 KiB stack and a 2-page initial memory (abi/README.md §9).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { SluiceError } from "../errors/sluice-error.js";
import { REPO_ROOT } from "./asc-compile.js";
import { runTool, which } from "./run-tool.js";

/** The Rust SDK crate (`sluice-guest`), the path dependency of a Rust plugin. */
export const RUST_SDK_DIR = path.join(REPO_ROOT, "guest-sdk", "rust");

/** The linker flags of a Sluice guest (rustc's defaults are a 1 MiB stack and 17 pages, which double a hook's fuel). */
export const RUST_GUEST_RUSTFLAGS = "-C link-arg=-zstack-size=16384 -C link-arg=--initial-memory=131072";
export const RUST_TARGET = "wasm32-unknown-unknown";
export const RUST_INSTALL_APT = "apt-get install -y rustc cargo libstd-rust-dev-wasm32";
export const RUST_INSTALL_RUSTUP = `rustup target add ${RUST_TARGET}`;

export interface RustToolchain { cargo: string; rustc: string }

let found: Promise<RustToolchain | undefined> | undefined;

async function hasWasmTarget(rustc: string): Promise<boolean> {
  const r = await runTool(rustc, ["--print", "sysroot"]);
  return r.code === 0 && existsSync(path.join(r.stdout.trim(), "lib", "rustlib", RUST_TARGET, "lib"));
}

/**
 * A cargo whose rustc has the wasm32-unknown-unknown standard library: `SLUICE_CARGO` when
 * set (its rustc beside it), else the one on PATH, else Debian's in /usr/bin (a rustup on
 * PATH may lack the target while Debian's has it).
 */
export function findRust(opts: { fresh?: boolean } = {}): Promise<RustToolchain | undefined> {
  if (opts.fresh) found = undefined;
  found ??= (async () => {
    const chosen = process.env.SLUICE_CARGO;
    const candidates = [...new Set((chosen ? [chosen] : [which("cargo"), "/usr/bin/cargo"]).filter((c): c is string => c !== undefined && existsSync(c)))];
    for (const cargo of candidates) {
      const rustc = path.join(path.dirname(cargo), "rustc");
      if (existsSync(rustc) && (await hasWasmTarget(rustc))) return { cargo, rustc };
    }
    return undefined;
  })();
  return found;
}

/** The toolchain, or TOOLCHAIN_MISSING naming the command that installs what is missing. */
export async function requireRust(): Promise<RustToolchain> {
  const t = await findRust();
  if (t !== undefined) return t;
  const cargo = process.env.SLUICE_CARGO ?? which("cargo");
  // rustup's cargo is a proxy beside a rustup binary; its toolchains fetch targets with it.
  const rustup = cargo !== undefined && existsSync(path.join(path.dirname(cargo), "rustup"));
  const install = rustup ? RUST_INSTALL_RUSTUP : RUST_INSTALL_APT;
  const why = rustup ? `cargo is rustup's, and its toolchain has no ${RUST_TARGET} target` : `no cargo with the ${RUST_TARGET} target is installed`;
  throw new SluiceError("TOOLCHAIN_MISSING", `building a Rust plugin needs cargo with the ${RUST_TARGET} target, and ${why}: run \`${install}\`${rustup ? ` (or, offline on Debian, \`${RUST_INSTALL_APT}\`)` : ""}`, { language: "rust", install });
}

/** The folder of the crate that holds `entry`: the nearest Cargo.toml at or above it, within `pluginDir`. */
function crateDir(pluginDir: string, entry: string): string {
  for (let dir = path.dirname(entry); dir.startsWith(pluginDir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "Cargo.toml"))) return dir;
    if (dir === pluginDir) break;
  }
  throw new Error(`no Cargo.toml in ${pluginDir} or above ${path.relative(pluginDir, entry)}: a Rust plugin is a cdylib crate (see guest-sdk/rust/README.md)`);
}

/**
 * Builds the crate around `entry` (`cargo build --release --offline`) and returns the wasm.
 * Throws an Error carrying cargo's diagnostics when it does not compile.
 * @example const wasm = await compileRust(path.resolve("plugins/order-search-limit-rust"), path.resolve("plugins/order-search-limit-rust/src/lib.rs"));
 */
export async function compileRust(pluginDir: string, entry: string): Promise<Uint8Array<ArrayBuffer>> {
  const { cargo, rustc } = await requireRust();
  const dir = crateDir(pluginDir, entry);
  const env: NodeJS.ProcessEnv = { ...process.env, RUSTC: rustc };
  // A crate without its own .cargo/config.toml gets the memory set-up here.
  if (!existsSync(path.join(dir, ".cargo", "config.toml"))) env.CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS = RUST_GUEST_RUSTFLAGS;
  const r = await runTool(cargo, ["build", "--release", "--offline", "--target", RUST_TARGET, "--message-format=json-render-diagnostics"], { cwd: dir, env });
  const artifacts = r.stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { reason?: string; filenames?: string[] })
    .filter((m) => m.reason === "compiler-artifact").flatMap((m) => m.filenames ?? []).filter((f) => f.endsWith(".wasm"));
  if (r.code !== 0 || artifacts.length === 0) {
    const why = r.code !== 0 ? `cargo exited with ${r.code}` : "cargo built no .wasm (is the crate's crate-type [\"cdylib\"]?)";
    throw new Error(`Rust compilation of ${dir} failed: ${why}\n${r.stderr.trim()}`);
  }
  return new Uint8Array(await readFile(artifacts[artifacts.length - 1]!));
}
