//! An interactive Sudoku edit session: how fast is an incremental edit, and how does
//! it compare with recomputing from scratch, when naked and hidden singles are
//! hand-written in differential dataflow, and when sudolog runs the same logic from
//! `datalog/singles.dl`? All four run side by side in one process, on the same states.
//!
//! `cargo bench --bench edit_baseline [-- EDITS [SEED [K]]]` (defaults: 1500 edits,
//! seed 1, from scratch every 10th state; 1 worker throughout).
//!
//! - **The script.** The states are the givens of `sudolog bench edit`'s session
//!   (`sudolog::sudoku::edit::bench_edits`): an [`Editor`] running `singles.dl` on the
//!   Drools sample drawn first from `Rng::new(SEED)`, fed [`random_edit`] commands
//!   (set, clear, undo, redo, load), skipping those that fail or change nothing. They
//!   are collected first, untimed by this bench; the Editor's own commit times (it
//!   also observes candidates, eliminations and explain events) are printed as an
//!   extra line. (`bench edit --rules datalog/singles.dl --seed S` draws the same commands.)
//! - **Hand-written, incremental:** one long-lived dataflow over a `given(cell,
//!   value)` input, with the geometry (`member`, `peer`) and the 729 (cell, value)
//!   pairs as static inputs loaded once at time 0. Each edit inserts and retracts the
//!   givens that differ, advances the input to the next time and runs until the probe
//!   passes it.
//! - **Hand-written, from scratch:** every K-th state, a fresh dataflow (on a second
//!   worker) built, loaded with geometry and givens, run to its fixpoint and dropped,
//!   as `sudoku_baseline` does per chunk.
//! - **sudolog, incremental:** a one-puzzle [`Board`] (an Editor's kind: its geometry
//!   and cells sealed after the first commit) observing only what it always observes
//!   (`placed` and the status relations), fed the same given diffs with `set_given`,
//!   then `commit`. **sudolog, from scratch:** a second Board, `reset`, `add`,
//!   `commit`, for the same K-th states. Both timed by the wall clock around the
//!   calls, as the hand-written side is.
//!
//! The hand-written dataflow is `sudoku_baseline`'s, without the puzzle id, with one
//! change: the next iterate keeps the current one (`placed ∪ naked ∪ hidden`, where
//! `sudoku_baseline` has `given ∪ naked ∪ hidden`). On solvable puzzles both are the
//! same, but an edit session reaches contradictory grids, where the non-inflationary
//! loop can oscillate for ever (two peers placed with the same value lose it as a
//! candidate and are unplaced in the next iteration, then placed again). Keeping
//! placements is what `singles.dl`'s `.fixpoint` block does anyway (inflationary
//! rounds). The difference that remains: `singles.dl` stops placing once a grid is
//! broken (`!broken`).
//!
//! The bench asserts that both hand-written runs leave the same number of cells
//! placed in every state measured both ways, that both sudolog runs agree on placed
//! cells and status, and that sudolog and the hand-written dataflow place the same
//! number of cells in every state that sudolog leaves solved or stalled (in broken
//! states they legitimately differ: `singles.dl` stops placing there). So the bench
//! cannot silently compare different work.
//!
//! Last, each side's fixed cost per edit: 200 epochs that change nothing on the
//! hand-written dataflow (its static inputs are closed, so only `given` advances),
//! and 200 commits that change nothing on the Board (every input relation but the
//! sealed ones advances, and the commit must list no change).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use differential_dataflow::input::{Input, InputSession};
use differential_dataflow::operators::iterate::Iterate;
use sudolog::check::ir::Value;
use sudolog::sudoku::board::{Board, Options, Status};
use sudolog::sudoku::edit::{random_edit, Editor, Rng};
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::grid::{Grid, Shape};
use sudolog::sudoku::puzzle::parse_puzzle_arg;
use sudolog::sudoku::rules::from_files;
use sudolog::sudoku::samples::{DROOLS_MENU, SAMPLES};
use timely::communication::allocator::thread::Thread;
use timely::communication::Allocator;
use timely::dataflow::operators::probe::Handle;
use timely::worker::Worker;
use timely::WorkerConfig;

mod common {
    pub mod geometry;
}
use common::geometry::{members, other_values, peers};

/// The puzzle id the Editor uses (`edit.rs`).
const P: Value = 0;

type State = [u8; 81];

/// The givens of the edit session: the starting grid, then one state per edit that
/// changed them; and the Editor's commit time for each of those edits.
fn edit_states(
    program: std::sync::Arc<sudolog::check::ir::Program>,
    n: usize,
    seed: u64,
) -> (Vec<State>, Vec<Duration>) {
    let state = |g: &Grid| -> State { std::array::from_fn(|c| g.get(c)) };
    // As `bench_edits`: the first draw picks the sample.
    let mut rng = Rng::new(seed);
    let (sample, _, _) = SAMPLES[rng.below(DROOLS_MENU)];
    let grid = parse_puzzle_arg(sample)
        .expect("the sample reads")
        .swap_remove(0)
        .expect("the sample parses")
        .grid;
    assert_eq!(grid.shape, Shape::NINE);
    let mut ed = Editor::with_program(program, Options::default(), grid, Notation::Drools)
        .expect("the editor starts");
    let mut states = vec![state(ed.givens())];
    let mut times = Vec::new();
    let mut attempts = 0usize;
    while times.len() < n && attempts < n.saturating_mul(20).max(100) {
        attempts += 1;
        let cmd = random_edit(&mut rng, &ed);
        let before = ed.givens().clone();
        // Errors (nothing to undo, ...) are part of the script; they commit nothing.
        // Every command that commits changes the givens (an unchanged `set` or `load`
        // returns early, and undo/redo entries differ from their neighbours).
        let _ = ed.command(&cmd);
        if *ed.givens() == before {
            continue;
        }
        assert_eq!(ed.givens().shape, Shape::NINE, "the Drools samples are 9x9");
        states.push(state(ed.givens()));
        times.push(ed.last_commit().expect("an edit commits"));
    }
    (states, times)
}

/// What the hand-written dataflow reports, read after each run to its fixpoint.
struct Stats {
    /// Per cell, the number of values placed there.
    cells: Vec<isize>,
    /// The deepest loop iteration at which `placed` changed (reset per edit).
    deepest: u64,
    /// Updates to `placed` inside the loop (reset per edit): a measure of work.
    updates: usize,
}

impl Stats {
    fn filled(&self) -> usize {
        self.cells.iter().filter(|&&n| n > 0).count()
    }
}

/// One dataflow of the hand-written singles.
struct HandWritten {
    /// `given(cell, value)`, open at time 0.
    given: InputSession<u32, (u8, u8), isize>,
    probe: Handle<u32>,
    stats: Rc<RefCell<Stats>>,
}

/// Builds the hand-written singles on `worker`. The static inputs are loaded at time 0
/// and closed.
fn hand_written(
    worker: &mut Worker,
    member_facts: &[(u8, u8)],
    peer_facts: &[(u8, u8)],
) -> HandWritten {
    let stats = Rc::new(RefCell::new(Stats {
        cells: vec![0; 81],
        deepest: 0,
        updates: 0,
    }));
    let (loop_stats, out_stats) = (stats.clone(), stats.clone());
    let (given_in, (mut member_in, mut peer_in, mut all_in), probe) =
        worker.dataflow::<u32, _, _>(|scope| {
            let (given_in, given) = scope.new_collection::<(u8, u8), isize>();
            let (member_in, member) = scope.new_collection::<(u8, u8), isize>();
            let (peer_in, peer) = scope.new_collection::<(u8, u8), isize>();
            let (all_in, all) = scope.new_collection::<((u8, u8), ()), isize>();
            let placed = given.iterate(|inner_scope, placed| {
                let all = all.enter(inner_scope);
                let peer = peer.enter(inner_scope).arrange_by_key();
                let member = member.enter(inner_scope).arrange_by_key();
                // A placed value leaves its peers and the other values its cell.
                let elim = placed
                    .clone()
                    .join_core(peer, |_c, &v, &o| Some((o, v)))
                    .concat(
                        placed
                            .clone()
                            .flat_map(|(c, v)| other_values(v).map(move |w| (c, w))),
                    )
                    .distinct();
                let cand = all.antijoin(elim).map(|(cv, ())| cv);
                // Naked single: one candidate left in a cell, found by the reduce
                // that sees the cell's candidates (no count joined back to them, as
                // sudolog's counts hand on their singles).
                let naked = cand.clone().reduce(|_c, input, output| {
                    if input.len() == 1 && input[0].1 > 0 {
                        output.push((*input[0].0, 1));
                    }
                });
                // Hidden single: one place left for a value in a group.
                let hidden = cand
                    .join_core(member, |&c, &v, &g| Some(((g, v), c)))
                    .reduce(|_k, input, output| {
                        if input.len() == 1 && input[0].1 > 0 {
                            output.push((*input[0].0, 1));
                        }
                    })
                    .map(|((_g, v), c)| (c, v));
                // Placements are kept (inflationary, as in singles.dl; see the header).
                placed
                    .concat(naked)
                    .concat(hidden)
                    .distinct()
                    .inspect(move |(_, t, _)| {
                        let mut s = loop_stats.borrow_mut();
                        s.deepest = s.deepest.max(t.inner);
                        s.updates += 1;
                    })
            });
            let probe = placed
                .inspect(move |((c, _), _, d)| out_stats.borrow_mut().cells[*c as usize] += d)
                .probe()
                .0;
            (given_in, (member_in, peer_in, all_in), probe)
        });
    for &m in member_facts {
        member_in.insert(m);
    }
    for &e in peer_facts {
        peer_in.insert(e);
    }
    for c in 0..81u8 {
        for v in 1..=9u8 {
            all_in.insert(((c, v), ()));
        }
    }
    // Dropping the static inputs sends their time-0 contents and closes them.
    // (Inside the building closure, this left the first run parked for ever.)
    drop((member_in, peer_in, all_in));
    HandWritten {
        given: given_in,
        probe,
        stats,
    }
}

fn new_worker() -> Worker {
    Worker::new(
        WorkerConfig::default(),
        Allocator::Thread(Thread::default()),
        Some(Instant::now()),
    )
}

/// Runs `worker` until `probe` has passed `time`.
fn run_to(worker: &mut Worker, probe: &Handle<u32>, time: u32) {
    while probe.less_than(&time) {
        worker.step_or_park(None);
    }
}

/// The givens that differ between two states: (cell, old given or 0, new given or 0).
fn diff(a: State, b: State) -> impl Iterator<Item = (usize, u8, u8)> {
    (0..81)
        .filter(move |&c| a[c] != b[c])
        .map(move |c| (c, a[c], b[c]))
}

fn grid(s: &State) -> Grid {
    Grid {
        shape: Shape::NINE,
        values: s.to_vec(),
    }
}

fn percentile(v: &[Duration], p: f64) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    if v.is_empty() {
        Duration::ZERO
    } else {
        v[((v.len() - 1) as f64 * p).round() as usize]
    }
}

fn median_of<T: Ord + Copy + Default>(v: &[T]) -> T {
    let mut v = v.to_vec();
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let arg = |i: usize, default: u64| -> u64 {
        args.get(i)
            .map(|a| a.parse().expect("EDITS, SEED and K are numbers"))
            .unwrap_or(default)
    };
    let (n, seed, every) = (arg(0, 1500) as usize, arg(1, 1), arg(2, 10).max(1) as usize);
    let program = from_files(&["datalog/singles.dl".to_string()]).expect("singles.dl checks");

    let collect = Instant::now();
    let (states, editor_times) = edit_states(program.clone(), n, seed);
    let collect = collect.elapsed();
    let edits = states.len() - 1;
    // The states also evaluated from scratch, numbered by edit as `bench_edits` does:
    // the 1st, then every K-th after it.
    let scratch_at = |i: usize| i % every == 1 % every;

    let (member_facts, peer_facts) = (members(), peers());

    // Hand-written, incremental: one dataflow for the whole session, state 0 at time 0.
    let mut inc_worker = new_worker();
    let HandWritten {
        given: mut given_in,
        probe: inc_probe,
        stats: inc_stats,
    } = hand_written(&mut inc_worker, &member_facts, &peer_facts);
    for (c, &v) in states[0].iter().enumerate() {
        if v != 0 {
            given_in.insert((c as u8, v));
        }
    }
    given_in.advance_to(1);
    given_in.flush();
    run_to(&mut inc_worker, &inc_probe, 1);
    let mut scratch_worker = new_worker();

    // sudolog, incremental, with state 0 loaded; and the from-scratch board. Both hold
    // one puzzle, as an Editor's board does: its geometry and cells are sealed after
    // their first commit, as the hand-written side's static inputs are closed.
    let opts = Options {
        one_puzzle: true,
        ..Options::default()
    };
    let mut board = Board::new(program.clone(), &opts).expect("engine starts");
    board.add(P, &grid(&states[0])).expect("state 0 adds");
    board.commit().expect("state 0 commits");
    let placed_rel = board.rels.placed.expect("singles.dl defines placed");
    let mut scratch_board = Board::new(program, &opts).expect("engine starts");

    let (mut hand_inc, mut hand_scratch) = (Vec::new(), Vec::new());
    let (mut ours_inc, mut ours_scratch) = (Vec::new(), Vec::new());
    let (mut hand_depth, mut hand_updates) = (Vec::new(), Vec::new());
    let (mut ours_depth, mut ours_changes) = (Vec::new(), Vec::new());
    let (mut solved, mut stalled, mut broken, mut compared) = (0, 0, 0, 0);
    let mut scratch_updates = Vec::new();
    for i in 1..=edits {
        let (prev, cur) = (&states[i - 1], &states[i]);
        let t = i as u32 + 1;

        // Hand-written, incremental.
        {
            let mut s = inc_stats.borrow_mut();
            s.deepest = 0;
            s.updates = 0;
        }
        let start = Instant::now();
        for (c, old, new) in diff(*prev, *cur) {
            if old != 0 {
                given_in.remove((c as u8, old));
            }
            if new != 0 {
                given_in.insert((c as u8, new));
            }
        }
        given_in.advance_to(t);
        given_in.flush();
        run_to(&mut inc_worker, &inc_probe, t);
        hand_inc.push(start.elapsed());
        let (hand_filled, depth, updates) = {
            let s = inc_stats.borrow();
            (s.filled(), s.deepest, s.updates)
        };
        hand_depth.push(depth);
        hand_updates.push(updates);

        // sudolog, incremental.
        let start = Instant::now();
        for (c, old, new) in diff(*prev, *cur) {
            if old != 0 {
                board.set_given(P, c, old, false).expect("retracts");
            }
            if new != 0 {
                board.set_given(P, c, new, true).expect("inserts");
            }
        }
        let commit = board.commit().expect("commits");
        ours_inc.push(start.elapsed());
        let placed_changes: Vec<_> = commit
            .changes
            .iter()
            .filter(|ch| ch.rel == placed_rel)
            .collect();
        ours_depth.push(placed_changes.iter().map(|ch| ch.round).max().unwrap_or(0));
        ours_changes.push(placed_changes.len());
        let view = board.view(P).expect("the puzzle is on the board");
        match view.status {
            Status::Solved => solved += 1,
            Status::Stalled => stalled += 1,
            Status::Contradiction | Status::Invalid => broken += 1,
        }
        // In broken states singles.dl stops placing and the hand-written loop does
        // not, so the placed cells are compared only where sudolog is not broken.
        if matches!(view.status, Status::Solved | Status::Stalled) {
            compared += 1;
            assert_eq!(
                hand_filled,
                view.filled(),
                "state {i}: hand-written and sudolog place different numbers of cells ({:?})",
                view.status
            );
        }

        if scratch_at(i) {
            // Hand-written, from scratch: build, load, run, drop.
            let start = Instant::now();
            let id = scratch_worker.next_dataflow_index();
            let HandWritten {
                given: mut g_in,
                probe,
                stats,
            } = hand_written(&mut scratch_worker, &member_facts, &peer_facts);
            for (c, &v) in cur.iter().enumerate() {
                if v != 0 {
                    g_in.insert((c as u8, v));
                }
            }
            g_in.advance_to(1);
            g_in.flush();
            run_to(&mut scratch_worker, &probe, 1);
            drop(g_in);
            scratch_worker.drop_dataflow(id);
            hand_scratch.push(start.elapsed());
            let s = stats.borrow();
            assert_eq!(
                s.filled(),
                hand_filled,
                "state {i}: hand-written from scratch and incremental differ"
            );
            scratch_updates.push(s.updates);

            // sudolog, from scratch.
            let start = Instant::now();
            scratch_board.reset().expect("resets");
            scratch_board.add(P, &grid(cur)).expect("adds");
            scratch_board.commit().expect("commits");
            ours_scratch.push(start.elapsed());
            let fresh = scratch_board.view(P).expect("the puzzle is on the board");
            assert_eq!(
                (fresh.status, fresh.filled()),
                (view.status, view.filled()),
                "state {i}: sudolog from scratch and incremental differ"
            );
        }
    }
    assert!(
        !scratch_updates.is_empty(),
        "at least one state from scratch"
    );

    // The fixed cost of an edit on the hand-written side: epochs that change nothing
    // (the input advances, progress goes round the loop, no data moves).
    let mut empty = Vec::new();
    for k in 0..200u32 {
        let t = edits as u32 + 2 + k;
        let start = Instant::now();
        given_in.advance_to(t);
        given_in.flush();
        run_to(&mut inc_worker, &inc_probe, t);
        empty.push(start.elapsed());
    }

    // The same on sudolog's side: commits with no change (a fresh epoch for every
    // unsealed input, no data moves), which must report nothing changed.
    let mut empty_ours = Vec::new();
    for _ in 0..200 {
        let start = Instant::now();
        let commit = board.commit().expect("commits");
        empty_ours.push(start.elapsed());
        assert!(
            commit.changes.is_empty(),
            "a commit with no edit changes nothing"
        );
    }
    let (hi, hs) = (median_of(&hand_inc), median_of(&hand_scratch));
    let (oi, os) = (median_of(&ours_inc), median_of(&ours_scratch));
    println!(
        "edit session: {edits} random edits on the 9x9 Drools samples (seed {seed}), \
         naked and hidden singles, 1 worker; from scratch every {every}th state ({} states)",
        hand_scratch.len()
    );
    println!(
        "states after each edit: {solved} solved, {stalled} stalled, {broken} broken \
         (contradiction or invalid); placed cells agree on all {compared} solved or stalled \
         states, and from scratch = incremental on every state measured both ways"
    );
    println!("| | incremental median | p99 | from scratch median | p99 | scratch / incremental |");
    println!("|---|---|---|---|---|---|");
    let row = |name: &str, inc: &[Duration], scratch: &[Duration]| {
        let (i, s) = (median_of(inc), median_of(scratch));
        println!(
            "| {name} | {:.3} ms | {:.3} ms | {:.3} ms | {:.3} ms | {:.1}x |",
            ms(i),
            ms(percentile(inc, 0.99)),
            ms(s),
            ms(percentile(scratch, 0.99)),
            s.as_secs_f64() / i.as_secs_f64().max(1e-9)
        );
    };
    row(
        "hand-written differential dataflow",
        &hand_inc,
        &hand_scratch,
    );
    row(
        "sudolog, datalog/singles.dl (placed and status observed)",
        &ours_inc,
        &ours_scratch,
    );
    println!(
        "| sudolog / hand-written (medians) | {:.1}x | | {:.1}x | | |",
        oi.as_secs_f64() / hi.as_secs_f64().max(1e-9),
        os.as_secs_f64() / hs.as_secs_f64().max(1e-9)
    );
    println!(
        "sudolog Editor's own commits while the script was made (candidates, eliminations \
         and explain observed, as bench edit): median {:.3} ms, p99 {:.3} ms; \
         making the script took {:.1} s",
        ms(median_of(&editor_times)),
        ms(percentile(&editor_times, 0.99)),
        collect.as_secs_f64()
    );
    println!(
        "work per edit (medians): hand-written: deepest changed iteration {}, {} updates \
         of placed inside the loop ({} from scratch), an epoch that changes nothing takes \
         {:.3} ms; sudolog: deepest changed round of placed {}, {} changes of placed, \
         a commit that changes nothing takes {:.3} ms",
        median_of(&hand_depth),
        median_of(&hand_updates),
        median_of(&scratch_updates),
        ms(median_of(&empty)),
        median_of(&ours_depth),
        median_of(&ours_changes),
        ms(median_of(&empty_ours))
    );
}
