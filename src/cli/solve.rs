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

use super::args::{Engine, Format, GradeArgs, SolveArgs};
use super::error::{self, CliError};
use super::progress;
use super::puzzles::{self, Validator};
use super::rules::{require, solving, stepping};
use sudolog::session::{merge_costs, Cost};
use sudolog::sudoku::batch::{solve_sharded, Engines, Item, Limits, Solved, Summary};
use sudolog::sudoku::board::{Board, Options};
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::grade::{self, Grade};
use sudolog::sudoku::puzzle::InputError;
use sudolog::sudoku::rules::Builtin;
use sudolog::sudoku::search::{Mode, Outcome};

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
    /// The difficulty of a puzzle with one solution, on the built-in rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grade: Option<GradeField>,
    pub time_ms: f64,
    /// Drools' validation lines, for duplicate givens.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub validation: Vec<String>,
}

/// A grade in JSON: HoDoKu's level name and the score.
#[derive(Serialize)]
pub struct GradeField {
    pub level: &'static str,
    pub score: u32,
}

/// One puzzle's grade as a JSON line (`sudolog grade --format json`). A puzzle
/// without exactly one solution has a status but no level or score.
#[derive(Serialize)]
pub struct GradeRecord<'a> {
    pub source: &'a str,
    pub line: usize,
    pub puzzle: String,
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<u32>,
    /// Steps per technique (rule label) at the root, as the score counts them.
    pub steps: &'a BTreeMap<String, u32>,
    pub guesses: u32,
}

/// What each puzzle's record says: its solution (`solve`) or its grade (`grade`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    Solve,
    Grade,
}

/// A solved puzzle's grade: only for a puzzle with one solution, and only when every
/// technique used is on the grading scale.
fn grade_of(s: &Solved) -> Option<Grade> {
    (s.outcome == Outcome::Solved)
        .then(|| grade::grade(&s.steps, s.guesses).ok())
        .flatten()
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
    report: Report,
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
        if self.report == Report::Grade {
            return self.graded(s, validation);
        }
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
                grade: grade_of(s).map(|g| GradeField {
                    level: g.level.name(),
                    score: g.score,
                }),
                time_ms: s.time.as_secs_f64() * 1000.0,
                validation,
            }),
        }
    }

    /// `PUZZLE Level score`, or `PUZZLE status` without a grade; or a JSON line.
    fn graded(&mut self, s: &Solved, validation: Vec<String>) -> Result<(), CliError> {
        let g = grade_of(s);
        match self.format {
            Format::Text => {
                for l in &validation {
                    let at = format!("{}:{}: ", s.puzzle.source, s.puzzle.line);
                    self.stderr(&format!("{at}{l}"))?;
                }
                let what = match g {
                    Some(g) => format!("{} {}", g.level, g.score),
                    None => s.outcome.word().to_string(),
                };
                self.line(&format!("{} {what}", s.puzzle.grid.to_line()))
            }
            Format::Json => self.json(&GradeRecord {
                source: &s.puzzle.source,
                line: s.puzzle.line,
                puzzle: s.puzzle.grid.to_line(),
                status: s.outcome.word(),
                level: g.map(|g| g.level.name()),
                score: g.map(|g| g.score),
                steps: &s.steps,
                guesses: s.guesses,
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

/// `sudolog grade PUZZLE...`: a solve with the uniqueness check, each puzzle
/// reported with its level and score. Exit status 1 when some input failed.
pub fn grade(args: &GradeArgs) -> Result<u8, CliError> {
    let solve = SolveArgs {
        puzzles: args.puzzles.clone(),
        search: Default::default(),
        format: args.format,
        batch: args.batch.clone(),
        profile: false,
        rules: args.rules.clone(),
        engine: args.engine.clone(),
    };
    run(&solve, Report::Grade)
}

/// `sudolog solve PUZZLE...`: exit status 1 when some input failed.
pub fn solve(args: &SolveArgs) -> Result<u8, CliError> {
    run(args, Report::Solve)
}

/// Every technique the program explains must be on the grading scale.
fn gradable(program: &sudolog::check::ir::Program) -> Result<(), CliError> {
    let techniques = program
        .rules
        .iter()
        .filter(|r| r.explain.is_some() && r.label != grade::GUESS_LABEL);
    for rule in techniques {
        if grade::technique(&rule.label).is_none() {
            return Err(CliError::usage(
                grade::UnknownTechnique(rule.label.clone()).to_string(),
            ));
        }
    }
    Ok(())
}

fn run(args: &SolveArgs, report: Report) -> Result<u8, CliError> {
    let one = one_puzzle(args);
    // One puzzle is one share of the work: a second engine would only wait for it,
    // and a second worker in its engine would only exchange its few rows with the
    // first (`solve hard1` 58 -> 45 ms). Files of puzzles use every core.
    let cores = match one {
        true => 1,
        false => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let engine = args.engine.config(cores)?;
    engine.single_process_search(!args.search.no_search)?;
    let (program, split) = stepping(&args.rules, Builtin::Full, one)?;
    require(&program, &solving(&args.search), "solve")?;
    if report == Report::Grade {
        gradable(&program)?;
    }
    // One process: an engine of one worker per worker thread, each on its share of
    // the puzzles (see `solve_sharded`); across processes, one engine spanning them.
    let shards = if engine.processes == 1 && !one {
        engine.workers
    } else {
        1
    };
    let opts = Options {
        stepped: split,
        ..board_options(args, &engine, report, shards)
    };
    let make = || Board::new(program.clone(), &opts);
    let finish = |b: &mut Board| match args.profile {
        true => b.profile(),
        false => Ok(Vec::new()),
    };
    let mut board = match shards {
        1 => Some(super::stdio::to_stderr(engine.processes > 1, make).map_err(error::engine)?),
        _ => None,
    };
    let mut costs: Vec<Cost> = Vec::new();
    let mode = args.search.mode();
    let limits = Limits::for_engines(args.batch.chunk.map(|c| c as usize), shards, &program);
    let mut tally = Tally {
        sink: Sink {
            out: std::io::BufWriter::new(std::io::stdout().lock()),
            format: args.format,
            report,
            prints: engine.prints(),
        },
        levels: BTreeMap::new(),
        validator: None,
        summary: Summary::default(),
        failed: false,
        bar: progress::counter(None, "puzzles"),
    };
    let start = Instant::now();
    for arg in &args.puzzles {
        let mut reader = match puzzles::open(arg) {
            Ok(r) => r,
            Err(e) => {
                tally.unreadable(arg, &e)?;
                continue;
            }
        };
        let engines = match &mut board {
            Some(board) => Engines::One(board),
            None => Engines::Many {
                shards,
                make: &make,
                finish: &finish,
            },
        };
        for c in tally.run(engines, &mut reader, mode, limits)? {
            merge_costs(&mut costs, c);
        }
    }
    tally.bar.finish_and_clear();
    if args.profile {
        if let Some(board) = &mut board {
            costs = board.profile().map_err(error::engine)?;
        }
        costs.sort_by_key(|c| c.charge);
        eprint!("{}", super::profile::table(&program, &costs));
    }
    tally.summarise(start);
    super::leave_to_exit(engine.processes, (board, opts, program));
    Ok(if tally.failed { 1 } else { 0 })
}

/// Whether the run solves one puzzle (one PUZZLE argument, not `-`, holding one):
/// the board then steps the rules' tiers from the host, so that the grid pays only
/// for the tiers it needs (`solve hard1` 2.4x faster). A batch runs them in one
/// block: its puzzles would step together, a tier only when no lower one finds
/// anything for any of them (with search, 14-16% slower; logic only, the same).
fn one_puzzle(args: &SolveArgs) -> bool {
    match &args.puzzles[..] {
        [arg] if arg != "-" => puzzles::open(arg).is_ok_and(|r| r.take(2).count() == 1),
        _ => false,
    }
}

/// The engine's options for `solve` and `grade`: one worker per engine when the
/// puzzles are sharded over `shards` engines.
fn board_options(args: &SolveArgs, engine: &Engine, report: Report, shards: usize) -> Options {
    Options {
        workers: if shards > 1 { 1 } else { engine.workers },
        timely_args: engine.timely_args.clone(),
        // `--no-search` computes no choice: its rules are not rendered.
        search: !args.search.no_search,
        // Children start from their parent's candidates.
        inherit: true,
        explain: args.format == Format::Json || report == Report::Grade,
        // Every batch of search nodes is a fresh dataflow that only adds facts.
        batch: true,
        profile: args.profile,
        ..Default::default()
    }
}

/// What a run has printed and counted so far, over all its inputs.
struct Tally {
    sink: Sink,
    levels: BTreeMap<grade::Level, usize>,
    validator: Option<Validator>,
    summary: Summary,
    /// An input error was reported: the exit status is 1.
    failed: bool,
    bar: indicatif::ProgressBar,
}

impl Tally {
    /// An input that cannot be opened: its error line, counted.
    fn unreadable(&mut self, arg: &str, e: &CliError) -> Result<(), CliError> {
        self.sink.unreadable(arg, e)?;
        self.summary.add_error();
        self.failed = true;
        Ok(())
    }

    /// One puzzle's result (or input error): counted, graded, printed.
    fn record(&mut self, r: Result<Solved, InputError>) -> Result<(), CliError> {
        self.summary.add(&r);
        if let Some(g) = r.as_ref().ok().and_then(grade_of) {
            *self.levels.entry(g.level).or_default() += 1;
        }
        self.bar.inc(1);
        match r {
            Err(e) => {
                self.failed = true;
                self.sink.input_error(&e)
            }
            Ok(s) => validation_lines(&s, &mut self.validator)
                .and_then(|validation| self.sink.solved(&s, validation))
                .and_then(|()| self.sink.flush()),
        }
    }

    /// One input's puzzles through the engines, each result recorded as it comes.
    /// Out: the engines' costs (with `--profile` and several engines).
    fn run(
        &mut self,
        engines: Engines<'_, Vec<Cost>>,
        reader: &mut dyn Iterator<Item = Item>,
        mode: Mode,
        limits: Limits,
    ) -> Result<Vec<Vec<Cost>>, CliError> {
        // The first output error, kept while the engine's callback reports a string.
        let mut output_error: Option<CliError> = None;
        let mut emit = |r: Result<Solved, InputError>| -> Result<(), String> {
            self.record(r).map_err(|e| {
                let text = e.to_string();
                output_error.get_or_insert(e);
                text
            })
        };
        let ran = solve_sharded(engines, reader, mode, limits, &mut emit);
        if let Some(e) = output_error {
            return Err(e);
        }
        ran.map_err(error::engine)
    }

    /// The summary line on stderr (and the levels when grading), from process 0.
    fn summarise(&self, start: Instant) {
        if self.sink.prints {
            eprintln!("{}", self.summary.line(start.elapsed()));
            if self.sink.report == Report::Grade {
                let counts: Vec<String> = self
                    .levels
                    .iter()
                    .map(|(l, n)| format!("{n} {l}"))
                    .collect();
                eprintln!("levels: {}", counts.join(", "));
            }
        }
    }
}
