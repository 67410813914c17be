import { describe, expect, expectTypeOf, it } from "vitest";
import { OUTCOME_KINDS } from "../../abi/envelope.js";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { getPoint, isPointName, POINT_NAMES, POINTS, type OutcomeAt, type Payload, type PointName } from "../../host/pipeline/points.js";
import { validatePayload } from "../../host/pipeline/validators.js";
import { parsePointer } from "../../host/pipeline/json-pointer.js";
import { SAMPLES } from "./samples.js";

const topLevel = (path: string) => parsePointer(path)![0]!;
const properties = (name: PointName) => Object.keys((getPoint(name).schema as { properties: object }).properties);

describe("the point table", () => {
  it("declares each of the thirteen points exactly once", () => {
    expect(new Set(POINT_NAMES).size).toBe(POINTS.length);
    expect([...POINT_NAMES].sort()).toEqual([
      "model.chat.after", "model.chat.before", "model.chat.chunk", "model.embedding.after", "model.embedding.before",
      "operation.error", "operation.finally", "run.end", "run.start", "subtask.end", "subtask.start", "tool.after", "tool.before",
    ]);
  });

  it.each(POINT_NAMES)("accepts the sample payload of %s", (name) => {
    expect(validatePayload(name, SAMPLES[name])).toEqual({ ok: true });
  });

  it.each(POINT_NAMES)("refuses a payload of %s with an undeclared field", (name) => {
    const result = validatePayload(name, { ...SAMPLES[name], api_key: "sk-secret" });
    expect(result).toMatchObject({ ok: false, error: { code: "PAYLOAD_INVALID" } });
  });

  it.each(POINTS.map((p) => [p.name, p] as const))("%s only lists outcome kinds the ABI knows", (_, spec) => {
    for (const kind of spec.outcomes) expect(OUTCOME_KINDS).toContain(kind);
    expect(spec.outcomes).toContain("continue");
  });

  it("allows patch_input only at before points and patch_output only at after points", () => {
    for (const p of POINTS) {
      if (p.outcomes.includes("patch_input")) expect(p.stage).toBe("before");
      if (p.outcomes.includes("patch_output")) expect(p.stage).toBe("after");
      if (p.outcomes.includes("short_circuit")) expect(p.stage).toBe("before");
    }
  });

  it("declares patchable fields exactly where a patch outcome is allowed, and they exist in the schema", () => {
    for (const p of POINTS) {
      const patches = p.outcomes.includes("patch_input") || p.outcomes.includes("patch_output");
      expect(p.patchable.length > 0, p.name).toBe(patches);
      for (const prefix of p.patchable) expect(properties(p.name as PointName), p.name).toContain(topLevel(prefix));
    }
  });

  it("never lists a read-only field inside a patchable one", () => {
    for (const p of POINTS) {
      for (const { path } of p.readOnly) {
        expect(properties(p.name as PointName), p.name).toContain(topLevel(path));
        expect(p.patchable.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)), `${p.name} ${path}`).toBe(false);
      }
    }
  });

  it("names a redactable field exactly at the after points that allow redact", () => {
    for (const p of POINTS) {
      expect(p.redacts !== null, p.name).toBe(p.stage === "after" && p.outcomes.includes("redact"));
      if (p.redacts) expect(p.patchable).toContain(p.redacts);
    }
  });

  it("makes operation.error and operation.finally diagnostic-only and continue-only", () => {
    for (const p of POINTS) {
      expect(p.diagnosticOnly, p.name).toBe(p.name === "operation.error" || p.name === "operation.finally");
      if (p.diagnosticOnly) expect(p.outcomes).toEqual(["continue"]);
    }
  });

  it("lets lifecycle starts reject and lifecycle ends only continue", () => {
    expect(getPoint("run.start").outcomes).toEqual(["continue", "reject"]);
    expect(getPoint("subtask.start").outcomes).toEqual(["continue", "reject"]);
    expect(getPoint("run.end").outcomes).toEqual(["continue"]);
    expect(getPoint("subtask.end").outcomes).toEqual(["continue"]);
  });

  it("documents tool_calls, usage and finish_reason as read-only at model.chat.after", () => {
    expect(getPoint("model.chat.after").readOnly.map((r) => r.path)).toEqual(["/tool_calls", "/usage", "/finish_reason"]);
  });

  it("refuses an unknown point name with CONFIG_INVALID naming the known ones", () => {
    expect(isPointName("tool.around")).toBe(false);
    expect(isPointName("tool.before")).toBe(true);
    try {
      getPoint("tool.around" as PointName);
      expect.unreachable();
    } catch (e) {
      expect(isSluiceError(e, "CONFIG_INVALID")).toBe(true);
      expect((e as Error).message).toContain("tool.before");
    }
  });

  it("derives payload and outcome types from the declaration", () => {
    expectTypeOf<Payload<"tool.before">["arguments"]>().toEqualTypeOf<Readonly<Record<string, unknown>>>();
    expectTypeOf<Payload<"model.chat.after">["refusal"]>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Payload<"run.start">["task"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<OutcomeAt<"tool.after">["kind"]>().toEqualTypeOf<"continue" | "patch_output" | "redact" | "block">();
    expectTypeOf<OutcomeAt<"operation.error">["kind"]>().toEqualTypeOf<"continue">();
  });
});
