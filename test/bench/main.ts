/**
 * `npm run bench`: every scenario of issue #6 in one process, compared systems
 * interleaved, medians and p99 with ratios, results in test/bench/results/.
 * Usage: node dist/test/bench/main.js [scenario ids...]
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { fileURLToPath } from "node:url";
import { FULL, SCENARIOS, type ScenarioResult } from "./scenarios.js";
import { machine, table, writeResults } from "./report.js";

// The memory scenario measures RSS after collecting garbage; expose gc without a CLI flag.
setFlagsFromString("--expose-gc");
(globalThis as { gc?: unknown }).gc ??= runInNewContext("gc");

const only = process.argv.slice(2).map(Number).filter((n) => n > 0);
const results: ScenarioResult[] = [];
console.log(`sluice bench on ${JSON.stringify(machine())}`);
for (const s of SCENARIOS) {
  if (only.length > 0 && !only.includes(s.id)) continue;
  const r = await s.run(FULL);
  results.push(r);
  console.log(table([r]));
}
// Results live in the source tree (dist/ is a build output); main.js runs from dist/test/bench/.
const dir = new URL("../../../test/bench/results/", import.meta.url);
const files = await writeResults(dir, results);
const missed = results.flatMap((r) => r.targets).filter((t) => !t.met);
console.log(`\n${missed.length === 0 ? "all targets met" : `${missed.length} target(s) missed: ${missed.map((t) => t.name).join("; ")}`}`);
console.log(`wrote ${files.map((f) => fileURLToPath(new URL(`file://${f}`))).join(", ")}`);
