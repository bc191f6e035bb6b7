//! `sudolog run` and `sudolog check`: the Datalog engine on its own, like Soufflé.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use super::args::{CheckArgs, RunArgs};
use super::error::{self, CliError};
use super::progress;
use sudolog::check::ir::Program;
use sudolog::session::{Observe, Session};
use sudolog::syntax::{parse_files, FsLoader};

/// Parses and checks program files; rendered diagnostics on failure.
pub fn load_program(paths: &[String]) -> Result<Program, CliError> {
    let mut sources = sudolog::diag::SourceMap::new();
    let ast = parse_files(&mut sources, paths, &FsLoader).map_err(|errs| {
        CliError::Program(errs.iter().map(|d| d.render(&sources)).collect::<String>())
    })?;
    sudolog::check::check(sources, &ast).map_err(|d| CliError::Program(d.to_string()))
}

/// `sudolog check PROGRAM.dl...`: the plan on stdout.
pub fn check(args: &CheckArgs) -> Result<u8, CliError> {
    let program = load_program(&args.programs)?;
    let plan = sudolog::plan::plan(&program, !args.no_explain).map_err(|errs| {
        CliError::Program(
            errs.iter()
                .map(|d| d.render(&program.sources))
                .collect::<String>(),
        )
    })?;
    let mut out = std::io::stdout().lock();
    write!(out, "{}", plan.display(&program)).map_err(error::stdout)?;
    Ok(0)
}

/// `sudolog run PROGRAM.dl`: `.input` relations from `--facts`, `.output` relations
/// to `--output` (files, or stdout for `-`), written by process 0 only.
pub fn run(args: &RunArgs) -> Result<u8, CliError> {
    let engine = args.engine.config(1)?;
    let program = Arc::new(load_program(std::slice::from_ref(&args.program))?);
    if engine.prints() && args.output != "-" {
        let dir = Path::new(&args.output);
        if !dir.is_dir() {
            return Err(CliError::Input(format!(
                "--output {}: not a directory",
                dir.display()
            )));
        }
    }
    // One evaluation that only adds facts: the batch rendering, and no list of
    // changes (the outputs are read from the session's contents).
    let config = sudolog::session::Config {
        workers: engine.workers,
        timely_args: engine.timely_args.clone(),
        observe: Observe::Outputs,
        batch: true,
        changes: false,
        profile: args.profile,
        // Facts are loaded for `.input` relations only.
        inputs_only: true,
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let bar = progress::spinner(format!("evaluating {}", args.program));
    let mut session = super::stdio::to_stderr(engine.processes > 1, || {
        Session::new(program.clone(), config)
    })
    .map_err(error::engine)?;
    for (rel, r) in program.relations.iter().enumerate() {
        if r.input {
            let rows = sudolog::facts::read_facts(&program, rel, &args.facts, session.symbols())
                .map_err(CliError::Located)?; // `file:line: message`
            for row in rows {
                session.insert(rel, &row).map_err(error::engine)?;
            }
        }
    }
    let commit = session.commit().map_err(error::engine)?;
    bar.finish_and_clear();
    if args.profile {
        let costs = session.profile().map_err(error::engine)?;
        eprint!("{}", super::profile::table(&program, &costs));
    }
    if !engine.prints() {
        return Ok(0);
    }
    write_outputs(&program, &session, &args.output)?;
    if args.stats {
        eprintln!(
            "evaluated in {:.3} s ({} changes)",
            start.elapsed().as_secs_f64(),
            commit.changed
        );
    }
    Ok(0)
}

/// Every `.output` relation: framed on stdout for `-`, else `DIR/NAME.csv`.
fn write_outputs(program: &Program, session: &Session, out: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    for (rel, r) in program.relations.iter().enumerate() {
        if !r.output {
            continue;
        }
        let rows: Vec<Vec<i32>> = session
            .contents(rel)
            .into_iter()
            .map(|(row, _)| row)
            .collect();
        let text = sudolog::facts::format_rows(program, rel, &rows, session.symbols_ref());
        if out == "-" {
            write!(
                stdout,
                "---------------\n{}\n===============\n{}===============\n",
                r.name, text
            )
            .map_err(error::stdout)?;
        } else {
            let file = Path::new(out).join(format!("{}.csv", r.name));
            std::fs::write(&file, text).map_err(|e| CliError::Write {
                what: file.display().to_string(),
                source: e,
            })?;
        }
    }
    stdout.flush().map_err(error::stdout)
}
