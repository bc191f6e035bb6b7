//! What a program's rules need present before they can derive anything.
//!
//! In: a checked program. Out: per rule, its positive atoms outside aggregates, each
//! with the tests the rule puts on that atom's columns alone (a constant argument, a
//! comparison of a column's variable with a constant), and its covers: a negated
//! atom over some of a positive atom's variables (`cell(p, c), !solved(p, c)`;
//! `cell(p, c), !broken(p)`). Every derivation of a rule has a row of each such
//! atom passing its tests, and a row of each cover's positive atom that its negated
//! atom lacks; a rule without them derives nothing, and a relation that only rules
//! derive holds nothing when none of its rules can fire. Other negations,
//! aggregates and comparisons are left out, and each cover is counted alone: the
//! answer errs only towards "may derive".
//!
//! A host that steps a program's dataflow ([`crate::session::stepped`]) keeps a
//! [`Tally`] of what it feeds the program and asks it before a step: a step of a
//! program that cannot derive what the host reads of it would find nothing, so it
//! need not run.

use std::collections::HashMap;

use super::ir::{CmpOp, Expr, Literal, Program, RelId, Term, Value, VarId};

/// A test on one column of a row.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Test {
    col: usize,
    op: CmpOp,
    value: Value,
}

/// A positive atom a rule needs: its relation and the tests its row must pass.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Need {
    rel: RelId,
    tests: Vec<Test>,
}

impl Need {
    /// Whether `row` (a fact of `rel`) passes the tests.
    fn admits(&self, row: &[Value]) -> bool {
        (self.tests.iter()).all(|t| row.get(t.col).is_some_and(|&v| t.op.eval(v, t.value)))
    }
}

/// A positive atom and a negated one over some of its variables, each once in both:
/// a rule needs a row of `pos` whose values, in `neg`'s columns, are not a row of
/// `neg` (`cell(p, c), !solved(p, c)`; `cell(p, c), !broken(p)`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Cover {
    pos: RelId,
    neg: RelId,
    /// Per column of `neg`, the column of `pos` with the same variable.
    cols: Vec<usize>,
}

impl Cover {
    /// A row of `pos` as the row of `neg` that covers it.
    fn image(&self, pos_row: &[Value]) -> Vec<Value> {
        self.cols.iter().map(|&c| pos_row[c]).collect()
    }
}

/// The needs of a program's rules (see the module's documentation).
#[derive(Clone, Debug)]
pub struct Firing {
    /// Per rule: its head, and indices into `needs` and `covers`.
    rules: Vec<(RelId, Vec<usize>, Vec<usize>)>,
    /// Every distinct need.
    needs: Vec<Need>,
    /// Every distinct cover whose positive atom only the host fills.
    covers: Vec<Cover>,
    /// Per relation: whether only the program's rules put facts in it (no input,
    /// no facts in the text).
    derived_only: Vec<bool>,
}

impl Firing {
    pub fn of(program: &Program) -> Firing {
        let mut derived = vec![false; program.relations.len()];
        for r in &program.rules {
            derived[r.head] = true;
        }
        let mut derived_only = derived.clone();
        for (rel, r) in program.relations.iter().enumerate() {
            if r.input {
                derived_only[rel] = false;
            }
        }
        for (rel, _) in &program.facts {
            derived_only[*rel] = false;
        }
        let (mut needs, mut covers) = (Vec::new(), Vec::new());
        let mut rules = Vec::new();
        // A cover is counted on the host's rows: its positive atom's relation must
        // have no others (its negated one may: they only cover more).
        let fed = |r: RelId| {
            program.relations[r].input && !derived[r] && !program.facts.iter().any(|f| f.0 == r)
        };
        for r in &program.rules {
            let ids = (rule_needs(&r.body).into_iter())
                .map(|need| index(&mut needs, need))
                .collect();
            let cs = (rule_covers(&r.body).into_iter())
                .filter(|c| c.pos != c.neg && fed(c.pos) && program.relations[c.neg].input)
                .map(|c| index(&mut covers, c))
                .collect();
            rules.push((r.head, ids, cs));
        }
        Firing {
            rules,
            needs,
            covers,
            derived_only,
        }
    }

    /// The covers [`Firing::can_derive`] asks about, with their indices (on inputs
    /// only the host fills).
    #[cfg(test)]
    fn covers(&self) -> impl Iterator<Item = (usize, &Cover)> {
        self.covers.iter().enumerate()
    }

    /// The needs on relations that rules alone do not fill (inputs, relations with
    /// facts in the text), with their indices: what [`Firing::can_derive`] asks the
    /// caller about.
    fn outer_needs(&self) -> impl Iterator<Item = (usize, &Need)> {
        let only = &self.derived_only;
        (self.needs.iter().enumerate()).filter(move |(_, n)| !only[n.rel])
    }

    /// Whether some rule with its head in `heads` can fire, given `present(i)` for
    /// each need `i` of [`Firing::outer_needs`] (whether a row passes it now) and
    /// `open(k)` for each cover `k` of [`Firing::covers`] (whether a row of its
    /// positive atom lacks its negated one now). A relation rules derive may hold
    /// facts when one of its rules can fire (an input too, when the host gave it
    /// none that pass).
    pub fn can_derive(
        &self,
        heads: &[RelId],
        present: impl Fn(usize) -> bool,
        open: impl Fn(usize) -> bool,
    ) -> bool {
        let outer: Vec<bool> = (self.needs.iter().enumerate())
            .map(|(i, n)| !self.derived_only[n.rel] && present(i))
            .collect();
        let mut live = vec![false; self.derived_only.len()];
        let mut fires = vec![false; self.rules.len()];
        loop {
            let mut changed = false;
            for (k, (head, ids, cs)) in self.rules.iter().enumerate() {
                if fires[k] {
                    continue;
                }
                let met = |&i: &usize| outer[i] || live[self.needs[i].rel];
                if ids.iter().all(met) && cs.iter().all(|&c| open(c)) {
                    fires[k] = true;
                    if heads.contains(head) {
                        return true;
                    }
                    changed |= !std::mem::replace(&mut live[*head], true);
                }
            }
            if !changed {
                return false;
            }
        }
    }
}

/// What a host counts of the rows it holds in a program's inputs, to ask
/// [`Firing::can_derive`] before a step.
///
/// In: every change of those inputs ([`Tally::changed`]). Out: whether a rule
/// deriving one of the host's `heads` can fire on what they hold
/// ([`Tally::can_fire`]). It counts, per need on a relation the host feeds, the rows
/// passing it, and per cover, the rows of its positive atom that its negated one
/// lacks; needs on the inputs it does not count are taken as met.
#[derive(Clone, Debug)]
pub struct Tally {
    firing: Firing,
    heads: Vec<RelId>,
    /// Per relation counted: its needs (indices into `firing`'s).
    guards: HashMap<RelId, Vec<usize>>,
    /// Per need: the rows passing it (None: not counted, taken as met).
    passing: Vec<Option<usize>>,
    /// Per cover: the rows its negated atom leaves open, and the rows of its
    /// positive atom by their image (the row of the negated atom that covers them).
    open: Vec<(usize, HashMap<Vec<Value>, usize>)>,
}

impl Tally {
    /// Nothing held yet. `heads`: the relations the host reads of the program;
    /// `counted(rel)`: whether the needs on `rel` are counted (the host feeds it
    /// every change through [`Tally::changed`]).
    pub fn new(firing: Firing, heads: Vec<RelId>, counted: impl Fn(RelId) -> bool) -> Tally {
        let mut guards: HashMap<RelId, Vec<usize>> = HashMap::new();
        let mut passing = vec![None; firing.needs.len()];
        for (i, need) in firing.outer_needs() {
            if counted(need.rel) {
                guards.entry(need.rel).or_default().push(i);
                passing[i] = Some(0);
            }
        }
        let open = vec![(0, HashMap::new()); firing.covers.len()];
        Tally {
            firing,
            heads,
            guards,
            passing,
            open,
        }
    }

    /// Every count back to nothing held.
    pub fn clear(&mut self) {
        self.passing.iter_mut().flatten().for_each(|n| *n = 0);
        for (n, by) in &mut self.open {
            *n = 0;
            by.clear();
        }
    }

    /// `row` of `rel` has just entered (`on`) or left the inputs; `has(rel, row)`
    /// says whether they hold a row now.
    pub fn changed(
        &mut self,
        rel: RelId,
        row: &[Value],
        on: bool,
        has: impl Fn(RelId, &[Value]) -> bool,
    ) {
        let up = |n: &mut usize, more: bool| *n = if more { *n + 1 } else { n.saturating_sub(1) };
        for &i in self.guards.get(&rel).into_iter().flatten() {
            if let (true, Some(n)) = (self.firing.needs[i].admits(row), self.passing[i].as_mut()) {
                up(n, on);
            }
        }
        for (c, (n, by)) in self.firing.covers.iter().zip(self.open.iter_mut()) {
            if c.pos == rel {
                let image = c.image(row);
                if !has(c.neg, &image) {
                    up(n, on);
                }
                if on {
                    *by.entry(image).or_default() += 1;
                } else if let Some(k) = by.get_mut(&image) {
                    *k -= 1;
                    if *k == 0 {
                        by.remove(&image);
                    }
                }
            }
            if c.neg == rel {
                let k = by.get(row).copied().unwrap_or(0);
                *n = if on { n.saturating_sub(k) } else { *n + k };
            }
        }
    }

    /// Whether some rule deriving one of the heads can fire on the rows counted.
    pub fn can_fire(&self) -> bool {
        (self.firing).can_derive(
            &self.heads,
            |i| self.passing[i].is_none_or(|n| n > 0),
            |k| self.open[k].0 > 0,
        )
    }
}

/// The positive atoms of a rule's body (outside aggregates), each with the tests on
/// its columns that the body's constants and comparisons with constants give.
fn rule_needs(body: &[Literal]) -> Vec<Need> {
    // Comparisons of one variable with a constant: (variable, op, constant), the
    // variable on the left.
    let mut bounds: Vec<(VarId, CmpOp, Value)> = Vec::new();
    for l in body {
        if let Literal::Cmp {
            lhs,
            op,
            rhs,
            text: false,
        } = l
        {
            match (lhs, rhs) {
                (Expr::Var(v), Expr::Const(c)) => bounds.push((*v, *op, *c)),
                (Expr::Const(c), Expr::Var(v)) => bounds.push((*v, flip(*op), *c)),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for l in body {
        let Literal::Atom { rel, args } = l else {
            continue;
        };
        let mut tests = Vec::new();
        for (col, t) in args.iter().enumerate() {
            match t {
                Term::Const(c) => tests.push(Test {
                    col,
                    op: CmpOp::Eq,
                    value: *c,
                }),
                Term::Var(v) => tests.extend(
                    (bounds.iter())
                        .filter(|(b, _, _)| b == v)
                        .map(|&(_, op, value)| Test { col, op, value }),
                ),
                Term::Wild => {}
            }
        }
        out.push(Need { rel: *rel, tests });
    }
    out
}

/// The index of `x` in `v`, pushed if new.
fn index<T: PartialEq>(v: &mut Vec<T>, x: T) -> usize {
    match v.iter().position(|y| *y == x) {
        Some(i) => i,
        None => {
            v.push(x);
            v.len() - 1
        }
    }
}

/// The variables of an atom's arguments, when they are all variables, each once.
fn distinct_vars(args: &[Term]) -> Option<Vec<VarId>> {
    let mut vs = Vec::new();
    for t in args {
        match t {
            Term::Var(v) if !vs.contains(v) => vs.push(*v),
            _ => return None,
        }
    }
    Some(vs)
}

/// The covers of a rule's body: each negated atom over some of the variables of a
/// positive atom (outside aggregates; the first such), each once in both.
fn rule_covers(body: &[Literal]) -> Vec<Cover> {
    let mut out = Vec::new();
    for l in body {
        let Literal::Neg { rel: neg, args } = l else {
            continue;
        };
        let Some(nv) = distinct_vars(args) else {
            continue;
        };
        let pos = body.iter().find_map(|p| match p {
            Literal::Atom { rel, args } => {
                let pv = distinct_vars(args)?;
                let cols: Option<Vec<usize>> =
                    nv.iter().map(|v| pv.iter().position(|x| x == v)).collect();
                Some((*rel, cols?))
            }
            _ => None,
        });
        if let Some((pos, cols)) = pos {
            out.push(Cover {
                pos,
                neg: *neg,
                cols,
            });
        }
    }
    out
}

/// `c op v` as `v op' c`.
fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_str;

    const TEXT: &str = "
        .decl count_of(c: number, n: number)
        .input count_of
        .decl open(c: number)
        .input open
        .decl pair(c: number)
        pair(c) :- count_of(c, 2), open(c).
        .decl big(c: number)
        big(c) :- count_of(c, n), n > 3, 9 > n.
        .decl out(c: number)
        out(c) :- pair(c), !big(c).
        .decl chain(a: number, b: number)
        chain(a, a) :- pair(a).
        chain(a, c) :- chain(a, b), count_of(b, c).
        .decl reached(a: number, b: number)
        reached(a, b) :- chain(a, b).
        .decl done(c: number, n: number)
        .input done
        .decl left(c: number)
        left(c) :- count_of(c, n), !done(n, c).
        .decl seed(x: number)
        .input seed
        seed(x) :- count_of(x, 7).
        .decl mark(x: number)
        .input mark
        .decl grown(x: number)
        grown(x) :- seed(x), !mark(x).
    ";

    fn firing() -> (Program, Firing) {
        let p = check_str("firing.dl", TEXT).expect("checks");
        let f = Firing::of(&p);
        (p, f)
    }

    /// `can_derive` with the outer needs decided by the rows in `rows`.
    fn derives(p: &Program, f: &Firing, head: &str, rows: &[(&str, Vec<Value>)]) -> bool {
        let present: Vec<bool> = (0..f.needs.len())
            .map(|i| {
                let n = &f.needs[i];
                (rows.iter()).any(|(r, row)| p.relation(r) == Some(n.rel) && n.admits(row))
            })
            .collect();
        let outer: Vec<usize> = f.outer_needs().map(|(i, _)| i).collect();
        let has = |rel: RelId, row: &[Value]| {
            (rows.iter()).any(|(r, x)| p.relation(r) == Some(rel) && x.as_slice() == row)
        };
        let uncovered: Vec<bool> = (f.covers())
            .map(|(_, c)| {
                (rows.iter())
                    .filter(|(r, _)| p.relation(r) == Some(c.pos))
                    .any(|(_, row)| !has(c.neg, &c.image(row)))
            })
            .collect();
        let head = p.relation(head).unwrap();
        f.can_derive(
            &[head],
            |i| {
                assert!(outer.contains(&i), "asked about a need rules fill");
                present[i]
            },
            |k| uncovered[k],
        )
    }

    /// `seed` is an input that a rule derives too: a rule reading it may fire when
    /// the host gave it nothing, and `seed(x), !mark(x)` is no cover (the host's rows
    /// of `seed` are not all of them).
    #[test]
    fn an_input_that_rules_derive_too_may_hold_what_they_derive() {
        let (p, f) = firing();
        assert!(!derives(&p, &f, "grown", &[("count_of", vec![1, 3])]));
        assert!(derives(&p, &f, "grown", &[("count_of", vec![1, 7])]));
        let marked = [("seed", vec![1]), ("mark", vec![1])];
        assert!(derives(&p, &f, "grown", &marked));
        assert_eq!(f.covers().count(), 1, "only left's");
    }

    #[test]
    fn a_rule_needs_a_row_its_negated_atom_over_the_same_variables_lacks() {
        let (p, f) = firing();
        let [(_, cover)] = f.covers().collect::<Vec<_>>()[..] else {
            panic!("one cover: {:?}", f.covers);
        };
        assert_eq!(cover.cols, [1, 0], "done(n, c) against count_of(c, n)");
        assert_eq!(cover.image(&[4, 7]), [7, 4]);
        let (a, b) = (("count_of", vec![1, 2]), ("count_of", vec![3, 4]));
        assert!(derives(&p, &f, "left", &[a.clone(), b.clone()]));
        let done = |c: Value, n: Value| ("done", vec![n, c]);
        assert!(derives(&p, &f, "left", &[a.clone(), b.clone(), done(1, 2)]));
        assert!(!derives(&p, &f, "left", &[a, b, done(1, 2), done(3, 4)]));
    }

    /// A tally of `keep(c, n) :- slot(c, n), !stop(c), !done(c, n)`, a cover over
    /// some of `slot`'s variables and one over all: `keep` can fire while a row of
    /// `slot` is covered by neither, as rows come and go in any order.
    #[test]
    fn a_tally_follows_the_rows_a_negated_atom_over_some_variables_leaves_open() {
        let p = check_str(
            "tally.dl",
            ".decl slot(c: number, n: number)
            .input slot
            .decl stop(c: number)
            .input stop
            .decl done(c: number, n: number)
            .input done
            .decl keep(c: number, n: number)
            keep(c, n) :- slot(c, n), !stop(c), !done(c, n).",
        )
        .expect("checks");
        let f = Firing::of(&p);
        assert_eq!(f.covers().count(), 2, "{:?}", f.covers);
        let rel = |name: &str| p.relation(name).unwrap();
        let mut tally = Tally::new(f, vec![rel("keep")], |_| true);
        let mut held: std::collections::BTreeSet<(RelId, Vec<Value>)> = Default::default();
        let mut change = |t: &mut Tally, name: &str, row: Vec<Value>, on: bool| {
            match on {
                true => assert!(held.insert((rel(name), row.clone()))),
                false => assert!(held.remove(&(rel(name), row.clone()))),
            }
            t.changed(rel(name), &row, on, |r, x| held.contains(&(r, x.to_vec())));
        };
        assert!(!tally.can_fire(), "no slot");
        change(&mut tally, "stop", vec![1], true);
        change(&mut tally, "slot", vec![1, 5], true);
        change(&mut tally, "slot", vec![1, 6], true);
        assert!(!tally.can_fire(), "both slots of a stopped c");
        change(&mut tally, "slot", vec![2, 5], true);
        assert!(tally.can_fire(), "c = 2 is open");
        change(&mut tally, "done", vec![2, 5], true);
        // Each cover is counted alone: `stop` leaves (2, 5) open and `done` leaves
        // (1, 5), so the answer errs towards "may fire".
        assert!(tally.can_fire(), "each cover leaves a row open");
        change(&mut tally, "stop", vec![1], false);
        assert!(tally.can_fire(), "c = 1 open again");
        change(&mut tally, "stop", vec![2], true);
        change(&mut tally, "done", vec![1, 5], true);
        change(&mut tally, "done", vec![1, 6], true);
        assert!(!tally.can_fire(), "every slot done");
        change(&mut tally, "slot", vec![1, 6], false);
        change(&mut tally, "done", vec![1, 6], false);
        assert!(!tally.can_fire(), "the open slot left first");
        tally.clear();
        assert!(!tally.can_fire(), "cleared: nothing held");
    }

    #[test]
    fn a_rule_needs_a_row_passing_its_constants_and_bounds() {
        let (p, f) = firing();
        let open = ("open", vec![1]);
        assert!(!derives(&p, &f, "pair", std::slice::from_ref(&open)));
        assert!(!derives(
            &p,
            &f,
            "pair",
            &[open.clone(), ("count_of", vec![1, 3])]
        ));
        assert!(derives(
            &p,
            &f,
            "pair",
            &[open.clone(), ("count_of", vec![1, 2])]
        ));
        // Both bounds, whichever side the constant is on.
        assert!(!derives(&p, &f, "big", &[("count_of", vec![1, 3])]));
        assert!(!derives(&p, &f, "big", &[("count_of", vec![1, 9])]));
        assert!(derives(&p, &f, "big", &[("count_of", vec![1, 4])]));
    }

    #[test]
    fn derived_relations_follow_their_rules_through_recursion_not_negation() {
        let (p, f) = firing();
        let open = ("open", vec![1]);
        // `out` negates `big`: that needs nothing.
        assert!(derives(
            &p,
            &f,
            "out",
            &[open.clone(), ("count_of", vec![1, 2])]
        ));
        assert!(!derives(
            &p,
            &f,
            "out",
            &[open.clone(), ("count_of", vec![1, 5])]
        ));
        // `reached` through the recursive `chain`, which starts from `pair`.
        assert!(!derives(&p, &f, "reached", &[("count_of", vec![1, 5])]));
        assert!(derives(
            &p,
            &f,
            "reached",
            &[open, ("count_of", vec![1, 2])]
        ));
    }
}
