//! Bounded object pools and their counters.

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
/// return frees, still counted.
pub struct BoxPool<T> {
    idle: Vec<Box<T>>,
    pub stats: PoolStats,
}

/// Most idle slots a pool reserves at creation (it grows past this on demand).
const MAX_PREALLOC: usize = 1 << 16;

impl<T> BoxPool<T> {
    pub fn new(capacity: usize) -> Self {
        BoxPool {
            // Reserve up front only a bounded amount: the capacity comes from
            // the host's config (up to u32::MAX), and an allocation failure
            // here aborts the process.
            idle: Vec::with_capacity(capacity.min(MAX_PREALLOC)),
            stats: PoolStats { capacity: capacity as u64, ..PoolStats::default() },
        }
    }

    #[inline]
    pub fn rent(&mut self, make: impl FnOnce() -> T) -> Box<T> {
        match self.idle.pop() {
            Some(b) => {
                self.stats.on_rent(false);
                b
            }
            None => {
                self.stats.on_rent(true);
                Box::new(make())
            }
        }
    }

    #[inline]
    pub fn give(&mut self, b: Box<T>) {
        if (self.idle.len() as u64) < self.stats.capacity {
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
        let mut p: BoxPool<u32> = BoxPool::new(2);
        let a = p.rent(|| 1);
        let b = p.rent(|| 2);
        let c = p.rent(|| 3);
        assert_eq!(p.snapshot().cold_allocations, 3);
        assert_eq!(p.snapshot().live, 3);
        p.give(a);
        p.give(b);
        p.give(c);
        let s = p.snapshot();
        assert_eq!((s.idle, s.live, s.high_water, s.rents, s.returns, s.discards), (2, 0, 3, 3, 3, 1));
        let d = p.rent(|| 9);
        assert_eq!(p.snapshot().cold_allocations, 3);
        p.give(d);
    }

    #[test]
    fn unpooled_always_allocates() {
        let mut p: BoxPool<u32> = BoxPool::new(0);
        let a = p.rent(|| 1);
        p.give(a);
        let a = p.rent(|| 1);
        p.give(a);
        let s = p.snapshot();
        assert_eq!((s.cold_allocations, s.discards, s.idle), (2, 2, 0));
    }
}
