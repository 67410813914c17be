/**
 * An upper bound of a YAML text's nesting, read before it is parsed. The `yaml` parser
 * recurses once per level, and V8 aborts the whole process (not a RangeError) when it must
 * compile a regular expression with the stack nearly used up: a 6 KB manifest of nested
 * `- - - ... x` did so (test/registry/yaml-depth.test.ts). A node's depth is at most its
 * line's content column (leading spaces and block indicators `- `, `? `, `: `) plus the
 * flow brackets open around it, so bounding both bounds the parser's recursion. Brackets
 * inside quotes and plain scalars count too: the bound is loose, never short.
 */
export function yamlNestingBound(text: string): number {
  let worst = 0;
  let flow = 0;
  for (const line of text.split("\n")) {
    let col = 0;
    while (col < line.length) {
      const c = line[col];
      if (c === " " || c === "\t") col++;
      else if ((c === "-" || c === "?" || c === ":") && (line[col + 1] === " " || col + 1 === line.length)) col += 2;
      else break;
    }
    for (let i = col; i < line.length; i++) {
      const c = line[i];
      if (c === "[" || c === "{") flow++;
      else if ((c === "]" || c === "}") && flow > 0) flow--;
      if (col + flow > worst) worst = col + flow;
    }
    if (col > worst) worst = col;
  }
  return worst;
}
