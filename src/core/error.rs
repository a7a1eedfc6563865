//! Errors of the core runtime. The C layer maps each to an `OnityStatus`.

/// Why a runtime operation was refused. Refused operations change nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// 0, malformed, or a handle of another kind.
    InvalidHandle,
    /// The slot was retired (consumed, destroyed) since the handle was issued.
    StaleHandle,
    /// The handle was issued by another runtime.
    ForeignHandle,
    /// Owner-thread operation called from another thread.
    WrongThread,
    /// Enum value or number out of range (timing, clock, negative delay...).
    InvalidArgument,
    /// Zero inputs, or more than the documented maximum.
    CountOutOfRange,
    /// The same task twice in a combinator's inputs.
    DuplicateInput,
    /// Consume of a task that has not completed.
    TaskPending,
    /// A second completion: the first one won.
    AlreadyCompleted,
    /// A second continuation, or a task owned by a combinator.
    AlreadyAwaited,
    /// Nested tick / frame begin, or a call that would add work while the
    /// runtime is being destroyed.
    Reentrant,
    /// Frame numbers must increase strictly.
    FrameOrder,
    /// A fixed limit was reached (task table full).
    Exhausted,
    /// The global allocator refused memory; nothing was changed.
    OutOfMemory,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
