/**
 * Runs a built-in benign guest a few times when a worker starts, so a replacement
 * worker's first real call does not also pay for this thread's first instantiation, first
 * msgpack use and unoptimised host code (measured: a first call on a fresh worker cost
 * about 3 ms more than a warm one).
 */
import { encode } from "../../abi/codec.js";
import type { KvStore } from "./kv-store.js";
import { runCall } from "./run-call.js";
import { hostMemory } from "./wasm-binary.js";

// test/fixtures/wat/continue.wat: replies {abi:"1.0", outcome:"continue"} to anything.
const CONTINUE_GUEST = "AGFzbQEAAAABDwNgAABgAX8Bf2ACf38BfgMEAwABAgUDAQABBgcBfwFBgAgLBzsEBm1lbW9yeQIAD3NsdWljZV9hYmlfdjFfMAAADHNsdWljZV9hbGxvYwABDXNsdWljZV9oYW5kbGUAAgohAwIACxEBAX8jACEBIwAgAGokACABCwoAQhBCIIZCGoQLCyABAEEQCxqCo2FiaaMxLjCnb3V0Y29tZahjb250aW51ZQ==";

export function warmUp(rounds = 30): void {
  const prepared = hostMemory(Buffer.from(CONTINUE_GUEST, "base64"), 16);
  if ("refused" in prepared) return;
  const module = new WebAssembly.Module(prepared.bytes as Uint8Array<ArrayBuffer>);
  const request = encode({ abi: "1.0", point: "tool.before", context: {}, payload: { warm: "x".repeat(512) }, config: {} });
  const noKv = (): KvStore => { throw new Error("no kv while warming up"); };
  for (let i = 0; i < rounds; i++) {
    runCall({ module, moduleId: "sluice:warm-up", memoryBytes: 16 * 65536, memoryPages: { initial: prepared.initialPages, maximum: prepared.maxPages }, inputBytes: 1 << 20, outputBytes: 1 << 20, kvScope: null, request }, noKv);
  }
}
