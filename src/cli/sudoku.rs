//! `sudolog explain | dump | validate`: one puzzle on the engine.

use std::io::Write;

use super::args::{DumpArgs, ExplainArgs, HintArgs, ValidateArgs};
use super::error::{self, CliError};
use super::puzzles::{self, Validator};
use super::rules::{program, require, solving, stepping, CANDIDATES};
use sudolog::sudoku::board::{Board, Options};
use sudolog::sudoku::edit::Editor;
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::rules::Builtin;
use sudolog::sudoku::search::{self, Outcome};

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
    engine.single_process_search(!args.search.no_search)?;
    let puzzle = puzzles::one(&args.puzzle, "explain")?;
    let notation = Notation::from(args.notation);
    let program = program(&args.rules, Builtin::Full)?;
    require(&program, &solving(&args.search), "explain")?;
    require(&program, CANDIDATES, "explain")?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if report_duplicates(&puzzle.grid, notation, &mut out)? {
        if engine.prints() {
            writeln!(out, "Sorry - can't solve this grid.").map_err(error::stdout)?;
            out.flush().map_err(error::stdout)?;
        }
        return Ok(0);
    }
    // Each search node is a fresh dataflow that only adds facts: the batch rendering.
    let opts = Options {
        workers: engine.workers,
        timely_args: engine.timely_args.clone(),
        explain: true,
        candidates: true,
        search: true,
        batch: true,
        ..Default::default()
    };
    let mut board = super::stdio::to_stderr(engine.processes > 1, || Board::new(program, &opts))
        .map_err(error::engine)?;
    // The rules' deductions, then each guess (depth first) with what it led to.
    let mut written = Ok(());
    let end = search::explain(
        &mut board,
        &puzzle.grid,
        args.search.mode(),
        notation,
        &mut |l| {
            if written.is_ok() {
                written = writeln!(out, "{l}");
            }
        },
    )
    .map_err(error::engine)?;
    written.map_err(error::stdout)?;
    match (end.outcome, end.solution) {
        (Outcome::Solved | Outcome::Multiple, Some(g)) => {
            write!(out, "{}", g.to_rows()).map_err(error::stdout)?;
        }
        _ => {
            if let Some(v) = end.root {
                let d = sudolog::sudoku::dump::dump(v.shape, &v.placed, &v.candidates);
                write!(out, "{d}").map_err(error::stdout)?;
            }
            writeln!(out, "Sorry - can't solve this grid.").map_err(error::stdout)?;
        }
    }
    let status = finish(out, engine.prints());
    super::leave_to_exit(engine.processes, board);
    status
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
/// `sudolog hint PUZZLE [--vague]`: duplicate givens first (then nothing more),
/// else `hint: ...`, the first deduction the rules make from the givens (the
/// simplest tier's), or `no hint: ...`.
pub fn hint(args: &HintArgs) -> Result<u8, CliError> {
    let engine = args.engine.config(1)?;
    let puzzle = puzzles::one(&args.puzzle, "hint")?;
    let notation = Notation::from(args.notation);
    let (program, split) = stepping(&args.rules, Builtin::Full, true)?;
    require(&program, CANDIDATES, "hint")?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if report_duplicates(&puzzle.grid, notation, &mut out)? {
        out.flush().map_err(error::stdout)?;
        return Ok(0);
    }
    let opts = Options {
        workers: engine.workers,
        timely_args: engine.timely_args.clone(),
        stepped: split,
        ..Default::default()
    };
    let mut editor = super::stdio::to_stderr(engine.processes > 1, || {
        Editor::with_program(program, opts, puzzle.grid.clone(), notation)
    })
    .map_err(error::engine)?;
    let text = editor
        .command(if args.vague { "hint vague" } else { "hint" })
        .map_err(error::engine)?;
    if engine.prints() {
        write!(out, "{text}").map_err(error::stdout)?;
        out.flush().map_err(error::stdout)?;
    }
    super::leave_to_exit(engine.processes, editor);
    Ok(0)
}

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
    let status = finish(out, engine.prints());
    super::leave_to_exit(engine.processes, board);
    status
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
