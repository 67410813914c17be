/** docs/configuration.md's table of `sluice serve`'s variables is the one `sluice serve --help` prints. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SERVE_OPTIONS } from "../../host/cli/serve-config.js";
import { repoRoot } from "../helpers/fixtures.js";

describe("docs/configuration.md", () => {
  it("lists every flag of sluice serve with its variable, description and default, in help order", () => {
    const page = readFileSync(path.join(repoRoot, "docs/configuration.md"), "utf8");
    const documented = page.split("\n").filter((line) => /^\| `SLUICE_[A-Z_]+` \| `--/.test(line));
    const declared = Object.values(SERVE_OPTIONS).map((o) => `| \`${o.env}\` | \`${o.flag}\` | ${o.description}${"default" in o ? ` (default: "${o.default}")` : ""} |`);
    expect(documented).toEqual(declared);
  });
});
