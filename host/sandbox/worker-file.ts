import { fileURLToPath } from "node:url";

/**
 * Node 20 cannot start a worker from a .ts file, so when this module runs from source
 * (under vitest) the worker is taken from the compiled tree built by `npm install`. `name` is
 * the entry's path under host/sandbox/ without its extension, e.g. `worker/worker-entry`.
 */
export function workerFile(name: string, ext = ".js"): string {
  const here = new URL(import.meta.url);
  if (here.pathname.endsWith(".ts")) {
    return fileURLToPath(new URL(`../../dist/host/sandbox/${name}${ext}`, here));
  }
  return fileURLToPath(new URL(`./${name}${ext}`, here));
}
