//! The Sluice guest SDK for Rust: a hook is one function from a [`Request`] to an
//! [`Outcome`], exported with [`export_hook!`]. No dependencies; builds with rustc 1.63 and
//! later for `wasm32-unknown-unknown`. The contract it implements is `abi/README.md`.
//!
//! ```ignore
//! use sluice_guest::{export_hook, Outcome, Request, Value, ToolBefore};
//!
//! fn hook(req: &Request) -> Outcome {
//!     let max = req.config.get("max_limit").as_int_or(100);
//!     let limit = ToolBefore::of(req).arguments().get("limit");
//!     if !limit.is_int() || limit.as_float_or(0.0) <= max as f64 { return Outcome::continue_(); }
//!     Outcome::patch_input().replace("/arguments/limit", Value::Int(max))
//! }
//! export_hook!(hook);
//! ```
#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(all(feature = "bump", target_arch = "wasm32"))]
mod bump;
pub mod host;
pub mod msgpack;
mod outcome;
mod request;
mod value;
mod views;

pub use host::{fatal, kv, log};
pub use outcome::Outcome;
pub use request::{Context, Request};
pub use value::Value;
pub use views::{text_of, ChatAfter, ChatBefore, ChatChunk, EmbeddingBefore, ToolAfter, ToolBefore};

#[cfg(all(feature = "bump", target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: bump::Bump = bump::Bump::new();

/// The ABI version this SDK speaks: its marker export is `sluice_abi_v1_2` and every reply
/// carries `"abi": ABI`; hook.yaml's `abi` must say the same.
pub const ABI: &str = "1.2";

/// Defines the guest's exports (abi/README.md §2): the version marker, `sluice_alloc` and
/// `sluice_handle`, around `hook: fn(&Request) -> Outcome`. Use it once, in the crate root.
///
/// `export_hook!(hook)` builds a guest for ABI 1.2 (marker `sluice_abi_v1_2`).
/// `export_hook!(hook, v1_1)` or `export_hook!(hook, v1_0)` builds one for an older minor:
/// the host then shows it that minor's payloads (a 1.0 guest sees every chat text as a
/// string `content`, abi/README.md §4.4) and its replies say that version, so `ask` (1.2)
/// is refused from it. hook.yaml's `abi` must say the same version.
#[macro_export]
macro_rules! export_hook {
    ($hook:path) => { $crate::__export_hook!($hook, sluice_abi_v1_2, "1.2"); };
    ($hook:path, v1_2) => { $crate::__export_hook!($hook, sluice_abi_v1_2, "1.2"); };
    ($hook:path, v1_1) => { $crate::__export_hook!($hook, sluice_abi_v1_1, "1.1"); };
    ($hook:path, v1_0) => { $crate::__export_hook!($hook, sluice_abi_v1_0, "1.0"); };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __export_hook {
    ($hook:path, $marker:ident, $abi:expr) => {
        /// ABI version marker, read by the host before any guest code runs. Never called.
        #[no_mangle]
        pub extern "C" fn $marker() {}

        #[no_mangle]
        pub extern "C" fn sluice_alloc(len: i32) -> i32 {
            $crate::__alloc(len)
        }

        #[no_mangle]
        pub extern "C" fn sluice_handle(ptr: i32, len: i32) -> i64 {
            $crate::__handle_abi(ptr, len, $hook, $abi)
        }
    };
}

/// `sluice_alloc`: `len` writable bytes that live for the rest of the instance (the host
/// drops the instance after one invocation, so nothing is ever freed), or 0.
#[doc(hidden)]
pub fn __alloc(len: i32) -> i32 {
    if len < 0 {
        return 0;
    }
    let mut buf: Vec<u8> = Vec::new();
    if reserve_quietly(&mut buf, len as usize).is_err() {
        return 0;
    }
    let ptr = buf.as_mut_ptr();
    std::mem::forget(buf);
    ptr as usize as i32
}

#[cfg(all(feature = "bump", target_arch = "wasm32"))]
fn reserve_quietly(buf: &mut Vec<u8>, len: usize) -> Result<(), std::collections::TryReserveError> {
    ALLOCATOR.quietly(|| buf.try_reserve_exact(len))
}
#[cfg(not(all(feature = "bump", target_arch = "wasm32")))]
fn reserve_quietly(buf: &mut Vec<u8>, len: usize) -> Result<(), std::collections::TryReserveError> {
    buf.try_reserve_exact(len)
}

/// `sluice_handle`: decodes the request, runs the hook and encodes its outcome. A request
/// the SDK cannot decode ends the invocation with GUEST_ABORTED: a host bug, not a decision;
/// so does a panic, with its message.
#[doc(hidden)]
pub fn __handle(ptr: i32, len: i32, hook: fn(&Request) -> Outcome) -> i64 {
    __handle_abi(ptr, len, hook, ABI)
}

/// `sluice_handle` of a guest whose marker says `abi`: its replies say that version.
#[doc(hidden)]
pub fn __handle_abi(ptr: i32, len: i32, hook: fn(&Request) -> Outcome, abi: &str) -> i64 {
    host::report_panics();
    // SAFETY: the host wrote `len` bytes at the pointer `sluice_alloc` returned.
    let bytes = unsafe { std::slice::from_raw_parts(ptr as usize as *const u8, len as usize) };
    let root = match msgpack::decode(bytes) {
        Ok(v) => v,
        Err(e) => {
            let mut m = String::from("sluice: malformed request: ");
            m.push_str(e);
            fatal(&m)
        }
    };
    if !root.is_map() {
        fatal("sluice: malformed request: not a map");
    }
    let req = Request::new(root);
    let reply = msgpack::encode(&hook(&req).reply(abi));
    let out = reply.as_ptr() as usize as u64;
    let n = reply.len() as u64;
    std::mem::forget(reply);
    ((out << 32) | n) as i64
}
