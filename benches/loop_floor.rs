//! The substrate's floor for a large rule program: what differential dataflow itself
//! costs per round of a loop that holds as many operators as sudolog's full rules,
//! when almost nothing changes in a round. An edit on the full rules runs ~20-30
//! rounds through ~1,500 operators, most of which see no data in most rounds; this
//! bench measures that shape with hand-written differential dataflow and no data to
//! speak of, so the time it reports is building, scheduling and progress tracking.
//!
//! `cargo bench --bench loop_floor [-- ROUNDS [EDITS]]` (defaults: 30 rounds, 200
//! edits; one worker, as `sudolog bench edit`). For loops of 100, 200 and 400
//! "rules" of three operators each, under one `iterate` (product-ordered rounds,
//! `distinct`: the incremental rendering), in two shapes: each rule a join step as
//! sudolog renders one (the rows keyed, arranged, joined with a static
//! arrangement), or three stateless maps (which timely schedules only when rows
//! arrive, so what they cost a round is progress tracking alone):
//!
//! - **build**: constructing the dataflow;
//! - **first epoch**: one seed row, run to the fixpoint (the static rows were
//!   loaded and their input closed before it);
//! - **edit**: one new seed row, which walks the loop for ROUNDS rounds (round r's
//!   row is read by one rule only), run to the fixpoint; the median over EDITS;
//! - **empty epoch**: an epoch that changes nothing; the median over EDITS.
//!
//! The operators are counted from timely's log (scopes included). The slope between
//! loop sizes is the cost of one operator per round, which, times sudolog's
//! operators and rounds, bounds an edit from below on this substrate.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use differential_dataflow::input::Input;
use differential_dataflow::operators::iterate::Iterate;
use timely::logging::{TimelyEvent, TimelyEventBuilder};

/// What a rule does with its rows: three operators either way.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Keys them, arranges them and joins them with a static arrangement, as a join
    /// step of sudolog's does.
    Join,
    /// Three stateless maps, which timely schedules only when rows arrive.
    Map,
}

/// What one loop size measured.
struct Floor {
    rules: u32,
    operators: usize,
    build: Duration,
    first: Duration,
    edit: Duration,
    empty: Duration,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// One worker, a loop of `rules` rules; `rounds` rounds per edit, `edits` edits.
fn measure(shape: Shape, rules: u32, rounds: u32, edits: u32) -> Floor {
    let out = std::sync::Arc::new(std::sync::Mutex::new(None));
    let out2 = out.clone();
    timely::execute(timely::Config::thread(), move |worker| {
        let operators = Rc::new(Cell::new(0usize));
        let ops = operators.clone();
        if let Some(mut reg) = worker.log_register() {
            reg.insert::<TimelyEventBuilder, _>("timely", move |_t, data| {
                if let Some(events) = data {
                    let n = events
                        .iter()
                        .filter(|(_, e)| matches!(e, TimelyEvent::Operates(_)))
                        .count();
                    ops.set(ops.get() + n);
                }
            });
        }
        let t = Instant::now();
        let (mut seed, mut table, probe) = worker.dataflow::<u32, _, _>(|scope| {
            let (seed_in, seed) = scope.new_collection::<(u32, u32), isize>();
            let (table_in, table) = scope.new_collection::<(u32, u32), isize>();
            let table = table.arrange_by_key();
            let paths = seed.clone().iterate(|inner_scope, inner| {
                let table = table.enter(inner_scope);
                let mut parts = vec![seed.enter(inner_scope)];
                for i in 0..rules {
                    // Row (k, r) is rule k mod rules's, for r below `rounds`: each
                    // round one rule sees a row, the others none.
                    let mine = inner.clone().flat_map(move |(k, r)| {
                        (k % rules == i && r < rounds).then_some((k % rules, (k, r)))
                    });
                    let part = match shape {
                        Shape::Join => mine
                            .arrange_by_key()
                            .join_core(table.clone(), |_i, &(k, r), _| Some((k + 1, r + 1))),
                        Shape::Map => mine.map(|(_, (k, r))| (k + 1, r)).map(|(k, r)| (k, r + 1)),
                    };
                    parts.push(part);
                }
                differential_dataflow::collection::concatenate(inner_scope, parts).distinct()
            });
            (seed_in, table_in, paths.probe().0)
        });
        let build = t.elapsed();
        // The static rows, closed once loaded, as sudolog seals a board's geometry:
        // later epochs advance the seed alone.
        for i in 0..rules {
            table.insert((i, 0));
        }
        table.close();
        let mut epoch = |seed: &mut differential_dataflow::input::InputSession<_, _, _>,
                         row: Option<(u32, u32)>| {
            let t = Instant::now();
            if let Some(r) = row {
                seed.insert(r);
            }
            let next = *seed.time() + 1;
            seed.advance_to(next);
            seed.flush();
            while probe.less_than(seed.time()) {
                worker.step_or_park(None);
            }
            t.elapsed()
        };
        let first = epoch(&mut seed, Some((0, 0)));
        let (mut edit, mut empty) = (Vec::new(), Vec::new());
        for e in 1..=edits {
            // A fresh chain: its keys start past every earlier chain's.
            edit.push(epoch(&mut seed, Some((e * (rounds + 1), 0))));
            empty.push(epoch(&mut seed, None));
        }
        *out2.lock().unwrap() = Some(Floor {
            rules,
            operators: operators.get(),
            build,
            first,
            edit: median(edit),
            empty: median(empty),
        });
    })
    .expect("timely runs");
    let floor = out.lock().unwrap().take().expect("the worker reports");
    floor
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let rounds: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(30);
    let edits: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    for shape in [Shape::Join, Shape::Map] {
        let floors: Vec<Floor> = [100, 200, 400]
            .into_iter()
            .map(|rules| measure(shape, rules, rounds, edits))
            .collect();
        report(shape, &floors, rounds, edits);
    }
}

/// One shape's table, and the cost of one operator from the smallest loop to the
/// largest.
fn report(shape: Shape, floors: &[Floor], rounds: u32, edits: u32) {
    println!("differential dataflow alone, rules of shape {shape:?} (3 operators each): {rounds} rounds an edit, 1 worker, medians of {edits}");
    println!("| rules | operators | build | first epoch | edit | empty epoch |");
    println!("|---|---|---|---|---|---|");
    for f in floors {
        println!(
            "| {} | {} | {:.2} ms | {:.2} ms | {:.3} ms | {:.3} ms |",
            f.rules,
            f.operators,
            ms(f.build),
            ms(f.first),
            ms(f.edit),
            ms(f.empty)
        );
    }
    let (a, b) = (&floors[0], &floors[floors.len() - 1]);
    let ops = (b.operators - a.operators) as f64;
    let per_round = (ms(b.edit) - ms(a.edit)) * 1e3 / ops / f64::from(rounds + 1);
    let per_epoch = (ms(b.empty) - ms(a.empty)) * 1e3 / ops;
    let per_build = (ms(b.build) - ms(a.build)) * 1e3 / ops;
    println!(
        "per operator: {per_round:.2} us a round of an edit, {per_epoch:.2} us an empty epoch, {per_build:.2} us to build"
    );
}
