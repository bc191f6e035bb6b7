//! Sudoku by naked and hidden singles: sudolog running `datalog/singles.dl` side by
//! side with the same logic hand-written in differential dataflow, in one run.
//!
//! `cargo bench --bench sudoku_baseline [-- WORKERS [FILE [LIMIT]]]` (defaults: 1
//! worker, `tests/data/kaggle_300.txt`, all of it). Both sides take the puzzles in
//! chunks of 32, each chunk in a fresh dataflow run to its fixpoint, no search, and
//! must leave the same puzzles solved. Both use the batch idiom (a fresh dataflow per
//! chunk whose loop rounds are totally ordered: `distinct_total`, `count_total`;
//! sudolog's batch rendering), and both start the loop from the candidates the
//! givens leave, worked out before the first round (`open0` in `singles.dl`), with
//! the static collections arranged outside the loop and entered. The hand-written side keeps the geometry as
//! global static collections (`peer`, `member`) and rows as small tuples; sudolog
//! shares its geometry among a chunk's puzzles too (`datalog/grid.dl`), and has
//! `[i32; W]` rows and an interpreted plan. The
//! ratio says what the engine adds to differential dataflow, and the hand-written
//! throughput bounds what any rule program on this substrate can reach.
//! sudolog's side runs as `solve --no-search` does, and so does what the
//! hand-written side skips: it detects contradictions (`broken`: a cell without
//! candidates, which is also how two placements that clash show, or a value without
//! a place) every round, and computes each puzzle's status (not the search's
//! choice, which a run without search does not compute). A third
//! line separates that from the engine's own cost: sudolog running
//! `benches/singles_bare.dl`, the hand-written logic itself as rules (static
//! geometry, no contradictions, no status), read as the hand-written side reads its
//! result (a puzzle is solved when givens and placements fill its cells).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use differential_dataflow::input::Input;
use differential_dataflow::operators::iterate::VecVariable;
use differential_dataflow::operators::{CountTotal, ThresholdTotal};
use sudolog::check::check_str;
use sudolog::session::{Config, Observe, Session};
use sudolog::sudoku::batch::solve_chunk;
use sudolog::sudoku::board::{Board, Options};
use sudolog::sudoku::puzzle::PuzzleReader;
use sudolog::sudoku::rules::from_files;
use sudolog::sudoku::search::{Mode, Outcome};

mod common {
    pub mod dataflow;
    pub mod geometry;
    pub mod puzzles;
    pub mod strikes;
}
use common::dataflow::finish;
use common::geometry::{members, peers};
use common::puzzles::{args, cells, puzzles, Args};
use common::strikes::strikes;

const CHUNK: usize = 32;

/// The hand-written side's logic as a rule program (static geometry, no
/// contradictions, no status): what the engine costs on the very same computation.
const BARE: &str = include_str!("singles_bare.dl");

/// Hand-written: the number of puzzles left solved, and the time.
fn hand_written(grids: &[[u8; 81]], workers: usize) -> (usize, Duration) {
    let elapsed = Arc::new(Mutex::new(Duration::ZERO));
    let (grids, elapsed2) = (grids.to_vec(), elapsed.clone());
    // Placements per puzzle, from every worker (each sees its share of them).
    let placed_count = Arc::new(Mutex::new(HashMap::<u32, isize>::new()));
    let counts = placed_count.clone();
    timely::execute(timely::Config::process(workers), move |worker| {
        let index = worker.index();
        // The geometry, worked out once rather than per chunk inside the timing.
        let (member_facts, peer_facts) = (members(), peers());
        // This worker's counts, added to the shared ones at the end (a lock per
        // placement would make the workers contend).
        let mine = Rc::new(RefCell::new(HashMap::<u32, isize>::new()));
        let start = Instant::now();
        for (n, chunk) in grids.chunks(CHUNK).enumerate() {
            let pc = mine.clone();
            let (mut given_in, mut geo_in, mut peer_in, probe) =
                worker.dataflow::<u32, _, _>(|scope| {
                    let (given_in, given) = scope.new_collection::<(u32, u8, u8), isize>();
                    let (geo_in, member) = scope.new_collection::<(u8, u8), isize>();
                    let (peer_in, peer) = scope.new_collection::<(u8, u8), isize>();
                    let ids = given.clone().map(|(p, _, _)| p).distinct();
                    let all = ids.flat_map(|p| {
                        (0..81u8).flat_map(move |c| (1..=9u8).map(move |v| ((p, c, v), ())))
                    });
                    // The static collections arranged once, outside the loop, and
                    // entered into it (as sudolog enters a block's static relations).
                    let peer = peer.arrange_by_key();
                    let member = member.arrange_by_key();
                    // The candidates the givens leave, before the first round (the
                    // rules' `open0`): the loop starts from them, not from all 729.
                    let struck = strikes(given.clone(), peer.clone(), None);
                    let open = all.antijoin(struck);
                    // Rounds totally ordered (batch idiom): `distinct_total` and
                    // `count_total` instead of replaying each key's history.
                    let placed = scope.scoped::<(u32, u32), _, _>("Batch", |inner| {
                        let given = given.clone().enter(inner);
                        let open = open.clone().enter(inner);
                        let peer = peer.clone().enter(inner);
                        let member = member.clone().enter(inner);
                        // The loop's placements are those the singles make: a
                        // given's strikes are out of `open` already.
                        let (var, placed) = VecVariable::new(inner, (0, 1));
                        // A placed value leaves its peers and the other values its cell.
                        let elim = strikes(placed, peer, None);
                        let cand = open.antijoin(elim).map(|(pcv, ())| pcv);
                        // The singles count their rows with each row's last column
                        // carried beside its weight (a pair of weights, `count_total`):
                        // a count of 1 holds that row's column, so neither needs a join
                        // back to the candidates nor a `reduce` (sudolog's counts do
                        // the same for rules that read their singles).
                        // Naked single: one candidate left in a cell.
                        let naked = cand
                            .clone()
                            .explode(|(p, c, v)| Some(((p, c), (1isize, v as isize))))
                            .count_total()
                            .flat_map(|((p, c), (n, v))| (n == 1).then_some((p, c, v as u8)));
                        // Hidden single: one place left for a value in a group.
                        let hidden = cand
                            .map(|(p, c, v)| (c, (p, v)))
                            .join_core(member, |&c, &(p, v), &g| Some(((p, g, v), c)))
                            .explode(|(pgv, c)| Some((pgv, (1isize, c as isize))))
                            .count_total()
                            .flat_map(|((p, _g, v), (n, c))| (n == 1).then_some((p, c as u8, v)));
                        let next = naked
                            .concat(hidden)
                            .map(|pcv| (pcv, ()))
                            .antijoin(given)
                            .map(|(pcv, ())| pcv)
                            .distinct_total();
                        var.set(next.clone());
                        next.leave(scope)
                    });
                    let placed = placed.concat(given.clone());
                    let probe = placed
                        .inspect(move |((p, _, _), _, d)| {
                            *pc.borrow_mut().entry(*p).or_default() += d
                        })
                        .probe()
                        .0;
                    (given_in, geo_in, peer_in, probe)
                });
            if index == 0 {
                for (i, g) in chunk.iter().enumerate() {
                    let p = (n * CHUNK + i) as u32;
                    for (c, &v) in g.iter().enumerate() {
                        if v != 0 {
                            given_in.insert((p, c as u8, v));
                        }
                    }
                }
                for &m in &member_facts {
                    geo_in.insert(m);
                }
                for &e in &peer_facts {
                    peer_in.insert(e);
                }
            }
            given_in.advance_to(1);
            geo_in.advance_to(1);
            peer_in.advance_to(1);
            given_in.flush();
            geo_in.flush();
            peer_in.flush();
            finish(worker, &probe);
        }
        if index == 0 {
            *elapsed2.lock().unwrap() = start.elapsed();
        }
        let mut all = placed_count.lock().unwrap();
        for (p, n) in mine.borrow().iter() {
            *all.entry(*p).or_default() += n;
        }
    })
    .expect("timely runs");
    let solved = counts
        .lock()
        .unwrap()
        .values()
        .filter(|&&n| n == 81)
        .count();
    let time = *elapsed.lock().unwrap();
    (solved, time)
}

fn sudolog_engine(file: &str, limit: usize, workers: usize) -> (usize, Duration) {
    let program = from_files(&["datalog/singles.dl".to_string()]).expect("singles.dl checks");
    // As `solve --no-search` runs it: no search choice is computed.
    let opts = Options {
        workers,
        search: false,
        batch: true,
        ..Default::default()
    };
    let mut board = Board::new(program, &opts).expect("engine starts");
    let f = std::fs::File::open(file).expect("the puzzle file reads");
    let mut reader = PuzzleReader::new(file, std::io::BufReader::new(f))
        .take(limit)
        .peekable();
    let mode = Mode {
        search: false,
        ..Mode::default()
    };
    let start = Instant::now();
    let mut solved = 0;
    while reader.peek().is_some() {
        let items: Vec<_> = reader.by_ref().take(CHUNK).collect();
        for r in solve_chunk(&mut board, items, mode).expect("engine runs") {
            if matches!(r, Ok(s) if s.outcome == Outcome::Solved) {
                solved += 1;
            }
        }
    }
    (solved, start.elapsed())
}

/// sudolog running `singles_bare.dl` through a session of its own, as the
/// hand-written side runs: chunks of `CHUNK` in a fresh dataflow each (a reset), the
/// geometry inserted with every chunk, a puzzle solved when its givens and placements
/// fill its 81 cells. The number of puzzles left solved, and the time.
fn sudolog_bare(grids: &[[u8; 81]], workers: usize) -> (usize, Duration) {
    let program = Arc::new(check_str("singles_bare.dl", BARE).expect("the program checks"));
    let rel = |name: &str| program.relation(name).expect("declared");
    let (given, cell, digit) = (rel("given"), rel("cell"), rel("digit"));
    let (member, peer, placed) = (rel("member"), rel("peer"), rel("placed"));
    let config = Config {
        workers,
        observe: Observe::Relations(vec![placed]),
        batch: true,
        changes: false,
        ..Default::default()
    };
    let mut session = Session::new(program.clone(), config).expect("session starts");
    let (member_facts, peer_facts) = (members(), peers());
    let start = Instant::now();
    let mut solved = 0;
    for (n, chunk) in grids.chunks(CHUNK).enumerate() {
        if n > 0 {
            session.reset().expect("a fresh dataflow");
        }
        let mut filled: HashMap<i32, usize> = HashMap::new();
        for (i, g) in chunk.iter().enumerate() {
            let p = (n * CHUNK + i) as i32;
            for (c, &v) in g.iter().enumerate() {
                if v != 0 {
                    session.insert(given, &[p, c as i32, v as i32]).unwrap();
                    *filled.entry(p).or_default() += 1;
                }
            }
        }
        for c in 0..81 {
            session.insert(cell, &[c]).unwrap();
        }
        for v in 1..=9 {
            session.insert(digit, &[v]).unwrap();
        }
        for &(c, g) in &member_facts {
            session.insert(member, &[c as i32, g as i32]).unwrap();
        }
        for &(c, o) in &peer_facts {
            session.insert(peer, &[c as i32, o as i32]).unwrap();
        }
        session.commit().expect("the chunk runs");
        for (row, _) in session.contents(placed) {
            *filled.entry(row[0]).or_default() += 1;
        }
        solved += filled.values().filter(|&&k| k == 81).count();
    }
    (solved, start.elapsed())
}

fn main() {
    let Args {
        workers,
        file,
        limit,
        rest,
    } = args();
    assert!(
        rest.is_empty(),
        "usage: sudoku_baseline [WORKERS [FILE [LIMIT]]]"
    );
    let grids: Vec<[u8; 81]> = puzzles(&file, limit).iter().map(cells).collect();
    let n = grids.len();
    let (mut hand, mut ours, mut bare) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..3 {
        hand.push(hand_written(&grids, workers));
        ours.push(sudolog_engine(&file, limit, workers));
        bare.push(sudolog_bare(&grids, workers));
    }
    assert_eq!(hand[0].0, ours[0].0, "both leave the same puzzles solved");
    assert_eq!(hand[0].0, bare[0].0, "the bare rules leave them solved too");
    let median = |v: &mut Vec<(usize, Duration)>| {
        v.sort_by_key(|r| r.1);
        v[v.len() / 2].1.as_secs_f64()
    };
    let (h, o, b) = (median(&mut hand), median(&mut ours), median(&mut bare));
    println!(
        "singles only, {n} puzzles of {file} ({} solved), {workers} worker(s), chunk {CHUNK}, median of 3:",
        ours[0].0
    );
    println!("| | time | puzzles/s |");
    println!("|---|---|---|");
    println!(
        "| hand-written differential dataflow | {:.2} s | {:.0} |",
        h,
        n as f64 / h
    );
    println!(
        "| sudolog, datalog/singles.dl | {:.2} s | {:.0} |",
        o,
        n as f64 / o
    );
    println!(
        "| sudolog, benches/singles_bare.dl (the hand-written logic) | {:.2} s | {:.0} |",
        b,
        n as f64 / b
    );
    println!("sudolog / hand-written: {:.2}x", o / h);
    println!("sudolog on the same logic / hand-written: {:.2}x", b / h);
}
