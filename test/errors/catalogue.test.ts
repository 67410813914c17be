import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../host/errors/codes.js";
import { renderErrorDocs } from "../../host/errors/docs.js";
import { SluiceError } from "../../host/errors/sluice-error.js";

describe("the error catalogue", () => {
  it("abi/errors.md is exactly what the error table renders (run npm run docs:errors)", () => {
    const page = readFileSync(new URL("../../abi/errors.md", import.meta.url), "utf8");
    expect(page).toBe(renderErrorDocs());
  });

  it("every code has an HTTP status in the 4xx or 5xx range and a summary", () => {
    for (const [code, { status, summary }] of Object.entries(ERROR_CODES)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(summary.length, code).toBeGreaterThan(10);
    }
  });

  it("errors survive the trip through plain data", () => {
    const err = new SluiceError("GUEST_TIMEOUT", "too slow", { limitMs: 5 });
    const back = SluiceError.fromData(structuredClone(err.toData()));
    expect(back).toBeInstanceOf(SluiceError);
    expect(back.code).toBe("GUEST_TIMEOUT");
    expect(back.details).toEqual({ limitMs: 5 });
    expect(back.status).toBe(504);
  });
});
