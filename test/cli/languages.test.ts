/** `sluice new --lang`, and `sluice build` and `test` driving cargo and clang for Rust and C plugins. */
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cFlags } from "../../host/toolchain/c.js";
import { tempDir } from "../registry/fixtures.js";
import { sluice } from "./run-cli.js";

describe("a plugin in Rust or C, from sluice new to its samples", () => {
  for (const [lang, source] of [["rust", "src/lib.rs"], ["c", "hook.c"]] as const) {
    it(`sluice new --lang ${lang} scaffolds a plugin that builds and passes its own samples`, async () => {
      const dir = path.join(tempDir("sluice-lang-"), `my-${lang}-hook`);
      const created = await sluice(["new", `my-${lang}-hook`, "--dir", dir, "--lang", lang, "--json"]);
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout).files).toContain(source);
      expect(readFileSync(path.join(dir, "hook.yaml"), "utf8")).toContain(`language: ${lang}\nentry: ${source}\n`);
      const built = await sluice(["build", dir, "--json"]);
      expect(built.code, built.stderr).toBe(0);
      const { file } = JSON.parse(built.stdout) as { file: string };
      expect(existsSync(file)).toBe(true);
      const mod = new WebAssembly.Module(readFileSync(file));
      expect(WebAssembly.Module.exports(mod).map((e) => e.name).filter((n) => n.startsWith("sluice_"))).toEqual(["sluice_abi_v1_2", "sluice_alloc", "sluice_handle"]);
      const tested = await sluice(["test", dir]);
      expect(tested.code, tested.stdout + tested.stderr).toBe(0);
      expect(tested.stdout).toContain("2 passed, 0 failed");
    }, 180_000);
  }

  for (const [lang, source, fence] of [["rust", "src/lib.rs", "rust"], ["c", "hook.c", "c"]] as const) {
    it(`the hook guest-sdk/${lang}/README.md shows builds and passes the scaffold's samples`, async () => {
      const readme = readFileSync(new URL(`../../guest-sdk/${lang}/README.md`, import.meta.url), "utf8");
      const hook = new RegExp(`## A hook\\n\`\`\`${fence}\\n([\\s\\S]*?)\`\`\``).exec(readme)![1]!;
      const dir = path.join(tempDir("sluice-lang-"), `readme-${lang}`);
      expect((await sluice(["new", `readme-${lang}`, "--dir", dir, "--lang", lang])).code).toBe(0);
      writeFileSync(path.join(dir, source), hook);
      const tested = await sluice(["test", dir]);
      expect(tested.code, tested.stdout + tested.stderr).toBe(0);
      expect(tested.stdout).toContain("2 passed, 0 failed");
    }, 180_000);
  }

  it("guest-sdk/c/README.md's clang command has sluice build's flags and builds the README's hook from the repository root", () => {
    const readme = readFileSync(new URL("../../guest-sdk/c/README.md", import.meta.url), "utf8");
    const command = /with these flags:\n```sh\n([\s\S]*?)```/.exec(readme)![1]!.replace(/\\\n/g, " ").trim();
    const words = command.split(/\s+/);
    const flags = words.filter((w, i) => w.startsWith("-") && w !== "-I" && w !== "-o" && words[i - 1] !== "-I" && words[i - 1] !== "-o");
    expect(flags).toEqual(cFlags("speed").filter((f) => !f.startsWith("-I")));
    // "run from the repository root with a hook.c there": the SDK at guest-sdk/c, the hook beside it.
    const root = tempDir("sluice-c-readme-");
    cpSync(new URL("../../guest-sdk/c", import.meta.url), path.join(root, "guest-sdk/c"), { recursive: true });
    writeFileSync(path.join(root, "hook.c"), /## A hook\n```c\n([\s\S]*?)```/.exec(readme)![1]!);
    // As the README says: no binaryen wasm-opt on clang's PATH.
    const PATH = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => !existsSync(path.join(dir, "wasm-opt"))).join(path.delimiter);
    execFileSync("bash", ["-c", command], { cwd: root, env: { ...process.env, PATH }, stdio: "pipe" });
    const exports = WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(path.join(root, "hook.wasm")))).map((e) => e.name);
    expect(exports).toEqual(["memory", "sluice_abi_v1_2", "sluice_alloc", "sluice_handle"]);
  }, 60_000);

  it("refuses a language it cannot build, naming the ones it can", async () => {
    const r = await sluice(["new", "x", "--dir", path.join(tempDir(), "x"), "--lang", "go"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unknown language "go"');
    expect(r.stderr).toContain("--lang assemblyscript, --lang rust, --lang c");
  });

  it("shows a compile error of a Rust hook with cargo's diagnostics", async () => {
    const dir = path.join(tempDir("sluice-lang-"), "broken");
    expect((await sluice(["new", "broken", "--dir", dir, "--lang", "rust"])).code).toBe(0);
    writeFileSync(path.join(dir, "src/lib.rs"), "use sluice_guest::Outcome;\nfn hook() -> Outcome { Outcome::continue_(1) }\n");
    const r = await sluice(["build", dir]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("Rust compilation of");
    expect(r.stderr).toMatch(/error\[E\d+\]/);
  }, 180_000);
});

describe("a missing toolchain names the command that installs it", () => {
  const PATH = [path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter);

  it("a Rust plugin without a cargo that has the wasm32 target: TOOLCHAIN_MISSING with Debian's packages", async () => {
    const r = await sluice(["build", "plugins/order-search-limit-rust"], { SLUICE_CARGO: "/nonexistent/cargo", PATH });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("TOOLCHAIN_MISSING");
    expect(r.stderr).toContain("`apt-get install -y rustc cargo libstd-rust-dev-wasm32`");
  });

  it("where cargo is rustup's and its toolchain lacks the target: TOOLCHAIN_MISSING with rustup target add", async () => {
    // A rustup layout (cargo, rustc and rustup side by side) whose sysroot has no wasm32 standard library.
    const bin = tempDir("sluice-rustup-");
    const sysroot = tempDir("sluice-sysroot-");
    mkdirSync(path.join(sysroot, "lib", "rustlib", "x86_64-unknown-linux-gnu", "lib"), { recursive: true });
    for (const [name, body] of [["cargo", "exit 1"], ["rustup", "exit 1"], ["rustc", `echo ${sysroot}`]]) {
      writeFileSync(path.join(bin, name!), `#!/bin/sh\n${body}\n`);
      chmodSync(path.join(bin, name!), 0o755);
    }
    const r = await sluice(["build", "plugins/order-search-limit-rust"], { SLUICE_CARGO: path.join(bin, "cargo"), PATH: `${bin}${path.delimiter}${PATH}` });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("TOOLCHAIN_MISSING");
    expect(r.stderr).toContain("`rustup target add wasm32-unknown-unknown`");
  });

  it("a C plugin without clang: TOOLCHAIN_MISSING with apt-get install -y clang lld", async () => {
    const r = await sluice(["build", "plugins/order-search-limit-c"], { SLUICE_CLANG: "/nonexistent/clang", PATH });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("TOOLCHAIN_MISSING");
    expect(r.stderr).toContain("`apt-get install -y clang lld`");
  });
});
