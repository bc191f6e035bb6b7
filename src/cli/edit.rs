//! `sudolog edit [PUZZLE]`: an interactive editing session (see
//! [`sudolog::sudoku::edit`]). Commands come one per line from standard input. At a
//! terminal there is a `> ` prompt, line editing and a history of the session's
//! commands (rustyline); from a pipe or a file, plain lines and no prompt, so
//! sessions can be scripted. Results go to standard output; a bad command prints
//! `error: ...` and the session goes on.
//! With `--echo`, a scripted session writes each command (not blank lines or
//! `#` comments) after the prompt, so its output reads as a transcript.

use std::io::{BufRead, IsTerminal, Write};

use super::args::EditArgs;
use super::error::{self, CliError};
use super::puzzles;
use super::rules::{require, stepping, CANDIDATES, EDIT, STATUS};
use sudolog::sudoku::board::Options;
use sudolog::sudoku::edit::Editor;
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::grid::{Grid, Shape};
use sudolog::sudoku::rules::Builtin;

/// `sudolog edit [PUZZLE] [--notation drools|rc] [--rules FILE]... [--echo]`.
/// Duplicate givens in the PUZZLE are reported first (Drools' validation lines).
pub fn run(args: &EditArgs) -> Result<u8, CliError> {
    let engine = args.engine.config(1)?;
    let notation = Notation::from(args.notation);
    let grid = match args.puzzle.as_deref() {
        None => Grid::empty(Shape::NINE),
        Some("-") => {
            return Err(CliError::usage(
                "sudolog edit reads its commands from stdin; give the PUZZLE as a file, a string or a sample name",
            ))
        }
        Some(arg) => puzzles::one(arg, "edit")?.grid,
    };
    // The tiers stepped by the host unless `--one-block` (edits ~4x faster).
    let (program, split) = stepping(&args.rules, Builtin::Full, true)?;
    for needs in [STATUS, CANDIDATES, EDIT] {
        require(&program, needs, "edit")?;
    }
    let opts = Options {
        workers: engine.workers,
        timely_args: engine.timely_args.clone(),
        stepped: split,
        ..Default::default()
    };
    {
        let mut out = std::io::stdout().lock();
        super::sudoku::report_duplicates(&grid, notation, &mut out)?;
        out.flush().map_err(error::stdout)?;
    }
    let mut editor = super::stdio::to_stderr(engine.processes > 1, || {
        Editor::with_program(program, opts, grid, notation)
    })
    .map_err(error::engine)?;

    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    // A terminal echoes what is typed; a script's commands are echoed on request.
    let echo = args.echo && !interactive;
    let mut input = if interactive {
        match rustyline::DefaultEditor::new() {
            Ok(rl) => Input::Terminal(rl),
            // A terminal rustyline cannot drive: plain lines after a plain prompt.
            Err(_) => Input::Plain(stdin.lock(), true),
        }
    } else {
        Input::Plain(stdin.lock(), false)
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let io = error::stdout;
    if interactive {
        writeln!(out, "sudolog edit: type help for the commands").map_err(io)?;
        out.flush().map_err(io)?;
    }
    while let Some(line) = input.next_line(&mut out).map_err(CliError::Input)? {
        let command = line.trim();
        if echo && !command.is_empty() && !command.starts_with('#') {
            writeln!(out, "> {command}").map_err(io)?;
        }
        match editor.command(&line) {
            Ok(text) => out.write_all(text.as_bytes()).map_err(io)?,
            Err(e) => writeln!(out, "error: {e}").map_err(io)?,
        }
        out.flush().map_err(io)?;
        if editor.finished() {
            break;
        }
    }
    Ok(0)
}

/// Where commands come from: a terminal, with line editing and history, or plain
/// lines (a pipe or a file; `true` for a terminal that line editing cannot drive,
/// which still gets a prompt).
enum Input<'a> {
    Terminal(rustyline::DefaultEditor),
    Plain(std::io::StdinLock<'a>, bool),
}

impl Input<'_> {
    /// The next line (`None` at the end of the input). Ctrl-C at a terminal drops
    /// the line being typed and asks again; Ctrl-D ends the session.
    fn next_line(&mut self, out: &mut impl Write) -> Result<Option<String>, String> {
        let io = |e: std::io::Error| e.to_string();
        match self {
            Input::Terminal(rl) => match rl.readline("> ") {
                Ok(line) => {
                    if !line.trim().is_empty() {
                        let _ = rl.add_history_entry(line.as_str());
                    }
                    Ok(Some(line))
                }
                Err(rustyline::error::ReadlineError::Interrupted) => Ok(Some(String::new())),
                Err(rustyline::error::ReadlineError::Eof) => Ok(None),
                Err(e) => Err(e.to_string()),
            },
            Input::Plain(input, prompt) => {
                if *prompt {
                    write!(out, "> ").map_err(io)?;
                    out.flush().map_err(io)?;
                }
                let mut buf = Vec::new();
                if input.read_until(b'\n', &mut buf).map_err(io)? == 0 {
                    if *prompt {
                        writeln!(out).map_err(io)?;
                    }
                    return Ok(None);
                }
                Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
            }
        }
    }
}
