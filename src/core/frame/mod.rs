//! The frame: beginning one, its checks, the first frame's rebase, the
//! frames a host wrote without a call and the order they are applied in,
//! and (`idle.rs`) which timings' next run would do nothing. The protocol
//! as a whole is in `docs/frame-protocol.md`; the C ABI's shared memory for
//! it is `src/ffi/deferred.rs`, which only reads and converts.
//!
//! | rule | where |
//! |---|---|
//! | a frame's checks (order, finite non-negative deltas, finite realtime, number below 2^59) | [`check`] |
//! | the first frame rebases the waits made before it (queues and batch lanes) | [`Runtime::begin_frame`] |
//! | written frames apply in order, each as one begin; the bound batch's records between two splits file with the frame before the later split | [`Runtime::apply_frames`] |
//! | a refused written frame is dropped; the later ones still apply | [`Runtime::apply_frames`] |
//! | inside a tick written frames wait, untouched, for the next call after it | [`Runtime::can_apply_frames`] |
//! | idle bytes: a run publishes whether the next would do nothing | `idle.rs` |
//! | every begin publishes the frame, the first frame's origin and the clocks | [`FrameClock`] |
//!
//! There is no merge: frames a host begins while it skips its ticks wait
//! in its ring and are applied one by one at the next call, so the clocks
//! add every delta in turn, exactly as frame by frame.

mod idle;

use super::error::{Error, Result};
use super::runtime::Runtime;
use super::timing::{Timings, MAX_HOST_FRAME};
pub use super::types::FrameClock;
use super::types::FrameInfo;

/// A frame the host wrote without a call, with how many of its bound
/// batch's records (fast, requests) it had written before it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WrittenFrame {
    pub info: FrameInfo,
    pub fast_split: u32,
    pub submit_split: u32,
}

/// Filing the batches' records while frames are applied (the batches'
/// memory is the caller's).
pub trait Filing {
    /// Files every batch's records but the bound batch's, with the current
    /// frame.
    fn file_others(&mut self);
    /// Files the bound batch's next `fast` fast records and `requests`
    /// requests (`usize::MAX`: all), with the current frame.
    fn file_bound(&mut self, fast: usize, requests: usize);
}

/// Whether `info` may follow the frames begun so far: `InvalidArgument`
/// (a negative or non-finite delta, a non-finite realtime, a frame number
/// of 2^59 or more), `FrameOrder` (not above the last frame's number).
pub fn check(t: &Timings, info: &FrameInfo) -> Result<()> {
    let ok = |v: f64| v.is_finite() && v >= 0.0;
    if !ok(info.delta_time) || !ok(info.unscaled_delta_time) || !info.realtime.is_finite() {
        return Err(Error::InvalidArgument);
    }
    // The counter is the last frame's number plus 1 (0 before the first).
    if info.frame < t.now.fnum {
        return Err(Error::FrameOrder);
    }
    if info.frame >= MAX_HOST_FRAME {
        return Err(Error::InvalidArgument);
    }
    Ok(())
}

impl Runtime {
    /// Begins a frame ([`check`]). Owner thread (`WrongThread`), not
    /// inside a tick (`Reentrant`). The first frame rebases every wait made
    /// before it: they count from the frame before it.
    pub fn begin_frame(&self, info: &FrameInfo) -> Result<()> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow (no user code below).
        let inner = unsafe { self.inner() };
        if inner.ticking {
            return Err(Error::Reentrant);
        }
        check(&inner.timings, info)?;
        if inner.timings.now.fnum == 0 {
            inner.timings.rebase(info.frame, info.realtime);
            // The batches' fast lanes were filed with the same counter.
            inner.lanes.rebase(info.frame);
            inner.frame_clock.origin = info.frame.wrapping_sub(1);
        }
        inner.timings.begin_frame(info);
        let c = &mut inner.frame_clock;
        (c.frame, c.frames_begun, c.clocks) = (info.frame, c.frames_begun + 1, inner.timings.now.clocks);
        self.trace_frame();
        super::tracy::frame(|| self.frame_plot());
        Ok(())
    }

    /// Whether the frames a host wrote can be applied now: on the owner
    /// thread, outside a tick. Inside a tick a begin is `Reentrant`, so
    /// applying would drop them: they wait, untouched, for the next call
    /// after the tick (a wait a continuation makes there counts from the
    /// current frame, as it would had the host begun the frames by call
    /// after the tick).
    pub fn can_apply_frames(&self) -> bool {
        // SAFETY: owner thread (checked first), short borrow.
        self.is_owner_thread() && !unsafe { self.inner() }.ticking
    }

    /// The address of the published [`FrameClock`]: valid while the
    /// runtime lives and does not move; the owner writes it at every frame
    /// begin, so read it on the owner thread between calls. Owner thread
    /// (`WrongThread`).
    pub fn frame_clock(&self) -> Result<*const FrameClock> {
        self.check_owner()?;
        // SAFETY: the runtime's own state, live; no reference is made.
        Ok(unsafe { std::ptr::addr_of!((*self.inner_raw()).frame_clock) })
    }

    /// Applies the frames a host wrote, in order: first every other
    /// batch's records and the bound batch's records written before the
    /// first frame are filed with the current frame; then each frame is
    /// begun ([`Runtime::begin_frame`]) and the bound batch's records
    /// written after it (up to the next frame's split) are filed with it.
    /// This is what frame-by-frame begins give (the ticks between them were
    /// skipped: they had nothing to do). A refused frame is dropped and the
    /// later ones still apply; the first refusal is returned with the
    /// refused frame's index in `frames`. Owner thread.
    pub fn apply_frames(
        &self,
        frames: &[WrittenFrame],
        filing: &mut impl Filing,
    ) -> std::result::Result<(), (usize, Error)> {
        let mut first_error = Ok(());
        let (mut fast_done, mut submit_done) = (0u32, 0u32);
        filing.file_others();
        for (i, f) in frames.iter().enumerate() {
            // Splits only grow; a smaller one (a host's error) files nothing more.
            let (fast, submit) = (f.fast_split.max(fast_done), f.submit_split.max(submit_done));
            filing.file_bound((fast - fast_done) as usize, (submit - submit_done) as usize);
            (fast_done, submit_done) = (fast, submit);
            if let Err(e) = self.begin_frame(&f.info) {
                first_error = first_error.and(Err((i, e)));
            }
        }
        filing.file_bound(usize::MAX, usize::MAX);
        first_error
    }
}
