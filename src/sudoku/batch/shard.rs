//! The pieces of [`super::solve_sharded`]: the search the engines share, an
//! engine's thread and the reading, reordering thread.

use std::collections::{BTreeMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Condvar, Mutex, MutexGuard};

use super::{evaluate, Board, Evaluated, InputError, Item, Node, Puzzle, Solved, Solver};

type Done = Result<(usize, Result<Solved, InputError>), String>;

/// One search shared by several engines: puzzles read and numbered by the input
/// order, waiting for an engine, and the solver with every puzzle in flight and
/// the open nodes.
pub(super) struct Pool {
    state: Mutex<State>,
    /// Signalled when there may be work (puzzles read, nodes opened) or an end.
    ready: Condvar,
    /// The engines sharing the search.
    engines: usize,
}

struct State {
    puzzles: VecDeque<(usize, Puzzle)>,
    solver: Solver,
    /// Engines evaluating a batch now.
    busy: usize,
    /// No more puzzles will come (the input ended, or the run stopped).
    closed: bool,
    /// The run failed: engines stop taking batches and handing over results.
    stopped: bool,
}

impl Pool {
    pub(super) fn new(solver: Solver, engines: usize) -> Pool {
        Pool {
            state: Mutex::new(State {
                puzzles: VecDeque::new(),
                solver,
                busy: 0,
                closed: false,
                stopped: false,
            }),
            ready: Condvar::new(),
            engines: engines.max(1),
        }
    }
    fn lock(&self) -> Option<MutexGuard<'_, State>> {
        self.state.lock().ok()
    }
    fn push(&self, seq: usize, p: Puzzle) {
        if let Some(mut st) = self.lock() {
            st.puzzles.push_back((seq, p));
        }
        self.ready.notify_one();
    }
    fn close(&self) {
        if let Some(mut st) = self.lock() {
            st.closed = true;
        }
        self.ready.notify_all();
    }
    pub(super) fn stop(&self) {
        if let Some(mut st) = self.lock() {
            st.closed = true;
            st.stopped = true;
        }
        self.ready.notify_all();
    }

    /// The next batch for an engine, waiting until there is one: open nodes first,
    /// then new puzzles, at most an even share of what is open among the engines not
    /// evaluating (so that a few puzzles with large trees keep every engine busy).
    /// None when the run is over (the input ended and nothing is open or being
    /// evaluated) or stopped.
    fn next_batch(&self) -> Option<Vec<Node>> {
        let mut st = self.lock()?;
        loop {
            if st.stopped {
                return None;
            }
            let idle = self.engines.saturating_sub(st.busy).max(1);
            let State {
                puzzles, solver, ..
            } = &mut *st;
            let share = (solver.open_nodes() + puzzles.len()).div_ceil(idle);
            let n = solver.limits.batch.min(share);
            let mut input = std::iter::from_fn(|| puzzles.pop_front().map(|(s, p)| (s, Ok(p))));
            let batch = solver.take_batch(n, &mut input);
            if !batch.is_empty() {
                st.busy += 1;
                return Some(batch);
            }
            if st.closed && st.busy == 0 && st.puzzles.is_empty() {
                // Nothing open and nothing being evaluated: nothing more will open.
                self.ready.notify_all();
                return None;
            }
            st = self.ready.wait(st).ok()?;
        }
    }

    /// Takes in the verdicts of a batch an engine evaluated (its children open for
    /// any engine), and sends the results of the puzzles it decided.
    fn absorb(&self, evaluated: Vec<(Vec<Node>, Evaluated)>, done: &Sender<Done>) {
        if let Some(mut st) = self.lock() {
            st.busy -= 1;
            if !st.stopped {
                for (nodes, ev) in evaluated {
                    for key in st.solver.absorb(nodes, ev) {
                        if let Some(solved) = st.solver.result(key) {
                            let _ = done.send(Ok((key, Ok(solved))));
                        }
                    }
                }
            }
        }
        self.ready.notify_all();
    }
}

/// One engine: batches from `pool` until the run is over, each evaluated on its own
/// board and handed back; then `finish`. The engine is built when it takes its first
/// batch: one that gets none (a file of one grid, with an engine per core) costs
/// nothing and returns None. A failure stops the whole run.
pub(super) fn run<T>(
    make: &(dyn Fn() -> Result<Board, String> + Sync),
    finish: &(dyn Fn(&mut Board) -> Result<T, String> + Sync),
    pool: &Pool,
    done: Sender<Done>,
) -> Result<Option<T>, String> {
    // A panic (a bug) fails the run like an error, so no result is waited for
    // in vain.
    let solved = catch_unwind(AssertUnwindSafe(|| {
        let Some(mut batch) = pool.next_batch() else {
            return Ok(None);
        };
        let mut board = make()?;
        loop {
            let evaluated = evaluate(&mut board, batch)?;
            pool.absorb(evaluated, &done);
            match pool.next_batch() {
                Some(next) => batch = next,
                None => break,
            }
        }
        finish(&mut board).map(Some)
    }))
    .unwrap_or_else(|_| Err("internal error: a solving thread panicked".into()));
    if let Err(e) = &solved {
        pool.stop();
        let _ = done.send(Err(e.clone()));
    }
    solved
}

/// Reads `input` into `pool` (at most `read_ahead` puzzles past the last result
/// handed over), and hands results to `emit` in input order; input errors take
/// their place in that order.
pub(super) fn feed(
    input: &mut dyn Iterator<Item = Item>,
    pool: &Pool,
    done: &Receiver<Done>,
    read_ahead: usize,
    emit: &mut dyn FnMut(Result<Solved, InputError>) -> Result<(), String>,
) -> Result<(), String> {
    let (mut read, mut emitted, mut ended) = (0, 0, false);
    let mut results = BTreeMap::new();
    loop {
        while !ended && read - emitted < read_ahead {
            match input.next() {
                None => {
                    ended = true;
                    pool.close();
                }
                Some(Err(e)) => {
                    results.insert(read, Err(e));
                    read += 1;
                }
                Some(Ok(p)) => {
                    pool.push(read, p);
                    read += 1;
                }
            }
        }
        while let Some(r) = results.remove(&emitted) {
            emit(r)?;
            emitted += 1;
        }
        if ended && emitted == read {
            return Ok(());
        }
        if !ended && read - emitted < read_ahead {
            continue;
        }
        let (seq, r) = done
            .recv()
            .map_err(|_| "internal error: the solving threads stopped early")??;
        results.insert(seq, r);
        while let Ok(next) = done.try_recv() {
            let (seq, r) = next?;
            results.insert(seq, r);
        }
    }
}
