//! Runtime configuration, and the rules every caller's configuration is
//! checked against (Rust and C alike).

use super::error::{Error, Result};
use super::frame_alloc::{FrameAllocConfig, MAX_CONFIG_BYTES, MAX_GROWTH_BLOCK_BYTES};
use super::types::Timing;

/// Runtime configuration. Capacities are the most idle objects each pool keeps.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// Task slots allocated up front (and the task pool's capacity).
    pub task_capacity: u32,
    /// Cancellation source slots allocated up front.
    pub cancel_capacity: u32,
    /// Wait records whose storage each timing queue keeps after a burst.
    pub wait_capacity: u32,
    /// Pooled WhenAny / WhenAll coordinators for up to 16 inputs.
    pub combinator16_capacity: u32,
    /// Pooled WhenAny / WhenAll coordinators for 17 to 32 inputs.
    pub combinator32_capacity: u32,
    /// The frame allocator's configuration. [`crate::core::Runtime::try_new`]
    /// checks `max_chunk_bytes` as the C ABI documents it: 0 means the
    /// default (64 MiB, or `chunk_bytes` when that is larger); otherwise it
    /// must lie between `chunk_bytes` (taken as at least 64 and at most
    /// 2^48, before rounding) and 2^48, else `InvalidArgument`. The other
    /// fields are normalised as [`FrameAllocConfig`] documents.
    pub frame_alloc: FrameAllocConfig,
    /// The timing at whose first run in each frame the frame allocator is
    /// rewound; `None`: only by an explicit `rewind_frame_allocator`.
    pub frame_alloc_rewind_timing: Option<Timing>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            task_capacity: 4096,
            cancel_capacity: 256,
            wait_capacity: 8192,
            combinator16_capacity: 256,
            combinator32_capacity: 128,
            frame_alloc: Default::default(),
            frame_alloc_rewind_timing: Some(Timing::Initialization),
        }
    }
}

impl Config {
    /// The configuration a runtime runs with: `frame_alloc.max_chunk_bytes`
    /// resolved (0: the default) and checked (see [`Config::frame_alloc`]).
    /// The one place these rules live, for Rust and C callers alike.
    pub fn validated(mut self) -> Result<Config> {
        let fa = &mut self.frame_alloc;
        let chunk = fa.chunk_bytes.clamp(64, MAX_CONFIG_BYTES);
        let max_chunk = match fa.max_chunk_bytes {
            0 => MAX_GROWTH_BLOCK_BYTES.max(chunk),
            n => n,
        };
        if max_chunk < chunk || max_chunk > MAX_CONFIG_BYTES {
            return Err(Error::InvalidArgument);
        }
        fa.max_chunk_bytes = max_chunk;
        Ok(self)
    }
}
