//! Files of puzzles through the engine, in bounded chunks.
//!
//! In: a stream of parsed puzzles (or per-puzzle input errors). Out: one result per
//! input, in input order. Each chunk is loaded into a fresh dataflow (dropping the
//! previous one is cheaper than retracting it, and an iterate keeps every round's
//! differences until its epoch completes, so memory stays bounded by the chunk).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::board::Board;
use super::explain::Notation;
use super::grid::Grid;
use super::puzzle::{InputError, Puzzle};
use super::search::{run_all, Mode, Outcome, Search};
use crate::check::ir::Value;

/// The result for one input puzzle.
pub struct Solved {
    pub puzzle: Puzzle,
    pub outcome: Outcome,
    /// The solution, or the grid as far as the rules got.
    pub grid: Grid,
    pub rounds: u32,
    pub guesses: u32,
    pub backtracks: u32,
    pub max_depth: u32,
    /// Deductions per rule label (only with explanations on).
    pub deductions: BTreeMap<String, u32>,
    /// This puzzle's share of its chunk's time.
    pub time: Duration,
}

pub type Item = Result<Puzzle, InputError>;

/// Solves one chunk; results in input order (errors passed through).
pub fn solve_chunk(
    board: &mut Board,
    chunk: Vec<Item>,
    mode: Mode,
) -> Result<Vec<Result<Solved, InputError>>, String> {
    let start = Instant::now();
    board.reset()?;
    let mut searches = Vec::new();
    let mut slots: Vec<Result<(Puzzle, usize), InputError>> = Vec::new();
    for item in chunk {
        match item {
            Ok(p) => {
                let id = searches.len() as Value;
                board.add(id, &p.grid)?;
                searches.push(Search::new(id, mode, false));
                slots.push(Ok((p, id as usize)));
            }
            Err(e) => slots.push(Err(e)),
        }
    }
    if !searches.is_empty() {
        run_all(board, &mut searches, Notation::Drools)?;
    }
    // Deductions per rule, per puzzle, when events are on.
    let mut deductions: Vec<BTreeMap<String, u32>> = vec![BTreeMap::new(); searches.len()];
    for ev in board.session().events() {
        let label = board.program().rules[ev.rule].label.clone();
        if let Some(d) = deductions.get_mut(ev.head[0] as usize) {
            *d.entry(label).or_default() += 1;
        }
    }
    let share = start.elapsed() / (searches.len().max(1) as u32);
    let mut out = Vec::new();
    for slot in slots {
        match slot {
            Err(e) => out.push(Err(e)),
            Ok((puzzle, id)) => {
                let s = &searches[id];
                let grid = s.grid().cloned().unwrap_or_else(|| puzzle.grid.clone());
                out.push(Ok(Solved {
                    outcome: s.outcome.unwrap_or(Outcome::Stalled),
                    grid,
                    rounds: s.root_rounds,
                    guesses: s.guesses,
                    backtracks: s.backtracks,
                    max_depth: s.max_depth,
                    deductions: std::mem::take(&mut deductions[id]),
                    time: share,
                    puzzle,
                }));
            }
        }
    }
    Ok(out)
}

/// Totals for the summary line.
#[derive(Default, Debug)]
pub struct Summary {
    pub counts: BTreeMap<&'static str, usize>,
    pub total: usize,
}

impl Summary {
    pub fn add(&mut self, r: &Result<Solved, InputError>) {
        self.total += 1;
        let word = match r {
            Ok(s) => s.outcome.word(),
            Err(_) => "error",
        };
        *self.counts.entry(word).or_default() += 1;
    }
    /// An input that could not be read at all (a missing file).
    pub fn add_error(&mut self) {
        self.total += 1;
        *self.counts.entry("error").or_default() += 1;
    }
    pub fn line(&self, elapsed: Duration) -> String {
        let parts: Vec<String> = self
            .counts
            .iter()
            .map(|(k, v)| match (*k, *v) {
                // Outcomes are adjectives ("3 solved"); the one noun takes a plural.
                ("error", n) if n != 1 => format!("{n} errors"),
                (k, n) => format!("{n} {k}"),
            })
            .collect();
        let secs = elapsed.as_secs_f64();
        format!(
            "{} {}: {} in {:.3} s ({:.0} puzzles/s)",
            self.total,
            if self.total == 1 { "puzzle" } else { "puzzles" },
            parts.join(", "),
            secs,
            self.total as f64 / secs.max(1e-9)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_line_counts_by_outcome() {
        let mut s = Summary::default();
        s.add_error();
        assert_eq!(
            s.line(Duration::from_secs(2)),
            "1 puzzle: 1 error in 2.000 s (0 puzzles/s)"
        );
        s.add_error();
        s.add_error();
        s.add_error();
        assert_eq!(
            s.line(Duration::from_secs(2)),
            "4 puzzles: 4 errors in 2.000 s (2 puzzles/s)"
        );
    }
}
