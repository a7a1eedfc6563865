//! The idle timings a batch host reads to skip ticks with nothing to do
//! (ABI 1.4, `OnityTickIdle`). What makes a timing idle, and what clears
//! it, is the core's (`src/core/idle.rs`); this file hands out the
//! addresses.

use super::batch_state::lookup;
use super::error::Out;
use super::object::{live_word, OnityRuntime};
use super::status::OnityStatus;
use super::types::{OnityBatch, OnityTickIdle, ONITY_FRAME_ALLOC_REWIND_MANUAL};

/// ABI 1.4. Writes to `*out_idle` where `batch`'s host reads whether a
/// timing's `onity_batch_tick` has anything to do (see `OnityTickIdle` for
/// when it may skip the call). The addresses are valid until the runtime
/// is destroyed (`onity_runtime_live_word` tells a host when that was).
/// Owner thread. Errors: `NULL_POINTER`, `INVALID_RUNTIME`,
/// `INVALID_HANDLE` (not a live batch of this runtime), `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_batch_idle(
    runtime: *mut OnityRuntime,
    batch: *mut OnityBatch,
    out_idle: *mut OnityTickIdle,
) -> OnityStatus {
    crate::ffi!({
        let r = lookup(runtime, batch)?;
        let out = Out::new(out_idle)?;
        // SAFETY: the runtime is boxed (`RuntimeObject`) and never moves.
        let (timings, stride) = unsafe { r.rt.idle_bytes() }?;
        let (rewind, frame_memory) = r.rt.frame_memory()?;
        out.set(OnityTickIdle {
            timings,
            cross_thread: r.rt.cross_thread_head(),
            frame_memory,
            timing_stride: stride as u32,
            rewind_timing: rewind.map_or(ONITY_FRAME_ALLOC_REWIND_MANUAL, |t| t as u32),
        })
    })
}

/// ABI 1.5. Writes to `*out_word` the address of a word that holds
/// `*out_id` (this runtime's id: never 0, never another runtime's) while
/// the runtime lives, and 0 from its `onity_runtime_destroy` on. The word
/// is static: readable for the life of the process, after the destruction
/// too. A host that reads or writes the memory it shares with the runtime
/// without a call (`OnityBatch`, `OnityDeferredFrame`, `OnityTickIdle`)
/// while other code may destroy the runtime (C code given its pointer)
/// compares the word with the id first: another value means that memory is
/// freed. Any thread (read the word with an acquire load, or on the thread
/// that destroys the runtime). Errors: `NULL_POINTER`, `INVALID_RUNTIME`.
#[no_mangle]
pub extern "C" fn onity_runtime_live_word(
    runtime: *mut OnityRuntime,
    out_word: *mut *const u64,
    out_id: *mut u64,
) -> OnityStatus {
    crate::ffi!({
        let (word_out, id_out) = (Out::new(out_word)?, Out::new(out_id)?);
        let (word, id) = live_word(runtime)?;
        word_out.put(word);
        id_out.set(id)
    })
}
