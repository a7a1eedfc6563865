//! The runtime's allocation-site calls (issue 20): capture on/off, the
//! per-site counts, the `_at` forms' site records. The site table itself is
//! `sites.rs`, which knows nothing of the runtime.

use super::error::{Error, Result};
use super::fallible;
use super::handle;
use super::runtime::Runtime;
use super::sites::*;
use super::slot::{self, cont, STATE_MASK};
use super::timing::{WaitSpec, WaitTarget};
use super::types::TaskState;
use std::ffi::{c_void, CStr};
use std::sync::atomic::Ordering;

impl Runtime {
    /// Turns site capture on or off (off by default). While it is off the
    /// `_at` operations record nothing. Owner thread.
    pub fn set_site_capture(&self, on: bool) -> Result<()> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow.
        unsafe { self.inner() }.sites.set(on)?;
        self.site_capture.store(on, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Whether site capture is on. Owner thread.
    pub fn site_capture(&self) -> Result<bool> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow.
        Ok(unsafe { self.inner() }.sites.on)
    }

    /// Records `site` for the live task `h` (just made by this thread), if
    /// capture is on. False when out of memory (the task then has no known
    /// site).
    #[inline]
    fn record_site(&self, h: u64, site: Option<SiteRef>) -> bool {
        let Some(site) = site else { return true };
        // SAFETY: owner thread (the caller just made `h` there), short
        // borrow; no host code runs.
        let inner = unsafe { self.inner() };
        if !inner.sites.on {
            return true;
        }
        let id = inner.sites.intern(site);
        let frame = inner.timings.host_frame();
        inner.sites.record(handle::index(h), (h >> 32) as u32, id, frame, self.tasks.len())
    }

    /// Whether an `_at` call must record (a site given, capture on, the
    /// owner thread). With capture off: one relaxed load and a branch.
    #[inline(always)]
    fn capturing(&self, site: &Option<SiteRef>) -> bool {
        site.is_some() && self.site_capture.load(std::sync::atomic::Ordering::Relaxed) && self.owner_fast()
    }

    /// [`Runtime::create_task_with`] at `site`.
    pub fn create_task_at(&self, site: Option<SiteRef>, take: impl FnOnce(u64)) -> Result<()> {
        self.made_at(site, take, |take| self.create_task_with(take), || self.create_task())
    }

    /// [`Runtime::create_completed_with`] at `site`.
    pub fn create_completed_at(
        &self,
        state: TaskState,
        value: u64,
        error: i32,
        site: Option<SiteRef>,
        take: impl FnOnce(u64),
    ) -> Result<()> {
        let plain = |take| self.create_completed_with(state, value, error, take);
        self.made_at(site, take, plain, || self.create_completed(state, value, error))
    }

    /// A task made at `site`: by `plain` (its `_with` form) when nothing is
    /// recorded, else by `make`, its site recorded before `take` gets it.
    #[inline(always)]
    fn made_at<T: FnOnce(u64)>(
        &self,
        site: Option<SiteRef>,
        take: T,
        plain: impl FnOnce(T) -> Result<()>,
        make: impl FnOnce() -> Result<u64>,
    ) -> Result<()> {
        if !self.capturing(&site) {
            return plain(take);
        }
        take(self.recorded(make(), site)?);
        Ok(())
    }

    /// A task just made (or the error making it), its site recorded.
    #[inline(always)]
    fn recorded(&self, h: Result<u64>, site: Option<SiteRef>) -> Result<u64> {
        let h = h?;
        self.record_site(h, site);
        Ok(h)
    }

    /// [`Runtime::when_any`] at `site`.
    pub fn when_any_at(&self, inputs: &[u64], token: u64, site: Option<SiteRef>) -> Result<u64> {
        self.recorded(self.when_any(inputs, token), site)
    }

    /// [`Runtime::when_all`] at `site`.
    pub fn when_all_at(&self, inputs: &[u64], token: u64, site: Option<SiteRef>) -> Result<u64> {
        self.recorded(self.when_all(inputs, token), site)
    }

    /// [`Runtime::wait_with`] at `site`. A callback wait made while capture
    /// is on is a task wait (with the same queue, order, cancellation and
    /// destruction) whose continuation consumes the task and calls the
    /// callback with `arg`'s value 0, as a plain callback wait does;
    /// callback waits with another argument (batches) record no site.
    pub fn wait_at(
        &self,
        spec: WaitSpec,
        target: WaitTarget,
        site: Option<SiteRef>,
        take: impl FnOnce(u64),
    ) -> Result<()> {
        if !self.capturing(&site) {
            return self.wait_with(spec, target, take);
        }
        match target {
            WaitTarget::Callback(f, user, 0) => {
                let mut h = 0;
                self.wait_with(spec, WaitTarget::Task, |t| h = t)?;
                if !self.record_site(h, site) {
                    // No room for the callback: the wait is undone (its
                    // record is dropped when it would have been due).
                    let _ = self.complete(h, TaskState::Canceled, 0, 0, false);
                    let _ = self.consume(h);
                    return Err(Error::OutOfMemory);
                }
                {
                    // SAFETY: owner thread (capturing), short borrow; the
                    // record was just written.
                    let r = &mut unsafe { self.inner() }.sites.slots[handle::index(h) as usize];
                    (r.callback, r.user) = (Some(f), user as usize);
                }
                // A pending task made just now has no continuation: cannot
                // fail. An ordinary continuation (no kind of its own, so the
                // continuation dispatch is untouched).
                let me = self as *const Runtime as u64;
                let set = self.set_continuation(h, cont::USER, callback_wait as *mut c_void, me);
                debug_assert!(set.is_ok());
                take(0);
                Ok(())
            }
            WaitTarget::Callback(..) => self.wait_with(spec, target, take),
            WaitTarget::Task => {
                let mut h = 0;
                self.wait_with(spec, target, |t| h = t)?;
                self.record_site(h, site);
                take(h);
                Ok(())
            }
        }
    }

    /// The live-task report: the live tasks at least `min_age` frames old
    /// (tasks of unknown age only when `min_age` is 0), grouped by creation
    /// site, most tasks first (then by site id). Hands the first `limit`
    /// lines to `each` (index, line); returns how many there are. No
    /// allocation after the first report (and sites added since). Owner
    /// thread.
    pub fn site_report(&self, min_age: u64, limit: usize, mut each: impl FnMut(usize, SiteCount)) -> Result<usize> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow; no host code runs below.
        let inner = unsafe { self.inner() };
        let now = inner.timings.host_frame();
        let s = &mut inner.sites;
        let n_agg = s.sites.len() + 2;
        s.agg.clear();
        fallible::reserve(&mut s.agg, n_agg)?;
        s.order.clear();
        fallible::reserve(&mut s.order, n_agg)?;
        s.agg.resize(n_agg, SiteCount::default());
        for idx in 0..inner.tasks.fresh() {
            let slot = self.slot(idx);
            let w = slot.state.load(Ordering::Acquire);
            if w & STATE_MASK == slot::FREE {
                continue;
            }
            let (site, age) = match s.of(idx, (w >> 32) as u32) {
                Some((site, frame)) => (site, Some(now.saturating_sub(frame))),
                None => (SITE_NONE, None),
            };
            match age {
                Some(a) if a < min_age => continue,
                None if min_age > 0 => continue,
                _ => {}
            }
            let i = s.agg_index(site);
            let a = &mut s.agg[i];
            a.tasks += 1;
            if slot::is_final(w) {
                a.completed += 1;
            } else {
                a.pending += 1;
            }
            if slot.cont.get() >= cont::USER {
                a.awaited += 1;
            }
            match age {
                Some(age) => {
                    a.oldest_age = a.oldest_age.max(age);
                    a.newest_age = a.newest_age.min(age);
                }
                None => (a.oldest_age, a.newest_age) = (u64::MAX, u64::MAX),
            }
        }
        s.order.clear();
        s.order.extend((0..n_agg as u32).filter(|&i| s.agg[i as usize].tasks > 0));
        let agg = &s.agg;
        s.order.sort_unstable_by(|&a, &b| agg[b as usize].tasks.cmp(&agg[a as usize].tasks).then(a.cmp(&b)));
        let overflow = n_agg - 1;
        for (n, &i) in s.order.iter().take(limit).enumerate() {
            let mut line = s.agg[i as usize];
            line.site = if i as usize == overflow { SITE_OVERFLOW } else { i };
            if let Some((file, l)) = s.describe(line.site) {
                line.file = file.as_ptr();
                line.line = l;
            }
            each(n, line);
        }
        Ok(s.order.len())
    }

    /// The site of a live task: (file, line, creation frame), or `None`
    /// (made without a site). Owner thread.
    pub fn task_site(&self, h: u64) -> Result<Option<(&CStr, u32, u64)>> {
        self.check_owner()?;
        let (_, idx, word) = self.task_slot(h)?;
        // SAFETY: owner thread, short borrow.
        let s = &unsafe { self.inner() }.sites;
        Ok(s.of(idx, (word >> 32) as u32).and_then(|(site, frame)| s.describe(site).map(|(f, l)| (f, l, frame))))
    }
}

/// The continuation of a callback wait that carries a site (an ordinary
/// `cont::USER` continuation, `user` = the runtime): consumes the task, then
/// calls the wait's callback (kept in the slot's side record) with task 0 and
/// the task's state, as a plain callback wait is called.
unsafe extern "C" fn callback_wait(user: *mut c_void, task: u64, state: u32) {
    // SAFETY: `user` is the runtime that set this continuation; it runs on
    // its owner thread while the runtime lives.
    let rt = unsafe { &*(user as *const Runtime) };
    let (idx, gen) = (handle::index(task), (task >> 32) as u32);
    // SAFETY: owner thread, short borrow; no host code runs.
    let rec = unsafe { rt.inner() }.sites.slots.get(idx as usize).copied();
    let Some(SlotSite { gen: g, callback: Some(f), user, .. }) = rec else { return };
    debug_assert_eq!(g, gen);
    // Retired directly, not through `consume`: this also runs on the thread
    // closing the runtime after its owner exited, where `consume` is
    // `WrongThread`.
    let live = rt.task_slot(task);
    debug_assert!(live.as_ref().is_ok_and(|&(_, _, w)| slot::is_final(w)));
    if let Ok((s, idx, word)) = live {
        rt.take_outcome(s, idx, word);
    }
    // SAFETY: the host promised `f` is callable with `user` (as for any
    // callback wait); this runs inside the runtime's call of a continuation.
    unsafe { f(user as *mut c_void, 0, state) };
}
