//! Retiring a pending callback wait: dropping it without calling it, so
//! that whoever made it (a coroutine canceled at that wait) can let go of
//! `user` at once and the wait's record does not stay queued until it is
//! due (a far DelayFrame would keep it for its whole delay).
//!
//! Every wait gets an id when it is queued (`Timings::push`), which says
//! where to find it:
//!
//! | bits | near queue | far store |
//! |---|---|---|
//! | 0-3 | timing | timing |
//! | 4 | 0 | 1 |
//! | 5-36 | sequence number (bits 5-63) | slab slot |
//! | 37-63 | | low 27 bits of the sequence number |
//!
//! 0 is never an id (sequence numbers start at 1). Costs: a filed far wait
//! is dropped now, O(1); a near one is found by binary search (the near
//! queue is in scheduling order) and marked; a wait the run in progress
//! holds is found by a scan of that run's records (O(waits of the run)) and
//! marked. A marked wait completes canceled at its timing's next run (or in
//! the run holding it) into a callback that does nothing: it is counted
//! canceled then.

use std::ffi::c_void;

use super::{CallbackFn, Timings, Wait};
use crate::core::error::{Error, Result};
use crate::core::handle::CANCELED_TOKEN;

const FAR: u64 = 1 << 4;
const SEQ_LOW_MASK: u64 = (1 << 27) - 1;

/// The id of the near wait with sequence number `seq`.
#[inline(always)]
pub fn near_id(timing: usize, seq: u64) -> u64 {
    seq << 5 | timing as u64
}

/// The id of the far wait in `slot` with sequence number `seq`.
#[inline]
pub fn far_id(timing: usize, slot: u32, seq: u64) -> u64 {
    (seq & SEQ_LOW_MASK) << 37 | (slot as u64) << 5 | FAR | timing as u64
}

/// What a retired wait calls: nothing.
unsafe extern "C" fn retired(_: *mut c_void, _: u64, _: u32) {}

impl Wait {
    /// Marks a queued or held wait retired: it completes canceled (the
    /// always-canceled token) into a callback that does nothing.
    pub fn retire(&mut self) {
        self.func = Some(retired);
        self.user = std::ptr::null_mut();
        self.token = CANCELED_TOKEN;
    }

    /// A pending callback wait with sequence number `seq` made with `user`.
    fn is(&self, seq: u64, user: *mut c_void) -> bool {
        self.seq == seq && self.user == user && self.func.is_some_and(|f| f as usize != retired as CallbackFn as usize)
    }
}

impl Timings {
    /// Retires the pending callback wait `id` made with `user` (see the
    /// module docs). `InvalidHandle` for an id that cannot be one,
    /// `StaleHandle` when no such wait is pending (it completed, was
    /// retired, or is not a callback wait with that `user`).
    pub fn retire(&mut self, id: u64, user: *mut c_void) -> Result<()> {
        let timing = (id & 15) as usize;
        if id & FAR != 0 {
            let (slot, seq_low) = ((id >> 5) as u32, id >> 37);
            if let Some(kind) = self.queues[timing].far.retire(slot, seq_low, SEQ_LOW_MASK, user)? {
                self.counts[kind as usize].canceled += 1;
            }
            return Ok(());
        }
        let seq = id >> 5;
        if seq == 0 || seq > self.seq {
            return Err(Error::InvalidHandle);
        }
        let items = &mut self.queues[timing].items;
        if let Ok(i) = items.binary_search_by_key(&seq, |w| w.seq) {
            if !items[i].is(seq, user) {
                return Err(Error::StaleHandle);
            }
            items[i].retire();
            return Ok(());
        }
        // Held by the run in progress, in its local vector: the records it
        // kept are copied towards the front as it goes, so every copy is
        // marked (the stale ones are never read again). Those it resumed
        // have sequence 0 (`run_merged`): not pending, never matched.
        let (base, len, _) = self.running;
        let mut found = false;
        for i in 0..len {
            // SAFETY: `run`'s local vector (see `repoint`), not borrowed
            // while host code runs.
            let w = unsafe { &mut *base.add(i) };
            if w.is(seq, user) {
                w.retire();
                found = true;
            }
        }
        if found {
            Ok(())
        } else {
            Err(Error::StaleHandle)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::ffi::c_void;

    use crate::core::{Clock, Config, FrameInfo, Runtime, Timing, WaitKind, WaitTarget};

    thread_local!(static CALLS: Cell<u32> = const { Cell::new(0) });
    unsafe extern "C" fn count(_: *mut c_void, _: u64, _: u32) {
        CALLS.with(|c| c.set(c.get() + 1));
    }

    fn frame(rt: &Runtime, n: u64) {
        rt.begin_frame(&FrameInfo { frame: n, delta_time: 0.016, unscaled_delta_time: 0.016, realtime: n as f64 })
            .unwrap();
        rt.tick(Timing::Update).unwrap();
    }

    #[test]
    fn a_retired_wait_is_never_called_and_a_far_one_leaves_at_once() {
        let rt = Runtime::new(Config::default());
        frame(&rt, 1);
        let user = 8 as *mut c_void;
        let cb = WaitTarget::Callback(count, user, 0);
        let near = rt.wait(WaitKind::NextFrame, Timing::Update, 0, 0.0, Clock::Scaled, 0, cb).unwrap();
        let far = rt.wait(WaitKind::DelayFrame, Timing::Update, 100, 0.0, Clock::Scaled, 0, cb).unwrap();
        let delay = rt.wait(WaitKind::Delay, Timing::Update, 0, 50.0, Clock::Realtime, 0, cb).unwrap();
        let kept = rt.wait(WaitKind::NextFrame, Timing::Update, 0, 0.0, Clock::Scaled, 0, cb).unwrap();
        assert_eq!(rt.stats().unwrap().wait_records.live, 4);
        // The wrong user, a made-up id: refused, nothing changes.
        assert!(rt.retire_wait(near, 16 as *mut c_void).is_err());
        assert!(rt.retire_wait(near + (1000 << 5), user).is_err());
        rt.retire_wait(far, user).unwrap();
        rt.retire_wait(delay, user).unwrap();
        assert_eq!(rt.stats().unwrap().wait_records.live, 2, "far waits leave at once");
        rt.retire_wait(near, user).unwrap();
        assert!(rt.retire_wait(near, user).is_err(), "retired twice");
        frame(&rt, 2);
        assert_eq!(CALLS.with(Cell::get), 1, "only the wait not retired ran");
        let s = rt.stats().unwrap();
        assert_eq!(s.wait_records.live, 0);
        assert_eq!(s.waits[WaitKind::NextFrame as usize].canceled, 1);
        assert_eq!(s.waits[WaitKind::DelayFrame as usize].canceled, 1);
        assert_eq!(s.waits[WaitKind::Delay as usize].canceled, 1);
        assert!(rt.retire_wait(kept, user).is_err(), "it ran");
        assert!(rt.retire_wait(0, user).is_err());
    }
}
