//! `sudolog bench ...`: measurements, printed as text for docs/PERFORMANCE.md.
//! Speed targets live here, never in timed tests.
//!
//! - `bench tc [--nodes N] [--edges M] [--seed S] [--repeat K]`: transitive closure of
//!   a random graph from scratch, then the latency of inserting and of deleting one
//!   edge, side by side with recomputing from scratch.
//! - `bench solve FILE [--limit N] [--fast] [-w N] [--no-search] [--first]`: solving
//!   throughput and peak memory.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::args::{BenchCommand, BenchEditArgs, BenchSolveArgs, BenchTcArgs};
use super::error::{self, CliError};
use super::progress;
use super::puzzles;
use super::rules::{program, program_name, require, solving, CANDIDATES, EDIT, STATUS};
use sudolog::check::check_str;
use sudolog::check::ir::RelId;
use sudolog::session::{Config, Observe, Session};
use sudolog::sudoku::edit::Draw;
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

/// The graph's size, checked: at least one node, and room for the edges and for
/// the `repeat` new edges the updates need (edges are distinct ordered pairs,
/// self-loops included, so at most N*N of them).
fn check_graph(args: &BenchTcArgs) -> Result<(), CliError> {
    let pairs = (args.nodes as u128) * (args.nodes as u128);
    let room = if args.repeat > 0 { pairs - 1 } else { pairs };
    if args.edges as u128 > room {
        return Err(CliError::usage(format!(
            "--edges {}: a graph of {} node(s) has {pairs} distinct edges{}; give at most {room}",
            args.edges,
            args.nodes,
            if args.repeat > 0 {
                " and the updates need one more"
            } else {
                ""
            }
        )));
    }
    if args.edges > 100_000_000 {
        return Err(CliError::usage(format!(
            "--edges {}: at most 100000000",
            args.edges
        )));
    }
    Ok(())
}

fn tc(args: &BenchTcArgs) -> Result<u8, CliError> {
    check_graph(args)?;
    let (nodes, edges, seed, repeat) = (
        args.nodes,
        args.edges as usize,
        args.seed,
        args.repeat as usize,
    );
    let engine = args.engine.config(1)?;
    let program = Arc::new(check_str("tc.dl", TC).map_err(|d| CliError::Program(d.to_string()))?);
    let rel = |name: &str| {
        program
            .relation(name)
            .ok_or_else(|| CliError::Engine(format!("benches/tc.dl has no '{name}'")))
    };
    let (edge, path) = (rel("edge")?, rel("path")?);
    let mut graph = graph::RandomGraph::new(nodes, edges, seed);
    // Incremental sessions for updates; from-scratch recomputations are batch jobs
    // (the batch rendering, contents read at the end).
    let config = |w: usize, batch: bool| Config {
        workers: w,
        timely_args: engine.timely_args.clone(),
        observe: Observe::Relations(vec![path]),
        batch,
        changes: !batch,
        ..Default::default()
    };
    let workers = engine.workers;
    println!("transitive closure: {nodes} nodes, {edges} edges (seed {seed}), {workers} worker(s)");
    let bar = progress::spinner("from scratch");
    let mut session = super::stdio::to_stderr(engine.processes > 1, || {
        Session::new(program.clone(), config(workers, false))
    })
    .map_err(error::engine)?;
    let start = Instant::now();
    insert_edges(&mut session, edge, &graph.edges)?;
    let scratch = start.elapsed();
    bar.finish_and_clear();
    let paths = session.len(path);
    println!(
        "from scratch (incremental rendering): {} for {paths} paths; peak memory {:.0} MiB",
        ms(scratch),
        peak_mib()
    );
    let Updates {
        mut ins,
        mut del,
        changed,
    } = single_edge_updates(&mut session, &mut graph, edge, repeat)?;
    // Side by side: recomputing from scratch in a fresh session, a few times.
    let mut fresh = Vec::new();
    let bar = progress::counter(Some(3), "recomputations");
    for _ in 0..3 {
        let mut s = super::stdio::to_stderr(engine.processes > 1, || {
            Session::new(program.clone(), config(workers, true))
        })
        .map_err(error::engine)?;
        let t = Instant::now();
        insert_edges(&mut s, edge, &graph.edges)?;
        fresh.push(t.elapsed());
        bar.inc(1);
    }
    bar.finish_and_clear();
    let (mi, md, mf) = (median(&mut ins), median(&mut del), median(&mut fresh));
    println!(
        "insert one edge: median {} ({} changed paths on average); delete one edge: median {}",
        ms(mi),
        changed / repeat.max(1),
        ms(md)
    );
    println!(
        "recompute from scratch (batch rendering): median {}; ratio scratch/insert {:.0}x, scratch/delete {:.0}x",
        ms(mf),
        mf.as_secs_f64() / mi.as_secs_f64().max(1e-9),
        mf.as_secs_f64() / md.as_secs_f64().max(1e-9)
    );
    Ok(0)
}

/// Every edge of a graph inserted into `edge` and committed (a run from scratch).
fn insert_edges<'a>(
    session: &mut Session,
    edge: RelId,
    edges: impl IntoIterator<Item = &'a (i32, i32)>,
) -> Result<(), CliError> {
    for &(a, b) in edges {
        session.insert(edge, &[a, b]).map_err(error::engine)?;
    }
    session.commit().map_err(error::engine)?;
    Ok(())
}

/// What `repeat` single-edge updates took: each insert's and delete's commit time,
/// and the paths the inserts changed in all.
struct Updates {
    ins: Vec<Duration>,
    del: Vec<Duration>,
    changed: usize,
}

/// `repeat` times: a new random edge inserted and committed, then retracted and
/// committed, so the graph ends as it began.
fn single_edge_updates(
    session: &mut Session,
    graph: &mut graph::RandomGraph,
    edge: RelId,
    repeat: usize,
) -> Result<Updates, CliError> {
    let mut u = Updates {
        ins: Vec::new(),
        del: Vec::new(),
        changed: 0,
    };
    let bar = progress::counter(Some(repeat as u64), "updates");
    for _ in 0..repeat {
        bar.inc(1);
        let e = graph.new_edge();
        session.insert(edge, &[e.0, e.1]).map_err(error::engine)?;
        let c = session.commit().map_err(error::engine)?;
        u.changed += c.changed;
        u.ins.push(c.elapsed);
        session.retract(edge, &[e.0, e.1]).map_err(error::engine)?;
        u.del.push(session.commit().map_err(error::engine)?.elapsed);
    }
    bar.finish_and_clear();
    Ok(u)
}

fn solve(args: &BenchSolveArgs) -> Result<u8, CliError> {
    use sudolog::sudoku::batch::{solve_sharded, Engines, Limits, Summary};
    use sudolog::sudoku::board::{Board, Options};
    use sudolog::sudoku::grid::check_solution;
    use sudolog::sudoku::search::Outcome;
    let file = &args.puzzles;
    let limit = args.limit.map_or(usize::MAX, |n| n as usize);
    let program = program(&args.rules, Builtin::Full)?;
    require(&program, &solving(&args.search), "bench solve")?;
    let c = args.engine.config(1)?;
    c.single_process_search(!args.search.no_search)?;
    let multi = c.processes > 1;
    // As `solve` does: one engine of one worker per worker thread in one process.
    let shards = if multi { 1 } else { c.workers };
    let limits = Limits::for_engines(args.batch.chunk.map(|c| c as usize), shards, &program);
    let opts = Options {
        workers: if shards > 1 { 1 } else { c.workers },
        timely_args: c.timely_args.clone(),
        search: !args.search.no_search,
        // Children start from their parent's candidates.
        inherit: true,
        batch: true,
        ..Default::default()
    };
    let make = || Board::new(program.clone(), &opts);
    let mut board = match shards {
        1 => Some(super::stdio::to_stderr(multi, make).map_err(error::engine)?),
        _ => None,
    };
    let engines = match &mut board {
        Some(board) => Engines::One(board),
        None => Engines::Many {
            shards,
            make: &make,
            finish: &|_| Ok(()),
        },
    };
    let mode = args.search.mode();
    let mut reader = puzzles::open(file)?.take(limit);
    let mut summary = Summary::default();
    // Every solution is checked against its puzzle's givens and the Sudoku rules.
    let (mut checked, mut wrong) = (0, Vec::new());
    let start = Instant::now();
    let bar = progress::counter((limit != usize::MAX).then_some(limit as u64), "puzzles");
    solve_sharded(engines, &mut reader, mode, limits, &mut |r| {
        summary.add(&r);
        bar.inc(1);
        if let Ok(s) = &r {
            if matches!(s.outcome, Outcome::Solved | Outcome::Multiple) {
                checked += 1;
                if let Err(e) = check_solution(&s.puzzle.grid, &s.grid) {
                    wrong.push(format!("{}:{}: {e}", s.puzzle.source, s.puzzle.line));
                }
            }
        }
        Ok(())
    })
    .map_err(error::engine)?;
    bar.finish_and_clear();
    let elapsed = start.elapsed();
    println!(
        "{} ({} rules, {} worker(s), search {}, batch {}): {}; {checked} solutions checked, {} wrong; peak memory {:.0} MiB",
        file,
        program_name(&args.rules, Builtin::Full),
        c.workers,
        match (mode.search, mode.first) {
            (false, _) => "off",
            (true, true) => "first",
            (true, false) => "on",
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

/// An edit script's commands: its lines, without blank ones and `#` comments.
fn read_script(path: &Path) -> Result<Vec<String>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::Input(format!("cannot read {}: {e}", path.display())))?;
    let lines = text.lines().map(str::trim);
    Ok(lines
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect())
}

/// Edit latency: a long random edit script, each edit's incremental commit timed,
/// side by side with from-scratch evaluations of the same states; memory of the live
/// session after its first 1,000 edits and after all `--edits`.
fn edit(args: &BenchEditArgs) -> Result<u8, CliError> {
    let (n, seed, every) = (args.edits as usize, args.seed, args.scratch_every as usize);
    let (program, split) = super::rules::stepping(&args.rules, Builtin::Full, true)?;
    for needs in [STATUS, CANDIDATES, EDIT] {
        require(&program, needs, "bench edit")?;
    }
    // Memory is read after the first 1,000 edits (or all, if fewer) and at the end.
    let warm = n.min(1000);
    let mut memory = Vec::new();
    let bar = progress::counter(Some(n as u64), "edits");
    let profile = args.profile;
    let script = args.script.as_deref().map(read_script).transpose()?;
    let draw = Draw { seed, script };
    let times = sudolog::sudoku::edit::bench_edits(program, split, n, draw, every, profile, |k| {
        bar.inc(1);
        if k == warm || k == n {
            memory.push((k, rss_mib(), peak_mib()));
        }
    })
    .map_err(error::engine)?;
    let (mut inc, mut scratch) = (times.incremental, times.scratch);
    bar.finish_and_clear();
    if let Some(path) = &args.save_script {
        let text: String = times.commands.iter().map(|c| format!("{c}\n")).collect();
        std::fs::write(path, text).map_err(|source| CliError::Write {
            what: path.display().to_string(),
            source,
        })?;
    }
    let (mi, ms_) = (median(&mut inc), median(&mut scratch));
    let drawn = match &args.script {
        Some(path) => format!("edits of {}", path.display()),
        None => "random edits".into(),
    };
    println!(
        "edit session: {} {drawn} on the 9x9 samples ({} rules, seed {seed})",
        inc.len(),
        program_name(&args.rules, Builtin::Full)
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
    if let Some((program, costs)) = times.profile {
        eprintln!(
            "the session's costs over its {} edits (times include the measuring):",
            inc.len()
        );
        eprint!("{}", super::profile::table(&program, &costs));
    }
    Ok(0)
}

/// `sudolog bench tc | solve | edit`
pub fn run(command: &BenchCommand) -> Result<u8, CliError> {
    match command {
        BenchCommand::Tc(args) => tc(args),
        BenchCommand::Solve(args) => solve(args),
        BenchCommand::Edit(args) => edit(args),
    }
}
