//! `sudolog solve | explain | dump | validate`: Sudoku on the engine.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::time::Instant;

use super::args::Args;
use sudolog::check::ir::Program;
use sudolog::sudoku::batch::{solve_chunk, Item, Summary};
use sudolog::sudoku::board::{Board, Options};
use sudolog::sudoku::explain::{dedup_lines, Notation};
use sudolog::sudoku::puzzle::{parse_puzzle_arg, Puzzle, PuzzleReader};
use sudolog::sudoku::rules::{self, Builtin};
use sudolog::sudoku::search::{Mode, Outcome, Search};

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

fn mode(args: &Args) -> Mode {
    Mode {
        search: !args.flag("--no-search"),
        first: args.flag("--first"),
    }
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
    let chunk_size: usize = args.number("--chunk", 32)?;
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
    let mode = mode(args);
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
        let mut reader = reader.peekable();
        while reader.peek().is_some() {
            let chunk: Vec<Item> = reader.by_ref().take(chunk_size.max(1)).collect();
            for r in solve_chunk(&mut board, chunk, mode)? {
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
            }
            out.flush().map_err(|e| e.to_string())?;
            if progress {
                eprint!(
                    "\r{} puzzles, {:.0}/s   ",
                    summary.total,
                    summary.total as f64 / start.elapsed().as_secs_f64()
                );
            }
        }
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
    args.reject_unknown(&["--no-search", "--fast"])?;
    let puzzle = one_puzzle(args)?;
    let notation = notation(args)?;
    let mut opts = options(args)?;
    opts.explain = true;
    opts.candidates = true;
    opts.search = true;
    let mut board = Board::new(program(args, Builtin::Full)?, &opts)?;
    board.add(0, &puzzle.grid)?;
    let mode = Mode {
        search: !args.flag("--no-search"),
        first: true,
    };
    let mut search = Search::new(0, mode, true);
    // Run the rules, print their deductions, then the search's steps interleaved
    // with the deductions each guess led to.
    let mut printed = std::collections::HashSet::new();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let emit = |board: &Board,
                out: &mut dyn Write,
                printed: &mut std::collections::HashSet<sudolog::session::Event>| {
        let mut lines = Vec::new();
        for ev in board.events() {
            if printed.insert(ev.clone()) {
                lines.push((ev.round, board.render(&ev, notation)));
            }
        }
        for l in dedup_lines(lines) {
            let _ = writeln!(out, "{l}");
        }
    };
    loop {
        board.commit()?;
        emit(&board, &mut out, &mut printed);
        let before = search.log.as_ref().map(|l| l.len()).unwrap_or(0);
        let more = search.step(&mut board, notation)?;
        if let Some(log) = &search.log {
            for l in &log[before..] {
                let _ = writeln!(out, "{l}");
            }
        }
        if !more {
            break;
        }
    }
    let outcome = search.outcome.unwrap_or(Outcome::Stalled);
    match outcome {
        Outcome::Solved | Outcome::Multiple => {
            let g = search.grid().cloned().unwrap_or(puzzle.grid.clone());
            let _ = write!(out, "{}", g.to_rows());
        }
        Outcome::Invalid | Outcome::Unsolvable | Outcome::Stalled => {
            board.commit()?;
            if let Some(v) = board.view(0) {
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
