//! Soufflé's scoping of aggregate variables: a variable that occurs only inside an
//! aggregate (its body or target) is local to that aggregate, so the same name may be
//! used in several aggregates of one rule. Checked against the reference evaluator
//! and against the values Soufflé gives.

use std::sync::Arc;

use sudolog::check::check_str;
use sudolog::check::ir::{Program, Value};

use super::common::engine as eng;

fn program(text: &str) -> Arc<Program> {
    Arc::new(check_str("t.dl", text).unwrap_or_else(|d| panic!("{d}")))
}

/// The rows of `name` as text, from the engine (1 and 2 workers) after checking that
/// it agrees with the reference evaluator.
fn rows(p: &Arc<Program>, name: &str) -> Vec<String> {
    let expected = eng::run_naive(p, &[], false);
    for workers in [1, 2] {
        let actual = eng::run_fresh(p, &[], workers, false);
        if let Some(d) = eng::diff(p, &expected, &actual) {
            panic!("{workers} worker(s) differ from the reference:\n{d}");
        }
    }
    let rel = p.relation(name).expect(name);
    expected.contents[rel]
        .keys()
        .map(|t: &Vec<Value>| eng::fact(p, rel, t))
        .collect()
}

const SALES: &str = "\
.decl shop(s: symbol)
.decl sale(s: symbol, item: number, p: number)
shop(\"a\"). shop(\"b\"). shop(\"c\").
sale(\"a\", 1, 5). sale(\"a\", 2, 7). sale(\"b\", 1, 2). sale(\"b\", 2, 3).
";

#[test]
fn same_name_in_two_aggregates() {
    let p = program(&format!(
        "{SALES}.decl summary(s: symbol, t: number, m: number)\n\
         summary(s, t, m) :- shop(s), t = sum p : {{ sale(s, _, p) }}, m = max p : {{ sale(s, _, p) }}.\n"
    ));
    // Shop c sold nothing: its sum is 0 but it has no max, so no row (as in Soufflé).
    assert_eq!(
        rows(&p, "summary"),
        ["summary(a, 12, 7)", "summary(b, 5, 3)"]
    );
}

#[test]
fn locals_of_ungrouped_aggregates() {
    let p = program(&format!(
        "{SALES}.decl stats(t: number, lo: number, n: number, k: number)\n\
         stats(t, lo, n, k) :- t = sum p : {{ sale(_, _, p) }}, lo = min p : {{ sale(_, _, p) }},\n\
             n = count : {{ sale(_, _, p), p > 3 }}, k = count : {{ sale(s, i, p), p < 4, shop(s), i > 0 }}.\n"
    ));
    assert_eq!(rows(&p, "stats"), ["stats(17, 2, 2, 2)"]);
}

/// A variable bound outside still groups every aggregate that uses it; the locals
/// next to it stay local.
#[test]
fn shared_and_local_together() {
    let p = program(&format!(
        "{SALES}.decl per(s: symbol, i: number, n: number, top: number)\n\
         per(s, i, n, top) :- sale(s, i, _), n = count : {{ sale(s, x, _), x >= i }}, top = max x : {{ sale(s, x, _) }}.\n"
    ));
    assert_eq!(
        rows(&p, "per"),
        [
            "per(a, 1, 2, 2)",
            "per(a, 2, 1, 2)",
            "per(b, 1, 2, 2)",
            "per(b, 2, 1, 2)"
        ]
    );
}
