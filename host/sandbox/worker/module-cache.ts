/**
 * The compiled modules a worker holds, by module id. Tasks name their modules by id and
 * carry the Module objects only when a worker asked for them: receiving a Module and
 * instantiating a copy this thread has not used before costs tens of microseconds, every
 * time, while the same cached Module instantiates cheaply.
 */
import type { CallSpec } from "../protocol.js";

const MAX_MODULES = 256;
const modules = new Map<string, WebAssembly.Module>();

/** Keeps the modules a task brought; returns the ids of the ones it needs and this worker lacks. */
export function admit(calls: readonly Pick<CallSpec, "moduleId" | "module">[]): string[] {
  const missing: string[] = [];
  for (const c of calls) {
    if (modules.has(c.moduleId)) continue;
    if (c.module) {
      if (modules.size >= MAX_MODULES) modules.delete(modules.keys().next().value!);
      modules.set(c.moduleId, c.module);
    } else if (!missing.includes(c.moduleId)) missing.push(c.moduleId);
  }
  return missing;
}

export function moduleOf(spec: Pick<CallSpec, "moduleId" | "module">): WebAssembly.Module {
  const m = modules.get(spec.moduleId) ?? spec.module;
  if (!m) throw new Error(`module ${spec.moduleId} is not in this worker (admit() first)`);
  return m;
}

/** The answer of a worker that lacks modules: the main thread sends the task again with them. */
export interface MissingModules { missingModules: string[] }

export function isMissingModules(value: unknown): value is MissingModules {
  return typeof value === "object" && value !== null && "missingModules" in value;
}
