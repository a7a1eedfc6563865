//! External pool sources (ABI 1.2): pools the runtime does not own (the C++
//! coroutine layer's frame pool, an engine's job pool) reported beside its
//! own in the statistics.
//!
//! A source is a name and a function that fills an [`PoolStats`] when the
//! statistics are read. At most [`MAX_POOL_SOURCES`] per runtime; ids are
//! never reused while the runtime lives. The functions run on the owner
//! thread inside `stats`, as host callbacks: they may read the runtime but
//! not add or remove sources (`Reentrant`), and the runtime cannot be
//! destroyed under them.

use std::ffi::{c_void, CStr, CString};

use super::error::{Error, Result};
use super::pool::PoolStats;
use super::runtime::Runtime;

/// Most pool sources a runtime has at once.
pub const MAX_POOL_SOURCES: usize = 16;
/// Longest source name, in bytes (without the NUL).
pub const MAX_POOL_SOURCE_NAME: usize = 63;

/// Fills `*out` (zeroed before the call) with the source's counters.
pub type PoolSourceFn = unsafe extern "C" fn(user: *mut c_void, out: *mut PoolStats);

struct Source {
    id: u32,
    name: CString,
    f: PoolSourceFn,
    user: *mut c_void,
}

/// The sources of a runtime. Owner thread only.
#[derive(Default)]
pub struct PoolSources {
    list: Vec<Source>,
    next_id: u32,
    /// The functions are running (`stats`): no change.
    busy: bool,
}

impl Runtime {
    /// Adds a pool source named `name` (1 to 63 bytes, else
    /// `InvalidArgument`); returns its id (never 0). `Exhausted` with 16
    /// sources, `Reentrant` from inside a source's function. Owner thread.
    pub fn add_pool_source(&self, name: &CStr, f: PoolSourceFn, user: *mut c_void) -> Result<u32> {
        self.check_owner()?;
        let len = name.to_bytes().len();
        if len == 0 || len > MAX_POOL_SOURCE_NAME {
            return Err(Error::InvalidArgument);
        }
        // SAFETY: owner thread, short borrow.
        let s = &mut unsafe { self.inner() }.pool_sources;
        if s.busy {
            return Err(Error::Reentrant);
        }
        if s.list.len() >= MAX_POOL_SOURCES {
            return Err(Error::Exhausted);
        }
        s.next_id = s.next_id.checked_add(1).ok_or(Error::Exhausted)?;
        s.list.reserve_exact(MAX_POOL_SOURCES);
        s.list.push(Source { id: s.next_id, name: name.to_owned(), f, user });
        Ok(s.next_id)
    }

    /// Removes source `id`: `InvalidHandle` if there is none (0, removed,
    /// never added), `Reentrant` from inside a source's function. Allowed
    /// while the runtime is being destroyed. Owner thread.
    pub fn remove_pool_source(&self, id: u32) -> Result<()> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow.
        let s = &mut unsafe { self.inner() }.pool_sources;
        if s.busy {
            return Err(Error::Reentrant);
        }
        let i = s.list.iter().position(|x| x.id == id).ok_or(Error::InvalidHandle)?;
        s.list.remove(i);
        Ok(())
    }

    /// The name of source `id` (valid until it is removed).
    pub fn pool_source_name(&self, id: u32) -> Result<&CStr> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow; the name's bytes live in their
        // own allocation until the source is removed.
        let s = &unsafe { self.inner() }.pool_sources;
        let src = s.list.iter().find(|x| x.id == id).ok_or(Error::InvalidHandle)?;
        // SAFETY: as said (the borrow of the list ends here).
        Ok(unsafe { CStr::from_ptr(src.name.as_ptr()) })
    }

    /// Reads every source, in the order they were added: `out[i]` and
    /// `ids[i]`; returns how many. Calls the host's functions (owner
    /// thread).
    pub fn pool_source_stats(
        &self,
        out: &mut [PoolStats; MAX_POOL_SOURCES],
        ids: &mut [u32; MAX_POOL_SOURCES],
    ) -> Result<usize> {
        self.check_owner()?;
        let mut calls: [(u32, Option<PoolSourceFn>, *mut c_void); MAX_POOL_SOURCES] =
            [(0, None, std::ptr::null_mut()); MAX_POOL_SOURCES];
        let n = {
            // SAFETY: owner thread, short borrow.
            let s = &mut unsafe { self.inner() }.pool_sources;
            if s.busy {
                return Err(Error::Reentrant);
            }
            for (c, src) in calls.iter_mut().zip(s.list.iter()) {
                *c = (src.id, Some(src.f), src.user);
            }
            s.busy = true;
            s.list.len()
        };
        /// Clears `busy` even if a function unwinds.
        struct Busy<'a>(&'a Runtime);
        impl Drop for Busy<'_> {
            fn drop(&mut self) {
                // SAFETY: owner thread (created below, on it).
                unsafe { self.0.inner() }.pool_sources.busy = false;
            }
        }
        let _busy = Busy(self);
        for (i, &(id, f, user)) in calls[..n].iter().enumerate() {
            let mut st = PoolStats::default();
            if let Some(f) = f {
                // SAFETY (all three): owner thread, short borrows; the host
                // promised `f` is callable with `user` until removed, and
                // removal is refused while `busy`.
                unsafe { self.inner().depth += 1 };
                unsafe { f(user, &mut st) };
                unsafe { self.inner().depth -= 1 };
            }
            out[i] = st;
            ids[i] = id;
        }
        Ok(n)
    }
}
