//! Allocation that reports failure instead of aborting.
//!
//! `Box::new`, `Vec::push` and friends call `handle_alloc_error` when the
//! global allocator refuses memory, which aborts the process. Every
//! allocation a runtime makes on behalf of a call goes through these
//! instead (or through `Vec::try_reserve`), so the call returns
//! [`Error::OutOfMemory`] and changes nothing.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

use super::error::{Error, Result};

/// `Box::new(make())`, or `OutOfMemory` (then `make` is not called).
pub fn try_box<T>(make: impl FnOnce() -> T) -> Result<Box<T>> {
    let layout = Layout::new::<T>();
    if layout.size() == 0 {
        return Ok(Box::new(make()));
    }
    // SAFETY: a non-zero size.
    let p = unsafe { alloc::alloc(layout) } as *mut T;
    if p.is_null() {
        return Err(Error::OutOfMemory);
    }
    // SAFETY: `p` is a fresh allocation of `T`'s layout; `Box` owns it.
    unsafe {
        p.write(make());
        Ok(Box::from_raw(p))
    }
}

/// A `len`-element allocation for `T`, every element `make()`, as the
/// pointer a `Box<[T]>` of that length would hold; or `OutOfMemory`.
/// Free it with `Box::from_raw(slice_from_raw_parts_mut(p, len))`.
pub fn try_slice<T>(len: usize, mut make: impl FnMut() -> T) -> Result<NonNull<T>> {
    let layout = Layout::array::<T>(len).map_err(|_| Error::OutOfMemory)?;
    if layout.size() == 0 {
        let b: Box<[T]> = (0..len).map(|_| make()).collect();
        // SAFETY: `Box::into_raw` is never null.
        return Ok(unsafe { NonNull::new_unchecked(Box::into_raw(b) as *mut T) });
    }
    // SAFETY: a non-zero size.
    let p = unsafe { alloc::alloc(layout) } as *mut T;
    let p = NonNull::new(p).ok_or(Error::OutOfMemory)?;
    for i in 0..len {
        // SAFETY: `i < len`: inside the allocation, written once.
        unsafe { p.as_ptr().add(i).write(make()) };
    }
    Ok(p)
}

/// A `Box<[T]>` of `len` elements, each `make()`; or `OutOfMemory`.
pub fn try_boxed_slice<T>(len: usize, make: impl FnMut() -> T) -> Result<Box<[T]>> {
    let p = try_slice(len, make)?;
    // SAFETY: `try_slice` made `len` initialised elements with the layout a
    // `Box<[T]>` of that length uses.
    Ok(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(p.as_ptr(), len)) })
}

/// Room for `extra` more elements in `v`, or `OutOfMemory`.
#[inline]
pub fn reserve<T>(v: &mut Vec<T>, extra: usize) -> Result<()> {
    if v.capacity() - v.len() >= extra {
        return Ok(());
    }
    v.try_reserve(extra).map_err(|_| Error::OutOfMemory)
}

/// `Vec::with_capacity(n)`, or `OutOfMemory`.
pub fn vec_with_capacity<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::OutOfMemory)?;
    Ok(v)
}
