//! Creation sites (issue 20 #1): where tasks and waits were made, and the
//! live-task report grouped by site.
//!
//! # Design
//!
//! - **Opt-in per call, off per runtime by default.** The `_at` operations
//!   ([`Runtime::create_task_at`], [`Runtime::wait_at`], ...) take a
//!   [`SiteRef`] (file, line: what `__FILE__` / `__LINE__` or a
//!   `std::source_location` give). The plain operations are untouched: they
//!   cost exactly what they did (no test, no store). While capture is off
//!   (the default, [`Runtime::set_site_capture`]), an `_at` operation is its
//!   plain operation plus one test.
//! - **Interned per runtime.** A site is found by the address of its file
//!   string and its line (one hash probe); a file string seen for the first
//!   time is compared with the known ones by content (two translation units'
//!   `__FILE__` of one header are one file) and copied. So the file string
//!   must not change while the runtime lives: a literal (`__FILE__`) or a
//!   `source_location`'s file name. At most [`MAX_SITES`] sites; later ones
//!   are counted under [`SITE_OVERFLOW`].
//! - **Per task slot, not per task.** Each task slot has a side record
//!   (slot generation, site, creation frame), written by the `_at` call; a
//!   record whose generation is not the slot's is stale (the slot was reused
//!   by a plain call), so the task's site is unknown ([`SITE_NONE`]).
//! - **Callback waits** carry a site as a task wait with an ordinary
//!   continuation ([`callback_wait`], the callback and its user pointer in
//!   the side record) that consumes the task and calls the callback with 0:
//!   the same queue, order, cancellation and destruction rules, and no
//!   continuation kind of their own (the dispatch of the others is
//!   untouched).
//! - **The report** ([`Runtime::site_report`]) scans the live task slots
//!   once, aggregates per site into storage kept from the last report, and
//!   sorts the sites by task count: no allocation after the first report.

use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::Ordering;

use super::error::{Error, Result};
use super::fallible;
use super::handle;
use super::runtime::Runtime;
use super::slot::{self, cont, STATE_MASK};
use super::timing::{WaitSpec, WaitTarget};
use super::types::{CallbackFn, TaskState};

/// Most distinct sites a runtime interns.
pub const MAX_SITES: u32 = 4096;
/// The site of a task made by a plain call (or while capture was off).
pub const SITE_NONE: u32 = 0;
/// The site of tasks made at sites past [`MAX_SITES`].
pub const SITE_OVERFLOW: u32 = u32::MAX;
/// Entries of the address table (aliases included): a power of two, at
/// most 3/4 used.
const KEY_SLOTS: usize = 2 * MAX_SITES as usize;

/// A creation site as a caller passes it: a file name (compared by
/// address first, copied when first seen) and a line.
#[derive(Debug, Clone, Copy)]
pub struct SiteRef {
    file: *const c_char,
    line: u32,
}

impl SiteRef {
    /// A site in `file` (e.g. `c"src/enemy.rs"`, or `file!()` made a
    /// C string) at `line`.
    pub fn new(file: &'static CStr, line: u32) -> SiteRef {
        SiteRef { file: file.as_ptr(), line }
    }

    /// A site from a C caller; `None` for a null `file`.
    ///
    /// # Safety
    /// `file` is null or a NUL-terminated string that stays valid and
    /// unchanged while the runtime it is given to lives (`__FILE__`, a
    /// `std::source_location`'s file name).
    #[inline(always)]
    pub unsafe fn from_raw(file: *const c_char, line: u32) -> Option<SiteRef> {
        (!file.is_null()).then_some(SiteRef { file, line })
    }

    fn file(&self) -> &CStr {
        // SAFETY: see `from_raw` / `new`.
        unsafe { CStr::from_ptr(self.file) }
    }
}

/// One line of the report: the live tasks made at one site (of those old
/// enough), and what they are doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SiteCount {
    /// The site's id: [`SITE_NONE`] for tasks without a site,
    /// [`SITE_OVERFLOW`] for sites past the table, else 1..=[`MAX_SITES`].
    pub site: u32,
    pub line: u32,
    /// The file, NUL-terminated, valid while the runtime lives (null for
    /// [`SITE_NONE`] and [`SITE_OVERFLOW`]).
    pub file: *const c_char,
    /// Live tasks (created, not consumed) counted in this line.
    pub tasks: u64,
    /// Of those, not completed yet.
    pub pending: u64,
    /// Of those, completed and never consumed.
    pub completed: u64,
    /// Of those, with a continuation (awaited, a callback wait, or owned by
    /// a combinator).
    pub awaited: u64,
    /// Age in frames of the oldest and the newest (`u64::MAX`: unknown, for
    /// [`SITE_NONE`]).
    pub oldest_age: u64,
    pub newest_age: u64,
}

impl Default for SiteCount {
    fn default() -> Self {
        SiteCount {
            site: SITE_NONE,
            line: 0,
            file: std::ptr::null(),
            tasks: 0,
            pending: 0,
            completed: 0,
            awaited: 0,
            oldest_age: 0,
            newest_age: u64::MAX,
        }
    }
}

struct Interned {
    file: CString,
    line: u32,
}

#[derive(Clone, Copy, Default)]
struct Key {
    ptr: usize,
    line: u32,
    /// 0: empty.
    id: u32,
}

/// The side record of a task slot.
#[derive(Clone, Copy, Default)]
struct SlotSite {
    /// The slot's generation when the record was written (odd: live).
    gen: u32,
    site: u32,
    frame: u64,
    /// A callback wait's callback and user pointer (see [`callback_wait`]).
    callback: Option<CallbackFn>,
    user: usize,
}

/// Every site of a runtime, the side records and the report's storage.
/// Owner thread only.
#[derive(Default)]
pub struct Sites {
    /// Capture is on: `_at` calls record their site.
    pub on: bool,
    sites: Vec<Interned>,
    keys: Vec<Key>,
    key_count: usize,
    slots: Vec<SlotSite>,
    /// Per site (index: 0 none, 1..=n, n + 1 overflow), during a report.
    agg: Vec<SiteCount>,
    order: Vec<u32>,
}

/// `file` copied, or `None` when out of memory.
fn try_cstring(file: &CStr) -> Option<CString> {
    let bytes = file.to_bytes_with_nul();
    let mut v = fallible::vec_with_capacity(bytes.len()).ok()?;
    v.extend_from_slice(bytes);
    CString::from_vec_with_nul(v).ok()
}

#[inline(always)]
fn key_hash(ptr: usize, line: u32) -> usize {
    let h = (ptr as u64 ^ (line as u64).rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 40) as usize
}

impl Sites {
    /// Turns capture on or off; the tables are allocated the first time
    /// (`OutOfMemory`: capture stays as it was).
    pub fn set(&mut self, on: bool) -> Result<()> {
        if on && self.keys.is_empty() {
            let mut keys = fallible::vec_with_capacity(KEY_SLOTS)?;
            keys.resize(KEY_SLOTS, Key::default());
            fallible::reserve(&mut self.sites, 64)?;
            self.keys = keys;
        }
        self.on = on;
        Ok(())
    }

    /// The id of a site (interned on first sight). Capture must be on.
    pub fn intern(&mut self, site: SiteRef) -> u32 {
        let (ptr, line) = (site.file as usize, site.line);
        let mask = KEY_SLOTS - 1;
        let mut i = key_hash(ptr, line) & mask;
        loop {
            let k = self.keys[i];
            if k.id == 0 {
                break;
            }
            if k.ptr == ptr && k.line == line {
                return k.id;
            }
            i = (i + 1) & mask;
        }
        self.intern_new(site, ptr, i)
    }

    #[cold]
    #[inline(never)]
    fn intern_new(&mut self, site: SiteRef, ptr: usize, free: usize) -> u32 {
        let file = site.file();
        let known = self.sites.iter().position(|s| s.line == site.line && s.file.as_c_str() == file);
        let id = match known {
            Some(p) => p as u32 + 1,
            None if self.sites.len() < MAX_SITES as usize => {
                // Out of memory: the task is recorded without a site (the
                // report's "unknown" line); a later call tries again.
                let Some(file) = try_cstring(file) else { return SITE_NONE };
                if fallible::reserve(&mut self.sites, 1).is_err() {
                    return SITE_NONE;
                }
                self.sites.push(Interned { file, line: site.line });
                self.sites.len() as u32
            }
            None => return SITE_OVERFLOW,
        };
        // A full address table only costs later calls this search.
        if self.key_count < KEY_SLOTS * 3 / 4 {
            self.keys[free] = Key { ptr, line: site.line, id };
            self.key_count += 1;
        }
        id
    }

    /// Records that the task in slot `idx` (generation `gen`) was made at
    /// `site` in `frame`.
    /// False (nothing recorded: the task has no known site) when the side
    /// table cannot grow.
    #[inline]
    pub fn record(&mut self, idx: u32, gen: u32, site: u32, frame: u64, slots: u32) -> bool {
        if idx as usize >= self.slots.len() {
            let len = slots.max(idx + 1) as usize;
            let extra = len - self.slots.len();
            if fallible::reserve(&mut self.slots, extra).is_err() {
                return false;
            }
            self.slots.resize(len, SlotSite::default());
        }
        self.slots[idx as usize] = SlotSite { gen, site, frame, callback: None, user: 0 };
        true
    }

    /// The site and creation frame of the task in slot `idx` whose
    /// generation is `gen` (`None`: unknown).
    #[inline]
    fn of(&self, idx: u32, gen: u32) -> Option<(u32, u64)> {
        let r = self.slots.get(idx as usize)?;
        (r.gen == gen && r.site != SITE_NONE).then_some((r.site, r.frame))
    }

    /// The file and line of site `id`.
    pub fn describe(&self, id: u32) -> Option<(&CStr, u32)> {
        let s = self.sites.get((id as usize).checked_sub(1)?)?;
        Some((s.file.as_c_str(), s.line))
    }

    /// Sites interned so far.
    pub fn count(&self) -> usize {
        self.sites.len()
    }

    fn agg_index(&self, site: u32) -> usize {
        if site == SITE_OVERFLOW {
            self.sites.len() + 1
        } else {
            site as usize
        }
    }
}

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
        let frame = inner.timings.host_frame;
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
        if !self.capturing(&site) {
            return self.create_task_with(take);
        }
        let h = self.create_task()?;
        self.record_site(h, site);
        take(h);
        Ok(())
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
        if !self.capturing(&site) {
            return self.create_completed_with(state, value, error, take);
        }
        let h = self.create_completed(state, value, error)?;
        self.record_site(h, site);
        take(h);
        Ok(())
    }

    /// [`Runtime::when_any`] at `site`.
    pub fn when_any_at(&self, inputs: &[u64], token: u64, site: Option<SiteRef>) -> Result<u64> {
        let h = self.when_any(inputs, token)?;
        self.record_site(h, site);
        Ok(h)
    }

    /// [`Runtime::when_all`] at `site`.
    pub fn when_all_at(&self, inputs: &[u64], token: u64, site: Option<SiteRef>) -> Result<u64> {
        let h = self.when_all(inputs, token)?;
        self.record_site(h, site);
        Ok(h)
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
        let now = inner.timings.host_frame;
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
