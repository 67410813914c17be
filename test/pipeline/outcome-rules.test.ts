import { describe, expect, it } from "vitest";
import type { Outcome } from "../../abi/envelope.js";
import { effectiveFailurePolicy } from "../../host/pipeline/failure-policy.js";
import { checkObserveOnly, checkOutcome, chunkEmission } from "../../host/pipeline/outcome-rules.js";
import { POINTS, type PointName } from "../../host/pipeline/points.js";

const EXAMPLES: Record<Outcome["kind"], Outcome> = {
  continue: { kind: "continue" },
  patch_input: { kind: "patch_input", patch: [] },
  patch_output: { kind: "patch_output", patch: [] },
  reject: { kind: "reject", code: "no", reason: "policy" },
  short_circuit: { kind: "short_circuit", result: { cached: true } },
  redact: { kind: "redact", content: "[redacted]" },
  block: { kind: "block", code: "pii", reason: "found an e-mail" },
  ask: { kind: "ask", reason: "a network call needs approval" },
};

const EXPECTED: Record<PointName, Outcome["kind"][]> = {
  "model.chat.before": ["continue", "patch_input", "reject", "short_circuit"],
  "model.chat.after": ["continue", "patch_output", "redact", "block"],
  "model.chat.chunk": ["continue", "redact", "block"],
  "model.embedding.before": ["continue", "patch_input", "reject"],
  "model.embedding.after": ["continue", "block"],
  "tool.before": ["continue", "patch_input", "reject", "short_circuit", "ask"],
  "tool.after": ["continue", "patch_output", "redact", "block"],
  "operation.error": ["continue"],
  "operation.finally": ["continue"],
  "run.start": ["continue", "reject"],
  "run.end": ["continue"],
  "subtask.start": ["continue", "reject"],
  "subtask.end": ["continue"],
};

describe("checkOutcome", () => {
  const cases = POINTS.flatMap((p) => Object.values(EXAMPLES).map((o) => [p.name as PointName, o.kind, o] as const));

  it.each(cases)("at %s decides %s exactly as the outcome table says", (point, kind, outcome) => {
    const result = checkOutcome(point, outcome);
    if (EXPECTED[point].includes(kind)) expect(result).toEqual({ ok: true });
    else {
      expect(result).toMatchObject({ ok: false, error: { code: "OUTCOME_NOT_ALLOWED", details: { point, outcome: kind } } });
      if (!result.ok) expect(result.error.message).toContain(`allowed: ${EXPECTED[point].join(", ")}`);
    }
  });

  it("allows hold only at model.chat.chunk", () => {
    expect(checkOutcome("model.chat.chunk", { kind: "continue", hold: "ab" })).toEqual({ ok: true });
    expect(checkOutcome("model.chat.chunk", { kind: "redact", content: "x", hold: "ab" })).toEqual({ ok: true });
    expect(checkOutcome("model.chat.after", { kind: "redact", content: "x", hold: "ab" })).toMatchObject({ ok: false, error: { code: "OUTCOME_NOT_ALLOWED" } });
    expect(checkOutcome("tool.after", { kind: "continue", hold: "" })).toMatchObject({ ok: false });
  });

  it("allows carry only at before points", () => {
    expect(checkOutcome("tool.before", { kind: "continue", carry: { t: 1 } })).toEqual({ ok: true });
    expect(checkOutcome("model.chat.before", { kind: "patch_input", patch: [], carry: 1 })).toEqual({ ok: true });
    expect(checkOutcome("tool.after", { kind: "continue", carry: 1 })).toMatchObject({ ok: false, error: { code: "OUTCOME_NOT_ALLOWED" } });
    expect(checkOutcome("run.start", { kind: "continue", carry: 1 })).toMatchObject({ ok: false });
  });

  it("accepts annotations with any allowed outcome", () => {
    expect(checkOutcome("operation.error", { kind: "continue", annotations: { label: "flaky-upstream" } })).toEqual({ ok: true });
  });
});

describe("checkObserveOnly", () => {
  it("lets an observe-only binding continue, annotate and carry", () => {
    expect(checkObserveOnly({ kind: "continue", annotations: { seen: true }, carry: 1 })).toEqual({ ok: true });
  });

  it.each(Object.values(EXAMPLES).filter((o) => o.kind !== "continue"))("refuses %j from an observe-only binding", (outcome) => {
    expect(checkObserveOnly(outcome)).toMatchObject({ ok: false, error: { code: "OUTCOME_NOT_ALLOWED", details: { observeOnly: true } } });
  });

  it("refuses a hold from an observe-only binding, since holding changes the stream", () => {
    expect(checkObserveOnly({ kind: "continue", hold: "x" })).toMatchObject({ ok: false });
    expect(checkObserveOnly({ kind: "continue", hold: "" })).toEqual({ ok: true });
  });
});

describe("chunkEmission", () => {
  it("emits the whole delta on a plain continue", () => {
    expect(chunkEmission("Hello", false, { kind: "continue" })).toEqual({ ok: true, emit: "Hello", hold: "" });
  });

  it("emits the delta minus the held suffix on continue with hold", () => {
    expect(chunkEmission("card 4111 1", false, { kind: "continue", hold: "4111 1" })).toEqual({ ok: true, emit: "card ", hold: "4111 1" });
    expect(chunkEmission("abc", false, { kind: "continue", hold: "abc" })).toEqual({ ok: true, emit: "", hold: "abc" });
  });

  it("emits the replacement and holds a suffix of the received delta on redact", () => {
    expect(chunkEmission("mail bob@ex", false, { kind: "redact", content: "mail ", hold: "bob@ex" })).toEqual({ ok: true, emit: "mail ", hold: "bob@ex" });
  });

  it("composes across chunks: the held tail is prepended to the next delta", () => {
    const first = chunkEmission("card 4111 ", false, { kind: "continue", hold: "4111 " });
    if (!first.ok) throw new Error("unexpected");
    const second = chunkEmission(`${first.hold}1111 1111 1111 ok`, true, { kind: "redact", content: "[card] ok" });
    expect([first.emit, second.ok && second.emit]).toEqual(["card ", "[card] ok"]);
  });

  it("refuses a hold that is not a suffix of the received delta", () => {
    const result = chunkEmission("Hello", false, { kind: "continue", hold: "Hel" });
    expect(result).toMatchObject({ ok: false, error: { code: "OUTCOME_NOT_ALLOWED" } });
    expect(chunkEmission("Hi", false, { kind: "redact", content: "", hold: "xHi" })).toMatchObject({ ok: false });
  });

  it("refuses a hold at the last chunk, where nothing would emit it", () => {
    expect(chunkEmission("end", true, { kind: "continue", hold: "d" })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/last chunk/) } });
  });

  it("refuses a hold that splits a surrogate pair, and accepts one that holds the whole character", () => {
    expect(chunkEmission("ok 😀", false, { kind: "continue", hold: "😀".slice(1) })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/surrogate/) } });
    expect(chunkEmission("ok 😀", false, { kind: "continue", hold: "😀" })).toEqual({ ok: true, emit: "ok ", hold: "😀" });
  });
});

describe("effectiveFailurePolicy", () => {
  it("keeps the binding's own policy at ordinary points", () => {
    expect(effectiveFailurePolicy("tool.before", { failurePolicy: "fail-closed", observeOnly: false })).toBe("fail-closed");
    expect(effectiveFailurePolicy("tool.after", { failurePolicy: "fail-open", observeOnly: false })).toBe("fail-open");
  });

  it("turns every failure at operation.error and operation.finally into a diagnostic", () => {
    expect(effectiveFailurePolicy("operation.error", { failurePolicy: "fail-closed", observeOnly: false })).toBe("diagnostic");
    expect(effectiveFailurePolicy("operation.finally", { failurePolicy: "fail-closed", observeOnly: true })).toBe("diagnostic");
  });

  it("never lets an observe-only binding fail the operation", () => {
    expect(effectiveFailurePolicy("model.chat.before", { failurePolicy: "fail-closed", observeOnly: true })).toBe("fail-open");
  });
});
