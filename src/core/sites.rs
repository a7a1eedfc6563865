//! Creation sites (issue 20 #1): where tasks and waits were made, and the
//! live-task report grouped by site.
//!
//! # Design
//!
//! - **Opt-in per call, off per runtime by default.** The `_at` operations
//!   ([`Runtime::create_task_at`](crate::core::Runtime::create_task_at), [`Runtime::wait_at`](crate::core::Runtime::wait_at), ...) take a
//!   [`SiteRef`] (file, line: what `__FILE__` / `__LINE__` or a
//!   `std::source_location` give). The plain operations are untouched: they
//!   cost exactly what they did (no test, no store). While capture is off
//!   (the default, [`Runtime::set_site_capture`](crate::core::Runtime::set_site_capture)), an `_at` operation is its
//!   plain operation plus one test.
//! - **Interned per runtime.** A site is found by the address of its file
//!   string and its line (one hash probe); a file string seen for the first
//!   time is compared with the known ones by content (two translation units'
//!   `__FILE__` of one header are one file) and copied once per distinct
//!   name (sites of one file share its copy), at most
//!   [`MAX_SITE_FILE_BYTES`] bytes of it: a longer name is cut there, and
//!   never read further. So the file string must not change while the
//!   runtime lives: a literal (`__FILE__`) or a `source_location`'s file
//!   name. At most [`MAX_SITES`] sites; later ones are counted under
//!   [`SITE_OVERFLOW`] (their file and line are not kept).
//! - **Per task slot, not per task.** Each task slot has a side record
//!   (slot generation, site, creation frame), written by the `_at` call; a
//!   record whose generation is not the slot's is stale (the slot was reused
//!   by a plain call), so the task's site is unknown ([`SITE_NONE`]).
//! - **Callback waits** carry a site as a task wait with an ordinary
//!   continuation (`callback_wait` in `runtime_sites.rs`, the callback and its user pointer in
//!   the side record) that consumes the task and calls the callback with 0:
//!   the same queue, order, cancellation and destruction rules, and no
//!   continuation kind of their own (the dispatch of the others is
//!   untouched).
//! - **The report** ([`Runtime::site_report`](crate::core::Runtime::site_report)) scans the live task slots
//!   once, aggregates per site into storage kept from the last report, and
//!   sorts the sites by task count: no allocation after the first report.

use std::ffi::{c_char, CStr, CString};

use super::error::Result;
use super::fallible;
use super::types::CallbackFn;

/// Most distinct sites a runtime interns.
pub const MAX_SITES: u32 = 4096;
/// Most bytes of a site's file name read and kept (the NUL excluded): a
/// longer name is cut to its first `MAX_SITE_FILE_BYTES` bytes.
pub const MAX_SITE_FILE_BYTES: usize = 4096;
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
    /// `file` is null or a NUL-terminated string (read up to its NUL or
    /// [`MAX_SITE_FILE_BYTES`] bytes, whichever comes first) that stays
    /// valid and unchanged while the runtime it is given to lives
    /// (`__FILE__`, a `std::source_location`'s file name).
    #[inline(always)]
    pub unsafe fn from_raw(file: *const c_char, line: u32) -> Option<SiteRef> {
        (!file.is_null()).then_some(SiteRef { file, line })
    }

    /// The file name's bytes up to its NUL, at most
    /// [`MAX_SITE_FILE_BYTES`] (`strnlen`: nothing past them is read).
    fn file_bytes(&self) -> &[u8] {
        let mut len = 0;
        // SAFETY: see `from_raw` / `new`: readable up to its NUL, and this
        // stops there or at the bound.
        while len < MAX_SITE_FILE_BYTES && unsafe { *self.file.add(len) } != 0 {
            len += 1;
        }
        // SAFETY: the `len` bytes just read.
        unsafe { std::slice::from_raw_parts(self.file.cast::<u8>(), len) }
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

pub(super) struct Interned {
    /// Index in [`Sites::files`].
    file: u32,
    line: u32,
}

/// A distinct file name, copied once, and the address it was first seen at.
struct FileName {
    ptr: usize,
    name: CString,
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
pub(super) struct SlotSite {
    /// The slot's generation when the record was written (odd: live).
    pub(super) gen: u32,
    pub(super) site: u32,
    pub(super) frame: u64,
    /// A callback wait's callback and user pointer (see [`callback_wait`]).
    pub(super) callback: Option<CallbackFn>,
    pub(super) user: usize,
}

/// Every site of a runtime, the side records and the report's storage.
/// Owner thread only.
#[derive(Default)]
pub struct Sites {
    /// Capture is on: `_at` calls record their site.
    pub on: bool,
    pub(super) sites: Vec<Interned>,
    /// The distinct file names of `sites`.
    files: Vec<FileName>,
    keys: Vec<Key>,
    key_count: usize,
    pub(super) slots: Vec<SlotSite>,
    /// Per site (index: 0 none, 1..=n, n + 1 overflow), during a report.
    pub(super) agg: Vec<SiteCount>,
    pub(super) order: Vec<u32>,
}

/// `file` (no NUL inside) copied with a NUL, or `None` when out of memory.
fn try_cstring(file: &[u8]) -> Option<CString> {
    let mut v = fallible::vec_with_capacity(file.len() + 1).ok()?;
    v.extend_from_slice(file);
    v.push(0);
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
        let bytes = site.file_bytes();
        // A name is known by the address it was first seen at (unchanged
        // while the runtime lives) or by its content.
        let file = self.files.iter().position(|f| f.ptr == ptr || f.name.as_bytes() == bytes);
        let known = file.and_then(|f| self.sites.iter().position(|s| s.line == site.line && s.file as usize == f));
        let id = match known {
            Some(p) => p as u32 + 1,
            None if self.sites.len() < MAX_SITES as usize => {
                // Out of memory: the task is recorded without a site (the
                // report's "unknown" line); a later call tries again.
                if fallible::reserve(&mut self.sites, 1).is_err() {
                    return SITE_NONE;
                }
                let file = match file {
                    Some(f) => f,
                    None => {
                        let Some(name) = try_cstring(bytes) else { return SITE_NONE };
                        if fallible::reserve(&mut self.files, 1).is_err() {
                            return SITE_NONE;
                        }
                        self.files.push(FileName { ptr, name });
                        self.files.len() - 1
                    }
                };
                self.sites.push(Interned { file: file as u32, line: site.line });
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
    pub(super) fn of(&self, idx: u32, gen: u32) -> Option<(u32, u64)> {
        let r = self.slots.get(idx as usize)?;
        (r.gen == gen && r.site != SITE_NONE).then_some((r.site, r.frame))
    }

    /// The file and line of site `id`.
    pub fn describe(&self, id: u32) -> Option<(&CStr, u32)> {
        let s = self.sites.get((id as usize).checked_sub(1)?)?;
        Some((self.files[s.file as usize].name.as_c_str(), s.line))
    }

    /// Sites interned so far.
    pub fn count(&self) -> usize {
        self.sites.len()
    }

    /// Distinct file names kept (one copy each).
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    pub(super) fn agg_index(&self, site: u32) -> usize {
        if site == SITE_OVERFLOW {
            self.sites.len() + 1
        } else {
            site as usize
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An unterminated file name is read up to the bound and no further
    /// (Miri reports a read past the buffer), and kept cut there.
    #[test]
    fn a_file_name_is_read_and_kept_up_to_the_bound() {
        let long = vec![b'a'; MAX_SITE_FILE_BYTES];
        let mut sites = Sites::default();
        sites.set(true).unwrap();
        // SAFETY: readable for the bound (the contract's NUL is missing on
        // purpose: the bound alone keeps the read inside).
        let site = unsafe { SiteRef::from_raw(long.as_ptr().cast(), 1) }.unwrap();
        let id = sites.intern(site);
        assert_eq!(sites.describe(id).unwrap().0.to_bytes(), &long[..]);
    }

    /// Sites of one file name keep one copy of it, whatever address they
    /// give it at; distinct names one each.
    #[test]
    fn equal_file_names_are_kept_once() {
        let (a, b, other) = (c"src/enemy.c".to_owned(), c"src/enemy.c".to_owned(), c"src/spawner.c".to_owned());
        let mut sites = Sites::default();
        sites.set(true).unwrap();
        for line in 1..=40 {
            for f in [&a, &b, &other] {
                // SAFETY: the strings outlive `sites`.
                sites.intern(unsafe { SiteRef::from_raw(f.as_ptr(), line) }.unwrap());
            }
        }
        assert_eq!((sites.count(), sites.file_count()), (80, 2));
        let file = |id| sites.describe(id).unwrap().0.as_ptr();
        assert!((1..=80).filter(|&id| sites.describe(id).unwrap().0 == a.as_c_str()).all(|id| file(id) == file(1)));
    }
}
