//! Sessions through sequences of inserts and retracts, one commit at a time. After each
//! commit the session's contents, rounds and events must equal
//!
//! * a from-scratch reference evaluation (`naive::evaluate`) of the current inputs,
//! * the previous contents and events with the commit's reported changes applied
//!   (`Commit::changes` and `Commit::events` are exact), and
//! * for some sequences, a fresh session given the current inputs in one commit.
//!
//! Pools of facts include the program's own facts (retracting one does nothing: program
//! facts are permanent) and, for some seeds, facts of relations that are not `.input`
//! (any relation that is not a view accepts inserts).

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::Arc;

use crate::common::engine::{self as eng, Outcome};
use crate::common::gen::{self, Features, Rng};
use crate::common::resolve;
use sudolog::check::check_str;
use sudolog::check::ir::{Program, RelId, RelKind, Value};
use sudolog::session::{Change, Config, Session};

#[derive(Clone, Copy)]
struct Mode {
    workers: usize,
    /// Commits per sequence.
    commits: usize,
    /// Compare with a fresh session after each commit (every `fresh_every`-th seed).
    fresh_every: u64,
    /// A board's kind of session: facts go into `.input` relations only, and some of
    /// them are sealed (`Config::sealed`): loaded by the first commit, never changed.
    sealed: bool,
}

const ONE: Mode = Mode {
    workers: 1,
    commits: 8,
    fresh_every: 4,
    sealed: false,
};

/// In a sealed mode, the input relations the sequence seals: about half of them,
/// drawn from the seed.
fn sealed_relations(seed: u64, p: &Program) -> Vec<RelId> {
    let mut rng = Rng::new(seed ^ 0x5EA1);
    (0..p.relations.len())
        .filter(|&r| p.relations[r].input && rng.chance(50))
        .collect()
}

/// Whether the relation named `name` is one of `sealed`.
fn is_sealed(p: &Program, sealed: &[RelId], name: &str) -> bool {
    sealed.iter().any(|&r| p.relations[r].name == name)
}

/// The commits of a sealed sequence: the random edits of the facts of unsealed
/// inputs, with every pool fact of a sealed relation added to the first commit.
fn sealed_commits(
    seed: u64,
    p: &Program,
    pool: &[(String, Vec<i32>)],
    sealed: &[RelId],
    commits: usize,
) -> Vec<Vec<gen::Update>> {
    let input = |name: &str| p.relation(name).is_some_and(|r| p.relations[r].input);
    let (loaded, edited): (Vec<_>, Vec<_>) = pool
        .iter()
        .filter(|(name, _)| input(name))
        .cloned()
        .partition(|(name, _)| is_sealed(p, sealed, name));
    let mut out = gen::random_edits(seed, &edited, commits);
    let mut loaded: Vec<gen::Update> = loaded.into_iter().map(|(n, t)| (n, t, true)).collect();
    loaded.sort();
    loaded.dedup();
    if let Some(first) = out.first_mut() {
        first.extend(loaded);
    }
    out
}

/// The facts a sequence draws from.
fn pool(seed: u64, p: &Program, g: &gen::Generated) -> Vec<(String, Vec<i32>)> {
    let mut pool = gen::random_facts(seed, &g.inputs);
    let mut rng = Rng::new(seed ^ 0x9001);
    // Program facts (of any relation but views): inserting and retracting them must
    // change nothing.
    for (rel, t) in &p.facts {
        let r = &p.relations[*rel];
        if r.kind != RelKind::View && rng.chance(60) {
            pool.push((r.name.clone(), t.clone()));
        }
    }
    if rng.chance(33) {
        let others: Vec<(String, usize)> = p
            .relations
            .iter()
            .filter(|r| !r.input && r.kind != RelKind::View)
            .map(|r| (r.name.clone(), r.arity()))
            .collect();
        let extra = gen::random_facts(seed ^ 0x07E5, &others);
        pool.extend(extra.into_iter().filter(|_| rng.chance(20)));
    }
    pool
}

fn check_sequence(seed: u64, features: Features, mode: Mode) -> Result<(), String> {
    let g = gen::generate(seed, features);
    let p = Arc::new(
        check_str("gen.dl", &g.text)
            .map_err(|d| format!("seed {seed}: generated program rejected:\n{d}\n{}", g.text))?,
    );
    let explain = seed % 5 != 0;
    let pool = pool(seed, &p, &g);
    let sealed = if mode.sealed {
        sealed_relations(seed, &p)
    } else {
        Vec::new()
    };
    let commits = if mode.sealed {
        sealed_commits(seed, &p, &pool, &sealed, mode.commits)
    } else {
        gen::random_edits(seed, &pool, mode.commits)
    };
    let config = Config {
        inputs_only: mode.sealed,
        sealed: sealed.clone(),
        ..eng::config(mode.workers, explain)
    };
    let mut s = Session::new(p.clone(), config).expect("session starts");
    let mut prev = Outcome::from_session(&s);
    let report = |i: usize, what: &str, current: &[(RelId, Vec<Value>)]| {
        let mut steps = String::new();
        for (k, c) in commits[..=i].iter().enumerate() {
            steps += &format!("commit {}:", k + 1);
            for (name, t, insert) in c {
                steps += &format!(" {}{name}{t:?}", if *insert { "+" } else { "-" });
            }
            steps += "\n";
        }
        format!(
            "seed {seed} ({} worker(s), explain {explain}, sealed {sealed:?}), after commit {} of {}:\n{}\nupdates:\n{steps}current inputs:\n{}{what}",
            mode.workers,
            i + 1,
            commits.len(),
            g.text,
            eng::show_inputs(&p, current)
        )
    };
    for (i, commit) in commits.iter().enumerate() {
        for (name, t, insert) in commit {
            let rel = p.relation(name).expect("pool relation");
            if *insert {
                s.insert(rel, t)
            } else {
                s.retract(rel, t)
            }
            .map_err(|e| format!("seed {seed}: update {name}{t:?} refused: {e}"))?;
        }
        let c = s
            .commit()
            .map_err(|e| format!("seed {seed}: commit {} failed: {e}", i + 1))?;
        let now = Outcome::from_session(&s);
        let current = resolve(&p, &gen::facts_after(&commits, i + 1));
        // The changes, applied to what the session showed before, give what it shows now.
        match eng::apply_commit(&prev, &c) {
            Err(e) => return Err(report(i, &format!("malformed commit: {e}\n"), &current)),
            Ok(applied) => {
                if let Some(d) = eng::diff(&p, &now, &applied) {
                    return Err(report(
                        i,
                        &format!(
                            "previous + commit changes (as engine) vs contents (as expected):\n{d}"
                        ),
                        &current,
                    ));
                }
            }
        }
        if !explain && !c.events.is_empty() {
            return Err(report(i, "events without explain\n", &current));
        }
        prev = now.clone();
        let expected = eng::run_naive(&p, &current, explain);
        if let Some(d) = eng::diff(&p, &expected, &now) {
            return Err(report(
                i,
                &format!("differences (expected = naive::evaluate of the current inputs):\n{d}"),
                &current,
            ));
        }
        if seed % mode.fresh_every == 0 {
            let fresh = eng::run_fresh(&p, &current, mode.workers, explain);
            if let Some(d) = eng::diff(&p, &fresh, &now) {
                return Err(report(
                    i,
                    &format!(
                        "differences (expected = a fresh session on the current inputs):\n{d}"
                    ),
                    &current,
                ));
            }
        }
    }
    // Once the first commit has loaded any of them, a sealed relation refuses a
    // new fact.
    let loaded = commits
        .first()
        .is_some_and(|c| c.iter().any(|(name, _, _)| is_sealed(&p, &sealed, name)));
    if let (Some(&rel), true) = (sealed.first(), loaded) {
        let fact = vec![-7; p.relations[rel].arity()];
        if s.insert(rel, &fact).is_ok() {
            return Err(format!(
                "seed {seed}: a sealed relation took a fact after its commit"
            ));
        }
    }
    Ok(())
}

fn check_sequences(features: Features, seeds: Range<u64>, mode: Mode) {
    let total = seeds.end - seeds.start;
    let mut failed = Vec::new();
    let mut first = None;
    for seed in seeds {
        let result = std::panic::catch_unwind(|| check_sequence(seed, features, mode))
            .unwrap_or_else(|_| Err(format!("seed {seed}: panicked (see above)")));
        if let Err(report) = result {
            failed.push(seed);
            first.get_or_insert(report);
        }
    }
    if let Some(report) = first {
        panic!(
            "{} of {total} sequences fail (seeds {failed:?}); the first:\n{report}",
            failed.len()
        );
    }
}

// ---------------------------------------------------------------------------------------
// Random sequences.

#[test]
fn joins_and_negation() {
    let f = Features {
        joins: true,
        negation: true,
        comparisons: true,
        ..Features::NONE
    };
    check_sequences(f, 100..180, ONE);
}

#[test]
fn recursion() {
    let f = Features {
        joins: true,
        recursion: true,
        mutual_recursion: true,
        arithmetic: true,
        explain: true,
        ..Features::NONE
    };
    check_sequences(f, 200..300, ONE);
}

#[test]
fn stratified_datalog() {
    check_sequences(Features::DATALOG, 300..420, ONE);
}

#[test]
fn blocks_views_tiers_explain() {
    check_sequences(Features::ALL, 400..600, ONE);
}

#[test]
fn long_sequences() {
    let mode = Mode {
        commits: 25,
        fresh_every: 5,
        ..ONE
    };
    check_sequences(Features::ALL, 600..640, mode);
}

#[test]
fn sealed_inputs() {
    let mode = Mode {
        sealed: true,
        ..ONE
    };
    check_sequences(Features::ALL, 800..880, mode);
    let two = Mode { workers: 2, ..mode };
    check_sequences(Features::ALL, 880..900, two);
}

#[test]
fn two_workers() {
    let mode = Mode {
        workers: 2,
        fresh_every: 3,
        ..ONE
    };
    check_sequences(Features::ALL, 700..760, mode);
}

// ---------------------------------------------------------------------------------------
// Hand-written sequences.

fn program(text: &str) -> Arc<Program> {
    Arc::new(check_str("t.dl", text).unwrap_or_else(|d| panic!("{d}")))
}

fn changes(p: &Program, list: &[Change]) -> Vec<String> {
    list.iter()
        .map(|c| {
            format!(
                "{}{} @{}",
                if c.diff > 0 { "+" } else { "-" },
                eng::fact(p, c.rel, &c.row),
                c.round
            )
        })
        .collect()
}

fn commit(s: &mut Session, p: &Program) -> Vec<String> {
    let c = s.commit().unwrap();
    let mut v = changes(p, &c.changes.to_vec());
    v.sort();
    v
}

/// Retracting a program fact does nothing; inserting it as well (and then retracting
/// the insert) leaves it in place.
#[test]
fn program_facts_are_permanent() {
    let p = program(
        ".decl e(x: number, y: number)\n.input e\n.decl t(x: number, y: number)\n\
         e(1, 2).\n\
         t(x, y) :- e(x, y).\n\
         t(x, z) :- t(x, y), e(y, z).\n",
    );
    let e = p.relation("e").unwrap();
    let mut s = eng::session(&p, 1, false);
    assert_eq!(commit(&mut s, &p), ["+e(1, 2) @0", "+t(1, 2) @1"]);
    s.retract(e, &[1, 2]).unwrap();
    assert!(commit(&mut s, &p).is_empty());
    s.insert(e, &[1, 2]).unwrap();
    s.insert(e, &[2, 3]).unwrap();
    assert_eq!(
        commit(&mut s, &p),
        ["+e(2, 3) @0", "+t(1, 3) @2", "+t(2, 3) @1"]
    );
    s.retract(e, &[1, 2]).unwrap();
    s.retract(e, &[2, 3]).unwrap();
    assert_eq!(
        commit(&mut s, &p),
        ["-e(2, 3) @0", "-t(1, 3) @2", "-t(2, 3) @1"]
    );
    s.retract_all();
    assert!(commit(&mut s, &p).is_empty());
    assert_eq!(s.contents(p.relation("t").unwrap()), vec![(vec![1, 2], 1)]);
}

/// A sealed relation takes its facts in the commit that loads it (here a program
/// fact's). After it, inserting a fact already there or a program fact changes
/// nothing and is accepted; a new fact or a retraction is refused; a reset opens
/// the relation again.
#[test]
fn a_sealed_relation_refuses_changes_until_reset() {
    let p = program(
        ".decl e(x: number, y: number)\n.input e\n.decl q(x: number)\n.input q\n\
         .decl t(x: number, y: number)\n\
         e(1, 2).\n\
         t(x, y) :- e(x, y), q(x).\n",
    );
    let (e, q) = (p.relation("e").unwrap(), p.relation("q").unwrap());
    let config = Config {
        inputs_only: true,
        sealed: vec![e],
        ..eng::config(1, false)
    };
    let mut s = Session::new(p.clone(), config).unwrap();
    s.insert(q, &[1]).unwrap();
    assert_eq!(
        commit(&mut s, &p),
        ["+e(1, 2) @0", "+q(1) @0", "+t(1, 2) @0"]
    );
    s.insert(e, &[1, 2]).unwrap();
    let err = s.insert(e, &[2, 3]).unwrap_err();
    assert!(err.contains("sealed"), "{err}");
    s.insert(q, &[2]).unwrap();
    assert_eq!(commit(&mut s, &p), ["+q(2) @0"]);
    s.reset().unwrap();
    s.insert(e, &[2, 3]).unwrap();
    s.insert(q, &[2]).unwrap();
    assert_eq!(
        commit(&mut s, &p),
        ["+e(1, 2) @0", "+e(2, 3) @0", "+q(2) @0", "+t(2, 3) @0"]
    );
    s.insert(e, &[2, 3]).unwrap();
    let err = s.retract(e, &[2, 3]).unwrap_err();
    assert!(err.contains("sealed"), "{err}");
    assert!(commit(&mut s, &p).is_empty());
}

/// A fact whose first derivation goes away moves to a later round (and back): the
/// commit removes it at the old round and adds it at the new one.
#[test]
fn rounds_move() {
    let p = program(
        ".decl e(x: number, y: number)\n.decl t(x: number, y: number)\n\
         @explain(\"{x} to {z}\")\n\
         t(x, z) :- e(x, z).\n\
         @explain(\"{x} to {z} via {y}\")\n\
         t(x, z) :- t(x, y), e(y, z).\n",
    );
    let e = p.relation("e").unwrap();
    let mut s = eng::session(&p, 1, true);
    for t in [[1, 2], [2, 3], [3, 4]] {
        s.insert(e, &t).unwrap();
    }
    commit(&mut s, &p);
    let t = p.relation("t").unwrap();
    assert_eq!(
        s.rows_with_prefix(t, &[1]),
        vec![(vec![1, 2], 1), (vec![1, 3], 2), (vec![1, 4], 3)]
    );
    s.insert(e, &[1, 4]).unwrap();
    assert_eq!(
        commit(&mut s, &p),
        ["+e(1, 4) @0", "+t(1, 4) @1", "-t(1, 4) @3"]
    );
    let ev: Vec<_> = s
        .events()
        .into_iter()
        .filter(|e| e.head == [1, 4])
        .collect();
    assert_eq!(ev.len(), 1);
    assert_eq!(
        (ev[0].rule, ev[0].round, ev[0].bindings.clone()),
        (0, 1, vec![1, 4])
    );
    s.retract(e, &[1, 4]).unwrap();
    assert_eq!(
        commit(&mut s, &p),
        ["+t(1, 4) @3", "-e(1, 4) @0", "-t(1, 4) @1"]
    );
    let ev: Vec<_> = s
        .events()
        .into_iter()
        .filter(|e| e.head == [1, 4])
        .collect();
    assert_eq!(
        (ev[0].rule, ev[0].round, ev[0].bindings.clone()),
        (1, 3, vec![1, 4, 3])
    );
    // Breaking the chain in the middle removes everything after it.
    s.retract(e, &[2, 3]).unwrap();
    assert_eq!(
        commit(&mut s, &p),
        [
            "-e(2, 3) @0",
            "-t(1, 3) @2",
            "-t(1, 4) @3",
            "-t(2, 3) @1",
            "-t(2, 4) @2"
        ]
    );
}

/// Inserts go to any relation that is not a view: a derived relation, a recursive one,
/// a block's state. Views refuse them, as do tuples of the wrong width.
#[test]
fn inserts_into_non_input_relations() {
    let p = program(
        ".decl e(x: number)\n.decl d(x: number)\n.decl r(x: number)\n\
         d(x) :- e(x).\n\
         r(y) :- r(x), y = x + 1, y < 4.\n\
         .fixpoint {\n\
           .decl s(x: number)\n\
           .view v(x: number)\n\
           v(x) :- d(x), !s(x).\n\
           s(x) :- v(x), x > 0.\n\
         }\n",
    );
    let rel = |n: &str| p.relation(n).unwrap();
    let mut s = eng::session(&p, 1, false);
    let err = s.insert(rel("v"), &[1]).unwrap_err();
    assert_eq!(
        err,
        "'v' is a view: its contents are computed, not inserted"
    );
    let err = s.insert(rel("e"), &[1, 2]).unwrap_err();
    assert_eq!(err, "'e' has 1 column, not 2");
    s.insert(rel("d"), &[5]).unwrap();
    s.insert(rel("r"), &[1]).unwrap();
    s.insert(rel("s"), &[0]).unwrap();
    s.insert(rel("e"), &[2]).unwrap();
    let mut inputs: BTreeSet<(RelId, Vec<Value>)> = BTreeSet::new();
    for (n, t) in [("d", 5), ("r", 1), ("s", 0), ("e", 2)] {
        inputs.insert((rel(n), vec![t]));
    }
    s.commit().unwrap();
    let check = |s: &Session, inputs: &BTreeSet<(RelId, Vec<Value>)>| {
        let list: Vec<_> = inputs.iter().cloned().collect();
        let expected = eng::run_naive(&p, &list, false);
        if let Some(d) = eng::diff(&p, &expected, &Outcome::from_session(s)) {
            panic!("{d}");
        }
    };
    check(&s, &inputs);
    assert_eq!(
        s.contents(rel("r")),
        vec![(vec![1], 1), (vec![2], 2), (vec![3], 3)]
    );
    assert_eq!(
        s.contents(rel("s")),
        vec![(vec![0], 1), (vec![2], 1), (vec![5], 1)]
    );
    assert!(s.contents(rel("v")).is_empty());
    // A derived fact that is also inserted stays when its derivation goes, and the
    // other way round.
    s.insert(rel("d"), &[2]).unwrap();
    s.retract(rel("e"), &[2]).unwrap();
    s.retract(rel("r"), &[1]).unwrap();
    inputs.insert((rel("d"), vec![2]));
    inputs.remove(&(rel("e"), vec![2]));
    inputs.remove(&(rel("r"), vec![1]));
    s.commit().unwrap();
    check(&s, &inputs);
    assert!(s.contents(rel("r")).is_empty());
    assert_eq!(s.contents(rel("d")), vec![(vec![2], 0), (vec![5], 0)]);
}

/// `reset` empties the session (program facts stay) and it works as new afterwards.
#[test]
fn reset_then_reuse() {
    let p = program(
        ".decl e(x: number, y: number)\n.decl t(x: number, y: number)\n\
         e(0, 1).\n\
         t(x, y) :- e(x, y).\n\
         t(x, z) :- t(x, y), e(y, z).\n",
    );
    let e = p.relation("e").unwrap();
    let mut s = eng::session(&p, 2, false);
    s.insert(e, &[1, 2]).unwrap();
    s.commit().unwrap();
    s.reset().unwrap();
    s.insert(e, &[1, 3]).unwrap();
    s.commit().unwrap();
    let list = vec![(e, vec![1, 3])];
    let expected = eng::run_naive(&p, &list, false);
    if let Some(d) = eng::diff(&p, &expected, &Outcome::from_session(&s)) {
        panic!("{d}");
    }
    assert!(s.has_input(e, &[1, 3]) && !s.has_input(e, &[1, 2]));
}

/// Reading facts by prefix finds those whose next columns are negative too.
#[test]
fn rows_with_prefix_includes_negative_columns() {
    let p = program(".decl e(x: number, y: number)\n.output e\n");
    let e = p.relation("e").unwrap();
    let mut s = eng::session(&p, 1, false);
    for row in [[1, -5], [1, 0], [1, 7], [0, -1], [2, -9]] {
        s.insert(e, &row).unwrap();
    }
    s.commit().unwrap();
    let rows: Vec<Vec<i32>> = s
        .rows_with_prefix(e, &[1])
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    assert_eq!(rows, vec![vec![1, -5], vec![1, 0], vec![1, 7]]);
    assert_eq!(s.contents(e).len(), 5);
}
