//! One timely worker's side of a session: apply input batches, run commits to the
//! probe (parking when there is nothing to do), rebuild on request.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;

use timely::worker::Worker;

use crate::check::ir::{Program, RelId};
use crate::dataflow::render::{render, Dataflow, Outputs, Update};
use crate::dataflow::row::{row, Row};
use crate::plan::Plan;

#[derive(Clone)]
pub enum Cmd {
    Update(Arc<Vec<(RelId, Row, isize)>>),
    Commit(u64),
    Rebuild,
    Stop,
}

pub enum Reply {
    Done(Vec<Update>),
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
}

fn build(w: &mut Worker, job: &Job) -> (Dataflow, usize, Rc<RefCell<Vec<Update>>>) {
    let sink = Rc::new(RefCell::new(Vec::new()));
    let id = w.next_dataflow_index();
    let s2 = sink.clone();
    let mut df =
        w.dataflow::<u64, _, _>(|scope| render(scope, job.program, job.plan, job.outputs, s2));
    if w.index() == 0 {
        df.unit.insert(row(&[]));
    }
    (df, id, sink)
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
    let (mut df, mut id, mut sink) = build(w, job);
    while let Ok(cmd) = rx.recv() {
        match cmd {
            Cmd::Update(batch) => {
                for (rel, r, d) in batch.iter() {
                    if peers == 1 || owner(*rel, r, peers) == index {
                        df.inputs[*rel].update(*r, *d);
                    }
                }
            }
            Cmd::Commit(epoch) => {
                for i in df.inputs.iter_mut() {
                    i.advance_to(epoch);
                    i.flush();
                }
                df.unit.advance_to(epoch);
                df.unit.flush();
                let probe = df.probe.clone();
                w.step_or_park_while(None, || probe.less_than(&epoch));
                let updates = std::mem::take(&mut *sink.borrow_mut());
                if tx.send(Reply::Done(updates)).is_err() {
                    break;
                }
            }
            Cmd::Rebuild => {
                drop(df);
                w.drop_dataflow(id);
                (df, id, sink) = build(w, job);
                if tx.send(Reply::Done(Vec::new())).is_err() {
                    break;
                }
            }
            Cmd::Stop => break,
        }
    }
}
