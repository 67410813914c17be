import { describe, expect, it } from "vitest";

describe("the package entry", () => {
  it("import { createHost } from \"sluice\" resolves to the built host", async () => {
    const sluice = await import("sluice");
    expect(typeof sluice.createHost).toBe("function");
    expect(typeof sluice.SluiceError).toBe("function");
    expect(sluice.POINT_NAMES).toContain("tool.before");
  });
});
