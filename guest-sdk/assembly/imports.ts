// Raw host imports that every guest may use (abi/README.md §3), one to one with the spec.
// Capability-gated imports live in kv.ts so that a hook which never touches the store
// does not import them: the host refuses kv imports unless the plugin declares `kv`.

// @ts-ignore: decorator
@external("sluice_v1", "log")
export declare function host_log(level: i32, ptr: usize, len: i32): void;

// @ts-ignore: decorator
@external("sluice_v1", "abort")
export declare function host_abort(ptr: usize, len: i32): void;
