/**
 * A tool call whose before and after arrive as two requests: the agent runs the tool itself.
 * The door drives it through this interface; the pairing (pairing.ts) joins the two halves.
 */
import type { ErrorData } from "../errors/sluice-error.js";
import type { CallContext } from "../engine/call-types.js";
import type { ToolCall } from "../boundary/tool.js";

/** How the tool the agent ran ended. */
export type ToolEnding =
  | { status: "succeeded"; result: unknown; durationMs?: number }
  | { status: "failed"; error: { code: string; message: string }; durationMs?: number }
  | { status: "unknown"; reason: string };

export type BeforeResult =
  | { ok: true; operationId: string; arguments: Record<string, unknown>; served?: { result: unknown }; annotations: Record<string, unknown> }
  | { ok: false; operationId: string; error: ErrorData; annotations: Record<string, unknown> };

export type AfterResult =
  | { ok: true; view: unknown; annotations: Record<string, unknown> }
  | { ok: false; error: ErrorData; view?: unknown; annotations: Record<string, unknown> };

export interface SplitTools {
  /** Runs tool.before and the final check; on success the operation stays open, awaiting its ending. */
  before(ctx: CallContext, call: ToolCall): Promise<BeforeResult>;
  /** Ends the open operation: tool.after (or the error stage), finally, the record's ending. */
  after(operationId: string, ending: ToolEnding): Promise<AfterResult>;
}
