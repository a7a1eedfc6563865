//! The fuzzer's bytes as a stream of choices. Past the end every choice is
//! 0 and [`Input::done`] is true, so any byte string is a valid program.

/// A cursor over the input bytes.
pub struct Input<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Input<'a> {
        Input { data, pos: 0 }
    }

    /// Whether every byte was used.
    pub fn done(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    pub fn u64(&mut self) -> u64 {
        (self.u32() as u64) | (self.u32() as u64) << 32
    }

    /// A number below `n` (`n` > 0): one byte when `n` <= 256.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        if n <= 256 {
            self.byte() as u64 % n
        } else {
            self.u32() as u64 % n
        }
    }

    /// True with probability `p` percent (one byte).
    pub fn pct(&mut self, p: u64) -> bool {
        (self.byte() as u64 * 100) >> 8 < p
    }

    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize]
    }
}
