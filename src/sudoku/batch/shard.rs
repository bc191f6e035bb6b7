//! The pieces of [`super::solve_sharded`]: the queue of puzzles, an engine's thread and the
//! reading, reordering thread.

use std::collections::{BTreeMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Condvar, Mutex};

use super::{solve_stream, Board, InputError, Item, Limits, Mode, Puzzle, Solved};

type Done = Result<(usize, Result<Solved, InputError>), String>;

/// Puzzles read and numbered by the input order, waiting for an engine.
#[derive(Default)]
pub(super) struct Queue {
    state: Mutex<State>,
    ready: Condvar,
}

#[derive(Default)]
struct State {
    puzzles: VecDeque<(usize, Puzzle)>,
    /// No more puzzles will come (the input ended, or the run stopped).
    closed: bool,
    /// The run failed: engines stop taking puzzles and handing over results.
    stopped: bool,
}

impl Queue {
    fn push(&self, seq: usize, p: Puzzle) {
        if let Ok(mut st) = self.state.lock() {
            st.puzzles.push_back((seq, p));
        }
        self.ready.notify_one();
    }
    fn close(&self) {
        if let Ok(mut st) = self.state.lock() {
            st.closed = true;
        }
        self.ready.notify_all();
    }
    pub(super) fn stop(&self) {
        if let Ok(mut st) = self.state.lock() {
            st.closed = true;
            st.stopped = true;
        }
        self.ready.notify_all();
    }
    fn stopped(&self) -> bool {
        self.state.lock().map_or(true, |st| st.stopped)
    }
    /// The next puzzle: waiting for one when `wait` (an idle engine), else only
    /// what is there (an engine with puzzles of its own in flight goes on).
    fn take(&self, wait: bool) -> Option<(usize, Puzzle)> {
        let mut st = self.state.lock().ok()?;
        loop {
            if st.stopped {
                return None;
            }
            if let Some(p) = st.puzzles.pop_front() {
                return Some(p);
            }
            if st.closed || !wait {
                return None;
            }
            st = self.ready.wait(st).ok()?;
        }
    }
}

/// One engine: puzzles from `queue` until it is closed, each result sent with
/// its number; then `finish`. The engine is built when it takes its first puzzle:
/// one that gets none (a file of one grid, with an engine per core) costs nothing
/// and returns None. A failure stops the whole run.
pub(super) fn run<T>(
    make: &(dyn Fn() -> Result<Board, String> + Sync),
    finish: &(dyn Fn(&mut Board) -> Result<T, String> + Sync),
    queue: &Queue,
    done: Sender<Done>,
    mode: Mode,
    limits: Limits,
) -> Result<Option<T>, String> {
    // A panic (a bug) fails the run like an error, so no result is waited for
    // in vain.
    let solved = catch_unwind(AssertUnwindSafe(|| {
        let Some(first) = queue.take(true) else {
            return Ok(None);
        };
        let mut board = make()?;
        // The numbers of this engine's puzzles in flight, in the order taken:
        // solve_stream hands results over in that order.
        let taken = std::cell::RefCell::new(VecDeque::new());
        let mut first = Some(first);
        let mut input = std::iter::from_fn(|| {
            let (seq, p) = first
                .take()
                .or_else(|| queue.take(taken.borrow().is_empty()))?;
            taken.borrow_mut().push_back(seq);
            Some(Ok(p))
        });
        solve_stream(&mut board, &mut input, mode, limits, &mut |r| {
            let seq = taken.borrow_mut().pop_front().ok_or("lost puzzle")?;
            if queue.stopped() {
                return Err("stopped".into());
            }
            done.send(Ok((seq, r))).map_err(|_| "stopped".to_string())
        })?;
        finish(&mut board).map(Some)
    }))
    .unwrap_or_else(|_| Err("internal error: a solving thread panicked".into()));
    if let Err(e) = &solved {
        queue.stop();
        let _ = done.send(Err(e.clone()));
    }
    solved
}

/// Reads `input` into `queue` (at most `read_ahead` puzzles past the last result
/// handed over), and hands results to `emit` in input order; input errors take
/// their place in that order.
pub(super) fn feed(
    input: &mut dyn Iterator<Item = Item>,
    queue: &Queue,
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
                    queue.close();
                }
                Some(Err(e)) => {
                    results.insert(read, Err(e));
                    read += 1;
                }
                Some(Ok(p)) => {
                    queue.push(read, p);
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
