import { describe, expect, it } from "vitest";

describe("the sluice/events package entry", () => {
  it("gives other services the schemas, the kinds and the validator from the built package", async () => {
    const events = await import("sluice/events");
    expect(events.EVENT_TYPES).toContain("tool.invocation.completed");
    expect(events.EVENT_SCHEMAS["hook.executed"].$id).toBe("https://sluice.dev/schemas/events/v4/hook.executed.schema.json");
    expect(events.EVENT_SCHEMAS_BY_MAJOR.v1["hook.executed"].$id).toBe("https://sluice.dev/schemas/events/v1/hook.executed.schema.json");
    expect(typeof events.createEventRegistry).toBe("function");
    expect(events.validateEvent({ type: "hook.executed" })).toMatchObject({ ok: false });
  });
});
