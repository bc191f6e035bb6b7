//! Per-rule costs for `--profile`: which operators each rule rendered, how many rows
//! its body derived, in which rounds, and how long its operators ran.
//!
//! In: the operator identifiers timely allocates while a rule renders (a contiguous
//! range per rule: every operator of a worker draws from one counter), timely's
//! scheduling log (start and stop of each operator), and an `inspect` on each rule's
//! head rows. Out: [`RuleCost`]s per worker, summed by the session. An arrangement
//! shared by several rules is charged to the first rule that builds it.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::rc::Rc;
use std::time::Duration;

use timely::logging::{StartStop, TimelyEvent, TimelyEventBuilder};
use timely::worker::Worker;

/// What one rule cost on one worker (or, summed, on all of them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleCost {
    /// Index of the rule in `Program::rules`.
    pub rule: usize,
    /// Rows its body added (derivations, duplicates included). A row the body
    /// withdraws later still counts: a tier's single is withdrawn the round after, when
    /// its `!solved_cell` guard fails, and a net count would show no work at all.
    pub derived: i64,
    /// Rounds in which it derived something (0 outside blocks).
    pub rounds: BTreeSet<u32>,
    /// Time its operators were scheduled.
    pub time: Duration,
    /// How many operators it rendered.
    pub operators: usize,
}

impl RuleCost {
    /// Adds another worker's figures for the same rule.
    pub fn absorb(&mut self, other: &RuleCost) {
        self.derived += other.derived;
        self.rounds.extend(other.rounds.iter().copied());
        self.time += other.time;
        self.operators = self.operators.max(other.operators);
    }
}

/// Adds `costs` into `into`, rule by rule: a rule already there absorbs the new
/// figures (another worker's, or an earlier dataflow's), a new rule is appended.
pub fn merge_costs(into: &mut Vec<RuleCost>, costs: Vec<RuleCost>) {
    for c in costs {
        match into.iter_mut().find(|x| x.rule == c.rule) {
            Some(x) => x.absorb(&c),
            None => into.push(c),
        }
    }
}

/// One worker's profile while a dataflow runs.
#[derive(Default)]
pub struct Profile {
    /// (rule, operator identifiers it rendered), in rendering order.
    ops: Vec<(usize, Range<usize>)>,
    /// Per rule: derivations and rounds, as the head rows flow.
    derived: HashMap<usize, (i64, BTreeSet<u32>)>,
}

/// Shared between the rendering and the rows' `inspect`s.
pub type ProfileCell = Rc<RefCell<Profile>>;

impl Profile {
    pub(crate) fn rendered(&mut self, rule: usize, ops: Range<usize>) {
        self.ops.push((rule, ops));
    }
    pub(crate) fn derived(&mut self, rule: usize, round: u32, diff: isize) {
        if diff > 0 {
            let e = self.derived.entry(rule).or_default();
            e.0 += diff as i64;
            e.1.insert(round);
        }
    }

    /// The costs so far, given each operator's scheduled time.
    pub fn costs(&self, times: &OperatorTimes) -> Vec<RuleCost> {
        let times = times.borrow();
        let mut out: HashMap<usize, RuleCost> = HashMap::new();
        for (rule, ops) in &self.ops {
            let c = out.entry(*rule).or_insert_with(|| RuleCost {
                rule: *rule,
                ..Default::default()
            });
            c.operators += ops.len();
            c.time += ops
                .clone()
                .filter_map(|id| times.get(&id))
                .sum::<Duration>();
        }
        for (rule, (n, rounds)) in &self.derived {
            let c = out.entry(*rule).or_insert_with(|| RuleCost {
                rule: *rule,
                ..Default::default()
            });
            c.derived += n;
            c.rounds.extend(rounds.iter().copied());
        }
        let mut v: Vec<RuleCost> = out.into_values().collect();
        v.sort_by_key(|c| c.rule);
        v
    }
}

/// Scheduled time per operator identifier, from timely's log.
pub type OperatorTimes = Rc<RefCell<HashMap<usize, Duration>>>;

/// Registers a logger on `worker` that adds up each operator's scheduled time. Call
/// before building the dataflow.
pub fn log_operator_times(worker: &mut Worker) -> OperatorTimes {
    let times: OperatorTimes = Default::default();
    let started: Rc<RefCell<HashMap<usize, Duration>>> = Default::default();
    let t2 = times.clone();
    if let Some(mut reg) = worker.log_register() {
        reg.insert::<TimelyEventBuilder, _>("timely", move |_now, data| {
            let Some(events) = data else { return };
            for (at, ev) in events.iter() {
                if let TimelyEvent::Schedule(s) = ev {
                    match s.start_stop {
                        StartStop::Start => {
                            started.borrow_mut().insert(s.id, *at);
                        }
                        StartStop::Stop => {
                            if let Some(from) = started.borrow_mut().remove(&s.id) {
                                *t2.borrow_mut().entry(s.id).or_default() +=
                                    at.saturating_sub(from);
                            }
                        }
                    }
                }
            }
        });
    }
    times
}
