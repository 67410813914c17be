/**
 * Anthropic content blocks as the chat content parts hooks know, and back. An image block
 * is shown as an `image_url` part (a data URL for base64 data, else its URL), as the same
 * image is on chat completions, so a policy reads images one way whatever the protocol;
 * the block rides along under `anthropic_block`, which no point declares, so an unchanged
 * image goes back byte for byte and a changed URL becomes the block's new source. Every
 * other block is its own part (a text block is a text part, its other fields kept).
 */
import type { ContentPart } from "../boundary/chat.js";
import { withKeys } from "../objects/with-keys.js";
import { fromDataUrl, toDataUrl } from "./data-url.js";

type Json = Record<string, any>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function urlOf(block: Json): string | undefined {
  const source = block.source;
  if (!isObject(source)) return undefined;
  if (source.type === "base64" && typeof source.media_type === "string" && typeof source.data === "string") return toDataUrl(source.media_type, source.data);
  if (source.type === "url" && typeof source.url === "string") return source.url;
  return undefined;
}

/** The parts of a message's (or tool result's) blocks. */
export function partsOf(blocks: Json[]): ContentPart[] {
  return blocks.map((b) => {
    const url = b.type === "image" ? urlOf(b) : undefined;
    return (url === undefined ? b : { type: "image_url", image_url: { url }, anthropic_block: b }) as ContentPart;
  });
}

/** A part as a block: an image_url part as the image block it came from (with its new source when its URL changed). */
function blockOf(part: Json): Json {
  if (part.type !== "image_url" || !isObject(part.image_url) || typeof part.image_url.url !== "string") return part;
  const url = part.image_url.url as string;
  const was = isObject(part.anthropic_block) ? part.anthropic_block : { type: "image" };
  if (urlOf(was) === url) return was;
  const data = fromDataUrl(url);
  return withKeys(was, { source: data ? { type: "base64", media_type: data.mediaType, data: data.data } : { type: "url", url } });
}

/** Parts as the blocks the wire takes. */
export function blocksOf(parts: unknown[]): Json[] {
  return parts.map((p) => (isObject(p) ? blockOf(p) : p) as Json);
}
