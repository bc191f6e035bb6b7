//! Soufflé's order on symbols: `<`, `<=`, `>` and `>=` compare symbols by their text
//! (byte-wise), whether a symbol comes from the program text or from facts interned
//! after the program was checked. Checked against the reference evaluator (1 and 2
//! workers) and against the rows Soufflé gives.

use std::sync::Arc;

use sudolog::check::check_str;
use sudolog::check::ir::{Program, RelId, Value};

use super::common::engine as eng;

fn program(text: &str) -> Arc<Program> {
    Arc::new(check_str("t.dl", text).unwrap_or_else(|d| panic!("{d}")))
}

/// The rows of `name` as text, after checking the engine against the reference.
fn rows(p: &Arc<Program>, inputs: &[(RelId, Vec<Value>)], name: &str) -> Vec<String> {
    let expected = eng::run_naive(p, inputs, false);
    for workers in [1, 2] {
        let actual = eng::run_fresh(p, inputs, workers, false);
        if let Some(d) = eng::diff(p, &expected, &actual) {
            panic!("{workers} worker(s) differ from the reference:\n{d}");
        }
    }
    let rel = p.relation(name).expect(name);
    let mut rows: Vec<String> = expected.contents[rel]
        .keys()
        .map(|t: &Vec<Value>| eng::fact(p, rel, t))
        .collect();
    rows.sort();
    rows
}

const NAMES: &str = "\
.decl name(s: symbol)
.decl before(a: symbol, b: symbol)
.decl upto(a: symbol, b: symbol)
.decl after_b(a: symbol)
before(a, b) :- name(a), name(b), a < b.
upto(a, b) :- name(a), name(b), b >= a.
after_b(a) :- name(a), a > \"b\", \"b\" <= a, a != \"b\".
";

#[test]
fn symbols_of_the_program_compare_by_text() {
    // Interned in the order zebra, apple, b, Cherry, banana: not the text's order.
    let p = program(&format!(
        "{NAMES}name(\"zebra\"). name(\"apple\"). name(\"b\"). name(\"Cherry\"). name(\"banana\").\n"
    ));
    assert_eq!(
        rows(&p, &[], "before"),
        [
            "before(Cherry, apple)",
            "before(Cherry, b)",
            "before(Cherry, banana)",
            "before(Cherry, zebra)",
            "before(apple, b)",
            "before(apple, banana)",
            "before(apple, zebra)",
            "before(b, banana)",
            "before(b, zebra)",
            "before(banana, zebra)",
        ]
    );
    assert_eq!(rows(&p, &[], "upto").len(), 10 + 5);
    assert_eq!(
        rows(&p, &[], "after_b"),
        ["after_b(banana)", "after_b(zebra)"]
    );
}

#[test]
fn symbols_interned_after_checking_compare_by_text() {
    let p = program(NAMES);
    let name = p.relation("name").unwrap();
    // The program's table is shared with the sessions that run it: facts interned now
    // (as `run` interns .facts files) are ordered by their text in the workers.
    let mut symbols = p.symbols.clone();
    let inputs: Vec<(RelId, Vec<Value>)> = ["pear", "b", "Apple", "ba", "a"]
        .iter()
        .map(|s| (name, vec![symbols.intern(s)]))
        .collect();
    assert_eq!(
        rows(&p, &inputs, "before"),
        [
            "before(Apple, a)",
            "before(Apple, b)",
            "before(Apple, ba)",
            "before(Apple, pear)",
            "before(a, b)",
            "before(a, ba)",
            "before(a, pear)",
            "before(b, ba)",
            "before(b, pear)",
            "before(ba, pear)",
        ]
    );
    assert_eq!(
        rows(&p, &inputs, "after_b"),
        ["after_b(ba)", "after_b(pear)"]
    );
}
