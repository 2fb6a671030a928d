//! The module's allocator: talc instead of the standard library's dlmalloc (the `talc` feature,
//! which the npm package is built with), growing a long value in place ([`GrowInPlace`]).

#[global_allocator]
static ALLOCATOR: GrowInPlace = GrowInPlace(talc::wasm::new_wasm_dynamic_allocator());

/// talc, with a long value that grows at the heap's end grown in place. talc grows a block in place
/// only into free memory above it, and takes memory from the engine only when no free block holds
/// an allocation: a value that grew at the heap's end was moved to new memory at each doubling, the
/// block it left behind too small for the next, so the module's memory (which never shrinks, and
/// whose pages written once stay resident) grew by twice the value (bench-js/memory.js). A block of
/// the growth's size allocated and freed first grows the heap right above the value when no free
/// block holds it, and the value then grows into it; otherwise the value moves, as it did.
struct GrowInPlace(talc::wasm::WasmDynamicTalc);

impl GrowInPlace {
    /// Growths from this size on make room first: a short value's move costs little, and the hot path stays as it was.
    const FROM: usize = 64 * 1024;
}

unsafe impl std::alloc::GlobalAlloc for GrowInPlace {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        self.0.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        self.0.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if new_size >= Self::FROM && new_size > layout.size() {
            // SAFETY: a size below `new_size`, which the caller guarantees valid, with `layout`'s alignment.
            let room = std::alloc::Layout::from_size_align_unchecked(new_size - layout.size(), layout.align());
            let probe = self.0.alloc(room);
            if !probe.is_null() {
                self.0.dealloc(probe, room);
            }
        }
        self.0.realloc(ptr, layout, new_size)
    }
}
