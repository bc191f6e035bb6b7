//! Search: sudolog's batched search running `datalog/singles.dl` (or `fast.dl`) side
//! by side with the same search hand-written in differential dataflow, in one run.
//!
//! `cargo bench --bench search_baseline [-- WORKERS [FILE [LIMIT [BATCH [LOGIC]]]]]`
//! (defaults: 1 worker, `tests/data/kaggle_300.txt`, all of it, 96 nodes a batch,
//! `singles`). LOGIC `intersections` adds pointing and claiming to both sides
//! (sudolog runs `datalog/fast.dl`). Both sides run one engine of one worker per
//! worker thread, the engines sharing one search (each batch at most an even share of
//! what is open among the idle engines), and search the same way
//! (`src/sudoku/batch.rs`): every search node is an instance of its own (its givens
//! are its parent's placements and one guess), a batch of nodes is evaluated together
//! in a fresh dataflow run to its fixpoint, open nodes go first (oldest puzzle, then
//! deepest, then leftmost), then new puzzles. A stalled node branches on its open cell
//! with the fewest candidates (of those, the one with the most open peers, then the
//! fewest candidates among them, then the lowest), one child per candidate; a
//! puzzle's search stops at its second solution. Both must give the same statuses
//! and solutions. A puzzle with one solution gets the same guesses on both sides (its
//! whole tree); one with several stops at its second, after as many guesses as the
//! batches it shared with other puzzles allowed.
//!
//! The hand-written side is the best batch search this project knows how to write on
//! differential dataflow: rounds totally ordered (`distinct_total`, `count_total`),
//! the givens' strikes worked out before the loop, a child starting from its
//! parent's last candidates (less its guess's strikes) as sudolog's children start
//! from theirs (`start`, `datalog/grid.dl`), static geometry arranged outside
//! the loop and entered, rows as small tuples, placements that only accumulate,
//! empty cells and values without a place found by markers every round (a node in a
//! contradiction places nothing more: without that gate the search ran 1.26x
//! slower), singles read from their counts (each row's last column carried beside
//! its weight), and the choice of cell computed once, after the loop. Intersections
//! read the same count (`place_weight`) and accumulate their eliminations in a
//! second loop variable. The hand-written rate bounds what a rule program doing the
//! same logic and search reaches on this substrate with one row per candidate.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use differential_dataflow::consolidation::consolidate;
use differential_dataflow::input::Input;
use differential_dataflow::operators::arrange::{Arranged, TraceAgent};
use differential_dataflow::operators::iterate::VecVariable;
use differential_dataflow::operators::{CountTotal, ThresholdTotal};
use differential_dataflow::trace::implementations::ValSpine;
use differential_dataflow::VecCollection;
use sudolog::sudoku::batch::{solve_sharded, Engines, Limits};
use sudolog::sudoku::board::{Board, Options};
use sudolog::sudoku::puzzle::Puzzle;
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
use common::round::{singles, Open, Round};
use common::strikes::strikes;

/// Search nodes per batch by default, as `sudolog solve`'s default.
const BATCH: usize = 96;
/// Open nodes (and puzzles in flight) before the search turns depth first.
const FRONTIER: usize = 4096;

type Cells = [u8; 81];

/// One puzzle's result: status, its solution when it has exactly one, guesses made.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Answer {
    status: &'static str,
    solution: Option<Cells>,
    guesses: u64,
}

/// A search node: the puzzle it belongs to, where it sits in the tree, its givens.
struct Node {
    puzzle: usize,
    depth: u32,
    /// The values guessed on the way here (depth-first order among siblings).
    path: Vec<u8>,
    base: Arc<Cells>,
    guess: Option<(u8, u8)>,
    /// The candidates it starts from: its parent's last (a root: those its givens
    /// leave, worked out in the dataflow).
    start: Option<Arc<Vec<(u8, u8)>>>,
}

/// A puzzle in flight.
#[derive(Default)]
struct Tally {
    found: u32,
    solution: Option<Cells>,
    open: usize,
    guesses: u64,
    done: bool,
}

/// What one batch's dataflow said about its nodes (by index in the batch).
#[derive(Default)]
struct Outputs {
    placed: Vec<((u32, u8, u8), isize)>,
    broken: Vec<(u32, isize)>,
    choice: Vec<((u32, u8, u8), isize)>,
    /// The candidates of the nodes with a choice: their children's start.
    carry: Vec<((u32, u8, u8), isize)>,
}

/// Rows whose diffs sum to a positive count.
fn present<K: Ord>(mut rows: Vec<(K, isize)>) -> Vec<K> {
    consolidate(&mut rows);
    rows.into_iter().filter(|r| r.1 > 0).map(|r| r.0).collect()
}

type Coll<'s, D> = VecCollection<'s, u32, D, isize>;

/// What a batch's dataflow reports.
struct Verdicts<'s> {
    placed: Coll<'s, (u32, u8, u8)>,
    broken: Coll<'s, u32>,
    choice: Coll<'s, (u32, u8, u8)>,
    carry: Coll<'s, (u32, u8, u8)>,
}

/// A batch's inputs: its nodes; those that start from their givens (roots); the
/// placements struck before the loop (a root's givens, a child's guess); the
/// candidates the children start from; every node's givens (a child's: its parent's
/// placements and its guess).
struct Inputs<'s> {
    ids: Coll<'s, u32>,
    fresh: Coll<'s, u32>,
    pre: Coll<'s, (u32, u8, u8)>,
    start: Coll<'s, (u32, u8, u8)>,
    given: Coll<'s, (u32, u8, u8)>,
}

/// The logic each search node runs to its fixpoint before it branches.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Logic {
    /// Naked and hidden singles (sudolog: `datalog/singles.dl`).
    Singles,
    /// Singles and intersections, pointing and claiming (`datalog/fast.dl`).
    Intersections,
}

impl Logic {
    /// The sudolog rule program with the same logic.
    fn rules(self) -> &'static str {
        match self {
            Logic::Singles => "datalog/singles.dl",
            Logic::Intersections => "datalog/fast.dl",
        }
    }
}

/// A batch's dataflow. In: the logic, the nodes' ids and givens, the geometry
/// (`member`: cell to group, `peer`: cell to cell). Out: each node's placements at the fixpoint,
/// the nodes in a contradiction, and for the others the cell to branch on with its
/// candidates (`(node, cell, value)`).
fn search_dataflow<'s>(
    logic: Logic,
    inputs: Inputs<'s>,
    member: Coll<'s, (u8, u8)>,
    peer: Coll<'s, (u8, u8)>,
) -> Verdicts<'s> {
    let Inputs {
        ids,
        fresh,
        pre,
        start,
        given,
    } = inputs;
    let scope = ids.scope();
    let cells = ids
        .clone()
        .flat_map(|p| (0..81u8).map(move |c| ((p, c), ())));
    // Static collections arranged once, outside the loop, and entered.
    let peer = peer.arrange_by_key();
    let member = member.arrange_by_key();
    // The candidates a node starts from, before the first round: a root's, those its
    // givens leave; a child's, its parent's less what its guess strikes.
    let struck = strikes(pre, peer.clone(), None);
    let open = fresh
        .flat_map(|p| (0..81u8).flat_map(move |c| (1..=9u8).map(move |v| (p, c, v))))
        .concat(start)
        .map(|pcv| (pcv, ()))
        .antijoin(struck)
        .map(|(pcv, ())| pcv);
    // Arranged once, outside the loop, for the loop's antijoin and semijoin.
    let open_rows = open.clone().arrange_by_self();
    // Markers: every cell and every (group, value) of a node, so that counts and
    // reductions inside the loop see the empty ones too.
    let cell_marks = cells.map(|(pc, ())| pc);
    let gv_marks = ids.flat_map(|p| (0..27u8).flat_map(move |g| (1..=9u8).map(move |v| (p, g, v))));
    let (placed, cand, broken) = scope.scoped::<(u32, u32), _, _>("Search", |inner| {
        let (var, placed) = VecVariable::new(inner, (0, 1));
        // With intersections, a second variable: the eliminations they made so far.
        let inter = (logic == Logic::Intersections).then(|| VecVariable::new(inner, (0, 1)));
        let Round {
            next,
            cand,
            broken,
            pointing,
        } = singles(
            placed,
            inter.as_ref().map(|(_, so_far)| so_far.clone()),
            given.clone().enter(inner),
            Open::enter(open, open_rows, inner),
            cell_marks.enter(inner),
            gv_marks.enter(inner),
            peer.clone().enter(inner),
            member.enter(inner),
        );
        var.set(next.clone());
        if let (Some((var, so_far)), Some(pointing)) = (inter, pointing) {
            // They only accumulate: a box whose value is down to one place keeps
            // its line struck.
            var.set(so_far.concat(pointing).distinct_total());
        }
        let placed = next.leave(scope).concat(given.clone());
        (placed, cand.leave(scope), broken.leave(scope))
    });
    // After the loop, once: the choice of cell, as `datalog/status.dl` makes it
    // (one cell a node), the candidates of the nodes that branch, and the chosen
    // cell's values read from those.
    let chosen = choose(cand.clone(), peer);
    let carry = chosen
        .clone()
        .map(|((p, _), ())| (p, ()))
        .join_map(cand.map(|(p, c, v)| (p, (c, v))), |&p, (), &(c, v)| {
            (p, c, v)
        });
    let choice = chosen.join_map(
        carry.clone().map(|(p, c, v)| ((p, c), v)),
        |&(p, c), (), &v| (p, c, v),
    );
    Verdicts {
        placed,
        broken,
        choice,
        carry,
    }
}

/// Each node's cell to branch on, from its candidates at the fixpoint: among its open
/// cells (two candidates or more), those with the fewest candidates; among them,
/// the one with the most open peers, then the fewest candidates among those peers;
/// then the lowest. Out: `((node, cell), ())`.
fn choose<'s>(
    cand: Coll<'s, (u32, u8, u8)>,
    peer: Arranged<'s, TraceAgent<ValSpine<u8, u8, u32, isize>>>,
) -> Coll<'s, ((u32, u8), ())> {
    let open = cand
        .map(|(p, c, _)| (p, c))
        .count_total()
        .filter(|(_, n)| *n >= 2);
    let fewest = open
        .clone()
        .map(|((p, _), n)| (p, n))
        .reduce(|_p, input, output| output.push((*input[0].0, 1)));
    let tied = open
        .clone()
        .map(|((p, c), n)| ((p, n), c))
        .semijoin(fewest)
        .map(|((p, _), c)| (c, p));
    // Each tied cell once per open peer, weighing 4,096 less the peer's candidates
    // (as `status.dl` sums them: the most open peers, then the fewest candidates).
    tied.arrange_by_key()
        .join_core(peer, |&c, &p, &y| Some(((p, y), c)))
        .join_map(open, |&(p, _), &c, &n| (p, c, n))
        .explode(|(p, c, n)| Some(((p, c), 4096 - n)))
        .count_total()
        .map(|((p, c), k)| (p, (std::cmp::Reverse(k), c)))
        .reduce(|_p, input, output| output.push((*input[0].0, 1)))
        .map(|(p, (_, c))| ((p, c), ()))
}

/// Evaluates one batch of nodes in a fresh dataflow; instance ids are batch indices.
fn evaluate(
    worker: &mut timely::worker::Worker,
    logic: Logic,
    nodes: &[Node],
    geo: &Geometry,
) -> Outputs {
    let out = Rc::new(RefCell::new(Outputs::default()));
    let (o1, o2, o3, o4) = (out.clone(), out.clone(), out.clone(), out.clone());
    let (nodes_in, mut member_in, mut peer_in, probe) = worker.dataflow::<u32, _, _>(|scope| {
        let (n, ids) = scope.new_collection::<u32, isize>();
        let (f, fresh) = scope.new_collection::<u32, isize>();
        let (pr, pre) = scope.new_collection::<(u32, u8, u8), isize>();
        let (st, start) = scope.new_collection::<(u32, u8, u8), isize>();
        let (g, given) = scope.new_collection::<(u32, u8, u8), isize>();
        let (member_in, member) = scope.new_collection::<(u8, u8), isize>();
        let (peer_in, peer) = scope.new_collection::<(u8, u8), isize>();
        let inputs = Inputs {
            ids,
            fresh,
            pre,
            start,
            given,
        };
        let Verdicts {
            placed,
            broken,
            choice,
            carry,
        } = search_dataflow(logic, inputs, member, peer);
        let (probe, _) = placed
            .inspect(move |(x, _, d)| o1.borrow_mut().placed.push((*x, *d)))
            .probe();
        broken
            .inspect(move |(x, _, d)| o2.borrow_mut().broken.push((*x, *d)))
            .probe_with(&probe);
        choice
            .inspect(move |(x, _, d)| o3.borrow_mut().choice.push((*x, *d)))
            .probe_with(&probe);
        carry
            .inspect(move |(x, _, d)| o4.borrow_mut().carry.push((*x, *d)))
            .probe_with(&probe);
        ((n, f, pr, st, g), member_in, peer_in, probe)
    });
    let (mut node_in, mut fresh_in, mut pre_in, mut start_in, mut given_in) = nodes_in;
    for (i, node) in nodes.iter().enumerate() {
        let p = i as u32;
        node_in.insert(p);
        for (c, &v) in node.base.iter().enumerate() {
            if v != 0 {
                given_in.insert((p, c as u8, v));
                if node.start.is_none() {
                    pre_in.insert((p, c as u8, v));
                }
            }
        }
        if let Some((c, v)) = node.guess {
            given_in.insert((p, c, v));
            pre_in.insert((p, c, v));
        }
        match &node.start {
            Some(start) => {
                for &(c, v) in start.iter() {
                    start_in.insert((p, c, v));
                }
            }
            None => fresh_in.insert(p),
        }
    }
    for &m in &geo.members {
        member_in.insert(m);
    }
    for &e in &geo.peers {
        peer_in.insert(e);
    }
    node_in.advance_to(1);
    fresh_in.advance_to(1);
    pre_in.advance_to(1);
    start_in.advance_to(1);
    given_in.advance_to(1);
    member_in.advance_to(1);
    peer_in.advance_to(1);
    node_in.flush();
    fresh_in.flush();
    pre_in.flush();
    start_in.flush();
    given_in.flush();
    member_in.flush();
    peer_in.flush();
    finish(worker, &probe);
    out.take()
}

/// The geometry: worked out once, rather than per batch inside the timing.
struct Geometry {
    members: Vec<(u8, u8)>,
    peers: Vec<(u8, u8)>,
}

/// The hand-written search the engines share (as sudolog's engines share theirs,
/// `src/sudoku/batch/shard.rs`): puzzles in flight, open nodes, answers.
struct Search {
    grids: Arc<Vec<Cells>>,
    /// The next puzzle to take.
    next: usize,
    /// Nodes per batch.
    batch: usize,
    tallies: HashMap<usize, Tally>,
    frontier: Vec<Node>,
    /// Engines evaluating a batch now.
    busy: usize,
    done: Vec<(usize, Answer)>,
}

/// The search and its engines: an engine waits on `ready` for open work.
struct Shared {
    search: Mutex<Search>,
    ready: Condvar,
    engines: usize,
}

impl Shared {
    /// The next batch for an engine, waiting until there is one: at most an even
    /// share of what is open among the engines not evaluating, as sudolog's. None
    /// when every puzzle is decided.
    fn next_batch(&self) -> Option<Vec<Node>> {
        let mut s = self.search.lock().expect("a search");
        loop {
            let idle = self.engines.saturating_sub(s.busy).max(1);
            let unread = s.grids.len().saturating_sub(s.next);
            let n = s.batch.min((s.frontier.len() + unread).div_ceil(idle));
            let batch = s.take_batch(n.max(1));
            if !batch.is_empty() {
                s.busy += 1;
                return Some(batch);
            }
            if s.busy == 0 {
                assert!(s.tallies.is_empty(), "every puzzle decided");
                self.ready.notify_all();
                return None;
            }
            s = self.ready.wait(s).expect("a search");
        }
    }
}

impl Search {
    /// The next batch, at most `n` nodes: open nodes by priority, then new puzzles
    /// (as sudolog does).
    fn take_batch(&mut self, n: usize) -> Vec<Node> {
        let tallies = &mut self.tallies;
        self.frontier.retain(|n| match tallies.get_mut(&n.puzzle) {
            Some(t) if !t.done => true,
            Some(t) => {
                t.open -= 1;
                false
            }
            None => false,
        });
        // Decided puzzles with no node left (absorbed, or dropped just above) go:
        // every batch is taken here, so this is the one place.
        self.tallies.retain(|_, t| !t.done || t.open > 0);
        let mut batch = if self.frontier.len() <= n {
            std::mem::take(&mut self.frontier)
        } else {
            if self.frontier.len() > FRONTIER {
                self.frontier.select_nth_unstable_by(n - 1, |a, b| {
                    (b.depth, a.puzzle).cmp(&(a.depth, b.puzzle))
                });
            } else {
                self.frontier.select_nth_unstable_by(n - 1, |a, b| {
                    a.puzzle
                        .cmp(&b.puzzle)
                        .then(b.depth.cmp(&a.depth))
                        .then_with(|| a.path.cmp(&b.path))
                });
            }
            let rest = self.frontier.split_off(n);
            std::mem::replace(&mut self.frontier, rest)
        };
        while batch.len() < n && self.tallies.len() < FRONTIER {
            let i = self.next;
            let Some(grid) = self.grids.get(i) else {
                break;
            };
            self.next += 1;
            self.tallies.insert(
                i,
                Tally {
                    open: 1,
                    ..Tally::default()
                },
            );
            batch.push(Node {
                puzzle: i,
                depth: 0,
                path: Vec::new(),
                base: Arc::new(*grid),
                guess: None,
                start: None,
            });
        }
        batch
    }

    /// Takes in one batch's outputs: solutions, contradictions, children.
    fn absorb(&mut self, batch: Vec<Node>, out: Outputs) {
        let mut placed = vec![[0u8; 81]; batch.len()];
        for (p, c, v) in present(out.placed) {
            placed[p as usize][c as usize] = v;
        }
        let mut broken = vec![false; batch.len()];
        for p in present(out.broken) {
            broken[p as usize] = true;
        }
        let mut choice: Vec<Option<(u8, Vec<u8>)>> = vec![None; batch.len()];
        for (p, c, v) in present(out.choice) {
            choice[p as usize].get_or_insert((c, Vec::new())).1.push(v);
        }
        let mut carry: Vec<Vec<(u8, u8)>> = vec![Vec::new(); batch.len()];
        for (p, c, v) in present(out.carry) {
            carry[p as usize].push((c, v));
        }
        for (i, node) in batch.into_iter().enumerate() {
            let t = self
                .tallies
                .get_mut(&node.puzzle)
                .expect("a puzzle in flight");
            t.open -= 1;
            if t.done || broken[i] {
            } else if let Some((cell, values)) = choice[i].take() {
                let base = Arc::new(placed[i]);
                let start = Arc::new(std::mem::take(&mut carry[i]));
                for v in values {
                    let mut path = node.path.clone();
                    path.push(v);
                    self.frontier.push(Node {
                        puzzle: node.puzzle,
                        depth: node.depth + 1,
                        path,
                        base: base.clone(),
                        guess: Some((cell, v)),
                        start: Some(start.clone()),
                    });
                    t.guesses += 1;
                    t.open += 1;
                }
            } else {
                assert!(
                    placed[i].iter().all(|&v| v != 0),
                    "a solved node fills its grid"
                );
                t.found += 1;
                t.solution = Some(placed[i]);
            }
            if !t.done && (t.found >= 2 || t.open == 0) {
                t.done = true;
                let status = match t.found {
                    0 => "unsolvable",
                    1 => "solved",
                    _ => "multiple",
                };
                let solution = (t.found == 1).then_some(t.solution).flatten();
                let guesses = t.guesses;
                self.done.push((
                    node.puzzle,
                    Answer {
                        status,
                        solution,
                        guesses,
                    },
                ));
            }
        }
    }
}

/// One hand-written engine: evaluates batches of the shared search until every
/// puzzle is decided.
fn engine(shared: Arc<Shared>, logic: Logic) {
    timely::execute_directly(move |worker| {
        let geo = Geometry {
            members: members(),
            peers: peers(),
        };
        while let Some(batch) = shared.next_batch() {
            let out = evaluate(worker, logic, &batch, &geo);
            let mut search = shared.search.lock().expect("a search");
            search.busy -= 1;
            search.absorb(batch, out);
            drop(search);
            shared.ready.notify_all();
        }
    })
}

/// Hand-written: every puzzle's answer (in input order), and the time.
fn hand_written(
    grids: &[Cells],
    workers: usize,
    batch: usize,
    logic: Logic,
) -> (Vec<Answer>, Duration) {
    let shared = Arc::new(Shared {
        search: Mutex::new(Search {
            grids: Arc::new(grids.to_vec()),
            next: 0,
            batch,
            tallies: HashMap::new(),
            frontier: Vec::new(),
            busy: 0,
            done: Vec::new(),
        }),
        ready: Condvar::new(),
        engines: workers.max(1),
    });
    let start = Instant::now();
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let shared = shared.clone();
            std::thread::spawn(move || engine(shared, logic))
        })
        .collect();
    for h in handles {
        h.join().expect("an engine ran");
    }
    let elapsed = start.elapsed();
    let mut answers: Vec<Option<Answer>> = vec![None; grids.len()];
    for (i, a) in std::mem::take(&mut shared.search.lock().expect("a search").done) {
        answers[i] = Some(a);
    }
    let answers = answers
        .into_iter()
        .map(|a| a.expect("every puzzle answered"));
    (answers.collect(), elapsed)
}

/// sudolog: the logic's rule program, one engine per worker, as `sudolog solve` runs.
fn sudolog_engine(
    puzzles: &[Puzzle],
    workers: usize,
    batch: usize,
    logic: Logic,
) -> (Vec<Answer>, Duration) {
    let program = from_files(&[logic.rules().to_string()]).expect("the rules check");
    let opts = Options {
        workers: 1,
        search: true,
        inherit: true,
        batch: true,
        ..Default::default()
    };
    let make = || Board::new(program.clone(), &opts);
    let engines = Engines::Many {
        shards: workers,
        make: &make,
        finish: &|_| Ok(()),
    };
    let limits = Limits {
        batch,
        frontier: FRONTIER,
    };
    let answers = Mutex::new(Vec::new());
    let start = Instant::now();
    let mut input = puzzles.iter().cloned().map(Ok);
    solve_sharded(engines, &mut input, Mode::default(), limits, &mut |r| {
        let s = r.map_err(|e| e.to_string())?;
        let status = match s.outcome {
            Outcome::Solved => "solved",
            Outcome::Multiple => "multiple",
            // Clashing givens: the hand-written side finds no solution either.
            Outcome::Unsolvable | Outcome::Invalid => "unsolvable",
            other => panic!("unexpected outcome {other:?}"),
        };
        let solution =
            (s.outcome == Outcome::Solved).then(|| std::array::from_fn(|c| s.grid.get(c)));
        answers.lock().unwrap().push(Answer {
            status,
            solution,
            guesses: s.guesses as u64,
        });
        Ok(())
    })
    .expect("sudolog solves");
    let elapsed = start.elapsed();
    (answers.into_inner().unwrap(), elapsed)
}

fn main() {
    let Args {
        workers,
        file,
        limit,
        rest,
    } = args();
    let batch: usize = rest.first().and_then(|a| a.parse().ok()).unwrap_or(BATCH);
    let logic = match rest.get(1).map(String::as_str) {
        None | Some("singles") => Logic::Singles,
        Some("intersections") => Logic::Intersections,
        Some(other) => panic!("LOGIC is singles or intersections, not {other}"),
    };
    let puzzles = puzzles(&file, limit);
    let grids: Vec<Cells> = puzzles.iter().map(cells).collect();
    let n = grids.len();
    let (mut hand, mut ours) = (Vec::new(), Vec::new());
    let mut answers = None;
    for _ in 0..3 {
        let (h, th) = hand_written(&grids, workers, batch, logic);
        let (o, to) = sudolog_engine(&puzzles, workers, batch, logic);
        for (i, (a, b)) in h.iter().zip(&o).enumerate() {
            assert_eq!(
                (a.status, a.solution),
                (b.status, b.solution),
                "puzzle {} ({}:{}): both sides agree",
                i + 1,
                puzzles[i].source,
                puzzles[i].line
            );
        }
        hand.push(th);
        ours.push(to);
        answers = Some((h, o));
    }
    let (h, o) = answers.expect("three runs");
    let count = |v: &[Answer], s: &str| v.iter().filter(|a| a.status == s).count();
    let guesses = |v: &[Answer]| v.iter().map(|a| a.guesses).sum::<u64>();
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64()
    };
    let (th, to) = (median(&mut hand), median(&mut ours));
    println!(
        "{} and search, {n} puzzles of {file} ({} solved, {} multiple, {} unsolvable), {workers} engine(s) of one worker, batch {batch}, median of 3:",
        match logic {
            Logic::Singles => "singles",
            Logic::Intersections => "singles, intersections",
        },
        count(&o, "solved"),
        count(&o, "multiple"),
        count(&o, "unsolvable")
    );
    println!("| | time | puzzles/s | guesses |");
    println!("|---|---|---|---|");
    println!(
        "| hand-written differential dataflow | {th:.2} s | {:.1} | {} |",
        n as f64 / th,
        guesses(&h)
    );
    println!(
        "| sudolog, {} | {to:.2} s | {:.1} | {} |",
        logic.rules(),
        n as f64 / to,
        guesses(&o)
    );
    println!("sudolog / hand-written: {:.2}x", to / th);
}
