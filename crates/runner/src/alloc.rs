//! A counting global allocator, for allocations and bytes per operation.
//!
//! The binary installs it:
//! ```ignore
//! #[global_allocator]
//! static ALLOC: dyno_runner::CountingAlloc = dyno_runner::CountingAlloc;
//! ```
//! Counters are per thread, so a progress bar or signal handler on another
//! thread never leaks into a benchmark's figures. Counting costs two
//! thread-local adds per allocation, the same for every implementation.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

/// The system allocator, counting each thread's allocation calls and bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAlloc;

#[inline]
fn count(bytes: usize) {
    // `try_with` because allocation can happen while a thread's locals are
    // being torn down; those allocations are simply not counted.
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
    let _ = BYTES.try_with(|c| c.set(c.get() + bytes as u64));
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged; counting touches only const-initialised thread-local cells,
// which never allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: forwarded contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: forwarded contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: forwarded contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// This thread's allocation counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocCount {
    /// Allocation calls so far.
    pub allocs: u64,
    /// Bytes requested so far.
    pub bytes: u64,
}

impl AllocCount {
    /// The current thread's counters.
    pub fn now() -> Self {
        Self {
            allocs: ALLOCS.with(Cell::get),
            bytes: BYTES.with(Cell::get),
        }
    }

    /// Counts since `earlier`.
    pub fn since(self, earlier: Self) -> Self {
        Self {
            allocs: self.allocs - earlier.allocs,
            bytes: self.bytes - earlier.bytes,
        }
    }
}

/// Whether [`CountingAlloc`] is this process's global allocator.
pub fn counting_installed() -> bool {
    let before = AllocCount::now();
    let v = std::hint::black_box(vec![0u8; 64]);
    drop(v);
    AllocCount::now().allocs > before.allocs
}
