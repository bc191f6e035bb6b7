//! The integration tests, as one binary: each file below was a test binary of its
//! own, and every one of them linked timely and differential dataflow again. One
//! binary links them once (the release test build is several minutes shorter).
//!
//! `common` is the reference evaluator and program generators; `sudoku_common` the
//! Sudoku oracles (a brute-force solver that the product never uses) and helpers to
//! run the binary.

mod common;
mod sudoku_common;

mod aggregate_scope;
mod board_browser;
mod board_server;
mod cli;
mod diagnostics;
mod edit_property;
mod edit_session;
#[cfg(target_os = "linux")]
mod edit_terminal;
mod engine_differential;
mod engine_incremental;
mod examples;
mod explain_log;
mod fuzz;
mod grading;
mod naive_selfcheck;
mod sudoku_samples;
mod sudoku_search;
mod sudoku_soundness;
mod sudoku_techniques;
mod sudoku_variants;
mod symbol_order;
