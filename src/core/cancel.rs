//! Cancellation sources: a source's handle is also its token (0: none).
//! Waits check their token at each run of their timing, combinators at the
//! owner's next tick or drain after a cancel (the cancel epoch).

use std::sync::atomic::Ordering;

use super::error::{Error, Result};
use super::handle::{self, Kind, CANCELED_TOKEN};
use super::runtime::Runtime;
use super::slot::{CancelSlot, CS_CANCELED, CS_DEAD, GEN_MASK, GEN_ONE};

impl Runtime {
    /// Creates a cancellation source; its handle is also its token. Owner.
    pub fn create_cancel_source(&self) -> Result<u64> {
        self.check_owner_open()?;
        // SAFETY: owner thread, short borrow.
        let (idx, slot) = unsafe { self.inner() }.cancels.rent(&self.cancels)?;
        let gen = (slot.state.load(Ordering::Relaxed) & GEN_MASK) + GEN_ONE;
        slot.state.store(gen, Ordering::Release);
        Ok(gen | self.cancel_key | idx as u64)
    }

    /// The slot of a live source handle and its state word.
    #[inline]
    fn cancel_slot(&self, h: u64) -> Result<(&CancelSlot, u32, u64)> {
        let idx = handle::index(h);
        if handle::has_key(h, self.cancel_key) {
            if let Some(slot) = self.cancels.get(idx) {
                let word = slot.state.load(Ordering::Acquire);
                // Same generation, odd (live), not retired.
                if (word ^ h) & GEN_MASK == 0 && word & (GEN_ONE | CS_DEAD) == GEN_ONE {
                    return Ok((slot, idx, word));
                }
            }
        }
        Err(self.cancel_error(h))
    }

    #[cold]
    #[inline(never)]
    fn cancel_error(&self, h: u64) -> Error {
        handle::why_invalid(h, self.tag, Kind::CancelSource, self.floors[1], |idx, gen| {
            let word = self.cancels.get(idx)?.state.load(Ordering::Acquire);
            Some(word >> 32 == gen as u64 && word & CS_DEAD == 0)
        })
    }

    /// Cancels a source. Any thread. Canceling twice is not an error.
    /// Everything waiting on the token observes it at the owner's next tick
    /// of its timing (waits) or next tick / drain (combinators).
    pub fn cancel(&self, h: u64) -> Result<()> {
        let (slot, _, _) = self.cancel_slot(h)?;
        let live = h & GEN_MASK;
        match slot.state.compare_exchange(live, live | CS_CANCELED, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => {
                self.cancel_epoch.fetch_add(1, Ordering::Release);
                Ok(())
            }
            Err(w) if w == live | CS_CANCELED => Ok(()),
            Err(_) => Err(Error::StaleHandle),
        }
    }

    /// Whether a source is canceled. Any thread.
    pub fn is_canceled(&self, h: u64) -> Result<bool> {
        let (_, _, word) = self.cancel_slot(h)?;
        Ok(word & CS_CANCELED != 0)
    }

    /// Destroys a source. Owner thread. If it was canceled, everything
    /// holding its token still observes the cancellation (at the usual
    /// points: the next run of a wait's timing, the next tick or drain for
    /// combinators); if it was not, nothing holding its token is ever
    /// canceled by it.
    pub fn destroy_cancel_source(&self, h: u64) -> Result<()> {
        self.check_owner()?;
        let (slot, idx, word) = self.cancel_slot(h)?;
        let last = word >> 32 == u32::MAX as u64;
        // SAFETY: owner thread, short borrow; no user code runs below.
        let inner = unsafe { self.inner() };
        // Swap, not store: a `cancel` from another thread landing after the
        // check above must not be erased (it returned OK).
        let new = if last { (word & GEN_MASK) | CS_DEAD } else { (word & GEN_MASK) + GEN_ONE };
        let word = slot.state.swap(new, Ordering::AcqRel);
        if word & CS_CANCELED != 0 {
            // Re-point every holder of this token at the permanent
            // "canceled" token before the slot can be reused: waits (also
            // those of a timing being run: we may be inside one of its
            // continuations) and watched combinators.
            inner.timings.repoint(h, CANCELED_TOKEN);
            for &w in inner.comb.watches() {
                // SAFETY: watched coordinators are live.
                unsafe {
                    if (*w).token == h {
                        (*w).token = CANCELED_TOKEN;
                    }
                }
            }
            self.cancel_epoch.fetch_add(1, Ordering::Release);
        }
        if last {
            // Retired for good: dead, and not canceled.
            inner.cancels.give_back_retired();
        } else {
            inner.cancels.give_back(slot, idx);
        }
        Ok(())
    }

    /// Validates an optional token (0 = none).
    #[inline(always)]
    pub(super) fn check_token(&self, token: u64) -> Result<()> {
        if token != 0 {
            self.cancel_slot(token)?;
        }
        Ok(())
    }

    /// Whether a token is canceled; a destroyed source counts as not canceled.
    #[inline]
    pub(super) fn token_canceled(&self, token: u64) -> bool {
        if token == 0 {
            return false;
        }
        if token == CANCELED_TOKEN {
            return true;
        }
        match self.cancels.get(handle::index(token)) {
            Some(s) => s.state.load(Ordering::Acquire) == (token & GEN_MASK) | CS_CANCELED,
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Clock, Config, TaskState, Timing, WaitKind, WaitTarget};

    /// A cancel source in its slot's last generation: destroying it retires
    /// the slot without canceling its waits, and its handle is stale after.
    /// (Reaching that generation through the API takes 2^31 create/destroy
    /// cycles; the test moves the slot there directly.)
    #[test]
    fn last_generation_cancel_source_retires_without_canceling() {
        let rt = Runtime::new(Config::default());
        let h0 = rt.create_cancel_source().unwrap();
        let (_, idx) = handle::decode(h0, rt.tag, Kind::CancelSource).unwrap();
        rt.destroy_cancel_source(h0).unwrap();
        rt.cancels.get(idx).unwrap().state.store(((u32::MAX - 1) as u64) << 32, Ordering::Release);
        let h = rt.create_cancel_source().unwrap();
        assert_eq!(handle::decode(h, rt.tag, Kind::CancelSource).unwrap(), (u32::MAX, idx));
        let w = rt.wait(WaitKind::Yield, Timing::Update, 0, 0.0, Clock::Scaled, h, WaitTarget::Task).unwrap();
        let live = rt.stats().unwrap().cancel_sources.live;
        rt.destroy_cancel_source(h).unwrap();
        assert_eq!(rt.is_canceled(h), Err(Error::StaleHandle));
        assert_eq!(rt.cancel(h), Err(Error::StaleHandle));
        assert_eq!(rt.destroy_cancel_source(h), Err(Error::StaleHandle));
        assert_eq!(rt.stats().unwrap().cancel_sources.live, live - 1);
        rt.tick(Timing::Update).unwrap();
        assert_eq!(rt.consume(w).unwrap().state, TaskState::Succeeded, "never canceled");
        // The retired slot is not handed out again.
        let h2 = rt.create_cancel_source().unwrap();
        assert_ne!(handle::decode(h2, rt.tag, Kind::CancelSource).unwrap().1, idx);
    }
}
