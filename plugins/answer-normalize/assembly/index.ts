// answer-normalize: trims the answer text of a chat completion (and, when configured,
// collapses runs of blank lines). A reply whose content is null or empty, such as a pure
// tool-call turn, is left alone.
import { registerHook, Outcome, Value } from "@sluice/guest-sdk";
export * from "@sluice/guest-sdk/exports";

/** Collapses 3+ consecutive newlines (blank lines, possibly holding spaces/tabs) into exactly two. */
function collapseBlankLines(s: string): string {
  let out = "";
  let copied = 0;
  let changed = false;
  const n = s.length;
  let i = 0;
  while (i < n) {
    if (s.charCodeAt(i) != 10) { i++; continue; }
    // A run of newlines and the horizontal whitespace between them.
    let j = i;
    let newlines = 0;
    let lastNl = i;
    while (j < n) {
      const c = s.charCodeAt(j);
      if (c == 10) { newlines++; lastNl = j; j++; }
      else if (c == 32 || c == 9 || c == 13) j++;
      else break;
    }
    if (newlines >= 3) {
      out += s.substring(copied, i) + "\n\n";
      copied = lastNl + 1;
      changed = true;
    }
    i = lastNl + 1;
  }
  return changed ? out + s.substring(copied) : s;
}

registerHook((req) => {
  const content = req.payload.get("content");
  if (!content.isString()) return Outcome.continue();
  const s = content.asString();
  if (s.length == 0) return Outcome.continue();
  let r = s.trim();
  if (req.config.get("collapse_blank_lines").asBoolOr(false)) r = collapseBlankLines(r);
  if (r == s) return Outcome.continue();
  return Outcome.patchOutput()
    .replace("/content", Value.str(r))
    .annotate("answer_normalize.removed_chars", Value.int(s.length - r.length));
});
