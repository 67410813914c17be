/**
 * Upload path of component guests: a component is transpiled by jco once per
 * content hash, checked against the `sluice:hook` world and the manifest's grants, and its
 * core modules are compiled once with their memory capped. No guest code and no generated
 * glue runs here: the glue is only written to a content-addressed file for the workers.
 */
import { createHash } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SUPPORTED_ABI } from "../../../../abi/version.js";
import { SluiceError } from "../../../errors/sluice-error.js";
import type { Capability } from "../../capabilities.js";
import { resolveLimits, WASM_PAGE, type PluginLimits } from "../../limits.js";
import { BinaryFormatError, capMemory } from "../../wasm-binary.js";
import type { ComponentCode } from "./protocol.js";
import type { CompileTier, LoadedModule, LoadOptions } from "../../loaded-module.js";
import { compileOptimised } from "../optimised-compile.js";
import { boundShape, checkCapabilities, checkSize } from "../prepare-module.js";
import { WIT_IMPORTS } from "./wit.js";
import { FUEL_IMPORT } from "../fuel/counter.js";
import { meterOnce } from "../fuel/metered-cache.js";
import { isMissingPackage, peerVersion } from "../peer-package.js";
import { withKeys } from "../../../objects/with-keys.js";

const COMPONENT_HEADER = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];
const HANDLER_PATTERN = /^sluice:hook\/handler@(\d{1,4})\.(\d{1,4})\.(\d{1,4})$/;

/** True when the bytes start with the component-model preamble (layer 1) rather than a core module's. */
export function isComponent(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && COMPONENT_HEADER.every((b, i) => bytes[i] === b);
}

interface Transpiled { glue: Uint8Array; cores: Record<string, Uint8Array>; imports: string[]; exports: [string, string][] }

/** Transpiles are the slow step (about 1 s for a 12 MB JS component): one per content hash. */
const transpiled = new Map<string, Promise<Transpiled>>();
const TRANSPILE_CACHE_ENTRIES = 32;

/**
 * jco's transpiler is an optional peer dependency (it brings binaryen's 90 MB of
 * command-line tools): a host that runs only core modules never installs it, and one that
 * is given a component without it is told exactly what to install.
 */
async function loadTranspiler(): Promise<typeof import("@bytecodealliance/jco-transpile")> {
  const pkg = "@bytecodealliance/jco-transpile";
  try {
    return await import("@bytecodealliance/jco-transpile");
  } catch (err) {
    if (!isMissingPackage(err, pkg)) throw err;
    const install = `npm install ${pkg}@${peerVersion(pkg)}`;
    throw new SluiceError("TOOLCHAIN_MISSING", `running a WebAssembly component plugin needs jco's transpiler, and it is not installed (it is an optional peer dependency of sluice): run \`${install}\``, { package: pkg, install });
  }
}

function transpileOnce(sha256: string, bytes: Uint8Array): Promise<Transpiled> {
  let entry = transpiled.get(sha256);
  if (!entry) {
    // jco's transpiler (and its own wasm) is loaded only when a component is first uploaded: a
    // host of core guests never pays for it. jco-transpile, not the whole jco CLI: a service
    // needs the transpiler, not jco's authoring toolchain.
    entry = loadTranspiler().then(({ transpileBytes }) => transpileBytes(bytes, { name: "guest", instantiation: "sync", emitTypescriptDeclarations: false })).then((r) => {
      const cores: Record<string, Uint8Array> = {};
      for (const [name, data] of Object.entries(r.files)) if (name.endsWith(".wasm")) cores[name] = data;
      return { glue: r.files["guest.js"]!, cores, imports: r.imports, exports: r.exports };
    });
    transpiled.set(sha256, entry);
    entry.catch(() => transpiled.delete(sha256));
    if (transpiled.size > TRANSPILE_CACHE_ENTRIES) transpiled.delete(transpiled.keys().next().value!);
  }
  return entry;
}

/** Where the glue files live: private to this user (0700), named by the glue's hash. */
export const GLUE_DIR = join(tmpdir(), `sluice-component-glue-${process.getuid?.() ?? "u"}`);

function writeGlue(glue: Uint8Array, sha256: string): string {
  const path = join(GLUE_DIR, `${sha256}.mjs`);
  if (existsSync(path)) return path;
  mkdirSync(GLUE_DIR, { recursive: true, mode: 0o700 });
  // Write then rename, so a worker never reads a half-written file.
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, glue, { mode: 0o600 });
  renameSync(tmp, path);
  return path;
}

function refuseImports(t: Transpiled, granted: readonly Capability[]): void {
  for (const specifier of t.imports) {
    const allowed = WIT_IMPORTS[specifier];
    if (!allowed) {
      throw new SluiceError("MODULE_FORBIDDEN_IMPORT", `component imports "${specifier}", which is not in the sluice:hook world (sluice:hook/host, sluice:hook/kv); no WASI interface is provided`, { import: specifier });
    }
    if (allowed.capability && !granted.includes(allowed.capability)) {
      throw new SluiceError("CAPABILITY_NOT_GRANTED", `component imports "${specifier}", which needs the "${allowed.capability}" capability; declare it in the plugin's manifest`, { import: specifier, capability: allowed.capability });
    }
  }
}

const SERVED = new Map(Object.values(WIT_IMPORTS).map((w) => [w.versioned, w.functions]));

/**
 * The same check on a core module, with versions: an interface-shaped import module must be
 * exactly a served sluice interface and function. Other module names are jco's internal links
 * between the component's own core modules.
 */
function refuseCoreImports(file: string, module: WebAssembly.Module): void {
  for (const imp of WebAssembly.Module.imports(module)) {
    if (!imp.module.includes(":") && !imp.module.startsWith("$root") && !imp.module.startsWith("[")) continue;
    if (!SERVED.get(imp.module)?.includes(imp.name)) {
      throw new SluiceError("MODULE_FORBIDDEN_IMPORT", `component's core module ${file} imports "${imp.module}#${imp.name}", which the sluice:hook@1 world does not provide`, { import: `${imp.module}#${imp.name}` });
    }
  }
}

function handlerOf(t: Transpiled): { handler: string; abi: { major: number; minor: number } } {
  const handlers = t.exports.map(([name]) => HANDLER_PATTERN.exec(name)).filter((m) => m !== null);
  if (handlers.length !== 1) {
    throw new SluiceError("ABI_VERSION_MISSING", handlers.length === 0
      ? "component exports no versioned sluice:hook/handler interface (export the handler interface of abi/wit/sluice-hook.wit)"
      : `component exports ${handlers.length} sluice:hook/handler versions; export exactly one`);
  }
  const major = Number(handlers[0]![1]);
  const minor = Number(handlers[0]![2]);
  const servedMinor = SUPPORTED_ABI[major];
  if (servedMinor === undefined || minor > servedMinor) {
    const hostVersions = Object.entries(SUPPORTED_ABI).map(([ma, mi]) => `${ma}.${mi}`).join(", ");
    throw new SluiceError("ABI_VERSION_UNSUPPORTED", `component speaks ABI ${major}.${minor}; this host serves ABI ${hostVersions}`, { guest: `${major}.${minor}`, host: hostVersions });
  }
  return { handler: handlers[0]![0], abi: { major, minor } };
}

async function compileCore(file: string, bytes: Uint8Array, limits: PluginLimits): Promise<{ module: WebAssembly.Module; initialPages: number; tier: CompileTier }> {
  const maxPages = limits.memoryBytes / WASM_PAGE;
  const bounded = boundShape(bytes, limits, `component's core module ${file}`);
  // jco links core modules to each other by module name; this one is the host's alone.
  const reserved = bounded.shape.imports.find((i) => i.name.startsWith(`${FUEL_IMPORT.module}.`));
  if (reserved) throw new SluiceError("MODULE_FORBIDDEN_IMPORT", `component's core module ${file} imports "${reserved.name}": the module name ${FUEL_IMPORT.module} is reserved for the host's fuel counter`, { import: reserved.name });
  let capped;
  try {
    capped = capMemory(bounded.bytes, maxPages);
  } catch (err) {
    if (err instanceof BinaryFormatError) throw new SluiceError("MODULE_INVALID", `component's core module ${file} is not valid: ${err.message}`);
    throw err;
  }
  if (capped.unsupported) throw new SluiceError("MODULE_INVALID", `component's core module ${file} uses ${capped.unsupported}, which guests may not use`);
  if (capped.memoryCount > 1) throw new SluiceError("MODULE_MEMORY_TOO_LARGE", `component's core module ${file} defines ${capped.memoryCount} memories; at most one is allowed`);
  if (capped.initialPages !== undefined && capped.initialPages > maxPages) {
    throw new SluiceError("MODULE_MEMORY_TOO_LARGE", `component's core module ${file} asks for ${capped.initialPages} pages of initial memory; its limit is ${maxPages} pages (${limits.memoryBytes} bytes)`, { initialPages: capped.initialPages, maxPages });
  }
  const metered = await meterOnce(capped.bytes, createHash("sha256").update(bytes).digest("hex"), `core-pages-${maxPages}-entries-${limits.tableEntries}`, `component's core module ${file}`);
  // Optimised as a core guest is (optimised-compile.ts): a first call in baseline code ran
  // several times slower than later ones, past its time limit on a loaded machine.
  let compiled: { module: WebAssembly.Module; tier: CompileTier };
  try {
    compiled = compileOptimised(metered);
  } catch (err) {
    throw new SluiceError("MODULE_INVALID", `component's core module ${file} does not compile: ${(err as Error).message}`);
  }
  refuseCoreImports(file, compiled.module);
  return withKeys(compiled, { initialPages: capped.initialPages ?? 0 });
}

/** A component that passed every static check: a LoadedModule whose `component` is set (the worker runs it through run-component.ts; `module` is its main core module). */
export type LoadedComponent = LoadedModule & { component: ComponentCode };

/**
 * Validates a component guest and prepares it for the workers: transpile (cached by
 * sha256), check exports and imports against the world and grants, cap and compile every
 * core module, write the glue to its content-addressed file.
 */
export async function loadComponent(bytes: Uint8Array, sha256: string, options: LoadOptions): Promise<LoadedComponent> {
  const capabilities = checkCapabilities(options.capabilities);
  const limits = resolveLimits(options.limits);
  checkSize(bytes, limits, "component");
  let t: Transpiled;
  try {
    t = await transpileOnce(sha256, bytes);
  } catch (err) {
    if (err instanceof SluiceError) throw err;
    throw new SluiceError("MODULE_INVALID", `not a valid WebAssembly component: ${(err as Error)?.message ?? String(err)}`);
  }
  const { handler, abi } = handlerOf(t);
  refuseImports(t, capabilities);
  const cores: Record<string, WebAssembly.Module> = {};
  let main: { module: WebAssembly.Module; initialPages: number } | undefined;
  let tier: CompileTier = "optimised";
  for (const [file, data] of Object.entries(t.cores)) {
    const { module, initialPages, tier: coreTier } = await compileCore(file, data, limits);
    if (coreTier === "baseline") tier = coreTier;
    cores[file] = module;
    if (WebAssembly.Module.exports(module).some((e) => e.name.startsWith(`${handler}#`))) main = { module, initialPages };
  }
  if (!main) throw new SluiceError("MODULE_MISSING_EXPORT", `no core module of the component exports ${handler}#handle`, { export: `${handler}#handle` });
  const glueSha256 = createHash("sha256").update(t.glue).digest("hex");
  const gluePath = writeGlue(t.glue, glueSha256);
  const maxPages = limits.memoryBytes / WASM_PAGE;
  return {
    sha256, abi, limits, capabilities, module: main.module, memory: { initialPages: main.initialPages, maxPages }, byteLength: bytes.byteLength, tier,
    component: { id: `${sha256}/${maxPages}`, gluePath, glueSha256, cores, handler },
  };
}
