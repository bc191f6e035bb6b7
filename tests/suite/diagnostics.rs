//! The exact text of every kind of diagnostic the front end reports: message,
//! `file:line:col`, the source line and the caret line (and notes). Programs go through
//! `sudolog::check::check_str` (parse + check); facts files through
//! `sudolog::facts::parse_facts`.

use sudolog::check::check_str;
use sudolog::check::ir::{Program, Type};
use sudolog::facts::parse_facts;

/// The rendered diagnostics of a program that must be rejected.
fn errors(text: &str) -> String {
    match check_str("prog.dl", text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(d) => d.to_string(),
    }
}

/// Lines joined with `\n`, each terminated.
fn lines(ls: &[&str]) -> String {
    ls.iter().map(|l| format!("{l}\n")).collect()
}

// ---------------------------------------------------------------------------------------
// Syntax errors (the parser's own unit tests cover many more; these go through `check_str`).

/// A rule without its final `.`: reported at the next token.
#[test]
fn syntax_missing_dot() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".decl h(x: number)\n",
            "h(x) :- a(x)\n",
            "h(1).\n",
        )),
        lines(&[
            "prog.dl:4:1: error: expected '.' at the end of a rule, found identifier 'h'",
            "4 | h(1).",
            "  | ^",
        ])
    );
}

#[test]
fn syntax_unterminated_string() {
    assert_eq!(
        errors(concat!(".decl a(x: symbol)\n", "a(\"abc).\n")),
        lines(&[
            "prog.dl:2:3: error: unterminated string",
            "2 | a(\"abc).",
            "  |   ^^^^^^",
        ])
    );
}

#[test]
fn syntax_two_heads() {
    assert_eq!(
        errors(concat!(".decl a(x: number)\n", "a(x), a(y) :- a(x).\n")),
        lines(&[
            "prog.dl:2:5: error: expected ':-' or '.' after the head, found ','",
            "2 | a(x), a(y) :- a(x).",
            "  |     ^",
        ])
    );
}

#[test]
fn syntax_unknown_directive() {
    assert_eq!(
        errors(concat!(".decl a(x: number)\n", ".printsize a\n")),
        lines(&[
            "prog.dl:2:1: error: unknown directive '.printsize'",
            "2 | .printsize a",
            "  | ^^^^^^^^^^",
        ])
    );
}

/// The parser recovers at the next item and reports both errors.
#[test]
fn syntax_errors_in_two_items() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number\n",
            ".decl b(x: number)\n",
            "b(x) :- a(x) a(x).\n",
        )),
        lines(&[
            "prog.dl:2:1: error: expected ',' or ')' in the parameter list, found '.decl'",
            "2 | .decl b(x: number)",
            "  | ^^^^^",
            "prog.dl:3:14: error: expected '.' at the end of a rule, found identifier 'a'",
            "3 | b(x) :- a(x) a(x).",
            "  |              ^",
        ])
    );
}

// ---------------------------------------------------------------------------------------
// Names.

#[test]
fn undeclared_relation_in_body() {
    assert_eq!(
        errors(concat!(".decl h(x: number)\n", "h(x) :- edge(x, _).\n")),
        lines(&[
            "prog.dl:2:9: error: relation 'edge' is not declared",
            "2 | h(x) :- edge(x, _).",
            "  |         ^^^^",
        ])
    );
}

#[test]
fn undeclared_relation_in_head() {
    assert_eq!(
        errors(concat!(".decl a(x: number)\n", "h(x) :- a(x).\n")),
        lines(&[
            "prog.dl:2:1: error: relation 'h' is not declared",
            "2 | h(x) :- a(x).",
            "  | ^",
        ])
    );
}

#[test]
fn undeclared_relation_in_negation() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".decl h(x: number)\n",
            "h(x) :- a(x), !gone(x).\n",
        )),
        lines(&[
            "prog.dl:3:16: error: relation 'gone' is not declared",
            "3 | h(x) :- a(x), !gone(x).",
            "  |                ^^^^",
        ])
    );
}

#[test]
fn undeclared_relation_in_directive() {
    assert_eq!(
        errors(concat!(".decl a(x: number)\n", ".output b\n")),
        lines(&[
            "prog.dl:2:9: error: relation 'b' is not declared",
            "2 | .output b",
            "  |         ^",
        ])
    );
}

/// The error points at the second declaration, the note at the first.
#[test]
fn redeclared_relation() {
    assert_eq!(
        errors(concat!(
            ".decl edge(x: number, y: number)\n",
            ".decl node(x: number)\n",
            ".decl edge(a: number)\n",
        )),
        lines(&[
            "prog.dl:3:7: error: relation 'edge' is declared twice",
            "3 | .decl edge(a: number)",
            "  |       ^^^^",
            "prog.dl:1:7: note: first declared here",
            "1 | .decl edge(x: number, y: number)",
            "  |       ^^^^",
        ])
    );
}

// ---------------------------------------------------------------------------------------
// Arities.

#[test]
fn arity_mismatch_in_body() {
    assert_eq!(
        errors(concat!(
            ".decl edge(x: number, y: number)\n",
            ".decl h(x: number)\n",
            "h(x) :- edge(x, y, 3).\n",
        )),
        lines(&[
            "prog.dl:3:9: error: relation 'edge' has 2 columns but is used with 3 arguments",
            "3 | h(x) :- edge(x, y, 3).",
            "  |         ^^^^^^^^^^^^^",
        ])
    );
}

#[test]
fn arity_mismatch_in_head() {
    assert_eq!(
        errors(concat!(
            ".decl edge(x: number, y: number)\n",
            ".decl h(x: number)\n",
            "h(x, y) :- edge(x, y).\n",
        )),
        lines(&[
            "prog.dl:3:1: error: relation 'h' has 1 column but is used with 2 arguments",
            "3 | h(x, y) :- edge(x, y).",
            "  | ^^^^^^^",
        ])
    );
}

// ---------------------------------------------------------------------------------------
// Types.

#[test]
fn type_mismatch_column_in_rule() {
    assert_eq!(
        errors(concat!(
            ".decl p(name: symbol, age: number)\n",
            ".decl h(x: symbol)\n",
            "h(x) :- p(x, \"old\").\n",
        )),
        lines(&[
            "prog.dl:3:14: error: type mismatch: column 'age' of 'p' is a number, found a symbol",
            "3 | h(x) :- p(x, \"old\").",
            "  |              ^^^^^",
        ])
    );
}

#[test]
fn type_mismatch_column_in_fact() {
    assert_eq!(
        errors(concat!(
            ".decl p(name: symbol, age: number)\n",
            "p(\"ann\", \"old\").\n",
        )),
        lines(&[
            "prog.dl:2:10: error: type mismatch: column 'age' of 'p' is a number, found a symbol",
            "2 | p(\"ann\", \"old\").",
            "  |          ^^^^^",
        ])
    );
}

/// The body makes `x` a symbol; the head's column is a number.
#[test]
fn type_mismatch_variable_in_head() {
    assert_eq!(
        errors(concat!(
            ".decl p(name: symbol, age: number)\n",
            ".decl h(x: number)\n",
            "h(x) :- p(x, _).\n",
        )),
        lines(&[
            "prog.dl:3:3: error: type mismatch: variable 'x' is a number here but a symbol elsewhere in the rule",
            "3 | h(x) :- p(x, _).",
            "  |   ^",
        ])
    );
}

#[test]
fn type_mismatch_variable_in_body() {
    assert_eq!(
        errors(concat!(
            ".decl p(name: symbol, age: number)\n",
            ".decl h(x: symbol)\n",
            "h(x) :- p(x, a), p(a, _).\n",
        )),
        lines(&[
            "prog.dl:3:20: error: type mismatch: variable 'a' is a symbol here but a number elsewhere in the rule",
            "3 | h(x) :- p(x, a), p(a, _).",
            "  |                    ^",
        ])
    );
}

#[test]
fn type_mismatch_comparison() {
    assert_eq!(
        errors(concat!(
            ".decl p(name: symbol, age: number)\n",
            ".decl h(x: symbol)\n",
            "h(x) :- p(x, a), x < a.\n",
        )),
        lines(&[
            "prog.dl:3:18: error: type mismatch: comparing a symbol with a number",
            "3 | h(x) :- p(x, a), x < a.",
            "  |                  ^^^^^",
        ])
    );
}

#[test]
fn arithmetic_on_a_symbol() {
    assert_eq!(
        errors(concat!(
            ".decl p(name: symbol, age: number)\n",
            ".decl h(x: number)\n",
            "h(z) :- p(x, _), z = x + 1.\n",
        )),
        lines(&[
            "prog.dl:3:22: error: arithmetic on a symbol",
            "3 | h(z) :- p(x, _), z = x + 1.",
            "  |                      ^^^^^",
        ])
    );
}

#[test]
fn unknown_type() {
    assert_eq!(
        errors(".decl a(x: colour)\n"),
        lines(&[
            "prog.dl:1:12: error: unknown type 'colour'",
            "1 | .decl a(x: colour)",
            "  |            ^^^^^^",
        ])
    );
}

// ---------------------------------------------------------------------------------------
// Groundedness: every variable must be bound by a positive atom, an assignment or an aggregate before it is used.

#[test]
fn ungrounded_variable_in_head() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".decl h(x: number, y: number)\n",
            "h(x, y) :- a(x).\n",
        )),
        lines(&[
            "prog.dl:3:6: error: ungrounded variable 'y' in the head",
            "3 | h(x, y) :- a(x).",
            "  |      ^",
        ])
    );
}

#[test]
fn ungrounded_variable_in_negation() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".decl b(x: number, y: number)\n",
            ".decl h(x: number)\n",
            "h(x) :- a(x), !b(x, y).\n",
        )),
        lines(&[
            "prog.dl:4:21: error: ungrounded variable 'y' in a negation",
            "4 | h(x) :- a(x), !b(x, y).",
            "  |                     ^",
        ])
    );
}

#[test]
fn ungrounded_variable_in_comparison() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".decl h(x: number)\n",
            "h(x) :- a(x), y > x.\n",
        )),
        lines(&[
            "prog.dl:3:15: error: ungrounded variable 'y' in a comparison",
            "3 | h(x) :- a(x), y > x.",
            "  |               ^",
        ])
    );
}

#[test]
fn ungrounded_variable_in_arithmetic() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".decl h(x: number)\n",
            "h(x) :- a(x), x = y + 1.\n",
        )),
        lines(&[
            "prog.dl:3:19: error: ungrounded variable 'y' in an arithmetic expression",
            "3 | h(x) :- a(x), x = y + 1.",
            "  |                   ^",
        ])
    );
}

#[test]
fn ungrounded_variable_inside_aggregate() {
    assert_eq!(
        errors(concat!(
            ".decl b(x: number, y: number)\n",
            ".decl h(x: number)\n",
            "h(n) :- n = count : { b(x, _), x < y }.\n",
        )),
        lines(&[
            "prog.dl:3:36: error: ungrounded variable 'y' in a comparison",
            "3 | h(n) :- n = count : { b(x, _), x < y }.",
            "  |                                    ^",
        ])
    );
}

/// `x` is shared with the head, so it groups the count, but nothing outside the aggregate binds it.
#[test]
fn ungrounded_aggregate_group() {
    assert_eq!(
        errors(concat!(
            ".decl b(x: number, y: number)\n",
            ".decl h(x: number, n: number)\n",
            "h(x, n) :- n = count : { b(x, _) }.\n",
        )),
        lines(&[
            "prog.dl:3:28: error: ungrounded variable 'x' in an aggregate",
            "3 | h(x, n) :- n = count : { b(x, _) }.",
            "  |                            ^",
        ])
    );
}

/// A template variable that only an aggregate binds. (The message does not mention the template: see the report.)
#[test]
fn explain_names_an_aggregate_local() {
    assert_eq!(
        errors(concat!(
            ".decl b(x: number, y: number)\n",
            ".decl h(n: number)\n",
            "@explain(\"{n} {y}\")\n",
            "h(n) :- n = count : { b(_, y) }.\n",
        )),
        lines(&[
            "prog.dl:3:1: error: ungrounded variable 'y' in the @explain template",
            "3 | @explain(\"{n} {y}\")",
            "  | ^^^^^^^^^^^^^^^^^^^",
        ])
    );
}

/// `@hint` is checked like `@explain`: its variables must be bound, and it needs an
/// `@explain` to word vaguely.
#[test]
fn hint_templates_are_checked() {
    assert_eq!(
        errors(concat!(
            ".decl b(x: number, y: number)\n",
            ".decl h(x: number)\n",
            "@explain(\"{x}\") @hint(\"in {z}\")\n",
            "h(x) :- b(x, _).\n",
        )),
        lines(&[
            "prog.dl:3:17: error: unknown variable 'z' in @hint template",
            "3 | @explain(\"{x}\") @hint(\"in {z}\")",
            "  |                 ^^^^^^^^^^^^^^^",
        ])
    );
    assert_eq!(
        errors(concat!(
            ".decl b(x: number, y: number)\n",
            ".decl h(x: number)\n",
            "@hint(\"in {y}\")\n",
            "h(x) :- b(x, y).\n",
        )),
        lines(&[
            "prog.dl:3:1: error: @hint words an explained deduction vaguely; add an @explain",
            "3 | @hint(\"in {y}\")",
            "  | ^^^^^^^^^^^^^^^",
        ])
    );
}

// ---------------------------------------------------------------------------------------
// Stratification.

/// The rule with the negation is reported; the message names every relation of the cycle.
#[test]
fn unstratifiable_negation() {
    assert_eq!(
        errors(concat!(
            ".decl e(x: number)\n",
            ".decl p(x: number)\n",
            ".decl q(x: number)\n",
            "p(x) :- e(x), !q(x).\n",
            "q(x) :- e(x), !p(x).\n",
        )),
        lines(&[
            "prog.dl:4:1: error: unstratifiable program: negation of 'q' inside a recursive cycle through 'p', 'q'",
            "4 | p(x) :- e(x), !q(x).",
            "  | ^^^^^^^^^^^^^^^^^^^^",
            "prog.dl:3:7: note: 'q' is declared here; relations declared in a .fixpoint block may negate and aggregate over one another",
            "3 | .decl q(x: number)",
            "  |       ^",
        ])
    );
}

#[test]
fn unstratifiable_self_negation() {
    assert_eq!(
        errors(concat!(
            ".decl e(x: number)\n",
            ".decl p(x: number)\n",
            "p(x) :- e(x), !p(x).\n",
        )),
        lines(&[
            "prog.dl:3:1: error: unstratifiable program: negation of 'p' inside a recursive cycle through 'p'",
            "3 | p(x) :- e(x), !p(x).",
            "  | ^^^^^^^^^^^^^^^^^^^^",
            "prog.dl:2:7: note: 'p' is declared here; relations declared in a .fixpoint block may negate and aggregate over one another",
            "2 | .decl p(x: number)",
            "  |       ^",
        ])
    );
}

#[test]
fn unstratifiable_aggregate() {
    assert_eq!(
        errors(concat!(
            ".decl e(x: number, y: number)\n",
            ".decl d(x: number, n: number)\n",
            "d(x, 0) :- e(x, _).\n",
            "d(y, m) :- e(x, y), m = max n : { d(x, n) }.\n",
        )),
        lines(&[
            "prog.dl:4:1: error: unstratifiable program: aggregate of 'd' inside a recursive cycle through 'd'",
            "4 | d(y, m) :- e(x, y), m = max n : { d(x, n) }.",
            "  | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
            "prog.dl:2:7: note: 'd' is declared here; relations declared in a .fixpoint block may negate and aggregate over one another",
            "2 | .decl d(x: number, n: number)",
            "  |       ^",
        ])
    );
}

#[test]
fn unstratifiable_cycle_of_three() {
    assert_eq!(
        errors(concat!(
            ".decl e(x: number)\n",
            ".decl a(x: number)\n",
            ".decl b(x: number)\n",
            ".decl c(x: number)\n",
            "a(x) :- e(x), c(x).\n",
            "b(x) :- a(x).\n",
            "c(x) :- e(x), !b(x).\n",
        )),
        lines(&[
            "prog.dl:7:1: error: unstratifiable program: negation of 'b' inside a recursive cycle through 'a', 'b', 'c'",
            "7 | c(x) :- e(x), !b(x).",
            "  | ^^^^^^^^^^^^^^^^^^^^",
            "prog.dl:3:7: note: 'b' is declared here; relations declared in a .fixpoint block may negate and aggregate over one another",
            "3 | .decl b(x: number)",
            "  |       ^",
        ])
    );
}

// ---------------------------------------------------------------------------------------
// Fixpoint blocks, views and tiers.

#[test]
fn view_outside_a_block() {
    assert_eq!(
        errors(concat!(".decl a(x: number)\n", ".view v(x: number)\n")),
        lines(&[
            "prog.dl:2:1: error: .view is only allowed inside a .fixpoint block",
            "2 | .view v(x: number)",
            "  | ^^^^^^^^^^^^^^^^^^",
        ])
    );
}

#[test]
fn tier_outside_a_block() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".decl h(x: number)\n",
            "@tier(1)\n",
            "h(x) :- a(x).\n",
        )),
        lines(&[
            "prog.dl:3:1: error: @tier is only allowed on rules inside a .fixpoint block",
            "3 | @tier(1)",
            "  | ^^^^^^^^",
        ])
    );
}

#[test]
fn tier_on_a_view() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".fixpoint {\n",
            "  .decl s(x: number)\n",
            "  .view v(x: number)\n",
            "  @tier(1)\n",
            "  v(x) :- a(x).\n",
            "  s(x) :- v(x).\n",
            "}\n",
        )),
        lines(&[
            "prog.dl:5:3: error: @tier applies to accumulating relations; 'v' is a view",
            "5 |   @tier(1)",
            "  |   ^^^^^^^^",
        ])
    );
}

/// `@ungated` belongs on an accumulating rule of a block with no tier and no
/// explanation; each misuse is a located error.
#[test]
fn ungated_misuses() {
    let block = |rule: &str| {
        format!(
            ".decl a(x: number)\n.fixpoint {{\n  .decl s(x: number)\n  .view v(x: number)\n  v(x) :- a(x).\n{rule}}}\n"
        )
    };
    let cases: [(String, &str); 4] = [
        (
            ".decl a(x: number)\n.decl h(x: number)\n@ungated h(x) :- a(x).\n".to_string(),
            "prog.dl:3:1: error: @ungated is only allowed on rules inside a .fixpoint block",
        ),
        (
            block("  @ungated v(x) :- s(x).\n"),
            "prog.dl:6:3: error: @ungated applies to accumulating relations; 'v' is a view",
        ),
        (
            block("  @tier(1) @ungated s(x) :- v(x).\n"),
            "prog.dl:6:12: error: an @ungated rule has no tier: it holds back none and none holds it back",
        ),
        (
            block("  @ungated @explain(\"x {x}\") s(x) :- v(x).\n"),
            "prog.dl:6:3: error: @ungated derivations are bookkeeping and are not explained; drop @explain or @ungated",
        ),
    ];
    for (text, first) in cases {
        let out = errors(&text);
        assert_eq!(out.lines().next(), Some(first), "{text}\n{out}");
    }
}

#[test]
fn block_relation_rule_outside_the_block() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".fixpoint {\n",
            "  .decl s(x: number)\n",
            "}\n",
            "s(x) :- a(x).\n",
        )),
        lines(&[
            "prog.dl:5:1: error: clauses for 's' must be written inside its .fixpoint block",
            "5 | s(x) :- a(x).",
            "  | ^^^^",
        ])
    );
}

#[test]
fn block_relation_fact_outside_the_block() {
    assert_eq!(
        errors(concat!(
            ".fixpoint {\n",
            "  .decl s(x: number)\n",
            "}\n",
            "s(1).\n",
        )),
        lines(&[
            "prog.dl:4:1: error: clauses for 's' must be written inside its .fixpoint block",
            "4 | s(1).",
            "  | ^^^^",
        ])
    );
}

#[test]
fn outside_relation_rule_inside_a_block() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".decl h(x: number)\n",
            ".fixpoint {\n",
            "  .decl s(x: number)\n",
            "  h(x) :- a(x).\n",
            "}\n",
        )),
        lines(&[
            "prog.dl:5:3: error: 'h' is not declared in this .fixpoint block; clauses inside a block must define its relations",
            "5 |   h(x) :- a(x).",
            "  |   ^^^^",
        ])
    );
}

#[test]
fn relation_both_reads_and_feeds_a_block() {
    assert_eq!(
        errors(concat!(
            ".decl h(x: number)\n",
            ".fixpoint {\n",
            "  .decl s(x: number)\n",
            "  s(x) :- h(x).\n",
            "}\n",
            "h(x) :- s(x).\n",
        )),
        lines(&[
            "prog.dl:6:1: error: 'h' both reads from and feeds the .fixpoint block of s; declare it inside the block",
            "6 | h(x) :- s(x).",
            "  | ^^^^^^^^^^^^^",
        ])
    );
}

#[test]
fn recursive_views() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".fixpoint {\n",
            "  .decl s(x: number)\n",
            "  .view v(x: number)\n",
            "  .view w(x: number)\n",
            "  v(x) :- w(x).\n",
            "  w(x) :- v(x).\n",
            "  s(x) :- a(x).\n",
            "}\n",
        )),
        lines(&[
            "prog.dl:6:3: error: views of a .fixpoint block cannot be recursive: 'v', 'w'; declare recursive relations with .decl",
            "6 |   v(x) :- w(x).",
            "  |   ^^^^^^^^^^^^^",
        ])
    );
}

#[test]
fn block_key_beyond_columns() {
    assert_eq!(
        errors(concat!(
            ".fixpoint key 2 {\n",
            "  .decl s(x: number, y: number)\n",
            "}\n",
        )),
        lines(&[
            "prog.dl:1:15: error: key column 2 is beyond the columns of s",
            "1 | .fixpoint key 2 {",
            "  |               ^",
        ])
    );
}

#[test]
fn view_as_input() {
    assert_eq!(
        errors(concat!(
            ".fixpoint {\n",
            "  .decl s(x: number)\n",
            "  .view v(x: number)\n",
            "}\n",
            ".input v\n",
        )),
        lines(&[
            "prog.dl:5:8: error: view 'v' cannot be an input",
            "5 | .input v",
            "  |        ^",
        ])
    );
}

// ---------------------------------------------------------------------------------------
// `@explain` templates.

#[test]
fn explain_unknown_variable() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".decl h(x: number)\n",
            "@explain(\"{x} from {why}\")\n",
            "h(x) :- a(x).\n",
        )),
        lines(&[
            "prog.dl:3:1: error: unknown variable 'why' in @explain template",
            "3 | @explain(\"{x} from {why}\")",
            "  | ^^^^^^^^^^^^^^^^^^^^^^^^^^",
        ])
    );
}

#[test]
fn explain_unclosed_brace() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".decl h(x: number)\n",
            "@explain(\"{x\")\n",
            "h(x) :- a(x).\n",
        )),
        lines(&[
            "prog.dl:3:1: error: unclosed '{' in @explain template",
            "3 | @explain(\"{x\")",
            "  | ^^^^^^^^^^^^^^",
        ])
    );
}

#[test]
fn explain_on_a_view() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".fixpoint {\n",
            "  .decl s(x: number)\n",
            "  .view v(x: number)\n",
            "  @explain(\"{x}\")\n",
            "  v(x) :- a(x).\n",
            "  s(x) :- v(x).\n",
            "}\n",
        )),
        lines(&[
            "prog.dl:5:3: error: @explain applies to derivations that accumulate; views are recomputed each round",
            "5 |   @explain(\"{x}\")",
            "  |   ^^^^^^^^^^^^^^^",
        ])
    );
}

// ---------------------------------------------------------------------------------------
// Other checks.

#[test]
fn wildcard_in_head() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".decl h(x: number)\n",
            "h(_) :- a(_).\n",
        )),
        lines(&[
            "prog.dl:3:3: error: '_' is not allowed in a rule head",
            "3 | h(_) :- a(_).",
            "  |   ^",
        ])
    );
}

#[test]
fn variable_in_a_fact() {
    assert_eq!(
        errors(concat!(".decl a(x: number)\n", "a(x).\n")),
        lines(&[
            "prog.dl:2:3: error: a fact's arguments must be constants",
            "2 | a(x).",
            "  |   ^",
        ])
    );
}

/// Independent errors are all reported, in source order.
#[test]
fn several_errors_in_order() {
    assert_eq!(
        errors(concat!(
            ".decl a(x: number)\n",
            ".decl h(x: number)\n",
            "h(x) :- b(x).\n",
            "h(y) :- a(x).\n",
        )),
        lines(&[
            "prog.dl:3:9: error: relation 'b' is not declared",
            "3 | h(x) :- b(x).",
            "  |         ^",
            "prog.dl:4:3: error: ungrounded variable 'y' in the head",
            "4 | h(y) :- a(x).",
            "  |   ^",
        ])
    );
}
// ---------------------------------------------------------------------------------------
// Facts files: `file:line: message`, lines counted from 1 including blank ones.

fn facts_program() -> Program {
    check_str(
        "facts.dl",
        ".decl edge(x: number, y: number)\n.decl one(x: number)\n.decl person(name: symbol, age: number)\n",
    )
    .unwrap()
}

fn parse(rel: &str, text: &str) -> Result<Vec<Vec<i32>>, String> {
    let p = facts_program();
    let mut symbols = p.symbols.clone();
    let file = format!("data/{rel}.facts");
    parse_facts(&p, p.relation(rel).unwrap(), &file, text, &mut symbols)
}

#[test]
fn facts_too_many_columns() {
    assert_eq!(
        parse("edge", "1\t2\n3\t4\t5\n"),
        Err("data/edge.facts:2:5: expected 2 tab-separated columns for 'edge', found 3".into())
    );
}

#[test]
fn facts_too_few_columns_singular() {
    assert_eq!(
        parse("one", "1\n\n2\t3\n"),
        Err("data/one.facts:3:3: expected 1 tab-separated column for 'one', found 2".into())
    );
}

/// Spaces do not separate columns.
#[test]
fn facts_spaces_instead_of_tabs() {
    assert_eq!(
        parse("edge", "1 2\n"),
        Err("data/edge.facts:1:4: expected 2 tab-separated columns for 'edge', found 1".into())
    );
}

#[test]
fn facts_not_a_number() {
    assert_eq!(
        parse("edge", "1\t2\n\n3\tx\n"),
        Err(
            "data/edge.facts:3:3: column 2 ('y') of 'edge' must be a 32-bit number, found 'x'"
                .into()
        )
    );
    assert_eq!(
        parse("person", "ann\tforty\n"),
        Err(
            "data/person.facts:1:5: column 2 ('age') of 'person' must be a 32-bit number, found 'forty'"
                .into()
        )
    );
}

#[test]
fn facts_number_out_of_range() {
    assert_eq!(
        parse("one", "2147483647\n-2147483648\n2147483648\n"),
        Err(
            "data/one.facts:3:1: column 1 ('x') of 'one' must be a 32-bit number, found '2147483648'"
                .into()
        )
    );
}

/// What is accepted: blank lines, CRLF line ends, any text in a symbol column
/// (including spaces), padded numbers.
#[test]
fn facts_accepted() {
    let p = facts_program();
    let mut symbols = p.symbols.clone();
    let rows = parse_facts(
        &p,
        p.relation("person").unwrap(),
        "person.facts",
        "ann lee\t41\r\n\n bob\t 7 \r\n",
        &mut symbols,
    )
    .unwrap();
    let (ann, bob) = (
        symbols.lookup("ann lee").unwrap(),
        symbols.lookup(" bob").unwrap(),
    );
    assert_eq!(rows, vec![vec![ann, 41], vec![bob, 7]]);
    assert_eq!(
        p.relations[p.relation("person").unwrap()].columns[0].1,
        Type::Symbol
    );
}

// ---------------------------------------------------------------------------------------
// Inputs that crashed or hung the front end (issue 12).

/// An aggregate's target that its body does not bind: a located error, not a panic in
/// the planner.
#[test]
fn ungrounded_aggregate_target() {
    assert_eq!(
        errors(concat!(
            ".decl e(z: number)\n",
            ".decl r(m: number)\n",
            "r(m) :- m = max x : { e(z) }.\n",
        )),
        lines(&[
            "prog.dl:3:17: error: ungrounded variable 'x' in an aggregate's target",
            "3 | r(m) :- m = max x : { e(z) }.",
            "  |                 ^",
        ])
    );
}

/// A flat sum of 50,000 terms is refused with a clear error instead of overflowing the
/// stack in a later stage; 4,096 operators still check.
#[test]
fn flat_sum_bounded() {
    let sum = |n: usize| {
        format!(
            ".decl r(x: number)\nr(x) :- x = {}.\n",
            vec!["1"; n].join(" + ")
        )
    };
    let e = errors(&sum(50_000));
    let first = e.lines().next().unwrap();
    assert_eq!(
        first,
        "prog.dl:2:16399: error: clause too long: more than 4096 arithmetic operators"
    );
    let p = check_str("prog.dl", &sum(4097)).unwrap_or_else(|d| panic!("{d}"));
    let plan = sudolog::plan::plan(&p, false);
    assert!(plan.is_ok());
}

/// `#include` reads regular files only: a device never ends.
#[test]
fn include_takes_regular_files() {
    for (path, why) in [
        ("/dev/urandom", "not a regular file"),
        ("/dev/zero", "not a regular file"),
        ("/", "a directory"),
    ] {
        let text = format!("#include \"{path}\"\n");
        let expected = [
            format!(
                "prog.dl:1:10: error: cannot include \"{path}\": {why}; programs are read from regular files"
            ),
            format!("1 | #include \"{path}\""),
            format!("  |          {}", "^".repeat(path.len() + 2)),
        ];
        let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
        assert_eq!(errors(&text), lines(&expected));
    }
}

/// The stages' errors are types (one enum per stage) whose text is exactly the
/// diagnostics rendered one by one.
#[test]
fn errors_are_typed() {
    use sudolog::check::CheckError;
    let cases = [
        ("h(x) :- a(x)\n", "syntax"),
        (".decl h(x: number)\nh(x) :- a(x).\n", "invalid"),
        (
            ".decl a(x: number)\n.decl b(x: number)\na(x) :- b(x).\nb(x) :- a(x), !a(x).\n",
            "unstratifiable",
        ),
    ];
    for (text, kind) in cases {
        let e = check_str("prog.dl", text).unwrap_err();
        let got = match &e {
            CheckError::Syntax(_) => "syntax",
            CheckError::Invalid(_) => "invalid",
            CheckError::Unstratifiable(_) => "unstratifiable",
        };
        assert_eq!(got, kind, "{e}");
        let d = e.diagnostics();
        let rendered: String = d.list.iter().map(|x| x.render(&d.sources)).collect();
        assert_eq!(e.to_string(), rendered);
        assert!(rendered.starts_with("prog.dl:"), "{rendered}");
        assert!(rendered.contains('^'), "{rendered}");
    }
    let e = sudolog::syntax::parse_str("p.dl", "h(.").unwrap_err();
    assert!(e.to_string().starts_with("p.dl:1:3: error: "), "{e}");
}
