//! Counts capped where only small values are told apart.
//!
//! `singles.dl`'s `ncand(p, c, n)` and `nplace(p, g, v, n)` are read only as
//! `ncand(p, c, 0)`, `ncand(p, c, 1)`, `nplace(p, g, v, 1)`, ..., and (through
//! `options(p, c, k) :- ncand(p, c, k), k > 1`) as `!options(p, _, _)` once the search's
//! choice is not rendered. Every reading tells apart 0, 1 and "more": a count that
//! reports `min(n, 2)` instead of `n` changes no derived fact the session sees, and
//! its reduce's output then changes only when a group crosses 0, 1 or 2, not each time
//! a candidate goes (as the hand-written dataflows' "none or one" reduces do).
//!
//! In: a program, the rules a session renders, the relations it observes, and whether
//! it explains. Out: for each rule that defines a count view and may be capped, the
//! cap. A rule qualifies when it alone defines its head (no facts), it has one
//! aggregate, a count, with nothing nested, and the count's variable appears only in
//! the head (not in its explanation). The cap is one more than the largest value any
//! rendered reading of those head columns tells apart:
//! - `_` tells none apart, a constant `c` tells 0..=c apart;
//! - a variable tells apart what its other uses in that rule do: comparisons with a
//!   constant `c` (0..=c), and the head columns it is copied into, whose own readings
//!   are followed the same way (a few levels deep);
//! - anything else (a join on it, a negation, an aggregate, an explanation, an
//!   observed relation) needs the exact value: no cap.

use std::collections::HashMap;

use crate::check::ir::{atoms_of, Expr, Literal, Program, RelId, Rule, Term, Value, VarId};

/// How far a count's value is followed through relations that copy it.
const DEPTH: usize = 4;

/// What a session renders of a program, for [`count_caps`].
pub struct Rendered<'a> {
    pub program: &'a Program,
    /// Whether rule i is rendered.
    pub rule: &'a dyn Fn(usize) -> bool,
    /// Whether the session observes relation r (it sees its exact rows).
    pub observed: &'a dyn Fn(RelId) -> bool,
    /// Whether explained rules produce events (their bindings are seen).
    pub explain: bool,
}

/// Per rule index: the cap of the count it defines (see the module's documentation).
pub fn count_caps(r: &Rendered<'_>) -> HashMap<usize, Value> {
    let p = r.program;
    let mut caps = HashMap::new();
    for (i, rule) in p.rules.iter().enumerate() {
        if !(r.rule)(i) || (r.observed)(rule.head) {
            continue;
        }
        let alone = p.rules.iter().filter(|x| x.head == rule.head).count() == 1
            && !p.facts.iter().any(|(rel, _)| *rel == rule.head);
        let Some(n) = alone.then(|| capped_count(rule, r.explain)).flatten() else {
            continue;
        };
        let mut cap = Some(1);
        for (h, t) in rule.head_args.iter().enumerate() {
            if *t == Term::Var(n) {
                cap = max(cap, column_tells(r, rule.head, h, DEPTH));
            }
        }
        if let Some(c) = cap {
            caps.insert(i, c);
        }
    }
    caps
}

/// The count's variable when `rule`'s body has one aggregate, a count with no
/// aggregate inside, whose variable appears nowhere but in the head.
fn capped_count(rule: &Rule, explain: bool) -> Option<VarId> {
    let aggs: Vec<&Literal> = (rule.body.iter())
        .filter(|l| matches!(l, Literal::Agg { .. }))
        .collect();
    let [Literal::Agg {
        result, func, body, ..
    }] = aggs[..]
    else {
        return None;
    };
    let nested = body.iter().any(|l| matches!(l, Literal::Agg { .. }));
    if *func != crate::check::ir::AggFunc::Count || nested {
        return None;
    }
    let elsewhere = rule.body.iter().any(|l| match l {
        Literal::Agg { .. } => false,
        other => mentions(other, *result),
    });
    let told = explain && rule.template_vars().contains(result);
    (!elsewhere && !told).then_some(*result)
}

/// The most any rendered reading of column `col` of `rel` tells apart: `Some(k)`
/// when it tells apart values below `k` and treats the rest alike, `None` when it
/// needs the exact value.
fn column_tells(r: &Rendered<'_>, rel: RelId, col: usize, depth: usize) -> Option<Value> {
    if (r.observed)(rel) {
        return None;
    }
    let mut k = Some(0);
    for (i, rule) in r.program.rules.iter().enumerate() {
        if !(r.rule)(i) {
            continue;
        }
        let mut reads = Vec::new();
        atoms_of(&rule.body, false, &mut reads);
        for (neg, lit_rel, args) in reads {
            if lit_rel != rel {
                continue;
            }
            k = max(
                k,
                match args.get(col) {
                    None | Some(Term::Wild) => Some(0),
                    Some(Term::Const(c)) => Some(c.saturating_add(1).max(0)),
                    Some(Term::Var(_)) if neg || depth == 0 => None,
                    Some(Term::Var(x)) => var_tells(r, rule, *x, depth),
                },
            );
            k?;
        }
    }
    k
}

/// What `rule`'s uses of `x` (read once from an atom) tell apart.
fn var_tells(r: &Rendered<'_>, rule: &Rule, x: VarId, depth: usize) -> Option<Value> {
    if r.explain && rule.template_vars().contains(&x) {
        return None;
    }
    let mut k = Some(0);
    let mut atoms = 0;
    for l in &rule.body {
        match l {
            Literal::Atom { args, .. } | Literal::Neg { args, .. } => {
                atoms += args.iter().filter(|t| **t == Term::Var(x)).count();
            }
            Literal::Cmp { lhs, rhs, .. } if mentions(l, x) => {
                let c = match (lhs, rhs) {
                    (Expr::Var(v), Expr::Const(c)) | (Expr::Const(c), Expr::Var(v)) if *v == x => c,
                    _ => return None,
                };
                k = max(k, Some(c.saturating_add(1).max(0)));
            }
            Literal::Agg { .. } if mentions(l, x) => return None,
            _ => {}
        }
    }
    if atoms != 1 {
        return None;
    }
    for (h, t) in rule.head_args.iter().enumerate() {
        if *t == Term::Var(x) {
            k = max(k, column_tells(r, rule.head, h, depth - 1));
        }
    }
    k
}

/// Whether literal `l` mentions variable `x` (anywhere, aggregates' insides too).
fn mentions(l: &Literal, x: VarId) -> bool {
    let mut vs = Vec::new();
    l.vars(&mut vs);
    vs.contains(&x)
}

/// The larger demand (`None`, the exact value, is the largest).
fn max(a: Option<Value>, b: Option<Value>) -> Option<Value> {
    Some(a?.max(b?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The caps of `text`'s rules, every rule rendered, `observed` relations seen,
    /// by head name.
    fn caps_of(text: &str, observed: &[&str], explain: bool) -> Vec<(String, Value)> {
        let (sources, ast) = crate::syntax::parse_str("t.dl", text).expect("parses");
        let program = crate::check::check(sources, &ast).expect("checks");
        let seen: Vec<RelId> = (observed.iter())
            .map(|n| program.relation(n).expect("declared"))
            .collect();
        let caps = count_caps(&Rendered {
            program: &program,
            rule: &|_| true,
            observed: &|r| seen.contains(&r),
            explain,
        });
        let mut out: Vec<(String, Value)> = (caps.into_iter())
            .map(|(i, c)| (program.relations[program.rules[i].head].name.clone(), c))
            .collect();
        out.sort();
        out
    }

    const SINGLES: &str = "
        .decl cand(c: number, v: number)
        .decl cell(c: number)
        .decl n(c: number, k: number)
        .decl one(c: number, v: number)
        .decl empty(c: number)
        .decl options(c: number, k: number)
        .decl open(c: number)
        n(c, k) :- cell(c), k = count : { cand(c, _) }.
        one(c, v) :- n(c, 1), cand(c, v).
        empty(c) :- n(c, 0).
        options(c, k) :- n(c, k), k > 1.
        open(c) :- options(c, _).
    ";

    /// Constants 0 and 1, `k > 1` and a copy read only as `_`: values 0, 1 and more
    /// are told apart, so the count reports min(n, 2).
    #[test]
    fn a_count_read_as_zero_one_or_more_is_capped_at_two() {
        assert_eq!(
            caps_of(SINGLES, &["one", "empty", "open"], false),
            [("n".into(), 2)]
        );
    }

    /// Where the exact value reaches something seen (an observed copy, an explained
    /// variable, a join on it, a count of the copies), there is no cap.
    #[test]
    fn a_count_whose_value_is_seen_is_not_capped() {
        assert_eq!(caps_of(SINGLES, &["options"], false), []);
        assert_eq!(caps_of(SINGLES, &["n"], false), []);
        let joined =
            format!("{SINGLES}\n.decl same(c: number, d: number)\nsame(c, d) :- n(c, k), n(d, k).");
        assert_eq!(caps_of(&joined, &["one"], false), []);
        let counted =
            format!("{SINGLES}\n.decl m(x: number)\nm(x) :- x = count : {{ options(_, _) }}.");
        assert_eq!(caps_of(&counted, &["m"], false), []);
        let told = SINGLES.replace(
            "empty(c) :- n(c, 0).",
            "@explain(\"{c} has {k}\") empty(c) :- n(c, k), k < 3.",
        );
        assert_eq!(caps_of(&told, &["one"], true), []);
        // Without explanations the template is not seen: 0..=3 told apart.
        assert_eq!(caps_of(&told, &["one"], false), [("n".into(), 4)]);
    }
}
