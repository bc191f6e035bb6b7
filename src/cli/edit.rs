//! `sudolog edit [PUZZLE]`: an interactive editing session (see
//! [`sudolog::sudoku::edit`]). Commands come one per line from standard input. At a
//! terminal there is a `> ` prompt, line editing and a history of the session's
//! commands (rustyline); from a pipe or a file, plain lines and no prompt, so
//! sessions can be scripted. Results go to standard output; a bad command prints
//! `error: ...` and the session goes on.
//! With `--echo`, a scripted session writes each command (not blank lines or
//! `#` comments) after the prompt, so its output reads as a transcript.

use std::io::{BufRead, IsTerminal, Write};

use super::args::Args;
use sudolog::sudoku::board::Options;
use sudolog::sudoku::edit::Editor;
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::grid::{Grid, Shape};
use sudolog::sudoku::puzzle::parse_puzzle_arg;
use sudolog::sudoku::rules::{self, Builtin};

/// `sudolog edit [PUZZLE] [--notation drools|rc] [--rules FILE]... [--echo]`
pub fn run(args: &Args) -> Result<i32, String> {
    args.reject_unknown(&["--echo"])?;
    let notation = Notation::parse(args.value("--notation").unwrap_or("drools"))?;
    let grid = match args.positional.as_slice() {
        [] => Grid::empty(Shape::NINE),
        [arg] if arg == "-" => {
            return Err(
                "sudolog edit reads its commands from stdin; give the PUZZLE as a file, a string or a sample name"
                    .into(),
            )
        }
        [arg] => {
            let mut items = parse_puzzle_arg(arg)?;
            if items.is_empty() {
                return Err(format!("no puzzle in '{arg}'"));
            }
            items.swap_remove(0).map_err(|e| e.to_string())?.grid
        }
        _ => return Err("sudolog edit: give at most one PUZZLE".into()),
    };
    let engine = args.engine_config()?;
    let opts = Options {
        workers: engine.workers,
        timely_args: engine.timely_args,
        ..Default::default()
    };
    let program = rules::load(&args.values("--rules"), Builtin::Full)?;
    let mut editor = Editor::with_program(program, opts, grid, notation)?;

    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    // A terminal echoes what is typed; a script's commands are echoed on request.
    let echo = args.flag("--echo") && !interactive;
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
    let io = |e: std::io::Error| e.to_string();
    if interactive {
        writeln!(out, "sudolog edit: type help for the commands").map_err(io)?;
        out.flush().map_err(io)?;
    }
    while let Some(line) = input.next_line(&mut out)? {
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
