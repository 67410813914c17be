// The raw exports of abi/README.md §2. A hook's entry file re-exports them with
//   export * from "@sluice/guest-sdk/exports";
import { fatal } from "./abort";
import { registeredHook } from "./hook";
import { decode } from "./msgpack/reader";
import { encode } from "./msgpack/writer";
import { Request } from "./request";

/** ABI version marker, read by the host before any guest code runs. Never called. */
export function sluice_abi_v1_0(): void {}

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
