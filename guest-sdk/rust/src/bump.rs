//! The guest's allocator: a bump allocator that never frees. Each invocation runs on a
//! fresh instance (abi/README.md §1), so nothing needs freeing, and a general-purpose
//! allocator's bookkeeping would cost fuel on every allocation (about three times the
//! whole hook's fuel with Rust's default dlmalloc). The same model as AssemblyScript's
//! stub runtime. Turn it off with `default-features = false` to bring your own.
use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::Cell;

const PAGE: usize = 65536;

pub struct Bump {
    next: Cell<usize>,
    last: Cell<usize>,
    quiet: Cell<bool>,
}

// SAFETY: a wasm32-unknown-unknown guest has one thread.
unsafe impl Sync for Bump {}

impl Bump {
    pub const fn new() -> Bump {
        Bump { next: Cell::new(0), last: Cell::new(0), quiet: Cell::new(false) }
    }

    /// Runs `f` with allocation failures returned as null (for `sluice_alloc`, whose 0 the
    /// host reports as GUEST_MEMORY_LIMIT) instead of ending the invocation.
    pub fn quietly<T>(&self, f: impl FnOnce() -> T) -> T {
        self.quiet.set(true);
        let out = f();
        self.quiet.set(false);
        out
    }

    /// Rust's own answer to a null from the allocator is a bare `unreachable` trap that
    /// says nothing; this one ends the invocation with GUEST_ABORTED and the size, as the
    /// C SDK and AssemblyScript's runtime do.
    fn checked(&self, ptr: *mut u8, size: usize) -> *mut u8 {
        if ptr.is_null() && !self.quiet.get() {
            // Written on the stack: the heap is what just ran out.
            let mut buf = [0u8; 80];
            let head = b"sluice: out of memory: could not allocate ";
            buf[..head.len()].copy_from_slice(head);
            let mut digits = [0u8; 20];
            let (mut n, mut d) = (size, 0);
            loop { digits[d] = b'0' + (n % 10) as u8; d += 1; n /= 10; if n == 0 { break; } }
            let mut at = head.len();
            while d > 0 { d -= 1; buf[at] = digits[d]; at += 1; }
            buf[at..at + 6].copy_from_slice(b" bytes");
            // SAFETY: ASCII only.
            crate::host::fatal(unsafe { core::str::from_utf8_unchecked(&buf[..at + 6]) });
        }
        ptr
    }

    fn reserve(&self, start: usize, size: usize) -> *mut u8 {
        let end = match start.checked_add(size) {
            Some(e) => e,
            None => return core::ptr::null_mut(),
        };
        let have = wasm32::memory_size(0) * PAGE;
        if end > have {
            // Through a function pointer: the fuel meter charges a region's code whenever
            // the region is entered, branches or not (abi/README.md §11), and charges a
            // function only direct calls reach at its call sites, so an inlined or directly
            // called `memory.grow` (2,000 units) would be paid by every allocation. A
            // function called indirectly pays for itself, only when it runs.
            // SAFETY: reads a valid static.
            let grow: fn(usize) -> usize = unsafe { core::ptr::read_volatile(&GROW) };
            if grow((end - have + PAGE - 1) / PAGE) == usize::MAX {
                return core::ptr::null_mut();
            }
        }
        self.last.set(start);
        self.next.set(end);
        start as *mut u8
    }
}

static GROW: fn(usize) -> usize = grow_pages;

#[inline(never)]
fn grow_pages(pages: usize) -> usize {
    wasm32::memory_grow(0, pages)
}

extern "C" {
    static __heap_base: u8;
}

unsafe impl GlobalAlloc for Bump {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let mut next = self.next.get();
        if next == 0 {
            // SAFETY: the linker defines __heap_base; only its address is used.
            next = unsafe { &__heap_base as *const u8 as usize };
        }
        let align = layout.align();
        let start = (next + align - 1) & !(align - 1);
        self.checked(self.reserve(start, layout.size()), layout.size())
    }

    unsafe fn dealloc(&self, _ptr: *mut u8, _layout: Layout) {}

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // The newest block grows in place (a Vec being filled, the reply buffer).
        if ptr as usize == self.last.get() {
            return self.checked(self.reserve(ptr as usize, new_size), new_size);
        }
        // SAFETY: as GlobalAlloc::realloc requires, with the layout's alignment.
        let new = unsafe { self.alloc(Layout::from_size_align_unchecked(new_size, layout.align())) };
        if !new.is_null() {
            // SAFETY: both blocks are valid for the smaller size and do not overlap.
            unsafe { core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size)) };
        }
        new
    }
}
