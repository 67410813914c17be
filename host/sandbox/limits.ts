import { SluiceError } from "../errors/sluice-error.js";

/** Limits for one plugin, resolved once at load: nothing downstream re-checks them. */
export interface PluginLimits {
  moduleBytes: number;
  memoryBytes: number;
  timeoutMs: number;
  inputBytes: number;
  outputBytes: number;
}

export const WASM_PAGE = 65_536;
const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Readonly<PluginLimits> = {
  moduleBytes: 4 * MiB,
  memoryBytes: 16 * MiB,
  timeoutMs: 100,
  inputBytes: 1 * MiB,
  outputBytes: 1 * MiB,
};

export const HOST_MAX_LIMITS: Readonly<PluginLimits> = {
  moduleBytes: 16 * MiB,
  memoryBytes: 256 * MiB,
  timeoutMs: 10_000,
  inputBytes: 16 * MiB,
  outputBytes: 16 * MiB,
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
