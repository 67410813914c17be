/**
 * The static checks and the compilation of one guest, run by the loader thread
 * (load-worker.ts) so that no module, whatever its size or shape, holds the host's event
 * loop. No guest code runs here (not even its start function): that only ever happens
 * inside a sandbox worker.
 */
import { ABI_MARKER_PATTERN, ABI_MARKER_PREFIX, HOST_IMPORT_MODULE, SUPPORTED_ABI } from "../../../abi/version.js";
import { SluiceError } from "../../errors/sluice-error.js";
import { CAPABILITIES, HOST_FUNCTIONS, HOST_SIGNATURES, type Capability } from "../capabilities.js";
import { resolveLimits, WASM_PAGE, type PluginLimits } from "../limits.js";
import type { CompileTier, LoadedModule, LoadOptions } from "../loaded-module.js";
import { checkShape } from "./module-limits.js";
import { BinaryFormatError, capTables, hostMemory } from "../wasm-binary.js";
import { moduleShape, type ModuleShape } from "./wasm-shape.js";
import { meterOnce } from "./fuel/metered-cache.js";
import { resetExportName } from "./reset-export.js";
import "./eager-compile.js";
import { compileOptimised } from "./optimised-compile.js";

/** The largest data-segment image a reused instance gets back before each call (AssemblyScript hooks: a few KB). */
const MAX_IMAGE_BYTES = 1 << 20;

/** The exports every core guest must have, with the exact signature abi/README.md §2 gives them. */
const REQUIRED_EXPORTS = [
  { name: "memory", kind: "memory" },
  { name: "sluice_alloc", kind: "function", signature: "(i32)->(i32)" },
  { name: "sluice_handle", kind: "function", signature: "(i32,i32)->(i64)" },
] as const;

/** Capabilities from the known set only: a grant the host does not know is a typo or a wish, never ignored. */
export function checkCapabilities(requested: readonly string[] = []): Capability[] {
  for (const c of requested) {
    if (!(CAPABILITIES as readonly string[]).includes(c)) {
      throw new SluiceError("CAPABILITY_UNKNOWN", `capability "${c}" does not exist; this host grants ${CAPABILITIES.join(", ")}`, { capability: c, known: [...CAPABILITIES] });
    }
  }
  return [...requested] as Capability[];
}

function invalid(err: unknown): never {
  if (err instanceof BinaryFormatError) throw new SluiceError("MODULE_INVALID", `not a valid WebAssembly module: ${err.message}`);
  throw err;
}

function checkImports(shape: ModuleShape, granted: readonly Capability[]): void {
  for (const imp of shape.imports) {
    const { module, field } = imp;
    if (imp.kind === 2) throw new SluiceError("MODULE_FORBIDDEN_IMPORT", `module imports memory "${imp.name}"; a guest defines its own memory and the host bounds it`, { import: imp.name });
    if (module !== HOST_IMPORT_MODULE || imp.kind !== 0 || !Object.hasOwn(HOST_FUNCTIONS, field)) {
      const kind = ["function", "table", "memory", "global", "tag"][imp.kind] ?? "item";
      throw new SluiceError("MODULE_FORBIDDEN_IMPORT", `module imports ${kind} "${imp.name}", which is not in the ${HOST_IMPORT_MODULE} allow-list (log, abort, kv_get, kv_set, kv_delete)`, { import: imp.name });
    }
    const needs = HOST_FUNCTIONS[field];
    if (needs && !granted.includes(needs)) {
      throw new SluiceError("CAPABILITY_NOT_GRANTED", `module imports "${imp.name}", which needs the "${needs}" capability; declare it in the plugin's manifest`, { import: imp.name, capability: needs });
    }
    const expected = HOST_SIGNATURES[field as keyof typeof HOST_SIGNATURES];
    const declared = imp.typeIndex === undefined ? undefined : shape.types[imp.typeIndex];
    if (declared !== expected) {
      throw new SluiceError("MODULE_FORBIDDEN_IMPORT", `module imports "${imp.name}" as ${declared ?? "unknown"}; ABI v1 declares it ${expected}`, { import: imp.name, signature: declared ?? null, expected });
    }
  }
}

function checkExports(shape: ModuleShape): { major: number; minor: number } {
  const byName = new Map(shape.exports.map((e) => [e.name, e]));
  for (const required of REQUIRED_EXPORTS) {
    const found = byName.get(required.name);
    if (found?.kind !== required.kind) {
      throw new SluiceError("MODULE_MISSING_EXPORT", `module must export ${required.kind} "${required.name}"${found ? ` (it exports a ${found.kind})` : ""}`, { export: required.name });
    }
    if ("signature" in required && found.signature !== required.signature) {
      throw new SluiceError("MODULE_MISSING_EXPORT", `module exports "${required.name}" as ${found.signature ?? "unknown"}; ABI v1 declares it ${required.signature}`, { export: required.name, signature: found.signature ?? null, expected: required.signature });
    }
  }
  const candidates = shape.exports.filter((e) => e.name.startsWith(ABI_MARKER_PREFIX));
  for (const c of candidates) {
    if (!ABI_MARKER_PATTERN.test(c.name)) {
      throw new SluiceError("ABI_VERSION_MISSING", `export "${c.name}" is not a canonical ABI marker: name it sluice_abi_v<major>_<minor> in decimal without leading zeros (e.g. sluice_abi_v1_0)`, { export: c.name });
    }
    if (c.kind !== "function") {
      throw new SluiceError("MODULE_MISSING_EXPORT", `the ABI marker "${c.name}" must be a function (it is a ${c.kind})`, { export: c.name });
    }
  }
  if (candidates.length !== 1) {
    throw new SluiceError("ABI_VERSION_MISSING", candidates.length === 0
      ? "module declares no ABI version: export an empty function named sluice_abi_v1_0"
      : `module declares ${candidates.length} ABI versions (${candidates.map((c) => c.name).join(", ")}); export exactly one sluice_abi_v<major>_<minor> marker`);
  }
  const m = ABI_MARKER_PATTERN.exec(candidates[0]!.name)!;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  const served = SUPPORTED_ABI[major];
  if (served === undefined || minor > served) {
    const hostVersions = Object.entries(SUPPORTED_ABI).map(([ma, mi]) => `${ma}.${mi}`).join(", ");
    throw new SluiceError("ABI_VERSION_UNSUPPORTED", `module speaks ABI ${major}.${minor}; this host serves ABI ${hostVersions}`, { guest: `${major}.${minor}`, host: hostVersions });
  }
  return { major, minor };
}

/** Refuses a module whose declared shape exceeds the limits; returns it with its tables capped. Shared by core guests and a component's core modules. */
export function boundShape(bytes: Uint8Array, limits: PluginLimits, what = "module"): { bytes: Uint8Array; shape: ModuleShape } {
  try {
    const shape = moduleShape(bytes);
    checkShape(shape, limits, what);
    return { bytes: capTables(bytes, limits.tableEntries), shape };
  } catch (err) {
    return invalid(err);
  }
}

export function checkSize(bytes: Uint8Array, limits: PluginLimits, what = "module"): void {
  if (bytes.byteLength > limits.moduleBytes) {
    throw new SluiceError("MODULE_TOO_LARGE", `${what} is ${bytes.byteLength} bytes; the limit is ${limits.moduleBytes}`, { size: bytes.byteLength, limit: limits.moduleBytes });
  }
}

/** Validates a core guest statically, meters it (fuel/meter.ts) and compiles it with its memory and tables capped. */
export async function prepareModule(bytes: Uint8Array, sha256: string, options: LoadOptions = {}): Promise<LoadedModule> {
  const capabilities = checkCapabilities(options.capabilities);
  const limits = resolveLimits(options.limits);
  checkSize(bytes, limits);
  // Validate before reading the shape, so garbage is called garbage rather than "has no memory".
  if (!WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>)) {
    const reason = await WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>).then(() => "invalid", (e: Error) => e.message);
    throw new SluiceError("MODULE_INVALID", `not a valid WebAssembly module: ${reason}`);
  }
  const bounded = boundShape(bytes, limits);
  checkImports(bounded.shape, capabilities);
  const abi = checkExports(bounded.shape);
  const maxPages = limits.memoryBytes / WASM_PAGE;
  let prepared;
  try {
    prepared = hostMemory(bounded.bytes, maxPages);
  } catch (err) {
    invalid(err);
  }
  if ("refused" in prepared) {
    const why = prepared.refused;
    if (why.startsWith("defines ")) throw new SluiceError("MODULE_MEMORY_TOO_LARGE", `module ${why}; exactly one is allowed`);
    throw new SluiceError("MODULE_INVALID", `module ${why}, which guests may not use`);
  }
  if (prepared.initialPages > maxPages) {
    throw new SluiceError("MODULE_MEMORY_TOO_LARGE", `module asks for ${prepared.initialPages} pages of initial memory; its limit is ${maxPages} pages (${limits.memoryBytes} bytes)`, { initialPages: prepared.initialPages, maxPages });
  }
  // Metered after every check: the counter's import is added to a module already allowed.
  // Reusable only where what instantiation writes is known statically (see wasm-shape.ts dataEnd)
  // and small: the image is written back before every call (a fresh instance writes only its segments).
  const imageBytes = bounded.shape.dataEnd;
  const reset = imageBytes === undefined || imageBytes > MAX_IMAGE_BYTES ? undefined : resetExportName(bounded.shape.exports.map((e) => e.name));
  const metered = await meterOnce(prepared.bytes, sha256, `pages-${maxPages}-entries-${limits.tableEntries}`, "module", reset === undefined ? {} : { reset });
  let module: WebAssembly.Module;
  let tier: CompileTier;
  try {
    ({ module, tier } = compileOptimised(metered));
  } catch (err) {
    throw new SluiceError("MODULE_INVALID", `not a valid WebAssembly module: ${(err as Error).message}`);
  }
  // The meter adds the reset only where it can restore everything (fuel/add-reset.ts).
  const reusable = reset !== undefined && WebAssembly.Module.exports(module).some((e) => e.name === reset && e.kind === "function");
  return { sha256, abi, limits, capabilities, module, memory: { initialPages: prepared.initialPages, maxPages: prepared.maxPages }, byteLength: bytes.byteLength, tier, ...(reusable ? { reuse: { reset, imageBytes: imageBytes! } } : {}) };
}
