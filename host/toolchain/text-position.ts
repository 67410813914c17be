/**
 * Line and column (1-based) of an offset in a text, so errors in a sample or a manifest
 * point at where an editor shows the problem, not at a character count.
 */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split("\n");
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/** JSON.parse's "at position N" (Node 20) or "line L column C" (newer engines) as a line and column, when it says one. */
export function jsonErrorPosition(text: string, message: string): { line: number; column: number } | undefined {
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) return { line: Number(lc[1]), column: Number(lc[2]) };
  const at = /at position (\d+)/.exec(message);
  if (at) return lineColumn(text, Number(at[1]));
  if (/Unexpected end of JSON input/.test(message)) return lineColumn(text, text.length);
  return undefined;
}
