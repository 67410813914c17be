import { SluiceError } from "../errors/sluice-error.js";

/** Limits for one plugin, resolved once at load: nothing downstream re-checks them. */
export interface PluginLimits {
  moduleBytes: number;
  memoryBytes: number;
  timeoutMs: number;
  inputBytes: number;
  outputBytes: number;
  /** Fuel per invocation: the instruction budget of one call, metered inside the guest (abi/README.md §11). */
  fuel: number;
  /** What a module may declare that the engine allocates outside linear memory (abi/README.md §7.1). */
  tables: number;
  tableEntries: number;
  functions: number;
  globals: number;
  types: number;
  exports: number;
  elementEntries: number;
  dataSegments: number;
  tags: number;
  locals: number;
  functionBytes: number;
  /** Targets of one br_table, and of all of them: compile and meter time grow faster than their count. */
  branchTargets: number;
  branchTargetsTotal: number;
}

export const WASM_PAGE = 65_536;
const MiB = 1024 * 1024;

/**
 * Chosen from the reference plugins and the JavaScript (SpiderMonkey) component, with a wide
 * margin; the maximums stay well below V8's own limits and what a worker heap can hold.
 * The JavaScript component has the largest shape: a 7,689-entry table, 12,667 functions,
 * 10,000 data segments (V8's own maximum is 100,000), a 172 KB function body and 44,376
 * br_table targets (453 in its largest; the AssemblyScript plugins have 50 and 32).
 * A 100,000-entry funcref table costs about 0.8 MB of worker heap; V8 aborts the process
 * (not the worker) when a table does not fit, so the bound must hold before instantiation.
 */
const SHAPE_DEFAULTS = {
  tables: 4,
  tableEntries: 50_000,
  functions: 100_000,
  globals: 10_000,
  types: 10_000,
  exports: 1_000,
  elementEntries: 100_000,
  dataSegments: 100_000,
  tags: 100,
  locals: 10_000,
  functionBytes: 1 * MiB,
  branchTargets: 4_096,
  branchTargetsTotal: 100_000,
} as const;

const SHAPE_MAXIMUMS = {
  tables: 8,
  tableEntries: 200_000,
  functions: 500_000,
  globals: 100_000,
  types: 100_000,
  exports: 100_000,
  elementEntries: 1_000_000,
  dataSegments: 100_000,
  tags: 10_000,
  locals: 50_000,
  functionBytes: 7 * MiB,
  branchTargets: 16_384,
  branchTargetsTotal: 1_000_000,
} as const;

/**
 * Fuel (abi/README.md §11). The default is chosen from the reference plugins' samples: the
 * AssemblyScript plugins use 50,000-141,000 per call, the JavaScript (SpiderMonkey) component
 * 11.1-13.4 million; 50 million leaves it almost four times that, and a tight loop spends it
 * in about 30 ms here (40-55 ms on a loaded machine), and the costliest priced kind of work in
 * at most about 1.6 times that (bench scenario 16), inside the default 100 ms time limit. The maximum is about what the
 * longest time limit (10 s) lets a tight loop run on this kind of machine (about 2 units/ns).
 */
const DEFAULT_FUEL = 50_000_000;
const MAX_FUEL = 20_000_000_000;

export const DEFAULT_LIMITS: Readonly<PluginLimits> = {
  moduleBytes: 4 * MiB,
  memoryBytes: 16 * MiB,
  timeoutMs: 100,
  inputBytes: 1 * MiB,
  outputBytes: 1 * MiB,
  fuel: DEFAULT_FUEL,
  ...SHAPE_DEFAULTS,
};

export const HOST_MAX_LIMITS: Readonly<PluginLimits> = {
  moduleBytes: 16 * MiB,
  memoryBytes: 256 * MiB,
  timeoutMs: 10_000,
  inputBytes: 16 * MiB,
  outputBytes: 16 * MiB,
  fuel: MAX_FUEL,
  ...SHAPE_MAXIMUMS,
};

/**
 * Fills in defaults and caps every requested limit by the host's maximum. A request above
 * the maximum is capped, not refused: the manifest asks, the host decides.
 */
export function resolveLimits(requested: Partial<PluginLimits> = {}, max: Readonly<PluginLimits> = HOST_MAX_LIMITS): PluginLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof PluginLimits)[]) {
    const value = requested[key] ?? DEFAULT_LIMITS[key];
    if (!Number.isFinite(value) || value <= 0) {
      throw new SluiceError("CONFIG_INVALID", `limit ${key} must be a positive number, got ${String(value)}`, { limit: key });
    }
    out[key] = Math.min(Math.floor(value), max[key]);
  }
  out.memoryBytes = Math.max(WASM_PAGE, out.memoryBytes - (out.memoryBytes % WASM_PAGE));
  return out;
}

/** What a guest's log keeps per invocation, core or component (abi/README.md §3). */
export const LOG_LIMITS = { lines: 64, lineBytes: 1024 } as const;
/**
 * V8 gives no signal when memory.grow fails at the maximum; guests then trap (AssemblyScript
 * runs `unreachable`). An `unreachable` trap with memory at least this full is reported as
 * running out of memory. Growth steps can be large, so the ratio is not close to 1.
 */
export const MEMORY_FULL_RATIO = 0.5;
