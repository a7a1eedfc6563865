//! Status codes returned by every fallible exported function.

/// Status returned by every fallible `onity_*` function. Values are explicit
/// and stable; new values are only ever appended.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnityStatus {
    /// The call succeeded.
    Ok = 0,
    /// A required pointer argument was null.
    NullPointer = 1,
    /// The handle is 0, malformed, or of the wrong kind (e.g. a cancellation
    /// source where a task was expected).
    InvalidHandle = 2,
    /// The handle's slot has been retired and possibly reused: the task was
    /// already consumed, or the source destroyed.
    StaleHandle = 3,
    /// The handle was issued by a different runtime.
    ForeignHandle = 4,
    /// The call must be made on the runtime's owner thread.
    WrongThread = 5,
    /// An enum-valued argument (timing, clock, ...) is out of range.
    InvalidArgument = 6,
    /// A count is zero or above the documented limit.
    CountOutOfRange = 7,
    /// The same task appears more than once in a combinator's inputs.
    DuplicateInput = 8,
    /// The task is still pending: it cannot be consumed yet.
    TaskPending = 9,
    /// The task has already completed: the first completion wins.
    AlreadyCompleted = 10,
    /// The task has (or had) a continuation, or is owned by a combinator.
    AlreadyAwaited = 11,
    /// The config or struct `size` field does not match a known layout.
    SizeMismatch = 12,
    /// The call is not allowed while the runtime is ticking that timing
    /// (re-entrant tick) or is being destroyed.
    Reentrant = 13,
    /// Frame numbers must increase strictly from one frame to the next.
    FrameOrder = 14,
    /// A Rust panic was caught at the boundary. The runtime is still usable
    /// but the operation did not complete.
    Panic = 15,
    /// A capacity limit was reached (task table full, allocator cap).
    Exhausted = 16,
    /// The runtime pointer is not a live runtime: garbage, misaligned,
    /// unmapped, a copy of a runtime, or a destroyed runtime. Checked
    /// against the table of live runtimes without reading through the
    /// pointer. A destroyed runtime's pointer stays INVALID_RUNTIME until
    /// its table entry is reused: entries are handed out round robin, so
    /// every other free entry is used first (254 creations when no other
    /// runtime is alive, fewer while some are); from then on it designates
    /// the new runtime (the old runtime's handles are STALE_HANDLE there).
    /// The check covers a destroy that happened before the call, not one
    /// racing it: no call may overlap the destruction of the runtime its
    /// pointer designates, stale pointers included.
    InvalidRuntime = 17,
    /// The requested alignment is not a power of two or is above 4096.
    InvalidAlignment = 18,
    /// The operating system refused memory.
    OutOfMemory = 19,
}

/// Every status, in value order (checked below: entry `i` has value `i`).
pub(crate) const ALL_STATUSES: [OnityStatus; 20] = [
    OnityStatus::Ok,
    OnityStatus::NullPointer,
    OnityStatus::InvalidHandle,
    OnityStatus::StaleHandle,
    OnityStatus::ForeignHandle,
    OnityStatus::WrongThread,
    OnityStatus::InvalidArgument,
    OnityStatus::CountOutOfRange,
    OnityStatus::DuplicateInput,
    OnityStatus::TaskPending,
    OnityStatus::AlreadyCompleted,
    OnityStatus::AlreadyAwaited,
    OnityStatus::SizeMismatch,
    OnityStatus::Reentrant,
    OnityStatus::FrameOrder,
    OnityStatus::Panic,
    OnityStatus::Exhausted,
    OnityStatus::InvalidRuntime,
    OnityStatus::InvalidAlignment,
    OnityStatus::OutOfMemory,
];

const _: () = {
    let mut i = 0;
    while i < ALL_STATUSES.len() {
        assert!(ALL_STATUSES[i] as usize == i);
        i += 1;
    }
};

impl OnityStatus {
    /// The status with this value, if any.
    pub fn from_u32(v: u32) -> Option<OnityStatus> {
        ALL_STATUSES.get(v as usize).copied()
    }

    /// A NUL-terminated English description.
    pub fn text(self) -> &'static str {
        match self {
            OnityStatus::Ok => "ok\0",
            OnityStatus::NullPointer => "a required pointer argument was null\0",
            OnityStatus::InvalidHandle => "invalid handle: 0, malformed or of the wrong kind\0",
            OnityStatus::StaleHandle => "stale handle: the task was already consumed or the object destroyed\0",
            OnityStatus::ForeignHandle => "the handle belongs to another runtime\0",
            OnityStatus::WrongThread => "this call must be made on the runtime's owner thread\0",
            OnityStatus::InvalidArgument => "an enum or numeric argument is out of range\0",
            OnityStatus::CountOutOfRange => "count is zero or above the documented limit\0",
            OnityStatus::DuplicateInput => "the same task appears twice in the inputs\0",
            OnityStatus::TaskPending => "the task has not completed yet\0",
            OnityStatus::AlreadyCompleted => "the task has already completed\0",
            OnityStatus::AlreadyAwaited => "the task already has a continuation or belongs to a combinator\0",
            OnityStatus::SizeMismatch => "the struct size field does not match\0",
            OnityStatus::Reentrant => "not allowed re-entrantly or while the runtime closes\0",
            OnityStatus::FrameOrder => "frame numbers must increase\0",
            OnityStatus::Panic => "a panic was caught at the C boundary\0",
            OnityStatus::Exhausted => "a capacity limit was reached\0",
            OnityStatus::InvalidRuntime => "the runtime pointer is not a live runtime\0",
            OnityStatus::InvalidAlignment => "alignment must be a power of two up to 4096\0",
            OnityStatus::OutOfMemory => "the operating system refused memory\0",
        }
    }
}
