/**
 * What `import "sluice"` costs a service (issue 17), in fresh Node processes (nothing
 * cached in V8 or the module maps). The import is timed inside the child; the whole
 * process (Node's own start included) is timed around it.
 */
import { execFileSync } from "node:child_process";
import { repoRoot } from "./systems.js";

const CHILD = `const t = performance.now(); await import("sluice"); process.stdout.write(String(performance.now() - t));`;

/** Milliseconds of the import and of the whole process, one sample per fresh process. */
export function importTimes(processes: number): { importMs: number[]; processMs: number[] } {
  const importMs: number[] = [];
  const processMs: number[] = [];
  for (let i = 0; i < processes; i++) {
    const t0 = performance.now();
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", CHILD], { cwd: repoRoot(), encoding: "utf8" });
    processMs.push(performance.now() - t0);
    importMs.push(Number(out));
  }
  return { importMs, processMs };
}
