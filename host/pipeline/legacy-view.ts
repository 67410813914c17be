/**
 * How a guest built for ABI 1.0 sees the 1.1 chat payloads (abi/README.md §4.4). A 1.0
 * guest knows message and answer `content` only as a string (or null), so every text the
 * 1.1 shapes carry elsewhere (each text or refusal part, a message's `refusal` and
 * `reasoning_content`, the answer's `refusal` and `reasoning_content`) is shown to it as
 * that string, and what it leaves there is written back where the text came from. So an
 * unchanged 1.0 redactor or guard still scans every text. Chunks need nothing: every
 * channel already reaches a chunk hook as `delta`.
 *
 * - `model.chat.before`: one invocation. Each message becomes one 1.0 message per text it
 *   holds, in order (its content string, each text or refusal part, its refusal, its
 *   reasoning), with the same role (`developer` shown as `system`), name and
 *   tool_call_id; the first carries the tool_calls. Messages the guest appends are
 *   appended as they are.
 * - `model.chat.after`: one invocation per text of the answer when it has more than one
 *   (or its content is a list of parts), each with that text as `content`; a block in any
 *   of them blocks. An answer with only string content is shown as it is.
 */
import { canonicalJson } from "./canonical-json.js";
import type { PointName } from "./points.js";
import { withKeys } from "../objects/with-keys.js";

type Json = Record<string, unknown>;

export interface LegacyPresentation {
  /** What the 1.0 guest is given: one invocation per view. */
  views: Json[];
  /** The 1.1 payload with what the guest left in each view (in order) written back. */
  back(results: readonly Json[]): Json;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Where a 1.0 string came from in a 1.1 message or answer. */
type Source = { kind: "content" } | { kind: "part"; index: number; field: "text" | "refusal" } | { kind: "none" } | { kind: "field"; field: "refusal" | "reasoning_content" };

function sourcesOf(holder: Json): { source: Source; text: string | null }[] {
  const out: { source: Source; text: string | null }[] = [];
  const content = holder.content;
  if (Array.isArray(content)) {
    content.forEach((p, index) => {
      if (isObject(p) && p.type === "text" && typeof p.text === "string") out.push({ source: { kind: "part", index, field: "text" }, text: p.text });
      if (isObject(p) && p.type === "refusal" && typeof p.refusal === "string") out.push({ source: { kind: "part", index, field: "refusal" }, text: p.refusal });
    });
    if (out.length === 0) out.push({ source: { kind: "none" }, text: null });
  } else {
    out.push({ source: { kind: "content" }, text: typeof content === "string" ? content : null });
  }
  for (const field of ["refusal", "reasoning_content"] as const) if (typeof holder[field] === "string") out.push({ source: { kind: "field", field }, text: holder[field] as string });
  return out;
}

/** Writes `text` back to its source in a copy of `holder`. */
function writeBack(holder: Json, source: Source, text: unknown): Json {
  const next = { ...holder };
  switch (source.kind) {
    case "content": next.content = text; break;
    case "field": next[source.field] = text; break;
    case "part": {
      const parts = [...(next.content as unknown[])];
      parts[source.index] = withKeys(parts[source.index] as Json, { [source.field]: typeof text === "string" ? text : "" });
      next.content = parts;
      break;
    }
    case "none":
      if (typeof text === "string" && text !== "") next.content = [...(next.content as unknown[]), { type: "text", text }];
      break;
  }
  return next;
}

function beforeView(payload: Json): LegacyPresentation | undefined {
  const messages = payload.messages;
  if (!Array.isArray(messages)) return undefined;
  const params = isObject(payload.params) ? payload.params : undefined;
  const stopText = typeof params?.stop === "string" ? params.stop : undefined;
  const plain = messages.every((m) => isObject(m) && !Array.isArray(m.content) && m.refusal === undefined && m.reasoning_content === undefined && m.role !== "developer");
  if (plain && stopText === undefined) return undefined;

  const map: { message: number; source: Source; text: string | null }[] = [];
  const shown: Json[] = [];
  messages.forEach((m: Json, message) => {
    const { refusal: _r, reasoning_content: _rc, tool_calls, content: _c, ...rest } = m;
    sourcesOf(m).forEach(({ source, text }, k) => {
      map.push({ message, source, text });
      shown.push(withKeys(rest, { role: m.role === "developer" ? "system" : m.role, content: text, ...(k === 0 && tool_calls !== undefined ? { tool_calls } : {}) }));
    });
  });
  const view: Json = withKeys(payload, { messages: shown, ...(params && stopText !== undefined ? { params: withKeys(params, { stop: [stopText] }) } : {}) });
  return {
    views: [view],
    back: ([result]) => {
      const next = (result!.messages as Json[]);
      const out = messages.map((m) => ({ ...(m as Json) }));
      map.forEach(({ message, source, text }, k) => {
        const now = next[k]?.content;
        if (now !== text) out[message] = writeBack(out[message]!, source, now);
      });
      out.push(...next.slice(map.length));
      const back: Json = withKeys(payload, { messages: out });
      if (isObject(result!.params)) {
        const p = { ...result!.params };
        if (stopText !== undefined && canonicalJson(p.stop) === canonicalJson([stopText])) p.stop = stopText;
        back.params = p;
      } else delete back.params;
      return back;
    },
  };
}

function afterView(payload: Json): LegacyPresentation | undefined {
  const sources = sourcesOf(payload);
  if (sources.length === 1 && sources[0]!.source.kind === "content") return undefined;
  const { refusal: _r, reasoning_content: _rc, ...rest } = payload;
  return {
    views: sources.map(({ text }) => withKeys(rest, { content: text })),
    back: (results) => {
      let out: Json = { ...payload };
      sources.forEach(({ source, text }, k) => {
        const now = results[k]!.content;
        if (now !== text) out = writeBack(out, source, now);
        // Annotations are the guest's labels, whichever text it was shown: the last word wins per key.
        if (isObject(results[k]!.annotations)) out.annotations = withKeys(isObject(out.annotations) ? out.annotations : {}, results[k]!.annotations as Json);
      });
      return out;
    },
  };
}

/** The 1.0 presentation of a payload, or undefined when a 1.0 guest can be given it as it is. */
export function presentToV10(point: PointName, payload: Json): LegacyPresentation | undefined {
  if (point === "model.chat.before") return beforeView(payload);
  if (point === "model.chat.after") return afterView(payload);
  return undefined;
}
