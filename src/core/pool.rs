//! Bounded object pools and their counters.

use super::error::Result;
use super::fallible;

/// Counters of one pool. `live` objects are handed out, `idle` ones kept for
/// reuse (at most `capacity`). A rent with nothing idle is a cold allocation;
/// a return with the idle list full is a discard.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    pub capacity: u64,
    pub idle: u64,
    pub live: u64,
    pub high_water: u64,
    pub rents: u64,
    pub returns: u64,
    pub cold_allocations: u64,
    pub discards: u64,
}

impl PoolStats {
    #[inline]
    pub fn on_rent(&mut self, cold: bool) {
        self.rents += 1;
        self.live += 1;
        if self.live > self.high_water {
            self.high_water = self.live;
        }
        if cold {
            self.cold_allocations += 1;
        }
    }

    #[inline]
    pub fn on_return(&mut self, discarded: bool) {
        self.returns += 1;
        self.live -= 1;
        if discarded {
            self.discards += 1;
        }
    }
}

/// A LIFO pool of boxed objects keeping at most `capacity` idle.
/// A capacity of 0 makes an unpooled "pool": every rent allocates and every
/// return frees, still counted. Nothing here aborts on allocation failure:
/// a rent that must allocate can fail ([`Error::OutOfMemory`]), a return
/// that cannot be kept is a discard.
pub struct BoxPool<T> {
    idle: Vec<Box<T>>,
    pub stats: PoolStats,
}

/// Most idle slots a pool reserves at creation (it grows past this on demand).
const MAX_PREALLOC: usize = 1 << 16;

impl<T> BoxPool<T> {
    /// `OutOfMemory` when the idle list cannot be reserved.
    pub fn try_new(capacity: usize) -> Result<Self> {
        Ok(BoxPool {
            // Reserve up front only a bounded amount: the capacity comes from
            // the host's config (up to u32::MAX).
            idle: fallible::vec_with_capacity(capacity.min(MAX_PREALLOC))?,
            stats: PoolStats { capacity: capacity as u64, ..PoolStats::default() },
        })
    }

    /// An idle object, else a new one from `make` (`true`: a cold
    /// allocation), not counted yet: [`BoxPool::count_rent`] once the
    /// rent is certain, or [`BoxPool::put_back`] to undo.
    #[inline]
    pub fn take(&mut self, make: impl FnOnce() -> Result<Box<T>>) -> Result<(Box<T>, bool)> {
        match self.idle.pop() {
            Some(b) => Ok((b, false)),
            None => Ok((make()?, true)),
        }
    }

    /// Counts a rent of an object [`BoxPool::take`] gave.
    #[inline]
    pub fn count_rent(&mut self, cold: bool) {
        self.stats.on_rent(cold);
    }

    /// Undoes a [`BoxPool::take`] (nothing counted): an idle object goes
    /// back where it was (room is left by the pop), a new one is freed.
    #[inline]
    pub fn put_back(&mut self, b: Box<T>, cold: bool) {
        if !cold {
            self.idle.push(b);
        }
    }

    /// Takes and counts: an idle object, else `make()`.
    #[inline]
    pub fn rent(&mut self, make: impl FnOnce() -> Result<Box<T>>) -> Result<Box<T>> {
        let (b, cold) = self.take(make)?;
        self.count_rent(cold);
        Ok(b)
    }

    /// Returns an object: kept idle when there is room (below the capacity,
    /// and the idle list can hold it without failing), else freed.
    #[inline]
    pub fn give(&mut self, b: Box<T>) {
        let keep = (self.idle.len() as u64) < self.stats.capacity && fallible::reserve(&mut self.idle, 1).is_ok();
        if keep {
            self.idle.push(b);
            self.stats.on_return(false);
        } else {
            drop(b);
            self.stats.on_return(true);
        }
    }

    pub fn snapshot(&self) -> PoolStats {
        PoolStats { idle: self.idle.len() as u64, ..self.stats }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_pool_counts_cold_and_discards() {
        let mut p: BoxPool<u32> = BoxPool::try_new(2).unwrap();
        let a = p.rent(|| Ok(Box::new(1))).unwrap();
        let b = p.rent(|| Ok(Box::new(2))).unwrap();
        let c = p.rent(|| Ok(Box::new(3))).unwrap();
        assert_eq!(p.snapshot().cold_allocations, 3);
        assert_eq!(p.snapshot().live, 3);
        p.give(a);
        p.give(b);
        p.give(c);
        let s = p.snapshot();
        assert_eq!((s.idle, s.live, s.high_water, s.rents, s.returns, s.discards), (2, 0, 3, 3, 3, 1));
        let d = p.rent(|| Ok(Box::new(9))).unwrap();
        assert_eq!(p.snapshot().cold_allocations, 3);
        p.give(d);
    }

    #[test]
    fn unpooled_always_allocates() {
        let mut p: BoxPool<u32> = BoxPool::try_new(0).unwrap();
        let a = p.rent(|| Ok(Box::new(1))).unwrap();
        p.give(a);
        let a = p.rent(|| Ok(Box::new(1))).unwrap();
        p.give(a);
        let s = p.snapshot();
        assert_eq!((s.cold_allocations, s.discards, s.idle), (2, 2, 0));
    }

    #[test]
    fn a_rent_taken_back_counts_nothing() {
        let mut p: BoxPool<u32> = BoxPool::try_new(2).unwrap();
        let a = p.rent(|| Ok(Box::new(1))).unwrap();
        p.give(a);
        let (b, cold) = p.take(|| Ok(Box::new(2))).unwrap();
        assert!(!cold);
        p.put_back(b, cold);
        let (c, cold) = p.take(|| Ok(Box::new(3))).unwrap();
        let (d, cold2) = p.take(|| Ok(Box::new(4))).unwrap();
        assert!(!cold && cold2);
        p.put_back(d, cold2);
        p.put_back(c, cold);
        let s = p.snapshot();
        assert_eq!((s.rents, s.returns, s.cold_allocations, s.idle), (1, 1, 1, 1));
        assert!(p.take(|| Err(crate::core::Error::OutOfMemory)).is_ok(), "idle first");
    }
}
