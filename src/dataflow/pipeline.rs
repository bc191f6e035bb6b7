//! Rule bodies: a [`Pipeline`] rendered as a chain of maps, joins, antijoins and
//! reduces over rows ([`Wide`]), in any scope (the top level or a block's iterative
//! scope).
//!
//! In: the collections of the relations a rule reads ([`Env::rels`]). Out: the rows
//! of bound variables the pipeline ends with. Arrangements of relations are built on
//! first use and shared through [`Env`], one per (relation, key columns), and one
//! per (relation, filter, key columns) for the rules that start by scanning a
//! relation with that filter and join on those columns.

use std::collections::HashMap;
use std::rc::Rc;

use differential_dataflow::consolidation::ConsolidatingContainerBuilder;
use differential_dataflow::operators::arrange::{Arranged, TraceAgent};
use differential_dataflow::operators::join::join_traces;
use differential_dataflow::trace::implementations::{KeySpine, ValSpine};
use differential_dataflow::trace::wrappers::enter::TraceEnter;
use differential_dataflow::VecCollection as Collection;
use differential_dataflow::{AsCollection, ExchangeData};
use timely::container::PushInto;

use super::aggregate::{aggregate_groups, AggSpec, Scanned};
use super::profile::{Charge, ProfileCell};
use super::row::{build, project, Wide};
use super::time::{arrange_keys, distinct_keys, Epoch, Time};
use crate::check::ir::{CmpOp, RelId, Symbols, Value};
use crate::plan::{AtomFilter, Pick, Pipeline, RulePlan, SExpr, Source, Step};

pub type Diff = isize;
pub type RowArr<'s, T, const W: usize> =
    Arranged<'s, TraceAgent<ValSpine<Wide<W>, Wide<W>, T, Diff>>>;
pub type KeyArr<'s, T, const W: usize> = Arranged<'s, TraceAgent<KeySpine<Wide<W>, T, Diff>>>;
/// A relation of the top level arranged there and entered into a block: the block
/// reads it without operators or storage of its own (see [`Env::enter`]).
pub type OuterRowArr<'s, T, const W: usize> =
    Arranged<'s, TraceEnter<TraceAgent<ValSpine<Wide<W>, Wide<W>, Epoch, Diff>>, T>>;
pub type OuterKeyArr<'s, T, const W: usize> =
    Arranged<'s, TraceEnter<TraceAgent<KeySpine<Wide<W>, Epoch, Diff>>, T>>;

/// A relation arranged by some columns, each entry's value the whole row: in the
/// scope itself, or entered from the top level.
#[derive(Clone)]
pub enum AnyRows<'s, T: Time, const W: usize> {
    Own(RowArr<'s, T, W>),
    Outer(OuterRowArr<'s, T, W>),
}

/// The distinct projections of a relation, arranged: in the scope itself, or
/// entered from the top level.
#[derive(Clone)]
pub enum AnyKeys<'s, T: Time, const W: usize> {
    Own(KeyArr<'s, T, W>),
    Outer(OuterKeyArr<'s, T, W>),
}

/// What a scope knows: relation contents and the arrangements built so far.
pub struct Env<'s, T: Time, const W: usize> {
    pub rels: HashMap<RelId, Collection<'s, T, Wide<W>>>,
    pub arities: Vec<usize>,
    /// Arrangements of relations' rows by key columns, each of the rows that pass a
    /// filter (shared by every rule that scans the relation with that filter, first
    /// thing, and joins on those columns).
    rows: HashMap<(RelId, AtomFilter, Vec<usize>), RowArr<'s, T, W>>,
    keys: HashMap<(RelId, Vec<usize>), KeyArr<'s, T, W>>,
    /// Arrangements of the top level's relations entered into this block.
    outer_rows: HashMap<(RelId, Vec<usize>), OuterRowArr<'s, T, W>>,
    outer_keys: HashMap<(RelId, Vec<usize>), OuterKeyArr<'s, T, W>>,
    pub unit: Collection<'s, T, Wide<W>>,
    /// With `--profile`: where each rule's operators and derivations are recorded.
    pub profile: Option<ProfileCell>,
    /// The program's symbol names, for filters that order symbols by their text.
    pub symbols: Symbols,
    /// Each count view's groups of one row, as rows of the counted relation
    /// ([`Source::Lone`]).
    pub lone: HashMap<RelId, Collection<'s, T, Wide<W>>>,
    /// Per rule index: the cap of the count it defines ([`crate::plan::caps`]).
    pub caps: Rc<HashMap<usize, Value>>,
    /// The cap of the count of the rule being rendered, taken by its aggregate.
    cap: Option<Value>,
}

impl<'s, T: Time, const W: usize> Env<'s, T, W>
where
    Wide<W>: ExchangeData,
{
    pub fn new(
        unit: Collection<'s, T, Wide<W>>,
        arities: Vec<usize>,
        profile: Option<ProfileCell>,
        symbols: Symbols,
    ) -> Self {
        Env {
            rels: HashMap::new(),
            arities,
            rows: HashMap::new(),
            keys: HashMap::new(),
            outer_rows: HashMap::new(),
            outer_keys: HashMap::new(),
            unit,
            profile,
            symbols,
            lone: HashMap::new(),
            caps: Rc::default(),
            cap: None,
        }
    }

    /// The identifier timely gives the next operator built in this worker.
    pub(crate) fn next_operator(&self) -> usize {
        self.unit.inner.scope().worker().peek_identifier()
    }

    /// With a profile: charges the operators built since `first` to `charge`, but
    /// those that a piece rendered among them charges to itself.
    pub(crate) fn charge(&self, charge: Charge, first: usize) {
        if let Some(profile) = &self.profile {
            profile
                .borrow_mut()
                .rendered(charge, first..self.next_operator());
        }
    }

    fn rel(&self, rel: RelId) -> Collection<'s, T, Wide<W>> {
        self.rels
            .get(&rel)
            .expect("relations are rendered before they are read")
            .clone()
    }

    /// `rel` arranged by `cols`, each entry's value the whole row.
    fn rows(&mut self, rel: RelId, cols: &[usize]) -> RowArr<'s, T, W> {
        self.rows_where(rel, &AtomFilter::default(), cols)
    }

    /// The rows of `rel` that pass `filter`, arranged by `cols`, each entry's value
    /// the whole row: built once per (relation, filter, columns) in this scope, so
    /// rules that start by scanning a relation alike and joining on the same
    /// columns share one arrangement (the full rules' tiers scan one relation at
    /// one tier in many rules, say).
    fn rows_where(&mut self, rel: RelId, filter: &AtomFilter, cols: &[usize]) -> RowArr<'s, T, W> {
        let key = (rel, filter.normalized(), cols.to_vec());
        if let Some(a) = self.rows.get(&key) {
            return a.clone();
        }
        let c = cols.to_vec();
        let rows = self.rel(rel);
        let a = if filter.is_empty() {
            rows.map(move |r| (project(&c, &r), r))
        } else {
            let f = filter.clone();
            rows.flat_map(move |r| f.accepts(&r).then(|| (project(&c, &r), r)))
        }
        .arrange_by_key_named("Rows");
        self.rows.insert(key, a.clone());
        a
    }

    /// Hands the block this scope renders the top level's arrangement of `rel` by
    /// `cols` (`keys`: of its distinct projections), entered: joins and antijoins
    /// of the block on those columns read it.
    pub fn enter_rows(&mut self, rel: RelId, cols: &[usize], arr: OuterRowArr<'s, T, W>) {
        self.outer_rows.insert((rel, cols.to_vec()), arr);
    }
    pub fn enter_keys(&mut self, rel: RelId, cols: &[usize], arr: OuterKeyArr<'s, T, W>) {
        self.outer_keys.insert((rel, cols.to_vec()), arr);
    }

    /// `rel` by `cols`: the entered arrangement when there is one, else this scope's.
    fn any_rows(&mut self, rel: RelId, cols: &[usize]) -> AnyRows<'s, T, W> {
        match self.outer_rows.get(&(rel, cols.to_vec())) {
            Some(a) => AnyRows::Outer(a.clone()),
            None => AnyRows::Own(self.rows(rel, cols)),
        }
    }

    /// The distinct projections of `rel` onto `cols`: entered, else this scope's.
    pub(super) fn any_keys(&mut self, rel: RelId, cols: &[usize]) -> AnyKeys<'s, T, W> {
        match self.outer_keys.get(&(rel, cols.to_vec())) {
            Some(a) => AnyKeys::Outer(a.clone()),
            None => AnyKeys::Own(self.keys(rel, cols)),
        }
    }

    /// `rel` arranged by `cols` in this scope (shared).
    pub fn rows_pub(&mut self, rel: RelId, cols: &[usize]) -> RowArr<'s, T, W> {
        self.rows(rel, cols)
    }

    /// Hands lookups of `rel`'s distinct projections onto `cols` an arrangement
    /// made already (a view's deduplication, say).
    pub(crate) fn share_keys(&mut self, rel: RelId, cols: &[usize], arr: KeyArr<'s, T, W>) {
        self.keys.insert((rel, cols.to_vec()), arr);
    }

    /// The distinct projections of `rel` onto `cols`, arranged (shared).
    pub fn keys_pub(&mut self, rel: RelId, cols: &[usize]) -> KeyArr<'s, T, W> {
        self.keys(rel, cols)
    }

    /// The distinct projections of `rel` onto `cols`, arranged.
    fn keys(&mut self, rel: RelId, cols: &[usize]) -> KeyArr<'s, T, W> {
        if let Some(a) = self.keys.get(&(rel, cols.to_vec())) {
            return a.clone();
        }
        let c = cols.to_vec();
        let rows = self.rel(rel);
        // A relation is a set: projecting onto every column keeps it one (and the
        // projection pairs each row with `()` for the arrangement itself).
        let a = if c.len() == self.arities[rel] {
            arrange_keys(rows.map(move |r| (project(&c, &r), ())), "Keys")
        } else if T::TOTAL {
            let projected = T::distinct(rows.map(move |r| project(&c, &r)));
            arrange_keys(projected.map(|k| (k, ())), "Keys")
        } else {
            // The distinct's own trace is the arrangement.
            distinct_keys(rows.map(move |r| (project(&c, &r), ())))
        };
        self.keys.insert((rel, cols.to_vec()), a.clone());
        a
    }
}

pub(super) fn key_of<const W: usize>(probe: &[Pick], r: &Wide<W>) -> Wide<W> {
    build(probe, r, &[])
}

fn eval<const W: usize>(e: &SExpr, r: &Wide<W>) -> Option<Value> {
    e.eval(r)
}

/// Row-at-a-time stages not rendered yet: a scan's filter and projection, filters,
/// projections and assignments. They are applied in one operator together with what
/// follows them (the key extraction of the next join, or the head projection), so a
/// chain of stateless steps costs one operator, not one each: every operator runs in
/// every round of a block, so fewer operators means less work per round.
#[derive(Clone, Default)]
struct Pending(Vec<Stage>);

#[derive(Clone)]
enum Stage {
    Scan(crate::plan::AtomFilter, Vec<Pick>),
    Step(Step),
    /// A filter that orders symbols by their text, read from the symbol table.
    ByText(SExpr, CmpOp, SExpr, Symbols),
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    #[inline]
    fn apply<const W: usize>(&self, mut r: Wide<W>) -> Option<Wide<W>> {
        for stage in &self.0 {
            match stage {
                Stage::Scan(filter, out) => {
                    if !filter.accepts(&r) {
                        return None;
                    }
                    r = build(out, &[0; W], &r);
                }
                Stage::Step(Step::Filter { lhs, op, rhs, .. }) => {
                    match (eval(lhs, &r), eval(rhs, &r)) {
                        (Some(a), Some(b)) if op.eval(a, b) => {}
                        _ => return None,
                    }
                }
                Stage::ByText(lhs, op, rhs, symbols) => match (eval(lhs, &r), eval(rhs, &r)) {
                    (Some(a), Some(b)) if op.holds(symbols.compare(a, b)) => {}
                    _ => return None,
                },
                Stage::Step(Step::Project { out }) => r = build(out, &r, &[]),
                Stage::Step(Step::Assign { expr, out }) => {
                    let v = eval(expr, &r)?;
                    r = build(out, &r, &[v]);
                }
                Stage::Step(_) => unreachable!("only stateless steps are pending"),
            }
        }
        Some(r)
    }
    /// `out` (picks from a probe row and a joined row) run on the rows this scan
    /// builds from the probe rows: picks from the probe rows themselves. `self` is a
    /// scan whose projection picks the scanned row's columns, and whose filter the
    /// rows passed already (the only scan a join reads through an arrangement of
    /// its relation's rows, see [`scan_key`]).
    fn compose(&self, out: &[Pick]) -> Vec<Pick> {
        let [Stage::Scan(_, scanned)] = self.0.as_slice() else {
            unreachable!("a join's scan is one stage")
        };
        out.iter()
            .map(|p| match p {
                Pick::Slot(s) => match &scanned[*s] {
                    Pick::Col(c) => Pick::Slot(*c),
                    Pick::Const(v) => Pick::Const(*v),
                    Pick::Slot(_) => unreachable!("a scan picks columns"),
                },
                other => other.clone(),
            })
            .collect()
    }

    /// The projections at the front of these stages folded into `out` (the picks
    /// that build their input row), and the stages left to run after it.
    fn absorb(mut self, mut out: Vec<Pick>) -> (Vec<Pick>, Pending) {
        let n = self
            .0
            .iter()
            .take_while(|s| matches!(s, Stage::Step(Step::Project { .. })))
            .count();
        for stage in self.0.drain(..n) {
            let Stage::Step(Step::Project { out: then }) = stage else {
                unreachable!("only projections are folded")
            };
            out = then
                .iter()
                .map(|p| match p {
                    Pick::Slot(s) => out[*s].clone(),
                    other => other.clone(),
                })
                .collect();
        }
        (out, self)
    }

    /// Renders the pending stages (if any) as one operator.
    fn render<'s, T: Time, const W: usize>(
        self,
        rows: Collection<'s, T, Wide<W>>,
    ) -> Collection<'s, T, Wide<W>>
    where
        Wide<W>: ExchangeData,
    {
        if self.is_empty() {
            rows
        } else {
            rows.flat_map(move |r| self.apply(r))
        }
    }
}

/// Renders a pipeline. `given` feeds a `Source::Given`.
pub fn render_pipeline<'s, T: Time, const W: usize>(
    env: &mut Env<'s, T, W>,
    p: &Pipeline,
    given: Option<Collection<'s, T, Wide<W>>>,
) -> Collection<'s, T, Wide<W>>
where
    Wide<W>: ExchangeData,
{
    let (rows, pending) = render_lazy(env, p, given, Pending::default());
    pending.render(rows)
}

/// A stateless step as a stage (`None` for joins, antijoins and aggregates).
fn stage(step: &Step, symbols: &Symbols) -> Option<Stage> {
    match step {
        Step::Filter {
            lhs,
            op,
            rhs,
            text: true,
        } => Some(Stage::ByText(
            lhs.clone(),
            *op,
            rhs.clone(),
            symbols.clone(),
        )),
        Step::Filter { .. } | Step::Project { .. } | Step::Assign { .. } => {
            Some(Stage::Step(step.clone()))
        }
        Step::Join { .. } | Step::Antijoin { .. } | Step::Aggregate { .. } => None,
    }
}

/// Renders a pipeline followed by the stages of `finish` (a rule's head projection,
/// say). The stateless stages after its last join, antijoin or aggregate, and
/// `finish`, run inside that operator's closure (one operator fewer per rule, in
/// every round); a pipeline with none of those returns all its stages, unrendered.
fn render_lazy<'s, T: Time, const W: usize>(
    env: &mut Env<'s, T, W>,
    p: &Pipeline,
    given: Option<Collection<'s, T, Wide<W>>>,
    finish: Pending,
) -> (Collection<'s, T, Wide<W>>, Pending)
where
    Wide<W>: ExchangeData,
{
    let stages: Vec<Option<Stage>> = p.steps.iter().map(|s| stage(s, &env.symbols)).collect();
    let last = stages.iter().rposition(Option::is_none);
    let mut tail = Some(tail_stages(&stages, last, finish));
    let (rows, mut pending) = source_rows(env, &p.source, given);
    let mut flow = Flow::Rows(rows);
    for (i, (step, stage)) in p.steps.iter().zip(&stages).enumerate() {
        let width = p.layouts.get(i).map(|l| l.len()).unwrap_or(usize::MAX);
        if let Some(s) = stage {
            if last.is_some_and(|l| i > l) {
                break; // in the tail
            }
            if let Flow::Rows(_) = flow {
                pending.0.push(s.clone());
            } // else the previous step ran it before keying its rows
            continue;
        }
        // The tail runs in the last stateful step; the others pass rows on as built,
        // keyed for the next step when that is a join or an antijoin.
        let post = if Some(i) == last {
            tail.take().unwrap_or_default()
        } else {
            Pending::default()
        };
        let next = Rekey::after(p, &stages, i);
        let pending = std::mem::take(&mut pending);
        flow = match step {
            Step::Filter { .. } | Step::Project { .. } | Step::Assign { .. } => {
                unreachable!("stateless steps are stages")
            }
            Step::Join { .. } => render_join(env, &p.source, flow, pending, step, post, next),
            Step::Antijoin { .. } => {
                let on_scan = (i == 0).then(|| p.antijoin_on_its_scan(&env.arities));
                render_antijoin(env, on_scan.flatten(), flow, pending, step, post, next)
            }
            Step::Aggregate { .. } => {
                let rows = move || flow.rows(pending);
                let scanned = match &p.source {
                    Source::Scan { rel, filter, out } if i == 0 => Some(Scanned {
                        rel: *rel,
                        filter,
                        out,
                    }),
                    _ => None,
                };
                render_aggregate(env, rows, scanned, step, width, post)
            }
        };
    }
    // No stateful step: every stage is still to run.
    if let Some(tail) = tail {
        pending.0.extend(tail.0);
    }
    (flow.rows(Pending::default()), pending)
}

/// What runs inside the last stateful step's closure (step `last`): the stateless
/// stages after it, then `finish`. Without a stateful step: `finish` alone.
fn tail_stages(stages: &[Option<Stage>], last: Option<usize>, finish: Pending) -> Pending {
    let mut tail = Pending(
        stages[last.map_or(stages.len(), |l| l + 1)..]
            .iter()
            .flatten()
            .cloned()
            .collect(),
    );
    tail.0.extend(finish.0);
    tail
}

/// The rows a pipeline starts from (`given` feeds a `Source::Given`), and the
/// stages pending on them: a scan's filter and projection.
fn source_rows<'s, T: Time, const W: usize>(
    env: &Env<'s, T, W>,
    source: &Source,
    given: Option<Collection<'s, T, Wide<W>>>,
) -> (Collection<'s, T, Wide<W>>, Pending)
where
    Wide<W>: ExchangeData,
{
    let mut pending = Pending::default();
    let rows = match source {
        Source::Scan { rel, filter, out } => {
            pending.0.push(Stage::Scan(filter.clone(), out.clone()));
            env.rel(*rel)
        }
        Source::Unit => env.unit.clone(),
        Source::Given => given.expect("a Given source gets rows"),
        Source::Lone { count, out, .. } => {
            pending.0.push(Stage::Scan(Default::default(), out.clone()));
            env.lone
                .get(count)
                .expect("a count is rendered before its singles are read")
                .clone()
        }
    };
    (rows, pending)
}

/// An antijoin step. The rows arrive keyed by `flow` (`pending` run first), or,
/// when the step is the first and reads its own scan's relation `on_scan` whole
/// ([`crate::plan::Pipeline::antijoin_on_its_scan`]), as that relation's rows, the
/// scan (`pending`) run on them. Out: the rows not excluded with `post` run, keyed
/// for the next step when `next` says how.
fn render_antijoin<'s, T: Time, const W: usize>(
    env: &mut Env<'s, T, W>,
    on_scan: Option<RelId>,
    flow: Flow<'s, T, W>,
    pending: Pending,
    step: &Step,
    post: Pending,
    next: Option<Rekey>,
) -> Flow<'s, T, W>
where
    Wide<W>: ExchangeData,
{
    let Step::Antijoin {
        rel,
        key_cols,
        probe,
    } = step
    else {
        unreachable!("render_antijoin renders antijoins")
    };
    let arr = env.any_keys(*rel, key_cols);
    if let Some(scanned) = on_scan {
        // The scanned relation's own set of rows serves as the rows keyed.
        let rows = flow.rows(Pending::default());
        let left = env.any_keys(scanned, &(0..env.arities[scanned]).collect::<Vec<_>>());
        let scan = pending;
        let rows_of = move |r: Wide<W>| scan.apply(r).and_then(|r| post.apply(r));
        return match next {
            Some(nx) => Flow::Keyed(antijoin_rows(rows, left, arr, move |r| {
                rows_of(r).and_then(|r| nx.key(r))
            })),
            None => Flow::Rows(antijoin_rows(rows, left, arr, rows_of)),
        };
    }
    let keyed = flow.keyed(pending, probe);
    match next {
        Some(nx) => Flow::Keyed(antijoin_step(keyed, arr, move |r| {
            post.apply(r).and_then(|r| nx.key(r))
        })),
        None => Flow::Rows(antijoin_step(keyed, arr, move |r| post.apply(r))),
    }
}

/// A join step. The rows arrive keyed by `flow`, or straight from the pipeline's
/// scan: then, when the scan has no filter, the scanned relation's shared
/// arrangement by the probe's columns serves, and the scan's projection runs in the
/// join (no operator keys the rows, no arrangement of their own). Out: the joined
/// rows with `post` run, keyed for the next step when `next` says how.
fn render_join<'s, T: Time, const W: usize>(
    env: &mut Env<'s, T, W>,
    source: &Source,
    flow: Flow<'s, T, W>,
    pending: Pending,
    step: &Step,
    post: Pending,
    next: Option<Rekey>,
) -> Flow<'s, T, W>
where
    Wide<W>: ExchangeData,
{
    let Step::Join {
        rel,
        key_cols,
        probe,
        filter,
        out,
    } = step
    else {
        unreachable!("render_join renders joins")
    };
    let shared = match (&flow, source) {
        (Flow::Rows(_), Source::Scan { rel: scanned, .. }) => {
            scan_key(&pending, probe).map(|(filter, cols)| (*scanned, filter, cols))
        }
        _ => None,
    };
    // `scan`: the scan to run on the relation's rows the shared arrangement holds
    // (its filter passed already).
    let (left, scan) = match shared {
        Some((scanned, filter, cols)) => (env.rows_where(scanned, &filter, &cols), Some(pending)),
        None => (flow.keyed(pending, probe).arrange_by_key(), None),
    };
    let filter = filter.clone();
    // The scan's projection and the projections that follow the join are folded
    // into the join's own picks: one row built per match, not one per stage.
    let (out, post) = post.absorb(scan.map_or(out.clone(), |scan| scan.compose(out)));
    let whole = key_cols.iter().copied().eq(0..env.arities[*rel]);
    let build_row = move |l: &Wide<W>, r: &Wide<W>| {
        if !filter.accepts(r) {
            return None;
        }
        post.apply(build(&out, l, r))
    };
    match next {
        Some(nx) => Flow::Keyed(join_step(env, left, *rel, key_cols, whole, move |l, r| {
            build_row(l, r).and_then(|r| nx.key(r))
        })),
        None => Flow::Rows(join_step(env, left, *rel, key_cols, whole, build_row)),
    }
}

/// An aggregate step over `rows` (`width` values each; built only if the aggregate
/// needs them, or to join its values back): each row with its group's value, `post`
/// run.
fn render_aggregate<'s, T: Time, const W: usize>(
    env: &mut Env<'s, T, W>,
    rows: impl FnOnce() -> Collection<'s, T, Wide<W>>,
    scanned: Option<Scanned<'_>>,
    step: &Step,
    width: usize,
    post: Pending,
) -> Flow<'s, T, W>
where
    Wide<W>: ExchangeData,
{
    let Step::Aggregate {
        group,
        func,
        body,
        target,
        bound,
        out,
        body_group,
        body_set,
        streamed,
        lone,
    } = step
    else {
        unreachable!("render_aggregate renders aggregates")
    };
    // When the group is the whole incoming row, the rows are their own groups and
    // the aggregate's values need no join back: the output rows are built where the
    // values are.
    let whole = step.groups_whole_row(width);
    let spec = AggSpec {
        scanned,
        group,
        func: *func,
        body,
        target,
        body_group,
        body_set: *body_set,
        streamed: *streamed,
        lone: *lone,
        cap: env.cap.take(),
    };
    let out = out.clone();
    if whole {
        let build_out = move |g: &Wide<W>, v: &Wide<W>| post.apply(build(&out, g, v));
        return Flow::Rows(aggregate_groups(env, rows, &spec, true, build_out));
    }
    let rows = rows();
    let pair = |g: &Wide<W>, v: &Wide<W>| Some((*g, *v));
    let values = aggregate_groups(env, || rows.clone(), &spec, false, pair);
    let arr = values.arrange_by_key_named("AggregateValues");
    let (g, bound) = (group.clone(), *bound);
    Flow::Rows(
        rows.map(move |r| (project(&g, &r), r))
            .join_core(arr, move |_k, l, v| {
                if let Some(b) = bound {
                    if l[b] != v[0] {
                        return None;
                    }
                }
                post.apply(build(&out, l, v))
            }),
    )
}

/// Rows between two stateful steps: as built, or already keyed by the next step's
/// probe (its join or antijoin then needs no operator of its own to key them: one
/// operator fewer per step, in every round of a block).
enum Flow<'s, T: Time, const W: usize> {
    Rows(Collection<'s, T, Wide<W>>),
    Keyed(Collection<'s, T, (Wide<W>, Wide<W>)>),
}

impl<'s, T: Time, const W: usize> Flow<'s, T, W>
where
    Wide<W>: ExchangeData,
{
    /// The rows keyed by `probe`, `pending` run first (one operator), unless the
    /// previous step keyed them already.
    fn keyed(self, pending: Pending, probe: &[Pick]) -> Collection<'s, T, (Wide<W>, Wide<W>)> {
        match self {
            Flow::Keyed(k) => k,
            Flow::Rows(rows) => {
                let rekey = Rekey {
                    between: pending,
                    probe: probe.to_vec(),
                };
                rows.flat_map(move |r| rekey.key(r))
            }
        }
    }

    /// The rows with `pending` run. Keyed rows only go to joins and antijoins.
    fn rows(self, pending: Pending) -> Collection<'s, T, Wide<W>> {
        match self {
            Flow::Rows(rows) => pending.render(rows),
            Flow::Keyed(_) => unreachable!("rows are keyed only for a join or an antijoin"),
        }
    }
}

/// How rows are keyed for a join or an antijoin: the stateless stages before it, then
/// its probe (in the previous stateful step's closure, or in an operator of their own).
#[derive(Clone)]
struct Rekey {
    between: Pending,
    probe: Vec<Pick>,
}

impl Rekey {
    /// For the stateful step `i` of `p`: `None` unless the next stateful step is a
    /// join or an antijoin.
    fn after(p: &Pipeline, stages: &[Option<Stage>], i: usize) -> Option<Rekey> {
        let j = (i + 1..p.steps.len()).find(|&j| stages[j].is_none())?;
        let probe = match &p.steps[j] {
            Step::Join { probe, .. } | Step::Antijoin { probe, .. } => probe.clone(),
            _ => return None,
        };
        let between = Pending(stages[i + 1..j].iter().flatten().cloned().collect());
        Some(Rekey { between, probe })
    }

    #[inline]
    fn key<const W: usize>(&self, r: Wide<W>) -> Option<(Wide<W>, Wide<W>)> {
        self.between.apply(r).map(|r| (key_of(&self.probe, &r), r))
    }
}

/// The scan's filter and the key columns of the scanned relation when the only
/// stage before a join is a scan whose probe reads scanned columns: the join can
/// then read the arrangement of the relation's rows that pass the filter, by those
/// columns, which every rule that starts so shares (and run the scan's projection
/// on its rows).
fn scan_key(pending: &Pending, probe: &[Pick]) -> Option<(AtomFilter, Vec<usize>)> {
    let [Stage::Scan(filter, out)] = pending.0.as_slice() else {
        return None;
    };
    let cols = probe
        .iter()
        .map(|p| match p {
            Pick::Slot(s) => match out.get(*s) {
                Some(Pick::Col(c)) => Some(*c),
                _ => None,
            },
            _ => None,
        })
        .collect::<Option<Vec<usize>>>()?;
    Some((filter.clone(), cols))
}

/// A join of keyed rows, arranged, with `rel` arranged by `key_cols`; `f` builds the
/// output from the row and the matching fact (`None`: nothing).
fn join_step<'s, T: Time, const W: usize, O: ExchangeData>(
    env: &mut Env<'s, T, W>,
    keyed: RowArr<'s, T, W>,
    rel: RelId,
    key_cols: &[usize],
    whole: bool,
    f: impl Fn(&Wide<W>, &Wide<W>) -> Option<O> + 'static,
) -> Collection<'s, T, O>
where
    Wide<W>: ExchangeData,
{
    if whole {
        // Keyed by the whole row: the key is the row, and the arrangement of keys
        // alone (shared with antijoins) serves.
        match env.any_keys(rel, key_cols) {
            AnyKeys::Own(arr) => keyed.join_core(arr, move |k, l, &()| f(l, k)),
            AnyKeys::Outer(arr) => keyed.join_core(arr, move |k, l, &()| f(l, k)),
        }
    } else {
        match env.any_rows(rel, key_cols) {
            AnyRows::Own(arr) => keyed.join_core(arr, move |_k, l, r| f(l, r)),
            AnyRows::Outer(arr) => keyed.join_core(arr, move |_k, l, r| f(l, r)),
        }
    }
}

/// What an antijoin's join of its rows against the excluded keys emits into.
type Matched<O, T> = ConsolidatingContainerBuilder<Vec<(O, T, Diff)>>;

/// Emits a matched row `o` (when `f` kept it) with its sign flipped: the antijoin
/// subtracts the matches from its rows without a negation operator.
#[inline]
fn flipped<O, T>(o: Option<O>, t: T, r1: &Diff, r2: &Diff, out: &mut Matched<O, T>)
where
    Matched<O, T>: PushInto<(O, T, Diff)>,
{
    if let Some(o) = o {
        out.push_into((o, t, -(r1 * r2)));
    }
}

/// The keyed rows whose key is not in `arr`, each passed through `f`: the rows, less
/// the matched ones, which the join emits with their signs flipped (no negation
/// operator).
fn antijoin_step<'s, T: Time, const W: usize, O: ExchangeData>(
    keyed: Collection<'s, T, (Wide<W>, Wide<W>)>,
    arr: AnyKeys<'s, T, W>,
    f: impl Fn(Wide<W>) -> Option<O> + Clone + 'static,
) -> Collection<'s, T, O>
where
    Wide<W>: ExchangeData,
{
    let matched = excluded(keyed.clone(), arr, f.clone());
    keyed.flat_map(move |(_, r)| f(r)).concat(matched)
}

/// What an antijoin takes away from its keyed rows: the rows whose key is in
/// `arr`, each passed through `f`, with their signs flipped (added to the rows, they
/// leave those not excluded).
pub(super) fn excluded<'s, T: Time, const W: usize, O: ExchangeData>(
    keyed: Collection<'s, T, (Wide<W>, Wide<W>)>,
    arr: AnyKeys<'s, T, W>,
    f: impl Fn(Wide<W>) -> Option<O> + 'static,
) -> Collection<'s, T, O>
where
    Wide<W>: ExchangeData,
{
    let left = keyed.arrange_by_key();
    // The row rides as the value, keyed by the probe.
    let flip = move |_k: &Wide<W>,
                     v: &Wide<W>,
                     _: &(),
                     t: T,
                     r1: &Diff,
                     r2: &Diff,
                     out: &mut Matched<O, T>| { flipped(f(*v), t, r1, r2, out) };
    let matched = match arr {
        AnyKeys::Own(arr) => join_traces::<_, _, _, _, Matched<O, T>>(left, arr, flip),
        AnyKeys::Outer(arr) => join_traces::<_, _, _, _, Matched<O, T>>(left, arr, flip),
    };
    matched.as_collection()
}

/// `rows` (a relation's) less those in `arr`, each passed through `f`, where `left`
/// is the same relation's rows arranged as keys
/// ([`crate::plan::Pipeline::antijoin_on_its_scan`]): as
/// [`antijoin_step`], without arranging the rows again.
fn antijoin_rows<'s, T: Time, const W: usize, O: ExchangeData>(
    rows: Collection<'s, T, Wide<W>>,
    left: AnyKeys<'s, T, W>,
    arr: AnyKeys<'s, T, W>,
    f: impl Fn(Wide<W>) -> Option<O> + Clone + 'static,
) -> Collection<'s, T, O>
where
    Wide<W>: ExchangeData,
{
    let g = f.clone();
    // The row is the key itself.
    let flip =
        move |k: &Wide<W>, _: &(), _: &(), t: T, r1: &Diff, r2: &Diff, out: &mut Matched<O, T>| {
            flipped(g(*k), t, r1, r2, out)
        };
    macro_rules! matched {
        ($l:expr, $r:expr) => {
            join_traces::<_, _, _, _, Matched<O, T>>($l, $r, flip).as_collection()
        };
    }
    let matched = match (left, arr) {
        (AnyKeys::Own(l), AnyKeys::Own(r)) => matched!(l, r),
        (AnyKeys::Own(l), AnyKeys::Outer(r)) => matched!(l, r),
        (AnyKeys::Outer(l), AnyKeys::Own(r)) => matched!(l, r),
        (AnyKeys::Outer(l), AnyKeys::Outer(r)) => matched!(l, r),
    };
    rows.flat_map(f).concat(matched)
}

/// A rule's head rows, and with explanations its (head, [rule, bindings...]) pairs.
pub type RuleOutput<'s, T, const W: usize> = (
    Collection<'s, T, Wide<W>>,
    Option<Collection<'s, T, (Wide<W>, Wide<W>)>>,
);

/// Renders a rule: its head rows, and with explanations (head, [rule, bindings...]).
/// With `tag`, each head row carries that value in the column after the head's last
/// (the rule's tier, for the block's gate: written where the row is built, so no
/// operator of its own tags the rule's rows); the explanations' heads do not. With a
/// profile, the rule's operators and derivations are recorded.
pub fn render_rule<'s, T: Time, const W: usize>(
    env: &mut Env<'s, T, W>,
    rp: &RulePlan,
    tag: Option<Value>,
) -> RuleOutput<'s, T, W>
where
    Wide<W>: ExchangeData,
{
    let first = env.next_operator();
    env.cap = env.caps.get(&rp.rule).copied();
    let (mut heads, explained) = render_rule_body(env, rp, tag);
    env.cap = None;
    if let Some(profile) = env.profile.clone() {
        let (rule, cell) = (rp.rule, profile.clone());
        heads = heads.inspect(move |(_, t, d)| cell.borrow_mut().derived(rule, t.round(), *d));
        let ops = first..env.next_operator();
        profile.borrow_mut().rendered(Charge::Rule(rule), ops);
    }
    (heads, explained)
}

fn render_rule_body<'s, T: Time, const W: usize>(
    env: &mut Env<'s, T, W>,
    rp: &RulePlan,
    tag: Option<Value>,
) -> RuleOutput<'s, T, W>
where
    Wide<W>: ExchangeData,
{
    let head = rp.head_out.clone();
    let at = head.len();
    assert!(tag.is_none() || at < W, "a tag needs a free column");
    match &rp.explain {
        None => {
            // The head projection (and the tag) runs in the body's last operator.
            let mut out = head;
            out.extend(tag.map(Pick::Const));
            let finish = Pending(vec![Stage::Step(Step::Project { out })]);
            let (rows, pending) = render_lazy(env, &rp.body, None, finish);
            (pending.render(rows), None)
        }
        Some(slots) => {
            let (rows, pending) = render_lazy(env, &rp.body, None, Pending::default());
            let mut picks = vec![Pick::Const(rp.rule as Value)];
            picks.extend(slots.iter().map(|&s| Pick::Slot(s)));
            let pairs = rows.flat_map(move |r| {
                pending
                    .apply(r)
                    .map(|r| (build(&head, &r, &[]), build(&picks, &r, &[])))
            });
            let heads = pairs.clone().map(move |(mut h, _)| {
                if let Some(t) = tag {
                    h[at] = t;
                }
                h
            });
            (heads, Some(pairs))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_str;
    use crate::session::{Config, Observe, Session};
    use std::sync::Arc;

    /// Rules that start by scanning one relation with one filter and join on the
    /// same columns share that arrangement: the dataflow has fewer operators than
    /// one whose rules filter differently, and every rule derives what it should.
    #[test]
    fn rules_that_scan_alike_share_their_first_arrangement() {
        // `q` scans `r` as `p` does (k = 1), or differently (k = 3).
        let text = |k: i32| {
            format!(
                ".decl r(a: number, x: number)
                .decl s(x: number)
                .decl t(x: number)
                r(1, 5). r(1, 6). r(2, 6). r(2, 7). r(3, 5). s(5). s(6). t(6). t(7).
                .decl p(x: number)
                .decl q(x: number)
                .decl o(x: number)
                p(x) :- r(1, x), s(x).
                q(x) :- r({k}, x), t(x).
                o(x) :- r(2, x), t(x)."
            )
        };
        for batch in [false, true] {
            let run = |k: i32| {
                let program = Arc::new(check_str("share.dl", &text(k)).expect("it checks"));
                let rel = |n: &str| program.relation(n).unwrap();
                let rels = [rel("p"), rel("q"), rel("o")];
                let config = Config {
                    observe: Observe::Relations(rels.to_vec()),
                    profile: true,
                    batch,
                    ..Default::default()
                };
                let mut session = Session::new(program.clone(), config).expect("it starts");
                session.commit().expect("the commit runs");
                let rows = rels.map(|r| {
                    let rows = session.contents(r).into_iter().map(|(v, _)| v[0]);
                    rows.collect::<Vec<Value>>()
                });
                let costs = session.profile().expect("the profile is read");
                (rows, costs.iter().map(|c| c.operators).sum::<usize>())
            };
            let ((alike, shared), (apart, own)) = (run(1), run(3));
            assert_eq!(alike, [vec![5, 6], vec![6], vec![6, 7]]);
            assert_eq!(apart, [vec![5, 6], vec![], vec![6, 7]]);
            assert!(shared < own, "batch {batch}: {shared} vs {own} operators");
        }
    }

    /// A join's scan, its picks and the projections after it, folded, build the
    /// rows that running them one after another builds.
    #[test]
    fn folded_picks_build_the_same_rows() {
        // The scan keeps columns 2, 0 and a constant of the scanned row.
        let scan = Pending(vec![Stage::Scan(
            AtomFilter::default(),
            vec![Pick::Col(2), Pick::Col(0), Pick::Const(7)],
        )]);
        // The join reads the scanned row's slots 1, 2, 0, the joined row's column 1.
        let out = vec![Pick::Slot(1), Pick::Slot(2), Pick::Slot(0), Pick::Col(1)];
        // Two projections and a filter follow: the filter must stay.
        let filter = Step::Filter {
            lhs: crate::plan::SExpr::Slot(0),
            op: CmpOp::Ne,
            rhs: crate::plan::SExpr::Const(0),
            text: false,
        };
        let post = Pending(vec![
            Stage::Step(Step::Project {
                out: vec![Pick::Slot(3), Pick::Slot(0), Pick::Const(9), Pick::Slot(1)],
            }),
            Stage::Step(Step::Project {
                out: vec![Pick::Slot(1), Pick::Slot(0), Pick::Slot(3), Pick::Slot(2)],
            }),
            Stage::Step(filter),
        ]);
        let (folded, rest) = post.clone().absorb(scan.compose(&out));
        assert_eq!(rest.0.len(), 1, "only the filter is left to run");
        for (l, r) in [([1, 2, 3, 4], [5, 6, 7, 8]), ([0, 9, 1, 0], [2, 0, 4, 4])] {
            let staged = scan
                .apply(l)
                .and_then(|s| post.apply(build::<4>(&out, &s, &r)));
            assert_eq!(rest.apply(build::<4>(&folded, &l, &r)), staged);
        }
    }
}
