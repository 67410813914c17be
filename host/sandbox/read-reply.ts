import { decode, encode } from "../../abi/codec.js";
import { parseReply, type Outcome } from "../../abi/envelope.js";
import type { ErrorData } from "../errors/sluice-error.js";

export type ReplyResult =
  | { ok: true; outcome: Outcome; reply?: unknown; replyBytes?: Uint8Array }
  | { ok: false; error: ErrorData };

/** Decodes a guest's reply bytes and checks the envelope: the one place untrusted output becomes an outcome. */
export function readReply(bytes: Uint8Array, raw: boolean | undefined): ReplyResult {
  let reply: unknown;
  try {
    reply = decode(bytes);
  } catch (err) {
    return { ok: false, error: { code: "OUTPUT_MALFORMED", message: `reply is not valid msgpack: ${(err as Error).message}` } };
  }
  const parsed = parseReply(reply, (v) => encode(v).byteLength);
  if (!parsed.ok) return { ok: false, error: { code: "OUTPUT_INVALID", message: `reply is not a valid envelope: ${parsed.message}` } };
  // Copied only when asked for: the bytes are a view into guest memory that is reused.
  return raw ? { ok: true, outcome: parsed.outcome, reply, replyBytes: bytes.slice() } : { ok: true, outcome: parsed.outcome };
}
