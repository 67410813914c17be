/**
 * `npm run stress` (100,000 calls) and `npm run soak` (10 minutes): the load test as a
 * script. Exits 1 when a check fails.
 * Usage: node --expose-gc dist/test/stress/main.js [--calls N] [--duration SECONDS]
 *   [--in-flight N] [--hostile-rate R] [--workers N] [--seed N] [--warmup N]
 */
import { availableParallelism, cpus } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { failedChecks, runStress, type StressOptions } from "./run-stress.js";

// The memory check compares resident memory after collecting garbage.
setFlagsFromString("--expose-gc");
(globalThis as { gc?: unknown }).gc ??= runInNewContext("gc");

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} needs a non-negative number, got "${process.argv[i + 1]}"`);
  return v;
}

const durationS = option("duration", 0);
const options: StressOptions = {
  calls: option("calls", 100_000),
  ...(durationS > 0 ? { durationMs: durationS * 1000 } : {}),
  inFlight: option("in-flight", 256),
  hostileRate: option("hostile-rate", 0.01),
  warmupCalls: option("warmup", 10_000),
  workers: option("workers", availableParallelism()),
  seed: option("seed", 7),
  sampleEveryMs: durationS > 0 ? 60_000 : 10_000,
  onSample: (s) => console.log(`  ${s.seconds}s: ${s.calls} calls, rss ${s.rssMb} MB, heap ${s.heapMb} MB`),
};
console.log(`sluice stress: ${durationS > 0 ? `${durationS} s` : `${options.calls} calls`}, ${options.inFlight} in flight, ${options.hostileRate * 100}% hostile, ${options.workers} workers, seed ${options.seed}`);
console.log(`node ${process.version}, ${cpus()[0]?.model ?? "cpu"} x${availableParallelism()}`);

const r = await runStress(options);
const failed = failedChecks(r, { memory: true });
console.log(`
| measure | value |
| --- | --- |
| calls (after ${options.warmupCalls} warm-up) | ${r.calls} |
| benign / hostile | ${r.benign} / ${r.hostile} |
| settled | ${r.settled} |
| benign results equal to the reference | ${r.benign - r.mismatchCount} of ${r.benign} |
| hostile calls failing with their code | ${r.hostile - r.hostileWrongCount} of ${r.hostile} (${Object.entries(r.hostileCodes).map(([c, n]) => `${c} ${n}`).join(", ")}) |
| benign latency p50 / p90 / p99 / max | ${r.latencyMs.p50} / ${r.latencyMs.p90} / ${r.latencyMs.p99} / ${r.latencyMs.max} ms |
| throughput | ${r.callsPerSecond} calls/s over ${(r.durationMs / 1000).toFixed(1)} s |
| resident memory after warm-up / at end | ${r.memory.warmRssMb} / ${r.memory.endRssMb} MB (x${r.memory.ratio}${r.memory.gc ? ", after gc" : ", no gc"}) |
`);
console.log(failed.length === 0 ? "all checks passed" : `FAILED:\n- ${failed.join("\n- ")}`);
process.exit(failed.length === 0 ? 0 : 1);
