/**
 * {@link SplitTools} on the host's split lifecycle (boundary/tool-split.ts): the before
 * event leaves the operation awaiting its result in the records store, and the after
 * event, reaching this host or any host sharing the store, claims and ends it.
 */
import type { Host } from "../host.js";
import type { AfterResult, BeforeResult, SplitTools, ToolEnding } from "./split-tools.js";

export function hostSplitTools(host: Host): SplitTools {
  return {
    async before(ctx, call): Promise<BeforeResult> {
      const r = await host.toolBefore(ctx, call);
      const operationId = r.facts.operationId;
      if (!r.ok) return { ok: false, operationId, error: r.error.toData(), annotations: r.annotations };
      if (r.output.kind === "served") return { ok: true, operationId, arguments: call.arguments, served: { result: r.output.view }, annotations: r.annotations };
      return { ok: true, operationId, arguments: r.output.arguments, annotations: r.annotations };
    },
    async after(operationId, ending: ToolEnding): Promise<AfterResult> {
      const r = await host.toolAfter(operationId, ending.status === "succeeded" ? ending
        : ending.status === "failed" ? { status: "failed", ...(ending.durationMs !== undefined ? { durationMs: ending.durationMs } : {}) }
        : { status: "unknown", reason: "expired" });
      if (!r.ok) return { ok: false, error: r.error.toData(), ...(r.output ? { view: r.output.view } : {}), annotations: r.annotations };
      return { ok: true, view: r.output.view, annotations: r.annotations };
    },
  };
}
