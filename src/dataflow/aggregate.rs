//! Aggregates (`n = count : { ... }`, `sum`, `min`, `max`) per group of a rule's rows.
//!
//! In: the rows reaching the aggregate, its group columns, its body (a pipeline fed
//! the distinct groups). Out: each group's value, as a one-column row beside the
//! group (`(group, [value])`), for every group among the rows, empty groups included
//! (a count of 0; no `min` of nothing).
//!
//! Every group carries a marker so that an empty group still has a value. When the
//! body is one relation read by the group's columns (`count : { candidate(p, c, _) }`,
//! the usual case), the relation's rows are counted directly, keyed by their group,
//! with no join against the groups: a group's marker decides whether its key is
//! reported, so rows of groups that are not asked for drop out there. When the rows
//! reaching a count are that same relation scanned alike (`ncand(p, c, n) :-
//! candidate(p, c, _), n = count : { candidate(p, c, _) }`), every group asked for
//! has rows and every group with rows is asked for: the rows are counted with no
//! markers at all.
//!
//! A count that defines a view whose groups of one row a rule reads
//! ([`crate::plan::Source::Lone`]) also hands those rows on: where time is totally
//! ordered it carries, beside each row's weight, the row's one column outside the
//! group (a pair of weights), so a group counted 1 holds that column in its sum;
//! elsewhere one reduce per group yields its count and, for a count of 1, that
//! column.

use differential_dataflow::{ExchangeData, VecCollection as Collection};

use super::pipeline::{render_pipeline, Diff, Env};
use super::row::{build, project, row, Wide};
use super::time::Time;
use crate::check::ir::{AggFunc, RelId, Value};
use crate::plan::{AtomFilter, Pick, Pipeline, SExpr, Source, Step};

/// A group marker's weight in a direct count: a key's total weight is the number of
/// its rows plus this times the multiplicity of its group among the rows (so a count
/// below it has no group, and the count is the remainder).
const MARK: isize = 1 << 40;

/// An aggregate step's parts (see [`crate::plan::Step::Aggregate`]).
pub struct AggSpec<'a> {
    /// The rows reaching the aggregate, when they come straight from a scan.
    pub scanned: Option<Scanned<'a>>,
    pub group: &'a [usize],
    pub func: AggFunc,
    pub body: &'a Pipeline,
    pub target: &'a Option<SExpr>,
    pub body_group: &'a [usize],
    pub body_set: bool,
    /// The body is planned on its own (rows of every binding, not fed the groups).
    pub streamed: bool,
    /// The view whose singles the count hands on, in [`Env::lone`].
    pub lone: Option<RelId>,
    /// A count reported as `min(n, cap)` where a reduce yields it (see
    /// [`crate::plan::caps`]): its output then changes only when that does.
    pub cap: Option<Value>,
}

/// A pipeline's scan: the rows of `rel` that pass `filter`, projected by `out`.
#[derive(Clone, Copy)]
pub struct Scanned<'a> {
    pub rel: RelId,
    pub filter: &'a AtomFilter,
    pub out: &'a [Pick],
}

/// A body that is one atom whose key columns include every group column: each row of
/// the relation that passes the atom's conditions is one body row of exactly one group.
struct Direct {
    rel: RelId,
    filter: AtomFilter,
    key_cols: Vec<usize>,
    probe: Vec<Pick>,
    out: Vec<Pick>,
    groups: usize,
}

impl Direct {
    /// The direct form of `spec`'s body, if it has one. The body must yield a set
    /// (all of the atom's variables kept): then its rows are the relation's rows.
    fn of(spec: &AggSpec<'_>) -> Option<Direct> {
        let [Step::Join {
            rel,
            key_cols,
            probe,
            filter,
            out,
        }] = spec.body.steps.as_slice()
        else {
            return None;
        };
        let groups = spec.group.len();
        let probed = |j: usize| probe.contains(&Pick::Slot(j));
        let ok = spec.body_set
            && spec.body.source == Source::Given
            && groups > 0
            && (0..groups).all(probed)
            && probe.iter().all(|p| !matches!(p, Pick::Col(_)));
        ok.then(|| Direct {
            rel: *rel,
            filter: filter.clone(),
            key_cols: key_cols.clone(),
            probe: probe.clone(),
            out: out.clone(),
            groups,
        })
    }

    /// Whether the groups asked for are exactly those with body rows: the rows
    /// reaching the aggregate scan the body's relation with the same conditions, and
    /// each group column is the column the body reads it from (no constants in the
    /// body's atom, no variable twice in it).
    fn groups_are_its_own(&self, spec: &AggSpec<'_>) -> bool {
        let Some(scan) = spec.scanned else {
            return false;
        };
        let mut col_of = vec![None; self.groups];
        for (p, &c) in self.probe.iter().zip(&self.key_cols) {
            match *p {
                Pick::Slot(j) if j < self.groups && col_of[j].is_none() => col_of[j] = Some(c),
                _ => return false,
            }
        }
        scan.rel == self.rel
            && *scan.filter == self.filter
            && spec.group.iter().zip(&col_of).all(|(&slot, c)| {
                matches!((scan.out.get(slot), c), (Some(Pick::Col(a)), Some(b)) if a == b)
            })
    }

    /// A relation row's group and body row, if it passes the atom's conditions.
    #[inline]
    fn apply<const W: usize>(&self, r: &Wide<W>) -> Option<(Wide<W>, Wide<W>)> {
        if !self.filter.accepts(r) {
            return None;
        }
        let mut g = [0; W];
        let mut set = [false; W];
        for (p, &c) in self.probe.iter().zip(&self.key_cols) {
            match *p {
                Pick::Const(v) if r[c] != v => return None,
                Pick::Slot(j) if set[j] && g[j] != r[c] => return None,
                Pick::Slot(j) => {
                    g[j] = r[c];
                    set[j] = true;
                }
                _ => {}
            }
        }
        debug_assert!(set[..self.groups].iter().all(|&s| s));
        Some((g, build(&self.out, &g, r)))
    }
}

/// Each group's aggregate value, for every group of `rows` (projected onto
/// `spec.group`), passed through `finish` (group, [value]) in the operator that
/// yields it: a rule's head built there needs no operator of its own. `rows` is
/// called only where the groups are needed (a count or sum over the rows' own
/// relation builds no operator for them). `whole`: the rows are their groups.
pub fn aggregate_groups<'s, T: Time, const W: usize, O, F>(
    env: &mut Env<'s, T, W>,
    rows: impl FnOnce() -> Collection<'s, T, Wide<W>>,
    spec: &AggSpec<'_>,
    whole: bool,
    finish: F,
) -> Collection<'s, T, O>
where
    Wide<W>: ExchangeData,
    O: ExchangeData,
    F: Fn(&Wide<W>, &Wide<W>) -> Option<O> + 'static,
{
    let g = spec.group.to_vec();
    let groups = move || {
        if whole {
            rows()
        } else {
            rows().map(move |r| project(&g, &r))
        }
    };
    if spec.streamed {
        return streamed(env, groups(), spec, finish);
    }
    match Direct::of(spec) {
        Some(d) => direct(env, groups, d, spec, finish),
        None => joined(env, groups(), spec, whole, finish),
    }
}

/// A count or sum over a body planned on its own ([`crate::plan::Step::Aggregate`]'s
/// `streamed`): its rows, one per binding, each weighed as it comes, the groups asked
/// for as markers (as [`direct`] reads one relation). Where time is totally ordered
/// a running count of (rows, sum) pairs; elsewhere one reduce per group that weighs
/// each value by its multiplicity (two bindings may project onto one row).
fn streamed<'s, T: Time, const W: usize, O, F>(
    env: &mut Env<'s, T, W>,
    groups: Collection<'s, T, Wide<W>>,
    spec: &AggSpec<'_>,
    finish: F,
) -> Collection<'s, T, O>
where
    Wide<W>: ExchangeData,
    O: ExchangeData,
    F: Fn(&Wide<W>, &Wide<W>) -> Option<O> + 'static,
{
    let rows = render_pipeline(env, spec.body, None);
    let (bg, target) = (spec.body_group.to_vec(), spec.target.clone());
    let count = spec.func == AggFunc::Count;
    // A row's value: nothing for a count; a sum's target (0 where it does not
    // evaluate, a division by zero: the row still belongs to its group).
    let value = move |r: &Wide<W>| match &target {
        Some(t) if !count => t.eval(r).unwrap_or(0),
        _ => 0,
    };
    if T::TOTAL {
        let weigh = move |r: Wide<W>| Some((project(&bg, &r), value(&r) as isize));
        return weighed(rows, Some(groups), weigh).flat_map(move |(g, (n, sum))| {
            let n = reported(n, false)?;
            let v = if count { n } else { sum };
            finish(&g, &row(&[v as Value]))
        });
    }
    let cap = spec.cap;
    let keyed = rows
        .map(move |r| (project(&bg, &r), Some(value(&r))))
        .concat(groups.map(|g| (g, None)));
    keyed
        .reduce_named(
            "StreamedAggregate",
            move |_k, input: &[(&Option<Value>, Diff)], output| {
                if !input.iter().any(|(v, d)| v.is_none() && *d > 0) {
                    return; // rows of a group that is not asked for
                }
                let (mut n, mut sum) = (0 as Diff, 0 as Diff);
                for (v, d) in input {
                    if let (Some(x), true) = (v, *d > 0) {
                        n += d;
                        sum += *x as Diff * d;
                    }
                }
                let v = if count {
                    capped(n as Value, cap)
                } else {
                    sum as Value
                };
                output.push((row(&[v]), 1));
            },
        )
        .flat_map(move |(g, v)| finish(&g, &v))
}

/// The body read straight from its relation; a group's marker decides whether it is
/// reported (groups need not be distinct). A count asked for its singles
/// (`spec.lone`) registers them in `env.lone`. Where time is totally ordered, counts
/// and sums are running counts of weights (no history replay, no output trace).
fn direct<'s, T: Time, const W: usize, O, F>(
    env: &mut Env<'s, T, W>,
    groups: impl FnOnce() -> Collection<'s, T, Wide<W>>,
    d: Direct,
    spec: &AggSpec<'_>,
    finish: F,
) -> Collection<'s, T, O>
where
    Wide<W>: ExchangeData,
    O: ExchangeData,
    F: Fn(&Wide<W>, &Wide<W>) -> Option<O> + 'static,
{
    let rel = env.rels[&d.rel].clone();
    let its_own = d.groups_are_its_own(spec);
    let own = spec.func == AggFunc::Count && its_own;
    if let Some(view) = spec.lone {
        let arity = env.arities[d.rel];
        let marks = (!own).then(groups);
        let (counts, singles) = count_with_singles(rel, marks, d, arity, spec.cap, finish);
        env.lone.insert(view, singles);
        return counts;
    }
    if spec.func == AggFunc::Count && T::TOTAL {
        // A running count of weights (no history replay, no output trace); without
        // markers where the groups are the rows' own.
        let keys = rel.flat_map(move |r| d.apply(&r).map(|(g, _)| (g, ())));
        let keys = match (!own).then(groups) {
            None => keys,
            Some(groups) => keys.concat(groups.explode(|g| Some(((g, ()), MARK)))),
        };
        let counts = T::count_keys(keys).expect("time is totally ordered");
        return counts.flat_map(move |(g, n)| finish(&g, &row(&[reported(n, own)? as Value])));
    }
    if own {
        // No markers: a reduce's count.
        let keys = rel.flat_map(move |r| d.apply(&r).map(|(g, _)| g));
        return keys
            .count()
            .flat_map(move |(g, n)| finish(&g, &row(&[n as Value])));
    }
    if spec.func == AggFunc::Sum && T::TOTAL {
        // Each row weighs its value (wrapping at 32 bits, as a reduce's sum does); a
        // row whose target does not evaluate (a division by zero) adds nothing but is
        // a row of its group.
        let target = spec.target.clone().expect("a sum has a target");
        let weigh = move |r: Wide<W>| {
            let (g, b) = d.apply(&r)?;
            Some((g, target.eval(&b).map_or(0, |v| v as isize)))
        };
        let sums = weighed(rel, (!its_own).then(groups), weigh);
        return sums.flat_map(move |(g, (n, sum))| {
            reported(n, its_own)?;
            finish(&g, &row(&[sum as Value]))
        });
    }
    let keyed = rel.flat_map(move |r| d.apply(&r).map(|(g, b)| (g, Some(b))));
    reduce_values(keyed.concat(groups().map(|g| (g, None))), spec)
        .flat_map(move |(g, v)| finish(&g, &v))
}

/// Where time is totally ordered: each group's rows and the sum of their weights, as
/// one running count of pairs (no history replay, no output trace). In: the
/// relation's rows, each weighed by `weigh` as (its group, its weight), or left out;
/// the groups asked for (`None`: the groups are the relation's own, every group with
/// rows is reported). With groups, a row weighs (1, its weight) and a group asked for
/// (MARK, 0): see [`reported`]. Out: `(group, (rows, sum))` as they change.
fn weighed<'s, T: Time, const W: usize>(
    rel: Collection<'s, T, Wide<W>>,
    marks: Option<Collection<'s, T, Wide<W>>>,
    weigh: impl Fn(Wide<W>) -> Option<(Wide<W>, isize)> + 'static,
) -> Collection<'s, T, (Wide<W>, (isize, isize))>
where
    Wide<W>: ExchangeData,
{
    let weighted = rel.explode(move |r| weigh(r).map(|(g, w)| ((g, ()), (1isize, w))));
    let weighted = match marks {
        None => weighted,
        Some(groups) => weighted.concat(groups.explode(|g| Some(((g, ()), (MARK, 0isize))))),
    };
    T::count_keys(weighted).expect("time is totally ordered")
}

/// A group's rows from its first weight in [`weighed`]: all of it where the groups
/// are the relation's own, else `None` for a group not asked for (below MARK).
#[inline]
fn reported(n: isize, own: bool) -> Option<isize> {
    if own {
        Some(n)
    } else {
        (n >= MARK).then_some(n % MARK)
    }
}

/// The counted relation's one column outside the group, and a row of the relation
/// from a group and that column's value.
fn single_row<const W: usize>(
    d: &Direct,
    arity: usize,
) -> (usize, impl Fn(&Wide<W>, Value) -> Wide<W>) {
    let extra = (0..arity)
        .find(|c| !d.key_cols.contains(c))
        .expect("the counted relation has one column outside the group");
    let (probe, key_cols) = (d.probe.clone(), d.key_cols.clone());
    let build = move |g: &Wide<W>, x: Value| {
        let mut r = [0; W];
        for (p, &c) in probe.iter().zip(&key_cols) {
            if let Pick::Slot(j) = p {
                r[c] = g[*j];
            }
        }
        r[extra] = x;
        r
    };
    (extra, build)
}

/// A count that hands on its singles: `rel` has `arity` columns, the group's and one
/// more. Out: each reported group's count through `finish`, and the rows of `rel`
/// alone in their group. `marks`: the groups asked for (`None`: the relation's own,
/// no markers). Where time is totally ordered, each row's weight carries that column
/// beside its 1 (a pair of weights), so the sum of a group of one row is its row's
/// column; elsewhere one reduce per group yields its count and, for a count of 1,
/// that column (and the count capped at `cap`, when given).
fn count_with_singles<'s, T: Time, const W: usize, O, F>(
    rel: Collection<'s, T, Wide<W>>,
    marks: Option<Collection<'s, T, Wide<W>>>,
    d: Direct,
    arity: usize,
    cap: Option<Value>,
    finish: F,
) -> (Collection<'s, T, O>, Collection<'s, T, Wide<W>>)
where
    Wide<W>: ExchangeData,
    O: ExchangeData,
    F: Fn(&Wide<W>, &Wide<W>) -> Option<O> + 'static,
{
    let (extra, single) = single_row::<W>(&d, arity);
    let own = marks.is_none();
    // A count that hands on its singles is read at 1: capped, at 2 at least, so that
    // a count of 1 stays told apart from more.
    let cap = cap.map(|c| c.max(2));
    if T::TOTAL {
        let weigh = move |r: Wide<W>| d.apply(&r).map(|(g, _)| (g, r[extra] as isize));
        let sums = weighed(rel, marks, weigh);
        let counts = sums
            .clone()
            .flat_map(move |(g, (n, _))| finish(&g, &row(&[reported(n, own)? as Value])));
        let singles = sums
            .flat_map(move |(g, (n, x))| (reported(n, own)? == 1).then(|| single(&g, x as Value)));
        return (counts, singles);
    }
    // (group, (count, the column of its one row or 0)) for every reported group.
    let keyed = rel.flat_map(move |r| d.apply(&r).map(|(g, _)| (g, Some(r[extra]))));
    let keyed = match marks {
        None => keyed,
        Some(groups) => keyed.concat(groups.map(|g| (g, None))),
    };
    let counted = keyed.reduce_named(
        "CountSingles",
        move |_k, input: &[(&Option<Value>, Diff)], output| {
            if !own && !input.iter().any(|(v, d)| v.is_none() && *d > 0) {
                return; // rows of a group that is not asked for
            }
            let mut rows = input.iter().filter(|(v, d)| v.is_some() && *d > 0);
            let n = rows.clone().count();
            let one = match (n, rows.next()) {
                (1, Some((v, _))) => v.unwrap_or(0),
                _ => 0,
            };
            output.push(((capped(n as Value, cap), one), 1));
        },
    );
    let counts = counted
        .clone()
        .flat_map(move |(g, (n, _))| finish(&g, &row(&[n])));
    let singles = counted.flat_map(move |(g, (n, x))| (n == 1).then(|| single(&g, x)));
    (counts, singles)
}

/// The body fed the distinct groups (a join per body atom), then counted or reduced.
/// `whole`: the groups are the rows themselves, a set.
fn joined<'s, T: Time, const W: usize, O, F>(
    env: &mut Env<'s, T, W>,
    groups: Collection<'s, T, Wide<W>>,
    spec: &AggSpec<'_>,
    whole: bool,
    finish: F,
) -> Collection<'s, T, O>
where
    Wide<W>: ExchangeData,
    O: ExchangeData,
    F: Fn(&Wide<W>, &Wide<W>) -> Option<O> + 'static,
{
    // A count over a body that yields a set counts without deduplication when its
    // groups are a set too (and time is totally ordered).
    let set_count = spec.func == AggFunc::Count && spec.body_set && T::TOTAL;
    let groups = if whole && !set_count {
        groups
    } else {
        T::distinct(groups)
    };
    let body_rows = render_pipeline(env, spec.body, Some(groups.clone()));
    let bg = spec.body_group.to_vec();
    let keyed = body_rows
        .map(move |r| (project(&bg, &r), Some(r)))
        .concat(groups.map(|g| (g, None)));
    if spec.func == AggFunc::Count {
        // The marker counts too: a group's count is one more than its body rows.
        if let Some(counts) = T::count_distinct(keyed.clone(), set_count) {
            return counts.flat_map(move |(g, n)| finish(&g, &row(&[n as Value - 1])));
        }
    }
    reduce_values(keyed, spec).flat_map(move |(g, v)| finish(&g, &v))
}

/// Each marked group's value from (group, Some(body row)) and (group, None) pairs.
fn reduce_values<'s, T: Time, const W: usize>(
    keyed: Collection<'s, T, (Wide<W>, Option<Wide<W>>)>,
    spec: &AggSpec<'_>,
) -> Collection<'s, T, (Wide<W>, Wide<W>)>
where
    Wide<W>: ExchangeData,
{
    let (func, target, cap) = (spec.func, spec.target.clone(), spec.cap);
    keyed.reduce_named(
        "Aggregate",
        move |_k, input: &[(&Option<Wide<W>>, Diff)], output| {
            if !input.iter().any(|(v, d)| v.is_none() && *d > 0) {
                return; // rows of a group that is not asked for
            }
            let matches = input
                .iter()
                .filter(|(v, d)| v.is_some() && *d > 0)
                .map(|(v, _)| v.unwrap());
            let value = match func {
                AggFunc::Count => Some(capped(matches.count() as Value, cap)),
                AggFunc::Sum => Some(
                    matches
                        .filter_map(|r| target.as_ref().unwrap().eval(&r))
                        .fold(0 as Value, |a, b| a.wrapping_add(b)),
                ),
                AggFunc::Min => matches
                    .filter_map(|r| target.as_ref().unwrap().eval(&r))
                    .min(),
                AggFunc::Max => matches
                    .filter_map(|r| target.as_ref().unwrap().eval(&r))
                    .max(),
            };
            if let Some(v) = value {
                output.push((row(&[v]), 1));
            }
        },
    )
}

/// A count as a capped reduce reports it: `min(n, cap)`, or `n` without a cap.
#[inline]
fn capped(n: Value, cap: Option<Value>) -> Value {
    cap.map_or(n, |c| n.min(c))
}
