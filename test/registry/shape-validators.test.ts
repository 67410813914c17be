// The fixed schemas run as standalone code generated at build time: the file checked in must
// be what the schemas compile to today, so a schema change cannot leave a stale validator.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { standaloneValidatorsSource } from "../../host/registry/standalone-validators.js";
import { repoRoot } from "../helpers/fixtures.js";

describe("the generated shape validators", () => {
  it("are what the manifest and binding schemas compile to (run npm run build after changing either)", () => {
    expect(readFileSync(`${repoRoot}/host/registry/shape-validators.generated.ts`, "utf8")).toBe(standaloneValidatorsSource());
  });
});
