import { decode, encode } from "../../../abi/codec.js";
import { PATCH_MAX_OPS, parseReply, type Outcome } from "../../../abi/envelope.js";
import { scanStrict } from "../../../abi/strict-msgpack.js";
import type { ErrorData } from "../../errors/sluice-error.js";

export type ReplyResult =
  | { ok: true; outcome: Outcome; reply?: unknown; replyBytes?: Uint8Array }
  | { ok: false; error: ErrorData };

/**
 * Where a guest says its reply lies, checked the same way for core modules and components
 * and in the same order: the length against the output limit first (nothing is copied),
 * then pointer plus length against the memory's size. Both are unsigned 32-bit values
 * added as JavaScript numbers, so nothing wraps around.
 */
export function replyWindow(memory: ArrayBuffer, ptr: number, len: number, outputBytes: number): { ok: true; bytes: Uint8Array } | { ok: false; error: ErrorData } {
  ptr >>>= 0; len >>>= 0;
  if (len > outputBytes) {
    return { ok: false, error: { code: "OUTPUT_TOO_LARGE", message: `reply is ${len} bytes; the plugin's output limit is ${outputBytes}`, details: { size: len, limit: outputBytes } } };
  }
  if (ptr + len > memory.byteLength) {
    return { ok: false, error: { code: "OUTPUT_OUT_OF_BOUNDS", message: `reply at ${ptr}+${len} lies outside the guest's ${memory.byteLength}-byte memory`, details: { ptr, len } } };
  }
  return { ok: true, bytes: new Uint8Array(memory, ptr, len) };
}

// Replies are read in the smallest form only (abi/README.md §4): what the vectors spell, nothing looser.
const SCAN_OPTIONS = { topLevelArrayMax: { patch: PATCH_MAX_OPS }, smallest: true } as const;

function patchTooLong(size: number): ErrorData {
  return { code: "PATCH_INVALID", message: `the patch has ${size} operations; a patch holds at most ${PATCH_MAX_OPS} operations`, details: { limit: PATCH_MAX_OPS, size } };
}

/**
 * Decodes a guest's reply bytes and checks the envelope: the one place untrusted output
 * becomes an outcome. Encoding faults (abi/README.md §4) are OUTPUT_MALFORMED, shape
 * faults OUTPUT_INVALID; a reply must speak the module's own ABI major, at a minor no newer
 * than its marker's.
 */
export function readReply(bytes: Uint8Array, raw: boolean | undefined, abi: { major: number; minor?: number | undefined }): ReplyResult {
  // A patch past its limit is refused when its header is read, before its operations are walked.
  const scan = scanStrict(bytes, SCAN_OPTIONS);
  if (!scan.ok && scan.tooLong) return { ok: false, error: patchTooLong(scan.tooLong.size) };
  if (!scan.ok) {
    return scan.malformed
      ? { ok: false, error: { code: "OUTPUT_MALFORMED", message: `reply is not valid ABI msgpack: ${scan.message}` } }
      : { ok: false, error: { code: "OUTPUT_INVALID", message: `reply is not a valid envelope: ${scan.message}` } };
  }
  let reply: unknown;
  try {
    reply = decode(bytes);
  } catch (err) {
    return { ok: false, error: { code: "OUTPUT_MALFORMED", message: `reply is not valid msgpack: ${(err as Error).message}` } };
  }
  const parsed = parseReply(reply, (v) => encode(v).byteLength, abi.major, abi.minor);
  if (!parsed.ok) {
    return parsed.code
      ? { ok: false, error: { code: parsed.code, message: parsed.message, ...(parsed.details ? { details: parsed.details } : {}) } }
      : { ok: false, error: { code: "OUTPUT_INVALID", message: `reply is not a valid envelope: ${parsed.message}` } };
  }
  // Copied only when asked for: the bytes are a view into guest memory that is reused.
  return raw ? { ok: true, outcome: parsed.outcome, reply, replyBytes: bytes.slice() } : { ok: true, outcome: parsed.outcome };
}
