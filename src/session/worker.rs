//! One timely worker's side of a session: apply input batches, run commits to the
//! probe (parking when there is nothing to do), rebuild on request.

use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;

use timely::worker::Worker;

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
    Stop,
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
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| serve(w, job, rx, tx)));
    if let Err(panic) = result {
        let msg = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        let _ = tx2.send(Reply::Failed(msg));
    }
}

fn serve(w: &mut Worker, job: &Job, rx: Receiver<Cmd>, tx: Sender<Reply>) {
    let (index, peers) = (w.index(), w.peers());
    let log: Option<OperatorLog> = job.profile.then(|| log_operators(w));
    // Costs of the dataflows dropped so far (batch runs rebuild per chunk).
    let mut earlier: Vec<Cost> = Vec::new();
    let costs_of = |b: &Built| match (&b.profile, &log) {
        (Some(p), Some(t)) => p.borrow().costs(t),
        _ => Vec::new(),
    };
    let mut b = build(w, job);
    while let Ok(cmd) = rx.recv() {
        let reply = match cmd {
            Cmd::Update(batch) => {
                for (rel, r, d) in batch.iter() {
                    if peers == 1 || owner(*rel, r, peers) == index {
                        b.df.update(*rel, r, *d);
                    }
                }
                continue;
            }
            Cmd::Commit { epoch, seal } => {
                b.df.advance_to(epoch);
                if seal {
                    b.df.seal();
                }
                let probe = b.df.probe.clone();
                w.step_or_park_while(None, || probe.less_than(&epoch));
                // Sorted and split here, in parallel: the session merges.
                Reply::Done(b.df.take_changes().split())
            }
            Cmd::Rebuild => {
                merge_costs(&mut earlier, costs_of(&b));
                let id = b.id;
                drop(b);
                w.drop_dataflow(id);
                if let Some(log) = &log {
                    log.borrow_mut().forget_before(w.peek_identifier());
                }
                b = build(w, job);
                Reply::Done(ChangeRun::empty().split())
            }
            Cmd::Profile => {
                let mut all = earlier.clone();
                merge_costs(&mut all, costs_of(&b));
                Reply::Profile(all)
            }
            Cmd::Stop => break,
        };
        if tx.send(reply).is_err() {
            break;
        }
    }
}
