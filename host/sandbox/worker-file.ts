import { fileURLToPath } from "node:url";

/**
 * Node 20 cannot start a worker from a .ts file, so when this module runs from source
 * (under vitest) the worker is taken from the compiled tree built by `npm install`.
 */
export function workerFile(name: string, ext = ".js", from: string = import.meta.url): string {
  const here = new URL(from);
  if (here.pathname.endsWith(".ts")) {
    return fileURLToPath(new URL(`../../dist/host/sandbox/${name}${ext}`, here));
  }
  return fileURLToPath(new URL(`./${name}${ext}`, here));
}
