/**
 * Every export of every package entry point (the `exports` map of package.json) carries a
 * TSDoc comment on its declaration, so an editor shows it to a service author.
 * Read with the TypeScript compiler from the sources each entry is built from.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, { default: string }> };

/** `./dist/host/index.js` is built from `host/index.ts`. */
const sourceOf = (built: string): string => join(root, built.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"));

/** The exports of `file` whose declarations have no documentation comment, as "name (file)". */
function undocumented(program: ts.Program, file: string): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${file} is not in the program`);
  const moduleSymbol = checker.getSymbolAtLocation(source)!;
  const missing: string[] = [];
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    if (symbol.getDocumentationComment(checker).length > 0) continue;
    const where = symbol.declarations?.[0]?.getSourceFile().fileName.replace(root, "") ?? "?";
    missing.push(`${exported.name} (${where})`);
  }
  return missing;
}

describe("TSDoc on the public API", () => {
  const entries = Object.entries(pkg.exports).map(([subpath, target]) => ({ subpath, file: sourceOf(target.default) }));
  const program = ts.createProgram(entries.map((e) => e.file), { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, skipLibCheck: true, noEmit: true, resolveJsonModule: true, types: ["node"] });

  for (const { subpath, file } of entries) {
    it(`every export of "${subpath === "." ? "sluice" : `sluice/${subpath.slice(2)}`}" has a TSDoc comment`, () => {
      expect(undocumented(program, file)).toEqual([]);
    });
  }

  it("sees a missing comment (the check is not blind)", () => {
    const file = join(root, "test/package/fixtures/undocumented.ts");
    const p = ts.createProgram([file], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true });
    expect(undocumented(p, file)).toEqual(["bare (test/package/fixtures/undocumented.ts)"]);
  });
});
