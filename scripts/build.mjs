// Builds everything the tests and the main job need: the TypeScript, every
// AssemblyScript guest (plugins and test fixtures) and every WAT fixture.
// Runs on `npm install` (prepare) and before `npm test`.
import { spawnSync } from "node:child_process";
import { mkdir, readdir, readFile, writeFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const t0 = Date.now();
const log = (msg) => process.stdout.write(`[build] ${msg}\n`);

// binaryen's JavaScript build (the fuel meter's rewriter) ships inside this package as
// build/vendor/binaryen: its npm package also installs 80 MB of command-line tools the host
// never runs. The package resolves it as "#binaryen" (package.json "imports").
{
  const { copyFile } = await import("node:fs/promises");
  const from = join(root, "node_modules/binaryen");
  const to = join(root, "build/vendor/binaryen");
  await mkdir(to, { recursive: true });
  for (const f of ["index.js", "index.d.ts", "LICENSE", "package.json"]) {
    if (!(await upToDate(join(to, f), [join(from, f)]))) await copyFile(join(from, f), join(to, f));
  }
}

const compileTypeScript = () => {
  const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.json")], { stdio: "inherit" });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
};
compileTypeScript();
log(`typescript compiled (${Date.now() - t0} ms)`);

// The fixed schemas (hook.yaml, a binding input) as Ajv standalone code, so no process
// compiles them at start. Generated from the compiled schemas; when they changed, the
// file is rewritten and the TypeScript compiled again.
{
  const file = join(root, "host/registry/shape-validators.generated.ts");
  const { standaloneValidatorsSource } = await import(join(root, "dist/host/registry/standalone-validators.js"));
  const source = standaloneValidatorsSource();
  if ((await readFile(file, "utf8").catch(() => "")) !== source) {
    await writeFile(file, source);
    compileTypeScript();
    log(`shape validators regenerated (${Date.now() - t0} ms)`);
  }
}

// sluice-hook, the agents' command hook, as one CommonJS file: a coding agent starts it for
// every event, and Node 20 takes about 7 ms longer to start an ES module with imports than
// one script (test/bench/RESULTS.md). The bin runs dist/host/agents/sluice-hook.cjs.
{
  const { build } = await import("rolldown");
  await build({ input: join(root, "dist/host/agents/sluice-hook.js"), platform: "node", logLevel: "warn", output: { file: join(root, "dist/host/agents/sluice-hook.cjs"), format: "cjs", codeSplitting: false } });
  log(`sluice-hook bundled (${Date.now() - t0} ms)`);
}

async function list(dir, suffix) {
  try {
    return (await readdir(dir)).filter((f) => f.endsWith(suffix)).map((f) => join(dir, f));
  } catch { return []; }
}

async function upToDate(out, inputs) {
  try {
    const o = (await stat(out)).mtimeMs;
    for (const i of inputs) if ((await stat(i)).mtimeMs > o) return false;
    return true;
  } catch { return false; }
}

// The operator console (console/): one Vite build into build/console, which
// `sluice serve` serves at /console. Static files only, no inline script (the page's CSP
// allows none), rebuilt only when a source is newer than the built index.
{
  const consoleSrc = join(root, "console");
  const consoleOut = join(root, "build/console");
  const sources = async (dir) => (await readdir(dir, { withFileTypes: true })).flatMap((e) => (e.isDirectory() ? [] : [join(dir, e.name)]));
  const inputs = [...(await sources(consoleSrc)), ...(await sources(join(consoleSrc, "src"))), ...(await sources(join(consoleSrc, "src/pages"))), join(root, "host/pipeline/release-diff.ts")];
  if (!(await upToDate(join(consoleOut, "index.html"), inputs))) {
    const { build } = await import("vite");
    await build({
      root: consoleSrc, base: "/console/", configFile: false, logLevel: "warn",
      build: { outDir: consoleOut, emptyOutDir: true, target: "es2022", sourcemap: false, assetsInlineLimit: 0, modulePreload: { polyfill: false }, reportCompressedSize: false },
    });
  }
  log(`console built (${Date.now() - t0} ms)`);
}

// WAT fixtures: tiny hostile and benign guests.
const watDir = join(root, "test/fixtures/wat");
const fixturesOut = join(root, "build/fixtures");
await mkdir(fixturesOut, { recursive: true });
const wabt = await (await import("wabt")).default();
for (const file of await list(watDir, ".wat")) {
  const out = join(fixturesOut, basename(file, ".wat") + ".wasm");
  // Exception handling is on for the tag fixtures; V8 in Node 20 validates it.
  const source = await readFile(file, "utf8");
  const mod = wabt.parseWat(file, source, { exceptions: true, tail_call: true });
  // A fixture about names (e.g. ones the fuel meter would use) keeps them in a name section.
  await writeFile(out, mod.toBinary({ write_debug_names: source.startsWith(";; keep-names") }).buffer);
  mod.destroy();
}

// AssemblyScript guests: the SDK's own files count as inputs of every guest.
const { compileAssemblyScript } = await import(join(root, "dist/host/toolchain/assemblyscript.js"));
async function sdkFiles(dir = join(root, "guest-sdk/assembly")) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sdkFiles(p)));
    else if (p.endsWith(".ts")) out.push(p);
  }
  return out;
}
const sdk = await sdkFiles();
const guests = [];
for (const file of await list(join(root, "test/fixtures/guests"), ".ts")) {
  guests.push({ entry: file, out: join(fixturesOut, basename(file, ".ts") + ".wasm"), inputs: [file] });
}
for (const name of (await readdir(join(root, "plugins"), { withFileTypes: true }).catch(() => [])).filter((d) => d.isDirectory()).map((d) => d.name)) {
  const entry = join(root, "plugins", name, "assembly/index.ts");
  try { await stat(entry); } catch { continue; }
  const srcs = await list(join(root, "plugins", name, "assembly"), ".ts");
  guests.push({ entry, out: join(root, "build/plugins", name + ".wasm"), inputs: srcs });
}
await mkdir(join(root, "build/plugins"), { recursive: true });
let built = 0;
for (const g of guests) {
  if (await upToDate(g.out, [...g.inputs, ...sdk])) continue;
  const wasm = await compileAssemblyScript({ entry: g.entry });
  await writeFile(g.out, wasm);
  built++;
}
log(`guests: ${built} compiled, ${guests.length - built} up to date (${Date.now() - t0} ms total)`);

// ---- Rust and C reference plugins ----------------------------------------------------
// Built only where their toolchains are installed (cargo with the wasm32-unknown-unknown
// target; clang with wasm-ld): they are optional, and `npm ci` works without them. The
// tests that need them install them (test/setup/toolchains.ts) and build what is missing.
{
  const { findRust, compileRust } = await import(join(root, "dist/host/toolchain/rust.js"));
  const { findC, compileC } = await import(join(root, "dist/host/toolchain/c.js"));
  const { languageOf } = await import(join(root, "dist/host/toolchain/language.js"));
  const { parseManifest } = await import(join(root, "dist/host/registry/manifest.js"));
  const tools = { rust: await findRust(), c: await findC() };
  const files = async (dir) => (await readdir(dir, { withFileTypes: true })).flatMap((e) => (e.isDirectory() ? (["target", "build"].includes(e.name) ? [] : [join(dir, e.name, "")]) : [join(dir, e.name)]));
  async function tree(dir) {
    const out = [];
    for (const f of await files(dir)) out.push(...(f.endsWith("/") ? await tree(f.slice(0, -1)) : [f]));
    return out;
  }
  const skipped = new Set();
  let nativeBuilt = 0;
  for (const name of (await readdir(join(root, "plugins"), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name)) {
    const dir = join(root, "plugins", name);
    let manifest;
    try { manifest = parseManifest(await readFile(join(dir, "hook.yaml"), "utf8")); } catch { continue; }
    const language = languageOf(manifest);
    if (language === "assemblyscript") continue;
    if (!tools[language]) { skipped.add(language); continue; }
    const out = join(root, "build/plugins", name + ".wasm");
    if (await upToDate(out, [...(await tree(dir)), ...(await tree(join(root, "guest-sdk", language)))])) continue;
    const entry = join(dir, manifest.entry);
    await writeFile(out, language === "rust" ? await compileRust(dir, entry) : await compileC(entry));
    nativeBuilt++;
  }
  const missing = [...skipped].map((l) => (l === "rust" ? "Rust (apt-get install -y rustc cargo libstd-rust-dev-wasm32)" : "C (apt-get install -y clang lld)"));
  log(`Rust and C plugins: ${nativeBuilt} compiled${missing.length ? `; skipped, no toolchain for ${missing.join(", ")}` : ""} (${Date.now() - t0} ms total)`);
}

// ---- Benchmark guests (test/bench) -----------------------------------------------------
// The bench hook built twice from one source: as a Sluice guest (the toolchain's usual
// stub runtime; -O3, and -Oz for the ~10 KB cold-start plugin) and as an Extism plugin
// (@extism/as-pdk, incremental runtime, since Extism reuses one instance across calls).
{
  const benchSrc = join(root, "test/bench/assembly");
  const benchOut = join(root, "build/bench");
  await mkdir(benchOut, { recursive: true });
  const inputs = [...(await list(benchSrc, ".ts")), ...sdk];
  const sluiceEntry = join(benchSrc, "sluice-hook.ts");
  for (const [out, optimize] of [["sluice-hook.wasm", "speed"], ["sluice-hook-small.wasm", "size"]]) {
    if (await upToDate(join(benchOut, out), inputs)) continue;
    await writeFile(join(benchOut, out), await compileAssemblyScript({ entry: sluiceEntry, optimize }));
  }
  const extismOut = join(benchOut, "extism-hook.wasm");
  if (!(await upToDate(extismOut, inputs))) {
    const asc = (await import("assemblyscript/asc")).default;
    const sdkDir = join(root, "guest-sdk/assembly");
    const marker = "node_modules/@sluice/guest-sdk/";
    // Serves `@sluice/guest-sdk` from this repository; everything else (the Extism PDK) from disk.
    const resolve = (name, dir) => {
      const p = join(dir, name).split("\\").join("/");
      const at = p.lastIndexOf(marker);
      return at < 0 ? p : join(sdkDir, p.slice(at + marker.length).replace(/^assembly\//, ""));
    };
    let wasm = null;
    const stderr = asc.createMemoryStream();
    const { error } = await asc.main(
      ["extism-hook.ts", "--baseDir", benchSrc, "--outFile", "out.wasm", "--runtime", "incremental", "-O3", "--noColors",
        "--use", "abort=~lib/@sluice/guest-sdk/abort/sluiceAbort"],
      {
        stdout: asc.createMemoryStream(), stderr,
        readFile: (name, dir) => readFile(resolve(name, dir), "utf8").catch(() => null),
        writeFile: (name, contents) => { if (name === "out.wasm") wasm = contents; },
        listFiles: (dir, base) => readdir(resolve(dir + "/", base)).then((fs) => fs.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).catch(() => null),
      },
    );
    if (error || !wasm) { process.stderr.write(stderr.toString()); throw new Error(`extism bench plugin failed to compile: ${error?.message}`); }
    await writeFile(extismOut, wasm);
  }
  log(`bench guests ready (${Date.now() - t0} ms total)`);
}

// ---- Component guests -----------------------------------------------------------------
// Test fixtures: AssemblyScript hooks wrapped as components (jco embed + new, well under a
// second each; each is rebuilt only when stale). The JavaScript reference hook is built with
// componentize-js, which embeds SpiderMonkey (about 12 MB, 5-12 s): only when missing or
// older than its sources or the WIT. Both run offline; the WIT is passed inline because
// componentize-js's tools run without filesystem access.
{
  const { COMPONENT_FIXTURES, componentFixture } = await import(join(root, "dist/test/components/fixtures.js"));
  for (const name of Object.keys(COMPONENT_FIXTURES)) await componentFixture(name);
  const jsHook = join(root, "plugins/order-search-limit-js");
  const wit = join(root, "abi/wit/sluice-hook.wit");
  const out = join(root, "build/plugins/order-search-limit-js.wasm");
  if (!(await upToDate(out, [...(await list(join(jsHook, "src"), ".js")), wit]))) {
    const t1 = Date.now();
    const { componentize } = await import("@bytecodealliance/componentize-js");
    const { component } = await componentize({
      sourcePath: join(jsHook, "src/index.js"),
      witWorld: await readFile(wit, "utf8"),
      worldName: "hook",
      // No WASI at all: the host grants none, and a component importing it is refused.
      disableFeatures: ["stdio", "random", "clocks", "http", "fetch-event"],
    });
    await writeFile(out, component);
    log(`order-search-limit-js componentized (${Date.now() - t1} ms, ${component.byteLength} bytes)`);
  }
  log(`component guests ready (${Date.now() - t0} ms total)`);
}
