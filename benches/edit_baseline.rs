//! An interactive Sudoku edit session: how fast is an incremental edit, and how does
//! it compare with recomputing from scratch, when naked and hidden singles are
//! hand-written in differential dataflow, and when sudolog runs the same logic from
//! `datalog/singles.dl`? All six run side by side in one process, on the same states.
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
//! - **Hand-written, incremental:** one long-lived dataflow per side over a
//!   `given(cell, value)` input, with the geometry (`member`, `peer`), the 729
//!   (cell, value) pairs and the markers as static inputs loaded once at time 0 and
//!   closed. Each edit inserts and retracts the givens that differ, advances the
//!   input to the next time and runs until the probe passes it. Two sides:
//!   - **checked** does what `singles.dl` computes for an editor's board: the loop
//!     starts from the candidates the givens leave (`open0`, worked out outside it,
//!     arranged once and entered); every round counts each cell's candidates and
//!     each (group, value)'s places beside a marker, so an empty cell or a value
//!     without a place is a contradiction (`broken`), after which nothing more is
//!     placed; after the loop, the status (solved, and invalid: a given struck by
//!     the givens). This is the like-for-like pair with `singles.dl`.
//!   - **lean** is the singles alone, `sudoku_baseline`'s lean loop without the
//!     puzzle id: no contradictions, no status, every placement's strikes inside
//!     the loop.
//!
//!   Both loops keep their placements (`placed ∪ singles`, inflationary, as
//!   `singles.dl`'s `.fixpoint` block does): an edit session reaches contradictory
//!   grids, where a loop that recomputes its placements each round can oscillate for
//!   ever (two peers placed with the same value lose it as a candidate and are
//!   unplaced in the next iteration, then placed again).
//! - **Hand-written, from scratch:** every K-th state, a fresh dataflow of each side
//!   (on a worker of its own) built, loaded with geometry and givens, run to its
//!   fixpoint and dropped, as `sudoku_baseline` does per chunk.
//! - **sudolog, incremental:** a one-puzzle [`Board`] (an Editor's kind: its geometry
//!   and cells sealed after the first commit) observing only what it always observes
//!   (`placed` and the status relations), fed the same given diffs with `set_given`,
//!   then `commit`. **sudolog, from scratch:** a second Board, `reset`, `add`,
//!   `commit`, for the same K-th states. Both timed by the wall clock around the
//!   calls, as the hand-written side is.
//!
//! The bench asserts that the checked side and sudolog agree on placed cells and
//! status (solved, stalled, broken) after every edit; that the lean side places the
//! same number of cells wherever sudolog is not broken (in broken states
//! `singles.dl` stops placing and the lean loop does not); and that each side's
//! from-scratch run equals its incremental one on every state measured both ways.
//! So the bench cannot silently compare different work.
//!
//! Last, each side's fixed cost per edit: 200 epochs that change nothing on each
//! hand-written dataflow (its static inputs are closed, so only `given` advances),
//! and 200 commits that change nothing on the Board (every input relation but the
//! sealed ones advances, and the commit must list no change).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use differential_dataflow::input::{Input, InputSession};
use differential_dataflow::lattice::Lattice;
use differential_dataflow::operators::arrange::{Arranged, TraceAgent};
use differential_dataflow::operators::iterate::{Iterate, VecVariable};
use differential_dataflow::operators::{CountTotal, ThresholdTotal};
use differential_dataflow::trace::cursor::{BatchCursor, Cursor, Navigable};
use differential_dataflow::trace::implementations::ValSpine;
use differential_dataflow::trace::TraceReader;
use differential_dataflow::VecCollection;
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
use timely::order::Product;
use timely::progress::Timestamp;
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

/// What a hand-written dataflow reports, read after each run to its fixpoint.
struct Stats {
    /// Per cell, the number of values placed there (givens included).
    cells: Vec<isize>,
    /// The deepest loop iteration at which `placed` changed (reset per edit).
    deepest: u64,
    /// Updates to `placed` inside the loop (reset per edit): a measure of work.
    updates: usize,
    /// The checked side's verdicts at the fixpoint (each 0 or 1): in a
    /// contradiction, solved, and invalid (a given struck by the givens).
    broken: isize,
    solved: isize,
    invalid: isize,
}

impl Stats {
    fn new() -> Stats {
        Stats {
            cells: vec![0; 81],
            deepest: 0,
            updates: 0,
            broken: 0,
            solved: 0,
            invalid: 0,
        }
    }

    fn filled(&self) -> usize {
        self.cells.iter().filter(|&&n| n > 0).count()
    }

    /// The checked side's verdict, as the Board's [`Status`] (a contradiction and an
    /// invalid grid both count as broken, as the bench counts them).
    fn status(&self) -> Status {
        if self.broken > 0 || self.invalid > 0 {
            Status::Contradiction
        } else if self.solved > 0 {
            Status::Solved
        } else {
            Status::Stalled
        }
    }
}

/// Which hand-written dataflow: the singles alone, or everything `singles.dl`
/// computes for an editor's board (contradictions every round, status after).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Side {
    Lean,
    Checked,
}

/// One dataflow of the hand-written singles.
struct HandWritten {
    /// `given(cell, value)`, open at time 0.
    given: InputSession<u32, (u8, u8), isize>,
    probe: Handle<u32>,
    stats: Rc<RefCell<Stats>>,
}

/// The static inputs of a hand-written dataflow, loaded at time 0 and then closed.
struct Statics {
    member: InputSession<u32, (u8, u8), isize>,
    peer: InputSession<u32, (u8, u8), isize>,
    /// The 729 (cell, value) pairs.
    all: InputSession<u32, (u8, u8), isize>,
    /// The checked side's markers: the 81 cells, and the 243 (group, value)s.
    cells: InputSession<u32, u8, isize>,
    group_values: InputSession<u32, (u8, u8), isize>,
}

impl Statics {
    /// Loads the geometry and closes every static input (dropping an input sends
    /// its time-0 contents; inside the building closure, this left the first run
    /// parked for ever).
    fn load(mut self, member_facts: &[(u8, u8)], peer_facts: &[(u8, u8)]) {
        for &m in member_facts {
            self.member.insert(m);
        }
        for &e in peer_facts {
            self.peer.insert(e);
        }
        for c in 0..81u8 {
            self.cells.insert(c);
            for v in 1..=9u8 {
                self.all.insert((c, v));
            }
        }
        for g in 0..27u8 {
            for v in 1..=9u8 {
                self.group_values.insert((g, v));
            }
        }
    }
}

type Outer<'s, D> = VecCollection<'s, u32, D, isize>;

/// What placements `(cell, value)` rule out, once per placement (duplicates where
/// two strike the same pair: the caller deduplicates): a placed value from its
/// peers (`peer` arranged by cell), and the other values from its own cell.
fn strikes<'s, T, Tr>(
    placed: VecCollection<'s, T, (u8, u8), isize>,
    peer: Arranged<'s, Tr>,
) -> VecCollection<'s, T, (u8, u8), isize>
where
    T: Timestamp + Lattice,
    Tr: TraceReader<Batch: Navigable, Time = T> + Clone + 'static,
    for<'a> BatchCursor<Tr>: Cursor<Key<'a> = &'a u8, Val<'a> = &'a u8>,
    BatchCursor<Tr>: Cursor<Diff = isize, Time = T>,
{
    placed
        .clone()
        .join_core(peer, |_c, &v, &o| Some((o, v)))
        .concat(placed.flat_map(|(c, v)| other_values(v).map(move |w| (c, w))))
}

/// An update of a loop's placements: (cell, value), (epoch, iteration), diff.
type LoopUpdate = ((u8, u8), Product<u32, u64>, isize);

/// Records each update of a loop's placements in `stats` (its iteration, a count).
fn loop_work(stats: Rc<RefCell<Stats>>) -> impl FnMut(&LoopUpdate) + 'static {
    move |(_, t, _)| {
        let mut s = stats.borrow_mut();
        s.deepest = s.deepest.max(t.inner);
        s.updates += 1;
    }
}

/// The lean side: naked and hidden singles from the givens, nothing else. Out:
/// every placement, givens included.
fn lean<'s>(
    given: Outer<'s, (u8, u8)>,
    member: Outer<'s, (u8, u8)>,
    peer: Outer<'s, (u8, u8)>,
    all: Outer<'s, (u8, u8)>,
    stats: Rc<RefCell<Stats>>,
) -> Outer<'s, (u8, u8)> {
    given.iterate(|inner_scope, placed| {
        let all = all.map(|cv| (cv, ())).enter(inner_scope);
        let peer = peer.enter(inner_scope).arrange_by_key();
        let member = member.enter(inner_scope).arrange_by_key();
        // A placed value leaves its peers and the other values its cell.
        let elim = strikes(placed.clone(), peer).distinct();
        let cand = all.antijoin(elim).map(|(cv, ())| cv);
        // Naked single: one candidate left in a cell, found by the reduce that sees
        // the cell's candidates (no count joined back to them, as sudolog's counts
        // hand on their singles).
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
            .inspect(loop_work(stats))
    })
}

/// A reduce over a key's values beside its marker (`None`, which sorts first): a
/// key left with only its marker yields `None`, one with one value yields it.
fn single_or_none<'s, K, V>(
    rows: VecCollection<'s, Product<u32, u64>, (K, Option<V>), isize>,
) -> VecCollection<'s, Product<u32, u64>, (K, Option<V>), isize>
where
    K: differential_dataflow::ExchangeData + std::hash::Hash + Ord + Clone + std::fmt::Debug,
    V: differential_dataflow::ExchangeData + std::hash::Hash + Ord + Copy + std::fmt::Debug,
{
    rows.reduce(|_k, input, output| match input.len() {
        1 => output.push((None, 1)),
        2 => output.push((*input[1].0, 1)),
        _ => {}
    })
}

/// `distinct` for a totally ordered time (the outer epochs), as a threshold: each
/// key's count before and after each update, no history replay. (Differential
/// dataflow 0.25's own `distinct_total` maps every count to 1, zero included, so a
/// key whose count returns to zero is never retracted: an edit's retracted given
/// would leave its strikes behind.)
fn present<K>(_: &K, n: &isize) -> isize {
    isize::from(*n > 0)
}

/// A static `u8 -> u8` arrangement (`peer`, `member`), outside the loop.
type Static<'s> = Arranged<'s, TraceAgent<ValSpine<u8, u8, u32, isize>>>;

/// The checked side's work before its loop (outer epochs are totally ordered): the
/// candidates the givens leave, and `invalid` (a given struck by the givens).
fn before_loop<'s>(
    given: Outer<'s, (u8, u8)>,
    peer: Static<'s>,
    all: Outer<'s, (u8, u8)>,
) -> (Outer<'s, (u8, u8)>, Outer<'s, ()>) {
    let struck = strikes(given.clone(), peer).threshold_total(present);
    let open = all
        .map(|cv| (cv, ()))
        .antijoin(struck.clone())
        .map(|(cv, ())| cv);
    let invalid = given
        .map(|cv| (cv, ()))
        .semijoin(struck)
        .map(|_| ())
        .threshold_total(present);
    (open, invalid)
}

/// The checked side: what `singles.dl` computes for an editor's board, by hand. The
/// loop starts from the candidates the givens leave (`open0`, worked out outside
/// it); every round counts each cell's candidates and each (group, value)'s places
/// beside a marker, so an empty cell or a value without a place is a contradiction
/// (`broken`), after which nothing more is placed; after the loop, the status:
/// solved (every cell filled, no contradiction) and invalid (a given struck by the
/// givens). Out: every placement (givens included), `broken`, `solved`, `invalid`.
#[allow(clippy::type_complexity)]
fn checked<'s>(
    given: Outer<'s, (u8, u8)>,
    (member, peer): (Outer<'s, (u8, u8)>, Outer<'s, (u8, u8)>),
    all: Outer<'s, (u8, u8)>,
    (cells, group_values): (Outer<'s, u8>, Outer<'s, (u8, u8)>),
    stats: Rc<RefCell<Stats>>,
) -> (
    Outer<'s, (u8, u8)>,
    Outer<'s, ()>,
    Outer<'s, ()>,
    Outer<'s, ()>,
) {
    let scope = given.scope();
    // The static collections arranged once, outside the loop, and entered.
    let (peer, member) = (peer.arrange_by_key(), member.arrange_by_key());
    let given_set = given.clone().arrange_by_self();
    let (open, invalid) = before_loop(given.clone(), peer.clone(), all);
    let open_set = open.clone().arrange_by_self();
    let (placed, broken) = scope.scoped::<Product<u32, u64>, _, _>("Singles", |inner| {
        let (var, placed) = VecVariable::new(inner, Product::new(0, 1));
        let (peer, member) = (peer.enter(inner), member.enter(inner));
        let (open, open_set) = (open.enter(inner), open_set.enter(inner));
        // Placed values (not givens: their strikes are out of `open`) leave their
        // peers and the other values their cell.
        let elim = strikes(placed.clone(), peer).distinct();
        let gone = open_set.join_core(elim.arrange_by_self(), |&cv, &(), &()| Some(cv));
        let cand = open.concat(gone.negate());
        let per_cell = single_or_none(
            cand.clone()
                .map(|(c, v)| (c, Some(v)))
                .concat(cells.enter(inner).map(|c| (c, None))),
        );
        let per_place = single_or_none(
            cand.join_core(member, |&c, &v, &g| Some(((g, v), Some(c))))
                .concat(group_values.enter(inner).map(|gv| (gv, None))),
        );
        let broken = per_cell
            .clone()
            .filter(|(_, x)| x.is_none())
            .map(|_| ())
            .concat(per_place.clone().filter(|(_, x)| x.is_none()).map(|_| ()))
            .distinct();
        let naked = per_cell.flat_map(|(c, x)| x.map(|v| (c, v)));
        let hidden = per_place.flat_map(|((_g, v), x)| x.map(|c| (c, v)));
        // No single once the grid is broken; none that is a given.
        let singles = naked
            .concat(hidden)
            .map(|cv| ((), cv))
            .antijoin(broken.clone())
            .map(|((), cv)| cv);
        let givens = singles
            .clone()
            .arrange_by_self()
            .join_core(given_set.enter(inner), |&cv, &(), &()| Some(cv));
        let next = placed
            .concat(singles)
            .concat(givens.negate())
            .distinct()
            .inspect(loop_work(stats));
        var.set(next.clone());
        (next.leave(scope), broken.leave(scope))
    });
    // Placements and givens are disjoint sets, so 81 of them fill every cell.
    let placed = placed.concat(given);
    let solved = placed
        .clone()
        .map(|_| ())
        .count_total()
        .flat_map(|((), n)| (n == 81).then_some(((), ())))
        .antijoin(broken.clone())
        .map(|_| ());
    (placed, broken, solved, invalid)
}

/// Builds a hand-written dataflow on `worker`, its static inputs loaded at time 0
/// and closed.
fn hand_written(
    worker: &mut Worker,
    side: Side,
    member_facts: &[(u8, u8)],
    peer_facts: &[(u8, u8)],
) -> HandWritten {
    let stats = Rc::new(RefCell::new(Stats::new()));
    let (loop_stats, out) = (stats.clone(), stats.clone());
    let (given_in, statics, probe) = worker.dataflow::<u32, _, _>(|scope| {
        let (given_in, given) = scope.new_collection::<(u8, u8), isize>();
        let (member_in, member) = scope.new_collection::<(u8, u8), isize>();
        let (peer_in, peer) = scope.new_collection::<(u8, u8), isize>();
        let (all_in, all) = scope.new_collection::<(u8, u8), isize>();
        let (cells_in, cells) = scope.new_collection::<u8, isize>();
        let (gv_in, group_values) = scope.new_collection::<(u8, u8), isize>();
        let statics = Statics {
            member: member_in,
            peer: peer_in,
            all: all_in,
            cells: cells_in,
            group_values: gv_in,
        };
        let count = |s: &Rc<RefCell<Stats>>, f: fn(&mut Stats) -> &mut isize| {
            let s = s.clone();
            move |(_, _, d): &((), u32, isize)| *f(&mut s.borrow_mut()) += d
        };
        let placed = match side {
            Side::Lean => lean(given, member, peer, all, loop_stats),
            Side::Checked => {
                let (placed, broken, solved, invalid) = checked(
                    given,
                    (member, peer),
                    all,
                    (cells, group_values),
                    loop_stats,
                );
                let seen = broken
                    .inspect(count(&out, |s| &mut s.broken))
                    .concat(solved.inspect(count(&out, |s| &mut s.solved)))
                    .concat(invalid.inspect(count(&out, |s| &mut s.invalid)));
                placed.concat(seen.flat_map(|()| None))
            }
        };
        let probe = placed
            .inspect(move |((c, _), _, d)| out.borrow_mut().cells[*c as usize] += d)
            .probe()
            .0;
        (given_in, statics, probe)
    });
    statics.load(member_facts, peer_facts);
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

/// `member` and `peer` facts, worked out once.
type Geometry = (Vec<(u8, u8)>, Vec<(u8, u8)>);

/// A hand-written dataflow of `side` built on `worker`, `state`'s givens loaded at
/// time 0, run until its probe passes it.
fn started(worker: &mut Worker, side: Side, state: &State, geometry: &Geometry) -> HandWritten {
    let mut flow = hand_written(worker, side, &geometry.0, &geometry.1);
    for (c, &v) in state.iter().enumerate() {
        if v != 0 {
            flow.given.insert((c as u8, v));
        }
    }
    flow.given.advance_to(1);
    flow.given.flush();
    run_to(worker, &flow.probe, 1);
    flow
}

/// One hand-written side's incremental dataflow and scratch worker, and its timings.
struct Hand {
    side: Side,
    worker: Worker,
    flow: HandWritten,
    scratch: Worker,
    inc: Vec<Duration>,
    from_scratch: Vec<Duration>,
    depth: Vec<u64>,
    updates: Vec<usize>,
    scratch_updates: Vec<usize>,
    empty: Vec<Duration>,
}

impl Hand {
    /// The side's long-lived dataflow, loaded with `state` at time 0 and run.
    fn new(side: Side, state: &State, geometry: &Geometry) -> Hand {
        let mut worker = new_worker();
        let flow = started(&mut worker, side, state, geometry);
        Hand {
            side,
            worker,
            flow,
            scratch: new_worker(),
            inc: Vec::new(),
            from_scratch: Vec::new(),
            depth: Vec::new(),
            updates: Vec::new(),
            scratch_updates: Vec::new(),
            empty: Vec::new(),
        }
    }

    /// Edit `i` (`prev` -> `cur`) at time `t`, timed. Out: cells filled, status.
    fn edit(&mut self, prev: &State, cur: &State, t: u32) -> (usize, Status) {
        {
            let mut s = self.flow.stats.borrow_mut();
            s.deepest = 0;
            s.updates = 0;
        }
        let start = Instant::now();
        for (c, old, new) in diff(*prev, *cur) {
            if old != 0 {
                self.flow.given.remove((c as u8, old));
            }
            if new != 0 {
                self.flow.given.insert((c as u8, new));
            }
        }
        self.flow.given.advance_to(t);
        self.flow.given.flush();
        run_to(&mut self.worker, &self.flow.probe, t);
        self.inc.push(start.elapsed());
        let s = self.flow.stats.borrow();
        self.depth.push(s.deepest);
        self.updates.push(s.updates);
        (s.filled(), s.status())
    }

    /// `cur` from scratch: a fresh dataflow built, loaded, run and dropped, timed;
    /// it must agree with the incremental one.
    fn scratch(&mut self, i: usize, cur: &State, geometry: &Geometry) {
        let start = Instant::now();
        let id = self.scratch.next_dataflow_index();
        let flow = started(&mut self.scratch, self.side, cur, geometry);
        drop(flow.given);
        self.scratch.drop_dataflow(id);
        self.from_scratch.push(start.elapsed());
        let (s, inc) = (flow.stats.borrow(), self.flow.stats.borrow());
        assert_eq!(
            (s.filled(), s.status()),
            (inc.filled(), inc.status()),
            "state {i}: hand-written ({:?}) from scratch and incremental differ",
            self.side
        );
        self.scratch_updates.push(s.updates);
    }

    /// 200 epochs that change nothing (the input advances, progress goes round the
    /// loop, no data moves), from time `t`.
    fn empty_epochs(&mut self, t: u32) {
        for k in 0..200u32 {
            let start = Instant::now();
            self.flow.given.advance_to(t + k);
            self.flow.given.flush();
            run_to(&mut self.worker, &self.flow.probe, t + k);
            self.empty.push(start.elapsed());
        }
    }
}

/// sudolog's side: the edited Board, the from-scratch one, and their timings.
struct Ours {
    board: Board,
    scratch_board: Board,
    placed_rel: sudolog::check::ir::RelId,
    inc: Vec<Duration>,
    from_scratch: Vec<Duration>,
    depth: Vec<u32>,
    changes: Vec<usize>,
    empty: Vec<Duration>,
}

impl Ours {
    /// Both boards hold one puzzle, as an Editor's board does: its geometry and cells
    /// are sealed after their first commit, as the hand-written side's static inputs
    /// are closed. The edited one starts with `state` committed.
    fn new(program: std::sync::Arc<sudolog::check::ir::Program>, state: &State) -> Ours {
        let opts = Options {
            one_puzzle: true,
            ..Options::default()
        };
        let mut board = Board::new(program.clone(), &opts).expect("engine starts");
        board.add(P, &grid(state)).expect("state 0 adds");
        board.commit().expect("state 0 commits");
        let placed_rel = board.rels.placed.expect("singles.dl defines placed");
        Ours {
            board,
            scratch_board: Board::new(program, &opts).expect("engine starts"),
            placed_rel,
            inc: Vec::new(),
            from_scratch: Vec::new(),
            depth: Vec::new(),
            changes: Vec::new(),
            empty: Vec::new(),
        }
    }

    /// The edit `prev` -> `cur`, timed. Out: cells filled, status.
    fn edit(&mut self, prev: &State, cur: &State) -> (usize, Status) {
        let start = Instant::now();
        for (c, old, new) in diff(*prev, *cur) {
            if old != 0 {
                self.board.set_given(P, c, old, false).expect("retracts");
            }
            if new != 0 {
                self.board.set_given(P, c, new, true).expect("inserts");
            }
        }
        let commit = self.board.commit().expect("commits");
        self.inc.push(start.elapsed());
        let placed: Vec<_> = commit
            .changes
            .iter()
            .filter(|ch| ch.rel == self.placed_rel)
            .collect();
        self.depth
            .push(placed.iter().map(|ch| ch.round).max().unwrap_or(0));
        self.changes.push(placed.len());
        let view = self.board.view(P).expect("the puzzle is on the board");
        (view.filled(), view.status)
    }

    /// `cur` from scratch on the second board, timed; it must agree with the edited one.
    fn scratch(&mut self, i: usize, cur: &State) {
        let start = Instant::now();
        self.scratch_board.reset().expect("resets");
        self.scratch_board.add(P, &grid(cur)).expect("adds");
        self.scratch_board.commit().expect("commits");
        self.from_scratch.push(start.elapsed());
        let fresh = self
            .scratch_board
            .view(P)
            .expect("the puzzle is on the board");
        let view = self.board.view(P).expect("the puzzle is on the board");
        assert_eq!(
            (fresh.status, fresh.filled()),
            (view.status, view.filled()),
            "state {i}: sudolog from scratch and incremental differ"
        );
    }

    /// 200 commits with no change (a fresh epoch for every unsealed input, no data
    /// moves), which must report nothing changed.
    fn empty_commits(&mut self) {
        for _ in 0..200 {
            let start = Instant::now();
            let commit = self.board.commit().expect("commits");
            self.empty.push(start.elapsed());
            assert!(
                commit.changes.is_empty(),
                "a commit with no edit changes nothing"
            );
        }
    }
}

/// A broken grid as the bench counts it (a contradiction or an invalid grid).
fn broken(s: Status) -> bool {
    matches!(s, Status::Contradiction | Status::Invalid)
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

    let geometry = (members(), peers());
    let mut lean = Hand::new(Side::Lean, &states[0], &geometry);
    let mut checked = Hand::new(Side::Checked, &states[0], &geometry);
    let mut ours = Ours::new(program, &states[0]);

    let (mut solved, mut stalled, mut broken_states, mut compared) = (0, 0, 0, 0);
    for i in 1..=edits {
        let (prev, cur) = (&states[i - 1], &states[i]);
        let t = i as u32 + 1;
        let (lean_filled, _) = lean.edit(prev, cur, t);
        let (checked_filled, checked_status) = checked.edit(prev, cur, t);
        let (filled, status) = ours.edit(prev, cur);
        match status {
            Status::Solved => solved += 1,
            Status::Stalled => stalled += 1,
            Status::Contradiction | Status::Invalid => broken_states += 1,
        }
        // The checked side does what singles.dl does: the same cells, the same status.
        assert_eq!(
            (
                checked_filled,
                broken(checked_status),
                checked_status == Status::Solved
            ),
            (filled, broken(status), status == Status::Solved),
            "state {i}: the checked hand-written side and sudolog differ ({status:?})"
        );
        // In broken states singles.dl stops placing and the lean loop does not, so
        // its placed cells are compared only where sudolog is not broken.
        if !broken(status) {
            compared += 1;
            assert_eq!(
                lean_filled, filled,
                "state {i}: the lean hand-written side and sudolog place different numbers of cells ({status:?})"
            );
        }
        if scratch_at(i) {
            lean.scratch(i, cur, &geometry);
            checked.scratch(i, cur, &geometry);
            ours.scratch(i, cur);
        }
    }
    assert!(
        !ours.from_scratch.is_empty(),
        "at least one state from scratch"
    );

    // Each side's fixed cost of an edit.
    lean.empty_epochs(edits as u32 + 2);
    checked.empty_epochs(edits as u32 + 2);
    ours.empty_commits();
    report(
        (edits, seed, every, collect),
        (solved, stalled, broken_states, compared),
        [&lean, &checked],
        &ours,
        &editor_times,
    );
}

/// Prints the bench's table and lines (see the header).
fn report(
    (edits, seed, every, collect): (usize, u64, usize, Duration),
    (solved, stalled, broken, compared): (usize, usize, usize, usize),
    hands: [&Hand; 2],
    ours: &Ours,
    editor_times: &[Duration],
) {
    println!(
        "edit session: {edits} random edits on the 9x9 Drools samples (seed {seed}), \
         naked and hidden singles, 1 worker; from scratch every {every}th state ({} states)",
        ours.from_scratch.len()
    );
    println!(
        "states after each edit: {solved} solved, {stalled} stalled, {broken} broken \
         (contradiction or invalid); the checked hand-written side and sudolog agree on \
         placed cells and status in all of them, the lean side on placed cells in the \
         {compared} solved or stalled ones, and from scratch = incremental on every state \
         measured both ways"
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
    let name = |side: Side| match side {
        Side::Lean => "hand-written, singles alone (lean)",
        Side::Checked => "hand-written, what singles.dl computes (checked)",
    };
    for h in hands {
        row(name(h.side), &h.inc, &h.from_scratch);
    }
    row(
        "sudolog, datalog/singles.dl (placed and status observed)",
        &ours.inc,
        &ours.from_scratch,
    );
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-9);
    let (oi, os) = (median_of(&ours.inc), median_of(&ours.from_scratch));
    for h in hands {
        println!(
            "| sudolog / {} (medians) | {:.2}x | | {:.2}x | | |",
            name(h.side),
            ratio(oi, median_of(&h.inc)),
            ratio(os, median_of(&h.from_scratch))
        );
    }
    println!(
        "sudolog Editor's own commits while the script was made (candidates, eliminations \
         and explain observed, as bench edit): median {:.3} ms, p99 {:.3} ms; \
         making the script took {:.1} s",
        ms(median_of(editor_times)),
        ms(percentile(editor_times, 0.99)),
        collect.as_secs_f64()
    );
    for h in hands {
        println!(
            "work per edit (medians), {}: deepest changed iteration {}, {} updates of \
             the loop's placements ({}; {} from scratch), an epoch that changes nothing \
             takes {:.3} ms",
            name(h.side),
            median_of(&h.depth),
            median_of(&h.updates),
            match h.side {
                Side::Lean => "givens included",
                Side::Checked => "beyond the givens",
            },
            median_of(&h.scratch_updates),
            ms(median_of(&h.empty))
        );
    }
    println!(
        "work per edit (medians), sudolog: deepest changed round of placed {}, {} changes \
         of placed, a commit that changes nothing takes {:.3} ms",
        median_of(&ours.depth),
        median_of(&ours.changes),
        ms(median_of(&ours.empty))
    );
}
