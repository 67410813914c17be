/** What a manifest may grant a guest beyond the always-allowed imports. */
export const CAPABILITIES = ["kv"] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** The sluice_v1 import allow-list: each function and the capability it needs (null: always). */
export const HOST_FUNCTIONS: Readonly<Record<string, Capability | null>> = {
  log: null,
  abort: null,
  kv_get: "kv",
  kv_set: "kv",
  kv_delete: "kv",
};

/** The signature of each host function (abi/README.md §3); an import must match it exactly. */
export const HOST_SIGNATURES: Readonly<Record<keyof typeof HOST_FUNCTIONS, string>> = {
  log: "(i32,i32,i32)->()",
  abort: "(i32,i32)->()",
  kv_get: "(i32,i32,i32,i32)->(i32)",
  kv_set: "(i32,i32,i32,i32)->(i32)",
  kv_delete: "(i32,i32)->(i32)",
};
