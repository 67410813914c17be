import { Packr, Unpackr } from "msgpackr";

// Plain maps and arrays only: the default Packr writes record extensions no guest decodes.
const packr = new Packr({ useRecords: false, variableMapSize: true, encodeUndefinedAsNil: true, moreTypes: false });
// "auto" (safe 64-bit ints as numbers, larger ones as BigInt) is supported but missing from the typings.
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: "auto" as "bigint" });

/**
 * Encodes a value as ABI v1 msgpack. The result owns its bytes: msgpackr packs into a
 * large shared buffer, and sending a view of it across threads would copy all of it.
 */
export function encode(value: unknown): Uint8Array {
  const view = packr.pack(value);
  return new Uint8Array(view);
}

/**
 * Encodes into msgpackr's shared buffer and returns a view of it, valid only until the
 * next encode on this thread: for bytes that are copied at once (a request written into
 * guest memory), it saves an allocation and a copy per call.
 */
export function encodeTransient(value: unknown): Uint8Array {
  return packr.pack(value);
}

/** Decodes ABI v1 msgpack. Throws on malformed input; callers map that to their own error code. */
export function decode(bytes: Uint8Array): unknown {
  return unpackr.unpack(bytes);
}
