//! The one mapping from core errors to [`OnityStatus`], and the one way an
//! export writes an output (after wasmtime's `handle_result` and rustls-ffi's
//! `error.rs`).
//!
//! An export's body returns `Result<(), OnityStatus>`: `?` on a core result
//! maps its error here, and outputs are [`Out`]s, checked for null before
//! the operation runs and written only by [`Out::set`] with the success
//! value, so an output is never written on error, by construction.

use super::status::OnityStatus;
use crate::core::frame_alloc::AllocError;
use crate::core::Error;

impl From<Error> for OnityStatus {
    #[inline]
    fn from(e: Error) -> Self {
        match e {
            Error::InvalidHandle => OnityStatus::InvalidHandle,
            Error::StaleHandle => OnityStatus::StaleHandle,
            Error::ForeignHandle => OnityStatus::ForeignHandle,
            Error::WrongThread => OnityStatus::WrongThread,
            Error::InvalidArgument => OnityStatus::InvalidArgument,
            Error::CountOutOfRange => OnityStatus::CountOutOfRange,
            Error::DuplicateInput => OnityStatus::DuplicateInput,
            Error::TaskPending => OnityStatus::TaskPending,
            Error::AlreadyCompleted => OnityStatus::AlreadyCompleted,
            Error::AlreadyAwaited => OnityStatus::AlreadyAwaited,
            Error::Reentrant => OnityStatus::Reentrant,
            Error::FrameOrder => OnityStatus::FrameOrder,
            Error::Exhausted => OnityStatus::Exhausted,
            Error::OutOfMemory => OnityStatus::OutOfMemory,
        }
    }
}

impl From<AllocError> for OnityStatus {
    #[inline]
    fn from(e: AllocError) -> Self {
        match e {
            AllocError::ZeroSize => OnityStatus::InvalidArgument,
            AllocError::InvalidAlignment => OnityStatus::InvalidAlignment,
            AllocError::TooLarge => OnityStatus::CountOutOfRange,
            AllocError::Exhausted => OnityStatus::Exhausted,
            AllocError::OutOfMemory => OnityStatus::OutOfMemory,
        }
    }
}

/// The status of a rejected record of a batch (`OnityResume::status`).
pub(crate) fn status_code(e: Error) -> u32 {
    OnityStatus::from(e) as u32
}

/// An output parameter: a checked non-null pointer, written once, with a
/// success value.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    /// `NullPointer` for a null pointer.
    #[inline(always)]
    pub fn new(p: *mut T) -> Result<Out<T>, OnityStatus> {
        if p.is_null() {
            Err(OnityStatus::NullPointer)
        } else {
            Ok(Out(p))
        }
    }

    /// An output the caller may omit (null): `None` then.
    #[inline(always)]
    pub fn optional(p: *mut T) -> Option<Out<T>> {
        (!p.is_null()).then_some(Out(p))
    }

    /// Writes `v` to an output the caller may omit: nothing when `p` is null.
    #[inline(always)]
    pub fn put_optional(p: *mut T, v: T) {
        if let Some(out) = Out::optional(p) {
            out.put(v);
        }
    }

    /// Writes the success value; the export then returns `OK`.
    #[inline(always)]
    pub fn set(self, v: T) -> Result<(), OnityStatus> {
        self.put(v);
        Ok(())
    }

    /// Writes the success value from inside a core call that hands it over
    /// only on success (the `_with` operations).
    #[inline(always)]
    pub fn put(self, v: T) {
        // SAFETY: non-null (checked in `new`); the C caller provides a
        // writable `T` (the documented contract of every output).
        unsafe { self.0.write(v) };
    }
}

/// An array of `capacity` elements the caller provides: `NullPointer` when
/// it is null with a non-zero capacity (it may be null when it is 0).
#[inline(always)]
pub(crate) fn array_arg<T>(p: *const T, capacity: usize) -> Result<(), OnityStatus> {
    if capacity != 0 && p.is_null() {
        return Err(OnityStatus::NullPointer);
    }
    Ok(())
}

/// The exports that write up to `capacity` elements to the caller's array
/// `p` and the total to `*out_count` (which may exceed `capacity`): both
/// checked ([`array_arg`]), then `fill(capacity)` writes the elements and
/// returns the total (saturated at `u32::MAX`).
#[inline(always)]
pub(crate) fn fill_array<T>(
    p: *mut T,
    capacity: u32,
    out_count: *mut u32,
    fill: impl FnOnce(usize) -> Result<usize, OnityStatus>,
) -> Result<(), OnityStatus> {
    let out = Out::new(out_count)?;
    array_arg(p, capacity as usize)?;
    out.set(fill(capacity as usize)?.min(u32::MAX as usize) as u32)
}

/// An enum-valued input: `InvalidArgument` when it is out of range. The
/// error is made out of line, so that a hot export does not load the status
/// before its check (one instruction on every wait).
#[inline(always)]
pub(crate) fn arg<T>(v: Option<T>) -> Result<T, OnityStatus> {
    match v {
        Some(v) => Ok(v),
        None => Err(invalid_argument()),
    }
}

#[cold]
#[inline(never)]
fn invalid_argument() -> OnityStatus {
    OnityStatus::InvalidArgument
}
