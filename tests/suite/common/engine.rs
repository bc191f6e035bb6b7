//! Running the dataflow engine (a [`Session`]) and the reference evaluator
//! ([`naive::evaluate`]) on the same program and inputs, and comparing what they
//! produce: every relation's contents with each fact's round, and the explain events.
//! On a mismatch, [`diff`] renders what differs in program terms.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::sync::Arc;

use sudolog::check::ir::{Program, RelId, RelKind, Value};
use sudolog::session::{Commit, Config, Observe, Session};

use super::naive::{self, Naive};

pub type Tuple = Vec<Value>;
/// `(rule, round, head, template bindings)`: an explain event in the naive
/// evaluator's shape.
pub type EventKey = (usize, u32, Tuple, Vec<Value>);

/// Everything a session shows about a program at one point.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Per `RelId`: fact -> round.
    pub contents: Vec<BTreeMap<Tuple, u32>>,
    pub events: BTreeSet<EventKey>,
}

impl Outcome {
    /// The reference result; events only if `explain` (a session without explain
    /// produces none).
    pub fn from_naive(n: &Naive, explain: bool) -> Outcome {
        let contents = n
            .relations
            .iter()
            .zip(&n.rounds)
            .map(|(facts, rounds)| {
                facts
                    .iter()
                    .map(|f| (f.clone(), rounds.get(f).copied().unwrap_or(0)))
                    .collect()
            })
            .collect();
        Outcome {
            contents,
            events: if explain {
                n.events.clone()
            } else {
                BTreeSet::new()
            },
        }
    }

    /// What a session (observing every relation) currently holds.
    pub fn from_session(s: &Session) -> Outcome {
        let p = s.program().clone();
        let contents = (0..p.relations.len())
            .map(|r| s.contents(r).into_iter().collect())
            .collect();
        let events = s
            .events()
            .into_iter()
            .map(|e| (e.rule, e.round, e.head, e.bindings))
            .collect();
        Outcome { contents, events }
    }
}

pub fn config(workers: usize, explain: bool) -> Config {
    Config {
        workers,
        explain,
        observe: Observe::All,
        ..Config::default()
    }
}

pub fn session(p: &Arc<Program>, workers: usize, explain: bool) -> Session {
    Session::new(p.clone(), config(workers, explain)).expect("session starts")
}

/// A fresh session with `inputs` inserted and committed once.
pub fn run_fresh(
    p: &Arc<Program>,
    inputs: &[(RelId, Tuple)],
    workers: usize,
    explain: bool,
) -> Outcome {
    run_fresh_with(p, inputs, workers, explain, false)
}

/// [`run_fresh`] in either rendering (`batch`: blocks' rounds totally ordered).
pub fn run_fresh_with(
    p: &Arc<Program>,
    inputs: &[(RelId, Tuple)],
    workers: usize,
    explain: bool,
    batch: bool,
) -> Outcome {
    let config = Config {
        batch,
        ..config(workers, explain)
    };
    Outcome::from_session(&committed(p, inputs, config))
}

/// A fresh session of `config` with `inputs` inserted and committed once.
pub fn committed(p: &Arc<Program>, inputs: &[(RelId, Tuple)], config: Config) -> Session {
    let mut s = Session::new(p.clone(), config).expect("session starts");
    for (rel, t) in inputs {
        s.insert(*rel, t).expect("insert");
    }
    s.commit().expect("commit");
    s
}

/// The reference result for `inputs`.
pub fn run_naive(p: &Program, inputs: &[(RelId, Tuple)], explain: bool) -> Outcome {
    Outcome::from_naive(&naive::evaluate(p, inputs), explain)
}

/// `rel(1, 2)`, with symbols as text.
pub fn fact(p: &Program, rel: RelId, t: &[Value]) -> String {
    let r = &p.relations[rel];
    let args: Vec<String> = r
        .columns
        .iter()
        .zip(t)
        .map(|((_, ty), v)| p.format_value(*ty, *v))
        .collect();
    format!("{}({})", r.name, args.join(", "))
}

fn event(p: &Program, e: &EventKey) -> String {
    let (rule, round, head, bindings) = e;
    let r = &p.rules[*rule];
    format!(
        "rule {rule} ({}) round {round}: {} bindings {bindings:?}",
        r.label,
        fact(p, r.head, head)
    )
}

/// Inputs as fact lines (`e0(1, 2).`), for failure messages.
pub fn show_inputs(p: &Program, inputs: &[(RelId, Tuple)]) -> String {
    let mut out = String::new();
    for (rel, t) in inputs {
        let _ = writeln!(out, "{}.", fact(p, *rel, t));
    }
    out
}

/// `None` if equal, else a readable list of the differences: facts the reference has
/// and the engine lacks (`missing`), the reverse (`extra`), facts in both with
/// different rounds, and the same for events.
pub fn diff(p: &Program, expected: &Outcome, actual: &Outcome) -> Option<String> {
    if expected == actual {
        return None;
    }
    let mut out = String::new();
    let empty = BTreeMap::new();
    for (rel, r) in p.relations.iter().enumerate() {
        let e = expected.contents.get(rel).unwrap_or(&empty);
        let a = actual.contents.get(rel).unwrap_or(&empty);
        if e == a {
            continue;
        }
        let _ = writeln!(out, "relation {} ({:?}):", r.name, r.kind);
        for (t, re) in e {
            match a.get(t) {
                None => {
                    let _ = writeln!(out, "  missing {} @{re}", fact(p, rel, t));
                }
                Some(ra) if ra != re => {
                    let _ = writeln!(
                        out,
                        "  round   {}: expected @{re}, engine @{ra}",
                        fact(p, rel, t)
                    );
                }
                _ => {}
            }
        }
        for (t, ra) in a {
            if !e.contains_key(t) {
                let _ = writeln!(out, "  extra   {} @{ra}", fact(p, rel, t));
            }
        }
    }
    if expected.events != actual.events {
        let _ = writeln!(out, "events:");
        for e in expected.events.difference(&actual.events) {
            let _ = writeln!(out, "  missing {}", event(p, e));
        }
        for e in actual.events.difference(&expected.events) {
            let _ = writeln!(out, "  extra   {}", event(p, e));
        }
    }
    Some(out)
}

/// Applies a commit's changes and event updates to the previous outcome, checking
/// that each is well formed: a removal removes a fact present with that round (an
/// event present), an addition adds one absent after the removals; every diff is ±1.
pub fn apply_commit(prev: &Outcome, commit: &Commit) -> Result<Outcome, String> {
    let mut next = prev.clone();
    for pass in [-1isize, 1] {
        for c in commit.changes.iter().filter(|c| c.diff.signum() == pass) {
            if c.diff.abs() != 1 {
                return Err(format!("change with diff {}: {c:?}", c.diff));
            }
            let rel = &mut next.contents[c.rel];
            if pass < 0 {
                if rel.get(&c.row[..]) != Some(&c.round) {
                    return Err(format!(
                        "removal of a fact not present with that round: {c:?} (present: {:?})",
                        rel.get(&c.row[..])
                    ));
                }
                rel.remove(&c.row[..]);
            } else if let Some(old) = rel.insert(c.row.to_vec(), c.round) {
                return Err(format!(
                    "addition of a fact already present (round {old}): {c:?}"
                ));
            }
        }
        for (e, d) in commit.events.iter().filter(|(_, d)| d.signum() == pass) {
            if d.abs() != 1 {
                return Err(format!("event with diff {d}: {e:?}"));
            }
            let key = (e.rule, e.round, e.head.clone(), e.bindings.clone());
            if pass < 0 {
                if !next.events.remove(&key) {
                    return Err(format!("withdrawal of an absent event: {e:?}"));
                }
            } else if !next.events.insert(key) {
                return Err(format!("addition of an event already present: {e:?}"));
            }
        }
    }
    Ok(next)
}

/// The non-view relations of a program (those `Session::insert` accepts).
pub fn insertable(p: &Program) -> Vec<(String, usize)> {
    p.relations
        .iter()
        .filter(|r| r.kind != RelKind::View)
        .map(|r| (r.name.clone(), r.arity()))
        .collect()
}

// ---------------------------------------------------------------------------------------
// The known bug, until it is fixed in src/dataflow/pipeline.rs.
