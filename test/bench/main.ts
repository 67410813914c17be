/**
 * `npm run bench`: every bench scenario in one process, compared systems
 * interleaved, medians and p99 with ratios, results in test/bench/results/.
 * Usage: node dist/test/bench/main.js [scenario ids...] [count=value...]
 * (e.g. `12 16 warmup=300 samples=500`: fewer calls than FULL, for a quick look or a profile).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { fileURLToPath } from "node:url";
import { FULL, SCENARIOS, type ScenarioResult } from "./scenarios.js";
import { machine, table, writeResults } from "./report.js";

// The memory scenario measures RSS after collecting garbage; expose gc without a CLI flag.
setFlagsFromString("--expose-gc");
(globalThis as { gc?: unknown }).gc ??= runInNewContext("gc");

const args = process.argv.slice(2);
const only = args.map(Number).filter((n) => n > 0);
const counts = { ...FULL };
for (const a of args.filter((a) => a.includes("="))) {
  const [key, value] = a.split("=") as [keyof typeof FULL, string];
  if (!(key in FULL) || !(Number(value) > 0)) throw new Error(`bench: unknown count ${a}; counts are ${Object.keys(FULL).join(", ")}`);
  counts[key] = Number(value);
}
const results: ScenarioResult[] = [];
console.log(`sluice bench on ${JSON.stringify(machine())}${JSON.stringify(counts) === JSON.stringify(FULL) ? "" : ` with counts ${JSON.stringify(counts)}`}`);
for (const s of SCENARIOS) {
  if (only.length > 0 && !only.includes(s.id)) continue;
  const r = await s.run(counts);
  results.push(r);
  console.log(table([r]));
}
// Results live in the source tree (dist/ is a build output); main.js runs from dist/test/bench/.
const dir = new URL("../../../test/bench/results/", import.meta.url);
const files = await writeResults(dir, results);
const missed = results.flatMap((r) => r.targets).filter((t) => !t.met);
console.log(`\n${missed.length === 0 ? "all targets met" : `${missed.length} target(s) missed: ${missed.map((t) => t.name).join("; ")}`}`);
console.log(`wrote ${files.map((f) => fileURLToPath(new URL(`file://${f}`))).join(", ")}`);
