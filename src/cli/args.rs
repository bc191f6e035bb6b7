//! The command line, declared with clap's derive API.
//!
//! In: the process arguments. Out: a [`Cli`] naming one [`Command`] with its own
//! options (each subcommand's `--help` lists only those). Values are checked while
//! parsing (ranges, known words); what needs several options at once (the process
//! options) is checked by [`EngineArgs::config`]. Every failure here is a usage error.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use super::error::CliError;
use sudolog::sudoku::explain::Notation;

/// The most worker threads per process (`-w`): more is a typo, not a machine.
pub const MAX_WORKERS: u64 = 256;
/// The most processes (`-n`).
pub const MAX_PROCESSES: u64 = 1024;

/// Datalog rules compiled onto differential dataflow; Sudoku as a first domain.
#[derive(Parser, Debug)]
#[command(name = "sudolog", version, propagate_version = true)]
#[command(after_help = PUZZLE_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

const PUZZLE_HELP: &str = "\
A PUZZLE is a file, an 81-character string (16, 256 or 625 for other sizes), - for
stdin, or a sample name: simple, medium, hard1, hard2, hard3, hard4, broken, sdo,
javadoc, 6948.

Exit status: 0 when everything ran, 1 when some input failed, 2 for usage errors.";

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run any Datalog program, Soufflé style: .input facts in, .output relations out
    Run(RunArgs),
    /// Check programs: diagnostics, then the evaluation plan
    Check(CheckArgs),
    /// Solve puzzles: one line per puzzle, the grid and
    /// solved|multiple|stalled|invalid|unsolvable
    #[command(after_help = PUZZLE_HELP)]
    Solve(SolveArgs),
    /// Each puzzle's difficulty: HoDoKu's level (Easy, Medium, Hard, Unfair, Extreme)
    /// and score, from the techniques the rules needed
    #[command(after_help = GRADE_HELP)]
    Grade(GradeArgs),
    /// Every deduction for one puzzle, in Drools' wording
    #[command(after_help = PUZZLE_HELP)]
    Explain(ExplainArgs),
    /// The next deduction for one puzzle, not applied (the simplest technique that
    /// finds something)
    #[command(after_help = PUZZLE_HELP)]
    Hint(HintArgs),
    /// The grid with its candidates, Drools' Dump layout
    #[command(after_help = PUZZLE_HELP)]
    Dump(DumpArgs),
    /// Duplicate givens, Drools' validation lines; exit status 1 if any
    #[command(after_help = PUZZLE_HELP)]
    Validate(ValidateArgs),
    /// An editing session: commands on stdin, every edit re-solved incrementally
    #[command(after_help = PUZZLE_HELP)]
    Edit(EditArgs),
    /// Measurements (see docs/PERFORMANCE.md)
    #[command(subcommand)]
    Bench(BenchCommand),
    /// The board: a web page on a live editing session (127.0.0.1)
    #[command(after_help = PUZZLE_HELP)]
    Serve(ServeArgs),
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The puzzle to open (default: an empty 9x9 grid)
    pub puzzle: Option<String>,
    /// The port on 127.0.0.1
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    #[command(flatten)]
    pub rules: RulesArgs,
}

/// Timely's process options, as ordinary named options.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Engine options")]
pub struct EngineArgs {
    /// Worker threads per process [default: 1, or every core for solve and grade
    /// of more than one puzzle]; in one process, solve, grade and bench solve run an
    /// engine per worker thread, each on its share of the puzzles
    #[arg(short = 'w', long, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=MAX_WORKERS))]
    pub workers: Option<u64>,
    /// Run across N processes (timely), each started with its own --process
    #[arg(short = 'n', long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=MAX_PROCESSES))]
    pub processes: u64,
    /// This process's index, 0 to N-1; process 0 prints the results
    #[arg(short = 'p', long, value_name = "I", default_value_t = 0)]
    pub process: u64,
    /// The processes' addresses (host:port), one a line [default: localhost:2101...]
    #[arg(long, value_name = "FILE")]
    pub hostfile: Option<PathBuf>,
}

/// What the engine gets from [`EngineArgs`].
#[derive(Clone, Debug)]
pub struct Engine {
    pub workers: usize,
    pub timely_args: Vec<String>,
    /// This process's index (results are printed by process 0 only).
    pub process: usize,
    /// How many processes take part.
    pub processes: usize,
}

impl Engine {
    /// Refuses the search across processes: the search reads the rules' results,
    /// which reach process 0 only, so the other processes cannot follow its guesses
    /// (they would wait for each other forever).
    pub fn single_process_search(&self, search: bool) -> Result<(), CliError> {
        if search && self.processes > 1 {
            return Err(CliError::usage(
                "the search cannot run across processes yet (only process 0 sees the results that choose its guesses); use --no-search, or one process with -w N",
            ));
        }
        Ok(())
    }

    /// Whether this process prints results and writes files.
    pub fn prints(&self) -> bool {
        self.process == 0
    }
}

impl EngineArgs {
    /// The engine settings, `default_workers` unless `-w` says otherwise. Checks the
    /// process options together: the index is below the count, and a host file is
    /// readable and names at least that many processes.
    pub fn config(&self, default_workers: usize) -> Result<Engine, CliError> {
        let n = self.processes;
        if self.process >= n {
            return Err(CliError::usage(format!(
                "--process {} is out of range: with --processes {n} the index is 0 to {}",
                self.process,
                n - 1
            )));
        }
        let mut timely_args = Vec::new();
        if let Some(file) = &self.hostfile {
            if n < 2 {
                return Err(CliError::usage(
                    "--hostfile needs --processes 2 or more".to_string(),
                ));
            }
            let text = read_hostfile(file)?;
            let hosts = text.lines().filter(|l| !l.trim().is_empty()).count();
            if (hosts as u64) < n {
                return Err(CliError::usage(format!(
                    "--hostfile {} names {hosts} process(es); --processes {n} needs {n}",
                    file.display()
                )));
            }
        }
        if n > 1 {
            timely_args.extend(["-n".to_string(), n.to_string()]);
            timely_args.extend(["-p".to_string(), self.process.to_string()]);
            if let Some(file) = &self.hostfile {
                timely_args.extend(["-h".to_string(), file.display().to_string()]);
            }
        }
        Ok(Engine {
            workers: self.workers.map_or(default_workers, |w| w as usize),
            timely_args,
            process: self.process as usize,
            processes: n as usize,
        })
    }
}

/// A host file's text: a regular file of bounded size.
fn read_hostfile(file: &std::path::Path) -> Result<String, CliError> {
    let cannot = |why: String| CliError::usage(format!("--hostfile {}: {why}", file.display()));
    let meta = std::fs::metadata(file).map_err(|e| cannot(e.to_string()))?;
    if !meta.is_file() || meta.len() > 1 << 20 {
        return Err(cannot(
            "not a host file (a regular file of host:port lines)".into(),
        ));
    }
    std::fs::read_to_string(file).map_err(|e| cannot(e.to_string()))
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The program
    #[arg(value_name = "PROGRAM.dl")]
    pub program: String,
    /// Where the .input relations' .facts files are
    #[arg(short = 'F', long, value_name = "DIR", default_value = ".")]
    pub facts: PathBuf,
    /// Where the .output relations' .csv files go; - prints them
    #[arg(short = 'D', long, value_name = "DIR|-", default_value = ".")]
    pub output: String,
    /// Time and size of the evaluation, on stderr
    #[arg(long)]
    pub stats: bool,
    /// Per rule: rows derived, rounds fired, time in its operators; per relation and
    /// block: time in their own operators (stderr)
    #[arg(long)]
    pub profile: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The program files (read as one program)
    #[arg(value_name = "PROGRAM.dl", required = true)]
    pub programs: Vec<String>,
    /// Plan without explain events
    #[arg(long)]
    pub no_explain: bool,
}

/// The rule program a Sudoku command runs.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Rules")]
pub struct RulesArgs {
    /// Replace the built-in rules with these program files (repeatable)
    #[arg(long, value_name = "FILE")]
    pub rules: Vec<String>,
    /// The light rule set (datalog/fast.dl)
    #[arg(long, conflicts_with = "rules")]
    pub fast: bool,
    /// The full rules, every puzzle assumed to have one solution (datalog/unique.dl):
    /// uniqueness techniques on, as HoDoKu grades; wrong for puzzles with several
    #[arg(long, conflicts_with_all = ["rules", "fast"])]
    pub assume_unique: bool,
    /// Run every tier in one fixpoint block (solve of one puzzle, edit, hint, serve
    /// and bench edit otherwise step the techniques as dataflows of their own, in
    /// tier order)
    #[arg(long)]
    pub one_block: bool,
}

/// How the search goes.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct SearchArgs {
    /// Logic only: no guessing
    #[arg(long)]
    pub no_search: bool,
    /// Stop at the first solution instead of checking for a second
    #[arg(long)]
    pub first: bool,
    /// Give up (status depth-limit) on a puzzle whose search goes deeper than N guesses
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u32>,
}

impl SearchArgs {
    /// The search mode these options ask for.
    pub fn mode(&self) -> sudolog::sudoku::search::Mode {
        sudolog::sudoku::search::Mode {
            search: !self.no_search,
            first: self.first,
            max_depth: self.max_depth,
        }
    }
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// `GRID status` per puzzle
    #[default]
    Text,
    /// JSON Lines with per-puzzle statistics
    Json,
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum NotationArg {
    /// [row,col], from 0
    #[default]
    Drools,
    /// r1c1, from 1
    Rc,
}

impl From<NotationArg> for Notation {
    fn from(n: NotationArg) -> Notation {
        match n {
            NotationArg::Drools => Notation::Drools,
            NotationArg::Rc => Notation::Rc,
        }
    }
}

/// How many search nodes a dataflow evaluates at once (`solve`, `grade`, `bench
/// solve`).
#[derive(Args, Clone, Debug)]
pub struct BatchArgs {
    /// Search nodes (puzzles and their branches) evaluated together in one dataflow
    /// [default: 96 with the full rules, or fewer where the engines would hold over 384
    /// together; lighter rules hold more in proportion to their joins, up to 192]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub chunk: Option<u64>,
}

#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Puzzle files (one puzzle per line, or 9-line blocks), or any PUZZLE
    #[arg(value_name = "PUZZLE", required = true)]
    pub puzzles: Vec<String>,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[command(flatten)]
    pub batch: BatchArgs,
    /// Per rule: rows derived, rounds fired, time in its operators; per relation and
    /// block: time in their own operators (stderr)
    #[arg(long)]
    pub profile: bool,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

const GRADE_HELP: &str = "\
One line per puzzle: the puzzle, its level and its score, or its status when it does
not have exactly one solution (multiple, invalid, unsolvable). The scale is HoDoKu's:
each technique has a level and a score per step (src/sudoku/grade.rs); the level is
the hardest technique's, raised while the score passes the level's maximum (Easy 800,
Medium 1000, Hard 1600, Unfair 1800). A puzzle the rules cannot finish without
guessing is Extreme.";

#[derive(Args, Debug)]
pub struct GradeArgs {
    /// Puzzle files (one puzzle per line, or 9-line blocks), or any PUZZLE
    #[arg(value_name = "PUZZLE", required = true)]
    pub puzzles: Vec<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[command(flatten)]
    pub batch: BatchArgs,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    pub puzzle: String,
    /// Cell names: [row,col] (drools) or r1c1 (rc)
    #[arg(long, value_enum, default_value_t)]
    pub notation: NotationArg,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
pub struct DumpArgs {
    pub puzzle: String,
    /// Stop the rules after K rounds
    #[arg(long, value_name = "K")]
    pub rounds: Option<u32>,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
pub struct HintArgs {
    pub puzzle: String,
    /// Name only the technique and where to look (a group), not what it finds
    #[arg(long)]
    pub vague: bool,
    /// Cell names: [row,col] (drools) or r1c1 (rc)
    #[arg(long, value_enum, default_value_t)]
    pub notation: NotationArg,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
pub struct ValidateArgs {
    pub puzzle: String,
    /// Cell names: [row,col] (drools) or r1c1 (rc)
    #[arg(long, value_enum, default_value_t)]
    pub notation: NotationArg,
    /// Replace the built-in validation rules (datalog/validate.dl)
    #[arg(long, value_name = "FILE")]
    pub rules: Vec<String>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
pub struct EditArgs {
    /// The puzzle to start from [default: an empty 9x9 grid]
    pub puzzle: Option<String>,
    /// Cell names: [row,col] (drools) or r1c1 (rc)
    #[arg(long, value_enum, default_value_t)]
    pub notation: NotationArg,
    /// Write each scripted command into the output, after the prompt
    #[arg(long)]
    pub echo: bool,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Transitive closure of a random graph: from scratch, then one-edge updates
    Tc(BenchTcArgs),
    /// Solving throughput and peak memory on a file of puzzles
    Solve(BenchSolveArgs),
    /// Latency of random edits, incremental beside from scratch
    Edit(BenchEditArgs),
}

#[derive(Args, Debug)]
pub struct BenchTcArgs {
    /// Nodes of the random graph
    #[arg(long, value_name = "N", default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(1..=i32::MAX as u64))]
    pub nodes: u64,
    /// Distinct random edges (self-loops included); fewer than N*N
    #[arg(long, value_name = "M", default_value_t = 2000)]
    pub edges: u64,
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Single-edge inserts and deletes timed
    #[arg(long, value_name = "K", default_value_t = 20)]
    pub repeat: u64,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
pub struct BenchSolveArgs {
    /// A file of puzzles, or any PUZZLE
    pub puzzles: String,
    /// Solve at most N puzzles
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    #[command(flatten)]
    pub batch: BatchArgs,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
pub struct BenchEditArgs {
    /// Random edits
    #[arg(long, value_name = "N", default_value_t = 20_000,
          value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub edits: u64,
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Evaluate every K-th state from scratch too (0: never)
    #[arg(long, value_name = "K", default_value_t = 10)]
    pub scratch_every: u64,
    /// Per rule, over the whole session: rows derived, rounds fired, time in its
    /// operators; per relation and block: time in their own operators (stderr; the
    /// edits' times then include the measuring)
    #[arg(long)]
    pub profile: bool,
    /// Write every command the session runs to FILE, one a line (for --script)
    #[arg(long, value_name = "FILE")]
    pub save_script: Option<PathBuf>,
    /// Run the commands of FILE (one a line; `#` comments) instead of random ones,
    /// from the seed's sample: rule programs compared on one script
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    #[command(flatten)]
    pub rules: RulesArgs,
}
