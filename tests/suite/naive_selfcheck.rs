//! Checks the reference evaluator (`tests/suite/common/naive.rs`) on small programs written
//! directly as checked IR, with results worked out by hand. Also checks that the
//! generators are deterministic and produce sane update sequences.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::gen;
use crate::common::naive::{evaluate, Naive};
use sudolog::check::ir::*;
use sudolog::diag::{SourceMap, Span};

// ---------------------------------------------------------------------------------------
// Builders.

fn relation(name: &str, arity: usize, kind: RelKind, block: Option<BlockId>) -> Relation {
    Relation {
        name: name.to_string(),
        columns: (0..arity)
            .map(|i| (format!("c{i}"), Type::Number))
            .collect(),
        kind,
        block,
        input: false,
        output: true,
        enters_at_round: false,
        span: Span::default(),
    }
}

fn plain(name: &str, arity: usize) -> Relation {
    relation(name, arity, RelKind::Plain, None)
}

/// A rule whose variables are named by `vars` (VarId = position).
fn rule(head: RelId, head_args: Vec<Term>, body: Vec<Literal>, vars: &[&str]) -> Rule {
    Rule {
        head,
        head_args,
        body,
        vars: vars.iter().map(|v| (v.to_string(), Type::Number)).collect(),
        label: format!("rule{head}"),
        explain: None,
        hint: None,
        tier: 0,
        ungated: false,
        block: None,
        span: Span::default(),
    }
}

/// Sets the `@explain` template: `{name}` refers to a variable of the rule.
fn explain(mut r: Rule, template: &str) -> Rule {
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            pieces.push(Piece::Text(rest[..open].to_string()));
        }
        let close = rest[open..].find('}').unwrap() + open;
        let name = &rest[open + 1..close];
        let var = r.vars.iter().position(|(v, _)| v == name).unwrap();
        pieces.push(Piece::Var { var, format: None });
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_string()));
    }
    r.explain = Some(pieces);
    r
}

fn tier(mut r: Rule, t: u32, block: BlockId) -> Rule {
    r.tier = t;
    r.block = Some(block);
    r
}

fn v(i: VarId) -> Term {
    Term::Var(i)
}
fn c(x: Value) -> Term {
    Term::Const(x)
}
fn atom(rel: RelId, args: Vec<Term>) -> Literal {
    Literal::Atom { rel, args }
}
fn neg(rel: RelId, args: Vec<Term>) -> Literal {
    Literal::Neg { rel, args }
}
fn cmp(lhs: Expr, op: CmpOp, rhs: Expr) -> Literal {
    Literal::Cmp {
        lhs,
        op,
        rhs,
        text: false,
    }
}
fn ev(i: VarId) -> Expr {
    Expr::Var(i)
}
fn ec(x: Value) -> Expr {
    Expr::Const(x)
}
fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}
fn agg(
    result: VarId,
    func: AggFunc,
    target: Option<Expr>,
    body: Vec<Literal>,
    group: Vec<VarId>,
) -> Literal {
    Literal::Agg {
        result,
        func,
        target,
        body,
        group,
    }
}

fn program(
    relations: Vec<Relation>,
    facts: Vec<(RelId, Vec<Value>)>,
    rules: Vec<Rule>,
    blocks: Vec<Block>,
    strata: Vec<Stratum>,
) -> Program {
    Program {
        sources: SourceMap::new(),
        relations,
        facts,
        rules,
        blocks,
        strata,
        symbols: Symbols::default(),
    }
}

fn set(tuples: &[&[Value]]) -> BTreeSet<Vec<Value>> {
    tuples.iter().map(|t| t.to_vec()).collect()
}

fn rounds(entries: &[(&[Value], u32)]) -> BTreeMap<Vec<Value>, u32> {
    entries.iter().map(|(t, r)| (t.to_vec(), *r)).collect()
}

fn events(
    entries: &[(usize, u32, &[Value], &[Value])],
) -> BTreeSet<(usize, u32, Vec<Value>, Vec<Value>)> {
    entries
        .iter()
        .map(|(r, i, h, b)| (*r, *i, h.to_vec(), b.to_vec()))
        .collect()
}

fn inputs(entries: &[(RelId, &[Value])]) -> Vec<(RelId, Vec<Value>)> {
    entries.iter().map(|(r, t)| (*r, t.to_vec())).collect()
}

fn show(p: &Program, n: &Naive) -> String {
    crate::common::render(p, n)
}

// ---------------------------------------------------------------------------------------
// Programs.

/// e (input), q (flat, explained, with program facts), path (recursive component).
#[test]
fn recursion_rounds_and_events() {
    const E: RelId = 0;
    const Q: RelId = 1;
    const PATH: RelId = 2;
    let rules = vec![
        // 0: path(x, y) :- x = 1, e(x, y).   @explain("first {y}")
        explain(
            rule(
                PATH,
                vec![v(0), v(1)],
                vec![cmp(ev(0), CmpOp::Eq, ec(1)), atom(E, vec![v(0), v(1)])],
                &["x", "y"],
            ),
            "first {y}",
        ),
        // 1: path(x, y) :- e(x, y).   @explain("{x}->{y}")
        explain(
            rule(
                PATH,
                vec![v(0), v(1)],
                vec![atom(E, vec![v(0), v(1)])],
                &["x", "y"],
            ),
            "{x}->{y}",
        ),
        // 2: path(x, z) :- path(x, y), e(y, z).   @explain("{z} via {y} from {x} {y}")
        explain(
            rule(
                PATH,
                vec![v(0), v(2)],
                vec![atom(PATH, vec![v(0), v(1)]), atom(E, vec![v(1), v(2)])],
                &["x", "y", "z"],
            ),
            "{z} via {y} from {x} {y}",
        ),
        // 3: q(x) :- e(x, _).   @explain("has {x}")
        explain(
            rule(Q, vec![v(0)], vec![atom(E, vec![v(0), Term::Wild])], &["x"]),
            "has {x}",
        ),
    ];
    let mut e = plain("e", 2);
    e.input = true;
    let blocks = vec![Block {
        key: None,
        state: vec![PATH],
        views: vec![],
        explicit: false,
        span: Span::default(),
    }];
    let p = program(
        vec![e, plain("q", 1), plain("path", 2)],
        vec![(Q, vec![1]), (Q, vec![9])],
        rules,
        blocks,
        vec![Stratum::Flat(E), Stratum::Flat(Q), Stratum::Block(0)],
    );
    let n = evaluate(
        &p,
        &inputs(&[
            (E, &[1, 2]),
            (E, &[2, 3]),
            (E, &[3, 4]),
            (E, &[1, 3]),
            (E, &[2, 4]),
        ]),
    );
    let s = show(&p, &n);
    assert_eq!(n.relations[Q], set(&[&[1], &[2], &[3], &[9]]), "{s}");
    assert_eq!(
        n.relations[PATH],
        set(&[&[1, 2], &[2, 3], &[3, 4], &[1, 3], &[2, 4], &[1, 4]]),
        "{s}"
    );
    assert_eq!(
        n.rounds[E],
        rounds(&[
            (&[1, 2], 0),
            (&[2, 3], 0),
            (&[3, 4], 0),
            (&[1, 3], 0),
            (&[2, 4], 0)
        ]),
        "{s}"
    );
    assert_eq!(
        n.rounds[Q],
        rounds(&[(&[1], 0), (&[2], 0), (&[3], 0), (&[9], 0)]),
        "{s}"
    );
    assert_eq!(
        n.rounds[PATH],
        rounds(&[
            (&[1, 2], 1),
            (&[2, 3], 1),
            (&[3, 4], 1),
            (&[1, 3], 1),
            (&[2, 4], 1),
            (&[1, 4], 2)
        ]),
        "{s}"
    );
    let expected = events(&[
        // Flat: one event per derived fact, also for the program fact q(1); none for q(9).
        (3, 0, &[1], &[1]),
        (3, 0, &[2], &[2]),
        (3, 0, &[3], &[3]),
        // Both rule 0 and rule 1 derive path(1, _) in round 0: the smaller rule wins.
        (0, 1, &[1, 2], &[2]),
        (0, 1, &[1, 3], &[3]),
        (1, 1, &[2, 3], &[2, 3]),
        (1, 1, &[3, 4], &[3, 4]),
        (1, 1, &[2, 4], &[2, 4]),
        // path(1, 4) via y = 2 and y = 3: the smaller bindings [z, y, x] win.
        (2, 2, &[1, 4], &[4, 2, 1]),
    ]);
    assert_eq!(n.events, expected, "{s}");
}

/// Aggregates (empty groups, filter form, division by zero in the target), negation with
/// wildcards, arithmetic with division by zero.
#[test]
fn aggregates_negation_arithmetic() {
    const A: RelId = 0;
    const B: RelId = 1;
    const C: RelId = 2;
    const CNT: RelId = 3;
    const SUM: RelId = 4;
    const MIN: RelId = 5;
    const MAX: RelId = 6;
    const F: RelId = 7;
    const D: RelId = 8;
    const G: RelId = 9;
    const H: RelId = 10;
    const LONELY: RelId = 11;
    let group_rule = |head: RelId, func: AggFunc| {
        // head(x, n) :- a(x), n = func y : { b(x, y) }.
        let target = (func != AggFunc::Count).then(|| ev(2));
        rule(
            head,
            vec![v(0), v(1)],
            vec![
                atom(A, vec![v(0)]),
                agg(1, func, target, vec![atom(B, vec![v(0), v(2)])], vec![0]),
            ],
            &["x", "n", "y"],
        )
    };
    let rules = vec![
        group_rule(CNT, AggFunc::Count),
        group_rule(SUM, AggFunc::Sum),
        group_rule(MIN, AggFunc::Min),
        group_rule(MAX, AggFunc::Max),
        // f(x) :- a(x), x = count : { b(_, _) }.   (bound result: a filter; 3 tuples)
        rule(
            F,
            vec![v(0)],
            vec![
                atom(A, vec![v(0)]),
                agg(
                    0,
                    AggFunc::Count,
                    None,
                    vec![atom(B, vec![v(1), v(2)])],
                    vec![],
                ),
            ],
            &["x", "_1", "_2"],
        ),
        // d(x, s) :- a(x), s = sum (10 / y) : { c(x, y) }.   (y = 0 skipped)
        rule(
            D,
            vec![v(0), v(1)],
            vec![
                atom(A, vec![v(0)]),
                agg(
                    1,
                    AggFunc::Sum,
                    Some(bin(BinOp::Div, ec(10), ev(2))),
                    vec![atom(C, vec![v(0), v(2)])],
                    vec![0],
                ),
            ],
            &["x", "s", "y"],
        ),
        // g(z) :- z = (x * 2) % 3, a(x), !a(z).
        rule(
            G,
            vec![v(1)],
            vec![
                cmp(
                    ev(1),
                    CmpOp::Eq,
                    bin(BinOp::Rem, bin(BinOp::Mul, ev(0), ec(2)), ec(3)),
                ),
                atom(A, vec![v(0)]),
                neg(A, vec![v(1)]),
            ],
            &["x", "z"],
        ),
        // h(x, z) :- a(x), b(x, y), y / (x - 1) = z.   (x = 1 divides by zero)
        rule(
            H,
            vec![v(0), v(2)],
            vec![
                atom(A, vec![v(0)]),
                atom(B, vec![v(0), v(1)]),
                cmp(
                    bin(BinOp::Div, ev(1), bin(BinOp::Sub, ev(0), ec(1))),
                    CmpOp::Eq,
                    ev(2),
                ),
            ],
            &["x", "y", "z"],
        ),
        // lonely(x) :- a(x), !b(x, _), !c(_, 7).
        rule(
            LONELY,
            vec![v(0)],
            vec![
                atom(A, vec![v(0)]),
                neg(B, vec![v(0), Term::Wild]),
                neg(C, vec![Term::Wild, c(7)]),
            ],
            &["x"],
        ),
    ];
    let names = [
        "a", "b", "c", "cnt", "sum", "min", "max", "f", "d", "g", "h", "lonely",
    ];
    let arities = [1, 2, 2, 2, 2, 2, 2, 1, 2, 1, 2, 1];
    let relations: Vec<Relation> = names
        .iter()
        .zip(arities)
        .map(|(n, a)| plain(n, a))
        .collect();
    let facts = vec![
        (A, vec![1]),
        (A, vec![2]),
        (A, vec![3]),
        (B, vec![1, 10]),
        (B, vec![1, 20]),
        (B, vec![2, 5]),
        (C, vec![1, 0]),
        (C, vec![1, 2]),
        (C, vec![1, 5]),
        (C, vec![2, 0]),
    ];
    let strata = (0..names.len()).map(Stratum::Flat).collect();
    let p = program(relations, facts, rules, vec![], strata);
    let n = evaluate(&p, &[]);
    let s = show(&p, &n);
    assert_eq!(n.relations[CNT], set(&[&[1, 2], &[2, 1], &[3, 0]]), "{s}");
    assert_eq!(n.relations[SUM], set(&[&[1, 30], &[2, 5], &[3, 0]]), "{s}");
    assert_eq!(n.relations[MIN], set(&[&[1, 10], &[2, 5]]), "{s}");
    assert_eq!(n.relations[MAX], set(&[&[1, 20], &[2, 5]]), "{s}");
    assert_eq!(n.relations[F], set(&[&[3]]), "{s}");
    // x = 2: the only target divides by zero: no value, sum 0.
    assert_eq!(n.relations[D], set(&[&[1, 7], &[2, 0], &[3, 0]]), "{s}");
    assert_eq!(n.relations[G], set(&[&[0]]), "{s}");
    assert_eq!(n.relations[H], set(&[&[2, 5]]), "{s}");
    assert_eq!(n.relations[LONELY], set(&[&[3]]), "{s}");
    assert!(n.events.is_empty());
    assert!(n.rounds.iter().all(|r| r.values().all(|&i| i == 0)));
}

/// dom(k, x), bad(k, x) inputs; a block with state s (eliminated), pick (placed) and the
/// view cand(k, x) :- dom(k, x), !s(k, x).
///   1 @tier(0) pick(k, x) :- cand(k, x), n = count : { cand(k, y) }, n = 1.
///   2 @tier(0) s(k, x) :- bad(k, x).
///   3 @tier(1) s(k, x) :- cand(k, x), cand(k, y), x < y.
fn sudoku_like(key: Option<usize>) -> Program {
    const DOM: RelId = 0;
    const BAD: RelId = 1;
    const S: RelId = 2;
    const PICK: RelId = 3;
    const CAND: RelId = 4;
    let mut dom = plain("dom", 2);
    dom.input = true;
    let mut bad = plain("bad", 2);
    bad.input = true;
    let relations = vec![
        dom,
        bad,
        relation("s", 2, RelKind::Accumulating, Some(0)),
        relation("pick", 2, RelKind::Accumulating, Some(0)),
        relation("cand", 2, RelKind::View, Some(0)),
    ];
    let mut view = rule(
        CAND,
        vec![v(0), v(1)],
        vec![atom(DOM, vec![v(0), v(1)]), neg(S, vec![v(0), v(1)])],
        &["k", "x"],
    );
    view.block = Some(0);
    let rules = vec![
        view,
        tier(
            explain(
                rule(
                    PICK,
                    vec![v(0), v(1)],
                    vec![
                        atom(CAND, vec![v(0), v(1)]),
                        cmp(ev(2), CmpOp::Eq, ec(1)),
                        agg(
                            2,
                            AggFunc::Count,
                            None,
                            vec![atom(CAND, vec![v(0), v(3)])],
                            vec![0],
                        ),
                    ],
                    &["k", "x", "n", "y"],
                ),
                "single {x} at {k}",
            ),
            0,
            0,
        ),
        tier(
            explain(
                rule(
                    S,
                    vec![v(0), v(1)],
                    vec![atom(BAD, vec![v(0), v(1)])],
                    &["k", "x"],
                ),
                "bad {k} {x}",
            ),
            0,
            0,
        ),
        tier(
            explain(
                rule(
                    S,
                    vec![v(0), v(1)],
                    vec![
                        atom(CAND, vec![v(0), v(1)]),
                        atom(CAND, vec![v(0), v(2)]),
                        cmp(ev(1), CmpOp::Lt, ev(2)),
                    ],
                    &["k", "x", "y"],
                ),
                "pair {k} {x} {y}",
            ),
            1,
            0,
        ),
    ];
    let blocks = vec![Block {
        key,
        state: vec![S, PICK],
        views: vec![CAND],
        explicit: true,
        span: Span::default(),
    }];
    program(
        relations,
        vec![],
        rules,
        blocks,
        vec![Stratum::Flat(DOM), Stratum::Flat(BAD), Stratum::Block(0)],
    )
}

fn sudoku_inputs() -> Vec<(RelId, Vec<Value>)> {
    inputs(&[
        (0, &[1, 1]),
        (0, &[1, 2]),
        (0, &[2, 1]),
        (0, &[2, 2]),
        (0, &[2, 3]),
        (0, &[3, 4]),
        (1, &[2, 3]),
    ])
}

#[test]
fn block_keyed_tiers() {
    let p = sudoku_like(Some(0));
    let n = evaluate(&p, &sudoku_inputs());
    let s = show(&p, &n);
    let (st, pick, cand) = (2, 3, 4);
    // Round 0: tier-0 news are pick(3, 4) and s(2, 3): instances 3 and 2 are closed to
    // tier 1, so of s(1, 1), s(2, 1), s(2, 2) only s(1, 1) enters.
    // Round 1: cand = (1,2) (2,1) (2,2) (3,4): pick(1, 2) (tier 0, instance 1), s(2, 1).
    // Round 2: pick(2, 2). Round 3: nothing new.
    assert_eq!(
        n.rounds[st],
        rounds(&[(&[1, 1], 1), (&[2, 3], 1), (&[2, 1], 2)]),
        "{s}"
    );
    assert_eq!(
        n.rounds[pick],
        rounds(&[(&[3, 4], 1), (&[1, 2], 2), (&[2, 2], 3)]),
        "{s}"
    );
    assert_eq!(
        n.rounds[cand],
        rounds(&[(&[1, 2], 0), (&[2, 2], 0), (&[3, 4], 0)]),
        "{s}"
    );
    assert_eq!(n.relations[cand], set(&[&[1, 2], &[2, 2], &[3, 4]]), "{s}");
    let expected = events(&[
        (1, 1, &[3, 4], &[4, 3]),
        (2, 1, &[2, 3], &[2, 3]),
        (3, 1, &[1, 1], &[1, 1, 2]),
        (1, 2, &[1, 2], &[2, 1]),
        (3, 2, &[2, 1], &[2, 1, 2]),
        (1, 3, &[2, 2], &[2, 2]),
    ]);
    assert_eq!(n.events, expected, "{s}");
}

#[test]
fn block_unkeyed_tiers() {
    let p = sudoku_like(None);
    let n = evaluate(&p, &sudoku_inputs());
    let s = show(&p, &n);
    let (st, pick, cand) = (2, 3, 4);
    // One instance: any tier-0 news close tier 1 for the whole block.
    assert_eq!(
        n.rounds[st],
        rounds(&[(&[2, 3], 1), (&[1, 1], 2), (&[2, 1], 2)]),
        "{s}"
    );
    assert_eq!(
        n.rounds[pick],
        rounds(&[(&[3, 4], 1), (&[1, 2], 3), (&[2, 2], 3)]),
        "{s}"
    );
    assert_eq!(n.relations[cand], set(&[&[1, 2], &[2, 2], &[3, 4]]), "{s}");
    let expected = events(&[
        (1, 1, &[3, 4], &[4, 3]),
        (2, 1, &[2, 3], &[2, 3]),
        (3, 2, &[1, 1], &[1, 1, 2]),
        (3, 2, &[2, 1], &[2, 1, 2]),
        (1, 3, &[1, 2], &[2, 1]),
        (1, 3, &[2, 2], &[2, 2]),
    ]);
    assert_eq!(n.events, expected, "{s}");
}

/// A state fact that is also an input enters at round 1, and as rule 2 derives it in
/// round 0 (when it is not yet in `S_0 = ∅`) it gets rule 2's event, as a derived
/// program fact of a flat relation would. An input nothing derives gets no event.
#[test]
fn block_input_fact_derived_gets_event() {
    let p = sudoku_like(Some(0));
    let mut ins = sudoku_inputs();
    ins.push((2, vec![2, 3]));
    ins.push((2, vec![5, 5]));
    let n = evaluate(&p, &ins);
    let s = show(&p, &n);
    assert_eq!(
        n.rounds[2],
        rounds(&[(&[1, 1], 1), (&[2, 3], 1), (&[5, 5], 1), (&[2, 1], 2)]),
        "{s}"
    );
    assert_eq!(evaluate(&p, &sudoku_inputs()).events, n.events, "{s}");
    assert!(n.events.contains(&(2, 1, vec![2, 3], vec![2, 3])), "{s}");
    assert!(!n.events.iter().any(|e| e.2 == vec![5, 5]), "{s}");
}

/// An explained rule whose tier was closed when its fact entered (through an unexplained
/// rule) gives no event; later, when allowed, it does.
#[test]
fn blocked_explained_rule_has_no_event() {
    const A: RelId = 0;
    const T: RelId = 1;
    let rules = vec![
        // 0 @tier(0) t(x) :- a(x), x > 1.
        tier(
            rule(
                T,
                vec![v(0)],
                vec![atom(A, vec![v(0)]), cmp(ev(0), CmpOp::Gt, ec(1))],
                &["x"],
            ),
            0,
            0,
        ),
        // 1 @tier(1) @explain("t {x}") t(x) :- a(x).
        tier(
            explain(
                rule(T, vec![v(0)], vec![atom(A, vec![v(0)])], &["x"]),
                "t {x}",
            ),
            1,
            0,
        ),
    ];
    let blocks = vec![Block {
        key: None,
        state: vec![T],
        views: vec![],
        explicit: true,
        span: Span::default(),
    }];
    let p = program(
        vec![
            plain("a", 1),
            relation("t", 1, RelKind::Accumulating, Some(0)),
        ],
        vec![(A, vec![1]), (A, vec![2])],
        rules,
        blocks,
        vec![Stratum::Flat(A), Stratum::Block(0)],
    );
    let n = evaluate(&p, &[]);
    let s = show(&p, &n);
    assert_eq!(n.rounds[T], rounds(&[(&[2], 1), (&[1], 2)]), "{s}");
    assert_eq!(n.events, events(&[(1, 2, &[1], &[1])]), "{s}");
}

// ---------------------------------------------------------------------------------------
// Generators.

#[test]
fn generators_are_deterministic() {
    for seed in 0..20 {
        assert_eq!(
            gen::random_program(seed, gen::Features::ALL),
            gen::random_program(seed, gen::Features::ALL)
        );
        let g = gen::generate(seed, gen::Features::ALL);
        assert!(!g.inputs.is_empty());
        assert_eq!(
            gen::random_facts(seed, &g.inputs),
            gen::random_facts(seed, &g.inputs)
        );
    }
    assert_ne!(
        gen::random_program(1, gen::Features::ALL),
        gen::random_program(2, gen::Features::ALL)
    );
}

#[test]
fn features_control_constructs() {
    for seed in 0..50 {
        let plain = gen::random_program(seed, gen::Features::NONE);
        for construct in [
            "!",
            "count",
            "sum",
            "min",
            "max",
            "%",
            "<",
            ".fixpoint",
            "@",
        ] {
            assert!(
                !plain.lines().skip(1).any(|l| l.contains(construct)),
                "{construct} in\n{plain}"
            );
        }
        let datalog = gen::random_program(seed, gen::Features::DATALOG);
        assert!(
            !datalog.contains(".fixpoint") && !datalog.contains('@'),
            "{datalog}"
        );
    }
    let all: String = (0..50)
        .map(|seed| gen::random_program(seed, gen::Features::ALL))
        .collect();
    for construct in [
        "!",
        " count : ",
        " sum ",
        " min ",
        " max ",
        "% 6",
        " < ",
        ".fixpoint key 0 {",
        ".fixpoint {",
        ".view ",
        "@tier(",
        "@explain(\"",
        "@label(",
        ", _",
        "= count",
    ] {
        assert!(all.contains(construct), "no {construct:?} in 50 programs");
    }
}

#[test]
fn updates_are_effective() {
    let decls = vec![("a".to_string(), 1), ("b".to_string(), 2)];
    for seed in 0..50 {
        let pool = gen::random_facts(seed, &decls);
        let commits = gen::random_updates(seed, &pool);
        assert!(commits.len() >= 2);
        let mut present: BTreeSet<(String, Vec<i32>)> = BTreeSet::new();
        for (i, commit) in commits.iter().enumerate() {
            let mut seen = BTreeSet::new();
            for (name, t, insert) in commit {
                let f = (name.clone(), t.clone());
                assert!(pool.contains(&f));
                assert!(seen.insert(f.clone()), "fact twice in a commit");
                assert_eq!(*insert, !present.contains(&f), "ineffective update");
            }
            for (name, t, insert) in commit {
                let f = (name.clone(), t.clone());
                if *insert {
                    present.insert(f);
                } else {
                    present.remove(&f);
                }
            }
            assert_eq!(
                gen::facts_after(&commits, i + 1),
                present.iter().cloned().collect::<Vec<_>>()
            );
        }
    }
}
