// The raw exports of abi/README.md §2 other than the version marker, shared by the
// marker modules `exports` (ABI 1.0), `exports_v1_1` (ABI 1.1) and `exports_v1_2` (ABI 1.2).
import { fatal } from "./abort";
import { registeredHook } from "./hook";
import { decode } from "./msgpack/reader";
import { encode } from "./msgpack/writer";
import { Request } from "./request";

/** Returns `len` writable bytes for the request. The stub runtime never frees: each invocation is a fresh instance. */
export function sluice_alloc(len: i32): usize {
  return heap.alloc(<usize>len);
}

/**
 * Decodes the request, runs the hook, encodes its outcome. A request the SDK cannot
 * decode ends the invocation with GUEST_ABORTED: it is a host bug, not a hook decision.
 */
export function sluice_handle(ptr: usize, len: i32): u64 {
  const decoded = decode(ptr, <usize>len);
  if (!decoded.ok) fatal("sluice: malformed request: " + decoded.error!);
  const root = decoded.value!;
  if (!root.isMap()) fatal("sluice: malformed request: not a map");
  const reply = encode(registeredHook()(new Request(root)).toValue());
  return (<u64>reply.dataStart << 32) | <u64>reply.length;
}
