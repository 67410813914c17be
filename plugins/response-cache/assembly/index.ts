// response-cache: serves a stored answer for a chat call it has seen before.
//
// model.chat.before: key = "chat:" + hex(FNV-1a 64 of the model and every message whole:
//   role, content with every part (images, audio and files included), name, tool calls).
//   Built for ABI 1.1, so it is shown content parts as they are: a guest that saw only the
//   texts would serve one image's answer to a prompt with the same words and another image. A hit short-circuits the call with the stored answer; a miss continues and
//   hands the key to this plugin's own after hook through `carry`.
// model.chat.after: with a carried key (so only after a miss of ours), stores a final
//   text answer (string content, no tool calls, finish_reason "stop") under it.
// The store is the kv capability, which the host scopes to (space, binding).
import { registerHook, Outcome, Value, Kind, Request, ChatBefore, ChatAfter } from "@sluice/guest-sdk";
import { kv, KV_OK, KV_QUOTA } from "@sluice/guest-sdk/kv";
export * from "@sluice/guest-sdk/exports_v1_1";

const FNV_OFFSET: u64 = 0xcbf29ce484222325;
const FNV_PRIME: u64 = 0x100000001b3;
let h: u64 = FNV_OFFSET;

function mixByte(b: u32): void {
  h ^= <u64>(b & 0xff);
  h *= FNV_PRIME;
}

/** Feeds the UTF-8 bytes of `s` (lone surrogates as U+FFFD), then a 0xff separator (never valid UTF-8). */
function mixString(s: string): void {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    let c = <u32>s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = <u32>s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
      else c = 0xfffd;
    } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) mixByte(c);
    else if (c < 0x800) { mixByte(0xc0 | (c >> 6)); mixByte(0x80 | (c & 63)); }
    else if (c < 0x10000) { mixByte(0xe0 | (c >> 12)); mixByte(0x80 | ((c >> 6) & 63)); mixByte(0x80 | (c & 63)); }
    else { mixByte(0xf0 | (c >> 18)); mixByte(0x80 | ((c >> 12) & 63)); mixByte(0x80 | ((c >> 6) & 63)); mixByte(0x80 | (c & 63)); }
  }
  mixByte(0xff);
}

function mixU64(x: u64): void {
  for (let shift: u64 = 0; shift < 64; shift += 8) mixByte(<u32>(x >> shift));
}

/**
 * Feeds `v` whole: its kind, then its value; a list's length and items; a map's size and its
 * entries by key order (so the same message sent with its fields in another order is the
 * same key).
 */
function mixValue(v: Value): void {
  mixByte(<u32>v.kind);
  switch (v.kind) {
    case Kind.Nil: break;
    case Kind.Bool: mixByte(v.asBool() ? 1 : 0); break;
    case Kind.Int: mixU64(<u64>v.asInt()); break;
    case Kind.UInt: mixU64(v.asUint()); break;
    case Kind.Float: mixU64(reinterpret<u64>(v.asFloat())); break;
    case Kind.Str: mixString(v.asString()); break;
    case Kind.Bin: { const b = v.asBytes(); mixU64(<u64>b.length); for (let i = 0; i < b.length; i++) mixByte(b[i]); break; }
    case Kind.Arr: { mixU64(<u64>v.length); for (let i = 0; i < v.length; i++) mixValue(v.at(i)); break; }
    case Kind.Map: {
      const keys = v.keys().slice(0);
      keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      mixU64(<u64>keys.length);
      for (let i = 0; i < keys.length; i++) { mixString(keys[i]); mixValue(v.get(keys[i])); }
      break;
    }
  }
}

const HEX = "0123456789abcdef";

function cacheKey(req: Request): string {
  const chat = ChatBefore.of(req);
  h = FNV_OFFSET;
  mixString(chat.model);
  mixValue(chat.messages);
  let out = "chat:";
  for (let shift = 60; shift >= 0; shift -= 4) out += HEX.charAt(<i32>((h >> <u64>shift) & 15));
  return out;
}

function before(req: Request): Outcome {
  const key = cacheKey(req);
  const hit = kv.getString(key);
  if (hit != null) {
    const result = Value.map()
      .set("content", Value.str(hit))
      .set("tool_calls", Value.arr())
      .set("finish_reason", Value.str("stop"))
      .set("usage", Value.map().set("input_tokens", Value.int(0)).set("output_tokens", Value.int(0)));
    return Outcome.shortCircuit(result).annotate("cache", Value.str("hit")).annotate("cache.key", Value.str(key));
  }
  return Outcome.continue().withCarry(Value.str(key)).annotate("cache", Value.str("miss"));
}

function after(req: Request): Outcome {
  if (!req.carry.isString()) return Outcome.continue(); // served from cache, or no before hook of ours ran
  const key = req.carry.asString();
  const answer = ChatAfter.of(req);
  const content = answer.payload.get("content");
  if (!content.isString() || content.asString().length == 0 || answer.toolCalls.length > 0 || answer.finishReason != "stop") {
    return Outcome.continue().annotate("cache", Value.str("skip"));
  }
  const status = kv.setString(key, content.asString());
  const label = status == KV_OK ? "stored" : status == KV_QUOTA ? "full" : "too_large";
  return Outcome.continue().annotate("cache", Value.str(label));
}

registerHook((req) => {
  if (req.point == "model.chat.before") return before(req);
  if (req.point == "model.chat.after") return after(req);
  return Outcome.continue();
});
