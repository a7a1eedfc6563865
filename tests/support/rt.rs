//! `Rt`: a runtime made through the C ABI and destroyed (asserting `OK`)
//! when dropped, with the calls most tests repeat. A test file adds its own
//! methods with an `impl Rt` block.

use std::ptr;

use onity::ffi::*;

pub struct Rt(pub *mut OnityRuntime);

impl Rt {
    /// A runtime with the default configuration.
    pub fn new() -> Rt {
        let mut p = ptr::null_mut();
        assert_eq!(onity_runtime_create(ptr::null(), &mut p), OnityStatus::Ok);
        Rt(p)
    }

    pub fn with(cfg: OnityRuntimeConfig) -> Rt {
        let mut p = ptr::null_mut();
        assert_eq!(onity_runtime_create(&cfg, &mut p), OnityStatus::Ok);
        Rt(p)
    }

    /// Begins frame `n` (16 ms frames).
    pub fn frame(&self, n: u64) {
        self.frame_dt(n, 0.016);
    }

    /// Begins frame `n` of frames `dt` seconds long (the clocks at `n * dt`).
    pub fn frame_dt(&self, n: u64, dt: f64) {
        assert_eq!(onity_runtime_frame_begin(self.0, &super::frame_info(n, dt, n as f64 * dt)), OnityStatus::Ok);
    }

    pub fn tick(&self, timing: u32) {
        assert_eq!(onity_runtime_tick(self.0, timing), OnityStatus::Ok);
    }
}

impl Drop for Rt {
    fn drop(&mut self) {
        assert_eq!(onity_runtime_destroy(self.0), OnityStatus::Ok);
    }
}
