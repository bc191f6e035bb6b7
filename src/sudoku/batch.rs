//! Files of puzzles through the engine, as batches of search nodes.
//!
//! In: a stream of parsed puzzles (or per-puzzle input errors). Out: one result per
//! input, in input order, handed over as soon as it and every input before it are
//! done. Work goes in batches of at most [`Limits::batch`] search nodes (roots and
//! guesses of any puzzles in flight), each batch loaded into a fresh dataflow with
//! inserts only and evaluated in one commit: no puzzle waits on another's depth, and
//! the per-commit cost is shared by the whole batch. Batches are filled with open
//! nodes first, oldest puzzle first (within a puzzle deepest, then leftmost: a
//! depth-first beam, so a second solution turns up before a wide tree is swept),
//! then with new puzzles from the input. Past [`Limits::frontier`] open nodes, the
//! deepest of any puzzle go first, so the frontier shrinks again; memory is bounded
//! by the batch (in the dataflow) and the frontier (grids on the host).
//! [`solve_sharded`] runs the same on several engines at once, each with a share of
//! the puzzles, and hands the results over in input order.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::board::Board;
use super::grade::{StepCounter, StepRules};
use super::grid::Grid;
use super::puzzle::{InputError, Puzzle};
use super::search::{Mode, Node, Outcome, Tally, Verdict};
use crate::check::ir::{Program, Value};
use crate::plan::plan;

mod shard;

/// The result for one input puzzle.
pub struct Solved {
    pub puzzle: Puzzle,
    pub outcome: Outcome,
    /// The solution, or the grid as far as the rules got.
    pub grid: Grid,
    /// Rule rounds of the root (before any guess).
    pub rounds: u32,
    /// Search nodes made by guesses.
    pub guesses: u32,
    /// Search nodes that ended in a contradiction.
    pub backtracks: u32,
    /// The deepest search node evaluated.
    pub max_depth: u32,
    /// Deductions per rule label at the root (only with explanations on).
    pub deductions: BTreeMap<String, u32>,
    /// Steps per rule label at the root, as grading counts them (only with
    /// explanations on): see [`super::grade`].
    pub steps: BTreeMap<String, u32>,
    /// This puzzle's share of the batches its nodes were in.
    pub time: Duration,
}

pub type Item = Result<Puzzle, InputError>;

/// How much work is in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Search nodes per batch (one dataflow evaluation): bounds the engine's memory.
    pub batch: usize,
    /// Open nodes (and puzzles in flight) before the search turns depth first.
    pub frontier: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            batch: BATCH,
            frontier: 4096,
        }
    }
}

/// Search nodes a batch holds by default with the full rules (`sudoku.dl`).
pub const BATCH: usize = 96;

/// Search nodes in flight in one process by default with the full rules, all its
/// engines together: a batch's dataflow takes about 1.2 MiB a node with them, so
/// engines on every core of a large machine would otherwise multiply the memory by
/// the cores (16 engines of 96 nodes: 2 GiB on 17-clue puzzles).
pub const IN_FLIGHT: usize = 384;

/// The full rules' arranging steps ([`crate::plan::Plan::arranging_steps`]), for
/// which [`BATCH`] and [`IN_FLIGHT`] are set: a lighter rule set holds
/// proportionally more nodes in the same memory (`fast.dl`: ~0.3 MiB a node,
/// against 1.2).
const FULL_RULES_STEPS: usize = 274;

/// The most nodes a batch holds by default, however light the rules: larger
/// batches wait longer on their slowest node's rounds (`fast.dl`, 1,000 17-clue
/// puzzles: 384 nodes ran at 0.84x the rate of 96, 192 at 1.0x).
const MOST: usize = 192;

impl Limits {
    /// The limits of each of `engines` engines in one process running `program`:
    /// `batch` nodes a batch where given, else [`BATCH`], fewer where the engines
    /// would hold more than [`IN_FLIGHT`] together (at least 8); both scaled up, to
    /// at most [`MOST`] a batch, for a program with fewer arranging steps than the
    /// full rules.
    pub fn for_engines(batch: Option<usize>, engines: usize, program: &Program) -> Limits {
        let steps = plan(program, false).map_or(FULL_RULES_STEPS, |p| p.arranging_steps());
        let scale = |n: usize| n * FULL_RULES_STEPS / steps.clamp(1, FULL_RULES_STEPS);
        // Scaling only ever enlarges (steps are clamped to the full rules').
        let most = scale(BATCH).min(MOST);
        let shared = (scale(IN_FLIGHT) / engines.max(1)).clamp(8, most);
        Limits {
            batch: batch.unwrap_or(shared),
            ..Limits::default()
        }
    }
}

/// A puzzle in flight.
struct Entry {
    puzzle: Puzzle,
    tally: Tally,
    deductions: BTreeMap<String, u32>,
    steps: BTreeMap<String, u32>,
    time: Duration,
}

impl Entry {
    fn result(self) -> Solved {
        let t = self.tally;
        Solved {
            outcome: t.outcome.unwrap_or(Outcome::Stalled),
            grid: t
                .grid()
                .cloned()
                .unwrap_or_else(|| self.puzzle.grid.clone()),
            rounds: t.root_rounds,
            guesses: t.guesses,
            backtracks: t.backtracks,
            max_depth: t.max_depth,
            deductions: self.deductions,
            steps: self.steps,
            time: self.time,
            puzzle: self.puzzle,
        }
    }
}

/// The streaming solver's state: puzzles in flight (by their number in the input),
/// open nodes, and (for [`Solver::flush`]) the input order.
struct Solver {
    mode: Mode,
    limits: Limits,
    entries: HashMap<usize, Entry>,
    /// Input order: a puzzle's number, or an input error. Kept only where results
    /// are handed over in order by the solver itself ([`solve_stream`]).
    order: Option<VecDeque<Result<usize, InputError>>>,
    frontier: Vec<Node>,
}

/// What evaluating nodes of one grid shape told: each node's verdict (by its index),
/// and per puzzle the deductions and steps of its root (when events are on).
struct Evaluated {
    verdicts: Vec<Verdict>,
    deductions: HashMap<usize, BTreeMap<String, u32>>,
    steps: HashMap<usize, BTreeMap<String, u32>>,
    elapsed: Duration,
}

impl Solver {
    fn new(mode: Mode, limits: Limits, ordered: bool) -> Solver {
        Solver {
            mode,
            limits,
            entries: HashMap::new(),
            order: ordered.then(VecDeque::new),
            frontier: Vec::new(),
        }
    }

    /// Open nodes, those of puzzles already decided included.
    fn open_nodes(&self) -> usize {
        self.frontier.len()
    }

    /// The next batch, at most `n` nodes: open nodes by priority, then new puzzles
    /// from `input` (each with its number in the input).
    fn take_batch(
        &mut self,
        n: usize,
        input: &mut dyn Iterator<Item = (usize, Item)>,
    ) -> Vec<Node> {
        let n = n.max(1);
        // Nodes of puzzles already decided are dropped unevaluated.
        let entries = &mut self.entries;
        self.frontier
            .retain(|node| match entries.get_mut(&node.puzzle) {
                Some(e) if e.tally.outcome.is_none() => true,
                Some(e) => {
                    e.tally.open -= 1;
                    false
                }
                None => false,
            });
        let mut batch = if self.frontier.len() <= n {
            std::mem::take(&mut self.frontier)
        } else {
            if self.frontier.len() > self.limits.frontier {
                // Deepest first, whichever puzzle: the frontier shrinks again.
                self.frontier.select_nth_unstable_by(n - 1, |a, b| {
                    (b.depth, a.puzzle).cmp(&(a.depth, b.puzzle))
                });
            } else {
                // Oldest puzzle first; within it deepest, then leftmost (depth first):
                // solutions turn up early, and the frontier stays small.
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
        while batch.len() < n && self.entries.len() < self.limits.frontier.max(n) {
            match input.next() {
                None => break,
                Some((_, Err(e))) => {
                    if let Some(order) = &mut self.order {
                        order.push_back(Err(e));
                    }
                }
                Some((key, Ok(puzzle))) => {
                    batch.push(Node::root(key, puzzle.grid.clone()));
                    let tally = Tally::new(self.mode);
                    self.entries.insert(
                        key,
                        Entry {
                            puzzle,
                            tally,
                            deductions: BTreeMap::new(),
                            steps: BTreeMap::new(),
                            time: Duration::ZERO,
                        },
                    );
                    if let Some(order) = &mut self.order {
                        order.push_back(Ok(key));
                    }
                }
            }
        }
        batch
    }

    /// Takes in what evaluating `batch` told: every node's verdict, its children
    /// into the frontier. Out: the puzzles decided by it. A node whose puzzle is no
    /// longer in flight (decided and handed over while the node was evaluated by
    /// another engine) is passed over.
    fn absorb(&mut self, batch: Vec<Node>, evaluated: Evaluated) -> Vec<usize> {
        let Evaluated {
            verdicts,
            deductions,
            steps,
            elapsed,
        } = evaluated;
        for (key, d) in deductions {
            if let Some(e) = self.entries.get_mut(&key) {
                e.deductions = d;
            }
        }
        for (key, s) in steps {
            if let Some(e) = self.entries.get_mut(&key) {
                e.steps = s;
            }
        }
        let share = elapsed / batch.len().max(1) as u32;
        let mut decided = Vec::new();
        for (node, verdict) in batch.iter().zip(verdicts) {
            let Some(e) = self.entries.get_mut(&node.puzzle) else {
                continue;
            };
            let was_open = e.tally.outcome.is_none();
            e.time += share;
            let children = e.tally.absorb(node, verdict);
            if was_open && e.tally.outcome.is_some() {
                decided.push(node.puzzle);
            }
            self.frontier.extend(children);
        }
        decided
    }

    /// Takes out a decided puzzle's result.
    fn result(&mut self, key: usize) -> Option<Solved> {
        self.entries.remove(&key).map(Entry::result)
    }

    /// Hands over the results at the head of the input order that are done.
    fn flush(
        &mut self,
        emit: &mut dyn FnMut(Result<Solved, InputError>) -> Result<(), String>,
    ) -> Result<(), String> {
        let Some(order) = &mut self.order else {
            return Ok(());
        };
        while let Some(head) = order.front() {
            match head {
                Err(_) => {
                    if let Some(Err(e)) = order.pop_front() {
                        emit(Err(e))?;
                    }
                }
                Ok(key) => {
                    let key = *key;
                    if self.entries[&key].tally.outcome.is_none() {
                        return Ok(());
                    }
                    order.pop_front();
                    let entry = self.entries.remove(&key).ok_or("lost puzzle")?;
                    emit(Ok(entry.result()))?;
                }
            }
        }
        Ok(())
    }
}

/// Solves a stream of puzzles with search in batches; `emit` gets each result (or
/// input error) in input order, as soon as it and those before it are done.
pub fn solve_stream(
    board: &mut Board,
    input: &mut dyn Iterator<Item = Item>,
    mode: Mode,
    limits: Limits,
    emit: &mut dyn FnMut(Result<Solved, InputError>) -> Result<(), String>,
) -> Result<(), String> {
    let mut solver = Solver::new(mode, limits, true);
    let mut read = 0;
    let mut numbered = input.map(|item| {
        read += 1;
        (read - 1, item)
    });
    loop {
        let batch = solver.take_batch(limits.batch, &mut numbered);
        if batch.is_empty() {
            solver.flush(emit)?;
            if solver.frontier.is_empty() {
                return match solver.order.as_ref().is_none_or(VecDeque::is_empty) {
                    true => Ok(()),
                    false => Err("internal error: a search ended with puzzles open".into()),
                };
            }
            continue;
        }
        for (nodes, evaluated) in evaluate(board, batch)? {
            solver.absorb(nodes, evaluated);
        }
        solver.flush(emit)?;
    }
}

/// Evaluates a batch of nodes: in one fresh dataflow per grid shape (a board holds
/// one shape's geometry at a time), so almost always in one. Out: the nodes of each
/// shape with what their evaluation told.
fn evaluate(
    board: &mut Board,
    mut batch: Vec<Node>,
) -> Result<Vec<(Vec<Node>, Evaluated)>, String> {
    let mut out = Vec::new();
    while let Some(first) = batch.first() {
        let shape = first.base.shape;
        let (same, rest): (Vec<Node>, Vec<Node>) =
            batch.into_iter().partition(|n| n.base.shape == shape);
        let evaluated = evaluate_shape(board, &same)?;
        out.push((same, evaluated));
        batch = rest;
    }
    Ok(out)
}

/// Evaluates nodes of one grid shape in a fresh dataflow, instance ids their
/// indices; reads every node's verdict, and the deductions and steps at the roots
/// when events are on.
fn evaluate_shape(board: &mut Board, batch: &[Node]) -> Result<Evaluated, String> {
    let start = Instant::now();
    board.reset()?;
    for (i, node) in batch.iter().enumerate() {
        node.insert(board, i as Value)?;
    }
    board.commit()?;
    let program = board.program();
    let step_rules = StepRules::new(program);
    let mut deductions: HashMap<usize, BTreeMap<String, u32>> = HashMap::new();
    let mut steps: HashMap<usize, StepCounter<'_>> = HashMap::new();
    for ev in board.session().events() {
        let Some(node) = batch.get(ev.head[0] as usize) else {
            continue;
        };
        if node.depth == 0 {
            let label = program.rules[ev.rule].label.clone();
            *deductions
                .entry(node.puzzle)
                .or_default()
                .entry(label)
                .or_default() += 1;
            steps
                .entry(node.puzzle)
                .or_insert_with(|| step_rules.counter())
                .add(&ev);
        }
    }
    let steps = steps.into_iter().map(|(k, c)| (k, c.finish())).collect();
    let elapsed = start.elapsed();
    let verdicts = (0..batch.len())
        .map(|i| Verdict::read(board, i as Value))
        .collect::<Result<_, _>>()?;
    Ok(Evaluated {
        verdicts,
        deductions,
        steps,
        elapsed,
    })
}

/// Where [`solve_sharded`] solves.
pub enum Engines<'a, T> {
    /// One engine, built already (its workers may span processes).
    One(&'a mut Board),
    /// This many engines of their own, each built by `make` in a thread of its own
    /// when it takes its first puzzle, and passed to `finish` after its last (e.g.
    /// for its profile).
    Many {
        shards: usize,
        make: &'a (dyn Fn() -> Result<Board, String> + Sync),
        finish: &'a (dyn Fn(&mut Board) -> Result<T, String> + Sync),
    },
}

/// Solves a stream of puzzles like [`solve_stream`], on one engine or on several at
/// once. Several engines share one search: each takes its batches (open nodes of any
/// puzzle in flight, then new puzzles) from a common frontier, evaluates them on its
/// own dataflow and hands the verdicts back, so a few hard puzzles keep every engine
/// busy. Batches share out what is open among the idle engines. Nodes never
/// interact, so engines of one worker each, sharing no dataflow, scale where one
/// engine's workers exchange rows and agree on progress every round. `emit` still
/// gets every result in input order; at most [`Limits::batch`] x 4 x shards puzzles
/// are read ahead of the last result handed over. Out: what `finish` returned for
/// each engine that took a batch (none for [`Engines::One`]).
pub fn solve_sharded<T: Send>(
    engines: Engines<'_, T>,
    input: &mut dyn Iterator<Item = Item>,
    mode: Mode,
    limits: Limits,
    emit: &mut dyn FnMut(Result<Solved, InputError>) -> Result<(), String>,
) -> Result<Vec<T>, String> {
    let (shards, make, finish) = match engines {
        Engines::One(board) => {
            solve_stream(board, input, mode, limits, emit)?;
            return Ok(Vec::new());
        }
        Engines::Many {
            shards,
            make,
            finish,
        } => (shards.max(1), make, finish),
    };
    let pool = shard::Pool::new(Solver::new(mode, limits, false), shards);
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..shards)
            .map(|_| {
                let (pool, done) = (&pool, done_tx.clone());
                s.spawn(move || shard::run(make, finish, pool, done))
            })
            .collect();
        drop(done_tx);
        let read_ahead = limits.batch.max(1) * 4 * shards;
        let fed = shard::feed(input, &pool, &done_rx, read_ahead, emit);
        if fed.is_err() {
            pool.stop();
        }
        let mut outs = Vec::new();
        for h in handles {
            let out = h.join();
            outs.push(
                out.unwrap_or_else(|_| Err("internal error: a solving thread panicked".into())),
            );
        }
        fed?;
        let outs: Vec<Option<T>> = outs.into_iter().collect::<Result<_, _>>()?;
        Ok(outs.into_iter().flatten().collect())
    })
}

/// Solves one chunk of puzzles, batches of at most the chunk's size; results in
/// input order (errors passed through).
pub fn solve_chunk(
    board: &mut Board,
    chunk: Vec<Item>,
    mode: Mode,
) -> Result<Vec<Result<Solved, InputError>>, String> {
    let limits = Limits {
        batch: chunk.len().max(1),
        ..Limits::default()
    };
    let mut out = Vec::new();
    solve_stream(board, &mut chunk.into_iter(), mode, limits, &mut |r| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
}

/// Totals for the summary line.
#[derive(Default, Debug)]
pub struct Summary {
    pub counts: BTreeMap<&'static str, usize>,
    pub total: usize,
}

impl Summary {
    pub fn add(&mut self, r: &Result<Solved, InputError>) {
        self.total += 1;
        let word = match r {
            Ok(s) => s.outcome.word(),
            Err(_) => "error",
        };
        *self.counts.entry(word).or_default() += 1;
    }
    /// An input that could not be read at all (a missing file).
    pub fn add_error(&mut self) {
        self.total += 1;
        *self.counts.entry("error").or_default() += 1;
    }
    pub fn line(&self, elapsed: Duration) -> String {
        let parts: Vec<String> = self
            .counts
            .iter()
            .map(|(k, v)| match (*k, *v) {
                // Outcomes are adjectives ("3 solved"); the one noun takes a plural.
                ("error", n) if n != 1 => format!("{n} errors"),
                (k, n) => format!("{n} {k}"),
            })
            .collect();
        let secs = elapsed.as_secs_f64();
        format!(
            "{} {}: {} in {:.3} s ({} puzzles/s)",
            self.total,
            if self.total == 1 { "puzzle" } else { "puzzles" },
            parts.join(", "),
            secs,
            rate(self.total as f64 / secs.max(1e-9))
        )
    }
}

/// A rate with two significant digits below 10 (`0.14`, `3.1`), whole above.
pub(crate) fn rate(x: f64) -> String {
    match x {
        x if x >= 9.95 => format!("{x:.0}"),
        x if x >= 0.995 => format!("{x:.1}"),
        x => format!("{x:.2}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::board::Options;
    use crate::sudoku::rules::{builtin, Builtin};

    /// Project Euler's first grid: the light rules solve it.
    const EULER: &str =
        "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..";

    #[test]
    fn summary_line_counts_by_outcome() {
        let mut s = Summary::default();
        s.add_error();
        assert_eq!(
            s.line(Duration::from_secs(2)),
            "1 puzzle: 1 error in 2.000 s (0.50 puzzles/s)"
        );
        s.add_error();
        s.add_error();
        s.add_error();
        assert_eq!(
            s.line(Duration::from_secs(2)),
            "4 puzzles: 4 errors in 2.000 s (2.0 puzzles/s)"
        );
    }

    #[test]
    fn engines_share_a_process_budget_of_nodes_unless_a_batch_is_given() {
        let full = builtin(Builtin::Full).unwrap();
        let batch = |given, engines| Limits::for_engines(given, engines, &full).batch;
        // The budgets are set for the full rules' steps.
        let steps = plan(&full, false).unwrap().arranging_steps();
        assert_eq!(steps, FULL_RULES_STEPS);
        // Up to four engines keep the full batch; more share IN_FLIGHT, down to 8.
        assert_eq!([1, 2, 4].map(|e| batch(None, e)), [BATCH; 3]);
        assert_eq!([8, 16, 0].map(|e| batch(None, e)), [48, 24, BATCH]);
        assert_eq!(batch(None, 64), 8);
        assert_eq!(batch(Some(200), 16), 200);
        assert_eq!(
            Limits::for_engines(None, 16, &full).frontier,
            Limits::default().frontier
        );
    }

    /// A rule set with fewer arranging steps holds more nodes a batch and in flight,
    /// in proportion, up to MOST a batch.
    #[test]
    fn lighter_rules_hold_more_nodes() {
        let fast = builtin(Builtin::Fast).unwrap();
        let steps = plan(&fast, false).unwrap().arranging_steps();
        assert!(
            steps * 3 < FULL_RULES_STEPS,
            "fast.dl: {steps} arranging steps"
        );
        let batch = |engines| Limits::for_engines(None, engines, &fast).batch;
        assert_eq!([1, 2].map(batch), [MOST; 2]);
        // Sixteen engines share IN_FLIGHT scaled by the steps.
        assert_eq!(batch(16), IN_FLIGHT * FULL_RULES_STEPS / steps / 16);
    }

    /// A board that does not search computes no choice, and what it leaves open is
    /// stalled: the same grid, rounds and status as a searching board's root, which
    /// goes on to guess from its choice.
    #[test]
    fn a_board_without_search_computes_no_choice() {
        let program = builtin(Builtin::Fast).unwrap();
        // The first is stalled by the light rules, the second solved by them.
        let text = format!(
            "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........\n{EULER}\n"
        );
        let run = |search: bool| {
            let opts = Options {
                workers: 1,
                search,
                batch: true,
                ..Default::default()
            };
            let mut board = Board::new(program.clone(), &opts).unwrap();
            assert_eq!(board.searches(), search);
            let items = crate::sudoku::puzzle::parse_text("t", &text);
            let mode = Mode {
                search: false,
                ..Mode::default()
            };
            let out = solve_chunk(&mut board, items, mode).unwrap();
            let out: Vec<Solved> = out.into_iter().map(Result::unwrap).collect();
            (out, board)
        };
        let (without, board) = run(false);
        assert_eq!(board.choice(0), None);
        let (with, board) = run(true);
        let outcomes: Vec<Outcome> = without.iter().map(|s| s.outcome).collect();
        assert_eq!(outcomes, [Outcome::Stalled, Outcome::Solved]);
        for (a, b) in without.iter().zip(&with) {
            assert_eq!(
                (a.outcome, &a.grid, a.rounds),
                (b.outcome, &b.grid, b.rounds)
            );
        }
        // The searching board's choice: an open cell of the stalled grid, with the
        // candidates it would guess (at least two).
        let (cell, values) = board.choice(0).expect("a stalled puzzle has a choice");
        assert_eq!(with[0].grid.values[cell], 0);
        assert!(values.len() >= 2, "{values:?}");
    }

    /// A board holds one grid shape's geometry at a time: a chunk that mixes 4x4,
    /// Sudoku X and classic grids (the X needs search under the light rules) is
    /// evaluated one shape after another, and each puzzle ends as it does alone.
    #[test]
    fn a_chunk_of_several_shapes_solves_each_as_alone() {
        let program = builtin(Builtin::Fast).unwrap();
        let x = "X\n4..82..63.2...918.....3........8.9...1........62..1.....9...........5.....4...6..\n";
        let parts = [
            "...2.1.....4.2..\n".to_string(),
            x.to_string(),
            format!("{EULER}\n"),
            "......214.3.....\n".to_string(),
        ];
        let opts = Options {
            workers: 1,
            search: true,
            batch: true,
            ..Default::default()
        };
        let solve = |text: &str| {
            let mut board = Board::new(program.clone(), &opts).unwrap();
            let items = crate::sudoku::puzzle::parse_text("t", text);
            let out = solve_chunk(&mut board, items, Mode::default()).unwrap();
            out.into_iter()
                .map(Result::unwrap)
                .map(|s| (s.outcome, s.grid, s.guesses))
                .collect::<Vec<_>>()
        };
        let together = solve(&parts.concat());
        assert_eq!(together.len(), parts.len());
        let shapes: std::collections::HashSet<_> =
            crate::sudoku::puzzle::parse_text("t", &parts.concat())
                .into_iter()
                .map(|p| p.unwrap().grid.shape)
                .collect();
        assert_eq!(shapes.len(), 3, "4x4, Sudoku X and classic");
        for (part, got) in parts.iter().zip(&together) {
            assert_eq!(solve(part).as_slice(), std::slice::from_ref(got), "{part}");
            assert_eq!(got.0, Outcome::Solved);
        }
    }

    /// Children that start from their parent's candidates (`start`) search the same
    /// tree as children that work them out again from its placements: the same
    /// outcomes, grids, guesses, backtracks and depths, with both rule sets.
    #[test]
    fn children_that_inherit_their_parents_candidates_search_the_same_tree() {
        let text = concat!(
            ".................1.....2.3......3.2...1.4......5....6..3......4.7..8...962...7...\n",
            "8.........95.......76.........426798...571243...893165......916....3.487....1.532\n",
            "...2.1.....4.2..\n",
            ".................1..2..3.4......5....3....6..7...1...8.....625..8..9....1......3.\n",
        );
        for rules in [Builtin::Fast, Builtin::Full] {
            let program = builtin(rules).unwrap();
            let solve = |inherit: bool| {
                let opts = Options {
                    workers: 1,
                    search: true,
                    batch: true,
                    inherit,
                    ..Default::default()
                };
                let mut board = Board::new(program.clone(), &opts).unwrap();
                let carry = board.rels.carry.unwrap();
                assert_eq!(board.session().is_observed(carry), inherit);
                let items = crate::sudoku::puzzle::parse_text("t", text);
                let out = solve_chunk(&mut board, items, Mode::default()).unwrap();
                out.into_iter()
                    .map(Result::unwrap)
                    .map(|s| (s.outcome, s.grid, s.guesses, s.backtracks, s.max_depth))
                    .collect::<Vec<_>>()
            };
            let inherited = solve(true);
            let outcomes: Vec<_> = inherited.iter().map(|s| s.0).collect();
            assert_eq!(
                outcomes,
                [
                    Outcome::Solved,
                    Outcome::Multiple,
                    Outcome::Solved,
                    Outcome::Solved
                ]
            );
            let guesses: u32 = inherited.iter().map(|s| s.2).sum();
            assert!(guesses > 30, "the rules need a search here ({rules:?})");
            assert_eq!(inherited, solve(false), "{rules:?}");
        }
    }

    /// An engine as `solve -w N` builds each: one worker, search, batch rendering.
    fn search_engine(program: &std::sync::Arc<crate::check::ir::Program>) -> Result<Board, String> {
        let opts = Options {
            workers: 1,
            search: true,
            batch: true,
            ..Default::default()
        };
        Board::new(program.clone(), &opts)
    }

    /// Engines are built when they take a puzzle: four engines given one grid build
    /// one dataflow, given none build nothing; every puzzle is still solved, in
    /// input order.
    #[test]
    fn sharded_engines_are_built_for_puzzles_only() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let program = builtin(Builtin::Fast).unwrap();
        let built = AtomicUsize::new(0);
        let make = || {
            built.fetch_add(1, Ordering::SeqCst);
            search_engine(&program)
        };
        let finish = |_: &mut Board| Ok(());
        for (text, engines) in [(String::new(), 0), (format!("{EULER}\n"), 1)] {
            built.store(0, Ordering::SeqCst);
            let mut input = crate::sudoku::puzzle::parse_text("t", &text).into_iter();
            let mut got = Vec::new();
            let engines_out = solve_sharded(
                Engines::Many {
                    shards: 4,
                    make: &make,
                    finish: &finish,
                },
                &mut input,
                Mode::default(),
                Limits::default(),
                &mut |r| {
                    got.push(r.map_err(|e| e.to_string())?.outcome);
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(built.load(Ordering::SeqCst), engines, "{text:?}");
            assert_eq!(engines_out.len(), engines);
            assert_eq!(got, vec![Outcome::Solved; engines]);
        }
    }

    /// One puzzle with a large search tree keeps two engines busy: its open nodes are
    /// shared out, so both build a board, and its tree (the guesses) and solution are
    /// those one engine finds.
    #[test]
    fn sharded_engines_share_one_puzzles_search() {
        // The first of forum_hardest_1106.txt: ~300 guesses with the light rules.
        const HARDEST: &str =
            "........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3";
        let program = builtin(Builtin::Fast).unwrap();
        let make = || search_engine(&program);
        let finish = |_: &mut Board| Ok(());
        let run = |shards| {
            let text = format!("{HARDEST}\n");
            let mut input = crate::sudoku::puzzle::parse_text("t", &text).into_iter();
            let mut got = Vec::new();
            let engines = Engines::Many {
                shards,
                make: &make,
                finish: &finish,
            };
            let built = solve_sharded(
                engines,
                &mut input,
                Mode::default(),
                Limits::default(),
                &mut |r| {
                    let s = r.map_err(|e| e.to_string())?;
                    got.push((s.outcome, s.guesses, s.grid, s.puzzle.grid));
                    Ok(())
                },
            )
            .unwrap();
            (built.len(), got)
        };
        let (one, alone) = run(1);
        let (two, shared) = run(2);
        assert_eq!((one, two), (1, 2), "engines that took a batch");
        assert_eq!(shared, alone);
        let [(outcome, guesses, grid, puzzle)] = &shared[..] else {
            panic!("one result expected: {shared:?}");
        };
        assert_eq!(*outcome, Outcome::Solved);
        assert!(*guesses > 100, "a search tree to share: {guesses} guesses");
        assert_eq!(crate::sudoku::grid::check_solution(puzzle, grid), Ok(()));
    }

    #[test]
    fn rates_keep_two_digits_when_small() {
        assert_eq!(rate(0.143), "0.14");
        assert_eq!(rate(3.12), "3.1");
        assert_eq!(rate(16.2), "16");
        assert_eq!(rate(1622.0), "1622");
    }
}
