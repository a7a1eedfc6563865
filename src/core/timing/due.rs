//! When a wait is due: the one rule, asked by the near queues
//! (`Wait::is_due`), the far heaps (`Far::release`) and the batch fast lanes
//! (`Lanes::run`).
//!
//! | step | rule |
//! |---|---|
//! | scheduled at `now` | due frame [`Now::due_frame`]: Yield 0 (next run), NextFrame and Delay `fnum + 1`, DelayFrame(n) `fnum + n`; a Delay's due time [`Now::due_time`]: its clock now + seconds |
//! | first frame begun | due frames computed before it move by the first frame's number ([`rebased`]) |
//! | due at a run | [`Now::is_due`]: the due frame has come ([`Now::frame_come`]: `due_frame <= fnum`) and, for a Delay, its clock reached its due time ([`Now::time_come`]: `clock >= due_time`, exact boundary due) |
//! | refused | a Delay of infinite, NaN or negative seconds ([`delay_seconds_ok`]) |
//!
//! A canceled wait is due at once: the callers check its token first.

use crate::core::types::WaitKind;

/// The frame and clocks waits are measured on.
#[derive(Clone, Copy, Default)]
pub struct Now {
    /// Internal frame number: host frame + 1, 0 before the first frame.
    pub fnum: u64,
    /// Scaled, unscaled and real-time clocks.
    pub clocks: [f64; 3],
}

impl Now {
    /// The due frame of a frame wait scheduled now: the next run (Yield),
    /// the first run in a later frame (NextFrame, Delay: which also waits
    /// for its clock), the first run at least `frames` frames later
    /// (DelayFrame).
    #[inline(always)]
    pub fn due_frame(&self, kind: WaitKind, frames: u32) -> u64 {
        // `fnum` < 2^59 + 1 (see MAX_HOST_FRAME): no overflow, and the sum
        // fits 60 bits (a queued wait keeps it shifted by 4).
        match kind {
            WaitKind::Yield => 0,
            WaitKind::NextFrame | WaitKind::Delay => self.fnum + 1,
            WaitKind::DelayFrame => self.fnum + frames as u64,
        }
    }

    /// The due time of a Delay of `seconds` (checked by
    /// [`delay_seconds_ok`]) on `clock` scheduled now.
    #[inline(always)]
    pub fn due_time(&self, clock: usize, seconds: f64) -> f64 {
        self.clocks[clock] + seconds
    }

    /// The frame half of the rule: a wait due at frame `due_frame` is due
    /// at a run in this frame.
    #[inline(always)]
    pub fn frame_come(&self, due_frame: u64) -> bool {
        due_frame <= self.fnum
    }

    /// The frame half of the rule for a due frame kept as `due_frame << 4 |
    /// low bits` (the near queue's records): `packed <= frame_key()` exactly
    /// when [`Now::frame_come`] of `packed >> 4` (one compare in a run).
    #[inline(always)]
    pub fn frame_key(&self) -> u64 {
        self.fnum << 4 | 15
    }

    /// The clock half of the rule: a Delay due at `due_time` on `clock` has
    /// come (the boundary is due).
    #[inline(always)]
    pub fn time_come(&self, clock: usize, due_time: f64) -> bool {
        self.clocks[clock] >= due_time
    }

    /// The rule: whether a wait of `kind` due at `due_frame` (and, a Delay,
    /// at `due_time` on `clock`) is due at a run now.
    #[inline(always)]
    pub fn is_due(&self, kind: WaitKind, due_frame: u64, clock: usize, due_time: f64) -> bool {
        self.frame_come(due_frame) && (kind != WaitKind::Delay || self.time_come(clock, due_time))
    }
}

/// Whether a Delay of `seconds` can be scheduled: finite and not negative.
#[inline(always)]
pub fn delay_seconds_ok(seconds: f64) -> bool {
    seconds.is_finite() && seconds >= 0.0
}

/// A due frame computed before the first frame, counted from the frame
/// before the first one (`by` = the first frame's host number). Every store
/// of waits rebases with this.
#[inline]
pub fn rebased(due: u64, by: u64) -> u64 {
    due + by
}

/// A clock value as a key that orders like the value (any finite double;
/// -0 is 0), for heaps of Delays by due time; [`time_of_key`] inverts it.
#[inline]
pub fn time_key(t: f64) -> u64 {
    let b = (t + 0.0).to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// The clock value of a [`time_key`].
#[inline]
pub fn time_of_key(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::types::Clock;

    fn now(fnum: u64, clocks: [f64; 3]) -> Now {
        Now { fnum, clocks }
    }

    #[test]
    fn frame_waits_are_due_at_their_frame_and_not_before() {
        let n = now(10, [0.0; 3]);
        assert_eq!(n.due_frame(WaitKind::Yield, 7), 0, "a Yield is due at the next run, frames ignored");
        assert_eq!(n.due_frame(WaitKind::NextFrame, 7), 11);
        assert_eq!(n.due_frame(WaitKind::Delay, 7), 11);
        assert_eq!(n.due_frame(WaitKind::DelayFrame, 0), 10, "DelayFrame(0): this frame's next run");
        assert_eq!(n.due_frame(WaitKind::DelayFrame, 1), 11);
        assert_eq!(n.due_frame(WaitKind::DelayFrame, u32::MAX), 10 + u32::MAX as u64);
        for kind in [WaitKind::Yield, WaitKind::NextFrame, WaitKind::DelayFrame] {
            for frames in [0, 1, 2, 5] {
                let due = n.due_frame(kind, frames);
                // Due exactly at its frame (the boundary), not one before.
                let at = now(due, [0.0; 3]);
                assert!(at.is_due(kind, due, 0, 0.0), "{kind:?}({frames}) at its frame");
                if due > 0 {
                    let before = now(due - 1, [0.0; 3]);
                    assert!(!before.is_due(kind, due, 0, 0.0), "{kind:?}({frames}) a frame early");
                }
                assert!(now(due + 1, [0.0; 3]).is_due(kind, due, 0, 0.0), "late is due");
            }
        }
    }

    #[test]
    fn a_delay_needs_its_frame_and_its_own_clock() {
        for clock in Clock::ALL {
            let c = clock as usize;
            let mut clocks = [100.0; 3];
            clocks[c] = 1.5;
            let n = now(4, clocks);
            let due_time = n.due_time(c, 0.5);
            assert_eq!(due_time, 2.0, "{clock:?}: counted on its own clock");
            let due_frame = n.due_frame(WaitKind::Delay, 0);
            let mut later = clocks;
            // The exact boundary is due; a hair before is not.
            later[c] = 2.0;
            assert!(now(due_frame, later).is_due(WaitKind::Delay, due_frame, c, due_time), "{clock:?} at its time");
            later[c] = f64::from_bits(2.0f64.to_bits() - 1);
            assert!(!now(due_frame, later).is_due(WaitKind::Delay, due_frame, c, due_time), "{clock:?} a hair early");
            // The clock came but not the frame: a Delay(0) waits for the next frame.
            later[c] = 1e9;
            assert!(!now(4, later).is_due(WaitKind::Delay, due_frame, c, due_time), "{clock:?} same frame");
            // Another clock reaching the time does not count.
            let mut other = [1e9; 3];
            other[c] = 1.9;
            assert!(!now(due_frame, other).is_due(WaitKind::Delay, due_frame, c, due_time), "{clock:?} other clock");
        }
        // A frame wait ignores the clocks.
        assert!(now(5, [-1.0; 3]).is_due(WaitKind::NextFrame, 5, 0, 1e9));
    }

    #[test]
    fn infinite_nan_and_negative_delays_are_refused() {
        for s in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -1.0, -f64::MIN_POSITIVE] {
            assert!(!delay_seconds_ok(s), "{s}");
        }
        for s in [0.0, -0.0, f64::MIN_POSITIVE, 1.0, f64::MAX] {
            assert!(delay_seconds_ok(s), "{s}");
        }
    }

    #[test]
    fn the_packed_frame_key_agrees_with_the_rule() {
        for fnum in [0u64, 1, 2, 17, 1 << 59] {
            let n = now(fnum, [0.0; 3]);
            for due in [0u64, 1, fnum.saturating_sub(1), fnum, fnum + 1, (1 << 59) + 1] {
                for low in 0..16 {
                    assert_eq!(due << 4 | low <= n.frame_key(), n.frame_come(due), "fnum {fnum} due {due} low {low}");
                }
            }
        }
    }

    #[test]
    fn time_keys_order_like_the_clock_rule() {
        let values = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            2.5,
            1e300,
            f64::INFINITY,
        ];
        for &due in &values {
            assert_eq!(time_of_key(time_key(due)), due + 0.0, "{due} round trip");
            for &clock in &values {
                let n = now(0, [clock; 3]);
                assert_eq!(time_key(due) <= time_key(clock), n.time_come(0, due), "due {due} clock {clock}");
            }
        }
    }

    #[test]
    fn rebase_counts_from_the_first_frame() {
        // Scheduled before any frame (fnum 0): NextFrame is due at the
        // first frame, DelayFrame(3) at the third.
        let before = Now::default();
        let first = 41;
        let at_first = now(first + 1, [0.0; 3]);
        let next = rebased(before.due_frame(WaitKind::NextFrame, 0), first);
        assert!(at_first.frame_come(next) && !now(first, [0.0; 3]).frame_come(next));
        let third = rebased(before.due_frame(WaitKind::DelayFrame, 3), first);
        assert!(!now(first + 2, [0.0; 3]).frame_come(third) && now(first + 3, [0.0; 3]).frame_come(third));
    }

    /// The three stores ask the one rule: a DelayFrame(n) in the near queue
    /// (n <= 1), in the far heap (n > 1) and in a batch's fast lane is due
    /// in the same run, made before the first frame (rebased) or after.
    #[test]
    fn near_far_and_lane_waits_are_due_in_the_same_frame() {
        use crate::core::timing::lane::fast_record;
        use crate::core::{Config, FrameInfo, Runtime, TaskState, Timing, WaitTarget};
        unsafe extern "C" fn emit(_: *mut std::ffi::c_void, _: u64, _: u32) {}
        for first in [None, Some(7u64)] {
            let rt = Runtime::new(Config::default());
            let begin = |n: u64| {
                let info = FrameInfo { frame: n, delta_time: 0.5, unscaled_delta_time: 0.5, realtime: n as f64 };
                rt.begin_frame(&info).unwrap();
            };
            let start = first.unwrap_or(100);
            if first.is_none() {
                begin(start);
            }
            let lane = rt.create_lane(emit, std::ptr::null_mut()).unwrap();
            let mut expect = Vec::new();
            for n in [0u32, 1, 2, 3, 5] {
                let task = rt.wait(WaitKind::DelayFrame, Timing::Update, n, 0.0, Clock::Scaled, 0, WaitTarget::Task);
                let rec = [fast_record(n, Timing::Update as u32, n).unwrap()];
                rt.file_lane(lane, &rec, std::iter::empty(), |_, e| panic!("{e}")).unwrap();
                // Made before the first frame, DelayFrame(n) is due in its n-th frame (the first
                // counts as 1; 0 and 1 in the first); after, n frames later (0: this frame).
                let due = match first {
                    Some(f) => f + (n.max(1) - 1) as u64,
                    None => start + n as u64,
                };
                expect.push((n, task.unwrap(), due));
            }
            for frame in start..start + 7 {
                if frame != start || first.is_some() {
                    begin(frame);
                }
                let mut reported = Vec::new();
                rt.tick_lane(lane, Timing::Update, |ids| reported = ids.to_vec()).unwrap();
                for &(n, task, due) in &expect {
                    let done = rt.task_state(task).unwrap() == TaskState::Succeeded;
                    assert_eq!(done, frame >= due, "{first:?} DelayFrame({n}) task at frame {frame}");
                    assert_eq!(reported.contains(&n), frame == due, "{first:?} DelayFrame({n}) lane at frame {frame}");
                }
            }
            rt.destroy_lane(lane).unwrap();
        }
    }
}
