import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderManifestDocs } from "../../host/registry/manifest-docs.js";
import { MANIFEST_SCHEMA, parseManifest } from "../../host/registry/manifest.js";

describe("abi/hook-yaml.md", () => {
  const page = readFileSync(new URL("../../abi/hook-yaml.md", import.meta.url), "utf8");

  it("is exactly what the registry's manifest schema renders (run node scripts/docs-manifest.mjs after a build)", () => {
    expect(page).toBe(renderManifestDocs());
  });

  it("names every key the schema accepts, and says which are required", () => {
    for (const key of Object.keys(MANIFEST_SCHEMA.properties)) expect(page).toContain(`| \`${key}\` |`);
    expect(page).toContain("| `capability_boundary` | string | yes |");
    expect(page).toContain("| `language` | `\"assemblyscript\"` \\| `\"rust\"` \\| `\"c\"` | no |");
  });

  it("shows an example the registry accepts", () => {
    const example = page.slice(page.indexOf("```yaml") + 7, page.lastIndexOf("```"));
    expect(parseManifest(example).id).toBe("order-search-limit-rust");
  });
});
