/**
 * The load test: many tool calls through the real host at a fixed number in
 * flight, a small share bound to hostile guests. Each benign call is checked byte for byte
 * against the same call on a reference host that runs the guest's in-process twin
 * (test/contract/twin.ts); each hostile call must fail with its guest's specific code.
 */
import { encode } from "../../abi/codec.js";
import { createHost, type Host } from "../../host/index.js";
import type { BoundaryResult } from "../../host/engine/call-types.js";
import type { ToolOutput } from "../../host/boundary/tool.js";
import type { BindingInput } from "../../host/pipeline/release.js";
import { twin } from "../contract/twin.js";
import { readFileSync } from "node:fs";
import { componentFixture } from "../components/fixtures.js";
import { HOST_MAX_LIMITS } from "../../host/sandbox/limits.js";

export interface StressOptions {
  /** Measured calls (ignored when `durationMs` is set). */
  calls: number;
  /** Run measured calls until this much time has passed instead (the soak). */
  durationMs?: number;
  inFlight: number;
  /** Share of calls bound to hostile guests. */
  hostileRate: number;
  /** Calls before the memory baseline is taken (same mix). */
  warmupCalls: number;
  workers: number;
  seed: number;
  /** Called about every `sampleEveryMs` with progress (the soak prints it). */
  onSample?: (s: Sample) => void;
  sampleEveryMs?: number;
}

export interface Sample { seconds: number; calls: number; rssMb: number; heapMb: number }

export interface StressReport {
  calls: number;
  benign: number;
  hostile: number;
  settled: number;
  /** Benign calls whose result differed from the reference (first few, described). */
  mismatches: string[];
  mismatchCount: number;
  /** Hostile calls that did not fail with their guest's code (first few). */
  hostileWrong: string[];
  hostileWrongCount: number;
  hostileCodes: Record<string, number>;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  callsPerSecond: number;
  durationMs: number;
  memory: { warmRssMb: number; endRssMb: number; ratio: number; gc: boolean };
  samples: Sample[];
}

/** Guest bytes from build/fixtures, whether this runs from the sources (vitest) or from dist/ (the script). */
function fixture(name: string): Uint8Array {
  const root = new URL(import.meta.url.includes("/dist/test/") ? "../../../" : "../../", import.meta.url);
  return new Uint8Array(readFileSync(new URL(`build/fixtures/${name}.wasm`, root)));
}

/** The hostile corpus and the code each must fail with (their binding is fail-closed). `component`: a WAT core wrapped as a component. */
const HOSTILE: readonly { tool: string; fixture: string; code: string; limits: Record<string, number>; component?: boolean }[] = [
  // A budget it cannot spend in 25 ms: the wall-clock backstop terminates its worker.
  { tool: "hostile.loop", fixture: "loop", code: "GUEST_TIMEOUT", limits: { timeoutMs: 25, fuel: HOST_MAX_LIMITS.fuel } },
  // A loop that stops itself at its fuel budget, on a worker that keeps serving.
  { tool: "hostile.fuel", fixture: "fuel-alloc-loop", code: "GUEST_FUEL_EXHAUSTED", limits: { fuel: 1_000_000 } },
  { tool: "hostile.memory-bomb", fixture: "memory-bomb", code: "GUEST_MEMORY_LIMIT", limits: { memoryBytes: 4 << 20 } },
  // Faults other than time get the benign plugin's 1 s (see subjectHost): on a loaded machine a
  // trapping guest descheduled past 100 ms would report GUEST_TIMEOUT instead of its own code.
  { tool: "hostile.trap", fixture: "unreachable", code: "GUEST_TRAP", limits: { timeoutMs: 1_000 } },
  { tool: "hostile.oversize", fixture: "output-too-large", code: "OUTPUT_TOO_LARGE", limits: { timeoutMs: 1_000 } },
  // Replies the ABI forbids, and a component whose reply runs past its memory.
  { tool: "hostile.duplicate-outcome", fixture: "reply-duplicate-outcome", code: "OUTPUT_MALFORMED", limits: { timeoutMs: 1_000 } },
  { tool: "hostile.proto-key", fixture: "reply-proto-key", code: "OUTPUT_INVALID", limits: { timeoutMs: 1_000 } },
  { tool: "hostile.abi-major", fixture: "reply-abi-major-2", code: "OUTPUT_INVALID", limits: { timeoutMs: 1_000 } },
  { tool: "hostile.component-past-end", fixture: "reply-past-end", code: "OUTPUT_OUT_OF_BOUNDS", limits: { timeoutMs: 1_000 }, component: true },
];

/** Uploads that must be refused, tried now and then during the run: each once aborted the process. */
const UPLOAD_BOMBS = ["table-bomb", "table-bomb-three", "table-bomb-twenty"] as const;

const schema = { type: "object", properties: { q: { type: "string" }, trace: { type: "string" }, limit: { type: "integer" } }, additionalProperties: false };
const TEXT = ["a", "b", "z", " ", "0", "é", "ß", "中", "文", "🚀", "👩‍💻", "\"", "\\", "/", "~", "\n", "\u0000"];

/** mulberry32: a small seeded PRNG, so a failing run can be repeated exactly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function benignBindings(ref: (plugin: string) => string): BindingInput[] {
  return [
    { id: "before-a", hookRef: ref("contract"), point: "tool.before", priority: 10, match: { toolIds: ["orders.search"] }, config: { mode: "append", tag: "·a" }, timeoutMs: 5_000 },
    { id: "before-b", hookRef: ref("contract"), point: "tool.before", priority: 20, match: { toolIds: ["orders.search"] }, config: { mode: "append", tag: "→b" }, timeoutMs: 5_000 },
    { id: "after-z", hookRef: ref("contract"), point: "tool.after", match: { toolIds: ["orders.search"] }, config: { mode: "append", tag: "🚀z" }, timeoutMs: 5_000 },
  ];
}

async function subjectHost(workers: number): Promise<Host> {
  const host = createHost({ workers, quarantine: false, maxQueue: 4096 });
  // Limits are wall-clock time: on a shared 2-core machine with the main thread, two workers
  // and other jobs competing, a ~20 µs hook was descheduled past the 100 ms default about
  // twice per 100,000 calls (test/stress/RESULTS.md). The benign plugin gets 1 s.
  await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook"), limits: { timeoutMs: 1_000 } });
  for (const h of HOSTILE) await host.loadPlugin({ id: h.fixture, version: "1.0.0", wasm: h.component ? await componentFixture(h.fixture) : fixture(h.fixture), limits: h.limits });
  host.activate({
    revision: 1,
    bindings: [
      ...benignBindings((p) => `${p}@1.0.0`),
      ...HOSTILE.map((h): BindingInput => ({ id: h.tool, hookRef: `${h.fixture}@1.0.0`, point: "tool.before", match: { toolIds: [h.tool] }, failurePolicy: "fail-closed", timeoutMs: 5_000 })),
    ],
  });
  return host;
}

function referenceHost(): Host {
  const host = createHost({ workers: 1, quarantine: false });
  host.registerHook("contract", twin);
  host.activate({ revision: 1, bindings: benignBindings((p) => p) });
  return host;
}

/** What must be identical between the guest and its twin: everything but ids and timings. */
function comparable(r: BoundaryResult<ToolOutput>): Uint8Array {
  return encode({
    ok: r.ok,
    ...(r.ok ? { output: r.output } : { error: r.error.code, cause: (r.error.details?.cause as { code?: string } | undefined)?.code ?? null }),
    real: r.facts.realResult ?? null,
    called: r.facts.called,
    hooks: r.hooks.map((h) => [h.point, h.bindingId, h.outcome, h.error?.code ?? null, h.annotations ?? null]),
    annotations: r.annotations,
  });
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const mb = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;
const collect = (): boolean => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) { gc(); gc(); }
  return gc !== undefined;
};

/** Runs the load; never throws for a wrong result: the report says what went wrong. */
export async function runStress(o: StressOptions): Promise<StressReport> {
  const host = await subjectHost(o.workers);
  const reference = referenceHost();
  const report: StressReport = {
    calls: 0, benign: 0, hostile: 0, settled: 0, mismatches: [], mismatchCount: 0, hostileWrong: [], hostileWrongCount: 0, hostileCodes: {},
    latencyMs: { p50: 0, p90: 0, p99: 0, max: 0 }, callsPerSecond: 0, durationMs: 0, memory: { warmRssMb: 0, endRssMb: 0, ratio: 0, gc: false }, samples: [],
  };
  let latencies = new Float64Array(1 << 16);
  let measured = 0;

  const one = async (i: number, record: boolean): Promise<void> => {
    // One generator per call index: the same seed gives the same calls whatever the interleaving.
    const random = prng(o.seed ^ Math.imul(i + 1, 0x9e3779b1));
    const text = (max: number): string => Array.from({ length: Math.floor(random() * max) }, () => TEXT[Math.floor(random() * TEXT.length)]).join("");
    const hostile = random() < o.hostileRate ? HOSTILE[Math.floor(random() * HOSTILE.length)]! : undefined;
    if (hostile && random() < 0.1) {
      // A tenth of the hostile share uploads a module that once aborted the process.
      const bomb = UPLOAD_BOMBS[i % UPLOAD_BOMBS.length]!;
      const code = await host.loadPlugin({ id: `bomb-${i}`, version: "1.0.0", wasm: fixture(bomb) }).then(() => "loaded", (e: { code?: string }) => e.code ?? "thrown");
      if (!record) return;
      report.settled++;
      report.hostile++;
      report.hostileCodes[code] = (report.hostileCodes[code] ?? 0) + 1;
      if (code !== "MODULE_LIMIT_EXCEEDED") {
        report.hostileWrongCount++;
        if (report.hostileWrong.length < 5) report.hostileWrong.push(`upload of ${bomb}: ${code}, expected MODULE_LIMIT_EXCEEDED`);
      }
      return;
    }
    const ctx = { spaceId: `tenant-${i % 8}`, actorId: `user-${i % 13}` };
    const args = { q: text(24), trace: `#${i}:${text(12)}`, limit: Math.floor(random() * 1000) };
    const call = { toolId: hostile?.tool ?? "orders.search", name: "search", schema, arguments: args, callId: `call-${i}` };
    const execute = async (a: Record<string, unknown>) => ({ echo: a, n: i });
    const t0 = performance.now();
    const r = await host.tool(ctx, call, execute);
    const ms = performance.now() - t0;
    if (!record) return;
    report.settled++;
    if (hostile) {
      report.hostile++;
      const cause = !r.ok ? (r.error.details?.cause as { code?: string } | undefined)?.code : undefined;
      report.hostileCodes[cause ?? (r.ok ? "ok" : r.error.code)] = (report.hostileCodes[cause ?? (r.ok ? "ok" : r.error.code)] ?? 0) + 1;
      if (r.ok || r.error.code !== "HOOK_FAILED" || cause !== hostile.code) {
        report.hostileWrongCount++;
        if (report.hostileWrong.length < 5) report.hostileWrong.push(`${hostile.fixture}: ${r.ok ? "succeeded" : `${r.error.code} (${cause})`}, expected ${hostile.code}`);
      }
      return;
    }
    report.benign++;
    if (measured === latencies.length) { const grown = new Float64Array(latencies.length * 2); grown.set(latencies); latencies = grown; }
    latencies[measured++] = ms;
    const expected = await reference.tool(ctx, call, execute);
    if (!sameBytes(comparable(r), comparable(expected))) {
      report.mismatchCount++;
      const why = r.hooks.filter((h) => h.error).map((h) => `${h.bindingId}: ${h.error!.code} ${h.error!.message}`).join("; ");
      if (report.mismatches.length < 5) report.mismatches.push(`call ${i}: got ${JSON.stringify(r.ok ? r.output : r.error.code)}${why ? ` (${why})` : ""}, expected ${JSON.stringify(expected.ok ? expected.output : expected.error.code)}`);
    }
  };

  /** Keeps `inFlight` calls running until `more()` says stop. */
  const drive = async (more: (issued: number) => boolean, record: boolean, start: number): Promise<number> => {
    let issued = 0;
    const lane = async (): Promise<void> => {
      while (more(issued)) { const i = start + issued++; await one(i, record); }
    };
    await Promise.all(Array.from({ length: o.inFlight }, lane));
    return issued;
  };

  try {
    await drive((n) => n < o.warmupCalls, false, 0);
    collect();
    const warm = process.memoryUsage();
    report.memory.warmRssMb = mb(warm.rss);
    const t0 = performance.now();
    let nextSample = o.sampleEveryMs ?? Number.POSITIVE_INFINITY;
    const sampler = setInterval(() => {
      const seconds = (performance.now() - t0) / 1000;
      if (seconds * 1000 < nextSample) return;
      nextSample += o.sampleEveryMs ?? Number.POSITIVE_INFINITY;
      const m = process.memoryUsage();
      const s = { seconds: Math.round(seconds), calls: report.settled, rssMb: mb(m.rss), heapMb: mb(m.heapUsed) };
      report.samples.push(s);
      o.onSample?.(s);
    }, 250);
    const end = o.durationMs !== undefined ? t0 + o.durationMs : Number.POSITIVE_INFINITY;
    report.calls = await drive((n) => (o.durationMs !== undefined ? performance.now() < end : n < o.calls), true, o.warmupCalls);
    report.durationMs = Math.round(performance.now() - t0);
    clearInterval(sampler);
    report.memory.gc = collect();
    report.memory.endRssMb = mb(process.memoryUsage().rss);
    report.memory.ratio = Math.round((report.memory.endRssMb / report.memory.warmRssMb) * 1000) / 1000;
    const sorted = latencies.slice(0, measured).sort();
    const round = (x: number) => Math.round(x * 100) / 100;
    report.latencyMs = { p50: round(percentile(sorted, 50)), p90: round(percentile(sorted, 90)), p99: round(percentile(sorted, 99)), max: round(sorted[sorted.length - 1] ?? Number.NaN) };
    report.callsPerSecond = Math.round(report.calls / (report.durationMs / 1000));
    return report;
  } finally {
    await Promise.all([host.close(), reference.close()]);
  }
}

/** The checks every run must pass; each failed one is a line of the returned list. */
export function failedChecks(r: StressReport, options: { memory: boolean }): string[] {
  const failed: string[] = [];
  if (r.settled !== r.calls) failed.push(`${r.calls - r.settled} call(s) never settled`);
  if (r.mismatchCount > 0) failed.push(`${r.mismatchCount} benign result(s) differ from the reference: ${r.mismatches.join("; ")}`);
  if (r.hostileWrongCount > 0) failed.push(`${r.hostileWrongCount} hostile call(s) without their code: ${r.hostileWrong.join("; ")}`);
  if (options.memory && r.memory.ratio > 1.2) failed.push(`resident memory grew ${Math.round((r.memory.ratio - 1) * 100)}% after warm-up (limit 20%)`);
  return failed;
}
