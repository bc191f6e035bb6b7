//! The dataflow engine against the reference evaluator (`tests/suite/common/naive.rs`) on
//! random programs and fact sets: every relation's contents, every fact's round and
//! every explain event must be equal. Programs come from `tests/suite/common/gen.rs`, one
//! feature mix per test, with fixed seeds; a few hand-written programs pin down cases
//! the generator reaches only by luck.
//!
//! On a mismatch the test prints the program, its inputs and a diff (`missing`: the
//! reference has it, the engine does not; `extra`: the reverse; `round`: both have
//! the fact with different rounds). To replay one program:
//! `SEED=123 cargo test --release --test suite engine_differential::replay -- --ignored --nocapture`.

use std::ops::Range;
use std::sync::Arc;

use crate::common::engine::{self as eng, Outcome};
use crate::common::gen::{self, Features, Rng};
use crate::common::resolve;
use sudolog::check::check_str;
use sudolog::check::ir::{Program, RelId, RelKind, Value};
use sudolog::plan::Step;

/// How the engine runs a batch of programs.
#[derive(Clone, Copy)]
struct Mode {
    workers: usize,
    /// Explain on for every program, or for three in four (seed-dependent) so that
    /// sessions without explain are covered too (they must produce no events).
    always_explain: bool,
}

const ONE: Mode = Mode {
    workers: 1,
    always_explain: false,
};

/// The inputs of a generated program: random facts for its `.input` relations and,
/// for one seed in three, a few facts for other relations that are not views
/// (`Session::insert` accepts them; the reference treats them as extra facts).
fn inputs_for(seed: u64, p: &Program, g: &gen::Generated) -> Vec<(RelId, Vec<Value>)> {
    let mut facts = gen::random_facts(seed, &g.inputs);
    let mut rng = Rng::new(seed ^ 0x1A5E_27ED);
    if rng.chance(33) {
        let others: Vec<(String, usize)> = p
            .relations
            .iter()
            .filter(|r| !r.input && r.kind != RelKind::View)
            .map(|r| (r.name.clone(), r.arity()))
            .collect();
        let extra = gen::random_facts(seed ^ 0xE7, &others);
        facts.extend(extra.into_iter().filter(|_| rng.chance(25)));
    }
    resolve(p, &facts)
}

/// Checks one generated program. `Err` carries a full report.
fn check_seed(seed: u64, features: Features, mode: Mode) -> Result<(), String> {
    let g = gen::generate(seed, features);
    let p = match check_str("gen.dl", &g.text) {
        Ok(p) => Arc::new(p),
        Err(d) => {
            return Err(format!(
                "seed {seed}: generated program rejected:\n{d}\n{}",
                g.text
            ))
        }
    };
    let inputs = inputs_for(seed, &p, &g);
    let explain = mode.always_explain || seed % 4 != 0;
    let expected = eng::run_naive(&p, &inputs, explain);
    // Both renderings of the plan: incremental (product-ordered rounds) and batch
    // (totally ordered rounds).
    for batch in [false, true] {
        check_rendering(seed, &g, &p, &inputs, mode, explain, batch, &expected)?;
    }
    Ok(())
}

/// One rendering of a generated program against the reference's `expected`.
#[allow(clippy::too_many_arguments)]
fn check_rendering(
    seed: u64,
    g: &gen::Generated,
    p: &Arc<Program>,
    inputs: &[(RelId, Vec<Value>)],
    mode: Mode,
    explain: bool,
    batch: bool,
    expected: &eng::Outcome,
) -> Result<(), String> {
    let actual =
        std::panic::catch_unwind(|| eng::run_fresh_with(p, inputs, mode.workers, explain, batch))
            .map_err(|e| {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            format!(
                "seed {seed}: the engine panicked (batch {batch}): {msg}\n{}\ninputs:\n{}",
                g.text,
                eng::show_inputs(p, inputs)
            )
        })?;
    match eng::diff(p, expected, &actual) {
        None => Ok(()),
        Some(d) => Err(format!(
            "seed {seed} ({} worker{}, explain {explain}, batch {batch}):\n{}\ninputs:\n{}differences (expected = naive::evaluate):\n{d}",
            mode.workers,
            if mode.workers == 1 { "" } else { "s" },
            g.text,
            eng::show_inputs(p, inputs),
        )),
    }
}

/// Runs every seed; fails with the first failure in full and the list of failing
/// seeds.
fn check_seeds(features: Features, seeds: Range<u64>, mode: Mode) {
    let total = seeds.end - seeds.start;
    let mut failed = Vec::new();
    let mut first = None;
    for seed in seeds {
        if let Err(report) = check_seed(seed, features, mode) {
            failed.push(seed);
            first.get_or_insert(report);
        }
    }
    if let Some(report) = first {
        panic!(
            "{} of {total} programs differ (seeds {failed:?}); the first:\n{report}",
            failed.len()
        );
    }
}

// ---------------------------------------------------------------------------------------
// Random programs, by feature mix.

const JOINS: Features = Features {
    joins: true,
    labels: true,
    ..Features::NONE
};

#[test]
fn single_atoms_and_facts() {
    check_seeds(Features::NONE, 0..100, ONE);
}

#[test]
fn joins() {
    check_seeds(JOINS, 1000..1200, ONE);
}

#[test]
fn negation() {
    let f = Features {
        negation: true,
        ..JOINS
    };
    check_seeds(f, 2000..2200, ONE);
}

#[test]
fn comparisons_and_arithmetic() {
    let f = Features {
        comparisons: true,
        arithmetic: true,
        shuffle: true,
        ..JOINS
    };
    check_seeds(f, 3000..3200, ONE);
}

#[test]
fn aggregates() {
    let f = Features {
        aggregates: true,
        comparisons: true,
        arithmetic: true,
        ..JOINS
    };
    check_seeds(f, 4000..4250, ONE);
}

#[test]
fn recursion() {
    let f = Features {
        recursion: true,
        comparisons: true,
        arithmetic: true,
        explain: true,
        ..JOINS
    };
    check_seeds(f, 5000..5200, ONE);
}

#[test]
fn mutual_recursion_with_negation() {
    let f = Features {
        recursion: true,
        mutual_recursion: true,
        negation: true,
        explain: true,
        ..JOINS
    };
    check_seeds(f, 6000..6200, ONE);
}

#[test]
fn stratified_datalog() {
    check_seeds(Features::DATALOG, 7000..7250, ONE);
}

#[test]
fn blocks_views_tiers() {
    let f = Features {
        explain: false,
        ..Features::ALL
    };
    check_seeds(f, 8000..8250, ONE);
}

#[test]
fn everything_with_explain() {
    let mode = Mode {
        always_explain: true,
        ..ONE
    };
    check_seeds(Features::ALL, 9000..9400, mode);
}

#[test]
fn two_workers() {
    let mode = Mode {
        workers: 2,
        always_explain: true,
    };
    check_seeds(Features::ALL, 10_000..10_120, mode);
    check_seeds(
        Features::DATALOG,
        11_000..11_060,
        Mode { workers: 2, ..ONE },
    );
}

/// Replays one program: `SEED=n` (and `FEATURES=all|datalog|none`, `WORKERS=k`).
#[test]
#[ignore = "manual: replays the program of $SEED"]
fn replay() {
    let Ok(seed) = std::env::var("SEED") else {
        eprintln!("replay: set SEED to a seed to replay");
        return;
    };
    let seed: u64 = seed.parse().expect("SEED is a number");
    let features = match std::env::var("FEATURES").as_deref() {
        Ok("datalog") => Features::DATALOG,
        Ok("none") => Features::NONE,
        _ => Features::ALL,
    };
    let workers = std::env::var("WORKERS").map_or(1, |w| w.parse().unwrap());
    let mode = Mode {
        workers,
        always_explain: true,
    };
    println!("{}", gen::random_program(seed, features));
    if let Err(report) = check_seed(seed, features, mode) {
        panic!("{report}");
    }
}

// ---------------------------------------------------------------------------------------
// Hand-written programs.

fn program(text: &str) -> Arc<Program> {
    Arc::new(check_str("t.dl", text).unwrap_or_else(|d| panic!("{d}")))
}

fn facts(p: &Program, list: &[(&str, &[Value])]) -> Vec<(RelId, Vec<Value>)> {
    list.iter()
        .map(|(name, t)| (p.relation(name).expect(name), t.to_vec()))
        .collect()
}

/// The engine (1 and 2 workers) equals the reference; returns the engine's outcome.
fn agree(p: &Arc<Program>, inputs: &[(RelId, Vec<Value>)]) -> Outcome {
    let expected = eng::run_naive(p, inputs, true);
    for workers in [1, 2] {
        let actual = eng::run_fresh(p, inputs, workers, true);
        if let Some(d) = eng::diff(p, &expected, &actual) {
            panic!(
                "{workers} worker(s):\n{}\ninputs:\n{}differences:\n{d}",
                p.sources.file(0).text,
                eng::show_inputs(p, inputs)
            );
        }
    }
    expected
}

/// [`agree`], and both renderings (batch and incremental) with 1 and 2 workers equal
/// the reference too.
fn agree_both(p: &Arc<Program>, inputs: &[(RelId, Vec<Value>)]) -> Outcome {
    let o = agree(p, inputs);
    agree_renderings(p, inputs, true, &o);
    o
}

/// Both renderings (batch and incremental) with 1 and 2 workers equal `expected`,
/// the reference's outcome with explanations or without (`explain`).
fn agree_renderings(
    p: &Arc<Program>,
    inputs: &[(RelId, Vec<Value>)],
    explain: bool,
    expected: &Outcome,
) {
    for batch in [true, false] {
        for workers in [1, 2] {
            let actual = eng::run_fresh_with(p, inputs, workers, explain, batch);
            let d = eng::diff(p, expected, &actual);
            assert!(
                d.is_none(),
                "explain {explain}, batch {batch}, {workers} worker(s): {d:?}"
            );
        }
    }
}

fn rel(p: &Program, o: &Outcome, name: &str) -> Vec<(Vec<Value>, u32)> {
    o.contents[p.relation(name).expect(name)]
        .iter()
        .map(|(t, r)| (t.clone(), *r))
        .collect()
}

fn rows(list: &[&[Value]]) -> Vec<(Vec<Value>, u32)> {
    list.iter().map(|t| (t.to_vec(), 0)).collect()
}

/// Aggregates per group, including groups with no matching tuple: count and sum give
/// 0, min and max give nothing (the rule derives nothing for that group).
#[test]
fn aggregates_over_empty_groups() {
    let p = program(
        ".decl k(x: number)\n.decl e(x: number, y: number)\n\
         .decl c(x: number, n: number)\n.decl s(x: number, n: number)\n\
         .decl lo(x: number, n: number)\n.decl hi(x: number, n: number)\n\
         .decl g(n: number)\n\
         c(x, n) :- k(x), n = count : { e(x, _) }.\n\
         s(x, n) :- k(x), n = sum y : { e(x, y) }.\n\
         lo(x, n) :- k(x), n = min y : { e(x, y) }.\n\
         hi(x, n) :- k(x), n = max y * 10 : { e(x, y) }.\n\
         g(n) :- n = count : { e(_, _) }.\n",
    );
    let inputs = facts(
        &p,
        &[
            ("k", &[1]),
            ("k", &[2]),
            ("e", &[1, 5]),
            ("e", &[1, -3]),
            ("e", &[3, 7]),
        ],
    );
    let o = agree(&p, &inputs);
    assert_eq!(rel(&p, &o, "c"), rows(&[&[1, 2], &[2, 0]]));
    assert_eq!(rel(&p, &o, "s"), rows(&[&[1, 2], &[2, 0]]));
    assert_eq!(rel(&p, &o, "lo"), rows(&[&[1, -3]]));
    assert_eq!(rel(&p, &o, "hi"), rows(&[&[1, 50]]));
    assert_eq!(rel(&p, &o, "g"), rows(&[&[3]]));
    // With no facts at all: a global count is 0, per-group results need groups.
    let o = agree(&p, &[]);
    assert_eq!(rel(&p, &o, "g"), rows(&[&[0]]));
    assert!(rel(&p, &o, "c").is_empty());
}

/// Aggregates whose body is one relation read by the group (counted straight from the
/// relation, not joined with the groups): a constant in the key, a group variable
/// repeated in the atom, groups that several rows share, and rows of groups nobody
/// asks for; counts whose groups are that relation scanned alike (no markers), and
/// one whose scan is narrower than its body. Both renderings agree with the
/// reference.
#[test]
fn aggregates_read_straight_from_one_relation() {
    let p = program(
        ".decl k(x: number, z: number)\n.decl e(x: number, t: number, y: number)\n\
         .decl c(x: number, z: number, n: number)\n.decl d(x: number, n: number)\n\
         .decl m(x: number, n: number)\n.decl s(x: number, n: number)\n\
         c(x, z, n) :- k(x, z), n = count : { e(x, 7, _) }.\n\
         d(x, n) :- k(x, _), n = count : { e(x, x, _) }.\n\
         m(x, n) :- k(x, _), n = min y : { e(x, _, y) }.\n\
         s(x, n) :- k(x, _), n = sum y : { e(x, 7, y) }.\n\
         .decl w(x: number, n: number)\n.decl q(x: number, n: number)\n\
         .decl u(x: number, n: number)\n\
         w(x, n) :- e(x, _, _), n = count : { e(x, _, _) }.\n\
         q(x, n) :- e(x, 7, _), n = count : { e(x, _, _) }.\n\
         u(x, n) :- e(x, x, _), n = count : { e(x, x, _) }.\n",
    );
    let inputs = facts(
        &p,
        &[
            ("k", &[1, 10]),
            ("k", &[1, 11]),
            ("k", &[2, 12]),
            ("e", &[1, 7, 5]),
            ("e", &[1, 7, 6]),
            ("e", &[1, 1, -4]),
            ("e", &[1, 8, 9]),
            ("e", &[2, 2, 3]),
            ("e", &[3, 7, 1]),
            ("e", &[3, 3, 1]),
        ],
    );
    let o = agree_both(&p, &inputs);
    assert_eq!(
        rel(&p, &o, "c"),
        rows(&[&[1, 10, 2], &[1, 11, 2], &[2, 12, 0]])
    );
    assert_eq!(rel(&p, &o, "d"), rows(&[&[1, 1], &[2, 1]]));
    assert_eq!(rel(&p, &o, "m"), rows(&[&[1, -4], &[2, 3]]));
    assert_eq!(rel(&p, &o, "s"), rows(&[&[1, 11], &[2, 0]]));
    assert_eq!(rel(&p, &o, "w"), rows(&[&[1, 4], &[2, 1], &[3, 2]]));
    assert_eq!(rel(&p, &o, "q"), rows(&[&[1, 4], &[3, 2]]));
    assert_eq!(rel(&p, &o, "u"), rows(&[&[1, 1], &[2, 1], &[3, 1]]));
}

/// Sums read straight from one relation (where time is totally ordered, a running
/// count of (1, value) pairs): groups asked for that have no rows (0), groups that
/// are the relation's own, a group whose rows cancel out (still reported, 0), a sum
/// that wraps at 32 bits, and a target that divides by zero for one row (that row
/// adds nothing). Both renderings agree with the reference.
#[test]
fn sums_read_straight_from_one_relation() {
    let p = program(
        ".decl k(x: number)\n.decl f(x: number, t: number, y: number)\n\
         .decl s(x: number, n: number)\n.decl o(x: number, n: number)\n\
         .decl q(x: number, n: number)\n\
         s(x, n) :- k(x), n = sum y : { f(x, t, y) }.\n\
         o(x, n) :- f(x, _, _), n = sum y : { f(x, t, y) }.\n\
         q(x, n) :- f(x, _, _), n = sum 12 / y : { f(x, t, y) }.\n",
    );
    let inputs = facts(
        &p,
        &[
            ("k", &[1]),
            ("k", &[2]),
            ("k", &[4]),
            ("f", &[1, 1, 5]),
            ("f", &[1, 2, -5]),
            ("f", &[2, 1, 3]),
            ("f", &[2, 2, 0]),
            ("f", &[3, 1, i32::MAX]),
            ("f", &[3, 2, 1]),
        ],
    );
    let o = agree_both(&p, &inputs);
    assert_eq!(rel(&p, &o, "s"), rows(&[&[1, 0], &[2, 3], &[4, 0]]));
    assert_eq!(rel(&p, &o, "o"), rows(&[&[1, 0], &[2, 3], &[3, i32::MIN]]));
    assert_eq!(rel(&p, &o, "q"), rows(&[&[1, 0], &[2, 4], &[3, 12]]));
}

/// Counts and sums over bodies of two atoms, which the plan streams (every binding
/// weighed as it comes, the groups asked for as markers): two bindings that project
/// onto one (group, value) both count, a group asked for without bindings (0), rows
/// of groups nobody asks for, a target that divides by zero for one binding, and the
/// same over a block's view, whose rows change from round to round. The plan streams
/// them (checked on the plan), and both renderings agree with the reference.
#[test]
fn aggregates_streamed_from_their_bodies() {
    let p = program(
        ".decl k(x: number)\n.decl e(x: number, y: number)\n.decl f(y: number, z: number)\n\
         .decl c(x: number, n: number)\n.decl s(x: number, n: number)\n\
         .decl q(x: number, n: number)\n\
         c(x, n) :- k(x), n = count : { e(x, y), f(y, z) }.\n\
         s(x, n) :- k(x), n = sum z : { e(x, y), f(y, z) }.\n\
         q(x, n) :- k(x), n = sum 12 / z : { e(x, y), f(y, z) }.\n\
         .fixpoint key 0 {\n\
           .decl got(x: number, y: number)\n\
           .view left(x: number, n: number)\n\
           got(x, y) :- e(x, y), f(y, 1).\n\
           got(x, z) :- got(x, y), f(y, z), z < 6.\n\
           left(x, n) :- k(x), n = sum z : { got(x, y), f(y, z) }.\n\
         }\n",
    );
    let streamed = sudolog::plan::plan(&p, false)
        .expect("the program plans")
        .strata
        .iter()
        .flat_map(|s| s.rules())
        .filter(|r| {
            let steps = &r.body.steps;
            steps
                .iter()
                .any(|s| matches!(s, Step::Aggregate { streamed: true, .. }))
        })
        .count();
    assert_eq!(streamed, 4, "every two-atom count and sum is streamed");
    let inputs = facts(
        &p,
        &[
            ("k", &[1]),
            ("k", &[2]),
            ("k", &[3]),
            ("e", &[1, 4]),
            ("e", &[1, 5]),
            ("e", &[2, 0]),
            ("e", &[9, 4]),
            ("f", &[4, 1]),
            ("f", &[4, 2]),
            ("f", &[5, 1]),
            ("f", &[0, 0]),
            ("f", &[1, 3]),
            ("f", &[3, 5]),
        ],
    );
    let o = agree_both(&p, &inputs);
    // 1: bindings (4, 1), (4, 2), (5, 1); 2: (0, 0), whose 12 / 0 adds nothing; 3: none.
    assert_eq!(rel(&p, &o, "c"), rows(&[&[1, 3], &[2, 1], &[3, 0]]));
    assert_eq!(rel(&p, &o, "s"), rows(&[&[1, 4], &[2, 0], &[3, 0]]));
    assert_eq!(rel(&p, &o, "q"), rows(&[&[1, 30], &[2, 0], &[3, 0]]));
    // got(1, _) reaches 4, 5, 1, 2 and 3, whose f-values sum to (1 + 2) + 1 + 3 + 5;
    // got(2, _) and got(3, _) stay empty.
    let left = &o.contents[p.relation("left").unwrap()];
    let left: Vec<&Vec<Value>> = left.keys().collect();
    assert_eq!(left, [&vec![1, 12], &vec![2, 0], &vec![3, 0]]);
}

/// Singles in a block, read from their counts (`nopt`, `nspot`); a contradiction
/// (`dead`) stops them.
const SINGLES_BLOCK: &str = ".decl cand(k: number, c: number, v: number)\n\
         .decl in(k: number, c: number, g: number)\n.decl unit(k: number, g: number)\n\
         .input cand, in, unit\n\
         .fixpoint key 0 {\n\
           .decl set(k: number, c: number, v: number)\n\
           .view out(k: number, c: number, v: number)\n\
           .view opt(k: number, c: number, v: number)\n\
           .view spot(k: number, g: number, v: number, c: number)\n\
           .view nopt(k: number, c: number, n: number)\n\
           .view nspot(k: number, g: number, v: number, n: number)\n\
           .view dead(k: number)\n\
           out(k, d, v) :- set(k, c, v), in(k, c, g), in(k, d, g), d != c.\n\
           opt(k, c, v) :- cand(k, c, v), !out(k, c, v).\n\
           nopt(k, c, n) :- cand(k, c, _), n = count : { opt(k, c, _) }.\n\
           spot(k, g, v, c) :- in(k, c, g), opt(k, c, v).\n\
           nspot(k, g, v, n) :- unit(k, g), cand(k, _, v), n = count : { spot(k, g, v, _) }.\n\
           dead(k) :- nopt(k, _, 0).\n\
           set(k, c, v) :- nopt(k, c, 1), opt(k, c, v), !dead(k).\n\
           set(k, c, v) :- nspot(k, g, v, 1), spot(k, g, v, c), !dead(k).\n\
         }\n";

/// Instance `k`'s geometry for [`SINGLES_BLOCK`]: a 2x2 square of cells 1 to 4, rows
/// 1 and 2, columns 3 and 4 (`in` and `unit` facts).
fn square(k: Value) -> Vec<(&'static str, Vec<Value>)> {
    let cells = [
        (1, 1),
        (2, 1),
        (3, 2),
        (4, 2),
        (1, 3),
        (3, 3),
        (2, 4),
        (4, 4),
    ];
    let mut out: Vec<(&str, Vec<Value>)> =
        cells.iter().map(|&(c, g)| ("in", vec![k, c, g])).collect();
    out.extend((1..=4).map(|g| ("unit", vec![k, g])));
    out
}

/// Singles read from their count (`set(k, c, v) :- nopt(k, c, 1), opt(k, c, v)`):
/// the plan drops the join back and the count hands on its groups of one row. Groups
/// asked for several times over (`cand` has a row per value), a single blocked by a
/// contradiction, singles that follow in later rounds, a clash that empties two
/// cells. Both renderings, 1 and 2 workers, agree with the reference.
#[test]
fn singles_read_from_their_count() {
    let p = program(SINGLES_BLOCK);
    let mut list: Vec<(&str, Vec<Value>)> = Vec::new();
    // Instance 1: a 2x2 square (rows 1, 2; columns 3, 4) with cell 1 given 1: 2 has
    // one place left in row 1 and in column 3 (hidden singles, round 1), then cell 4
    // one value (round 2).
    // Instance 2: two cells of one group that both can only be 5.
    // Instance 3: two cells, two values, nothing to single out.
    list.extend(square(1));
    list.push(("cand", vec![1, 1, 1]));
    for c in 2..=4 {
        list.extend([("cand", vec![1, c, 1]), ("cand", vec![1, c, 2])]);
    }
    for (k, c) in [(2, 1), (2, 2), (3, 1), (3, 2)] {
        list.extend([("in", vec![k, c, 1]), ("unit", vec![k, 1])]);
    }
    list.extend([("cand", vec![2, 1, 5]), ("cand", vec![2, 2, 5])]);
    for (c, v) in [(1, 1), (1, 2), (2, 1), (2, 2)] {
        list.push(("cand", vec![3, c, v]));
    }
    let list: Vec<(&str, &[Value])> = list.iter().map(|(r, t)| (*r, t.as_slice())).collect();
    let inputs = facts(&p, &list);
    let o = agree_both(&p, &inputs);
    let set = &o.contents[p.relation("set").unwrap()];
    let mut got: Vec<(Vec<Value>, u32)> = set.iter().map(|(t, r)| (t.clone(), *r)).collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            (vec![1, 1, 1], 1),
            (vec![1, 2, 2], 1),
            (vec![1, 3, 2], 1),
            (vec![1, 4, 1], 2),
            (vec![2, 1, 5], 1),
            (vec![2, 2, 5], 1),
        ]
    );
    let dead = &o.contents[p.relation("dead").unwrap()];
    assert_eq!(dead.keys().collect::<Vec<_>>(), vec![&vec![2]]);
}

/// Regression (an aggregate with an empty group after a step with no rows emitted its
/// value anyway): `r(n)` needs a tuple `a(_, 3)`, there is none, and
/// the engine derives `r(1)` anyway.
#[test]
fn global_aggregate_after_empty_atom() {
    let p = program(
        ".decl a(x: number, y: number)\n.decl e(x: number)\n.decl r(n: number)\n\
         r(n) :- a(_, 3), n = count : { e(_) }.\n",
    );
    let o = agree(&p, &facts(&p, &[("e", &[5])]));
    assert!(rel(&p, &o, "r").is_empty());
}

/// Symbols as values: joins, negation and `=`/`!=` on symbols; program facts and inputs
/// share the symbol table.
#[test]
fn symbols() {
    let p = program(
        ".decl parent(a: symbol, b: symbol)\n.input parent\n\
         .decl person(a: symbol)\n\
         .decl anc(a: symbol, b: symbol)\n\
         .decl root(a: symbol)\n\
         .decl sib(a: symbol, b: symbol)\n\
         parent(\"ann\", \"bob\").\n\
         person(x) :- parent(x, _).\n\
         person(x) :- parent(_, x).\n\
         anc(x, y) :- parent(x, y).\n\
         anc(x, z) :- anc(x, y), parent(y, z).\n\
         root(x) :- person(x), !parent(_, x).\n\
         sib(x, y) :- parent(p, x), parent(p, y), x != y, p != \"zed\".\n",
    );
    let mut syms = p.symbols.clone();
    let mut sym = |s: &str| syms.intern(s);
    let (bob, cy, dee, zed, eve) = (sym("bob"), sym("cy"), sym("dee"), sym("zed"), sym("eve"));
    let inputs = facts(
        &p,
        &[
            ("parent", &[bob, cy]),
            ("parent", &[bob, dee]),
            ("parent", &[zed, eve]),
            ("parent", &[zed, bob]),
        ],
    );
    // Symbols interned after the program are new to the session too: give them to it in
    // the same order so that the numbers agree.
    let expected = eng::run_naive(&p, &inputs, true);
    let mut s = eng::session(&p, 1, true);
    for name in ["bob", "cy", "dee", "zed", "eve"] {
        s.symbols().intern(name);
    }
    for (rel, t) in &inputs {
        s.insert(*rel, t).unwrap();
    }
    s.commit().unwrap();
    let actual = Outcome::from_session(&s);
    if let Some(d) = eng::diff(&p, &expected, &actual) {
        panic!("{d}");
    }
    let ann = p.symbols.lookup("ann").unwrap();
    let anc = &actual.contents[p.relation("anc").unwrap()];
    assert_eq!(anc.len(), 9);
    // ann -> bob -> {cy, dee}: rounds of the recursive component count from 1.
    assert_eq!(anc[&vec![ann, bob]], 1);
    assert_eq!(anc[&vec![ann, cy]], 2);
    assert_eq!(anc[&vec![zed, dee]], 2);
    let sib = &actual.contents[p.relation("sib").unwrap()];
    assert_eq!(sib.len(), 2, "zed's children are not siblings here");
}

/// Recursive components outside blocks count rounds from 1, like blocks; a fact
/// derivable at several rounds has the first; program facts of a recursive relation
/// enter at round 1 and get no event.
#[test]
fn recursion_rounds_and_events() {
    let p = program(
        ".decl e(x: number, y: number)\n.decl t(x: number, y: number)\n\
         .decl even(x: number)\n.decl odd(x: number)\n\
         t(9, 9).\n\
         @explain(\"{x} reaches {y}\")\n\
         t(x, y) :- e(x, y).\n\
         @explain(\"{x} reaches {z} through {y}\")\n\
         t(x, z) :- t(x, y), e(y, z).\n\
         even(0).\n\
         odd(y) :- even(x), e(x, y).\n\
         even(y) :- odd(x), e(x, y).\n",
    );
    let inputs = facts(
        &p,
        &[
            ("e", &[0, 1]),
            ("e", &[1, 2]),
            ("e", &[2, 3]),
            ("e", &[0, 2]),
        ],
    );
    let o = agree(&p, &inputs);
    let t = p.relation("t").unwrap();
    assert_eq!(o.contents[t][&vec![0, 1]], 1);
    assert_eq!(o.contents[t][&vec![0, 2]], 1);
    assert_eq!(o.contents[t][&vec![0, 3]], 2);
    assert_eq!(o.contents[t][&vec![9, 9]], 1);
    assert!(!o.events.iter().any(|(_, _, head, _)| *head == vec![9, 9]));
    // 0 -> 3 first comes from t(0, 2) (round 1) + e(2, 3) in round 2.
    assert!(o.events.contains(&(1, 2, vec![0, 3], vec![0, 3, 2])));
    let even = p.relation("even").unwrap();
    let odd = p.relation("odd").unwrap();
    assert_eq!(
        o.contents[even]
            .iter()
            .map(|(t, r)| (t[0], *r))
            .collect::<Vec<_>>(),
        vec![(0, 1), (2, 3), (3, 3)]
    );
    assert_eq!(
        o.contents[odd]
            .iter()
            .map(|(t, r)| (t[0], *r))
            .collect::<Vec<_>>(),
        vec![(1, 2), (2, 2), (3, 4)]
    );
}

/// A keyed block with a view, a view fact, negation over the state, a count, and two
/// tiers: the higher tier fires only in rounds where the lower one derives nothing for
/// that instance.
#[test]
fn block_with_views_facts_and_tiers() {
    let p = program(
        ".decl cand(k: number, v: number)\n.input cand\n\
         .fixpoint key 0 {\n\
           .decl pick(k: number, v: number)\n\
           .decl gone(k: number, v: number)\n\
           .view left(k: number, v: number)\n\
           .view size(k: number, n: number)\n\
           left(9, 9).\n\
           left(k, v) :- cand(k, v), !gone(k, v), !pick(k, _).\n\
           size(k, n) :- left(k, _), n = count : { left(k, _) }.\n\
           @explain(\"only {v} left for {k}\")\n\
           pick(k, v) :- left(k, v), size(k, 1).\n\
           @tier(1) @explain(\"drop {v} from {k}\")\n\
           gone(k, v) :- left(k, v), size(k, n), n > 1, v = max w : { left(k, w) }.\n\
         }\n",
    );
    let inputs = facts(
        &p,
        &[
            ("cand", &[1, 4]),
            ("cand", &[1, 5]),
            ("cand", &[1, 6]),
            ("cand", &[2, 7]),
        ],
    );
    let o = agree(&p, &inputs);
    let pick = &o.contents[p.relation("pick").unwrap()];
    let gone = &o.contents[p.relation("gone").unwrap()];
    // Instance 2 picks 7 in round 1; instance 1 drops 6 (round 1), 5 (round 2), then
    // picks 4 (round 3). The view fact left(9, 9) is alone in instance 9: picked too.
    assert_eq!(pick.get(&vec![2, 7]), Some(&1));
    assert_eq!(pick.get(&vec![9, 9]), Some(&1));
    assert_eq!(gone.get(&vec![1, 6]), Some(&1));
    assert_eq!(gone.get(&vec![1, 5]), Some(&2));
    assert_eq!(pick.get(&vec![1, 4]), Some(&3));
    // Views are recomputed from the final state and have round 0.
    let left = &o.contents[p.relation("left").unwrap()];
    assert_eq!(left.iter().collect::<Vec<_>>(), vec![(&vec![9, 9], &0)]);
    assert_eq!(o.events.len(), 5);
}

/// Views that nothing observes or reads after the block (the other tests observe
/// every relation): one whose rules derive duplicates, in several rounds, with a
/// view fact among them, subtracted by whole rows; and a view that no rule of the
/// loop reads (`done`: computed after it). Both renderings, with 1 and 2 workers,
/// equal the reference on what they observe.
#[test]
fn views_subtracted_by_whole_rows() {
    let p = program(
        ".decl cell(k: number, v: number)\n.input cell\n\
         .decl seed(k: number, v: number)\n.input seed\n\
         .fixpoint {\n\
           .decl placed(k: number, v: number)\n\
           .view struck(k: number, v: number)\n\
           .view open(k: number, v: number)\n\
           .view nopen(k: number, n: number)\n\
           .view done(k: number)\n\
           struck(4, 3).\n\
           struck(k, w) :- placed(k, v), cell(k, w), w != v.\n\
           struck(k, w) :- placed(k, v), w = v + 1, cell(k, w).\n\
           struck(k, v) :- placed(j, v), k = j + 1, cell(k, v).\n\
           open(k, v) :- cell(k, v), !struck(k, v).\n\
           nopen(k, n) :- cell(k, _), n = count : { open(k, _) }.\n\
           placed(k, v) :- seed(k, v).\n\
           placed(k, v) :- nopen(k, 1), open(k, v).\n\
           done(k) :- placed(k, _).\n\
         }\n",
    );
    let cells: Vec<(&str, &[Value])> = vec![
        ("cell", &[1, 1]),
        ("cell", &[1, 2]),
        ("cell", &[1, 3]),
        ("cell", &[2, 1]),
        ("cell", &[2, 2]),
        ("cell", &[3, 2]),
        ("cell", &[3, 3]),
        ("cell", &[4, 3]),
        ("cell", &[4, 4]),
        ("seed", &[1, 1]),
    ];
    let inputs = facts(&p, &cells);
    let expected = eng::run_naive(&p, &inputs, false);
    let placed = p.relation("placed").unwrap();
    let open = p.relation("open").unwrap();
    let done = p.relation("done").unwrap();
    for batch in [true, false] {
        for workers in [1, 2] {
            let config = sudolog::session::Config {
                batch,
                observe: sudolog::session::Observe::Relations(vec![placed, open, done]),
                ..eng::config(workers, false)
            };
            let s = eng::committed(&p, &inputs, config);
            for rel in [placed, open, done] {
                let got: Vec<_> = s.contents(rel).into_iter().collect();
                let want: Vec<_> = expected.contents[rel].clone().into_iter().collect();
                assert_eq!(got, want, "batch {batch}, {workers} worker(s)");
            }
        }
    }
    // Key 1 is seeded (round 1, as 4, whose 3 a fact strikes); the strikes leave
    // one value in keys 2 and 3 in turn, each placed a round after the one before.
    let got: Vec<(Vec<Value>, u32)> = expected.contents[placed]
        .iter()
        .map(|(t, r)| (t.clone(), *r))
        .collect();
    assert_eq!(
        got,
        [
            (vec![1, 1], 1),
            (vec![2, 2], 2),
            (vec![3, 3], 3),
            (vec![4, 4], 1)
        ]
    );
}

/// Counts reported as `min(n, 2)` where every reading tells apart only 0, 1 and more
/// (`sudolog::plan::caps`): `nopt` and `nspot` are read as constants inside the block
/// ([`SINGLES_BLOCK`]), and `nopt` after it through `options` (`n > 1`), itself read
/// only as `_`; none of them is observed. Incremental sessions (1 and 2 workers) edited so that counts cross
/// the cap both ways (a cell's options going 1 -> 3 -> 0 -> 2 ...): after every commit,
/// what they observe equals the reference's on the same facts. The plan is checked
/// to cap both counts, so the test cannot pass by not capping.
#[test]
fn capped_counts_under_edits() {
    let p = program(&format!(
        "{SINGLES_BLOCK}\
         .decl options(k: number, c: number, n: number)\n\
         options(k, c, n) :- nopt(k, c, n), n > 1.\n\
         .decl open(k: number)\n\
         open(k) :- options(k, _, _).\n"
    ));
    let seen: Vec<RelId> = ["set", "dead", "open"]
        .iter()
        .map(|n| p.relation(n).unwrap())
        .collect();
    let caps = sudolog::plan::caps::count_caps(&sudolog::plan::caps::Rendered {
        program: &p,
        rule: &|_| true,
        observed: &|r| seen.contains(&r),
        explain: false,
    });
    let capped: Vec<&str> = (caps.keys())
        .map(|i| p.relations[p.rules[*i].head].name.as_str())
        .collect();
    assert!(caps.values().all(|&c| c == 2), "{caps:?}");
    assert_eq!((capped.len(), capped.contains(&"nopt")), (2, true));
    // A 2x2 square (rows 1, 2; columns 3, 4), every cell with values 1 to 3 in play.
    let base = square(1);
    let pool: Vec<Vec<Value>> = (1..=4)
        .flat_map(|c| (1..=3).map(move |v| vec![1, c, v]))
        .collect();
    let cand = p.relation("cand").unwrap();
    let list: Vec<(&str, &[Value])> = base.iter().map(|(r, t)| (*r, t.as_slice())).collect();
    let fixed = facts(&p, &list);
    for workers in [1, 2] {
        let config = sudolog::session::Config {
            observe: sudolog::session::Observe::Relations(seen.clone()),
            ..eng::config(workers, false)
        };
        let mut s = eng::committed(&p, &fixed, config);
        let mut on = vec![false; pool.len()];
        let mut rng = Rng::new(7);
        for step in 0..60 {
            // One to three facts toggled per commit.
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(pool.len());
                on[i] = !on[i];
                match on[i] {
                    true => s.insert(cand, &pool[i]).unwrap(),
                    false => s.retract(cand, &pool[i]).unwrap(),
                }
            }
            s.commit().unwrap();
            let mut inputs = fixed.clone();
            inputs.extend(
                (0..pool.len())
                    .filter(|&i| on[i])
                    .map(|i| (cand, pool[i].clone())),
            );
            let expected = eng::run_naive(&p, &inputs, false);
            for &rel in &seen {
                let got: Vec<_> = s.contents(rel).into_iter().collect();
                let want: Vec<_> = expected.contents[rel].clone().into_iter().collect();
                assert_eq!(
                    got, want,
                    "{workers} worker(s), commit {step}, relation {rel}"
                );
            }
        }
    }
}

/// One program at each width a plan renders at (2, 4, 6, and the full width), each
/// recursive, through both renderings with 1 and 2 workers against the reference,
/// without explanations (explain records can widen a plan) and with them. The
/// library's own unit tests render every plan at the full width, so these are what
/// runs the narrower copies of the rendering code before the benches do.
#[test]
fn every_width_agrees_with_the_reference() {
    /// (width, program, facts).
    type Case<'a> = (usize, &'a str, &'a [(&'a str, &'a [Value])]);
    let cases: [Case; 4] = [
        (
            2,
            ".decl e(x: number, y: number)\n.decl p(x: number, y: number)\n\
             p(x, y) :- e(x, y).\np(x, z) :- p(x, y), e(y, z).\n",
            &[("e", &[1, 2]), ("e", &[2, 3]), ("e", &[3, 1]), ("e", &[3, 4])],
        ),
        (
            4,
            ".decl e(x: number, y: number)\n.decl t(x: number, y: number, z: number)\n\
             .decl r(x: number, y: number)\n\
             r(x, y) :- e(x, y).\nr(x, z) :- r(x, y), r(y, z), x != z.\n\
             t(x, y, z) :- r(x, y), r(y, z), r(z, x).\n",
            &[("e", &[1, 2]), ("e", &[2, 3]), ("e", &[3, 1]), ("e", &[4, 5])],
        ),
        (
            6,
            ".decl e(x: number, y: number)\n.decl q(a: number, b: number)\n\
             q(a, b) :- e(a, b).\n\
             q(a, d) :- q(a, b), e(b, c), e(c, d), e(f, a), a + b + c + d + f > 4.\n",
            &[("e", &[1, 2]), ("e", &[2, 3]), ("e", &[3, 4]), ("e", &[4, 1])],
        ),
        (
            sudolog::MAX_ARITY,
            ".decl s(a: number, b: number, c: number, d: number, e: number, f: number, g: number)\n\
             .decl n(a: number, b: number)\n\
             s(a, b, c, d, e, f, g) :- n(a, b), c = a + b, d = a * b, e = a - b, f = 1, g = 2.\n\
             n(b, a) :- s(a, b, _, _, _, _, _).\n",
            &[("n", &[1, 2]), ("n", &[3, 5])],
        ),
    ];
    for (w, text, list) in cases {
        let p = program(text);
        let planned = sudolog::plan::plan(&p, false).expect("the program plans");
        assert_eq!(sudolog::dataflow::render::width(&p, &planned), w, "{text}");
        let inputs = facts(&p, list);
        for explain in [false, true] {
            let expected = eng::run_naive(&p, &inputs, explain);
            agree_renderings(&p, &inputs, explain, &expected);
            let derived: usize = expected.contents.iter().map(|c| c.len()).sum();
            assert!(derived > list.len(), "width {w}: the rules derived nothing");
        }
    }
}

/// Relations of the maximum arity and rules that hold eight variables at once; a rule
/// that would need nine is refused when the session is planned.
#[test]
fn widest_rows() {
    let p = program(
        ".decl w(a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number)\n\
         .decl k(a: number, b: number)\n\
         .decl out(a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number)\n\
         .decl sums(a: number, s: number)\n\
         out(h, g, f, e, d, c, b, a) :- w(a, b, c, d, e, f, g, h), k(a, b), h >= 0.\n\
         out(a, b, c, d, e, f, g, z) :- out(a, b, c, d, e, f, g, h), z = (h + 1) % 3.\n\
         sums(a, s) :- k(a, _), s = sum h : { w(a, _, _, _, _, _, _, h) }.\n",
    );
    let mut inputs = facts(&p, &[("k", &[1, 2]), ("k", &[3, 4])]);
    let w = p.relation("w").unwrap();
    for i in 0..6 {
        inputs.push((
            w,
            vec![
                1 + 2 * (i % 2),
                2 + 2 * (i % 2),
                i,
                -i,
                i * i,
                7,
                i32::MAX - i,
                i,
            ],
        ));
    }
    let o = agree(&p, &inputs);
    assert_eq!(o.contents[p.relation("out").unwrap()].len(), 21);
    assert_eq!(rel(&p, &o, "sums"), rows(&[&[1, 6], &[3, 9]]));
    let rule = "r(a) :- w(a, b, c, d, e, f, g, h), k(h, i), a + b + c + d + e + f + g + h + i = 0.";
    let too_wide = program(&format!(
        ".decl w(a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number)\n\
         .decl k(a: number, b: number)\n.decl r(a: number)\n{rule}\n"
    ));
    let err = match sudolog::session::Session::new(too_wide.clone(), eng::config(1, false)) {
        Ok(_) => panic!("a rule with nine variables at once was planned"),
        Err(e) => e,
    };
    assert_eq!(
        err,
        format!(
            "t.dl:4:1: error: this rule needs 9 variables at once; at most 8 are supported (split it with an intermediate relation)\n\
             4 | {rule}\n  | {}\n",
            "^".repeat(rule.len())
        )
    );
}
