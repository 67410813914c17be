/**
 * The compared systems, each running the same hook logic (test/bench/assembly/logic.ts)
 * on the same request bytes: this host's pipeline stage, Extism in-process and in its
 * worker, a direct in-process WebAssembly call (the floor), and an in-process TS hook.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import createPlugin, { type Plugin } from "@extism/extism";
import { decode, encode } from "../../abi/codec.js";
import { parseReply, type Outcome, type RequestEnvelope } from "../../abi/envelope.js";
import { createHost, type Host } from "../../host/index.js";
import type { MatchTarget } from "../../host/pipeline/bindings.js";
import type { BindingInput } from "../../host/pipeline/release.js";
import { WASM_PAGE } from "../../host/sandbox/limits.js";
import { boundShape } from "../../host/sandbox/loader/prepare-module.js";
import { hostMemory } from "../../host/sandbox/wasm-binary.js";
import { unmetered } from "./unmetered.js";

/** The repository root, from test/bench (vitest) or dist/test/bench (npm run bench). */
export function repoRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error("bench: cannot find the repository root");
  }
}
/** A built guest: build/bench/<name>.wasm, build/fixtures/..., build/plugins/... */
export const built = (path: string): Uint8Array => new Uint8Array(readFileSync(join(repoRoot(), "build", path)));
export const benchWasm = (name: "sluice-hook" | "sluice-hook-small" | "extism-hook"): Uint8Array => built(`bench/${name}.wasm`);

export const CONFIG = { tag: "bench" };
export const CTX = { spaceId: "space-bench", actorId: "u1", runId: "r1" };

/** A tool.before payload whose encoded request is about `bytes` long. */
export function payloadOf(bytes: number): Record<string, unknown> {
  const base = { tool_id: "bench.tool", name: "search", schema: { type: "object" }, arguments: { blob: "" }, call_id: "call-1" };
  const overhead = encode(envelopeOf(base)).byteLength;
  return { ...base, arguments: { blob: "x".repeat(Math.max(0, bytes - overhead)) } };
}

/** The request a guest receives for `payload` (what the worker builds, with a fixed context). */
export function envelopeOf(payload: Record<string, unknown>): RequestEnvelope {
  return {
    abi: "1.0", point: "tool.before", payload, config: CONFIG,
    context: { space_id: CTX.spaceId, actor_id: CTX.actorId, run_id: CTX.runId, instance_id: "main", operation_id: "00000000-0000-4000-8000-000000000000", parent_operation_id: null, call_id: null, purpose: "action", published_revision: 1, deadline: null, binding_id: "b0", point: "tool.before" },
  } as RequestEnvelope;
}

function outcomeOf(replyBytes: Uint8Array): Outcome {
  const parsed = parseReply(decode(replyBytes), (v) => encode(v).byteLength);
  if (!parsed.ok) throw new Error(`bench hook replied badly: ${parsed.message}`);
  return parsed.outcome;
}

/** The hook logic in TypeScript (the in-process twin of logic.ts). */
export function tsHook(req: RequestEnvelope): Outcome {
  const tag = typeof (req.config as { tag?: unknown })?.tag === "string" ? (req.config as { tag: string }).tag : "";
  const blob = (req.payload.arguments as { blob?: unknown } | undefined)?.blob;
  const o: Outcome = { kind: "continue" };
  return tag.length > 0 ? { ...o, annotations: { [`tag_${tag}`]: typeof blob === "string" && blob.length > 0 } } : o;
}

/** Tool ids that select a stage shape: one guest hook, eight guest hooks, one in-process hook. */
export const TOOLS = { guest1: "guest.one", guest1Unmetered: "guest.one.unmetered", guest8: "guest.eight", ts1: "ts.one" } as const;

export interface BenchHost {
  host: Host;
  /** Runs the tool.before stage for `toolId` on `payload`. */
  stage(toolId: string, payload: Record<string, unknown>): Promise<void>;
}

/**
 * The bench plugin once more as its own plugin (a variant: same code, another sha256), its
 * loaded module swapped, before its first call, for the same prepared bytes compiled without
 * the fuel meter: the host runs it exactly as the metered one, so scenario 1 compares metered
 * and unmetered in one run. (Its calls report 0 fuel: nothing writes the counter.)
 */
async function loadUnmetered(host: Host, id: string): Promise<void> {
  const wasm = variant(benchWasm("sluice-hook"), 0xfee1);
  await host.loadPlugin({ id, version: "1.0.0", wasm });
  // loadPlugin's own load (same bytes, same options): the same LoadedModule.
  const loaded = await host.sandbox.load(wasm, { capabilities: [] });
  const limits = loaded.limits;
  const prepared = hostMemory(boundShape(wasm, limits).bytes, limits.memoryBytes / WASM_PAGE);
  if ("refused" in prepared) throw new Error(`bench: ${prepared.refused}`);
  (loaded as { module: WebAssembly.Module }).module = await WebAssembly.compile(unmetered(prepared.bytes, loaded.reuse?.reset) as Uint8Array<ArrayBuffer>);
}

/** A host with the bench plugin bound once for guest.one, eight times for guest.eight, the TS twin for ts.one, and its unmetered twin for guest.one.unmetered. */
const BENCH_CTX = { ...CTX, purpose: "action" } as const;

export async function benchHost(workers?: number): Promise<BenchHost> {
  const host = createHost(workers ? { workers } : {});
  await host.loadPlugin({ id: "bench", version: "1.0.0", wasm: benchWasm("sluice-hook") });
  await loadUnmetered(host, "bench-unmetered");
  host.registerHook("bench-ts", (req) => tsHook(req));
  const bindings: BindingInput[] = [
    { id: "g1", hookRef: "bench@1.0.0", point: "tool.before", config: CONFIG, match: { toolIds: [TOOLS.guest1] } },
    { id: "g1-unmetered", hookRef: "bench-unmetered@1.0.0", point: "tool.before", config: CONFIG, match: { toolIds: [TOOLS.guest1Unmetered] } },
    ...Array.from({ length: 8 }, (_, i): BindingInput => ({ id: `g8-${i}`, hookRef: "bench@1.0.0", point: "tool.before", config: CONFIG, match: { toolIds: [TOOLS.guest8] } })),
    { id: "t1", hookRef: "bench-ts", point: "tool.before", config: CONFIG, match: { toolIds: [TOOLS.ts1] } },
  ];
  host.activate({ revision: 1, bindings });
  return {
    host,
    async stage(toolId, payload) {
      const target: MatchTarget = { purpose: "action", toolId, instance: "main", spaceId: CTX.spaceId };
      // Ended as a boundary call ends it: an operation left open stays in the host's in-flight table.
      const stages = host.begin(BENCH_CTX, target);
      const r = await stages.run("tool.before", payload).finally(() => stages.end());
      if (r.failure || r.reports.some((s) => s.outcome !== "continue")) throw new Error(`bench stage failed: ${JSON.stringify(r.failure ?? r.reports)}`);
    },
  };
}

/** Extism 1.0.3 with the same logic; the reply is decoded and checked as the host checks a guest's. */
export async function extism(runInWorker: boolean): Promise<{ plugin: Plugin; call: (request: Uint8Array) => Promise<Outcome> }> {
  const plugin = await createPlugin({ wasm: [{ data: benchWasm("extism-hook") }] }, {
    useWasi: false, runInWorker,
    // Reached only if the SDK aborts (never in the bench); Extism needs every import filled.
    functions: { sluice_v1: { abort: () => { throw new Error("guest aborted"); } } },
  });
  return {
    plugin,
    async call(request) {
      const out = await plugin.call("handle", request);
      if (!out) throw new Error("extism plugin returned no output");
      return outcomeOf(out.bytes());
    },
  };
}

/**
 * The floor: the Sluice guest called directly on the main thread, on an instance made in
 * `prepare` (untimed) so the stub runtime's never-freed heap starts empty for every call.
 */
export function floor(): { prepare: () => void; call: (request: Uint8Array) => Outcome } {
  const module = new WebAssembly.Module(benchWasm("sluice-hook") as Uint8Array<ArrayBuffer>);
  const imports = { sluice_v1: { log: () => {}, abort: () => { throw new Error("guest aborted"); } } };
  let exports!: { memory: WebAssembly.Memory; sluice_alloc: (n: number) => number; sluice_handle: (p: number, n: number) => bigint };
  return {
    prepare() { exports = new WebAssembly.Instance(module, imports).exports as typeof exports; },
    call(request) {
      const ptr = exports.sluice_alloc(request.byteLength) >>> 0;
      new Uint8Array(exports.memory.buffer, ptr, request.byteLength).set(request);
      const packed = exports.sluice_handle(ptr, request.byteLength);
      return outcomeOf(new Uint8Array(exports.memory.buffer, Number(packed >> 32n), Number(packed & 0xffffffffn)));
    },
  };
}

/** The same bytes with a custom section appended: a distinct plugin (sha256) with the same code. */
export function variant(wasm: Uint8Array, n: number): Uint8Array {
  const name = new TextEncoder().encode("bench-variant");
  const body = [name.length, ...name, ...new TextEncoder().encode(String(n).padStart(8, "0"))];
  return new Uint8Array([...wasm, 0, body.length, ...body]);
}
