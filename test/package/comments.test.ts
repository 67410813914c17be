// Comments say why, never when: a comment that names the issue that asked for the code, or
// says what the code did before, tells its history, which git keeps. Read with the
// TypeScript compiler, so only comments count: a string or a test's name is not a comment.
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/fixtures.js";
import { sources } from "../helpers/sources.js";

const CHECKED = ["host", "console", "abi", "scripts"];

const HISTORY = [
  { what: "an issue reference", pattern: /\bissues? #?\d+/i },
  { what: "what the code used to do", pattern: /(?<!\b(?:is|are|be|been|being|get|gets)\s+)\bused to\b/i },
];

/** Every comment of a TypeScript or JavaScript source, with the line it starts on. */
function commentsOf(file: string, text: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".mjs") ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const seen = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) seen.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen].map(([pos, comment]) => ({ line: source.getLineAndCharacterOfPosition(pos).line + 1, text: comment }));
}

function checkedFiles(): string[] {
  const scripts = readdirSync(join(repoRoot, "scripts")).filter((f) => f.endsWith(".mjs")).map((f) => join(repoRoot, "scripts", f));
  return [...CHECKED.filter((d) => d !== "scripts").flatMap((d) => sources(join(repoRoot, d))), ...scripts].map((f) => relative(repoRoot, f));
}

describe("code comments", () => {
  it("finds the comments of a source, and only its comments", () => {
    const text = [
      "// one (issue 12)",
      "const url = \"http://example.test/issue 7\"; // two",
      "/** three */",
      "export const t = `a ${url} // not a comment`;",
      "/* four */",
    ].join("\n");
    expect(commentsOf("x.ts", text).map((c) => c.text)).toEqual(["// one (issue 12)", "// two", "/** three */", "/* four */"]);
  });

  it("tell no history: no issue references and nothing the code used to do", () => {
    const found: string[] = [];
    for (const file of checkedFiles()) {
      const text = ts.sys.readFile(join(repoRoot, file)) ?? "";
      for (const comment of commentsOf(file, text)) {
        for (const { what, pattern } of HISTORY) {
          const match = pattern.exec(comment.text);
          if (match) found.push(`${file}:${comment.line + comment.text.slice(0, match.index).split("\n").length - 1}: ${what} ("${match[0]}")`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it("would catch each kind of history it looks for", () => {
    const texts = ["// Required here (issue 17).", "/** Set for a component (issue #11). */", "// which used to answer 500"];
    for (const text of texts) expect(HISTORY.some(({ pattern }) => commentsOf("x.ts", text).some((c) => pattern.test(c.text)))).toBe(true);
    expect(HISTORY.some(({ pattern }) => pattern.test("// the key is used to seal the records"))).toBe(false);
  });
});
