import { describe, expect, it } from "vitest";
import type { Binding } from "../../host/pipeline/bindings.js";
import type { ResolvedHook } from "../../host/engine/hooks.js";
import { checkStreamedAnswer } from "../../host/pipeline/outcome-rules.js";
import type { PointName } from "../../host/pipeline/points.js";
import { streamPlan } from "../../host/engine/stream-rewrite.js";

const hook = async () => ({ kind: "continue" as const });
/** A hook as a release resolves it; `declares`: its chunk hook is its stream rewrite. */
function h(id: string, point: PointName, over: Partial<Binding> & { declares?: boolean; guest?: boolean } = {}): ResolvedHook {
  const { declares, guest, ...fields } = over;
  const hookRef = fields.hookRef ?? (guest ? "redact@1.0.0" : "redact");
  const binding: Binding = {
    id, hookRef, point, match: {}, priority: 0, order: 0, timeoutMs: 100, failurePolicy: "fail-closed", observeOnly: false,
    config: {}, enabled: true, mandatory: false, pair: `ref:${hookRef}`, ...fields,
  };
  if (guest) return { kind: "guest", binding, plugin: { ref: hookRef, id: "redact", version: "1.0.0", module: undefined!, grants: declares ? { "model.chat.after": { streamRewrite: "chunk" } } : {} } };
  return { kind: "in-process", binding, hook, options: declares ? { streamRewrite: "chunk" } : {} };
}
const ids = (plan: ReturnType<typeof streamPlan>) => ({ hold: plan.hold, readOnly: [...plan.readOnly] });

describe("streamPlan: when a stream holds its text back for model.chat.after", () => {
  it("does not hold when every after writer's declared chunk twin runs, fail-closed, last among the text changers; those writers judge read-only", () => {
    for (const guest of [false, true]) {
      const chunk = [h("c", "model.chat.chunk", { declares: true, guest }), h("meter", "model.chat.chunk", { hookRef: "meter", observeOnly: true })];
      const after = [h("a", "model.chat.after", { declares: true, guest }), h("store", "model.chat.after", { hookRef: "store", observeOnly: true })];
      expect(ids(streamPlan(chunk, after))).toEqual({ hold: false, readOnly: ["a"] });
    }
  });

  it("does not hold when every after binding only observes, and nothing is read-only by declaration", () => {
    expect(ids(streamPlan([], [h("store", "model.chat.after", { observeOnly: true })]))).toEqual({ hold: false, readOnly: [] });
    expect(ids(streamPlan([h("c", "model.chat.chunk")], []))).toEqual({ hold: false, readOnly: [] });
  });

  it("holds for an after writer that does not declare, even with a chunk twin", () => {
    expect(streamPlan([h("c", "model.chat.chunk")], [h("a", "model.chat.after")]).hold).toBe(true);
  });

  it("holds for a declaring after writer whose chunk twin is not in this operation (unbound, disabled or not matched)", () => {
    expect(streamPlan([], [h("a", "model.chat.after", { declares: true })]).hold).toBe(true);
  });

  it("holds when the twin differs in config, extension or plugin: it would not rewrite what the after hook would", () => {
    const after = [h("a", "model.chat.after", { declares: true, config: { kinds: ["email", "phone"] } })];
    expect(streamPlan([h("c", "model.chat.chunk", { declares: true, config: { kinds: ["email"] } })], after).hold).toBe(true);
    expect(streamPlan([h("c", "model.chat.chunk", { declares: true, config: { kinds: ["email", "phone"] }, pair: "ext:other" })], after).hold).toBe(true);
    expect(streamPlan([h("c", "model.chat.chunk", { declares: true, config: { kinds: ["email", "phone"] }, hookRef: "other", pair: "ref:redact" })], after).hold).toBe(true);
    expect(streamPlan([h("c", "model.chat.chunk", { declares: true, config: { kinds: ["email", "phone"] } })], after).hold).toBe(false);
  });

  it("holds when the twin fails open or only observes: a chunk it skipped would leave unscanned", () => {
    const after = [h("a", "model.chat.after", { declares: true })];
    expect(streamPlan([h("c", "model.chat.chunk", { declares: true, failurePolicy: "fail-open" })], after).hold).toBe(true);
    expect(streamPlan([h("c", "model.chat.chunk", { declares: true, observeOnly: true })], after).hold).toBe(true);
  });

  it("holds when a chunk hook that may change the text runs after the twin (a mandatory one runs last): it could add text the twin never saw", () => {
    const after = [h("a", "model.chat.after", { declares: true })];
    expect(streamPlan([h("c", "model.chat.chunk", { declares: true }), h("rewriter", "model.chat.chunk", { hookRef: "rewriter", mandatory: true })], after).hold).toBe(true);
    // Before the twin it is fine: the twin scans what it let through.
    expect(streamPlan([h("rewriter", "model.chat.chunk", { hookRef: "rewriter" }), h("c", "model.chat.chunk", { declares: true })], after).hold).toBe(false);
  });

  it("a mandatory twin (mandatory chunk bindings run last) covers its mandatory after binding", () => {
    const chunk = [h("other", "model.chat.chunk", { hookRef: "other" }), h("c", "model.chat.chunk", { declares: true, mandatory: true })];
    expect(ids(streamPlan(chunk, [h("a", "model.chat.after", { declares: true, mandatory: true })]))).toEqual({ hold: false, readOnly: ["a"] });
  });

  it("several extensions: one declares and another writer does not → hold; both declare with twins in order → stream, both read-only", () => {
    const mine = [h("c1", "model.chat.chunk", { declares: true }), h("a1", "model.chat.after", { declares: true })] as const;
    const other = (declares: boolean) => [h("c2", "model.chat.chunk", { hookRef: "other", declares }), h("a2", "model.chat.after", { hookRef: "other", declares })] as const;
    expect(streamPlan([mine[0], other(false)[0]], [mine[1], other(false)[1]]).hold).toBe(true);
    expect(ids(streamPlan([mine[0], other(true)[0]], [mine[1], other(true)[1]]))).toEqual({ hold: false, readOnly: ["a1", "a2"] });
  });
});

describe("checkStreamedAnswer", () => {
  it("refuses patch_output and redact with ANSWER_ALREADY_STREAMED naming the binding", () => {
    for (const outcome of [{ kind: "patch_output" as const, patch: [] }, { kind: "redact" as const, content: "x" }]) {
      expect(checkStreamedAnswer(outcome, "redact-answer")).toMatchObject({ ok: false, error: { code: "ANSWER_ALREADY_STREAMED", details: { bindingId: "redact-answer", outcome: outcome.kind } } });
    }
  });

  it("lets continue, block and annotations through", () => {
    expect(checkStreamedAnswer({ kind: "continue", annotations: { n: 1 } }, "b")).toEqual({ ok: true });
    expect(checkStreamedAnswer({ kind: "block", code: "pii.card", reason: "card" }, "b")).toEqual({ ok: true });
  });
});
