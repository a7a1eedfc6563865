//! Tracy (issue 20 #3), behind the `tracy` cargo feature: a zone for each
//! tick and each batch call, and at each frame begin plots of the pools'
//! live counts and the pending waits, through the `tracy-client` crate.
//! Without the feature every function here is empty and inlined away.
//!
//! The Tracy client must be running before the first zone: `tracy-client`
//! starts it on first use (`Client::start`). See `docs/observability.md`
//! for engines that already link Tracy (one client per process).

use super::types::{TIMING_COUNT, WAIT_KIND_COUNT};

/// What a frame begin plots, taken by the runtime when the feature is on.
pub struct FramePlot {
    /// Live tasks, cancel sources, WhenAny and WhenAll coordinators.
    pub live: [u64; 4],
    /// Pending waits per wait kind (queues and batch lanes).
    pub pending: [u64; WAIT_KIND_COUNT],
}

/// Tracy names must be `'static`: one per timing (checked against the enum below).
#[cfg_attr(not(feature = "tracy"), allow(dead_code))]
const TICK_NAMES: [&str; TIMING_COUNT] = [
    "onity tick Initialization",
    "onity tick LastInitialization",
    "onity tick EarlyUpdate",
    "onity tick LastEarlyUpdate",
    "onity tick FixedUpdate",
    "onity tick LastFixedUpdate",
    "onity tick PreUpdate",
    "onity tick LastPreUpdate",
    "onity tick Update",
    "onity tick LastUpdate",
    "onity tick PreLateUpdate",
    "onity tick LastPreLateUpdate",
    "onity tick PostLateUpdate",
    "onity tick LastPostLateUpdate",
    "onity tick TimeUpdate",
    "onity tick LastTimeUpdate",
];

/// The tick names follow the timing enum (its variants, the one list of timing names).
#[test]
fn tick_names_are_the_timing_names() {
    for t in super::types::Timing::ALL {
        assert_eq!(TICK_NAMES[t as usize], format!("onity tick {t:?}"));
    }
}

#[cfg(feature = "tracy")]
mod on {
    use super::super::types::{Timing, WAIT_KIND_COUNT};
    use super::{FramePlot, TICK_NAMES};

    /// A zone that ends when dropped.
    pub type Zone = Option<tracy_client::Span>;

    fn client() -> tracy_client::Client {
        tracy_client::Client::start()
    }

    #[inline]
    pub fn tick_zone(timing: Timing) -> Zone {
        let c = client();
        Some(c.span_alloc(Some(TICK_NAMES[timing as usize]), "tick", file!(), line!(), 0))
    }

    #[inline]
    pub fn batch_zone(name: &'static str) -> Zone {
        Some(client().span_alloc(Some(name), "batch", file!(), line!(), 0))
    }

    const WAIT_PLOTS: [tracy_client::PlotName; WAIT_KIND_COUNT] = [
        tracy_client::plot_name!("onity pending Yield"),
        tracy_client::plot_name!("onity pending NextFrame"),
        tracy_client::plot_name!("onity pending DelayFrame"),
        tracy_client::plot_name!("onity pending Delay"),
    ];

    /// Frame begin: the pools' live counts and the pending waits (`plot`
    /// is called only here, so a build without the feature never takes them).
    pub fn frame(plot: impl FnOnce() -> FramePlot) {
        let c = client();
        let p = plot();
        c.plot(tracy_client::plot_name!("onity live tasks"), p.live[0] as f64);
        c.plot(tracy_client::plot_name!("onity live cancel sources"), p.live[1] as f64);
        c.plot(tracy_client::plot_name!("onity live WhenAny"), p.live[2] as f64);
        c.plot(tracy_client::plot_name!("onity live WhenAll"), p.live[3] as f64);
        let mut total = 0;
        for (name, n) in WAIT_PLOTS.iter().zip(p.pending) {
            total += n;
            c.plot(*name, n as f64);
        }
        c.plot(tracy_client::plot_name!("onity pending waits"), total as f64);
    }
}

#[cfg(feature = "tracy")]
pub use on::*;

#[cfg(not(feature = "tracy"))]
mod off {
    use super::super::types::Timing;
    use super::FramePlot;

    /// No zone.
    pub struct Zone;

    #[inline(always)]
    pub fn tick_zone(_timing: Timing) -> Zone {
        Zone
    }

    #[inline(always)]
    pub fn batch_zone(_name: &'static str) -> Zone {
        Zone
    }

    #[inline(always)]
    pub fn frame(_plot: impl FnOnce() -> FramePlot) {}
}

#[cfg(not(feature = "tracy"))]
pub use off::*;
