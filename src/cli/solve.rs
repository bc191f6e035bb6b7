//! `sudolog solve PUZZLE...`: files of puzzles through the engine in chunks.
//!
//! In: PUZZLE arguments (files, text, `-`, sample names). Out, on stdout, one record
//! per puzzle in input order: `GRID status`, or with `--format json` a JSON object
//! per line ([`Record`]). Input errors (a bad puzzle line, a file that cannot be
//! read) go to stderr as `file:line:col: error: ...`, or in JSON as an
//! [`InputRecord`] on stdout; they make the exit status 1. Duplicate givens are
//! reported with Drools' validation lines (stderr, or the record's `validation`).
//! A summary line ends the run on stderr. Process 0 alone prints.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

use serde::Serialize;

use super::args::{Format, SolveArgs};
use super::error::{self, CliError};
use super::progress;
use super::puzzles::{self, Validator};
use super::rules::{program, require, solving};
use sudolog::sudoku::batch::{solve_stream, Limits, Solved, Summary};
use sudolog::sudoku::board::{Board, Options};
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::puzzle::InputError;
use sudolog::sudoku::rules::Builtin;
use sudolog::sudoku::search::Outcome;

/// One puzzle's result as a JSON line.
#[derive(Serialize)]
pub struct Record<'a> {
    pub source: &'a str,
    pub line: usize,
    pub puzzle: String,
    pub status: &'static str,
    pub grid: String,
    pub rounds: u32,
    pub guesses: u32,
    pub backtracks: u32,
    pub max_depth: u32,
    pub deductions: &'a BTreeMap<String, u32>,
    pub time_ms: f64,
    /// Drools' validation lines, for duplicate givens.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub validation: Vec<String>,
}

/// An input that could not be read, as a JSON line. `line` and `column` are null for
/// an input that could not be opened at all.
#[derive(Serialize)]
pub struct InputRecord<'a> {
    pub source: &'a str,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub error: &'a str,
}

/// Where results go: stdout in the chosen format, input errors by format.
struct Sink {
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
    format: Format,
    /// Process 0 prints; other processes only take part in the computation.
    prints: bool,
}

impl Sink {
    /// Hands what is written so far to stdout (each result as soon as it is known).
    fn flush(&mut self) -> Result<(), CliError> {
        if self.prints {
            self.out.flush().map_err(error::stdout)?;
        }
        Ok(())
    }

    fn line(&mut self, text: &str) -> Result<(), CliError> {
        if self.prints {
            writeln!(self.out, "{text}").map_err(error::stdout)?;
        }
        Ok(())
    }

    fn json(&mut self, value: &impl Serialize) -> Result<(), CliError> {
        let text = serde_json::to_string(value).map_err(|e| CliError::Engine(e.to_string()))?;
        self.line(&text)
    }

    /// Text goes to stderr, after what stdout holds so far.
    fn stderr(&mut self, text: &str) -> Result<(), CliError> {
        if self.prints {
            self.out.flush().map_err(error::stdout)?;
            eprintln!("{text}");
        }
        Ok(())
    }

    fn input_error(&mut self, e: &InputError) -> Result<(), CliError> {
        match self.format {
            Format::Text => self.stderr(&puzzles::input_error(e).to_string()),
            Format::Json => self.json(&InputRecord {
                source: &e.source,
                line: Some(e.line),
                column: Some(e.col),
                error: &e.message,
            }),
        }
    }

    fn unreadable(&mut self, arg: &str, e: &CliError) -> Result<(), CliError> {
        match (self.format, e) {
            (Format::Json, CliError::Input(msg)) => self.json(&InputRecord {
                source: arg,
                line: None,
                column: None,
                error: msg,
            }),
            _ => self.stderr(&e.to_string()),
        }
    }

    fn solved(&mut self, s: &Solved, validation: Vec<String>) -> Result<(), CliError> {
        match self.format {
            Format::Text => {
                for l in &validation {
                    let at = format!("{}:{}: ", s.puzzle.source, s.puzzle.line);
                    self.stderr(&format!("{at}{l}"))?;
                }
                self.line(&format!("{} {}", s.grid.to_line(), s.outcome.word()))
            }
            Format::Json => self.json(&Record {
                source: &s.puzzle.source,
                line: s.puzzle.line,
                puzzle: s.puzzle.grid.to_line(),
                status: s.outcome.word(),
                grid: s.grid.to_line(),
                rounds: s.rounds,
                guesses: s.guesses,
                backtracks: s.backtracks,
                max_depth: s.max_depth,
                deductions: &s.deductions,
                time_ms: s.time.as_secs_f64() * 1000.0,
                validation,
            }),
        }
    }
}

/// Drools' validation lines for an invalid puzzle's givens (none otherwise).
fn validation_lines(
    s: &Solved,
    validator: &mut Option<Validator>,
) -> Result<Vec<String>, CliError> {
    if s.outcome != Outcome::Invalid {
        return Ok(Vec::new());
    }
    let v = match validator {
        Some(v) => v,
        None => validator.insert(Validator::builtin(Notation::Drools)?),
    };
    v.lines(&s.puzzle.grid)
}

/// `sudolog solve PUZZLE...`: exit status 1 when some input failed.
pub fn solve(args: &SolveArgs) -> Result<u8, CliError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let engine = args.engine.config(cores)?;
    engine.single_process_search(!args.search.no_search)?;
    let program = program(&args.rules, Builtin::Full)?;
    require(&program, &solving(&args.search), "solve")?;
    let opts = Options {
        workers: engine.workers,
        timely_args: engine.timely_args.clone(),
        search: true,
        explain: args.format == Format::Json,
        // Every batch of search nodes is a fresh dataflow that only adds facts.
        batch: true,
        profile: args.profile,
        ..Default::default()
    };
    let mut board = super::stdio::to_stderr(engine.processes > 1, || Board::new(program, &opts))
        .map_err(error::engine)?;
    let mode = args.search.mode();
    let limits = Limits {
        batch: args.chunk as usize,
        ..Limits::default()
    };
    let mut sink = Sink {
        out: std::io::BufWriter::new(std::io::stdout().lock()),
        format: args.format,
        prints: engine.prints(),
    };
    let mut validator: Option<Validator> = None;
    let mut summary = Summary::default();
    let mut failed = false;
    let start = Instant::now();
    let bar = progress::counter(None, "puzzles");
    for arg in &args.puzzles {
        let reader = match puzzles::open(arg) {
            Ok(r) => r,
            Err(e) => {
                sink.unreadable(arg, &e)?;
                summary.add_error();
                failed = true;
                continue;
            }
        };
        let mut reader = reader;
        // The first output error, kept while the engine's callback reports a string.
        let mut output_error: Option<CliError> = None;
        let mut emit = |r: Result<Solved, InputError>| -> Result<(), String> {
            summary.add(&r);
            bar.inc(1);
            let written = match r {
                Err(e) => {
                    failed = true;
                    sink.input_error(&e)
                }
                Ok(s) => validation_lines(&s, &mut validator)
                    .and_then(|validation| sink.solved(&s, validation))
                    .and_then(|()| sink.flush()),
            };
            written.map_err(|e| {
                let text = e.to_string();
                output_error.get_or_insert(e);
                text
            })
        };
        let ran = solve_stream(&mut board, &mut reader, mode, limits, &mut emit);
        if let Some(e) = output_error {
            return Err(e);
        }
        ran.map_err(error::engine)?;
    }
    bar.finish_and_clear();
    if args.profile {
        let costs = board.profile().map_err(error::engine)?;
        eprint!("{}", super::profile::table(board.program(), &costs));
    }
    if sink.prints {
        eprintln!("{}", summary.line(start.elapsed()));
    }
    Ok(if failed { 1 } else { 0 })
}
