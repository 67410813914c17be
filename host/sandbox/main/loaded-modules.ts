/**
 * The main thread's side of the module cache: loads shared by bytes, limits and grants, the
 * call spec of each module (built once, sent as is), and the compiled modules each lane's
 * worker still lacks. The worker's side is module-cache.ts.
 */
import { loadModule, moduleBytes, sha256Async, type LoadedModule, type LoadOptions } from "./load-module.js";
import type { Lane } from "./lane.js";
import type { CallSpec } from "../protocol.js";
import { withKeys } from "../../objects/with-keys.js";

/** Key-value scope of a call: the space, and the owner within it. */
export type KvScope = { spaceId: string; ownerId: string };

export function moduleIdOf(module: LoadedModule): string {
  return `${module.sha256}/${module.memory.maxPages}`;
}

function callSpec(module: LoadedModule, kvScope: KvScope | undefined): CallSpec {
  return {
    moduleId: moduleIdOf(module),
    memoryBytes: module.limits.memoryBytes,
    memoryPages: { initial: module.memory.initialPages, maximum: module.memory.maxPages },
    inputBytes: module.limits.inputBytes,
    outputBytes: module.limits.outputBytes,
    fuel: module.limits.fuel,
    abiMajor: module.abi.major,
    abiMinor: module.abi.minor,
    kvScope: module.capabilities.includes("kv") && kvScope ? `${kvScope.spaceId}\u0000${kvScope.ownerId}` : null,
    ...(module.component ? { component: module.component } : {}),
    ...(module.reuse ? { reuse: module.reuse } : {}),
  };
}

export class LoadedModules {
  private readonly loads = new Map<string, Promise<LoadedModule>>();
  /** Compiled modules by id, to send to a worker that has not seen them. */
  private readonly compiled = new Map<string, WebAssembly.Module>();
  private readonly specs = new WeakMap<LoadedModule, Map<string, CallSpec>>();

  /** Validates, caps, meters and compiles a guest once; later loads of the same bytes and limits share it. */
  async load(wasm: Uint8Array | ArrayBuffer, options: LoadOptions = {}): Promise<LoadedModule> {
    const bytes = moduleBytes(wasm);
    // Hashed in slices: a 15 MB module would hold the event loop for ~30 ms at once.
    const sha256 = await sha256Async(bytes);
    const key = `${sha256}|${JSON.stringify(options.limits ?? {})}|${[...(options.capabilities ?? [])].sort().join(",")}`;
    let loaded = this.loads.get(key);
    if (!loaded) {
      loaded = loadModule(bytes, options, sha256);
      this.loads.set(key, loaded);
      // A refused module is not cached: the error is returned, and the next try checks again.
      loaded.catch(() => this.loads.delete(key));
    }
    return loaded;
  }

  spec(module: LoadedModule, kvScope: KvScope | undefined): CallSpec {
    // One spec per module and kv scope, built once: specs are sent, never modified.
    const scope = module.capabilities.includes("kv") && kvScope ? `${kvScope.spaceId}\u0000${kvScope.ownerId}` : "";
    let byScope = this.specs.get(module);
    if (!byScope) this.specs.set(module, (byScope = new Map()));
    let spec = byScope.get(scope);
    if (!spec) {
      spec = callSpec(module, kvScope);
      if (byScope.size >= 1024) byScope.clear();
      byScope.set(scope, spec);
      if (!this.compiled.has(spec.moduleId)) this.compiled.set(spec.moduleId, module.module);
    }
    return spec;
  }

  /** The calls of a task, carrying the compiled modules this lane's worker lacks (all of them when `all`). */
  withModules<C extends CallSpec>(lane: Lane, calls: C[], all: boolean): C[] {
    if (!all && calls.every((c) => lane.modules.has(c.moduleId))) return calls;
    return calls.map((c) => {
      if (!all && lane.modules.has(c.moduleId)) return c;
      lane.modules.add(c.moduleId);
      return withKeys(c, { module: this.compiled.get(c.moduleId) }) as unknown as C;
    });
  }
}
