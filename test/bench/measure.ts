/** Timing helpers: per-call samples in microseconds, summarised as median and p99. */

export interface Stats { n: number; p50: number; p99: number; mean: number }

export function stats(samples: readonly number[]): Stats {
  if (samples.length === 0) return { n: 0, p50: NaN, p99: NaN, mean: NaN };
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { n: s.length, p50: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}

/** One compared system in a latency scenario. `prepare` runs untimed before each call. */
export interface Contender {
  name: string;
  call: () => unknown;
  prepare?: () => unknown;
}

export interface InterleaveOptions {
  /** Untimed calls per contender before measuring. */
  warmup: number;
  /** Timed calls per contender, taken in rounds so that drift (GC, other load) hits all alike. */
  samples: number;
  perRound?: number;
  /**
   * Starts each round with the next contender: in a fixed order each contender always
   * follows the same neighbour (a worker pool's first call after another pool's round may
   * pay for waking its threads), which biases a comparison of two neighbours.
   */
  rotate?: boolean;
  /**
   * Untimed calls of each contender at the start of each of its rounds. A contender whose
   * round follows another system's pays for getting its threads running again: two
   * contenders calling the very same binding read 3.5-4.6% apart in scenario 1 without this
   * (the one after an in-process contender slower), which no difference between them explains.
   */
  roundWarmup?: number;
}

/** Runs every contender sequentially, alternating in rounds, and returns each one's stats (µs). */
export async function interleave(contenders: readonly Contender[], o: InterleaveOptions): Promise<Record<string, Stats>> {
  const times = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  for (const c of contenders) {
    for (let i = 0; i < o.warmup; i++) { await c.prepare?.(); await c.call(); }
  }
  const perRound = Math.max(1, Math.min(o.perRound ?? 50, o.samples));
  for (let done = 0, round = 0; done < o.samples; done += perRound, round++) {
    const shift = o.rotate ? round % contenders.length : 0;
    for (const c of [...contenders.slice(shift), ...contenders.slice(0, shift)]) {
      const out = times.get(c.name)!;
      for (let i = 0; i < (o.roundWarmup ?? 0); i++) { await c.prepare?.(); await c.call(); }
      for (let i = 0; i < perRound && done + i < o.samples; i++) {
        await c.prepare?.();
        const t0 = performance.now();
        await c.call();
        out.push((performance.now() - t0) * 1000);
      }
    }
  }
  return Object.fromEntries([...times].map(([name, s]) => [name, stats(s)]));
}

/**
 * Keeps `inFlight` calls running for `durationMs` and returns completions per second and
 * the completion timestamps (ms, performance.now()).
 */
export async function saturate(call: () => Promise<unknown>, inFlight: number, durationMs: number): Promise<{ perSecond: number; completions: number[] }> {
  const completions: number[] = [];
  const end = performance.now() + durationMs;
  const t0 = performance.now();
  const lane = async (): Promise<void> => {
    while (performance.now() < end) { await call(); completions.push(performance.now()); }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return { perSecond: completions.length / ((performance.now() - t0) / 1000), completions };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
