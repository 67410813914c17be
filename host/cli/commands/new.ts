/**
 * `sluice new <name>`: scaffold a plugin that builds and passes its own samples, with the
 * compiler it needs installed in its folder (pinned exactly to the version this sluice
 * was tested with), so `sluice build` works next without another step.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { checkPluginId } from "../../registry/ids.js";
import { peerVersion } from "../../sandbox/loader/peer-package.js";
import { EXIT } from "../exit-codes.js";
import { CliError, emit, step, warn } from "../output.js";
import { npmInstall } from "../npm-install.js";
import { scaffoldFiles } from "../scaffold.js";
import { GUEST_LANGUAGES, type GuestLanguage } from "../../registry/manifest.js";
import { C_SDK_DIR, findC, C_INSTALL_APT } from "../../toolchain/c.js";
import { findRust, requireRust, RUST_SDK_DIR } from "../../toolchain/rust.js";
import type { DefineCommand } from "./types.js";

export const newCommand: DefineCommand = (cmd) => {
  cmd
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
