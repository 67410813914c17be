/**
 * Compiles plugin versions as soon as another host stores them, so that an activation of a
 * release that uses them costs this host a switch, not a compile (a fresh module takes
 * 0.1-0.7 s to check, meter and compile on a busy machine). Only versions stored after the
 * host started are fetched: older ones are loaded when a release needs them.
 */
import { isSluiceError } from "../errors/sluice-error.js";
import type { ErrorCode } from "../errors/codes.js";
import type { PluginRecord } from "./records.js";

export type PrefetchReport =
  | { kind: "prefetched"; plugin: string; loadMs: number }
  | { kind: "prefetch_failed"; plugin: string; code: ErrorCode };

export interface PrefetchOptions {
  list: () => PluginRecord[] | Promise<PluginRecord[]>;
  load: (record: PluginRecord) => Promise<unknown>;
  intervalMs: number;
  onReport?: (report: PrefetchReport) => void;
  /** True for a version stored through this process: loaded too, but not reported as another host's. */
  storedHere?: (ref: string) => boolean;
}

/** Starts watching the plugin list; resolves with the function that stops it. */
export async function startPrefetch(options: PrefetchOptions): Promise<() => Promise<void>> {
  const refOf = (p: PluginRecord): string => `${p.id}@${p.version}`;
  const known = new Set((await options.list()).map(refOf));
  let running: Promise<void> | undefined;
  let stopped = false;
  const check = async (): Promise<void> => {
    let plugins: PluginRecord[];
    try {
      plugins = await options.list();
    } catch {
      return; // the release feed reports a database it cannot read
    }
    for (const record of plugins) {
      const ref = refOf(record);
      if (stopped || known.has(ref)) continue;
      known.add(ref);
      const started = performance.now();
      try {
        await options.load(record);
        if (!options.storedHere?.(ref)) options.onReport?.({ kind: "prefetched", plugin: ref, loadMs: Math.round(performance.now() - started) });
      } catch (err) {
        // Not fatal here: a release that uses it reports the failure when it is activated.
        options.onReport?.({ kind: "prefetch_failed", plugin: ref, code: isSluiceError(err) ? err.code : "INTERNAL_ERROR" });
      }
    }
  };
  const timer = setInterval(() => { if (!running) running = check().finally(() => { running = undefined; }); }, options.intervalMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
