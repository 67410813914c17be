/**
 * Between an MCP `CallToolResult` and the host's tool view. The view `tool.after` hooks
 * see is the upstream's result itself (content, structuredContent), so a redactor reaches
 * every text part; whatever the hooks leave is turned back into a valid result.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { BoundaryResult, ToolOutput } from "../../index.js";

/** Thrown inside the wrapped call for an `isError` result, so the host records the real call as failed. */
export class McpToolError extends Error {
  constructor(readonly result: CallToolResult) {
    // The upstream's error text becomes the failure's view, which tool.after hooks scan.
    super(textOf(result) || "the MCP tool returned an error result");
    this.name = "McpToolError";
  }
}

function textOf(result: CallToolResult): string {
  return (result.content ?? []).flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");
}

function isCallToolResult(view: unknown): view is CallToolResult {
  return typeof view === "object" && view !== null && Array.isArray((view as { content?: unknown }).content);
}

function asText(view: unknown): string {
  return typeof view === "string" ? view : JSON.stringify(view ?? null);
}

/** Where the proxy says what Sluice did with a call (MCP reserves `_meta` for such facts). */
export const META_KEY = "sluice/operation";

/** The result the MCP client receives: the view as the hooks left it, or the reason the call did not run. */
export function resultOf(r: BoundaryResult<ToolOutput>): CallToolResult {
  const facts = {
    operationId: r.facts.operationId, realStatus: r.facts.realStatus,
    ...(r.facts.shortCircuitedBy ? { shortCircuitedBy: r.facts.shortCircuitedBy } : {}),
    ...(r.ok ? {} : { code: r.error.code }),
  };
  const _meta = { [META_KEY]: facts };
  if (r.ok) {
    const view = r.output.view;
    if (isCallToolResult(view)) return { ...view, _meta: { ...view._meta, ..._meta } };
    return { content: [{ type: "text", text: asText(view) }], _meta };
  }
  // A failed tool: the view of its failure that tool.after left (never the raw upstream text).
  const failed = r.output?.view as { error?: unknown } | undefined;
  const text = failed !== undefined ? (typeof failed?.error === "string" ? failed.error : asText(failed)) : r.error.message;
  return { content: [{ type: "text", text }], isError: true, _meta };
}
