//! Costs for `--profile`: what each rule, each relation's own operators, each
//! fixpoint block's own machinery and the rest of a dataflow cost.
//!
//! In: the operator identifiers timely allocates while a piece renders (a contiguous
//! range per piece: every operator of a worker draws from one counter, which also
//! numbers channels; ranges nest, and an operator is charged to the innermost range
//! that holds it), timely's logs
//! (each operator's address, and the start and stop of each scheduling), and an
//! `inspect` on each rule's head rows. Out: [`Cost`]s per worker, summed by the
//! session. An arrangement shared by several rules is charged to the first rule that
//! builds it. Scopes are not charged (their time is their operators' time), so the
//! charges add up to the time of every operator of the dataflows.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::rc::Rc;
use std::time::Duration;

use timely::logging::{StartStop, TimelyEvent, TimelyEventBuilder};
use timely::worker::Worker;

use crate::check::ir::{BlockId, RelId};

/// What an operator's time is charged to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Charge {
    /// A rule (its index in `Program::rules`): its body's operators, and the
    /// arrangements it was the first to build.
    Rule(usize),
    /// A relation's own operators: the union and deduplication of what its rules
    /// derive (a state relation's, every round), what of it leaves for observers,
    /// and its arrangements outside a block that the block's rules read.
    Relation(RelId),
    /// A fixpoint block's own machinery: its scope, its loop variables, tier
    /// gating, explanations, and splitting what leaves it by relation.
    Block(BlockId),
    /// The rest of the dataflow: inputs, outputs, the probe.
    Rest,
}

/// What one piece cost on one worker (or, summed, on all of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cost {
    pub charge: Charge,
    /// Rows a rule's body added (derivations, duplicates included; 0 but for rules).
    /// A row the body withdraws later still counts: a tier's single is withdrawn the
    /// round after, when its `!solved_cell` guard fails, and a net count would show
    /// no work at all.
    pub derived: i64,
    /// Rounds in which a rule derived something (0 outside blocks).
    pub rounds: BTreeSet<u32>,
    /// Time its operators were scheduled.
    pub time: Duration,
    /// How many operators it rendered.
    pub operators: usize,
}

impl Cost {
    fn new(charge: Charge) -> Cost {
        Cost {
            charge,
            derived: 0,
            rounds: BTreeSet::new(),
            time: Duration::ZERO,
            operators: 0,
        }
    }

    /// Adds another worker's figures for the same piece.
    pub fn absorb(&mut self, other: &Cost) {
        self.derived += other.derived;
        self.rounds.extend(other.rounds.iter().copied());
        self.time += other.time;
        self.operators = self.operators.max(other.operators);
    }
}

/// Adds `costs` into `into`, piece by piece: a piece already there absorbs the new
/// figures (another worker's, or an earlier dataflow's), a new one is appended.
pub fn merge_costs(into: &mut Vec<Cost>, costs: Vec<Cost>) {
    for c in costs {
        match into.iter_mut().find(|x| x.charge == c.charge) {
            Some(x) => x.absorb(&c),
            None => into.push(c),
        }
    }
}

/// One worker's profile while a dataflow runs.
#[derive(Default)]
pub struct Profile {
    /// (piece, operator identifiers rendered while it rendered), in rendering order.
    ops: Vec<(Charge, Range<usize>)>,
    /// Per rule: derivations and rounds, as the head rows flow.
    derived: HashMap<usize, (i64, BTreeSet<u32>)>,
}

/// Shared between the rendering and the rows' `inspect`s.
pub type ProfileCell = Rc<RefCell<Profile>>;

impl Profile {
    /// Charges the operators of `ops` to `charge`, but those a range inside it
    /// charges to something else.
    pub(crate) fn rendered(&mut self, charge: Charge, ops: Range<usize>) {
        self.ops.push((charge, ops));
    }
    pub(crate) fn derived(&mut self, rule: usize, round: u32, diff: isize) {
        if diff > 0 {
            let e = self.derived.entry(rule).or_default();
            e.0 += diff as i64;
            e.1.insert(round);
        }
    }

    /// The costs so far, from timely's log of the operators.
    pub fn costs(&self, log: &OperatorLog) -> Vec<Cost> {
        let log = log.borrow();
        let mut out: HashMap<Charge, Cost> = HashMap::new();
        // Innermost first: a range that holds another is at least as long.
        let mut ranges: Vec<&(Charge, Range<usize>)> = self.ops.iter().collect();
        ranges.sort_by_key(|(_, r)| r.len());
        let mut charged = log.scopes();
        for (charge, ops) in ranges {
            let c = out.entry(*charge).or_insert_with(|| Cost::new(*charge));
            for id in ops.clone() {
                // Timely draws channels' identifiers from the operators' counter:
                // only an identifier the log saw built is an operator.
                if !log.addrs.contains_key(&id) || !charged.insert(id) {
                    continue;
                }
                c.operators += 1;
                c.time += log.times.get(&id).copied().unwrap_or_default();
            }
        }
        for (rule, (n, rounds)) in &self.derived {
            let c = out
                .entry(Charge::Rule(*rule))
                .or_insert_with(|| Cost::new(Charge::Rule(*rule)));
            c.derived += n;
            c.rounds.extend(rounds.iter().copied());
        }
        let mut v: Vec<Cost> = out
            .into_values()
            .filter(|c| c.operators > 0 || c.derived > 0)
            .collect();
        v.sort_by_key(|c| c.charge);
        v
    }
}

/// What timely's log says of a worker's operators.
#[derive(Default)]
pub struct Operators {
    /// Scheduled time per operator identifier.
    times: HashMap<usize, Duration>,
    /// Each operator's address: its scopes' indices, then its own.
    addrs: HashMap<usize, Vec<usize>>,
    started: HashMap<usize, Duration>,
}

impl Operators {
    /// The operators that are scopes: an address that others extend.
    fn scopes(&self) -> HashSet<usize> {
        let mut inner: HashSet<&[usize]> = HashSet::new();
        for a in self.addrs.values() {
            for k in 1..a.len() {
                inner.insert(&a[..k]);
            }
        }
        let scopes = self
            .addrs
            .iter()
            .filter(|(_, a)| inner.contains(a.as_slice()));
        scopes.map(|(id, _)| *id).collect()
    }

    /// Forgets the operators of dataflows built before identifier `first`.
    pub fn forget_before(&mut self, first: usize) {
        self.times.retain(|id, _| *id >= first);
        self.addrs.retain(|id, _| *id >= first);
    }
}

/// A worker's [`Operators`], filled by its logger.
pub type OperatorLog = Rc<RefCell<Operators>>;

/// Registers a logger on `worker` that adds up each operator's scheduled time and
/// notes which operators are scopes. Call before building the dataflow.
pub fn log_operators(worker: &mut Worker) -> OperatorLog {
    let log: OperatorLog = Default::default();
    let l2 = log.clone();
    if let Some(mut reg) = worker.log_register() {
        reg.insert::<TimelyEventBuilder, _>("timely", move |_now, data| {
            let Some(events) = data else { return };
            let mut log = l2.borrow_mut();
            for (at, ev) in events.iter() {
                match ev {
                    TimelyEvent::Operates(op) => {
                        log.addrs.insert(op.id, op.addr.clone());
                    }
                    TimelyEvent::Schedule(s) => match s.start_stop {
                        StartStop::Start => {
                            log.started.insert(s.id, *at);
                        }
                        StartStop::Stop => {
                            if let Some(from) = log.started.remove(&s.id) {
                                *log.times.entry(s.id).or_default() += at.saturating_sub(from);
                            }
                        }
                    },
                    _ => {}
                }
            }
        });
    }
    log
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nested ranges: each operator goes to the innermost range that holds it, once;
    /// scopes go nowhere (their time is their operators'), and derivations to rules.
    #[test]
    fn operators_are_charged_to_the_innermost_range_and_scopes_to_none() {
        let mut ops = Operators::default();
        // Dataflow 0 is operator 0 (a scope); the block's scope is 3, holding 4-7.
        let addrs: [(usize, &[usize]); 8] = [
            (0, &[0]),
            (1, &[0, 1]),
            (2, &[0, 2]),
            (3, &[0, 3]),
            (4, &[0, 3, 1]),
            (5, &[0, 3, 2]),
            (6, &[0, 3, 3]),
            (7, &[0, 3, 4]),
        ];
        for (id, a) in addrs {
            ops.addrs.insert(id, a.to_vec());
            ops.times.insert(id, Duration::from_millis(1 + id as u64));
        }
        let log: OperatorLog = Rc::new(RefCell::new(ops));
        let mut p = Profile::default();
        p.rendered(Charge::Rule(0), 5..7);
        p.rendered(Charge::Relation(2), 6..7);
        p.rendered(Charge::Block(0), 2..8);
        // Identifier 8 is a channel's: the log saw no operator built with it.
        p.rendered(Charge::Rest, 0..9);
        p.derived(0, 3, 2);
        p.derived(0, 1, -1);
        let costs = p.costs(&log);
        let get = |c: Charge| costs.iter().find(|x| x.charge == c).unwrap().clone();
        let ms = |c: Charge| get(c).time.as_millis();
        assert_eq!(
            (ms(Charge::Rule(0)), get(Charge::Rule(0)).operators),
            (6, 1)
        );
        assert_eq!(ms(Charge::Relation(2)), 7);
        // 2, 4 and 7: not 3, the block's scope.
        assert_eq!(
            (ms(Charge::Block(0)), get(Charge::Block(0)).operators),
            (3 + 5 + 8, 3)
        );
        assert_eq!((ms(Charge::Rest), get(Charge::Rest).operators), (2, 1));
        let rule = get(Charge::Rule(0));
        assert_eq!(
            (
                rule.derived,
                rule.rounds.iter().copied().collect::<Vec<_>>()
            ),
            (2, vec![3])
        );
        // Every operator but the scopes is charged once.
        let all: u128 = costs.iter().map(|c| c.time.as_millis()).sum();
        assert_eq!(all, (1..=8).sum::<u128>() - 1 - 4);
    }
}
