/**
 * Which outcome a hook may return, and what a chunk outcome emits. The allowed kinds
 * per point are the `outcomes` column of the point table; these functions add the rules
 * a table cannot express (hold, carry, observe-only).
 */
import type { Outcome } from "../../abi/envelope.js";
import type { ErrorData } from "../errors/sluice-error.js";
import { getPoint, type PointName } from "./points.js";
import { fail, OK, type Checked } from "./result.js";

/**
 * Checks an outcome against its point: the kind must be in the point's `outcomes`;
 * `hold` only at a chunk point; `carry` only at a before point (it is handed to the
 * paired after hook, and nothing pairs with any other stage).
 * @example checkOutcome("tool.after", { kind: "reject", code: "x", reason: "y" }) // OUTCOME_NOT_ALLOWED
 */
export function checkOutcome(point: PointName, outcome: Outcome): Checked {
  const spec = getPoint(point);
  const details = { point, outcome: outcome.kind };
  if (!spec.outcomes.includes(outcome.kind)) {
    return fail("OUTCOME_NOT_ALLOWED", `outcome "${outcome.kind}" is not allowed at ${point}; allowed: ${spec.outcomes.join(", ")}`, details);
  }
  if ("hold" in outcome && outcome.hold !== undefined && spec.stage !== "chunk") {
    return fail("OUTCOME_NOT_ALLOWED", `"hold" is only meaningful at model.chat.chunk, not at ${point}`, details);
  }
  if ("carry" in outcome && outcome.carry !== undefined && spec.stage !== "before") {
    return fail("OUTCOME_NOT_ALLOWED", `"carry" is only handed from a before point to its paired after hook, not from ${point}`, details);
  }
  return OK;
}

/**
 * An observe-only binding may only watch: `continue`, with annotations and carry but no
 * `hold` (holding back text changes the stream).
 */
export function checkObserveOnly(outcome: Outcome): Checked {
  if (outcome.kind !== "continue") {
    return fail("OUTCOME_NOT_ALLOWED", `an observe-only binding may only return "continue", not "${outcome.kind}"`, { outcome: outcome.kind, observeOnly: true });
  }
  if (outcome.hold !== undefined && outcome.hold !== "") {
    return fail("OUTCOME_NOT_ALLOWED", `an observe-only binding may not hold back stream text`, { outcome: outcome.kind, observeOnly: true });
  }
  return OK;
}

/**
 * An after hook that declared its chunk hook as its stream rewrite judges a streamed
 * answer read-only (stream-rewrite.ts): the text has already reached the caller, so an
 * outcome that would change it is refused rather than silently dropped; continue, block
 * and annotations keep their meaning.
 */
export function checkStreamedAnswer(outcome: Outcome, bindingId: string): Checked {
  if (outcome.kind === "patch_output" || outcome.kind === "redact") {
    return fail("ANSWER_ALREADY_STREAMED", `binding ${bindingId} returned "${outcome.kind}" on a streamed answer its chunk hook already rewrote (stream_rewrite: chunk): the text has been sent; rewrite it at model.chat.chunk, or block`, { outcome: outcome.kind, bindingId, streamed: true });
  }
  return OK;
}

export type ChunkEmission = { ok: true; emit: string; hold: string } | { ok: false; error: ErrorData };

/**
 * What one chunk hook lets through. `received` is the `delta` the hook was given: the
 * tail it held at the previous chunk followed by the text that reached it now (each
 * binding keeps its own held tail). `continue` emits `received` minus its `hold`;
 * `redact` emits `content` and holds `hold`. A hold must be a suffix of `received`,
 * must not split a surrogate pair, and must be empty at the last chunk (nothing follows
 * to carry it).
 * @example chunkEmission("card 4111 1", false, { kind: "continue", hold: "4111 1" }) // { ok: true, emit: "card ", hold: "4111 1" }
 */
export function chunkEmission(received: string, isLast: boolean, outcome: Extract<Outcome, { kind: "continue" | "redact" }>): ChunkEmission {
  const hold = outcome.hold ?? "";
  const details = { point: "model.chat.chunk", outcome: outcome.kind };
  if (!received.endsWith(hold)) {
    return fail("OUTCOME_NOT_ALLOWED", `hold must be a suffix of the chunk's delta the hook received (${hold.length} chars held, ${received.length} received)`, details);
  }
  if (hold !== "" && isLast) {
    return fail("OUTCOME_NOT_ALLOWED", "hold must be empty at the last chunk: no later chunk would emit it", details);
  }
  const cut = received.length - hold.length;
  if (hold !== "" && cut > 0 && isHighSurrogate(received.charCodeAt(cut - 1))) {
    return fail("OUTCOME_NOT_ALLOWED", "hold splits a surrogate pair: hold the whole character", details);
  }
  return { ok: true, emit: outcome.kind === "redact" ? outcome.content : received.slice(0, cut), hold };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
