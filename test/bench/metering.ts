/**
 * Scenario 11's contenders: every reference plugin (and the bench hook) compiled twice from
 * the same prepared bytes, with and without the fuel meter, each called in this thread
 * through runCall on its first sample's request, so the difference is the guest's own time.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encode } from "../../abi/codec.js";
import type { RequestEnvelope } from "../../abi/envelope.js";
import { meter } from "../../host/sandbox/loader/fuel/meter.js";
import { SqliteKvStore } from "../../host/sandbox/kv/sqlite-kv-store.js";
import { resolveLimits, WASM_PAGE } from "../../host/sandbox/limits.js";
import { JS_COMPONENT_FUEL } from "../helpers/fixtures.js";
import { boundShape } from "../../host/sandbox/loader/prepare-module.js";
import type { CallSpec } from "../../host/sandbox/protocol.js";
import { runCall } from "../../host/sandbox/worker/run-call.js";
import { capMemory, hostMemory } from "../../host/sandbox/wasm-binary.js";
import { transpile } from "@bytecodealliance/jco";
import { createHash } from "node:crypto";
import { loadComponent } from "../../host/sandbox/loader/component/load-component.js";
import { pendingComponents } from "../../host/sandbox/worker/run-component.js";
import { benchWasm, built, envelopeOf, payloadOf, repoRoot } from "./systems.js";
import { unmetered } from "./unmetered.js";
import { resetExportName } from "../../host/sandbox/loader/reset-export.js";

export interface MeteringPair { name: string; fuel: number; metered: () => void; bare: () => void; close: () => void }

/** The first sample of a plugin that is one stage with a payload, as the request its guest receives. */
function firstRequest(plugin: string): Uint8Array | undefined {
  const dir = join(repoRoot(), "plugins", plugin, "samples");
  if (!existsSync(dir)) return undefined;
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".json")).sort()) {
    const s = JSON.parse(readFileSync(join(dir, f), "utf8")) as { point?: string; payload?: Record<string, unknown>; config?: unknown };
    if (!s.point || !s.payload) continue;
    const base = envelopeOf(s.payload);
    return encode({ ...base, point: s.point, config: s.config ?? {}, context: { ...base.context, point: s.point } } as RequestEnvelope);
  }
  return undefined;
}

export async function meteredAndBare(): Promise<MeteringPair[]> {
  const limits = resolveLimits({});
  const kvPath = join(tmpdir(), `sluice-bench-metering-${process.pid}.db`);
  const store = new SqliteKvStore(kvPath);
  const kv = (): SqliteKvStore => store;
  const guests: [string, Uint8Array, Uint8Array][] = [["bench-hook", benchWasm("sluice-hook"), encode(envelopeOf(payloadOf(1024)))]];
  for (const name of ["answer-normalize", "audit-tag", "embedding-normalize", "order-search-limit", "pii-redact", "prompt-guard", "response-cache", "token-meter", "workspace-path-guard"]) {
    const request = firstRequest(name);
    if (request) guests.push([name, built(`plugins/${name}.wasm`), request]);
  }
  const pairs: MeteringPair[] = [];
  for (const [name, bytes, request] of guests) {
    const prepared = hostMemory(boundShape(bytes, limits).bytes, limits.memoryBytes / WASM_PAGE);
    if ("refused" in prepared) throw new Error(`${name}: ${prepared.refused}`);
    // Both with the reset export, so both run on reused instances as the host runs them.
    const exportName = resetExportName(boundShape(bytes, limits).shape.exports.map((e) => e.name));
    const metered = await WebAssembly.compile(meter(prepared.bytes, { reset: exportName }) as Uint8Array<ArrayBuffer>);
    const reset = WebAssembly.Module.exports(metered).some((e) => e.name === exportName) ? exportName : undefined;
    const bare = await WebAssembly.compile(unmetered(prepared.bytes, reset) as Uint8Array<ArrayBuffer>);
    const spec: Omit<CallSpec, "module" | "moduleId"> = {
      memoryBytes: limits.memoryBytes, memoryPages: { initial: prepared.initialPages, maximum: prepared.maxPages },
      inputBytes: limits.inputBytes, outputBytes: limits.outputBytes, fuel: limits.fuel, abiMajor: 1, kvScope: "bench\u0000metering", ...(reset !== undefined ? { reuse: { reset, imageBytes: boundShape(bytes, limits).shape.dataEnd! } } : {}),
    };
    const caller = (module: WebAssembly.Module, id: string) => {
      const full: CallSpec = { ...spec, module, moduleId: id };
      return () => {
        const r = runCall(full, { bytes: request, raw: false }, kv);
        if (!r.ok) throw new Error(`${name} (${id}): ${r.error.code} ${r.error.message}`);
        return r.fuel;
      };
    };
    const m = caller(metered, `bench:${name}:metered`);
    const b = caller(bare, `bench:${name}:bare`);
    pairs.push({ name, fuel: m(), metered: m, bare: b, close: () => {} });
  }
  pairs.at(-1)!.close = () => { rmSync(kvPath, { force: true }); rmSync(`${kvPath}-wal`, { force: true }); rmSync(`${kvPath}-shm`, { force: true }); };
  return pairs;
}

/**
 * The JavaScript (SpiderMonkey) component the same way: loaded as the host loads it (its
 * core modules metered), and again with the same glue and its core modules compiled from
 * jco's output without the meter. A call takes milliseconds, so it is measured on its own.
 */
export async function meteredAndBareComponent(): Promise<MeteringPair> {
  const bytes = built("plugins/order-search-limit-js.wasm");
  const limits = resolveLimits({ moduleBytes: 16 << 20, timeoutMs: 5_000, fuel: JS_COMPONENT_FUEL });
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const loaded = await loadComponent(bytes, sha256, { limits });
  const maxPages = limits.memoryBytes / WASM_PAGE;
  const files = (await transpile(bytes, { name: "guest", instantiation: "sync", noTypescript: true, quiet: true })).files;
  const bareCores: Record<string, WebAssembly.Module> = {};
  for (const name of Object.keys(loaded.component.cores)) {
    bareCores[name] = await WebAssembly.compile(capMemory(boundShape(files[name]!, limits).bytes, maxPages).bytes as Uint8Array<ArrayBuffer>);
  }
  const request = firstRequest("order-search-limit")!;
  const spec = (cores: Record<string, WebAssembly.Module>, id: string): CallSpec => ({
    module: loaded.module, moduleId: id, memoryBytes: limits.memoryBytes, memoryPages: { initial: loaded.memory.initialPages, maximum: loaded.memory.maxPages },
    inputBytes: limits.inputBytes, outputBytes: limits.outputBytes, fuel: limits.fuel, abiMajor: 1, kvScope: null,
    component: { ...loaded.component, id, cores },
  });
  const metered = spec(loaded.component.cores, `bench:js:metered`);
  const bare = spec(bareCores, `bench:js:bare`);
  await pendingComponents([metered, bare]);
  const caller = (s: CallSpec) => () => {
    const r = runCall(s, { bytes: request, raw: false }, () => { throw new Error("no kv"); });
    if (!r.ok) throw new Error(`order-search-limit-js (${s.moduleId}): ${r.error.code} ${r.error.message}`);
    return r.fuel;
  };
  const m = caller(metered);
  return { name: "order-search-limit-js", fuel: m(), metered: m, bare: caller(bare), close: () => {} };
}
