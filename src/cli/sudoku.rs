//! `sudolog solve | explain | dump | validate`: Sudoku on the engine.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::time::Instant;

use super::args::Args;
use sudolog::check::ir::Program;
use sudolog::sudoku::batch::{solve_stream, Item, Limits, Summary};
use sudolog::sudoku::board::{Board, Options};
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::puzzle::{parse_puzzle_arg, Puzzle, PuzzleReader};
use sudolog::sudoku::rules::{self, Builtin};
use sudolog::sudoku::search::{self, Mode, Outcome};

/// The rule program: `--rules` files, else `--fast`'s or `default`'s built-in one.
pub(super) fn program(args: &Args, default: Builtin) -> Result<Arc<Program>, String> {
    let default = if args.flag("--fast") {
        Builtin::Fast
    } else {
        default
    };
    rules::load(&args.values("--rules"), default)
}

/// How measurements name the rule program [`program`] picks.
pub(super) fn program_name(args: &Args, default: Builtin) -> String {
    let files = args.values("--rules");
    if !files.is_empty() {
        files.join(" + ")
    } else if args.flag("--fast") || default == Builtin::Fast {
        "fast".into()
    } else {
        "full".into()
    }
}

fn options(args: &Args) -> Result<Options, String> {
    let c = args.engine_config()?;
    Ok(Options {
        workers: c.workers,
        timely_args: c.timely_args,
        ..Default::default()
    })
}

pub(super) fn mode(args: &Args) -> Result<Mode, String> {
    Ok(Mode {
        search: !args.flag("--no-search"),
        first: args.flag("--first"),
        max_depth: args
            .value("--max-depth")
            .map(|_| args.number("--max-depth", 0))
            .transpose()?,
    })
}

fn json_escape(s: &str) -> String {
    let mut o = String::new();
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o
}

/// `sudolog solve FILE...`
pub fn solve(args: &Args) -> Result<i32, String> {
    args.reject_unknown(&["--no-search", "--first", "--fast"])?;
    if args.positional.is_empty() {
        return Err("sudolog solve: give puzzle files (or - for stdin)".into());
    }
    let json = match args.value("--format").unwrap_or("text") {
        "text" => false,
        "json" => true,
        other => return Err(format!("unknown --format '{other}'; use text or json")),
    };
    let limits = Limits {
        batch: args.number("--chunk", Limits::default().batch)?.max(1),
        ..Limits::default()
    };
    let program = program(args, Builtin::Full)?;
    let c = args.engine_config_all_cores()?;
    let mut opts = Options {
        workers: c.workers,
        timely_args: c.timely_args,
        ..Default::default()
    };
    opts.search = true;
    opts.explain = json;
    let mut board = Board::new(program, &opts)?;
    let mode = mode(args)?;
    let start = Instant::now();
    let mut summary = Summary::default();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let progress = std::io::stderr().is_terminal();
    let mut failed_files = 0;
    for file in &args.positional {
        let reader: Box<dyn Iterator<Item = Item>> = if file == "-" {
            Box::new(PuzzleReader::new(
                "-",
                std::io::BufReader::new(std::io::stdin()),
            ))
        } else {
            match std::fs::File::open(file) {
                Ok(f) => Box::new(PuzzleReader::new(file, std::io::BufReader::new(f))),
                Err(e) => {
                    writeln!(out, "error: cannot read '{file}': {e}").map_err(|e| e.to_string())?;
                    summary.add_error();
                    failed_files += 1;
                    continue;
                }
            }
        };
        let mut reader = reader;
        solve_stream(&mut board, &mut reader, mode, limits, &mut |r| {
            summary.add(&r);
            let line = match (&r, json) {
                (Err(e), false) => format!("error: {e}"),
                (Err(e), true) => format!("{{\"error\":\"{}\"}}", json_escape(&e.to_string())),
                (Ok(s), false) => format!("{} {}", s.grid.to_line(), s.outcome.word()),
                (Ok(s), true) => {
                    let ded: Vec<String> = s
                        .deductions
                        .iter()
                        .map(|(k, v)| format!("\"{}\":{}", json_escape(k), v))
                        .collect();
                    format!(
                        "{{\"source\":\"{}\",\"line\":{},\"puzzle\":\"{}\",\"status\":\"{}\",\"grid\":\"{}\",\"rounds\":{},\"guesses\":{},\"backtracks\":{},\"max_depth\":{},\"deductions\":{{{}}},\"time_ms\":{:.3}}}",
                        json_escape(&s.puzzle.source),
                        s.puzzle.line,
                        s.puzzle.grid.to_line(),
                        s.outcome.word(),
                        s.grid.to_line(),
                        s.rounds,
                        s.guesses,
                        s.backtracks,
                        s.max_depth,
                        ded.join(","),
                        s.time.as_secs_f64() * 1000.0
                    )
                }
            };
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
            out.flush().map_err(|e| e.to_string())?;
            if progress {
                eprint!(
                    "\r{} puzzles, {:.0}/s   ",
                    summary.total,
                    summary.total as f64 / start.elapsed().as_secs_f64()
                );
            }
            Ok(())
        })?;
    }
    if progress {
        eprint!("\r");
    }
    eprintln!("{}", summary.line(start.elapsed()));
    Ok(if failed_files > 0 { 1 } else { 0 })
}

/// The single puzzle a PUZZLE argument names.
fn one_puzzle(args: &Args) -> Result<Puzzle, String> {
    let [arg] = args.positional.as_slice() else {
        return Err("give one PUZZLE: a file, an 81-character string, or a sample name (simple, medium, hard1..hard4, broken)".into());
    };
    let mut items = parse_puzzle_arg(arg)?;
    if items.is_empty() {
        return Err(format!("no puzzle in '{arg}'"));
    }
    items.remove(0).map_err(|e| e.to_string())
}

fn notation(args: &Args) -> Result<Notation, String> {
    Notation::parse(args.value("--notation").unwrap_or("drools"))
}

/// `sudolog explain PUZZLE`
pub fn explain(args: &Args) -> Result<i32, String> {
    args.reject_unknown(&["--no-search", "--first", "--fast"])?;
    let puzzle = one_puzzle(args)?;
    let notation = notation(args)?;
    let mut opts = options(args)?;
    opts.explain = true;
    opts.candidates = true;
    opts.search = true;
    let mut board = Board::new(program(args, Builtin::Full)?, &opts)?;
    let mode = mode(args)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let end = search::explain(&mut board, &puzzle.grid, mode, notation, &mut |l| {
        let _ = writeln!(out, "{l}");
    })?;
    match (end.outcome, end.solution) {
        (Outcome::Solved | Outcome::Multiple, Some(g)) => {
            let _ = write!(out, "{}", g.to_rows());
        }
        _ => {
            if let Some(v) = end.root {
                let _ = write!(
                    out,
                    "{}",
                    sudolog::sudoku::dump::dump(v.shape, &v.placed, &v.candidates)
                );
            }
            let _ = writeln!(out, "Sorry - can't solve this grid.");
        }
    }
    out.flush().map_err(|e| e.to_string())?;
    Ok(0)
}

/// `sudolog dump PUZZLE [--rounds K]`
pub fn dump(args: &Args) -> Result<i32, String> {
    args.reject_unknown(&["--fast"])?;
    let puzzle = one_puzzle(args)?;
    let mut opts = options(args)?;
    opts.candidates = true;
    if let Some(k) = args.value("--rounds") {
        opts.max_rounds = Some(
            k.parse()
                .map_err(|_| format!("option --rounds: '{k}' is not a number"))?,
        );
    }
    let mut board = Board::new(program(args, Builtin::Full)?, &opts)?;
    board.add(0, &puzzle.grid)?;
    board.commit()?;
    let v = board.view(0).ok_or("no view")?;
    print!(
        "{}",
        sudolog::sudoku::dump::dump(v.shape, &v.placed, &v.candidates)
    );
    Ok(0)
}

/// `sudolog validate PUZZLE`: exit 1 when the givens have duplicates.
pub fn validate(args: &Args) -> Result<i32, String> {
    args.reject_unknown(&[])?;
    let puzzle = one_puzzle(args)?;
    let notation = notation(args)?;
    let program = rules::load(&args.values("--rules"), Builtin::Validate)?;
    let mut opts = options(args)?;
    opts.explain = true;
    let mut board = Board::new(program, &opts)?;
    board.add(0, &puzzle.grid)?;
    board.commit()?;
    let evs = board.events();
    for ev in &evs {
        println!("{}", board.render(ev, notation));
    }
    println!("Validation complete.");
    Ok(if evs.is_empty() { 0 } else { 1 })
}
