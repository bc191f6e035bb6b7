//! `sudolog bench ...`: measurements, printed as text for docs/PERFORMANCE.md.
//! Speed targets live here, never in timed tests.
//!
//! - `bench tc [--nodes N] [--edges M] [--seed S] [--repeat K]`: transitive closure of
//!   a random graph from scratch, then the latency of inserting and of deleting one
//!   edge, side by side with recomputing from scratch.
//! - `bench solve FILE [--limit N] [--fast] [-w N] [--no-search] [--first]`: solving
//!   throughput and peak memory.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::args::Args;
use super::sudoku::{program, program_name};
use sudolog::check::check_str;
use sudolog::session::{Config, Observe, Session};
use sudolog::sudoku::rules::Builtin;

const TC: &str = include_str!("../../benches/tc.dl");

#[path = "../../benches/common/graph.rs"]
mod graph;

/// A `kB` line of /proc/self/status (NaN where there is none).
fn status_kib(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|k| k.parse::<f64>().ok())
        })
        .unwrap_or(f64::NAN)
}

/// Peak resident memory of this process so far (VmHWM), in MiB.
pub fn peak_mib() -> f64 {
    status_kib("VmHWM:") / 1024.0
}

pub fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    if v.is_empty() {
        Duration::ZERO
    } else {
        v[v.len() / 2]
    }
}

pub fn percentile(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    if v.is_empty() {
        Duration::ZERO
    } else {
        v[((v.len() - 1) as f64 * p).round() as usize]
    }
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn tc(args: &Args) -> Result<i32, String> {
    let nodes: u64 = args.number("--nodes", 1000)?;
    let edges: usize = args.number("--edges", 2000)?;
    let seed: u64 = args.number("--seed", 1)?;
    let repeat: usize = args.number("--repeat", 20)?;
    let program = Arc::new(check_str("tc.dl", TC).map_err(|d| d.to_string())?);
    let edge = program.relation("edge").unwrap();
    let path = program.relation("path").unwrap();
    let mut graph = graph::RandomGraph::new(nodes, edges, seed);
    let config = |w: usize| Config {
        workers: w,
        observe: Observe::Relations(vec![path]),
        ..Default::default()
    };
    let workers = args.engine_config()?.workers;
    println!("transitive closure: {nodes} nodes, {edges} edges (seed {seed}), {workers} worker(s)");
    let mut session = Session::new(program.clone(), config(workers))?;
    let start = Instant::now();
    for &(a, b) in &graph.edges {
        session.insert(edge, &[a, b])?;
    }
    session.commit()?;
    let scratch = start.elapsed();
    let paths = session.len(path);
    println!(
        "from scratch: {} for {paths} paths; peak memory {:.0} MiB",
        ms(scratch),
        peak_mib()
    );
    // Single-edge updates: insert a new edge, then delete it again.
    let (mut ins, mut del) = (Vec::new(), Vec::new());
    let mut changed = 0;
    for _ in 0..repeat {
        let e = graph.new_edge();
        session.insert(edge, &[e.0, e.1])?;
        let c = session.commit()?;
        changed += c.changes.len();
        ins.push(c.elapsed);
        session.retract(edge, &[e.0, e.1])?;
        del.push(session.commit()?.elapsed);
    }
    // Side by side: recomputing from scratch in a fresh session, a few times.
    let mut fresh = Vec::new();
    for _ in 0..3 {
        let mut s = Session::new(program.clone(), config(workers))?;
        let t = Instant::now();
        for &(a, b) in &graph.edges {
            s.insert(edge, &[a, b])?;
        }
        s.commit()?;
        fresh.push(t.elapsed());
    }
    let (mi, md, mf) = (median(&mut ins), median(&mut del), median(&mut fresh));
    println!(
        "insert one edge: median {} ({} changed paths on average); delete one edge: median {}",
        ms(mi),
        changed / repeat.max(1),
        ms(md)
    );
    println!(
        "recompute from scratch: median {}; ratio scratch/insert {:.0}x, scratch/delete {:.0}x",
        ms(mf),
        mf.as_secs_f64() / mi.as_secs_f64().max(1e-9),
        mf.as_secs_f64() / md.as_secs_f64().max(1e-9)
    );
    Ok(0)
}

fn solve(args: &Args) -> Result<i32, String> {
    use sudolog::sudoku::batch::{solve_stream, Limits, Summary};
    use sudolog::sudoku::board::{Board, Options};
    use sudolog::sudoku::grid::check_solution;
    use sudolog::sudoku::puzzle::PuzzleReader;
    use sudolog::sudoku::search::Outcome;
    let [file] = args.positional.as_slice() else {
        return Err("bench solve FILE".into());
    };
    let limit: usize = args.number("--limit", usize::MAX)?;
    let limits = Limits {
        batch: args.number("--chunk", Limits::default().batch)?.max(1),
        ..Limits::default()
    };
    let program = program(args, Builtin::Full)?;
    let c = args.engine_config()?;
    let mut board = Board::new(
        program,
        &Options {
            workers: c.workers,
            timely_args: c.timely_args,
            search: true,
            ..Default::default()
        },
    )?;
    let mode = super::sudoku::mode(args)?;
    let f = std::fs::File::open(file).map_err(|e| format!("cannot read '{file}': {e}"))?;
    let mut reader = PuzzleReader::new(file.as_str(), std::io::BufReader::new(f)).take(limit);
    let mut summary = Summary::default();
    // Every solution is checked against its puzzle's givens and the Sudoku rules.
    let (mut checked, mut wrong) = (0, Vec::new());
    let start = Instant::now();
    solve_stream(&mut board, &mut reader, mode, limits, &mut |r| {
        summary.add(&r);
        if let Ok(s) = &r {
            if matches!(s.outcome, Outcome::Solved | Outcome::Multiple) {
                checked += 1;
                if let Err(e) = check_solution(&s.puzzle.grid, &s.grid) {
                    wrong.push(format!("{}:{}: {e}", s.puzzle.source, s.puzzle.line));
                }
            }
        }
        Ok(())
    })?;
    let elapsed = start.elapsed();
    println!(
        "{} ({} rules, {} worker(s), search {}, batch {}): {}; {checked} solutions checked, {} wrong; peak memory {:.0} MiB",
        file,
        program_name(args, Builtin::Full),
        c.workers,
        if mode.search {
            if mode.first {
                "first"
            } else {
                "on"
            }
        } else {
            "off"
        },
        limits.batch,
        summary.line(elapsed),
        wrong.len(),
        peak_mib()
    );
    for w in &wrong {
        println!("wrong solution: {w}");
    }
    Ok(if wrong.is_empty() { 0 } else { 1 })
}

/// Resident memory of this process now (VmRSS), in MiB.
pub fn rss_mib() -> f64 {
    status_kib("VmRSS:") / 1024.0
}

/// Edit latency: a long random edit script, each edit's incremental commit timed,
/// side by side with from-scratch evaluations of the same states; memory of the live
/// session after its first 1,000 edits and after all `--edits`.
fn edit(args: &Args) -> Result<i32, String> {
    let n: usize = args.number("--edits", 20_000)?;
    let seed: u64 = args.number("--seed", 1)?;
    let every: usize = args.number("--scratch-every", 10)?;
    let program = program(args, Builtin::Full)?;
    // Memory is read after the first 1,000 edits (or all, if fewer) and at the end.
    let warm = n.min(1000);
    let mut memory = Vec::new();
    let (mut inc, mut scratch) =
        sudolog::sudoku::edit::bench_edits(program, n, seed, every, |k| {
            if k == warm || k == n {
                memory.push((k, rss_mib(), peak_mib()));
            }
        })?;
    let (mi, ms_) = (median(&mut inc), median(&mut scratch));
    println!(
        "edit session: {n} random edits on the 9x9 samples ({} rules, seed {seed})",
        program_name(args, Builtin::Full)
    );
    println!(
        "incremental: median {}, p99 {} over {} edits",
        ms(mi),
        ms(percentile(&mut inc, 0.99)),
        inc.len()
    );
    if !scratch.is_empty() {
        println!(
            "from scratch (same states, every {every}th): median {}, p99 {} over {} states; ratio of medians {:.1}x",
            ms(ms_),
            ms(percentile(&mut scratch, 0.99)),
            scratch.len(),
            ms_.as_secs_f64() / mi.as_secs_f64().max(1e-9),
        );
    }
    let memory: Vec<String> = memory
        .iter()
        .map(|(k, rss, peak)| format!("after {k} edits {rss:.0} MiB resident ({peak:.0} MiB peak)"))
        .collect();
    println!("memory (one session): {}", memory.join("; "));
    Ok(0)
}

pub fn run(args: &Args) -> Result<i32, String> {
    let Some((what, rest)) = args.positional.split_first() else {
        return Err("bench what? tc | solve FILE | edit".into());
    };
    let args = args.with_positional(rest.to_vec());
    let flags: &[&str] = match what.as_str() {
        "solve" => &["--fast", "--no-search", "--first"],
        "edit" => &["--fast"],
        _ => &[],
    };
    args.reject_unknown(flags)?;
    match what.as_str() {
        "tc" => tc(&args),
        "solve" => solve(&args),
        "edit" => edit(&args),
        other => Err(format!(
            "unknown benchmark '{other}'; use tc, solve or edit"
        )),
    }
}
