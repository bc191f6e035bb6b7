//! Transitive closure: sudolog's engine side by side with the same computation
//! written by hand in differential dataflow, in one run.
//!
//! `cargo bench --bench tc_baseline [-- WORKERS]` (default 1 worker). The graph is
//! `sudolog bench tc`'s (1,000 nodes, 2,000 edges, seed 1). Two renderings, each side
//! in the same idiom:
//!
//! - batch, from scratch five times: the loop's rounds totally ordered (`(u32, u32)`
//!   timestamps in lexicographic order), so deduplication is `distinct_total`;
//! - incremental: from scratch three times, then 20 random new edges each inserted
//!   and deleted one at a time, with the textbook `iterate` (product-ordered rounds,
//!   `distinct`).
//!
//! `TC_BASELINE_ONE=hand` or `=sudolog` runs one side's updates alone (400 edges),
//! to profile them.
//!
//! The hand-written version uses `(i32, i32)` tuples: it measures what differential
//! dataflow itself costs on this workload, so the ratio says how much sudolog's
//! interpretation of a plan adds, and what the engine's goals can be.

use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use differential_dataflow::input::Input;
use differential_dataflow::operators::iterate::{Iterate, VecVariable};
use differential_dataflow::operators::ThresholdTotal;
use sudolog::check::check_str;
use sudolog::session::{Config, Observe, Session};

const TC: &str = include_str!("tc.dl");

mod common {
    pub mod graph;
}

struct Script {
    edges: Vec<(i32, i32)>,
    /// New edges, each inserted then deleted.
    updates: Vec<(i32, i32)>,
}

/// The graph and `updates` new edges.
fn script(updates: usize) -> Script {
    let mut graph = common::graph::RandomGraph::new(1000, 2000, 1);
    let updates = (0..updates).map(|_| graph.new_edge()).collect();
    Script {
        edges: graph.edges.into_iter().collect(),
        updates,
    }
}

/// Adds a batch's differences to the workers' shared count (one atomic add a
/// batch, not a lock a path: the workers would contend for it).
fn add_diffs<D, T>(count: &AtomicIsize, batch: &[(D, T, isize)]) {
    count.fetch_add(batch.iter().map(|u| u.2).sum(), Ordering::Relaxed);
}

/// Times: from scratch, then each insert and each delete; and the closure's size.
struct Times {
    scratch: Duration,
    ins: Vec<Duration>,
    del: Vec<Duration>,
    paths: usize,
}

fn hand_written(s: &Script, workers: usize) -> Times {
    let out = Arc::new(Mutex::new(None));
    let (edges, updates, out2) = (s.edges.clone(), s.updates.clone(), out.clone());
    // Every worker sees its own share of the paths: they count into one total.
    let count = Arc::new(AtomicIsize::new(0));
    timely::execute(timely::Config::process(workers), move |worker| {
        let count = count.clone();
        let index = worker.index();
        let (mut input, probe) = worker.dataflow::<u32, _, _>(|scope| {
            let (input, edges) = scope.new_collection::<(i32, i32), isize>();
            let paths = edges.clone().iterate(|inner_scope, inner| {
                let edges = edges.clone().enter(inner_scope);
                let by_src = edges.clone().arrange_by_key();
                inner
                    .map(|(x, y)| (y, x))
                    .join_core(by_src, |_y, x, z| Some((*x, *z)))
                    .concat(edges)
                    .distinct()
            });
            let c2 = count.clone();
            let (probe, _) = paths
                .inspect_batch(move |_, batch| add_diffs(&c2, batch))
                .probe();
            (input, probe)
        });
        let mut run = |input: &mut differential_dataflow::input::InputSession<_, _, _>,
                       change: &[((i32, i32), isize)]| {
            let t = Instant::now();
            if index == 0 {
                for &(e, d) in change {
                    input.update(e, d);
                }
            }
            let next = *input.time() + 1;
            input.advance_to(next);
            input.flush();
            while probe.less_than(input.time()) {
                worker.step_or_park(None);
            }
            t.elapsed()
        };
        let all: Vec<_> = edges.iter().map(|&e| (e, 1)).collect();
        let scratch = run(&mut input, &all);
        let paths = count.load(Ordering::SeqCst) as usize;
        let (mut ins, mut del) = (Vec::new(), Vec::new());
        for &e in &updates {
            ins.push(run(&mut input, &[(e, 1)]));
            del.push(run(&mut input, &[(e, -1)]));
        }
        if index == 0 {
            *out2.lock().unwrap() = Some(Times {
                scratch,
                ins,
                del,
                paths,
            });
        }
    })
    .expect("timely runs");
    let times = out.lock().unwrap().take().expect("worker 0 reports");
    times
}

/// Hand-written, batch idioms: the loop's rounds totally ordered (`(u32, u32)` in
/// lexicographic order) so that `distinct_total` replaces `distinct`. One run from
/// scratch: its time and the closure's size.
fn hand_written_batch(s: &Script, workers: usize) -> (Duration, usize) {
    let out = Arc::new(Mutex::new(Duration::ZERO));
    let (edges, out2) = (s.edges.clone(), out.clone());
    let count = Arc::new(AtomicIsize::new(0));
    let count2 = count.clone();
    timely::execute(timely::Config::process(workers), move |worker| {
        let count = count2.clone();
        let (mut input, probe) = worker.dataflow::<u32, _, _>(|scope| {
            let (input, edges) = scope.new_collection::<(i32, i32), isize>();
            let paths = scope.scoped::<(u32, u32), _, _>("Batch", |inner| {
                let edges = edges.enter(inner);
                let (var, paths) = VecVariable::new(inner, (0, 1));
                let by_src = edges.clone().arrange_by_key();
                let next = paths
                    .map(|(x, y)| (y, x))
                    .join_core(by_src, |_y, x, z| Some((*x, *z)))
                    .concat(edges)
                    .distinct_total();
                var.set(next.clone());
                next.leave(scope)
            });
            let (probe, _) = paths
                .inspect_batch(move |_, batch| add_diffs(&count, batch))
                .probe();
            (input, probe)
        });
        let t = Instant::now();
        if worker.index() == 0 {
            for &e in &edges {
                input.insert(e);
            }
        }
        input.advance_to(1);
        input.flush();
        while probe.less_than(input.time()) {
            worker.step_or_park(None);
        }
        if worker.index() == 0 {
            *out2.lock().unwrap() = t.elapsed();
        }
    })
    .expect("timely runs");
    let paths = count.load(Ordering::SeqCst) as usize;
    let time = *out.lock().unwrap();
    (time, paths)
}

/// A sudolog session on tc.dl (`batch`: the batch rendering) with the script's edges
/// committed: the session, the time of that first commit, and `edge` and `path`.
fn loaded_session(s: &Script, workers: usize, batch: bool) -> (Session, Duration, usize, usize) {
    let program = Arc::new(check_str("tc.dl", TC).expect("the program checks"));
    let (edge, path) = (
        program.relation("edge").unwrap(),
        program.relation("path").unwrap(),
    );
    let config = Config {
        workers,
        observe: Observe::Relations(vec![path]),
        batch,
        // As `sudolog run` and `bench tc`: a batch run reads contents, not a list of
        // changes; editing sessions list them.
        changes: !batch,
        ..Default::default()
    };
    let mut session = Session::new(program, config).expect("session starts");
    let t = Instant::now();
    for &(a, b) in &s.edges {
        session.insert(edge, &[a, b]).unwrap();
    }
    session.commit().unwrap();
    (session, t.elapsed(), edge, path)
}

/// sudolog's batch rendering: one run from scratch, its time and the closure's size.
fn sudolog_batch(s: &Script, workers: usize) -> (Duration, usize) {
    let (session, time, _, path) = loaded_session(s, workers, true);
    (time, session.len(path))
}

fn sudolog_engine(s: &Script, workers: usize) -> Times {
    let (mut session, scratch, edge, path) = loaded_session(s, workers, false);
    let paths = session.len(path);
    let (mut ins, mut del) = (Vec::new(), Vec::new());
    for &(a, b) in &s.updates {
        session.insert(edge, &[a, b]).unwrap();
        ins.push(session.commit().unwrap().elapsed);
        session.retract(edge, &[a, b]).unwrap();
        del.push(session.commit().unwrap().elapsed);
    }
    Times {
        scratch,
        ins,
        del,
        paths,
    }
}

/// `TC_BASELINE_ONE=hand` (or `=sudolog`): that side's incremental rendering
/// alone, from scratch once, then 400 new edges each inserted and deleted, so its
/// updates can be profiled apart from the other side.
fn one_side(side: &str, workers: usize) {
    let s = script(400);
    let t = match side {
        "hand" => hand_written(&s, workers),
        "sudolog" => sudolog_engine(&s, workers),
        _ => panic!("TC_BASELINE_ONE is hand or sudolog, not {side:?}"),
    };
    println!(
        "{side}, {workers} worker(s), 400 edges: insert median {:.2} ms, delete median {:.2} ms",
        median(t.ins),
        median(t.del)
    );
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1000.0
}

fn main() {
    let workers: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1);
    if let Ok(side) = std::env::var("TC_BASELINE_ONE") {
        return one_side(&side, workers);
    }
    let s = script(20);
    let (mut hand_b, mut ours_b) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        hand_b.push(hand_written_batch(&s, workers));
        ours_b.push(sudolog_batch(&s, workers));
    }
    let (mut hand, mut ours) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        hand.push(hand_written(&s, workers));
        ours.push(sudolog_engine(&s, workers));
    }
    assert_eq!(
        hand[0].paths, ours[0].paths,
        "both compute the same closure"
    );
    for (h, o) in hand_b.iter().zip(&ours_b) {
        assert_eq!(
            (h.1, o.1),
            (hand[0].paths, hand[0].paths),
            "batch runs agree"
        );
    }
    let hb = median(hand_b.iter().map(|r| r.0).collect());
    let ob = median(ours_b.iter().map(|r| r.0).collect());
    println!(
        "transitive closure, {} paths, {workers} worker(s)",
        ours[0].paths
    );
    println!("from scratch, batch rendering (rounds totally ordered), median of 5:");
    println!("| | from scratch |");
    println!("|---|---|");
    println!("| hand-written differential dataflow | {hb:.0} ms |");
    println!("| sudolog | {ob:.0} ms |");
    println!(
        "sudolog / hand-written, batch from scratch: {:.2}x",
        ob / hb
    );
    println!("incremental rendering: medians of 3 runs (scratch) and of 60 updates:");
    println!("| | from scratch | insert one edge | delete one edge | scratch / insert | scratch / delete |");
    println!("|---|---|---|---|---|---|");
    let row = |name: &str, t: &[Times]| {
        let scratch = median(t.iter().map(|t| t.scratch).collect());
        let ins = median(t.iter().flat_map(|t| t.ins.iter().copied()).collect());
        let del = median(t.iter().flat_map(|t| t.del.iter().copied()).collect());
        println!(
            "| {name} | {scratch:.0} ms | {ins:.1} ms | {del:.1} ms | {:.0}x | {:.0}x |",
            scratch / ins,
            scratch / del
        );
        scratch
    };
    let h = row("hand-written differential dataflow", &hand);
    let o = row("sudolog", &ours);
    println!(
        "sudolog / hand-written, incremental from scratch: {:.2}x",
        o / h
    );
    println!(
        "incremental updates against batch from scratch: hand-written {:.0}x, sudolog {:.0}x (insert)",
        hb / median(hand.iter().flat_map(|t| t.ins.iter().copied()).collect()),
        ob / median(ours.iter().flat_map(|t| t.ins.iter().copied()).collect())
    );
}
