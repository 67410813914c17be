import { createHash } from "node:crypto";
import { ABI_MARKER_PATTERN, HOST_IMPORT_MODULE, SUPPORTED_ABI } from "../../abi/version.js";
import { SluiceError } from "../errors/sluice-error.js";
import { HOST_FUNCTIONS, HOST_SIGNATURES, type Capability } from "./capabilities.js";
import { resolveLimits, WASM_PAGE, type PluginLimits } from "./limits.js";
import { BinaryFormatError, HOST_MEMORY_IMPORT, hostMemory, importedFunctionSignatures } from "./wasm-binary.js";
import "./eager-compile.js";
import { isComponent, loadComponent } from "./component/load-component.js";
import type { ComponentCode } from "./component/protocol.js";

export interface LoadOptions {
  limits?: Partial<PluginLimits>;
  capabilities?: readonly Capability[];
}

/** A guest that passed every static check, compiled once with its memory capped. Plain data plus a Module: safe to send to workers. */
export interface LoadedModule {
  sha256: string;
  abi: { major: number; minor: number };
  limits: PluginLimits;
  capabilities: readonly Capability[];
  /** Compiled with its memory turned into an import the host supplies (see hostMemory). */
  module: WebAssembly.Module;
  memory: { initialPages: number; maxPages: number };
  byteLength: number;
  /** Set for a component guest (issue #11): the worker runs it through component/run-component.ts. */
  component?: ComponentCode;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function checkImports(module: WebAssembly.Module, granted: readonly Capability[], signatures: Map<string, string>): void {
  for (const imp of WebAssembly.Module.imports(module)) {
    // The host's own memory import, put there by hostMemory (a guest importing memory is refused before).
    if (imp.kind === "memory" && imp.module === HOST_MEMORY_IMPORT.module && imp.name === HOST_MEMORY_IMPORT.name) continue;
    const name = `${imp.module}.${imp.name}`;
    if (imp.module !== HOST_IMPORT_MODULE || imp.kind !== "function" || !Object.hasOwn(HOST_FUNCTIONS, imp.name)) {
      throw new SluiceError("MODULE_FORBIDDEN_IMPORT", `module imports ${imp.kind} "${name}", which is not in the ${HOST_IMPORT_MODULE} allow-list (log, abort, kv_get, kv_set, kv_delete)`, { import: name });
    }
    const needs = HOST_FUNCTIONS[imp.name];
    if (needs && !granted.includes(needs)) {
      throw new SluiceError("CAPABILITY_NOT_GRANTED", `module imports "${name}", which needs the "${needs}" capability; declare it in the plugin's manifest`, { import: name, capability: needs });
    }
    const expected = HOST_SIGNATURES[imp.name as keyof typeof HOST_SIGNATURES];
    const declared = signatures.get(name);
    if (declared !== expected) {
      throw new SluiceError("MODULE_FORBIDDEN_IMPORT", `module imports "${name}" as ${declared ?? "unknown"}; ABI v1 declares it ${expected}`, { import: name, signature: declared ?? null, expected });
    }
  }
}

function checkExports(module: WebAssembly.Module): { major: number; minor: number } {
  const exports = WebAssembly.Module.exports(module);
  const kindOf = new Map(exports.map((e) => [e.name, e.kind]));
  for (const [name, kind] of [["memory", "memory"], ["sluice_alloc", "function"], ["sluice_handle", "function"]] as const) {
    if (kindOf.get(name) !== kind) {
      throw new SluiceError("MODULE_MISSING_EXPORT", `module must export ${kind} "${name}"${kindOf.has(name) ? ` (it exports a ${kindOf.get(name)})` : ""}`, { export: name });
    }
  }
  const markers = exports.map((e) => ABI_MARKER_PATTERN.exec(e.name)).filter((m) => m !== null);
  if (markers.length !== 1) {
    throw new SluiceError("ABI_VERSION_MISSING", markers.length === 0
      ? "module declares no ABI version: export an empty function named sluice_abi_v1_0"
      : `module declares ${markers.length} ABI versions; export exactly one sluice_abi_v<major>_<minor> marker`);
  }
  const major = Number(markers[0]![1]);
  const minor = Number(markers[0]![2]);
  const served = SUPPORTED_ABI[major];
  if (served === undefined || minor > served) {
    const hostVersions = Object.entries(SUPPORTED_ABI).map(([ma, mi]) => `${ma}.${mi}`).join(", ");
    throw new SluiceError("ABI_VERSION_UNSUPPORTED", `module speaks ABI ${major}.${minor}; this host serves ABI ${hostVersions}`, { guest: `${major}.${minor}`, host: hostVersions });
  }
  return { major, minor };
}

/**
 * Validates a guest statically and compiles it with its memory capped. No guest code runs
 * here (not even its start function): that only ever happens inside a worker.
 */
export async function loadModule(bytes: Uint8Array, options: LoadOptions = {}): Promise<LoadedModule> {
  if (isComponent(bytes)) return loadComponent(bytes, sha256Hex(bytes), options);
  const limits = resolveLimits(options.limits);
  const capabilities = [...(options.capabilities ?? [])];
  if (bytes.byteLength > limits.moduleBytes) {
    throw new SluiceError("MODULE_TOO_LARGE", `module is ${bytes.byteLength} bytes; the limit is ${limits.moduleBytes}`, { size: bytes.byteLength, limit: limits.moduleBytes });
  }
  const maxPages = limits.memoryBytes / WASM_PAGE;
  // Validate before rewriting, so garbage is called garbage rather than "has no memory".
  if (!WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>)) {
    const reason = await WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>).then(() => "invalid", (e: Error) => e.message);
    throw new SluiceError("MODULE_INVALID", `not a valid WebAssembly module: ${reason}`);
  }
  let prepared;
  try {
    prepared = hostMemory(bytes, maxPages);
  } catch (err) {
    if (err instanceof BinaryFormatError) throw new SluiceError("MODULE_INVALID", `not a valid WebAssembly module: ${err.message}`);
    throw err;
  }
  if ("refused" in prepared) {
    const why = prepared.refused;
    if (why.startsWith("imports memory")) throw new SluiceError("MODULE_FORBIDDEN_IMPORT", `module ${why}; a guest defines its own memory and the host bounds it`, { import: why.slice(16, -1) });
    if (why === "defines no memory") throw new SluiceError("MODULE_MISSING_EXPORT", "module must define and export its memory \"memory\"", { export: "memory" });
    if (why.startsWith("defines")) throw new SluiceError("MODULE_MEMORY_TOO_LARGE", `module ${why}; exactly one is allowed`);
    throw new SluiceError("MODULE_INVALID", `module ${why}, which guests may not use`);
  }
  if (prepared.initialPages > maxPages) {
    throw new SluiceError("MODULE_MEMORY_TOO_LARGE", `module asks for ${prepared.initialPages} pages of initial memory; its limit is ${maxPages} pages (${limits.memoryBytes} bytes)`, { initialPages: prepared.initialPages, maxPages });
  }
  const capped = prepared;
  let module: WebAssembly.Module;
  try {
    module = await WebAssembly.compile(capped.bytes as Uint8Array<ArrayBuffer>);
  } catch (err) {
    throw new SluiceError("MODULE_INVALID", `not a valid WebAssembly module: ${(err as Error).message}`);
  }
  checkImports(module, capabilities, importedFunctionSignatures(capped.bytes));
  const abi = checkExports(module);
  return { sha256: sha256Hex(bytes), abi, limits, capabilities, module, memory: { initialPages: prepared.initialPages, maxPages: prepared.maxPages }, byteLength: bytes.byteLength };
}
