/**
 * On the per-call paths no object literal starts with a spread and then adds members
 * (`{ ...a, k: v }`, `{ ...a, ...b }`): on Node 20 each such object gets a hidden class of
 * its own, and those maps were most of what survived each young collection on the call path
 * (host/objects/with-keys.ts; withKeys is the replacement). Literals that start with their
 * own keys and spread after them are fine and allowed.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/fixtures.js";
import { sources } from "../helpers/sources.js";

/** The folders whose code runs for every call: the sandbox (both threads), the pipeline, the boundary, the events of each hook and operation, the gateway (per request and per streamed chunk). */
const HOT = ["host/sandbox", "host/pipeline", "host/boundary", "host/events", "host/gateway"];

/** `file:line` of every object literal that starts with a spread and has more members. */
export function spreadThenKeys(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isObjectLiteralExpression(n) && n.properties.length > 1 && ts.isSpreadAssignment(n.properties[0]!)) {
      found.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe("object literals on the per-call paths", () => {
  it("never start with a spread followed by more members", () => {
    const files = HOT.flatMap((d) => sources(join(repoRoot, d)));
    expect(files.length).toBeGreaterThan(60);
    const found = files.flatMap((f) => spreadThenKeys(relative(repoRoot, f), readFileSync(f, "utf8")));
    expect(found).toEqual([]);
  });

  it("the check sees the forms it forbids and lets the others pass", () => {
    expect(spreadThenKeys("x.ts", "const a = { ...b, c: 1 };\nconst d = { ...e, ...f };")).toEqual(["x.ts:1", "x.ts:2"]);
    expect(spreadThenKeys("y.ts", "const a = { c: 1, ...b };\nconst d = { ...e };\nconst g = withKeys(e, { c });")).toEqual([]);
  });
});
