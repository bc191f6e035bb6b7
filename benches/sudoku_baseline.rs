//! Sudoku by naked and hidden singles: sudolog running `datalog/singles.dl` side by
//! side with the same logic hand-written in differential dataflow, in one run.
//!
//! `cargo bench --bench sudoku_baseline [-- WORKERS [FILE [LIMIT [CHUNK]]]]` (defaults:
//! 1 worker, `tests/data/kaggle_300.txt`, all of it, chunks of 96). Both sides take the
//! puzzles in chunks of `CHUNK`, each chunk in a fresh dataflow run to its fixpoint, no
//! search, and must leave the same puzzles solved. Both use the batch idiom (a fresh dataflow per
//! chunk whose loop rounds are totally ordered: `distinct_total`, `count_total`;
//! sudolog's batch rendering), and both start the loop from the candidates the
//! givens leave, worked out before the first round (`open0` in `singles.dl`), with
//! the static collections arranged outside the loop and entered. The hand-written side keeps the geometry as
//! global static collections (`peer`, `member`) and rows as small tuples; sudolog
//! shares its geometry among a chunk's puzzles too (`datalog/grid.dl`), and has
//! `[i32; W]` rows and an interpreted plan. The
//! ratio says what the engine adds to differential dataflow, and the hand-written
//! throughput bounds what any rule program on this substrate can reach.
//! sudolog's side runs as `solve --no-search` does: it detects contradictions
//! (`broken`: a cell without candidates, which is also how two placements that clash
//! show, or a value without a place) every round, and computes each puzzle's status
//! (not the search's choice, which a run without search does not compute). Two
//! hand-written sides and two rule programs make two like-for-like pairs:
//! - the hand-written side that does the same work (`Side::Checked`: the markers and
//!   contradictions of `search_baseline`'s round, each puzzle's status after the
//!   loop) against `datalog/singles.dl`;
//! - the singles alone (`Side::Lean`: no contradictions, no status, a puzzle solved
//!   when its givens and placements fill its cells) against
//!   `benches/singles_bare.dl`, that logic itself as rules (static geometry).
//!
//! The bench asserts that all four leave the same puzzles solved, and that both
//! sides that check find the same puzzles invalid. Each side runs
//! `SUDOKU_BASELINE_REPS` times (5 unless set), the four back to back in each
//! repetition; the bench prints each side's median time, and the ratios per
//! repetition (their median and range). With `SUDOKU_BASELINE_ONE=checked` (or
//! `=singles.dl`) only that side runs, three times: a run to profile one side.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use differential_dataflow::input::Input;
use differential_dataflow::operators::arrange::{Arranged, TraceAgent};
use differential_dataflow::operators::iterate::VecVariable;
use differential_dataflow::operators::{CountTotal, ThresholdTotal};
use differential_dataflow::trace::implementations::ValSpine;
use differential_dataflow::VecCollection;
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
    pub mod round;
    pub mod strikes;
}
use common::dataflow::finish;
use common::geometry::{members, peers};
use common::puzzles::{args, cells, puzzles, Args};
use common::round::{singles, Open, Round, Rows};
use common::strikes::strikes;

/// Puzzles per dataflow unless the command line says otherwise: the product's own
/// batch (`sudoku::batch::BATCH`), and where the hand-written side is at its fastest
/// (0.38 s with one worker from 96 to 300 a chunk, 0.53 s at 32; docs/PERFORMANCE.md,
/// session 53).
const CHUNK: usize = 96;

/// The hand-written side's logic as a rule program (static geometry, no
/// contradictions, no status): what the engine costs on the very same computation.
const BARE: &str = include_str!("singles_bare.dl");

/// Which hand-written side runs: the singles alone, or everything `singles.dl`
/// computes on a run without search (contradictions every round, each puzzle's status).
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Lean,
    Checked,
}

type Coll<'s, D> = VecCollection<'s, u32, D, isize>;
/// A static `u8 -> u8` arrangement (`peer`, `member`), outside the loop.
type Static<'s> = Arranged<'s, TraceAgent<ValSpine<u8, u8, u32, isize>>>;

/// The lean side's loop: naked and hidden singles from the candidates the givens
/// leave (`open`). Out: every puzzle's placements, givens included, once each.
fn lean<'s>(
    given: Coll<'s, (u32, u8, u8)>,
    (open, open_rows): (Coll<'s, (u32, u8, u8)>, Rows<'s>),
    peer: Static<'s>,
    member: Static<'s>,
) -> Coll<'s, (u32, u8, u8)> {
    let scope = given.scope();
    // Rounds totally ordered (batch idiom): `distinct_total` and `count_total`
    // instead of replaying each key's history.
    let placed = scope.scoped::<(u32, u32), _, _>("Batch", |inner| {
        let given = given.clone().enter(inner);
        let open = Open::enter(open, open_rows, inner);
        let peer = peer.enter(inner);
        let member = member.enter(inner);
        // The loop's placements are those the singles make: a given's strikes are
        // out of `open` already.
        let (var, placed) = VecVariable::new(inner, (0, 1));
        // A placed value leaves its peers and the other values its cell.
        let elim = strikes(placed, peer, None);
        let cand = open.minus(elim);
        // The singles count their rows with each row's last column carried beside
        // its weight (a pair of weights, `count_total`): a count of 1 holds that
        // row's column, so neither needs a join back to the candidates nor a
        // `reduce` (sudolog's counts do the same for rules that read their singles).
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
    placed.concat(given)
}

/// The checked side: what `singles.dl` computes without search, by hand. Its loop is
/// `search_baseline`'s round (cells and (group, value)s counted beside markers, so a
/// cell without candidates or a value without a place is a contradiction, and a
/// puzzle in one places nothing more); after it, each puzzle's status as
/// `status.dl` gives it: solved (no open cell, no contradiction), and invalid (a
/// given struck by the givens). Out: the solved puzzles and the invalid ones.
fn checked<'s>(
    ids: Coll<'s, u32>,
    given: Coll<'s, (u32, u8, u8)>,
    (open, open_rows): (Coll<'s, (u32, u8, u8)>, Rows<'s>),
    struck: Coll<'s, (u32, u8, u8)>,
    peer: Static<'s>,
    member: Static<'s>,
) -> (Coll<'s, u32>, Coll<'s, u32>) {
    let scope = given.scope();
    let cell_marks = ids.clone().flat_map(|p| (0..81u8).map(move |c| (p, c)));
    let gv_marks = ids.flat_map(|p| (0..27u8).flat_map(move |g| (1..=9u8).map(move |v| (p, g, v))));
    let (placed, broken) = scope.scoped::<(u32, u32), _, _>("Batch", |inner| {
        let (var, placed) = VecVariable::new(inner, (0, 1));
        let Round { next, broken, .. } = singles(
            placed,
            None,
            given.clone().enter(inner),
            Open::enter(open, open_rows, inner),
            cell_marks.enter(inner),
            gv_marks.enter(inner),
            peer.enter(inner),
            member.enter(inner),
        );
        var.set(next.clone());
        (next.leave(scope), broken.leave(scope))
    });
    // Placements and givens are disjoint sets (the loop's antijoin), so a puzzle
    // whose count reaches 81 has every cell filled.
    let solved = placed
        .concat(given.clone())
        .map(|(p, _, _)| p)
        .count_total()
        .flat_map(|(p, n)| (n == 81).then_some((p, ())))
        .antijoin(broken)
        .map(|(p, ())| p);
    let invalid = given
        .map(|pcv| (pcv, ()))
        .semijoin(struck)
        .map(|((p, _, _), ())| p)
        .distinct_total();
    (solved, invalid)
}

/// What a hand-written side found: puzzles solved and puzzles invalid, and the time.
struct Found {
    solved: usize,
    invalid: usize,
    time: Duration,
}

/// Hand-written, one side: chunks of `size` puzzles, each in a fresh dataflow.
fn hand_written(grids: &[[u8; 81]], workers: usize, side: Side, size: usize) -> Found {
    let elapsed = Arc::new(Mutex::new(Duration::ZERO));
    let (grids, elapsed2) = (grids.to_vec(), elapsed.clone());
    // Per puzzle, from every worker (each sees its share): rows toward solved (the
    // lean side's placements, 81 when solved; the checked side's verdict, 1), and
    // the checked side's invalid verdicts.
    let totals = Arc::new(Mutex::new((HashMap::<u32, isize>::new(), 0isize)));
    let totals2 = totals.clone();
    let needed = if side == Side::Lean { 81 } else { 1 };
    timely::execute(timely::Config::process(workers), move |worker| {
        let index = worker.index();
        // The geometry, worked out once rather than per chunk inside the timing.
        let (member_facts, peer_facts) = (members(), peers());
        // This worker's counts, added to the shared ones at the end (a lock per
        // row would make the workers contend).
        let mine = Rc::new(RefCell::new((HashMap::<u32, isize>::new(), 0isize)));
        let start = Instant::now();
        for (n, chunk) in grids.chunks(size).enumerate() {
            let (pc, bad) = (mine.clone(), mine.clone());
            let (mut given_in, mut geo_in, mut peer_in, probe) =
                worker.dataflow::<u32, _, _>(|scope| {
                    let (given_in, given) = scope.new_collection::<(u32, u8, u8), isize>();
                    let (geo_in, member) = scope.new_collection::<(u8, u8), isize>();
                    let (peer_in, peer) = scope.new_collection::<(u8, u8), isize>();
                    let ids = given.clone().map(|(p, _, _)| p).distinct();
                    let all = ids.clone().flat_map(|p| {
                        (0..81u8).flat_map(move |c| (1..=9u8).map(move |v| ((p, c, v), ())))
                    });
                    // The static collections arranged once, outside the loop, and
                    // entered into it (as sudolog enters a block's static relations).
                    let peer = peer.arrange_by_key();
                    let member = member.arrange_by_key();
                    // The candidates the givens leave, before the first round (the
                    // rules' `open0`): the loop starts from them, not from all 729.
                    let struck = strikes(given.clone(), peer.clone(), None);
                    // Arranged once, outside the loop, for the loop's antijoin.
                    let open = all.antijoin(struck.clone()).map(|(pcv, ())| pcv);
                    let open = (open.clone(), open.arrange_by_self());
                    let (toward, invalid) = match side {
                        Side::Lean => {
                            let placed = lean(given, open, peer, member);
                            (placed.map(|(p, _, _)| p), None)
                        }
                        Side::Checked => {
                            let (solved, invalid) = checked(ids, given, open, struck, peer, member);
                            (solved, Some(invalid))
                        }
                    };
                    let probe = toward
                        .inspect(move |(p, _, d)| *pc.borrow_mut().0.entry(*p).or_default() += d)
                        .probe()
                        .0;
                    if let Some(invalid) = invalid {
                        invalid
                            .inspect(move |(_, _, d)| bad.borrow_mut().1 += d)
                            .probe_with(&probe);
                    }
                    (given_in, geo_in, peer_in, probe)
                });
            if index == 0 {
                for (i, g) in chunk.iter().enumerate() {
                    let p = (n * size + i) as u32;
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
        let mut all = totals2.lock().unwrap();
        let mine = mine.borrow();
        for (p, k) in mine.0.iter() {
            *all.0.entry(*p).or_default() += k;
        }
        all.1 += mine.1;
    })
    .expect("timely runs");
    let totals = totals.lock().unwrap();
    let time = *elapsed.lock().unwrap();
    Found {
        solved: totals.0.values().filter(|&&k| k == needed).count(),
        invalid: totals.1 as usize,
        time,
    }
}

fn sudolog_engine(file: &str, limit: usize, workers: usize, chunk: usize) -> Found {
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
    let (mut solved, mut invalid) = (0, 0);
    while reader.peek().is_some() {
        let items: Vec<_> = reader.by_ref().take(chunk).collect();
        for r in solve_chunk(&mut board, items, mode).expect("engine runs") {
            match r {
                Ok(s) if s.outcome == Outcome::Solved => solved += 1,
                Ok(s) if s.outcome == Outcome::Invalid => invalid += 1,
                _ => {}
            }
        }
    }
    Found {
        solved,
        invalid,
        time: start.elapsed(),
    }
}

/// sudolog running `singles_bare.dl` through a session of its own, as the
/// hand-written side runs: chunks of `size` in a fresh dataflow each (a reset), the
/// geometry inserted with every chunk, a puzzle solved when its givens and placements
/// fill its 81 cells. The number of puzzles left solved, and the time.
fn sudolog_bare(grids: &[[u8; 81]], workers: usize, size: usize) -> Found {
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
    for (n, chunk) in grids.chunks(size).enumerate() {
        if n > 0 {
            session.reset().expect("a fresh dataflow");
        }
        let mut filled: HashMap<i32, usize> = HashMap::new();
        for (i, g) in chunk.iter().enumerate() {
            let p = (n * size + i) as i32;
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
    Found {
        solved,
        // The bare rules compute no status (the bench compares no invalid count).
        invalid: 0,
        time: start.elapsed(),
    }
}

fn main() {
    let Args {
        workers,
        file,
        limit,
        rest,
    } = args();
    let usage = "usage: sudoku_baseline [WORKERS [FILE [LIMIT [CHUNK]]]]";
    assert!(rest.len() <= 1, "{usage}");
    let chunk = rest.first().map_or(CHUNK, |c| c.parse().expect(usage));
    assert!(chunk > 0, "{usage}");
    let grids: Vec<[u8; 81]> = puzzles(&file, limit).iter().map(cells).collect();
    if let Ok(side) = std::env::var("SUDOKU_BASELINE_ONE") {
        // One side alone, to profile it: its three times, nothing compared.
        for _ in 0..3 {
            let found = match side.as_str() {
                "checked" => hand_written(&grids, workers, Side::Checked, chunk),
                "singles.dl" => sudolog_engine(&file, limit, workers, chunk),
                _ => panic!("SUDOKU_BASELINE_ONE is checked or singles.dl"),
            };
            println!("{side}: {:.2} s", found.time.as_secs_f64());
        }
        return;
    }
    let n = grids.len();
    // Each repetition runs the four sides back to back, so a ratio taken within one
    // repetition compares runs made under the same load on this shared machine.
    let reps: usize = std::env::var("SUDOKU_BASELINE_REPS")
        .ok()
        .map_or(5, |r| r.parse().expect("SUDOKU_BASELINE_REPS is a number"))
        .max(1);
    let (mut lean, mut full, mut ours, mut bare) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        lean.push(hand_written(&grids, workers, Side::Lean, chunk));
        full.push(hand_written(&grids, workers, Side::Checked, chunk));
        ours.push(sudolog_engine(&file, limit, workers, chunk));
        bare.push(sudolog_bare(&grids, workers, chunk));
    }
    // Per repetition: singles.dl against the checked side, the bare rules against
    // the lean side.
    let ratios = |a: &[Found], b: &[Found]| -> Vec<f64> {
        let mut r: Vec<f64> = (a.iter().zip(b))
            .map(|(x, y)| x.time.as_secs_f64() / y.time.as_secs_f64())
            .collect();
        r.sort_by(f64::total_cmp);
        r
    };
    let (same, same_bare) = (ratios(&ours, &full), ratios(&bare, &lean));
    let solved = ours[0].solved;
    assert_eq!(lean[0].solved, solved, "both leave the same puzzles solved");
    assert_eq!(
        full[0].solved, solved,
        "the checked side leaves them solved too"
    );
    assert_eq!(
        full[0].invalid, ours[0].invalid,
        "both find the same puzzles invalid"
    );
    assert_eq!(
        bare[0].solved, solved,
        "the bare rules leave them solved too"
    );
    let median = |v: &mut Vec<Found>| {
        v.sort_by_key(|r| r.time);
        v[v.len() / 2].time.as_secs_f64()
    };
    let (l, f, o, b) = (
        median(&mut lean),
        median(&mut full),
        median(&mut ours),
        median(&mut bare),
    );
    println!(
        "singles only, {n} puzzles of {file} ({solved} solved), {workers} worker(s), chunk {chunk}, median of {reps}:"
    );
    println!("| | time | puzzles/s |");
    println!("|---|---|---|");
    let rows = [
        ("hand-written differential dataflow, singles only", l),
        (
            "hand-written, what singles.dl computes (contradictions, status)",
            f,
        ),
        ("sudolog, datalog/singles.dl", o),
        (
            "sudolog, benches/singles_bare.dl (the singles-only logic)",
            b,
        ),
    ];
    for (side, t) in rows {
        println!("| {side} | {t:.2} s | {:.0} |", n as f64 / t);
    }
    println!(
        "sudolog / hand-written, the same work: singles.dl {:.2}x, singles_bare.dl {:.2}x",
        o / f,
        b / l
    );
    let spread = |r: &[f64]| {
        format!(
            "median {:.2}x (from {:.2}x to {:.2}x)",
            r[r.len() / 2],
            r[0],
            r[r.len() - 1]
        )
    };
    println!(
        "the same, per repetition (sides back to back): singles.dl {}, singles_bare.dl {}",
        spread(&same),
        spread(&same_bare)
    );
    println!("singles.dl / hand-written singles only: {:.2}x", o / l);
}
