//! Sudoku on the engine.
//!
//! The rules live in the Datalog programs under `datalog/` (embedded in the binary,
//! replaceable with `--rules`). This layer only translates: [`board`] turns grids into
//! facts (`cell`, `digit`, `given`, `member`, `group`) and the session's output
//! relations back into grids, candidates and statuses; [`explain`] renders explain
//! events as log lines; [`search`] drives depth-first search by inserting and
//! retracting `guess` facts; [`batch`] streams files of puzzles through the engine in
//! bounded chunks. Nothing here knows about timely or differential dataflow.

pub mod batch;
pub mod board;
pub mod dump;
pub mod edit;
pub mod explain;
pub mod grade;
pub mod grid;
pub mod puzzle;
pub mod rules;
pub mod samples;
pub mod search;
