//! One timely worker's side of a session: apply input batches, run commits to the
//! probe (parking when there is nothing to do), rebuild on request. On a thread of
//! its own ([`run`], commands over a channel), or on the session's ([`Inline`]).

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use std::time::Instant;

use timely::communication::allocator::thread::Thread;
use timely::communication::Allocator;
use timely::worker::Worker;
use timely::WorkerConfig;

use crate::check::ir::{Program, RelId};
use crate::dataflow::profile::{
    log_operators, merge_costs, Charge, Cost, OperatorLog, ProfileCell,
};
use crate::dataflow::render::{render, ChangeRun, Dataflow, Outputs, Split};
use crate::dataflow::row::Row;
use crate::dataflow::time::Epoch;
use crate::plan::Plan;

#[derive(Clone)]
pub enum Cmd {
    Update(Arc<Vec<(RelId, Row, isize)>>),
    /// Run to the end of the epoch before this one; `seal`: then close the sealed
    /// relations' input ([`Dataflow::seal`]).
    Commit {
        epoch: Epoch,
        seal: bool,
    },
    Rebuild,
    /// Report what each rule has cost so far.
    Profile,
}

pub enum Reply {
    /// A commit's changes (this worker's share, split here in parallel with the
    /// others'), or a rebuild done.
    Done(Split),
    Profile(Vec<Cost>),
    /// The worker panicked (a bug): the session cannot go on.
    Failed(String),
}

/// Which worker feeds a fact into the dataflow.
fn owner(rel: RelId, r: &Row, peers: usize) -> usize {
    let mut h: u64 = rel as u64 ^ 0x51_7c_c1_b7_27_22_0a_95;
    for v in r {
        h = (h ^ (*v as u32 as u64)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    ((h >> 32) % peers as u64) as usize
}

/// What a worker renders: the program, its plan and what to report.
pub struct Job<'a> {
    pub program: &'a Program,
    pub plan: &'a Plan,
    pub outputs: &'a Outputs,
    /// Record each rule's costs.
    pub profile: bool,
}

/// A dataflow built in a worker, with its index and profile.
struct Built {
    df: Dataflow,
    id: usize,
    profile: Option<ProfileCell>,
}

fn build(w: &mut Worker, job: &Job) -> Built {
    let id = w.next_dataflow_index();
    let profile: Option<ProfileCell> = job.profile.then(Default::default);
    let p2 = profile.clone();
    let first = w.peek_identifier();
    let mut df =
        w.dataflow::<Epoch, _, _>(|scope| render(scope, job.program, job.plan, job.outputs, p2));
    if let Some(p) = &profile {
        p.borrow_mut()
            .rendered(Charge::Rest, first..w.peek_identifier());
    }
    if w.index() == 0 {
        df.insert_unit();
    }
    Built { df, id, profile }
}

/// Runs a worker's command loop; a panic is reported to the session instead of
/// leaving it waiting for a reply that never comes.
pub fn run(w: &mut Worker, job: &Job, rx: Receiver<Cmd>, tx: Sender<Reply>) {
    let tx2 = tx.clone();
    let result = catch_unwind(AssertUnwindSafe(|| serve(w, job, rx, tx)));
    if let Err(panic) = result {
        let _ = tx2.send(Reply::Failed(panic_message(panic)));
    }
}

/// What a panic says, as text.
fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// Runs commands until the session closes the channel (it drops its senders to stop
/// the worker).
fn serve(w: &mut Worker, job: &Job, rx: Receiver<Cmd>, tx: Sender<Reply>) {
    let mut serving = Serving::new(w, job);
    while let Ok(cmd) = rx.recv() {
        if let Some(reply) = serving.handle(w, job, cmd) {
            if tx.send(reply).is_err() {
                break;
            }
        }
    }
}

/// A worker's state between commands: its dataflow, and with a profile the
/// operator log and the costs of the dataflows dropped so far (batch runs rebuild
/// per chunk).
struct Serving {
    /// None only while a rebuild drops the old dataflow.
    b: Option<Built>,
    earlier: Vec<Cost>,
    log: Option<OperatorLog>,
}

impl Serving {
    fn new(w: &mut Worker, job: &Job) -> Serving {
        let log: Option<OperatorLog> = job.profile.then(|| log_operators(w));
        Serving {
            b: Some(build(w, job)),
            earlier: Vec::new(),
            log,
        }
    }

    fn costs(&self) -> Vec<Cost> {
        match (self.b.as_ref().and_then(|b| b.profile.as_ref()), &self.log) {
            (Some(p), Some(t)) => p.borrow().costs(t),
            _ => Vec::new(),
        }
    }

    /// Runs one command. Out: its reply (none for `Update`).
    fn handle(&mut self, w: &mut Worker, job: &Job, cmd: Cmd) -> Option<Reply> {
        let (index, peers) = (w.index(), w.peers());
        let b = self
            .b
            .as_mut()
            .expect("a dataflow is built between commands");
        Some(match cmd {
            Cmd::Update(batch) => {
                for (rel, r, d) in batch.iter() {
                    if peers == 1 || owner(*rel, r, peers) == index {
                        b.df.update(*rel, r, *d);
                    }
                }
                return None;
            }
            Cmd::Commit { epoch, seal } => {
                let df = &mut b.df;
                df.advance_to(epoch);
                if seal {
                    df.seal();
                }
                let probe = df.probe.clone();
                w.step_or_park_while(None, || probe.less_than(&epoch));
                // Sorted and split here, in parallel: the session merges.
                Reply::Done(df.take_changes().split())
            }
            Cmd::Rebuild => {
                let costs = self.costs();
                merge_costs(&mut self.earlier, costs);
                let old = self.b.take().expect("built");
                let id = old.id;
                drop(old);
                w.drop_dataflow(id);
                if let Some(log) = &self.log {
                    log.borrow_mut().forget_before(w.peek_identifier());
                }
                self.b = Some(build(w, job));
                Reply::Done(ChangeRun::empty().split())
            }
            Cmd::Profile => {
                let mut all = self.earlier.clone();
                merge_costs(&mut all, self.costs());
                Reply::Profile(all)
            }
        })
    }
}

/// A session's one worker on the calling thread: each command runs as it is sent,
/// its reply kept until asked for. No thread hop per commit (to a parked worker
/// thread and back: on a 2-core machine the two wake-ups took an empty commit from
/// ~0.13 to ~0.21 ms), but a commit started runs to its end before [`Inline::send`]
/// returns.
pub struct Inline {
    /// None once dropped after a panic (forgotten: it may not drop cleanly).
    worker: Option<Worker>,
    /// None after a panic, as a worker thread's would end.
    serving: Option<Serving>,
    program: Arc<Program>,
    plan: Arc<Plan>,
    outputs: Outputs,
    profile: bool,
    replies: VecDeque<Reply>,
}

impl Inline {
    /// The worker, with `plan` rendered for `outputs`.
    pub fn new(program: Arc<Program>, plan: Arc<Plan>, outputs: Outputs, profile: bool) -> Inline {
        let alloc = Allocator::Thread(Thread::default());
        let mut worker = Worker::new(WorkerConfig::default(), alloc, Some(Instant::now()));
        let job = Job {
            program: &program,
            plan: &plan,
            outputs: &outputs,
            profile,
        };
        let serving = Some(Serving::new(&mut worker, &job));
        Inline {
            worker: Some(worker),
            serving,
            program,
            plan,
            outputs,
            profile,
            replies: VecDeque::new(),
        }
    }

    /// Runs `cmd`; its reply waits for [`Inline::reply`]. A panic stops the worker,
    /// and its message is the reply (as a worker thread reports one).
    pub fn send(&mut self, cmd: Cmd) -> Result<(), String> {
        let (Some(serving), Some(worker)) = (self.serving.as_mut(), self.worker.as_mut()) else {
            return Err("a worker stopped".into());
        };
        let job = Job {
            program: &self.program,
            plan: &self.plan,
            outputs: &self.outputs,
            profile: self.profile,
        };
        let ran = catch_unwind(AssertUnwindSafe(|| serving.handle(worker, &job, cmd)));
        match ran {
            Ok(reply) => self.replies.extend(reply),
            Err(panic) => {
                std::mem::forget(self.serving.take());
                std::mem::forget(self.worker.take());
                self.replies.push_back(Reply::Failed(panic_message(panic)));
            }
        }
        Ok(())
    }

    /// The oldest reply not yet taken.
    pub fn reply(&mut self) -> Option<Reply> {
        self.replies.pop_front()
    }
}

impl Drop for Inline {
    /// The dataflow goes before the worker that runs it.
    fn drop(&mut self) {
        drop(self.serving.take());
    }
}
