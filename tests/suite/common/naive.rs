//! A small, deliberately naive bottom-up evaluator of checked programs: the reference
//! the dataflow engine is compared against.
//!
//! Everything is recomputed from scratch with nested loops over `BTreeSet`s; nothing is
//! incremental, nothing is clever. Speed only matters for the small programs and inputs
//! of the tests.
//!
//! # Semantics
//!
//! * Relations are sets. Inputs are extra facts for any relation that is not a view.
//! * Strata run in `Program::strata` order.
//! * `Stratum::Flat(r)`: `r` = its program facts ∪ its inputs ∪ the heads of all rules
//!   with head `r`, evaluated over the current contents of the other relations.
//! * `Stratum::Block(b)` (explicit or a recursive component), with state relations `S`
//!   and views `V`: `S_0 = ∅`; in round `i`, every view (in `Block::views` order) is its
//!   facts ∪ its rules over `S_i`, lower strata and the views already computed this
//!   round; every rule with a state head derives its facts over that, `new_r` being the
//!   derived facts not in `S_i`. Tier gating: a fact's instance is `fact[key]` (or the
//!   whole block when `key` is `None`); a tier-`t` rule's new facts are allowed unless
//!   their instance is the instance of a (raw, ungated) new fact of a rule of a lower
//!   tier. An `@ungated` rule's new facts are always allowed and block nothing.
//!   `S_{i+1} = S_i ∪ facts/inputs of the state relations ∪ allowed`; stop when
//!   `S_{i+1} == S_i`, then recompute the views from the final state.
//! * Rounds: a state fact's round is the smallest `i + 1` with the fact in `S_{i+1}`;
//!   every other fact (flat relations, views) has round 0.
//! * Events: every fact that an `@explain` rule derives gets exactly one event, for the
//!   minimum `(rule index, template bindings)` among the explained rules deriving it: in a
//!   flat stratum at round 0 (even if the fact is also a program fact or an input); in a
//!   block at round `i + 1` for a fact in `allowed` in round `i` (new: not in `S_i`),
//!   counting only explained rules whose tier was allowed for the fact's instance. A
//!   state fact that is also a program fact/input gets an event when an explained rule
//!   derives it in round 0 (when `S_0 = ∅`), like in a flat stratum; one that only
//!   entered as a program fact/input gets none. Rules with a view head never produce
//!   events.
//! * Bodies: literals run in any order in which their variables are bound (a positive
//!   atom can always run). See [`solve`].

use std::collections::{BTreeMap, BTreeSet};

use sudolog::check::ir::*;

pub type Tuple = Vec<Value>;

/// The result of [`evaluate`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Naive {
    /// Final contents, indexed by `RelId`.
    pub relations: Vec<BTreeSet<Tuple>>,
    /// Per `RelId`: the round each fact first entered its relation: 0 for flat strata
    /// and views; state relations of blocks, including implicit ones (recursive
    /// components), count from 1.
    pub rounds: Vec<BTreeMap<Tuple, u32>>,
    /// `(rule, round, head fact, values of the explain template's variables in order of
    /// first appearance)`.
    pub events: BTreeSet<(usize, u32, Tuple, Vec<Value>)>,
}

/// A partial assignment of values to the variables of one rule, indexed by `VarId`.
type Binding = Vec<Option<Value>>;

/// A rule index and the values of its explain template's variables.
type Explained = (usize, Vec<Value>);

/// Evaluates `p` with `inputs` as extra facts.
pub fn evaluate(p: &Program, inputs: &[(RelId, Vec<Value>)]) -> Naive {
    let n = p.relations.len();
    // Program facts and inputs, per relation.
    let mut base: Vec<BTreeSet<Tuple>> = vec![BTreeSet::new(); n];
    for (rel, tuple) in &p.facts {
        assert_eq!(
            tuple.len(),
            p.relations[*rel].arity(),
            "fact arity of {}",
            p.relations[*rel].name
        );
        base[*rel].insert(tuple.clone());
    }
    for (rel, tuple) in inputs {
        let r = &p.relations[*rel];
        assert!(r.kind != RelKind::View, "input given for view {}", r.name);
        assert_eq!(tuple.len(), r.arity(), "input arity of {}", r.name);
        base[*rel].insert(tuple.clone());
    }

    let mut out = Naive {
        relations: vec![BTreeSet::new(); n],
        rounds: vec![BTreeMap::new(); n],
        events: BTreeSet::new(),
    };

    // A relation no stratum defines (should not happen) just holds its facts and inputs.
    let mut covered = vec![false; n];
    for s in &p.strata {
        match s {
            Stratum::Flat(r) => covered[*r] = true,
            Stratum::Block(b) => {
                for &r in p.blocks[*b].state.iter().chain(&p.blocks[*b].views) {
                    covered[r] = true;
                }
            }
        }
    }
    for r in 0..n {
        if !covered[r] {
            out.relations[r] = base[r].clone();
        }
    }

    for s in &p.strata {
        match s {
            Stratum::Flat(r) => flat(p, *r, &base, &mut out),
            Stratum::Block(b) => block(p, *b, &base, &mut out),
        }
    }

    for (r, facts) in out.relations.iter().enumerate() {
        for f in facts {
            out.rounds[r].entry(f.clone()).or_insert(0);
        }
    }
    out
}

fn flat(p: &Program, r: RelId, base: &[BTreeSet<Tuple>], out: &mut Naive) {
    let mut facts = base[r].clone();
    // fact -> (rule, template bindings): the minimum over explained rules.
    let mut explained: BTreeMap<Tuple, (usize, Vec<Value>)> = BTreeMap::new();
    for (ri, rule) in p.rules.iter().enumerate() {
        if rule.head != r {
            continue;
        }
        for b in rule_bindings(rule, &out.relations, &p.symbols) {
            let head = head_of(rule, &b);
            if let Some(eb) = explain_bindings(rule, &b) {
                keep_min(&mut explained, head.clone(), (ri, eb));
            }
            facts.insert(head);
        }
    }
    for (fact, (ri, eb)) in explained {
        out.events.insert((ri, 0, fact, eb));
    }
    out.relations[r] = facts;
}

fn block(p: &Program, b: BlockId, base: &[BTreeSet<Tuple>], out: &mut Naive) {
    let blk = &p.blocks[b];
    let instance = |fact: &Tuple| -> Option<Value> {
        blk.key.map(|k| {
            *fact
                .get(k)
                .unwrap_or_else(|| panic!("state fact {fact:?} has no key column {k}"))
        })
    };
    let state_rules: Vec<usize> = (0..p.rules.len())
        .filter(|&ri| blk.state.contains(&p.rules[ri].head))
        .collect();

    for &r in blk.state.iter().chain(&blk.views) {
        out.relations[r] = BTreeSet::new();
        out.rounds[r] = BTreeMap::new();
    }

    let mut round: u32 = 0; // i
    loop {
        compute_views(p, blk, base, out);

        // Raw new facts of every state rule, with the template bindings of explained rules.
        // rule -> fact -> minimum template bindings (None for unexplained rules)
        let mut new: BTreeMap<usize, BTreeMap<Tuple, Option<Vec<Value>>>> = BTreeMap::new();
        for &ri in &state_rules {
            let rule = &p.rules[ri];
            let mut derived: BTreeMap<Tuple, Option<Vec<Value>>> = BTreeMap::new();
            for bnd in rule_bindings(rule, &out.relations, &p.symbols) {
                let head = head_of(rule, &bnd);
                if out.relations[rule.head].contains(&head) {
                    continue;
                }
                keep_min(&mut derived, head, explain_bindings(rule, &bnd));
            }
            new.insert(ri, derived);
        }

        // Tier gating. (rel, fact) -> minimum (rule, template bindings) of allowed
        // explained rules, or None if only unexplained rules allowed it.
        let mut allowed: BTreeMap<(RelId, Tuple), Option<Explained>> = BTreeMap::new();
        for (&ri, derived) in &new {
            let (tier, ungated) = (p.rules[ri].tier, p.rules[ri].ungated);
            let blocked: BTreeSet<Option<Value>> = new
                .iter()
                .filter(|(&rj, _)| !ungated && !p.rules[rj].ungated && p.rules[rj].tier < tier)
                .flat_map(|(_, facts)| facts.keys().map(instance))
                .collect();
            for (fact, eb) in derived {
                if blocked.contains(&instance(fact)) {
                    continue;
                }
                let entry = allowed
                    .entry((p.rules[ri].head, fact.clone()))
                    .or_insert(None);
                if let Some(eb) = eb {
                    let cand = (ri, eb.clone());
                    if entry.as_ref().is_none_or(|old| cand < *old) {
                        *entry = Some(cand);
                    }
                }
            }
        }

        // S_{i+1}.
        let mut changed = false;
        for &r in &blk.state {
            for fact in &base[r] {
                if out.relations[r].insert(fact.clone()) {
                    out.rounds[r].insert(fact.clone(), round + 1);
                    changed = true;
                }
            }
        }
        for ((r, fact), ev) in allowed {
            if out.relations[r].insert(fact.clone()) {
                out.rounds[r].insert(fact.clone(), round + 1);
                changed = true;
            }
            // Every fact of `allowed` is new (not in S_i), also one that is a program
            // fact/input entering in this same round.
            if let Some((ri, eb)) = ev {
                out.events.insert((ri, round + 1, fact, eb));
            }
        }
        if !changed {
            break;
        }
        round += 1;
    }
    compute_views(p, blk, base, out);
}

/// Each view of the block, in order: its facts ∪ its rules over the current contents.
fn compute_views(p: &Program, blk: &Block, base: &[BTreeSet<Tuple>], out: &mut Naive) {
    for &v in &blk.views {
        let mut facts = base[v].clone();
        for rule in p.rules.iter().filter(|rule| rule.head == v) {
            for b in rule_bindings(rule, &out.relations, &p.symbols) {
                facts.insert(head_of(rule, &b));
            }
        }
        out.relations[v] = facts;
    }
}

fn keep_min<K: Ord, V: Ord>(map: &mut BTreeMap<K, V>, key: K, value: V) {
    match map.get(&key) {
        Some(old) if *old <= value => {}
        _ => {
            map.insert(key, value);
        }
    }
}

fn head_of(rule: &Rule, b: &Binding) -> Tuple {
    rule.head_args
        .iter()
        .map(|t| match t {
            Term::Var(v) => {
                b[*v].unwrap_or_else(|| panic!("head variable {} unbound", rule.vars[*v].0))
            }
            Term::Const(c) => *c,
            Term::Wild => panic!("wildcard in the head of {}", rule.label),
        })
        .collect()
}

/// The values of the explain template's variables, in order of first appearance
/// (each variable once); `None` if the rule has no template.
fn explain_bindings(rule: &Rule, b: &Binding) -> Option<Vec<Value>> {
    let template = rule.explain.as_ref()?;
    let mut seen: Vec<VarId> = Vec::new();
    for piece in template {
        if let Piece::Var { var, .. } = piece {
            if !seen.contains(var) {
                seen.push(*var);
            }
        }
    }
    Some(
        seen.iter()
            .map(|v| {
                b[*v].unwrap_or_else(|| panic!("template variable {} unbound", rule.vars[*v].0))
            })
            .collect(),
    )
}

/// All distinct complete bindings of the rule's body over the relation contents `rels`
/// (indexed by `RelId`), each indexed by `VarId` (`None`: a variable the binding does not
/// set, e.g. an aggregate's local).
pub fn rule_bindings(
    rule: &Rule,
    rels: &[BTreeSet<Tuple>],
    symbols: &Symbols,
) -> BTreeSet<Vec<Option<Value>>> {
    let lits: Vec<&Literal> = rule.body.iter().collect();
    let mut found = Vec::new();
    solve(
        rule,
        rels,
        symbols,
        &lits,
        vec![None; rule.vars.len()],
        &mut found,
    );
    found.into_iter().collect()
}

fn is_bound(b: &Binding, e: &Expr) -> bool {
    let mut vars = Vec::new();
    e.vars(&mut vars);
    vars.iter().all(|v| b[*v].is_some())
}

fn eval(b: &Binding, e: &Expr) -> Option<Value> {
    e.eval(&|v| b[v].expect("expression variable unbound"))
}

/// What running a literal means given the current binding, if it can run now.
enum Step {
    Atom,
    Filter,
    /// `x = e` with `x` unbound: bind `x` to the value of `e`.
    Assign(VarId, Expr),
    Neg,
    Agg,
}

fn step(lit: &Literal, b: &Binding) -> Option<Step> {
    match lit {
        Literal::Atom { .. } => Some(Step::Atom),
        Literal::Neg { args, .. } => args
            .iter()
            .all(|t| !matches!(t, Term::Var(v) if b[*v].is_none()))
            .then_some(Step::Neg),
        Literal::Cmp { lhs, op, rhs, .. } => {
            if is_bound(b, lhs) && is_bound(b, rhs) {
                return Some(Step::Filter);
            }
            if *op == CmpOp::Eq {
                if let Expr::Var(x) = lhs {
                    if b[*x].is_none() && is_bound(b, rhs) {
                        return Some(Step::Assign(*x, rhs.clone()));
                    }
                }
                if let Expr::Var(x) = rhs {
                    if b[*x].is_none() && is_bound(b, lhs) {
                        return Some(Step::Assign(*x, lhs.clone()));
                    }
                }
            }
            None
        }
        Literal::Agg { group, .. } => group.iter().all(|v| b[*v].is_some()).then_some(Step::Agg),
    }
}

/// Does `tuple` match `args` under `b`? Returns the extended binding (binding unbound
/// variables; a variable repeated in `args` must match itself).
fn match_atom(args: &[Term], tuple: &Tuple, b: &Binding) -> Option<Binding> {
    assert_eq!(args.len(), tuple.len(), "atom arity");
    let mut b = b.clone();
    for (t, &val) in args.iter().zip(tuple) {
        match t {
            Term::Wild => {}
            Term::Const(c) => {
                if *c != val {
                    return None;
                }
            }
            Term::Var(v) => match b[*v] {
                Some(x) if x != val => return None,
                Some(_) => {}
                None => b[*v] = Some(val),
            },
        }
    }
    Some(b)
}

/// The tuples of `rel` that can match `args` under `b`: all of them, narrowed (as an
/// optimisation only) to those starting with the longest fully known prefix.
fn candidates<'a>(
    rel: &'a BTreeSet<Tuple>,
    args: &[Term],
    b: &Binding,
) -> impl Iterator<Item = &'a Tuple> {
    let mut prefix = Vec::new();
    for t in args {
        match t {
            Term::Const(c) => prefix.push(*c),
            Term::Var(v) if b[*v].is_some() => prefix.push(b[*v].unwrap()),
            _ => break,
        }
    }
    rel.range(prefix.clone()..)
        .take_while(move |t| t.starts_with(&prefix))
}

/// Extends `b` by the remaining literals `lits` in every possible way, pushing each
/// complete binding onto `found`. At each step the first literal that can run is run:
/// positive atoms always can; a comparison when both sides are bound (a filter) or when
/// it is `x = e` / `e = x` with `x` unbound and `e` bound (an assignment); a negation when
/// all its variables are bound; an aggregate when its group variables are bound.
fn solve(
    rule: &Rule,
    rels: &[BTreeSet<Tuple>],
    symbols: &Symbols,
    lits: &[&Literal],
    b: Binding,
    found: &mut Vec<Binding>,
) {
    if lits.is_empty() {
        found.push(b);
        return;
    }
    let Some((i, st)) = lits
        .iter()
        .enumerate()
        .find_map(|(i, l)| step(l, &b).map(|s| (i, s)))
    else {
        panic!(
            "rule {}: no literal of the body can run (unsafe rule?)",
            rule.label
        );
    };
    let lit = lits[i];
    let mut rest: Vec<&Literal> = lits.to_vec();
    rest.remove(i);
    match (st, lit) {
        (Step::Atom, Literal::Atom { rel, args }) => {
            for tuple in candidates(&rels[*rel], args, &b) {
                if let Some(b2) = match_atom(args, tuple, &b) {
                    solve(rule, rels, symbols, &rest, b2, found);
                }
            }
        }
        (Step::Neg, Literal::Neg { rel, args }) => {
            if !rels[*rel]
                .iter()
                .any(|tuple| match_atom(args, tuple, &b).is_some())
            {
                solve(rule, rels, symbols, &rest, b, found);
            }
        }
        (Step::Filter, Literal::Cmp { lhs, op, rhs, text }) => {
            if let (Some(l), Some(r)) = (eval(&b, lhs), eval(&b, rhs)) {
                let holds = match text {
                    true => op.holds(symbols.compare(l, r)),
                    false => op.eval(l, r),
                };
                if holds {
                    solve(rule, rels, symbols, &rest, b, found);
                }
            }
        }
        (Step::Assign(x, e), Literal::Cmp { .. }) => {
            if let Some(val) = eval(&b, &e) {
                let mut b2 = b;
                b2[x] = Some(val);
                solve(rule, rels, symbols, &rest, b2, found);
            }
        }
        (
            Step::Agg,
            Literal::Agg {
                result,
                func,
                target,
                body,
                group,
            },
        ) => {
            // The body, with only the group variables fixed to their outer values.
            let mut inner: Binding = vec![None; rule.vars.len()];
            for v in group {
                inner[*v] = b[*v];
            }
            let body_lits: Vec<&Literal> = body.iter().collect();
            let mut inner_found = Vec::new();
            solve(rule, rels, symbols, &body_lits, inner, &mut inner_found);
            let distinct: BTreeSet<Binding> = inner_found.into_iter().collect();
            // The target over each body binding (a target variable the body does not
            // bind takes its outer value); division by zero skips the binding.
            let values = || {
                let target = target.as_ref().expect("aggregate target");
                distinct.iter().filter_map(|ib| {
                    target.eval(&|v| ib[v].or(b[v]).expect("aggregate target variable unbound"))
                })
            };
            let value = match func {
                AggFunc::Count => Some(distinct.len() as Value),
                AggFunc::Sum => Some(values().fold(0 as Value, |a, x| a.wrapping_add(x))),
                AggFunc::Min => values().min(),
                AggFunc::Max => values().max(),
            };
            let Some(value) = value else { return };
            match b[*result] {
                Some(bound) => {
                    if bound == value {
                        solve(rule, rels, symbols, &rest, b, found);
                    }
                }
                None => {
                    let mut b2 = b;
                    b2[*result] = Some(value);
                    solve(rule, rels, symbols, &rest, b2, found);
                }
            }
        }
        _ => unreachable!("step does not fit its literal"),
    }
}
