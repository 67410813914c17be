/** A manifest nested deeper than this is refused before it is parsed; the parser overflows its stack near 1,000. */
export const MANIFEST_MAX_NESTING = 256;

/**
 * An upper bound of a YAML text's nesting, read before it is parsed. The `yaml` parser
 * recurses once per level, and V8 aborts the whole process (not a RangeError) when it must
 * compile a regular expression with the stack nearly used up: a 6 KB manifest of nested
 * `- - - ... x` did so (test/registry/yaml-depth.test.ts). A line opens at most one level
 * per indentation deeper than the lines it sits under, one per block indicator (`- `, `? `,
 * `: `) before its content, and one per flow bracket (`[`, `{`) still open; the sum over
 * what is open is the bound. Brackets inside quotes and scalars count too, and so does the
 * indentation of block scalars: the bound is loose, never short of the real depth.
 */
export function yamlNestingBound(text: string): number {
  let worst = 0;
  let flow = 0;
  /** Indentation columns of the lines the current one sits under, with the levels each opened. */
  const open: { col: number; levels: number }[] = [];
  let depth = 0;
  for (const line of text.split("\n")) {
    let col = 0;
    while (col < line.length && (line[col] === " " || line[col] === "\t")) col++;
    if (col === line.length || line[col] === "#") continue;
    while (open.length > 0 && open[open.length - 1]!.col >= col) depth -= open.pop()!.levels;
    let levels = 1;
    let i = col;
    while (i < line.length && (line[i] === "-" || line[i] === "?" || line[i] === ":") && (line[i + 1] === " " || i + 1 === line.length)) {
      levels++;
      i += 2;
      while (i < line.length && line[i] === " ") i++;
    }
    open.push({ col, levels });
    depth += levels;
    for (; i < line.length; i++) {
      const c = line[i];
      if (c === "[" || c === "{") flow++;
      else if ((c === "]" || c === "}") && flow > 0) flow--;
      if (depth + flow > worst) worst = depth + flow;
    }
    if (depth + flow > worst) worst = depth + flow;
  }
  return worst;
}
