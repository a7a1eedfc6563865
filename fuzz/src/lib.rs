//! The model-checked C-ABI interpreter the fuzz target runs (see
//! `model/mod.rs`); `tests/fuzz_replay.rs` includes the same files.

pub mod model;
