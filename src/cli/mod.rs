//! Command-line front end: argument parsing and dispatch to the commands.

mod args;
mod bench;
mod edit;
mod engine;
mod sudoku;

use args::Args;

const USAGE: &str = "\
sudolog: Datalog rules compiled onto differential dataflow; Sudoku as a first domain.

Usage:
  sudolog run PROGRAM.dl [-F FACTS_DIR] [-D OUTPUT_DIR|-] [-w N] [--stats]
  sudolog check PROGRAM.dl...
  sudolog solve FILE... [--no-search] [--first] [--fast] [--format text|json] [--chunk N (default 32)]
  sudolog explain PUZZLE [--notation drools|rc] [--no-search]
  sudolog dump PUZZLE [--rounds K]
  sudolog validate PUZZLE
  sudolog edit [PUZZLE] [--notation drools|rc] [--echo]   (commands on stdin; type help)
  sudolog serve [--port N] [--fast] [PUZZLE]   the board: a web page on 127.0.0.1 (default port 8080)

PUZZLE is a file, an 81-character string, - for stdin, or a sample name:
simple, medium, hard1, hard2, hard3, hard4, broken, sdo, javadoc, 6948.
Sudoku commands take --rules FILE (repeatable) to replace the built-in rule programs.
  sudolog bench tc [--nodes N] [--edges M] [--seed S] [--repeat K]
  sudolog bench solve FILE [--limit N] [--fast] [--no-search] [--first] [--chunk N (default 32)]
  sudolog help

Engine options:
  -w, --workers N      worker threads (default 1)
  -n, --processes N    processes (timely), with -p/--process I and -h/--hostfile FILE
";

pub fn main(argv: Vec<String>) -> i32 {
    let Some((cmd, rest)) = argv.split_first() else {
        eprint!("{USAGE}");
        return 2;
    };
    let args = match Args::parse(rest) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("sudolog {cmd}: {e}");
            return 2;
        }
    };
    let result = match cmd.as_str() {
        "run" => engine::run(&args),
        "check" => engine::check(&args),
        "solve" => sudoku::solve(&args),
        "explain" => sudoku::explain(&args),
        "dump" => sudoku::dump(&args),
        "validate" => sudoku::validate(&args),
        "edit" => edit::run(&args),
        "bench" => bench::run(&args),
        "serve" => serve(&args),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(0)
        }
        other => Err(format!("unknown command '{other}'\n{USAGE}")),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprint!(
                "{}",
                if e.ends_with('\n') {
                    e
                } else {
                    format!("{e}\n")
                }
            );
            1
        }
    }
}

/// `sudolog serve [--port N] [--fast] [--rules FILE]... [PUZZLE]`: the board.
fn serve(args: &Args) -> Result<i32, String> {
    use sudolog::sudoku::rules::{self, Builtin};
    args.reject_unknown(&["--fast"])?;
    let port: u16 = args.number("--port", 8080)?;
    let puzzle = match args.positional.as_slice() {
        [] => sudolog::sudoku::grid::Grid::empty(sudolog::sudoku::grid::Shape::NINE),
        [arg] => {
            sudolog::sudoku::puzzle::parse_puzzle_arg(arg)?
                .into_iter()
                .next()
                .ok_or_else(|| format!("no puzzle in '{arg}'"))?
                .map_err(|e| e.to_string())?
                .grid
        }
        _ => return Err("sudolog serve: give at most one PUZZLE".into()),
    };
    let default = if args.flag("--fast") {
        Builtin::Fast
    } else {
        Builtin::Full
    };
    let program = rules::load(&args.values("--rules"), default)?;
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    sudolog::web::serve(sudolog::web::ServeOptions {
        addr,
        program,
        puzzle,
    })
    .map_err(|e| e.to_string())?;
    Ok(0)
}
