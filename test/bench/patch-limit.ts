/**
 * Scenario 19's measure: a reply the host must decode and check is the
 * host's work. A guest returning 25,000 `replace` operations (patch-flood.wat, about 950 KB)
 * is refused PATCH_INVALID naming the documented maximum, a guest returning exactly that
 * maximum (patch-at-limit.wat) is applied, each answers within 20 ms and the one worker
 * serves every call (test/sandbox/reply-work.test.ts asserts the outcomes alone).
 */
import { PATCH_MAX_OPS } from "../../abi/envelope.js";
import { createHost } from "../../host/index.js";
import { stats, type Stats } from "./measure.js";

/** The reply times of one guest, ms: the median and the extremes (the promise is about every reply). */
export interface ReplyTimes extends Stats { min: number; max: number }

const replyTimes = (ms: readonly number[]): ReplyTimes => ({ ...stats(ms), min: Math.min(...ms), max: Math.max(...ms) });

/** `asExpected`: every call ended as it should (refused naming the limit, or applied). */
export interface PatchLimitRun { ms: ReplyTimes; asExpected: boolean; replyBytes: number }

export interface PatchLimitResult { over: PatchLimitRun; atLimit: PatchLimitRun; workersEnded: number }

const schema = { type: "object", properties: { q: { type: "string" } } };

/**
 * Runs the two guests `runs` times each, alternately, on one worker, timing each whole host
 * call, after `warmup` untimed rounds (the first calls compile the host's own code).
 */
export async function runPatchLimit(runs: number, warmup: number, fixtureBytes: (name: string) => Uint8Array): Promise<PatchLimitResult> {
  let workersEnded = 0;
  const host = createHost({ workers: 1, spareWorkers: 0, onWorkerEnded: () => { workersEnded++; } });
  try {
    const grants = { "tool.before": { write: ["/arguments"] } };
    await host.loadPlugin({ id: "over", version: "1.0.0", wasm: fixtureBytes("patch-flood"), grants });
    await host.loadPlugin({ id: "at-limit", version: "1.0.0", wasm: fixtureBytes("patch-at-limit"), grants });
    await host.sandbox.ready();
    const spaces = { over: "over", atLimit: "at-limit" } as const;
    host.activate({
      revision: 1,
      bindings: Object.values(spaces).map((id) => ({ id, hookRef: `${id}@1.0.0`, point: "tool.before" as const, match: { spaces: [id] } })),
    });
    const times = { over: [] as number[], atLimit: [] as number[] };
    const ok = { over: true, atLimit: true };
    for (let i = -warmup; i < runs; i++) {
      for (const which of ["over", "atLimit"] as const) {
        const t0 = performance.now();
        const r = await host.tool({ spaceId: spaces[which] }, { toolId: "orders.search", name: "search", schema, arguments: { q: "shoes" }, callId: `c${i}` }, async (args) => args);
        if (i >= 0) times[which].push(performance.now() - t0);
        const cause = !r.ok ? (r.error.details as { cause?: { code?: string; details?: { limit?: number } } } | undefined)?.cause : undefined;
        ok[which] &&= which === "over"
          ? cause?.code === "PATCH_INVALID" && cause.details?.limit === PATCH_MAX_OPS
          : r.ok && (r.output as { view?: { q?: unknown } }).view?.q === "x";
      }
    }
    return {
      over: { ms: replyTimes(times.over), asExpected: ok.over, replyBytes: 38 + 25_000 * 38 },
      atLimit: { ms: replyTimes(times.atLimit), asExpected: ok.atLimit, replyBytes: 38 + PATCH_MAX_OPS * 38 },
      workersEnded,
    };
  } finally {
    await host.close();
  }
}
