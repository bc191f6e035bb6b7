//! `sudolog explain | dump | validate`: one puzzle on the engine.

use std::collections::HashSet;
use std::io::Write;

use super::args::{DumpArgs, ExplainArgs, ValidateArgs};
use super::error::{self, CliError};
use super::puzzles::{self, Validator};
use super::rules::{program, require, solving, CANDIDATES};
use sudolog::session::Event;
use sudolog::sudoku::board::{Board, Options};
use sudolog::sudoku::explain::{dedup_lines, Notation};
use sudolog::sudoku::rules::Builtin;
use sudolog::sudoku::search::{Mode, Outcome, Search};

/// Prints the Drools validation lines for duplicate givens, then `Validation
/// complete.`; nothing when there are none. Returns whether there were any.
pub(super) fn report_duplicates(
    grid: &sudolog::sudoku::grid::Grid,
    notation: Notation,
    out: &mut impl Write,
) -> Result<bool, CliError> {
    let lines = Validator::builtin(notation)?.lines(grid)?;
    for l in &lines {
        writeln!(out, "{l}").map_err(error::stdout)?;
    }
    if !lines.is_empty() {
        writeln!(out, "Validation complete.").map_err(error::stdout)?;
    }
    Ok(!lines.is_empty())
}

/// `sudolog explain PUZZLE`: duplicate givens first (then nothing more), else every
/// deduction and guess in order, then the solution or where the rules stopped.
pub fn explain(args: &ExplainArgs) -> Result<u8, CliError> {
    let engine = args.engine.config(1)?;
    engine.single_process_search(!args.no_search)?;
    let puzzle = puzzles::one(&args.puzzle, "explain")?;
    let notation = Notation::from(args.notation);
    let program = program(&args.rules, Builtin::Full)?;
    let search_args = super::args::SearchArgs {
        no_search: args.no_search,
        first: true,
    };
    require(&program, &solving(&search_args), "explain")?;
    require(&program, CANDIDATES, "explain")?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if report_duplicates(&puzzle.grid, notation, &mut out)? {
        if engine.prints() {
            writeln!(out, "Sorry - can't solve this grid.").map_err(error::stdout)?;
            out.flush().map_err(error::stdout)?;
        }
        return Ok(0);
    }
    let opts = Options {
        workers: engine.workers,
        timely_args: engine.timely_args.clone(),
        explain: true,
        candidates: true,
        search: true,
        ..Default::default()
    };
    let mut board = super::stdio::to_stderr(engine.processes > 1, || Board::new(program, &opts))
        .map_err(error::engine)?;
    board.add(0, &puzzle.grid).map_err(error::engine)?;
    let mode = Mode {
        search: !args.no_search,
        first: true,
    };
    let mut search = Search::new(0, mode, true);
    let mut printed = HashSet::new();
    // The rules' deductions, then the search's steps interleaved with the deductions
    // each guess led to.
    loop {
        board.commit().map_err(error::engine)?;
        emit_events(&board, notation, &mut printed, &mut out)?;
        let before = search.log.as_ref().map_or(0, |l| l.len());
        let more = search.step(&mut board, notation).map_err(error::engine)?;
        for l in search.log.iter().flat_map(|log| &log[before..]) {
            writeln!(out, "{l}").map_err(error::stdout)?;
        }
        if !more {
            break;
        }
    }
    match search.outcome.unwrap_or(Outcome::Stalled) {
        Outcome::Solved | Outcome::Multiple => {
            let g = search.grid().cloned().unwrap_or(puzzle.grid.clone());
            write!(out, "{}", g.to_rows()).map_err(error::stdout)?;
        }
        Outcome::Invalid | Outcome::Unsolvable | Outcome::Stalled => {
            board.commit().map_err(error::engine)?;
            if let Some(v) = board.view(0) {
                let d = sudolog::sudoku::dump::dump(v.shape, &v.placed, &v.candidates);
                write!(out, "{d}").map_err(error::stdout)?;
            }
            writeln!(out, "Sorry - can't solve this grid.").map_err(error::stdout)?;
        }
    }
    finish(out, engine.prints())
}

/// Writes the explain events not printed yet, in log order, one line per deduction.
fn emit_events(
    board: &Board,
    notation: Notation,
    printed: &mut HashSet<Event>,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let mut lines = Vec::new();
    for ev in board.events() {
        if printed.insert(ev.clone()) {
            lines.push((ev.round, board.render(&ev, notation)));
        }
    }
    for l in dedup_lines(lines) {
        writeln!(out, "{l}").map_err(error::stdout)?;
    }
    Ok(())
}

/// Flushes the output of process 0; another process's output is dropped unwritten.
fn finish<W: Write>(mut out: std::io::BufWriter<W>, prints: bool) -> Result<u8, CliError> {
    if prints {
        out.flush().map_err(error::stdout)?;
    } else {
        // Discard: nothing of another process reaches stdout.
        let _ = out.into_parts();
    }
    Ok(0)
}

/// `sudolog dump PUZZLE [--rounds K]`
pub fn dump(args: &DumpArgs) -> Result<u8, CliError> {
    let engine = args.engine.config(1)?;
    let puzzle = puzzles::one(&args.puzzle, "dump")?;
    let program = program(&args.rules, Builtin::Full)?;
    require(&program, CANDIDATES, "dump")?;
    let opts = Options {
        workers: engine.workers,
        timely_args: engine.timely_args.clone(),
        candidates: true,
        max_rounds: args.rounds,
        ..Default::default()
    };
    let mut board = super::stdio::to_stderr(engine.processes > 1, || Board::new(program, &opts))
        .map_err(error::engine)?;
    board.add(0, &puzzle.grid).map_err(error::engine)?;
    board.commit().map_err(error::engine)?;
    let v = board
        .view(0)
        .ok_or_else(|| CliError::Engine("the puzzle has no view".into()))?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let d = sudolog::sudoku::dump::dump(v.shape, &v.placed, &v.candidates);
    write!(out, "{d}").map_err(error::stdout)?;
    finish(out, engine.prints())
}

/// `sudolog validate PUZZLE`: the Drools lines, `Validation complete.`; exit status
/// 1 when the givens have duplicates.
pub fn validate(args: &ValidateArgs) -> Result<u8, CliError> {
    // Validation runs in this process alone: the process options are checked, and
    // only process 0 prints.
    let engine = args.engine.config(1)?;
    let puzzle = puzzles::one(&args.puzzle, "validate")?;
    let mut validator =
        Validator::with_rules(&args.rules, Notation::from(args.notation), engine.workers)?;
    let lines = validator.lines(&puzzle.grid)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for l in &lines {
        writeln!(out, "{l}").map_err(error::stdout)?;
    }
    writeln!(out, "Validation complete.").map_err(error::stdout)?;
    finish(out, engine.prints())?;
    Ok(if lines.is_empty() { 0 } else { 1 })
}
