//! The `sudolog` command: arguments ([`args`], clap), then one command. Each command
//! returns its exit status (0 all ran, 1 some input failed) or a [`CliError`]
//! (usage errors 2, others 1), which `main` renders once on stderr.

mod args;
mod bench;
mod edit;
mod engine;
mod error;
mod profile;
mod progress;
mod puzzles;
mod rules;
mod solve;
mod stdio;
mod sudoku;

use clap::Parser;

use args::{Cli, Command};
pub use error::CliError;

/// Parses `argv` (the program name first) and runs the command. `Ok` is the exit
/// status; help and `--version` print on stdout and are `Ok(0)`.
pub fn main(argv: impl IntoIterator<Item = std::ffi::OsString>) -> anyhow::Result<u8> {
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) if e.exit_code() == 0 => {
            e.print()?;
            return Ok(0);
        }
        Err(e) => return Err(CliError::Clap(e.render().to_string()).into()),
    };
    let status = match &cli.command {
        Command::Run(a) => engine::run(a),
        Command::Check(a) => engine::check(a),
        Command::Solve(a) => solve::solve(a),
        Command::Grade(a) => solve::grade(a),
        Command::Explain(a) => sudoku::explain(a),
        Command::Dump(a) => sudoku::dump(a),
        Command::Hint(a) => sudoku::hint(a),
        Command::Validate(a) => sudoku::validate(a),
        Command::Edit(a) => edit::run(a),
        Command::Bench(b) => bench::run(b),
        Command::Serve(a) => serve(a),
    }?;
    Ok(status)
}

/// `sudolog serve [PUZZLE] [--port N]`: the board until interrupted.
fn serve(args: &args::ServeArgs) -> Result<u8, CliError> {
    let puzzle = match &args.puzzle {
        None => sudolog::sudoku::grid::Grid::empty(sudolog::sudoku::grid::Shape::NINE),
        Some(arg) => puzzles::one(arg, "serve")?.grid,
    };
    let (program, split) =
        rules::stepping(&args.rules, sudolog::sudoku::rules::Builtin::Full, true)?;
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], args.port));
    sudolog::web::serve(sudolog::web::ServeOptions {
        addr,
        program,
        split,
        puzzle,
    })
    .map_err(|e| CliError::Engine(e.to_string()))?;
    Ok(0)
}

/// What a command built, left to the operating system when the command runs in one
/// process: the process ends once the command returns, and taking its dataflows
/// down one by one (threads joined, arrangements freed) cost a one-grid `solve`
/// ~2.5 ms in process and ~3 ms of its ~47 ms wall (docs/PERFORMANCE.md, session
/// 59). With several processes it is dropped instead: its workers are told to
/// stop. `solve`, `grade`, `explain`, `hint` and `dump` end this way, after their
/// output is written.
fn leave_to_exit<T>(processes: usize, built: T) {
    match processes {
        1 => std::mem::forget(built),
        _ => drop(built),
    }
}

/// The exit status for an error `main` returned: a [`CliError`]'s own, else 1.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    e.downcast_ref::<CliError>().map_or(1, CliError::exit_code)
}
