/**
 * A framework's answer comes in parts (several text blocks, several reasoning items, each
 * with its own ids, signatures and citations), while hooks see each channel's text as the
 * framework itself assembles it: the parts' texts joined. A hook's change to that text is
 * mapped back onto the parts here, so every part goes back to the caller as a part, with
 * its own metadata, and only the text the hook changed differs.
 */

/**
 * The parts' texts after a hook rewrote their join (`texts.join("")`) into `joined`. The
 * text the hook left alone at the start and at the end keeps its part boundaries; the
 * changed span in between goes to the first part it touches, and the rest of that span is
 * taken out of the parts after it. An empty part (a redacted reasoning block, say) takes
 * no text while another part has some. Unchanged, the same texts come back.
 * @example splitBack(["Write to alice.", "smith@example.com today."], "Write to [email] today.") // ["Write to [email]", " today."]
 */
export function splitBack(texts: readonly string[], joined: string): string[] {
  const original = texts.join("");
  if (joined === original) return [...texts];
  if (texts.length === 0) return joined === "" ? [] : [joined];
  let head = 0;
  const most = Math.min(original.length, joined.length);
  while (head < most && original[head] === joined[head]) head++;
  let tail = 0;
  while (tail < most - head && original[original.length - 1 - tail] === joined[joined.length - 1 - tail]) tail++;
  const from = head;
  const to = original.length - tail;
  const replacement = joined.slice(head, joined.length - tail);
  const out: string[] = [];
  let start = 0;
  let placed = false;
  const someText = texts.some((t) => t !== "");
  for (const text of texts) {
    const end = start + text.length;
    if (someText && text === "") out.push(text);
    else if (to < start || from > end || (placed && from === to)) out.push(text);
    else if (placed && to === start) out.push(text);
    else {
      const keepHead = text.slice(0, Math.max(0, from - start));
      const keepTail = text.slice(Math.max(0, Math.min(text.length, to - start)));
      out.push(keepHead + (placed ? "" : replacement) + keepTail);
      placed = true;
    }
    start = end;
  }
  return out;
}
