import { threadFile } from "../storage/thread-file.js";

/**
 * A worker entry's file: `name` is its path under host/sandbox/ without its extension, e.g.
 * `worker/worker-entry` (from the compiled tree when this runs from source: thread-file.ts).
 */
export function workerFile(name: string, ext = ".js"): string {
  return threadFile(import.meta.url, `./${name}${ext}`);
}
