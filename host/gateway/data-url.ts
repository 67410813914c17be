/**
 * Base64 data as the data URL an `image_url` part carries, and back: how the Anthropic and
 * Gemini routes show an inline image to hooks as chat completions do, and write a changed
 * one back to their own wire form.
 */
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export const toDataUrl = (mediaType: string, data: string): string => `data:${mediaType};base64,${data}`;

/** The media type and base64 data of a data URL; undefined for any other URL. */
export function fromDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = DATA_URL.exec(url);
  return m ? { mediaType: m[1]!, data: m[2]! } : undefined;
}
