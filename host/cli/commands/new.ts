/**
 * `sluice new <name>`: scaffold a plugin that builds and passes its own samples, with the
 * compiler it needs installed in its folder (pinned exactly to the version this sluice
 * was tested with), so `sluice build` works next without another step.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { checkPluginId } from "../../registry/ids.js";
import { peerVersion } from "../../sandbox/loader/peer-package.js";
import { EXIT } from "../exit-codes.js";
import { CliError, emit, step, warn } from "../output.js";
import { scaffoldFiles } from "../scaffold.js";
import { GUEST_LANGUAGES, type GuestLanguage } from "../../registry/manifest.js";
import { C_SDK_DIR, findC, C_INSTALL_APT } from "../../toolchain/c.js";
import { findRust, requireRust, RUST_SDK_DIR } from "../../toolchain/rust.js";
import type { RegisterCommand } from "./types.js";

export const newCommand: RegisterCommand = (program) => {
  program.command("new <name>")
    .description("scaffold a plugin in ./<name> (or --dir): AssemblyScript (its compiler installed there with npm install), Rust (a cargo crate) or C")
    .option("--dir <dir>", "folder to create (default ./<name>)")
    .option("--lang <language>", `the hook's language: ${GUEST_LANGUAGES.join(", ")}`, "assemblyscript")
    .option("--no-install", "do not run npm install for an AssemblyScript plugin (then run it in the folder before sluice build)")
    .option("--json", "print JSON")
    .action(async (name: string, opts: { dir?: string; lang: string; install: boolean; json?: boolean }) => {
      checkPluginId(name);
      const language = opts.lang as GuestLanguage;
      if (!GUEST_LANGUAGES.includes(language)) throw new CliError(`unknown language "${opts.lang}"`, `pass --lang ${GUEST_LANGUAGES.join(", --lang ")}`);
      const dir = path.resolve(opts.dir ?? name);
      if (existsSync(dir)) throw new CliError(`${dir} already exists`, "pick another name or --dir");
      const files = scaffoldFiles(name, peerVersion("assemblyscript"), language, { rust: RUST_SDK_DIR, c: C_SDK_DIR });
      for (const [file, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
        await writeFile(path.join(dir, file), text);
      }
      const rel = path.relative(process.cwd(), dir) || ".";
      let installed = false;
      if (language !== "assemblyscript") {
        // No package to install: the compiler is the system's. Say now when it is missing.
        const missing = language === "rust" ? (await findRust()) === undefined : (await findC()) === undefined;
        if (missing) warn(`sluice build needs ${language === "rust" ? "cargo with the wasm32-unknown-unknown target" : "clang and wasm-ld"}: ${language === "rust" ? await requireRust().then(() => "", (e: Error) => e.message.replace(/^.*: run /, "run ")) : `run \`${C_INSTALL_APT}\``}`);
        installed = !missing;
      } else if (opts.install) {
        const failure = await step("installing the compiler (npm install)", () => npmInstall(dir));
        installed = failure === undefined;
        if (failure !== undefined) {
          warn(`npm install in ${rel} failed (${failure}); run it there before \`sluice build\``);
          process.exitCode = EXIT.failed;
        }
      }
      emit(opts, { dir, files: Object.keys(files), installed }, () => [`created ${dir} (${language})${installed && language === "assemblyscript" ? " (compiler installed)" : ""}`, `next: cd ${rel} && sluice dev   (serves a local host with the plugin live, and rebuilds and re-runs the samples on every change), then sluice deploy`]);
    });
};

/**
 * `npm install` in `dir` (from the cache when it can: --prefer-offline). npm's variables
 * from an `npx` or `npm run` around this process are dropped, so the child installs into
 * `dir`, not the project that ran sluice. Resolves with why it failed, or undefined.
 */
function npmInstall(dir: string): Promise<string | undefined> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(package_|lifecycle_|command$|config_local_prefix$|config_prefix$|config_global$)/.test(k)));
  return new Promise((resolve) => {
    const child = spawn(process.platform === "win32" ? "npm.cmd" : "npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel", "error"], { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => { stderr += d; });
    child.once("error", (err) => resolve(err.message));
    child.once("exit", (code) => resolve(code === 0 ? undefined : `exit ${code}: ${stderr.trim().split("\n").slice(-3).join(" ")}`));
  });
}
