/**
 * What `import "sluice"` costs a service, in fresh Node processes (nothing
 * cached in V8 or the module maps). The import is timed inside the child; the whole
 * process (Node's own start included) is timed around it.
 */
import { execFileSync } from "node:child_process";
import { repoRoot } from "./systems.js";

// CPU time too: on a shared machine it varies far less than wall time.
const CHILD = `const c = process.cpuUsage(); const t = performance.now(); await import("sluice"); const u = process.cpuUsage(c); process.stdout.write(JSON.stringify([performance.now() - t, (u.user + u.system) / 1000]));`;

/** Milliseconds of the import (wall and CPU) and of the whole process, one sample per fresh process. */
export function importTimes(processes: number): { importMs: number[]; importCpuMs: number[]; processMs: number[] } {
  const importMs: number[] = [];
  const importCpuMs: number[] = [];
  const processMs: number[] = [];
  for (let i = 0; i < processes; i++) {
    const t0 = performance.now();
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", CHILD], { cwd: repoRoot(), encoding: "utf8" });
    processMs.push(performance.now() - t0);
    const [wall, cpu] = JSON.parse(out) as [number, number];
    importMs.push(wall);
    importCpuMs.push(cpu);
  }
  return { importMs, importCpuMs, processMs };
}
