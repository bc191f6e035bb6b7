//! sudolog: a reasoning engine whose rules are Datalog programs compiled at run time
//! onto differential dataflow.
//!
//! The pipeline reads from the module names:
//! program text -> [`syntax`] -> [`check`]ed program -> [`plan`] -> [`dataflow`] ->
//! [`session`] (inputs in, changes and explain events out). The engine knows
//! nothing about Sudoku; [`sudoku`] is its first client (grids to facts, facts to
//! grids, explain logs and dumps) and knows nothing about timely.

pub mod check;
pub mod dataflow;
pub mod diag;
pub mod facts;
pub mod plan;
pub mod session;
pub mod sudoku;
pub mod syntax;
pub mod web;

/// The most columns a relation may have, and the most variables a rule may hold at
/// once (rows are fixed-width arrays of this many values).
pub const MAX_ARITY: usize = 8;
