/**
 * The Rust and C guest SDKs' tests build real guests with Debian's toolchains: cargo with
 * the wasm32-unknown-unknown standard library, clang and wasm-ld. `npm test` on a fresh
 * Debian machine installs them here when they are missing (as the browser set-up installs
 * chromium); a machine where apt-get cannot install them fails the run with a message
 * saying what to install, never skips those tests.
 */
import { spawnSync } from "node:child_process";
import { C_INSTALL_APT, findC } from "../../host/toolchain/c.js";
import { findRust, RUST_INSTALL_APT } from "../../host/toolchain/rust.js";

const PACKAGES = ["rustc", "cargo", "libstd-rust-dev-wasm32", "clang", "lld"];

export default async function setup(): Promise<void> {
  if ((await findRust()) !== undefined && (await findC()) !== undefined) return;
  const root = process.getuid?.() === 0;
  const apt = (args: string[]) => spawnSync(root ? "apt-get" : "sudo", root ? args : ["-n", "apt-get", ...args], {
    stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  console.log(`[toolchains] installing Debian's Rust and C toolchains for the guest SDKs' tests: apt-get install -y ${PACKAGES.join(" ")}`);
  const ok = apt(["update", "-qq"]).status === 0 && apt(["install", "-y", "-qq", ...PACKAGES]).status === 0;
  // A fresh look: the finders remember their first answer.
  if (!ok || (await findRust({ fresh: true })) === undefined || (await findC({ fresh: true })) === undefined) {
    throw new Error(`the Rust and C guest SDKs' tests need Debian's toolchains: run \`${RUST_INSTALL_APT}\` and \`${C_INSTALL_APT}\` as root`);
  }
}
