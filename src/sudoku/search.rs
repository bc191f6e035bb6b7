//! Depth-first search on top of the rules, the IBM article's hybrid.
//!
//! When the rules stall on a puzzle that is neither solved nor contradictory, the
//! rule program's `choice_value` view names the most promising cell (fewest
//! candidates, lowest cell on ties, a `min` aggregate in `datalog/status.dl`) and its
//! candidates; the search inserts `guess(p, c, v)` for the first, and the rules run
//! again, incrementally. A contradiction retracts the guess and inserts the next
//! candidate; exhausted candidates backtrack further. Every puzzle of a batch
//! advances together: one commit of the dataflow serves a step of each of them.
//! The search itself never reasons about the grid: it only reads the status, the
//! choice and, on success, the placed values.

use super::board::{Board, Status};
use super::explain::Notation;
use super::grid::Grid;
use crate::check::ir::Value;

/// How far to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// Guess when the rules stall (`--no-search` turns it off).
    pub search: bool,
    /// Stop at the first solution instead of looking for a second (`--first`).
    pub first: bool,
}

impl Default for Mode {
    fn default() -> Self {
        Mode {
            search: true,
            first: false,
        }
    }
}

/// The final word on a puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Solved,
    /// More than one solution; the first is reported.
    Multiple,
    /// Logic finished with cells open and search was off.
    Stalled,
    /// Conflicting givens.
    Invalid,
    /// Valid givens, no solution.
    Unsolvable,
}

impl Outcome {
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Solved => "solved",
            Outcome::Multiple => "multiple",
            Outcome::Stalled => "stalled",
            Outcome::Invalid => "invalid",
            Outcome::Unsolvable => "unsolvable",
        }
    }
}

struct Frame {
    cell: usize,
    values: Vec<u8>,
    next: usize,
}

/// The search state of one puzzle.
pub struct Search {
    pub p: Value,
    mode: Mode,
    stack: Vec<Frame>,
    /// Solutions found (at most two are looked for).
    pub solutions: Vec<Grid>,
    /// The grid when the search ended without a solution (stalled or broken).
    pub last: Option<Grid>,
    pub outcome: Option<Outcome>,
    pub guesses: u32,
    pub backtracks: u32,
    pub max_depth: u32,
    /// Rule rounds of the root (before any guess).
    pub root_rounds: u32,
    /// Search lines for the explain log, when kept.
    pub log: Option<Vec<String>>,
}

impl Search {
    pub fn new(p: Value, mode: Mode, keep_log: bool) -> Search {
        Search {
            p,
            mode,
            stack: Vec::new(),
            solutions: Vec::new(),
            last: None,
            outcome: None,
            guesses: 0,
            backtracks: 0,
            max_depth: 0,
            root_rounds: 0,
            log: keep_log.then(Vec::new),
        }
    }

    pub fn done(&self) -> bool {
        self.outcome.is_some()
    }

    fn say(&mut self, line: String) {
        if let Some(l) = &mut self.log {
            l.push(line);
        }
    }

    /// Looks at the puzzle after a commit and queues the next guess or retraction.
    /// Returns false once the puzzle is finished.
    pub fn step(&mut self, board: &mut Board, notation: Notation) -> Result<bool, String> {
        if self.done() {
            return Ok(false);
        }
        let status = board.status(self.p);
        let shape = board.shape(self.p).ok_or("unknown puzzle")?;
        if self.stack.is_empty() && self.guesses == 0 {
            self.root_rounds = board.view(self.p).map(|v| v.rounds).unwrap_or(0);
        }
        match status {
            Status::Solved => {
                let v = board.view(self.p).ok_or("unknown puzzle")?;
                self.solutions.push(v.grid());
                if self.mode.first || self.solutions.len() >= 2 {
                    self.finish(board)?;
                    return Ok(false);
                }
                if !self.stack.is_empty() {
                    self.say("solution found; looking for another".to_string());
                }
                self.backtrack(board, notation)
            }
            Status::Invalid => {
                self.last = board.view(self.p).map(|v| v.grid());
                self.outcome = Some(Outcome::Invalid);
                Ok(false)
            }
            Status::Contradiction => {
                if self.log.is_some() {
                    for why in board.contradictions(self.p, notation) {
                        self.say(format!("contradiction: {why}"));
                    }
                }
                if self.stack.is_empty() {
                    self.last = board.view(self.p).map(|v| v.grid());
                }
                self.backtrack(board, notation)
            }
            Status::Stalled => {
                if !self.mode.search {
                    self.last = board.view(self.p).map(|v| v.grid());
                    self.outcome = Some(Outcome::Stalled);
                    return Ok(false);
                }
                let Some((cell, values)) = board.choice(self.p) else {
                    // No open cell with candidates: treat as a dead end.
                    return self.backtrack(board, notation);
                };
                let depth = self.stack.len() as u32 + 1;
                self.say(format!(
                    "guess {} at {} ({} candidates, depth {})",
                    values[0],
                    notation.cell(shape, cell),
                    values.len(),
                    depth
                ));
                board.set_guess(self.p, cell, values[0], true)?;
                self.guesses += 1;
                self.max_depth = self.max_depth.max(depth);
                self.stack.push(Frame {
                    cell,
                    values,
                    next: 0,
                });
                Ok(true)
            }
        }
    }

    /// Retracts the deepest guess and tries its next candidate, unwinding exhausted frames.
    fn backtrack(&mut self, board: &mut Board, notation: Notation) -> Result<bool, String> {
        let shape = board.shape(self.p).ok_or("unknown puzzle")?;
        while let Some(top) = self.stack.last_mut() {
            let (cell, old) = (top.cell, top.values[top.next]);
            board.set_guess(self.p, cell, old, false)?;
            top.next += 1;
            if top.next < top.values.len() {
                let v = top.values[top.next];
                let (n, depth) = (top.values.len(), self.stack.len());
                self.say(format!(
                    "guess {} at {} ({} candidates, depth {})",
                    v,
                    notation.cell(shape, cell),
                    n,
                    depth
                ));
                board.set_guess(self.p, cell, v, true)?;
                self.guesses += 1;
                return Ok(true);
            }
            self.stack.pop();
            self.backtracks += 1;
            self.say(format!("backtrack from {}", notation.cell(shape, cell)));
        }
        self.finish(board)?;
        Ok(false)
    }

    fn finish(&mut self, board: &mut Board) -> Result<(), String> {
        // Leave no guesses behind in the session.
        while let Some(top) = self.stack.pop() {
            board.set_guess(self.p, top.cell, top.values[top.next], false)?;
        }
        self.outcome = Some(match self.solutions.len() {
            0 => Outcome::Unsolvable,
            1 => Outcome::Solved,
            _ => Outcome::Multiple,
        });
        Ok(())
    }

    /// The grid to print: the first solution, or where the reasoning stopped.
    pub fn grid(&self) -> Option<&Grid> {
        self.solutions.first().or(self.last.as_ref())
    }
}

/// Runs the rules and the search on every puzzle already added to `board` until
/// each is finished. Returns the number of commits.
pub fn run_all(
    board: &mut Board,
    searches: &mut [Search],
    notation: Notation,
) -> Result<u32, String> {
    let mut commits = 0;
    loop {
        board.commit()?;
        commits += 1;
        let mut active = false;
        for s in searches.iter_mut() {
            if s.step(board, notation)? {
                active = true;
            }
        }
        if !active {
            return Ok(commits);
        }
    }
}
