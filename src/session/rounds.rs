//! Rounds and explain events of a stepped session ([`super::stepped::Stepped`])
//! numbered as one fixpoint block numbers them.
//!
//! In one block, a fact's round is the round of the block's loop that first derived
//! it, and a tier fires in the first round in which no lower tier finds anything:
//! the round after the last in which anything was new. Stepped, a tier runs when the
//! base has reached its fixpoint, whose last new facts came in round N: its finds and
//! their events are numbered N + 1 (plus the tier's own round, for a tier whose
//! chains loop), and they enter the base's block at that round (its host inputs
//! enter at the round their last column gives, see
//! [`crate::check::ir::Relation::enters_at_round`]), so that what the base derives
//! from them comes in the rounds after, as in one block. The base's own rounds are
//! then the block's, and its events only need the original program's rules.
//!
//! In: the base's contents and commits, and the tiers' events (under the original
//! program's rules, in the base's symbols). Out: the events, each commit's changes
//! of them, and the round a tier's finds enter at.
//!
//! Every commit is numbered afresh: the host withdraws what the tiers found and steps
//! again from the base's own fixpoint, as a fresh session would, so an edited session
//! numbers as a fresh one does.

use std::collections::HashMap;

use super::{Event, Session};
use crate::check::ir::{Program, RelId, RelKind, Value};
use crate::diag::Span;

type Key = (RelId, Vec<Value>);

/// What the host numbers (see the module's documentation).
pub(super) struct Numbers {
    /// The original program's rule at each span.
    by_span: HashMap<Span, usize>,
    /// Per rule of the base: the original program's rule it copies.
    base_rules: Vec<Option<usize>>,
    /// The base's accumulating relations it observes (their rounds are the base's).
    state: Vec<RelId>,
    /// The tiers' events by head fact (the base's relation), at their rounds.
    found: HashMap<Key, Event>,
    /// Every event before the commit under way (for its changes).
    before: HashMap<Key, Event>,
    /// The last round in which the base took anything new, in this commit.
    last: u32,
}

impl Numbers {
    /// Numbers for the base program `base` (a split of `original`) observing
    /// `observed`.
    pub(super) fn new(original: &Program, base: &Program, observed: &[RelId]) -> Numbers {
        let by_span: HashMap<Span, usize> = (original.rules.iter().enumerate())
            .map(|(i, r)| (r.span, i))
            .collect();
        let state = (observed.iter().copied())
            .filter(|&r| {
                let rel = &base.relations[r];
                rel.kind == RelKind::Accumulating
            })
            .collect();
        let mut out = Numbers {
            by_span,
            base_rules: Vec::new(),
            state,
            found: HashMap::new(),
            before: HashMap::new(),
            last: 0,
        };
        out.base_rules = out.rules_of(base);
        out
    }

    /// Per rule of `program` (the base or a tier's): the original rule it copies.
    pub(super) fn rules_of(&self, program: &Program) -> Vec<Option<usize>> {
        let span = |r: &crate::check::ir::Rule| self.by_span.get(&r.span).copied();
        program.rules.iter().map(span).collect()
    }

    /// Forgets the tiers' events (the session was reset).
    pub(super) fn clear(&mut self) {
        self.found.clear();
        self.before.clear();
        self.last = 0;
    }

    /// A commit starts, the tiers' finds withdrawn: every event so far is kept for
    /// the commit's changes. Call before the base's first commit.
    pub(super) fn begin(&mut self, base: &Session) {
        self.before = self.all(base);
        self.found.clear();
        self.last = 0;
    }

    /// After each commit of the base: the last round in which it took anything new.
    pub(super) fn after_base(&mut self, base: &Session) {
        for &r in &self.state {
            for (_, round) in base.contents(r) {
                self.last = self.last.max(round);
            }
        }
    }

    /// The round the next tier's finds enter the base's block at (the round after
    /// the base's last: they come in as if derived then).
    pub(super) fn next_round(&self) -> u32 {
        self.last + 1
    }

    /// A tier's step found facts that the base lacks, derived by `events` (each with
    /// the base's relation of its head, at the tier's own rounds): numbered from the
    /// round after the base's last.
    pub(super) fn tier_found(&mut self, events: Vec<(RelId, Event)>) {
        let step = self.next_round();
        for (rel, mut e) in events {
            e.round += step;
            let key = (rel, e.head.clone());
            match self.found.get(&key) {
                Some(held) if held.round <= e.round => {}
                _ => {
                    self.found.insert(key, e);
                }
            }
        }
    }

    /// The commit is over. Out: the events it added (+1) and withdrew (-1); an event
    /// whose round changed is both.
    pub(super) fn finish(&mut self, base: &Session) -> Vec<(Event, isize)> {
        let before = std::mem::take(&mut self.before);
        let now = self.all(base);
        let mut evs = Vec::new();
        for (key, e) in &before {
            if now.get(key) != Some(e) {
                evs.push((e.clone(), -1));
            }
        }
        for (key, e) in &now {
            if before.get(key) != Some(e) {
                evs.push((e.clone(), 1));
            }
        }
        evs.sort();
        evs
    }

    /// Every current event by head fact: the base's (under the original rules) and
    /// the tiers' (for facts the base does not derive itself).
    fn all(&self, base: &Session) -> HashMap<Key, Event> {
        let mut out = self.found.clone();
        for e in base.events() {
            let head = base.program().rules[e.rule].head;
            let Some(rule) = self.base_rules.get(e.rule).copied().flatten() else {
                continue;
            };
            out.insert((head, e.head.clone()), Event { rule, ..e });
        }
        out
    }

    /// Every event, sorted by (round, rule, head), as [`Session::events`] sorts.
    pub(super) fn events(&self, base: &Session) -> Vec<Event> {
        let mut v: Vec<Event> = self.all(base).into_values().collect();
        v.sort_by(|a, b| {
            (a.round, a.rule, &a.head, &a.bindings).cmp(&(b.round, b.rule, &b.head, &b.bindings))
        });
        v
    }
}
