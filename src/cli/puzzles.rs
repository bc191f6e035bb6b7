//! PUZZLE arguments and validation on load.
//!
//! In: a PUZZLE argument (a file, puzzle text, `-`, a sample name). Out: a stream
//! of puzzles ([`open`]) or the one puzzle a single-puzzle command works on
//! ([`one`]: the first, with a note on stderr when the input holds more). And the
//! Drools validation lines for a grid's duplicate givens ([`Validator`]), from the
//! rules of `datalog/validate.dl` on a local session.

use std::io::BufRead;

use super::error::{self, CliError};
use super::rules::{require, VALIDATION};
use sudolog::sudoku::board::{Board, Options};
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::grid::Grid;
use sudolog::sudoku::puzzle::{open_puzzle_arg, InputError, Puzzle, PuzzleReader};
use sudolog::sudoku::rules::{self, Builtin};

/// The puzzles of a PUZZLE argument, streamed. A file that cannot be opened (missing,
/// a directory) is an input error.
pub fn open(arg: &str) -> Result<PuzzleReader<Box<dyn BufRead>>, CliError> {
    open_puzzle_arg(arg).map_err(CliError::Input)
}

/// An input error as a final message: `source:line:col: error: message`.
pub fn input_error(e: &InputError) -> CliError {
    CliError::Located(format!(
        "{}:{}:{}: error: {}",
        e.source, e.line, e.col, e.message
    ))
}

/// The puzzle a single-puzzle command (`explain`, `dump`, `validate`, `edit`) works
/// on: the first of `arg`. When `arg` holds more, a note on stderr says how many and
/// that `command` used the first.
pub fn one(arg: &str, command: &str) -> Result<Puzzle, CliError> {
    let mut items = open(arg)?;
    let first = match items.next() {
        None => return Err(CliError::Input(format!("no puzzle in '{arg}'"))),
        Some(Err(e)) => return Err(input_error(&e)),
        Some(Ok(p)) => p,
    };
    let more = items.count();
    if more > 0 {
        eprintln!(
            "note: '{arg}' holds {} puzzles; `sudolog {command}` used the first ({}:{})",
            more + 1,
            first.source,
            first.line
        );
    }
    Ok(first)
}

/// Validation messages for the variants' groups, read when the program defines them
/// (a `--rules` program without them still validates classic grids).
const VARIANT_VALIDATION: &[&str] = &["dup_diag"];

/// Duplicate givens, reported as Drools' validate.drl does, by the rules of
/// `datalog/validate.dl` (or `--rules` for `sudolog validate`). One worker, in this
/// process only: every process of a multi-process run can validate on its own.
pub struct Validator {
    board: Board,
    notation: Notation,
}

impl Validator {
    /// A validator running the built-in validation rules.
    pub fn builtin(notation: Notation) -> Result<Validator, CliError> {
        Self::with_rules(&[], notation, 1)
    }

    /// A validator running `rules` (the built-in rules if empty) on `workers` threads.
    pub fn with_rules(
        rules: &[String],
        notation: Notation,
        workers: usize,
    ) -> Result<Validator, CliError> {
        let program = rules::load(rules, Builtin::Validate).map_err(CliError::Program)?;
        require(&program, VALIDATION, "validate")?;
        let opts = Options {
            workers,
            explain: true,
            ..Default::default()
        };
        let board = Board::new(program, &opts).map_err(error::engine)?;
        Ok(Validator { board, notation })
    }

    /// The validation lines for `grid` (none when its givens have no duplicates), in
    /// the rules' log order. Only the validation messages' rules are reported: those
    /// of [`VALIDATION`], and `dup_diag` (Sudoku X's diagonals) when the program has it.
    pub fn lines(&mut self, grid: &Grid) -> Result<Vec<String>, CliError> {
        let b = &mut self.board;
        b.reset().map_err(error::engine)?;
        b.add(0, grid).map_err(error::engine)?;
        b.commit().map_err(error::engine)?;
        let program = b.program().clone();
        let messages: Vec<_> = VALIDATION
            .iter()
            .map(|&(name, _)| name)
            .chain(VARIANT_VALIDATION.iter().copied())
            .filter_map(|name| program.relation(name))
            .collect();
        Ok(b.events()
            .iter()
            .filter(|ev| messages.contains(&program.rules[ev.rule].head))
            .map(|ev| b.render(ev, self.notation))
            .collect())
    }
}
