/**
 * Quarantine as a pure state machine: guest faults per plugin ref within a sliding window;
 * at the threshold the plugin is quarantined until an operator lifts it or its cooldown
 * ends. No clocks, threads or events here: the caller passes `now` and acts on the result
 * (see quarantine-guard.ts), so every transition is testable without WebAssembly.
 */
import type { ErrorCode } from "../errors/codes.js";
import { SluiceError, type ErrorData } from "../errors/sluice-error.js";

/**
 * The codes that mean the guest itself misbehaved. Host-side conditions (QUEUE_FULL,
 * CALL_CANCELLED, WORKER_CRASHED, EXECUTOR_CLOSED) and pipeline refusals that depend on a
 * binding's config (PATCH_*, OUTCOME_NOT_ALLOWED) never count against a plugin.
 */
export const GUEST_FAULT_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  "GUEST_TIMEOUT", "GUEST_FUEL_EXHAUSTED", "GUEST_TRAP", "GUEST_MEMORY_LIMIT", "GUEST_STACK_OVERFLOW", "GUEST_ABORTED",
  "OUTPUT_TOO_LARGE", "OUTPUT_OUT_OF_BOUNDS", "OUTPUT_MALFORMED", "OUTPUT_INVALID",
]);

export interface QuarantinePolicy {
  /** Guest faults within `windowMs` that quarantine a plugin. */
  threshold: number;
  windowMs: number;
  /** How long a quarantine lasts; `null` keeps it until an operator lifts it. */
  cooldownMs: number | null;
}

export const QUARANTINE_DEFAULTS: QuarantinePolicy = { threshold: 5, windowMs: 60_000, cooldownMs: null };

/** A quarantined plugin, as `host.quarantine.list()` reports it. */
export interface QuarantineEntry {
  ref: string;
  /** Epoch ms when it was quarantined. */
  since: number;
  /** Epoch ms when the cooldown ends; `null`: only an operator lifts it. */
  until: number | null;
  /** Faults counted in the window that tripped it. */
  failures: number;
  lastError: ErrorData;
}

/** Fills defaults and refuses impossible policies once, at construction. */
export function resolveQuarantinePolicy(input: Partial<QuarantinePolicy> = {}): QuarantinePolicy {
  const p = { ...QUARANTINE_DEFAULTS, ...input };
  if (!Number.isInteger(p.threshold) || p.threshold < 1) throw new SluiceError("CONFIG_INVALID", `quarantine.threshold must be a positive integer, got ${p.threshold}`);
  if (!(p.windowMs > 0)) throw new SluiceError("CONFIG_INVALID", `quarantine.windowMs must be positive, got ${p.windowMs}`);
  if (p.cooldownMs !== null && !(p.cooldownMs > 0)) throw new SluiceError("CONFIG_INVALID", `quarantine.cooldownMs must be positive or null (manual lift only), got ${p.cooldownMs}`);
  return p;
}

export class QuarantineState {
  /** Times of the last `threshold` faults per ref: enough to decide, bounded per plugin. */
  private readonly faults = new Map<string, number[]>();
  private readonly entries = new Map<string, QuarantineEntry>();

  constructor(readonly policy: QuarantinePolicy) {}

  /**
   * Counts one failed step. Returns the new entry when this fault quarantined the plugin;
   * faults of an already quarantined plugin (calls that started before) are not counted.
   */
  record(ref: string, error: ErrorData, now: number): QuarantineEntry | undefined {
    if (!GUEST_FAULT_CODES.has(error.code) || this.entries.has(ref)) return undefined;
    const times = this.faults.get(ref) ?? [];
    times.push(now);
    if (times.length > this.policy.threshold) times.shift();
    this.faults.set(ref, times);
    if (times.length < this.policy.threshold || now - times[0]! > this.policy.windowMs) return undefined;
    this.faults.delete(ref);
    const entry: QuarantineEntry = { ref, since: now, until: this.policy.cooldownMs === null ? null : now + this.policy.cooldownMs, failures: times.length, lastError: error };
    this.entries.set(ref, entry);
    return entry;
  }

  /** The entry when `ref` is quarantined at `now`. Call {@link expire} first to apply cooldowns. */
  get(ref: string): QuarantineEntry | undefined {
    return this.entries.get(ref);
  }

  /** Lifts every quarantine whose cooldown has ended and returns them. */
  expire(now: number): QuarantineEntry[] {
    const lifted: QuarantineEntry[] = [];
    for (const e of this.entries.values()) {
      if (e.until !== null && now >= e.until) { this.entries.delete(e.ref); lifted.push(e); }
    }
    return lifted;
  }

  /** Takes a decision another host made (the shared store): `entry` as is, its faults not counted here. */
  adopt(entry: QuarantineEntry): void {
    this.faults.delete(entry.ref);
    this.entries.set(entry.ref, { ...entry });
  }

  /** Lifts a quarantine; the plugin starts again with a clean fault count. False when it was not quarantined. */
  lift(ref: string): boolean {
    this.faults.delete(ref);
    return this.entries.delete(ref);
  }

  list(): QuarantineEntry[] {
    return [...this.entries.values()].map((e) => ({ ...e }));
  }

  get size(): number {
    return this.entries.size;
  }
}
