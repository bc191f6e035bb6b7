//! The whole plan in one worker's dataflow: inputs, strata in order, outputs.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use differential_dataflow::collection::concatenate;
use differential_dataflow::input::{Input, InputSession};
use differential_dataflow::{AsCollection, ExchangeData, VecCollection as Collection};
use timely::dataflow::operators::probe::Handle as ProbeHandle;
use timely::dataflow::operators::vec::Partition;
use timely::dataflow::operators::{Exchange, Inspect, Probe};
use timely::dataflow::Scope;
use timely::order::Product;

use super::block::{render_block, BlockSpec, Leaving, Left};
use super::pipeline::{render_rule, Env};
use super::profile::{Charge, ProfileCell};
use super::row::{rewiden, row, Row, Wide};
use super::sorted::Facts;
use super::time::{arrange_keys, Epoch, Time};
use crate::check::ir::{Program, RelId, Value};
use crate::plan::caps::{self, count_caps};
use crate::plan::{Plan, RulePlan, StratumPlan};

/// A view's rows as they leave its block, consolidated. In: every round's changes of
/// the view, all at the block's epoch (a row a round added and a later round took
/// back is there twice, once with each sign). Out: the view's contents at the
/// fixpoint, each row once. For a view a later stratum scans: its operators then
/// filter and pass on the view's contents, not its history (`status.dl`'s
/// `options`, which four rules arrange, comes from a scan of the counts). A view
/// only looked up needs none: the arrangement it is looked up in consolidates it.
/// Batch rendering only: an edit's views change little, and there the consolidating
/// arrangement cost more than it saved (docs/PERFORMANCE.md, session 39).
fn consolidated<'s, const W: usize>(
    left: Collection<'s, Epoch, Leaving<W>>,
) -> Collection<'s, Epoch, Wide<W>>
where
    Wide<W>: ExchangeData,
{
    arrange_keys(left.map(|(_, row, _, _)| (row, ())), "Consolidate").as_collection(|k, _| *k)
}

/// Tag of explain events in [`Update`]s (relations use their id).
pub const EVENT: u32 = u32::MAX;

/// One change a worker saw: a relation's fact (`binds` unused) or an event. Changes
/// are ordered, and equal changes added up, by their key: (tag, row, binds, round).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Update {
    pub tag: u32,
    pub row: Row,
    pub binds: Row,
    pub round: u32,
    pub diff: isize,
}

/// One worker's changes of a commit, consolidated and sorted by their key
/// ([`Update`]), held at the width the dataflow was rendered at (a 2-wide program's
/// changes are a third of the bytes of the host's rows): runs merge narrow, and are
/// widened to [`Update`]s only as they are read.
pub struct ChangeRun(Box<dyn Run>);

impl ChangeRun {
    /// A run without changes (of no particular width).
    pub fn empty() -> ChangeRun {
        ChangeRun(Box::new(Vec::<(Leaving<2>, isize)>::new()))
    }
    /// Splits the run (see [`Split`]). Workers call this, each on its own run, in
    /// parallel.
    pub fn split(self) -> Split {
        self.0.split()
    }
}

/// One worker's changes of a commit, split for the session: each relation's
/// additions with their rounds, sorted by row (as narrow as the dataflow's rows:
/// [`Facts`]), and the rest (removals, events, and the excess of an addition of
/// more than one: few) as a run of their own, still narrow. Equal changes on
/// different workers are not added up here: the session merges the workers' rests
/// as it merges runs ([`merge_runs`]).
pub struct Split {
    /// Per relation, in relation order: (row, round) of each fact added.
    pub added: Vec<(RelId, Facts)>,
    pub rest: ChangeRun,
}

#[cfg(test)]
impl ChangeRun {
    /// A 2-wide run (binds unused) from changes as a worker collects them:
    /// (tag, a, b, round, diff), in any order.
    pub(crate) fn of_pairs(changes: &[(u32, i32, i32, u32, isize)]) -> ChangeRun {
        let v = changes
            .iter()
            .map(|&(tag, a, b, round, d)| ((tag, [a, b], [0; 2], round), d))
            .collect();
        take_changes::<2>(&Rc::new(RefCell::new(v)))
    }
}

/// A run at some width (see [`ChangeRun`]).
trait Run: Send {
    fn is_empty(&self) -> bool;
    /// The changes of this run and `others` (runs of one dataflow: the same width).
    fn merge(self: Box<Self>, others: Vec<ChangeRun>) -> Box<dyn Run>;
    fn widen(self: Box<Self>) -> Box<dyn ExactSizeIterator<Item = Update> + Send>;
    fn split(self: Box<Self>) -> Split;
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

impl<const W: usize> Run for Vec<(Leaving<W>, isize)>
where
    Wide<W>: ExchangeData,
{
    fn is_empty(&self) -> bool {
        Vec::is_empty(self)
    }
    fn merge(self: Box<Self>, others: Vec<ChangeRun>) -> Box<dyn Run> {
        let mut all = *self;
        for o in others {
            let v =
                o.0.into_any()
                    .downcast::<Self>()
                    .expect("the runs of one dataflow have one width");
            all.extend(*v);
        }
        // A stable sort of sorted runs merges them.
        consolidate_narrow(&mut all);
        Box::new(all)
    }
    fn widen(self: Box<Self>) -> Box<dyn ExactSizeIterator<Item = Update> + Send> {
        Box::new(
            self.into_iter()
                .map(|((tag, row, binds, round), diff)| Update {
                    tag,
                    row: rewiden(&row),
                    binds: rewiden(&binds),
                    round,
                    diff,
                }),
        )
    }
    fn split(self: Box<Self>) -> Split {
        let (mut added, mut rest) = (Vec::new(), Vec::new());
        let mut i = 0;
        // One tag's changes at a time (the run is sorted by tag first).
        while i < self.len() {
            let tag = self[i].0 .0;
            let end = i + self[i..].partition_point(|u| u.0 .0 == tag);
            let changes = &self[i..end];
            i = end;
            if tag != EVENT {
                let adds = changes.iter().filter(|(_, diff)| *diff > 0);
                let n = adds.clone().count();
                if n > 0 {
                    // A 2-wide dataflow's facts stay 2 wide.
                    let run = if W == 2 {
                        Facts::Pairs(facts(adds, n))
                    } else {
                        Facts::Rows(facts(adds, n))
                    };
                    added.push((tag as RelId, run));
                }
            }
            // A part of a sorted, consolidated run: sorted and consolidated too. An
            // addition of more than one (a view's fact derived more than once on
            // this worker) leaves its excess here, for the session's count.
            rest.extend(changes.iter().filter_map(|&(u, diff)| match diff {
                _ if tag == EVENT || diff < 0 => Some((u, diff)),
                1 => None,
                _ => Some((u, diff - 1)),
            }));
        }
        Split {
            added,
            rest: ChangeRun(Box::new(rest)),
        }
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// The (row, round) of `n` additions, `V` wide.
fn facts<'a, const W: usize, const V: usize>(
    adds: impl Iterator<Item = &'a (Leaving<W>, isize)>,
    n: usize,
) -> Vec<(Wide<V>, u32)> {
    let mut run = Vec::with_capacity(n);
    run.extend(adds.map(|((_, row, _, round), _)| (rewiden(row), *round)));
    run
}

/// Sorts changes by their key with a stable sort (what an operator emits for one
/// round comes sorted by row, and each worker's run is sorted: the stable sort finds
/// such runs and merges them instead of sorting), adds up the changes of equal keys
/// and drops those that cancel. Padding with zeros keeps the order: narrow and wide
/// keys sort alike.
fn consolidate_narrow<const W: usize>(v: &mut Vec<(Leaving<W>, isize)>) {
    v.sort_by_key(|u| u.0);
    let mut w = 0;
    for i in 0..v.len() {
        if w > 0 && v[w - 1].0 == v[i].0 {
            v[w - 1].1 += v[i].1;
        } else {
            v.swap(w, i);
            w += 1;
        }
    }
    v.truncate(w);
    v.retain(|(_, diff)| *diff != 0);
}

/// The changes of all workers' runs, merged: sorted by their key ([`Update`]), the
/// changes of equal keys added up, those that cancel dropped.
pub fn merge_runs(runs: Vec<ChangeRun>) -> impl ExactSizeIterator<Item = Update> {
    let mut runs = runs.into_iter().filter(|r| !r.0.is_empty());
    let merged = match runs.next() {
        None => ChangeRun::empty().0,
        Some(first) => {
            let rest: Vec<ChangeRun> = runs.collect();
            if rest.is_empty() {
                first.0
            } else {
                first.0.merge(rest)
            }
        }
    };
    merged.widen()
}

/// Where a worker collects the changes of the current commit, at the dataflow's width.
type Changes<const W: usize> = Rc<RefCell<Vec<(Leaving<W>, isize)>>>;

/// Takes the changes collected so far, as a [`ChangeRun`].
fn take_changes<const W: usize>(changes: &Changes<W>) -> ChangeRun
where
    Wide<W>: ExchangeData,
{
    let mut v = std::mem::take(&mut *changes.borrow_mut());
    consolidate_narrow(&mut v);
    ChangeRun(Box::new(v))
}

/// What to report, and how to render.
#[derive(Clone, Debug)]
pub struct Outputs {
    /// Per relation: report its changes.
    pub observe: Vec<bool>,
    pub max_rounds: Option<u32>,
    /// Time blocks' rounds in a total order (see [`super::time`]): faster, but a
    /// commit may only add facts.
    pub batch: bool,
    /// Route every change to worker 0 (needed across processes, where the session
    /// hears only its own process's workers). Within one process each worker hands
    /// over its own share.
    pub gather: bool,
    /// The session adds facts to `.input` relations only: a relation derived by one
    /// rule that yields a set is rendered without a distinct, and a derived relation
    /// without program facts takes no input.
    pub inputs_only: bool,
    /// By relation, one flag each: fed from an input of their own, which
    /// [`Dataflow::seal`] closes after the commit that loads them. The operators that
    /// read only such relations (a board's geometry and what is derived from it, and
    /// their arrangements in every block) then take no part in later epochs.
    pub sealed: Vec<bool>,
}

/// Handles to a rendered dataflow: where facts go in, and the probe that says when
/// an epoch is done. Rows go in at the host's width ([`Row`]) whatever width the
/// dataflow was rendered at.
pub struct Dataflow {
    inputs: Box<dyn Feed>,
    pub probe: ProbeHandle<Epoch>,
    changes: Box<dyn FnMut() -> ChangeRun>,
}

impl Dataflow {
    /// Changes a fact of `rel` in the current epoch.
    pub fn update(&mut self, rel: RelId, r: &Row, diff: isize) {
        self.inputs.update(rel, r, diff);
    }
    /// Puts the unit relation's one empty row in (once, on one worker).
    pub fn insert_unit(&mut self) {
        self.inputs.insert_unit();
    }
    /// This worker's changes of observed relations and explain events since the last
    /// call: consolidated, sorted by their key ([`Update`]).
    pub fn take_changes(&mut self) -> ChangeRun {
        (self.changes)()
    }
    /// Closes the inputs' epochs before `epoch` and sends what they hold.
    pub fn advance_to(&mut self, epoch: Epoch) {
        self.inputs.advance_to(epoch);
    }
    /// Closes the sealed relations' input for good (after [`Dataflow::advance_to`]):
    /// their facts can no longer change, and what reads only them is done.
    pub fn seal(&mut self) {
        self.inputs.seal();
    }
}

/// The inputs of a dataflow of some width.
trait Feed {
    fn update(&mut self, rel: RelId, r: &Row, diff: isize);
    fn insert_unit(&mut self);
    fn advance_to(&mut self, epoch: Epoch);
    fn seal(&mut self);
}

/// A tagged input: each fact with its relation's id.
type Tagged<const W: usize> = InputSession<Epoch, (u32, Wide<W>), isize>;

/// One input for every relation's facts and the unit relation's row, each tagged by
/// its relation (the unit: the tag after the last relation's). One operator, not
/// one per relation: every commit advances it, and every operator an epoch
/// advances costs progress tracking. The sealed relations ([`Outputs::sealed`])
/// have a second one, open until [`Feed::seal`].
struct Inputs<const W: usize> {
    all: Tagged<W>,
    sealed: Option<Tagged<W>>,
    /// By relation: whether it is fed from `sealed`.
    is_sealed: Vec<bool>,
    unit: u32,
}

impl<const W: usize> Feed for Inputs<W> {
    fn update(&mut self, rel: RelId, r: &Row, diff: isize) {
        let input = if self.is_sealed[rel] {
            // The session refuses a sealed relation's changes once it is sealed.
            self.sealed
                .as_mut()
                .expect("a sealed relation changes after its commit")
        } else {
            &mut self.all
        };
        input.update((rel as u32, rewiden(r)), diff);
    }
    fn insert_unit(&mut self) {
        self.all.insert((self.unit, row(&[])));
    }
    fn advance_to(&mut self, epoch: Epoch) {
        for input in std::iter::once(&mut self.all).chain(self.sealed.as_mut()) {
            input.advance_to(epoch);
            input.flush();
        }
    }
    fn seal(&mut self) {
        // Dropped, the input closes: its frontier becomes empty.
        self.sealed = None;
    }
}

/// The relations stratum `s` defines.
fn stratum_defines(s: &StratumPlan) -> Vec<RelId> {
    match s {
        StratumPlan::Flat { rel, .. } => vec![*rel],
        StratumPlan::Block { state, views, .. } => state
            .iter()
            .copied()
            .chain(views.iter().map(|(v, _)| *v))
            .collect(),
    }
}

/// Which strata to render, and for each what the rendered strata after it read.
struct Rendered {
    /// Whether stratum i is rendered.
    needed: Vec<bool>,
    /// The relations that rendered strata after stratum i read.
    read_later: Vec<HashSet<RelId>>,
    /// Those of them that they scan ([`crate::plan::Pipeline::scans`]): their rows
    /// stream through those strata's operators rather than into an arrangement that
    /// would consolidate them.
    scanned_later: Vec<HashSet<RelId>>,
}

/// Which strata to render, and what later strata read. A stratum is rendered when it
/// defines an observed relation, produces explain events, or defines what a rendered
/// stratum reads. The rest (a helper relation of `grid.dl` that a light rule set
/// never reads, say) would cost operators and rounds for nothing: nothing outside the
/// dataflow can see them.
fn needed_strata(plan: &Plan, observe: &dyn Fn(RelId) -> bool) -> Rendered {
    let n = plan.strata.len();
    let mut out = Rendered {
        needed: vec![false; n],
        read_later: vec![HashSet::new(); n],
        scanned_later: vec![HashSet::new(); n],
    };
    let (mut read, mut scanned): (HashSet<RelId>, HashSet<RelId>) = Default::default();
    for (i, s) in plan.strata.iter().enumerate().rev() {
        out.read_later[i] = read.clone();
        out.scanned_later[i] = scanned.clone();
        let explains = plan.explain && s.rules().iter().any(|r| r.explain.is_some());
        if explains
            || stratum_defines(s)
                .iter()
                .any(|r| observe(*r) || read.contains(r))
        {
            out.needed[i] = true;
            read.extend(stratum_reads(s));
            scanned.extend(stratum_scans(s));
        }
    }
    out
}

/// The counts the rendered rules may cap (see [`crate::plan::caps`]).
fn rendered_caps(
    program: &Program,
    plan: &Plan,
    rendered: &Rendered,
    outputs: &Outputs,
) -> HashMap<usize, Value> {
    let rules: HashSet<usize> = (plan.strata.iter().zip(&rendered.needed))
        .filter(|(_, needed)| **needed)
        .flat_map(|(s, _)| s.rules().into_iter().map(|rp| rp.rule))
        .collect();
    count_caps(&caps::Rendered {
        program,
        rule: &|i| rules.contains(&i),
        observed: &|r| outputs.observes(r),
        explain: plan.explain,
    })
}

/// The relations the rules of stratum `s` read (with repeats).
fn stratum_reads(s: &StratumPlan) -> Vec<RelId> {
    let mut out = Vec::new();
    for rp in s.rules() {
        rp.body.reads(&mut out);
    }
    out
}

/// The relations the rules of stratum `s` scan (with repeats): see
/// [`crate::plan::Pipeline::scans`].
fn stratum_scans(s: &StratumPlan) -> Vec<RelId> {
    let mut out = Vec::new();
    for rp in s.rules() {
        rp.body.scans(&mut out);
    }
    out
}

/// For each key, the least value it has (with a positive count), once: the least
/// (rule, bindings) deriving a fact, the least tier with anything new for an
/// instance. `reduce` hands a key's values sorted.
pub(super) fn least_value<'s, T: Time, const W: usize>(
    c: Collection<'s, T, (Wide<W>, Wide<W>)>,
    name: &str,
) -> Collection<'s, T, (Wide<W>, Wide<W>)>
where
    Wide<W>: ExchangeData,
{
    c.reduce_named(name, |_key, input: &[(&Wide<W>, isize)], out| {
        if let Some((v, _)) = input.iter().find(|(_, d)| *d > 0) {
            out.push((**v, 1));
        }
    })
}

/// Flat-stratum events: one per fact, the least (rule, bindings) deriving it.
fn first_reasons<'s, const W: usize>(
    evs: Vec<Collection<'s, Epoch, (Wide<W>, Wide<W>)>>,
    scope: Scope<'s, Epoch>,
) -> Collection<'s, Epoch, ((Wide<W>, Wide<W>), u32)>
where
    Wide<W>: ExchangeData,
{
    least_value(concatenate(scope, evs), "FirstReason").map(|e| (e, 0u32))
}

/// The width a plan's dataflow is rendered at: the least of 2, 4, 6 and [`WIDTH`]
/// that its relations' rows, its pipelines' rows and explain records all fit. 2
/// serves binary relations (graphs, closures); 4 ternary relations and rules that
/// hold four variables at once (`singles.dl` and `fast.dl` without explanations, the
/// hand-written Sudoku logic as rules: 16-byte rows where the baselines' tuples take
/// 8); 6 five or six at once (`fast.dl` rendered there at 0.91x of its time at full
/// width on 2,000 17-clue puzzles, before its weights became one sum); the full
/// rules need [`WIDTH`]. Each width is a copy of the rendering
/// code (three renderings each): a width costs ~4 CPU-minutes of every release
/// build of the library (docs/PERFORMANCE.md, session 69).
///
/// [`WIDTH`]: super::row::WIDTH
pub fn width(program: &Program, plan: &Plan) -> usize {
    let arity = program.relations.iter().map(|r| r.arity()).max();
    let w = plan.width().max(arity.unwrap_or(0));
    if w <= 2 {
        2
    } else if w <= 4 {
        4
    } else if w <= 6 {
        6
    } else {
        super::row::WIDTH
    }
}

/// Builds the dataflow for `plan` in `scope`, at its [`width`]; changes of observed
/// relations and explain events are collected for [`Dataflow::take_changes`] (on
/// worker 0 when `outputs.gather`, else on the worker that computed them).
pub fn render<'s>(
    scope: Scope<'s, Epoch>,
    program: &Program,
    plan: &Plan,
    outputs: &Outputs,
    profile: Option<ProfileCell>,
) -> Dataflow {
    #[cfg(not(test))]
    match width(program, plan) {
        2 => render_at::<2>(scope, program, plan, outputs, profile),
        4 => render_at::<4>(scope, program, plan, outputs, profile),
        6 => render_at::<6>(scope, program, plan, outputs, profile),
        _ => render_at::<{ super::row::WIDTH }>(scope, program, plan, outputs, profile),
    }
    // The library's own unit tests render every plan at the full width: one copy of
    // the rendering code instead of four in their build, which compiles the whole
    // library a second time. They check what a rendering computes, which the width
    // does not change (rows are padded); the integration suite links the library as
    // shipped and runs programs of every width against the reference evaluator.
    #[cfg(test)]
    render_at::<{ super::row::WIDTH }>(scope, program, plan, outputs, profile)
}

/// Each relation's collection at the top level, by relation.
type Colls<'s, const W: usize> = HashMap<RelId, Collection<'s, Epoch, Wide<W>>>;

/// [`render`] at width `W`: the inputs, the rendered strata in order (see
/// [`TopLevel`]), the probe and where the changes are collected.
fn render_at<'s, const W: usize>(
    scope: Scope<'s, Epoch>,
    program: &Program,
    plan: &Plan,
    outputs: &Outputs,
    profile: Option<ProfileCell>,
) -> Dataflow
where
    Wide<W>: ExchangeData,
{
    let arities: Vec<usize> = program.relations.iter().map(|r| r.arity()).collect();
    let (inputs, unit, input_colls) =
        new_inputs::<W>(scope, program.relations.len(), &outputs.sealed);
    let mut top = TopLevel {
        scope,
        program,
        plan,
        outputs,
        inputs: input_colls,
        env: Env::new(unit, arities, profile, program.symbols.clone()),
        view_facts: program.facts.iter().map(|(r, _)| *r).collect(),
        rule_tiers: program.rules.iter().map(|r| r.tier).collect(),
        rendered: needed_strata(plan, &|r| outputs.observes(r)),
        outs: Vec::new(),
        probed: Vec::new(),
    };
    top.env.caps = Rc::new(rendered_caps(program, plan, &top.rendered, outputs));
    for (i, stratum) in plan.strata.iter().enumerate() {
        if !top.rendered.needed[i] {
            continue;
        }
        match stratum {
            StratumPlan::Flat { .. } => top.flat_stratum(stratum),
            StratumPlan::Block { .. } => top.block_stratum(i, stratum),
        }
    }
    let TopLevel {
        env, outs, probed, ..
    } = top;
    let probe = follow_all(&env, probed);
    let changes = collect_changes(scope, outs, outputs.gather, &probe);
    Dataflow {
        inputs: Box::new(inputs),
        probe,
        changes: Box::new(move || take_changes(&changes)),
    }
}

impl Outputs {
    /// Whether the session hears the changes of `rel`.
    fn observes(&self, rel: RelId) -> bool {
        self.observe.get(rel).copied().unwrap_or(false)
    }
}

/// `rows` split by one operator into `parts` collections: `route` names each
/// update's part (below `parts`) and what goes there.
fn split_by<'s, D, E>(
    rows: Collection<'s, Epoch, D>,
    parts: usize,
    route: impl Fn((D, Epoch, isize)) -> (u64, (E, Epoch, isize)) + 'static,
) -> Vec<Collection<'s, Epoch, E>>
where
    D: ExchangeData,
    E: ExchangeData,
{
    rows.inner
        .partition(parts as u64, route)
        .into_iter()
        .map(|p| p.as_collection())
        .collect()
}

/// The inputs and what one operator per input splits each into. Out: the inputs,
/// the unit relation's collection, and each relation's input collection (a sealed
/// relation's from the sealed input: `sealed`, by relation, as
/// [`Outputs::sealed`]).
fn new_inputs<'s, const W: usize>(
    scope: Scope<'s, Epoch>,
    relations: usize,
    sealed: &[bool],
) -> (Inputs<W>, Collection<'s, Epoch, Wide<W>>, Colls<'s, W>)
where
    Wide<W>: ExchangeData,
{
    let route = |((rel, r), t, d): ((u32, Wide<W>), Epoch, isize)| (rel as u64, (r, t, d));
    let (all, tagged) = scope.new_collection::<(u32, Wide<W>), isize>();
    let mut parts = split_by(tagged, relations + 1, route);
    let unit = parts.pop().expect("the unit relation's part");
    let mut colls: Colls<'s, W> = parts.into_iter().enumerate().collect();
    assert_eq!(sealed.len(), relations, "one sealed flag per relation");
    let sealed_rels: Vec<RelId> = (0..relations).filter(|&r| sealed[r]).collect();
    let sealed_input = (!sealed_rels.is_empty()).then(|| {
        let (input, tagged) = scope.new_collection::<(u32, Wide<W>), isize>();
        // One part per sealed relation, not per relation: every port of the
        // operator costs the dataflow's build and its progress tracking.
        let mut part = vec![0u64; relations];
        for (k, &rel) in sealed_rels.iter().enumerate() {
            part[rel] = k as u64;
        }
        let route =
            move |((rel, r), t, d): ((u32, Wide<W>), Epoch, isize)| (part[rel as usize], (r, t, d));
        let parts = split_by(tagged, sealed_rels.len(), route);
        colls.extend(sealed_rels.iter().copied().zip(parts));
        input
    });
    let inputs = Inputs {
        all,
        sealed: sealed_input,
        is_sealed: sealed.to_vec(),
        unit: relations as u32,
    };
    (inputs, unit, colls)
}

/// The top level as its strata are rendered, in order: what they read, and what
/// the strata rendered so far have built.
struct TopLevel<'s, 'p, const W: usize> {
    scope: Scope<'s, Epoch>,
    program: &'p Program,
    plan: &'p Plan,
    outputs: &'p Outputs,
    /// Each relation's input.
    inputs: Colls<'s, W>,
    /// The contents of the relations rendered so far, and their arrangements.
    env: Env<'s, Epoch, W>,
    /// The relations that have facts in the program text.
    view_facts: Vec<RelId>,
    /// The tier of every rule, by rule index.
    rule_tiers: Vec<u32>,
    /// Which strata to render, and what the strata after each read.
    rendered: Rendered,
    /// What the session hears: observed relations' changes and explain events.
    outs: Vec<Collection<'s, Epoch, Leaving<W>>>,
    /// What left blocks that no one reads: the probe follows it.
    probed: Vec<Collection<'s, Epoch, Leaving<W>>>,
}

impl<'s, const W: usize> TopLevel<'s, '_, W>
where
    Wide<W>: ExchangeData,
{
    /// Renders a flat stratum: its relation's rules, its input and their distinct go
    /// into `env.rels`; its observed changes and explain events into `outs`.
    fn flat_stratum(&mut self, stratum: &StratumPlan) {
        let StratumPlan::Flat { rel, rules } = stratum else {
            unreachable!("flat_stratum renders flat strata")
        };
        // A relation derived by one rule that yields a set needs no distinct
        // (as a view), and, where the session adds facts to inputs only, takes
        // no input. Nor, there, does any derived relation without program facts:
        // its input would stay empty, but advance every epoch, and hold back
        // what a sealed input's relations derive.
        let set = self.outputs.inputs_only && stratum.derived_set(self.program).is_some();
        let input =
            rules.is_empty() || takes_input(self.outputs, self.program, &self.view_facts, *rel);
        let mut parts = if input {
            vec![self.inputs[rel].clone()]
        } else {
            Vec::new()
        };
        let mut evs = Vec::new();
        for rp in rules {
            let (h, ev) = render_rule(&mut self.env, rp, None);
            parts.push(h);
            if let (Some(ev), true) = (ev, self.plan.explain) {
                evs.push(ev);
            }
        }
        let first = self.env.next_operator();
        let coll = if rules.is_empty() || set {
            parts.swap_remove(0)
        } else {
            Time::distinct(concatenate(self.scope, parts))
        };
        if self.outputs.observes(*rel) {
            let tag = *rel as u32;
            self.outs
                .push(coll.clone().map(move |r| (tag, r, [0; W], 0)));
        }
        if !evs.is_empty() {
            self.outs
                .push(first_reasons(evs, self.scope).map(|((h, b), round)| (EVENT, h, b, round)));
        }
        self.env.rels.insert(*rel, coll);
        self.env.charge(Charge::Relation(*rel), first);
    }

    /// Renders block stratum `i` (see [`render_block`]), charged to its block. What
    /// leaves it goes on by relation ([`TopLevel::pass_on`]); its events into `outs`.
    fn block_stratum(&mut self, i: usize, stratum: &StratumPlan) {
        let StratumPlan::Block {
            block,
            key,
            state,
            views,
            rules,
            tiers,
            ..
        } = stratum
        else {
            unreachable!("block_stratum renders blocks")
        };
        let read = outer_reads(stratum, state, views);
        let first = self.env.next_operator();
        let render_block = if self.outputs.batch {
            render_block::<(Epoch, u32), W>
        } else {
            render_block::<Product<Epoch, u32>, W>
        };
        let (outputs, read_later) = (self.outputs, &self.rendered.read_later[i]);
        let (program, view_facts) = (self.program, &self.view_facts);
        let out = render_block(
            &mut self.env,
            self.scope,
            &self.inputs,
            BlockSpec {
                key: *key,
                monotone: !self.program.blocks[*block].explicit,
                state,
                views,
                rules,
                tiers,
                reads: read,
                explain: self.plan.explain,
                max_rounds: outputs.max_rounds,
                view_facts: &self.view_facts,
                rule_tiers: &self.rule_tiers,
                enters_at: &|r| {
                    let rel = &program.relations[r];
                    rel.enters_at_round.then(|| rel.arity() - 1)
                },
                leaves: &|r| (read_later.contains(&r), outputs.observes(r)),
                takes_input: &|r| takes_input(outputs, program, view_facts, r),
            },
        );
        let parts = self.split_left(out.left, &out.rels, out.events);
        for (l, p) in out.rels.iter().zip(parts) {
            let view = views.iter().any(|(v, _)| *v == l.rel);
            self.pass_on(i, l, view, p);
        }
        self.env.charge(Charge::Block(*block), first);
    }

    /// What leaves a block, one collection per relation of `rels` (in order). What
    /// leaves goes on as it is when it is one relation's changes; otherwise one
    /// operator splits it by relation (events: part 0, into `outs` when `events`).
    fn split_left(
        &mut self,
        left: Collection<'s, Epoch, Leaving<W>>,
        rels: &[Left],
        events: bool,
    ) -> Vec<Collection<'s, Epoch, Leaving<W>>> {
        if rels.len() == 1 && !events {
            return vec![left];
        }
        let mut part = vec![0u64; self.program.relations.len()];
        for (k, l) in rels.iter().enumerate() {
            part[l.rel] = k as u64 + 1;
        }
        let route = move |(u, t, d): (Leaving<W>, Epoch, isize)| {
            let p = if u.0 == EVENT { 0 } else { part[u.0 as usize] };
            (p, (u, t, d))
        };
        let mut parts = split_by(left, rels.len() + 1, route);
        let event_part = parts.remove(0);
        if events {
            self.outs.push(event_part);
        }
        parts
    }

    /// One relation leaving block stratum `i` (`view`: one of its views), `p` its
    /// changes: into `outs` when observed; its contents into `env.rels` when a later
    /// stratum reads them, else, unless observed, into `probed`.
    fn pass_on(&mut self, i: usize, l: &Left, view: bool, p: Collection<'s, Epoch, Leaving<W>>) {
        if l.observed {
            self.outs.push(p.clone());
        }
        // Contents only where a later stratum reads them: otherwise
        // the probe follows the changes themselves (no copy).
        if self.rendered.read_later[i].contains(&l.rel) {
            // (A state relation's facts in a batch only accumulate.)
            let scanned = self.rendered.scanned_later[i].contains(&l.rel);
            let rows = if view && self.outputs.batch && scanned {
                let first = self.env.next_operator();
                let rows = consolidated(p);
                self.env.charge(Charge::Relation(l.rel), first);
                rows
            } else {
                p.map(|(_, row, _, _)| row)
            };
            self.env.rels.insert(l.rel, rows);
        } else if !l.observed {
            self.probed.push(p);
        }
    }
}

/// Whether a relation that rules derive takes a part of the session's input: always,
/// unless the session adds facts to inputs only; then only an input relation, or
/// one with facts in the program text. (Any other's part would stay empty, but
/// advance every epoch, and hold back what a sealed input's relations derive.)
fn takes_input(outputs: &Outputs, program: &Program, view_facts: &[RelId], rel: RelId) -> bool {
    !outputs.inputs_only || program.relations[rel].input || view_facts.contains(&rel)
}

/// The relations outside a block stratum (`state` and `views`: its own) that its
/// rules read, sorted, each once.
fn outer_reads(
    stratum: &StratumPlan,
    state: &[RelId],
    views: &[(RelId, Vec<RulePlan>)],
) -> Vec<RelId> {
    let mut read = stratum_reads(stratum);
    read.sort();
    read.dedup();
    read.retain(|r| !state.contains(r) && !views.iter().any(|(v, _)| v == r));
    read
}

/// The probe that says when an epoch is done. `probed`: what left blocks that no
/// one reads.
fn follow_all<'s, const W: usize>(
    env: &Env<'s, Epoch, W>,
    probed: Vec<Collection<'s, Epoch, Leaving<W>>>,
) -> ProbeHandle<Epoch>
where
    Wide<W>: ExchangeData,
{
    let probe = ProbeHandle::new();
    // The probe follows every relation, observed or not, so a commit returns only
    // when the whole program has reached its fixpoint for the new epoch (following
    // only the observed outputs, a commit with nothing observed would return as soon
    // as the inputs moved on). In relation order: every worker builds the same
    // operators in the same order. One operator gathers them for one probe (not a
    // probe each: every operator an epoch advances costs progress tracking).
    let mut rels: Vec<_> = env.rels.iter().collect();
    rels.sort_by_key(|(r, _)| **r);
    let rels = rels.into_iter().map(|(_, c)| c.clone());
    concatenate(env.unit.scope(), rels.chain([env.unit.clone()])).probe_with(&probe);
    if !probed.is_empty() {
        concatenate(env.unit.scope(), probed).probe_with(&probe);
    }
    probe
}

/// Where the changes in `outs` are collected (on worker 0 when `gather`, else on
/// the worker that computed them); `probe` follows them too.
fn collect_changes<'s, const W: usize>(
    scope: Scope<'s, Epoch>,
    outs: Vec<Collection<'s, Epoch, Leaving<W>>>,
    gather: bool,
    probe: &ProbeHandle<Epoch>,
) -> Changes<W>
where
    Wide<W>: ExchangeData,
{
    let changes: Changes<W> = Default::default();
    let sink = changes.clone();
    let outs = concatenate(scope, outs);
    let outs = if gather {
        outs.inner.exchange(|_| 0).as_collection()
    } else {
        outs
    };
    // A batch at a time: one borrow per container, not per change.
    outs.inner
        .inspect_batch(move |_t, batch: &Vec<(Leaving<W>, Epoch, isize)>| {
            sink.borrow_mut()
                .extend(batch.iter().map(|(u, _t, diff)| (*u, *diff)))
        })
        .probe_with(probe);
    changes
}

#[cfg(test)]
mod tests {
    use super::{merge_runs, needed_strata, stratum_defines, width, Facts, Update};
    use crate::check::check_str;
    use crate::plan::plan;

    use super::ChangeRun;

    /// A worker's run from its changes as it collected them.
    fn run(changes: &[(u32, i32, i32, u32, isize)]) -> ChangeRun {
        ChangeRun::of_pairs(changes)
    }

    fn flat(ups: impl Iterator<Item = Update>) -> Vec<(u32, i32, i32, u32, isize)> {
        ups.map(|u| (u.tag, u.row[0], u.row[1], u.round, u.diff))
            .collect()
    }

    #[test]
    fn a_run_is_sorted_and_consolidated_and_runs_merge() {
        // Out of order, a duplicate, a change that cancels within the run.
        let one = run(&[
            (1, 5, 0, 2, 1),
            (0, 9, 9, 0, 1),
            (1, 5, 0, 2, 1),
            (0, 3, 4, 1, 1),
        ]);
        let one = flat(
            merge_runs(vec![one])
                .chain(merge_runs(vec![run(&[(0, 7, 7, 0, 1), (0, 7, 7, 0, -1)])])),
        );
        assert_eq!(one, vec![(0, 3, 4, 1, 1), (0, 9, 9, 0, 1), (1, 5, 0, 2, 2)]);
        // Several runs: equal keys add up across runs, and cancel.
        let a = run(&[(0, 1, 1, 0, 1), (0, 2, 2, 3, 1), (2, 0, 0, 0, 1)]);
        let b = run(&[(0, 2, 2, 3, -1), (0, 1, 1, 0, 1), (1, 4, 4, 1, -1)]);
        let c = run(&[]);
        let merged = merge_runs(vec![a, b, c]);
        assert_eq!(merged.len(), 3);
        assert_eq!(
            flat(merged),
            vec![(0, 1, 1, 0, 2), (1, 4, 4, 1, -1), (2, 0, 0, 0, 1)]
        );
        // One run passes through as it is; empty runs (of no width) are skipped.
        let single = merge_runs(vec![
            ChangeRun::empty(),
            run(&[(3, 1, 2, 0, 1), (3, 0, 2, 0, 1)]),
        ]);
        assert_eq!(flat(single), vec![(3, 0, 2, 0, 1), (3, 1, 2, 0, 1)]);
        assert_eq!(merge_runs(vec![ChangeRun::empty()]).len(), 0);
    }

    #[test]
    fn a_split_keeps_each_relations_additions_sorted_and_the_rest_in_order() {
        let split = run(&[
            (2, 1, 1, 3, -1),
            (0, 5, 0, 0, 1),
            (super::EVENT, 7, 0, 1, 1),
            (0, 2, 9, 1, 1),
            (2, 0, 4, 2, 1),
            (0, 3, 3, 0, -1),
            // Derived twice on this worker: added, its excess in the rest.
            (2, 6, 0, 0, 2),
        ])
        .split();
        // A 2-wide dataflow's additions stay 2 wide.
        assert_eq!(
            split.added,
            vec![
                (0, Facts::Pairs(vec![([2, 9], 1), ([5, 0], 0)])),
                (2, Facts::Pairs(vec![([0, 4], 2), ([6, 0], 0)]))
            ]
        );
        assert_eq!(
            flat(merge_runs(vec![split.rest])),
            vec![
                (0, 3, 3, 0, -1),
                (2, 1, 1, 3, -1),
                (2, 6, 0, 0, 1),
                (super::EVENT, 7, 0, 1, 1)
            ]
        );
    }

    #[test]
    fn strata_nothing_observed_reads_are_not_rendered() {
        let text = "
            .decl e(x: number, y: number)
            .decl b(x: number, y: number)
            .decl a(x: number)
            .decl c(x: number)
            .decl d(x: number)
            b(x, y) :- e(x, y).
            a(x) :- b(x, _).
            c(x) :- e(x, _).
            d(x) :- c(x).";
        let program = check_str("n.dl", text).expect("the program checks");
        let p = plan(&program, false).expect("the program plans");
        let a = program.relation("a").unwrap();
        let needed = needed_strata(&p, &|r| r == a).needed;
        let mut rendered: Vec<&str> = p
            .strata
            .iter()
            .zip(&needed)
            .filter(|(_, n)| **n)
            .flat_map(|(s, _)| stratum_defines(s))
            .map(|r| program.relations[r].name.as_str())
            .collect();
        rendered.sort();
        // `e` (an input) and what `a` reads; not `c` and `d`.
        assert_eq!(rendered, ["a", "b", "e"]);
    }

    #[test]
    fn views_scanned_after_their_block_are_told_from_views_looked_up() {
        // `n` and `m` are views of the block; `o` scans `n` (its rows stream on),
        // `q` scans `g` and only looks `m` up, `r` scans `s` inside an aggregate's
        // body.
        let text = "
            .decl e(x: number, y: number)
            .decl g(x: number)
            .fixpoint {
                .decl s(x: number, y: number)
                .view n(x: number, k: number)
                .view m(x: number)
                s(x, y) :- e(x, y).
                n(x, k) :- g(x), k = count : { s(x, _) }.
                m(x) :- s(x, _).
            }
            .decl o(x: number)
            .decl q(x: number)
            .decl r(x: number, k: number)
            o(x) :- n(x, k), k > 1.
            q(x) :- g(x), m(x).
            r(x, k) :- g(x), k = count : { s(x, y), y > 2 }.
            .output o, q, r";
        let program = check_str("v.dl", text).expect("the program checks");
        let p = plan(&program, false).expect("the program plans");
        let later = needed_strata(&p, &|r| program.relations[r].output).scanned_later;
        let rel = |n: &str| program.relation(n).unwrap();
        let block = p
            .strata
            .iter()
            .position(|s| stratum_defines(s).contains(&rel("n")))
            .expect("a block defines n");
        let mut scanned: Vec<&str> = later[block]
            .iter()
            .map(|&r| program.relations[r].name.as_str())
            .collect();
        scanned.sort();
        // `g` too (`q` and `r` scan it); not `m`.
        assert_eq!(scanned, ["g", "n", "s"]);
    }

    fn width_of(text: &str) -> usize {
        let program = check_str("w.dl", text).expect("the program checks");
        width(&program, &plan(&program, false).expect("the program plans"))
    }

    #[test]
    fn narrow_programs_render_two_wide() {
        let tc = "
            .decl e(x: number, y: number)
            .decl p(x: number, y: number)
            p(x, y) :- e(x, y).
            p(x, z) :- p(x, y), e(y, z).";
        assert_eq!(width_of(tc), 2);
    }

    #[test]
    fn ternary_relations_and_four_variables_render_four_wide() {
        let ternary = ".decl t(x: number, y: number, z: number)\nt(1, 2, 3).";
        assert_eq!(width_of(ternary), 4);
        // Binary relations, but a rule holds three variables at once.
        let triangle = "
            .decl e(x: number, y: number)
            .decl t(x: number, y: number)
            t(x, y) :- e(x, y), e(y, z), e(z, x).";
        assert_eq!(width_of(triangle), 4);
    }

    #[test]
    fn five_or_six_values_render_six_wide() {
        let five =
            ".decl f(a: number, b: number, c: number, d: number, e: number)\nf(1, 2, 3, 4, 5).";
        assert_eq!(width_of(five), 6);
        // Binary relations, but a rule holds five variables at once.
        let path = "
            .decl e(x: number, y: number)
            .decl q(x: number)
            q(a) :- e(a, b), e(c, d), e(f, 0), a + b + c + d + f > 0.";
        assert_eq!(width_of(path), 6);
    }

    #[test]
    fn past_six_columns_renders_full_width() {
        let seven =
            ".decl s(a: number, b: number, c: number, d: number, e: number, f: number, g: number)
            s(1, 2, 3, 4, 5, 6, 7).";
        assert_eq!(width_of(seven), crate::MAX_ARITY);
        // Binary relations, but a rule holds eight variables at once.
        let cross = "
            .decl e(x: number, y: number)
            .decl q(x: number)
            q(a) :- e(a, b), e(c, d), e(f, g), e(h, i), a + b + c + d + f + g + h + i > 0.";
        assert_eq!(width_of(cross), crate::MAX_ARITY);
    }
}
