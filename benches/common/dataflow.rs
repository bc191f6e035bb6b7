//! Driving the hand-written dataflows of the Sudoku baselines.

use timely::dataflow::ProbeHandle;
use timely::worker::Worker;

/// Steps `worker` until `probe` has passed epoch 0 (the inputs advanced to 1), then
/// drops the newest dataflow: every chunk or batch runs in a fresh one, as sudolog's
/// batch rendering does.
pub fn finish(worker: &mut Worker, probe: &ProbeHandle<u32>) {
    while probe.less_than(&1) {
        worker.step_or_park(None);
    }
    if let Some(&id) = worker.installed_dataflows().last() {
        worker.drop_dataflow(id);
    }
}
