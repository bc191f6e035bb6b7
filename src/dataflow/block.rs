//! A fixpoint block (or recursive component) as a differential `iterate`.
//!
//! In: the block's plan, the collections of lower strata, the inputs of its
//! relations. Out: one collection ([`Leaving`]) of each leaving relation's facts
//! tagged with the round each first appeared (views: round 0) and explain events.
//!
//! Round i+1 of the block is timestamp i+1 of the iterative scope: every state
//! relation is a `Variable` holding S_i, views are computed from S_i in the same
//! timestamp, and S_{i+1} = S_i ∪ inputs ∪ (derivations allowed by tier gating).
//! Because state only grows, the inner timestamp of a fact's single `+1` difference
//! is the round it first appeared: tagging data with it before leaving the scope
//! yields (fact, round). Explain events accumulate the same way.

use std::collections::{BTreeSet, HashMap};

use differential_dataflow::collection::concatenate;
use differential_dataflow::operators::iterate::VecVariable;
use differential_dataflow::{AsCollection, ExchangeData, VecCollection as Collection};
use timely::dataflow::operators::vec::{Filter, Map};
use timely::dataflow::Scope;

use super::pipeline::{render_rule, Env, KeyArr, RowArr};
use super::profile::Charge;
use super::render::{least_value, EVENT};
use super::row::{row, Wide};
use super::tagged::tagged_union;
use super::tail::{render_group, share_tails, Group};
use super::time::{distinct_keys, Epoch, Rounds};
use crate::check::ir::{RelId, Value};
use crate::plan::{Pipeline, RulePlan, Step};

/// A relation leaving a block, before it is tagged: its rows, its tag, and whether
/// its rows carry their rounds (a state relation's do).
type LeavingPart<'s, R, const W: usize> = (Collection<'s, R, Wide<W>>, (u32, bool));
/// (fact, [tier]) pairs: derivations tagged with the tier of their rule.
type Tagged<'s, R, const W: usize> = Collection<'s, R, (Wide<W>, Wide<W>)>;
/// (head, [rule, bindings...]) pairs: explained derivations.
type Explained<'s, T, const W: usize> = Collection<'s, T, (Wide<W>, Wide<W>)>;
/// One change leaving a block: `(tag, row, bindings, round)`. Tag `r`: a fact of
/// relation `r` with the round it first appeared (views have round 0; bindings
/// unused); tag [`EVENT`]: an explain event. A state relation's facts with their
/// first rounds are also its contents (the same differences), so each relation
/// leaves once, whether it is observed, read later or both.
pub type Leaving<const W: usize> = (u32, Wide<W>, Wide<W>, u32);

/// A relation that leaves a block: a state relation (always: the session's probe
/// follows it), or a view whose contents are read later, whose changes are observed,
/// or both.
pub struct Left {
    pub rel: RelId,
    pub observed: bool,
}

/// What leaves a block.
pub struct BlockOut<'s, const W: usize> {
    /// Everything, as one collection: one output of the block's scope. Every output
    /// of a scope costs timely's progress tracking (reachability summaries from each
    /// of the block's operators to each output, when the dataflow is built and as
    /// its frontiers move every round), so there is one, and only what
    /// [`BlockSpec::leaves`] asks for is in it.
    pub left: Collection<'s, Epoch, Leaving<W>>,
    /// The relations in `left`.
    pub rels: Vec<Left>,
    /// Whether `left` holds explain events.
    pub events: bool,
}

pub struct BlockSpec<'p> {
    pub key: Option<usize>,
    /// A recursive component outside any `.fixpoint` block: its rules are monotone
    /// in the state, so S_{i+1} = inputs ∪ F(S_i) already contains S_i and, when the
    /// additions are all of F(S_i) (no tier gating, no explanations, which keep
    /// only new facts), the state need not be fed back into its own `distinct`
    /// (a third less work there).
    pub monotone: bool,
    pub state: &'p [RelId],
    pub views: &'p [(RelId, Vec<RulePlan>)],
    pub rules: &'p [RulePlan],
    pub tiers: &'p [u32],
    /// Relations outside the block that its rules read.
    pub reads: Vec<RelId>,
    /// For a relation of `reads` whose facts enter at a round of their own
    /// ([`crate::check::ir::Relation::enters_at_round`]): the column that gives it.
    pub enters_at: &'p dyn Fn(RelId) -> Option<usize>,
    pub explain: bool,
    pub max_rounds: Option<u32>,
    /// Views that have facts in the program text.
    pub view_facts: &'p [RelId],
    /// The tier of every rule of the program, by rule index.
    pub rule_tiers: &'p [u32],
    /// Which relations leave the block: (contents read later, changes observed) for
    /// each. The state relations always leave (the session's probe follows them).
    pub leaves: &'p dyn Fn(RelId) -> (bool, bool),
    /// Whether a state relation takes a part of the session's input (one that
    /// takes none starts from what the rules derive).
    pub takes_input: &'p dyn Fn(RelId) -> bool,
}

/// The key of the least-tier arrangement: the instance's value and a tier.
fn instance_tier<const W: usize>(instance: &Wide<W>, tier: Value, keyed: bool) -> Wide<W> {
    if keyed {
        row(&[instance[0], tier])
    } else {
        row(&[tier])
    }
}

/// Drops differences at rounds >= `limit`, so a variable stops after `limit` rounds.
fn limit<'s, R: Rounds, D: Clone + 'static>(
    c: Collection<'s, R, D>,
    limit: Option<u32>,
) -> Collection<'s, R, D> {
    match limit {
        None => c,
        Some(k) => c
            .inner
            .filter(move |(_, t, _)| t.round() < k)
            .as_collection(),
    }
}

/// What the block's joins and antijoins read of relations outside it: (relation, key
/// columns, whether only the distinct keys are read), in a fixed order (every worker
/// builds the same operators in the same order).
type Lookups = BTreeSet<(RelId, Vec<usize>, bool)>;

/// Adds the lookups of `p` (and of its aggregates' bodies) into relations of `reads`.
fn outer_lookups(p: &Pipeline, reads: &[RelId], arities: &[usize], into: &mut Lookups) {
    // An antijoin straight on a scan of a relation outside reads that relation's
    // set of rows as its rows keyed (`pipeline::antijoin_rows`): arranged outside too.
    if let Some(rel) = p
        .antijoin_on_its_scan(arities)
        .filter(|r| reads.contains(r))
    {
        into.insert((rel, (0..arities[rel]).collect(), true));
    }
    for step in &p.steps {
        match step {
            Step::Join { rel, key_cols, .. } if reads.contains(rel) => {
                let whole = key_cols.iter().copied().eq(0..arities[*rel]);
                into.insert((*rel, key_cols.clone(), whole));
            }
            Step::Antijoin { rel, key_cols, .. } if reads.contains(rel) => {
                into.insert((*rel, key_cols.clone(), true));
            }
            Step::Aggregate { body, .. } => outer_lookups(body, reads, arities, into),
            _ => {}
        }
    }
}

/// Arrangements of relations outside a block: (relation, key columns, arrangement).
type Outer<A> = Vec<(RelId, Vec<usize>, A)>;

/// The arrangements, outside the block, of the outer relations its joins and
/// antijoins read: rows by key, and distinct keys, charged to those relations.
fn outer_arrangements<'s, const W: usize>(
    env: &mut Env<'s, Epoch, W>,
    spec: &BlockSpec<'_>,
) -> (Outer<RowArr<'s, Epoch, W>>, Outer<KeyArr<'s, Epoch, W>>)
where
    Wide<W>: ExchangeData,
{
    let mut lookups = Lookups::new();
    let plans = spec.views.iter().flat_map(|(_, rs)| rs).chain(spec.rules);
    for rp in plans {
        outer_lookups(&rp.body, &spec.reads, &env.arities, &mut lookups);
    }
    let mut outer_rows = Vec::new();
    let mut outer_keys = Vec::new();
    for (rel, cols, keys) in lookups {
        let first = env.next_operator();
        if keys {
            outer_keys.push((rel, cols.clone(), env.keys_pub(rel, &cols)));
        } else {
            outer_rows.push((rel, cols.clone(), env.rows_pub(rel, &cols)));
        }
        env.charge(Charge::Relation(rel), first);
    }
    (outer_rows, outer_keys)
}

/// Renders a block in a scope of its own whose rounds are timed by `R` (see
/// [`super::time`]: incremental or batch). The relations outside it that its joins
/// and antijoins read are arranged outside and entered: the block has no operators
/// for them, and they are stored once, at the top level's times.
pub fn render_block<'s, R: Rounds, const W: usize>(
    env: &mut Env<'s, Epoch, W>,
    scope: Scope<'s, Epoch>,
    inputs: &HashMap<RelId, Collection<'s, Epoch, Wide<W>>>,
    spec: BlockSpec<'_>,
) -> BlockOut<'s, W>
where
    Wide<W>: ExchangeData,
{
    let (outer_rows, outer_keys) = outer_arrangements(env, &spec);
    scope.scoped::<R, _, _>(R::NAME, |inner| {
        let mut ienv = Env::new(
            env.unit.clone().enter(inner),
            env.arities.clone(),
            env.profile.clone(),
            env.symbols.clone(),
        );
        ienv.caps = env.caps.clone();
        for (rel, cols, arr) in outer_rows {
            ienv.enter_rows(rel, &cols, arr.enter(inner));
        }
        for (rel, cols, arr) in outer_keys {
            ienv.enter_keys(rel, &cols, arr.enter(inner));
        }
        for r in &spec.reads {
            let entered = env.rels[r].clone().enter(inner);
            let entered = match (spec.enters_at)(*r) {
                // Each fact at the round its column gives (as `enter_at` does).
                Some(k) => entered
                    .inner
                    .map(move |(row, t, d): (Wide<W>, R, isize)| {
                        let at = t.at_round(row[k].max(0) as u32);
                        (row, at, d)
                    })
                    .as_collection(),
                None => entered,
            };
            ienv.rels.insert(*r, entered);
        }
        let mut vars = Vec::new();
        for &s in spec.state {
            let (var, cur) = VecVariable::<R, Wide<W>, isize>::new(inner, R::step());
            ienv.rels.insert(s, cur.clone());
            vars.push((s, var, cur));
        }
        render_views(&mut ienv, inner, inputs, &spec);
        let derived = derive(&mut ienv, &spec);
        let Gated {
            mut additions,
            allowed,
        } = gate(&mut ienv, inner, &spec, &derived);
        // What leaves: each relation's rows, with (its tag, whether they carry their
        // rounds).
        let mut left: Vec<LeavingPart<'_, R, W>> = Vec::new();
        let mut rels = Vec::new();
        // Additions hold only new facts when gated or explained: then S_i must be
        // carried into S_{i+1} explicitly.
        let complete = spec.monotone && spec.tiers.len() <= 1 && derived.explained.is_empty();
        for (s, var, cur) in vars {
            let first = ienv.next_operator();
            let mut parts = Vec::new();
            if (spec.takes_input)(s) {
                parts.push(inputs[&s].clone().enter(inner));
            }
            if !complete {
                parts.push(cur.clone());
            }
            parts.extend(additions.remove(&s).unwrap_or_default());
            let next = limit(R::distinct(concatenate(inner, parts)), spec.max_rounds);
            var.set(next);
            let (_, observed) = (spec.leaves)(s);
            left.push((cur, (s as u32, true)));
            rels.push(Left { rel: s, observed });
            ienv.charge(Charge::Relation(s), first);
        }
        views_leaving(&mut ienv, &spec, &mut left, &mut rels);
        let events = !derived.explained.is_empty();
        let reasons = if events {
            vec![first_reasons(inner, &spec, derived.explained, &allowed)]
        } else {
            Vec::new()
        };
        // Each relation tagged (and a state relation's facts with their rounds) in
        // the one operator that unites them.
        let (parts, tags): (Vec<_>, Vec<_>) = left.into_iter().unzip();
        let tag = move |k: usize, r: Wide<W>, t: &R| {
            let (rel, state) = tags[k];
            (rel, r, [0; W], if state { t.round() } else { 0 })
        };
        BlockOut {
            left: tagged_union(inner, "Leaving", parts, reasons, tag).leave(scope),
            rels,
            events,
        }
    })
}

/// The block's views that leave it (a later stratum reads them, or the session
/// hears them): each view's rows, with its tag and no rounds (views leave with
/// round 0), into `left`, and the view into `rels`.
fn views_leaving<'i, R: Rounds, const W: usize>(
    ienv: &mut Env<'i, R, W>,
    spec: &BlockSpec<'_>,
    left: &mut Vec<LeavingPart<'i, R, W>>,
    rels: &mut Vec<Left>,
) where
    Wide<W>: ExchangeData,
{
    for (v, _) in spec.views {
        let (contents, observed) = (spec.leaves)(*v);
        if contents || observed {
            left.push((ienv.rels[v].clone(), (*v as u32, false)));
            rels.push(Left { rel: *v, observed });
        }
    }
}

/// Renders the block's views in evaluation order, each into `ienv.rels`. `inputs`:
/// the relations' inputs outside the block (a view with program facts enters its own).
fn render_views<'s, 'i, R: Rounds, const W: usize>(
    ienv: &mut Env<'i, R, W>,
    inner: Scope<'i, R>,
    inputs: &HashMap<RelId, Collection<'s, Epoch, Wide<W>>>,
    spec: &BlockSpec<'_>,
) where
    Wide<W>: ExchangeData,
{
    for (v, rules) in spec.views {
        let mut parts = Vec::new();
        for rp in rules {
            parts.push(render_rule(ienv, rp, None).0);
        }
        // A lone rule that yields a set needs no distinct. Views take no inputs
        // from the session: only a view with program facts enters its input.
        let first = ienv.next_operator();
        let has_facts = spec.view_facts.contains(v);
        let coll = if rules.len() == 1 && rules[0].yields_set && !has_facts {
            parts.pop().unwrap()
        } else {
            if has_facts {
                parts.push(inputs[v].clone().enter(inner));
            }
            let all = concatenate(inner, parts);
            if R::TOTAL {
                R::distinct(all)
            } else {
                // The distinct's own trace is the view's keys by every column: the
                // joins and antijoins that look it up read it.
                let keys = distinct_keys(all.map(|r| (r, ())));
                let cols: Vec<usize> = (0..ienv.arities[*v]).collect();
                ienv.share_keys(*v, &cols, keys.clone());
                keys.as_collection(|k, _| *k)
            }
        };
        ienv.rels.insert(*v, coll);
        ienv.charge(Charge::Relation(*v), first);
    }
}

/// What the block's rules derive in a round.
struct Derived<'i, R: Rounds, const W: usize> {
    /// Derivations per (state relation, tier).
    heads: HashMap<(RelId, u32), Vec<Collection<'i, R, Wide<W>>>>,
    /// `@ungated` derivations, per state relation: added as they are.
    ungated: HashMap<RelId, Vec<Collection<'i, R, Wide<W>>>>,
    /// Explained derivations: (head relation, tier, events).
    explained: Vec<(RelId, u32, Explained<'i, R, W>)>,
}

/// Renders the block's rules (heads: state relations).
fn derive<'i, R: Rounds, const W: usize>(
    ienv: &mut Env<'i, R, W>,
    spec: &BlockSpec<'_>,
) -> Derived<'i, R, W>
where
    Wide<W>: ExchangeData,
{
    let mut derived = Derived {
        heads: HashMap::new(),
        ungated: HashMap::new(),
        explained: Vec::new(),
    };
    let share = ienv.profile.is_none();
    for group in share_tails(spec.rules, share) {
        let rp = match &group {
            Group::One(rp) => *rp,
            Group::Tail(_, rules) => rules[0],
        };
        // Gated, a rule's rows carry its tier (see `new_by_tier`).
        let tag = (!rp.ungated && tier_in_row(spec, ienv.arities[rp.head], W))
            .then_some(rp.tier as Value);
        let (hs, ev) = match &group {
            Group::One(rp) => {
                let (h, ev) = render_rule(ienv, rp, tag);
                (vec![h], ev)
            }
            Group::Tail(tail, rules) => (render_group(ienv, tail, rules, tag), None),
        };
        if rp.ungated {
            derived.ungated.entry(rp.head).or_default().extend(hs);
            continue;
        }
        derived
            .heads
            .entry((rp.head, rp.tier))
            .or_default()
            .extend(hs);
        if let (Some(ev), true) = (ev, spec.explain) {
            derived.explained.push((rp.head, rp.tier, ev));
        }
    }
    derived
}

/// What tier gating lets into the next round.
struct Gated<'i, R: Rounds, const W: usize> {
    /// What each state relation gets in round i+1 (ungated derivations included).
    additions: HashMap<RelId, Vec<Collection<'i, R, Wide<W>>>>,
    /// (fact, [tier]) for the facts of each state relation new in this round that
    /// their tier may add (only when gated or explained).
    allowed: HashMap<RelId, Tagged<'i, R, W>>,
}

/// Tier gating: a fact's tier must be the least tier with anything new for its
/// instance (one `min` per instance for the whole block, rather than an antijoin per
/// relation and tier: every operator runs in every round). Without tiers or
/// explanations, every derivation is an addition.
fn gate<'i, R: Rounds, const W: usize>(
    ienv: &mut Env<'i, R, W>,
    inner: Scope<'i, R>,
    spec: &BlockSpec<'_>,
    derived: &Derived<'i, R, W>,
) -> Gated<'i, R, W>
where
    Wide<W>: ExchangeData,
{
    let mut additions = derived.ungated.clone();
    let mut allowed = HashMap::new();
    let heads = &derived.heads;
    let gated = spec.tiers.len() > 1;
    if !gated && derived.explained.is_empty() {
        for &s in spec.state {
            for &t in spec.tiers {
                if let Some(hs) = heads.get(&(s, t)) {
                    additions.entry(s).or_default().extend(hs.iter().cloned());
                }
            }
        }
        return Gated { additions, allowed };
    }
    let mut new = new_by_tier(ienv, inner, spec, heads);
    if gated {
        new = least_tier_only(inner, spec, heads, new);
    }
    for (s, ok) in new {
        additions
            .entry(s)
            .or_default()
            .push(ok.clone().map(|(r, _)| r));
        allowed.insert(s, ok);
    }
    Gated { additions, allowed }
}

/// Of each state relation's new facts (`new`, (fact, [tier])), those whose tier is
/// the least with anything new for their instance in that round (a gated block's).
/// A fact of the block's lowest tier always is (no tier is less): only the others
/// are looked up in the instances' least tiers, and a relation whose rules are all
/// of the lowest tier joins nothing. That join keys a relation's new facts of a tier
/// by their instance (one key for one puzzle), so each change of the instance's
/// least tier goes over that key's history: the fewer facts it holds, the better.
fn least_tier_only<'i, R: Rounds, const W: usize>(
    inner: Scope<'i, R>,
    spec: &BlockSpec<'_>,
    heads: &HashMap<(RelId, u32), Vec<Collection<'i, R, Wide<W>>>>,
    new: Vec<(RelId, Tagged<'i, R, W>)>,
) -> Vec<(RelId, Tagged<'i, R, W>)>
where
    Wide<W>: ExchangeData,
{
    let key = spec.key;
    let instance = move |r: &Wide<W>| match key {
        Some(k) => row(&[r[k]]),
        None => row(&[]),
    };
    let new_by_instance = concatenate(
        inner,
        new.iter()
            .map(|(_, n)| n.clone().map(move |(r, t)| (instance(&r), t))),
    );
    let least = least_value(new_by_instance, "LeastTier")
        .map(move |(i, t)| instance_tier(&i, t[0], key.is_some()))
        .arrange_by_self();
    let lowest = spec.tiers[0];
    let mut out = Vec::new();
    for (s, n) in new {
        let low = heads.contains_key(&(s, lowest));
        let high = spec.tiers[1..].iter().any(|&t| heads.contains_key(&(s, t)));
        let least = least.clone();
        let lookup = move |n: Tagged<'i, R, W>| {
            n.map(move |(r, t)| (instance_tier(&instance(&r), t[0], key.is_some()), (r, t)))
                .join_core(least, |_k, rt, &()| Some(*rt))
        };
        let ok = match (low, high) {
            (_, false) => n,
            (false, true) => lookup(n),
            (true, true) => {
                let l = lowest as Value;
                let above = n.clone().filter(move |(_, t)| t[0] != l);
                n.filter(move |(_, t)| t[0] == l).concat(lookup(above))
            }
        };
        out.push((s, ok));
    }
    out
}

/// Whether a gated block's rules deriving a relation of `arity` write their tier
/// into their rows (the column after the fact's last, free at width `w`), so that
/// one operator takes the tags out of all the relation's derivations, not two for
/// each tier (one to gather its rules' rows and one to tag them).
fn tier_in_row(spec: &BlockSpec<'_>, arity: usize, w: usize) -> bool {
    spec.tiers.len() > 1 && arity < w
}

/// For each state relation: its derivations in this round tagged with their tier
/// ((fact, [tier])), less those already in the state.
fn new_by_tier<'i, R: Rounds, const W: usize>(
    ienv: &mut Env<'i, R, W>,
    inner: Scope<'i, R>,
    spec: &BlockSpec<'_>,
    heads: &HashMap<(RelId, u32), Vec<Collection<'i, R, Wide<W>>>>,
) -> Vec<(RelId, Tagged<'i, R, W>)>
where
    Wide<W>: ExchangeData,
{
    let mut new: Vec<(RelId, Tagged<'i, R, W>)> = Vec::new();
    for &s in spec.state {
        let arity = ienv.arities[s];
        let in_row = tier_in_row(spec, arity, W);
        let tagged: Vec<Tagged<'i, R, W>> = if in_row {
            // The rules wrote their tier after the fact: one operator takes it out.
            let hs: Vec<_> = spec
                .tiers
                .iter()
                .filter_map(|&t| heads.get(&(s, t)))
                .flatten()
                .cloned()
                .collect();
            if hs.is_empty() {
                Vec::new()
            } else {
                vec![concatenate(inner, hs).map(move |mut r| {
                    let t = std::mem::take(&mut r[arity]);
                    (r, row(&[t]))
                })]
            }
        } else {
            spec.tiers
                .iter()
                .filter_map(|&t| {
                    let hs = heads.get(&(s, t))?;
                    Some(concatenate(inner, hs.clone()).map(move |r| (r, row(&[t as Value]))))
                })
                .collect()
        };
        if tagged.is_empty() {
            continue;
        }
        let all: Vec<usize> = (0..arity).collect();
        let state_arr = ienv.keys_pub(s, &all);
        let tagged = match tagged.len() {
            1 => tagged.into_iter().next().unwrap(),
            _ => concatenate(inner, tagged),
        };
        let matched = tagged
            .clone()
            .join_core(state_arr, |k, v, &()| Some((*k, *v)));
        new.push((s, tagged.concat(matched.negate())));
    }
    new
}

/// One event per new fact: the least (rule, bindings) that derived it, among the
/// explained derivations of allowed facts by rules of the allowed tier, accumulated
/// over the rounds; tagged [`EVENT`] to leave the block.
fn first_reasons<'i, R: Rounds, const W: usize>(
    inner: Scope<'i, R>,
    spec: &BlockSpec<'_>,
    explained: Vec<(RelId, u32, Explained<'i, R, W>)>,
    allowed: &HashMap<RelId, Tagged<'i, R, W>>,
) -> Collection<'i, R, Leaving<W>>
where
    Wide<W>: ExchangeData,
{
    let tier_of = spec.rule_tiers.to_vec();
    // Ordered: every worker must build the same operators in the same order.
    let mut by_rel: std::collections::BTreeMap<RelId, Vec<Explained<'_, R, W>>> =
        Default::default();
    for (s, _t, ev) in explained {
        by_rel.entry(s).or_default().push(ev);
    }
    let mut all = Vec::new();
    for (s, evs) in by_rel {
        let ok = allowed[&s].clone().arrange_by_key();
        let tiers = tier_of.clone();
        let chosen = concatenate(inner, evs).join_core(ok, move |h, b, t| {
            (tiers[b[0] as usize] as Value == t[0]).then_some((*h, *b))
        });
        all.push(least_value(chosen, "FirstReason"));
    }
    let (var, acc) = VecVariable::<R, (Wide<W>, Wide<W>), isize>::new(inner, R::step());
    let next = limit(
        R::distinct(concatenate(inner, all).concat(acc.clone())),
        spec.max_rounds,
    );
    var.set(next);
    acc.inner
        .map(|((h, b), t, d): ((Wide<W>, Wide<W>), R, isize)| ((EVENT, h, b, t.round()), t, d))
        .as_collection()
}
