/**
 * Whether a stream must hold its text back for the after stage (abi/README.md §4.3,
 * "Streams keep the after semantics"). Holding keeps "an after hook judges and may rewrite
 * the final answer" but makes the first token wait for the last. An extension whose chunk
 * hook already rewrites what its after hook would (pii-redact) declares so in hook.yaml
 * (`stream_rewrite: chunk` at model.chat.after); when its chunk twin runs on every byte
 * that leaves, its after hook judges the streamed answer read-only and nothing is held.
 */
import { canonicalJson } from "../pipeline/canonical-json.js";
import { effectiveFailurePolicy } from "../pipeline/failure-policy.js";
import type { ResolvedHook } from "./hooks.js";

export interface StreamPlan {
  /** Hold the text back until the after stage has run (it may then rewrite the answer). */
  hold: boolean;
  /** When not holding: the after bindings that judge the streamed answer read-only (their chunk twin rewrote it). */
  readOnly: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();

/** Whether a hook declares that its chunk hook is its stream rewrite. */
export function declaresStreamRewrite(h: ResolvedHook): boolean {
  return h.kind === "guest"
    ? h.plugin.grants["model.chat.after"]?.streamRewrite === "chunk"
    : h.options?.streamRewrite === "chunk";
}

/** One extension's hook with one config: a chunk twin and its after binding share this key. */
function twinKey(h: ResolvedHook): string {
  return `${h.binding.pair}\u0000${h.binding.hookRef}\u0000${canonicalJson(h.binding.config)}`;
}

/**
 * The plan for one streamed operation, given its chunk and after hooks in the order they
 * run. An after binding that may change the answer (not observe-only) needs the text held
 * back unless it is covered: it declares the stream rewrite, and its chunk twin (a chunk
 * binding of the same extension, plugin and config) runs fail-closed (a twin that failed
 * open would let a chunk through unscanned) with no chunk hook after it that may change the
 * text other than observe-only hooks and other covered twins (a later rewriter could add
 * text the twin never saw). One after binding not covered holds the whole stream.
 * @example streamPlan([redactChunk, meterChunk], [redactAfter]) // { hold: false, readOnly: Set { "redact-answer" } }
 */
export function streamPlan(chunk: readonly ResolvedHook[], after: readonly ResolvedHook[]): StreamPlan {
  const writers = after.filter((h) => !h.binding.observeOnly);
  if (writers.length === 0) return { hold: false, readOnly: NONE };
  const wanted = new Set(writers.filter(declaresStreamRewrite).map(twinKey));
  // From the last chunk hook back: a twin counts while nothing after it may change the text, except twins.
  const twins = new Set<string>();
  for (let i = chunk.length - 1; i >= 0; i--) {
    const h = chunk[i]!;
    if (h.binding.observeOnly) continue;
    const key = twinKey(h);
    if (!wanted.has(key) || !declaresStreamRewrite(h) || effectiveFailurePolicy("model.chat.chunk", h.binding) !== "fail-closed") break;
    twins.add(key);
  }
  const covered = writers.every((h) => twins.has(twinKey(h)));
  return covered ? { hold: false, readOnly: new Set(writers.map((h) => h.binding.id)) } : { hold: true, readOnly: NONE };
}
