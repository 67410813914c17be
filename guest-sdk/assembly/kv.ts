// The key-value capability (abi/README.md §3). A separate module on purpose: its imports
// appear in the wasm only when a hook imports this file, and the host refuses them unless
// the plugin's manifest declares `kv`.
import { toUtf8 } from "./utf8";

// @ts-ignore: decorator
@external("sluice_v1", "kv_get")
export declare function host_kv_get(keyPtr: usize, keyLen: i32, outPtr: usize, outCap: i32): i32;
// @ts-ignore: decorator
@external("sluice_v1", "kv_set")
export declare function host_kv_set(keyPtr: usize, keyLen: i32, valPtr: usize, valLen: i32): i32;
// @ts-ignore: decorator
@external("sluice_v1", "kv_delete")
export declare function host_kv_delete(keyPtr: usize, keyLen: i32): i32;

/** Host status codes (abi/README.md §6). */
export const KV_OK: i32 = 0;
export const KV_NOT_FOUND: i32 = -1;
export const KV_TOO_LARGE: i32 = -2;
export const KV_QUOTA: i32 = -3;

/**
 * The plugin's store, scoped by the host to (space, binding). The only state that
 * survives between invocations.
 *
 * ```ts
 * import { kv } from "@sluice/guest-sdk/kv";
 * const seen = kv.get("count");
 * ```
 */
// A class of statics rather than a namespace: `delete` is not a valid function name.
export abstract class kv {
  /** The value, or null when there is no such key. */
  static get(key: string): Uint8Array | null {
    const k = toUtf8(key);
    let buf = new Uint8Array(256);
    let n = host_kv_get(k.dataStart, k.length, buf.dataStart, buf.length);
    if (n < 0) return null;
    if (n > buf.length) {
      // Too small: the host copied nothing and told us the size; ask again.
      buf = new Uint8Array(n);
      n = host_kv_get(k.dataStart, k.length, buf.dataStart, buf.length);
      if (n < 0) return null;
    }
    return buf.subarray(0, n);
  }
  /** The value as UTF-8 text, or null. */
  static getString(key: string): string | null {
    const v = kv.get(key);
    return v == null ? null : String.UTF8.decodeUnsafe(v.dataStart, v.length);
  }
  /** Stores `value`; returns KV_OK, KV_TOO_LARGE (key > 256 B or value > 64 KiB) or KV_QUOTA (1024 keys). */
  static set(key: string, value: Uint8Array): i32 {
    const k = toUtf8(key);
    return host_kv_set(k.dataStart, k.length, value.dataStart, value.length);
  }
  static setString(key: string, value: string): i32 {
    return kv.set(key, toUtf8(value));
  }
  /** Returns true when the key existed. */
  static delete(key: string): bool {
    const k = toUtf8(key);
    return host_kv_delete(k.dataStart, k.length) == KV_OK;
  }
}
