/** The bench's table on stdout and its JSON record (latest.json plus a dated copy). */
import { mkdir, writeFile } from "node:fs/promises";
import { arch, cpus, freemem, platform, release, totalmem } from "node:os";
import type { ScenarioResult } from "./scenarios.js";

export function machine(): Record<string, unknown> {
  const cpu = cpus();
  return {
    node: process.version, platform: platform(), release: release(), arch: arch(),
    cpuModel: cpu[0]?.model ?? "unknown", cores: cpu.length, totalMemMB: Math.round(totalmem() / 2 ** 20), freeMemMB: Math.round(freemem() / 2 ** 20),
  };
}

const num = (v: number | string): string => (typeof v === "string" ? v : Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));

export function table(results: readonly ScenarioResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`\n## ${r.id}. ${r.title}`);
    if (r.latency) {
      const ref = r.latency["extism-worker"]?.p50;
      lines.push("system               p50 µs    p99 µs   p50 / extism-worker");
      for (const [name, s] of Object.entries(r.latency)) {
        lines.push(`${name.padEnd(18)} ${num(s.p50).padStart(9)} ${num(s.p99).padStart(9)}   ${ref ? num(s.p50 / ref) + "x" : ""}`);
      }
    }
    for (const [k, v] of Object.entries(r.values ?? {})) lines.push(`${k}: ${num(v)}`);
    for (const t of r.targets) {
      lines.push(`${t.met ? "MET   " : "MISSED"} ${t.name}: ${num(t.measured)} ${t.unit} (target ${t.op} ${t.limit} ${t.unit})`);
    }
  }
  return lines.join("\n");
}

export async function writeResults(dir: URL, results: readonly ScenarioResult[]): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const when = new Date();
  const body = JSON.stringify({ date: when.toISOString(), machine: machine(), results }, null, 2) + "\n";
  const files = [new URL("latest.json", dir), new URL(`${when.toISOString().replace(/[:.]/g, "-")}.json`, dir)];
  for (const f of files) await writeFile(f, body);
  return files.map((f) => f.pathname);
}
