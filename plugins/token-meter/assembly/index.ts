// token-meter: estimates the output tokens of a streamed chat completion and reports the
// estimate on the last chunk as the annotation "usage.output_tokens_estimate".
//
// Every chunk hook is a separate invocation with a fresh instance, and the last chunk's
// delta holds only the last piece of text, so the running total lives in the kv store,
// keyed by the stream's request_id: each chunk adds its code-point count, the last chunk
// reads the total, reports ceil(chars / 4) and deletes the key. The hook never changes
// the stream (continue, no hold): it can be bound observe-only.
import { registerHook, Outcome, Value, ChatChunk } from "@sluice/guest-sdk";
import { kv, KV_OK } from "@sluice/guest-sdk/kv";
export * from "@sluice/guest-sdk/exports";

/** Code points of `s` (a surrogate pair counts once). */
function codePoints(s: string): i64 {
  const n = s.length;
  let count: i64 = n;
  for (let i = 1; i < n; i++) {
    const c = s.charCodeAt(i);
    if ((c & 0xfc00) == 0xdc00 && (s.charCodeAt(i - 1) & 0xfc00) == 0xd800) count--;
  }
  return count;
}

const FNV_OFFSET: u64 = 0xcbf29ce484222325;
const FNV_PRIME: u64 = 0x100000001b3;
const HEX = "0123456789abcdef";

/** "tm:<request_id>", or a hash of it when the id would make the key too long for the store (256 bytes). */
function keyOf(requestId: string): string {
  if (String.UTF8.byteLength(requestId) <= 200) return "tm:" + requestId;
  let h = FNV_OFFSET;
  for (let i = 0; i < requestId.length; i++) { h ^= <u64>requestId.charCodeAt(i); h *= FNV_PRIME; }
  let out = "tm#";
  for (let shift = 60; shift >= 0; shift -= 4) out += HEX.charAt(<i32>((h >> <u64>shift) & 15));
  return out;
}

function readTotal(key: string): i64 {
  const v = kv.get(key);
  return v != null && v.length == 8 ? load<i64>(v.dataStart) : 0;
}

registerHook((req) => {
  if (req.point != "model.chat.chunk") return Outcome.continue();
  const chunk = ChatChunk.of(req);
  const divisor = req.config.get("chars_per_token").asIntOr(4);
  const key = keyOf(chunk.requestId);
  const total = readTotal(key) + codePoints(chunk.delta);
  if (chunk.isLast) {
    kv.delete(key);
    const d: i64 = divisor > 0 ? divisor : 4;
    return Outcome.continue()
      .annotate("usage.output_tokens_estimate", Value.int((total + d - 1) / d))
      .annotate("usage.output_chars", Value.int(total))
      .annotate("usage.chunks", Value.int(chunk.chunkIndex + 1));
  }
  const bytes = new Uint8Array(8);
  store<i64>(bytes.dataStart, total);
  if (kv.set(key, bytes) != KV_OK) return Outcome.continue().annotate("token_meter.error", Value.str("kv store refused the running total"));
  return Outcome.continue();
});
