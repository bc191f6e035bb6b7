//! `sudolog run` and `sudolog check`: the Datalog engine on its own, like Soufflé.

use std::path::Path;
use std::sync::Arc;

use super::args::Args;
use sudolog::check::ir::Program;
use sudolog::session::{Observe, Session};
use sudolog::syntax::{parse_files, FsLoader};

/// Parses and checks program files; diagnostics rendered on failure.
pub fn load_program(paths: &[String]) -> Result<Program, String> {
    let mut sources = sudolog::diag::SourceMap::new();
    let ast = parse_files(&mut sources, paths, &FsLoader)
        .map_err(|errs| errs.iter().map(|d| d.render(&sources)).collect::<String>())?;
    sudolog::check::check(sources, &ast).map_err(|d| d.to_string())
}

pub fn check(args: &Args) -> Result<i32, String> {
    args.reject_unknown(&["--no-explain"])?;
    if args.positional.is_empty() {
        return Err("sudolog check: give a program file".into());
    }
    let program = load_program(&args.positional)?;
    let plan = sudolog::plan::plan(&program, !args.flag("--no-explain")).map_err(|errs| {
        errs.iter()
            .map(|d| d.render(&program.sources))
            .collect::<String>()
    })?;
    print!("{}", plan.display(&program));
    Ok(0)
}

pub fn run(args: &Args) -> Result<i32, String> {
    args.reject_unknown(&["--stats"])?;
    let [path] = args.positional.as_slice() else {
        return Err("sudolog run: give exactly one program file".into());
    };
    let program = Arc::new(load_program(std::slice::from_ref(path))?);
    let mut config = args.engine_config()?;
    config.observe = Observe::Outputs;
    let start = std::time::Instant::now();
    let mut session = Session::new(program.clone(), config)?;
    let facts_dir = Path::new(args.value("--facts").unwrap_or("."));
    for (rel, r) in program.relations.iter().enumerate() {
        if r.input {
            let rows = sudolog::facts::read_facts(&program, rel, facts_dir, session.symbols())?;
            for row in rows {
                session.insert(rel, &row)?;
            }
        }
    }
    let commit = session.commit()?;
    if args.process_index() != 0 {
        return Ok(0);
    }
    let out = args.value("--output").unwrap_or(".");
    for (rel, r) in program.relations.iter().enumerate() {
        if !r.output {
            continue;
        }
        let rows: Vec<Vec<i32>> = session
            .contents(rel)
            .into_iter()
            .map(|(row, _)| row)
            .collect();
        let text = sudolog::facts::format_rows(&program, rel, &rows, session.symbols_ref());
        if out == "-" {
            print!(
                "---------------\n{}\n===============\n{}===============\n",
                r.name, text
            );
        } else {
            let file = Path::new(out).join(format!("{}.csv", r.name));
            std::fs::write(&file, text)
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        }
    }
    if args.flag("--stats") {
        eprintln!(
            "evaluated in {:.3} s ({} changes)",
            start.elapsed().as_secs_f64(),
            commit.changes.len()
        );
    }
    Ok(0)
}
