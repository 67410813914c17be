//! The host functions of abi/README.md §3: log and abort (always allowed) and the
//! key-value store (capability `kv`). A kv import appears in the module only when a hook
//! calls a `kv` function, and the host refuses it unless the manifest declares `kv`.

#[link(wasm_import_module = "sluice_v1")]
extern "C" {
    #[link_name = "log"]
    fn host_log(level: i32, ptr: *const u8, len: i32);
    #[link_name = "abort"]
    fn host_abort(ptr: *const u8, len: i32) -> !;
}

/// Ends the invocation with GUEST_ABORTED and `message` (clipped to 1024 bytes). Never returns.
pub fn fatal(message: &str) -> ! {
    let mut n = message.len().min(1024);
    while !message.is_char_boundary(n) { n -= 1; }
    // SAFETY: a valid (ptr, len) of guest memory; the host traps and never returns.
    unsafe { host_abort(message.as_ptr(), n as i32) }
}

/// Routes a panic's message to the host (GUEST_ABORTED "panicked at ..."), as
/// AssemblyScript's failed `assert` is: without it a panic is a bare `unreachable` trap
/// (GUEST_TRAP) that says nothing of where or why. Installed by `sluice_handle` on every
/// invocation, since every invocation starts from a fresh instance (abi/README.md §1).
pub(crate) fn report_panics() {
    std::panic::set_hook(Box::new(|info| {
        let mut message = String::from("sluice: ");
        // PanicInfo's Display: "panicked at '<message>', <file>:<line>:<column>".
        let _ = core::fmt::write(&mut message, format_args!("{}", info));
        fatal(&message)
    }));
}

/// Messages the host keeps with the invocation (at most 64 of at most 1024 bytes; the rest
/// are counted and dropped). They show in `sluice call`, `sluice test` and the record.
pub mod log {
    fn write(level: i32, message: &str) {
        // SAFETY: a valid (ptr, len) of guest memory.
        unsafe { super::host_log(level, message.as_ptr(), message.len() as i32) }
    }
    pub fn debug(message: &str) { write(0, message) }
    pub fn info(message: &str) { write(1, message) }
    pub fn warn(message: &str) { write(2, message) }
    pub fn error(message: &str) { write(3, message) }
}

/// The plugin's store, scoped by the host to (space, plugin): the only state that
/// survives between invocations. Needs `capabilities: [kv]` in hook.yaml.
pub mod kv {
    #[link(wasm_import_module = "sluice_v1")]
    extern "C" {
        fn kv_get(key_ptr: *const u8, key_len: i32, out_ptr: *mut u8, out_cap: i32) -> i32;
        fn kv_set(key_ptr: *const u8, key_len: i32, val_ptr: *const u8, val_len: i32) -> i32;
        fn kv_delete(key_ptr: *const u8, key_len: i32) -> i32;
    }

    /// Host status codes (abi/README.md §6).
    pub const OK: i32 = 0;
    pub const NOT_FOUND: i32 = -1;
    pub const TOO_LARGE: i32 = -2;
    pub const QUOTA: i32 = -3;

    /// The value, or None when there is no such key.
    pub fn get(key: &str) -> Option<Vec<u8>> {
        let mut buf: Vec<u8> = vec![0; 256];
        // SAFETY: valid (ptr, len) pairs of guest memory; the host writes at most out_cap bytes.
        let mut n = unsafe { kv_get(key.as_ptr(), key.len() as i32, buf.as_mut_ptr(), buf.len() as i32) };
        if n < 0 { return None; }
        if n as usize > buf.len() {
            // Too small: the host copied nothing and told us the size; ask again.
            buf = vec![0; n as usize];
            n = unsafe { kv_get(key.as_ptr(), key.len() as i32, buf.as_mut_ptr(), buf.len() as i32) };
            if n < 0 { return None; }
        }
        buf.truncate(n as usize);
        Some(buf)
    }
    /// The value as UTF-8 text, or None (also when it is not UTF-8).
    pub fn get_string(key: &str) -> Option<String> {
        get(key).and_then(|v| String::from_utf8(v).ok())
    }
    /// Stores `value`: OK, TOO_LARGE (key over 256 B or value over 64 KiB) or QUOTA (1024 keys).
    pub fn set(key: &str, value: &[u8]) -> i32 {
        // SAFETY: valid (ptr, len) pairs of guest memory.
        unsafe { kv_set(key.as_ptr(), key.len() as i32, value.as_ptr(), value.len() as i32) }
    }
    pub fn set_string(key: &str, value: &str) -> i32 { set(key, value.as_bytes()) }
    /// True when the key existed.
    pub fn delete(key: &str) -> bool {
        // SAFETY: a valid (ptr, len) of guest memory.
        unsafe { kv_delete(key.as_ptr(), key.len() as i32) == OK }
    }
}
