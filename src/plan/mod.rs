//! Checked program -> plan.
//!
//! Each rule body becomes a linear pipeline over rows of bound variables ("slots"):
//! a source (a scan of one relation, or the unit row), then steps that join,
//! antijoin, filter, assign and aggregate, each followed by a projection onto the
//! variables still needed. Joins name the relation and the columns they look up,
//! so that the dataflow keeps one arrangement per (relation, key columns) and
//! shares it between every rule that probes it. The plan knows nothing about
//! timely or differential dataflow; `dataflow::render` turns it into operators, and
//! `sudolog check` prints it.

pub mod caps;
mod display;
mod lone;

use std::collections::BTreeSet;

use crate::check::ir::*;
use crate::diag::Diagnostic;

/// Where a value of an output row comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pick {
    /// A slot of the incoming (probe) row.
    Slot(usize),
    /// A column of the other side: the joined relation's row, or the aggregate value (column 0).
    Col(usize),
    Const(Value),
}

/// An expression over slots of a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SExpr {
    Slot(usize),
    Const(Value),
    Binary(BinOp, Box<SExpr>, Box<SExpr>),
    Neg(Box<SExpr>),
}

impl SExpr {
    pub fn eval(&self, row: &[Value]) -> Option<Value> {
        match self {
            SExpr::Slot(s) => Some(row[*s]),
            SExpr::Const(c) => Some(*c),
            SExpr::Binary(op, a, b) => op.eval(a.eval(row)?, b.eval(row)?),
            SExpr::Neg(a) => Some(a.eval(row)?.wrapping_neg()),
        }
    }
}

/// The first rows of a pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Rows of `rel` that pass `filter`, projected by `out` (`Pick::Col`).
    Scan {
        rel: RelId,
        filter: AtomFilter,
        out: Vec<Pick>,
    },
    /// A single empty row.
    Unit,
    /// The rows handed in (the group bindings of an aggregate).
    Given,
    /// The rows of `rel` alone in their group of the count view `count`: what a scan
    /// of `count` with the value 1, joined back to `rel` on the group, finds (see
    /// [`lone`]). Projected by `out` (`Pick::Col`: columns of `rel`). The count's
    /// aggregate hands them on ([`Step::Aggregate`]'s `lone`), so no join is built.
    Lone {
        count: RelId,
        rel: RelId,
        out: Vec<Pick>,
    },
}

/// Conditions on a relation's own row: constant columns and repeated variables.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct AtomFilter {
    pub consts: Vec<(usize, Value)>,
    pub equal: Vec<(usize, usize)>,
}

impl AtomFilter {
    pub fn accepts(&self, row: &[Value]) -> bool {
        self.consts.iter().all(|&(c, v)| row[c] == v)
            && self.equal.iter().all(|&(a, b)| row[a] == row[b])
    }
    pub fn is_empty(&self) -> bool {
        self.consts.is_empty() && self.equal.is_empty()
    }
    /// The same conditions in a canonical order (two atoms that filter alike
    /// compare equal).
    pub fn normalized(&self) -> AtomFilter {
        let mut f = self.clone();
        f.consts.sort_unstable();
        f.equal.sort_unstable();
        f
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Join with `rel` arranged by `key_cols`; the probe row supplies the key by `probe`
    /// (slots or constants, one per key column); matches must also pass `filter`.
    Join {
        rel: RelId,
        key_cols: Vec<usize>,
        probe: Vec<Pick>,
        filter: AtomFilter,
        out: Vec<Pick>,
    },
    /// Keep rows with no tuple of `rel` matching on `key_cols` (other columns are `_`).
    Antijoin {
        rel: RelId,
        key_cols: Vec<usize>,
        probe: Vec<Pick>,
    },
    Filter {
        lhs: SExpr,
        op: CmpOp,
        rhs: SExpr,
        /// Symbols compared by their text (see [`crate::check::ir::Literal::Cmp`]).
        text: bool,
    },
    /// Keep only some slots (`Pick::Slot`).
    Project { out: Vec<Pick> },
    /// Append the value of `expr` as a new slot, then project by `out` (`Pick::Col(0)` is the new value).
    Assign { expr: SExpr, out: Vec<Pick> },
    /// Aggregate over `body` per group. The group row (slots `group` of the probe row)
    /// feeds `body` as its `Source::Given`; `target` is evaluated on the body's rows.
    /// If `bound` is set the result must equal that slot (a filter); `out` projects
    /// with `Pick::Col(0)` the aggregate's value.
    Aggregate {
        group: Vec<usize>,
        func: AggFunc,
        body: Box<Pipeline>,
        target: Option<SExpr>,
        bound: Option<usize>,
        out: Vec<Pick>,
        /// Slots of the group's variables in the body's final row.
        body_group: Vec<usize>,
        /// The body keeps every variable of its atoms, so (relations being sets) a
        /// set of groups gives a set of body rows: a count needs no deduplication.
        body_set: bool,
        /// The body is planned on its own, not fed the groups (see [`streamed_body`]):
        /// its rows are every binding of its variables, one row each, projected onto
        /// the group and the target.
        streamed: bool,
        /// Set on the count that defines the view `count` when a rule reads its groups
        /// of one row ([`Source::Lone`]): the aggregate also hands those rows on.
        lone: Option<RelId>,
    },
}

impl Step {
    /// Whether this is an aggregate grouped by the whole incoming row of `width`
    /// slots, in order, with no value bound beforehand: then the rows are their own
    /// groups, each with one value, and need no join back. (An empty group's body
    /// scans on its own, so it never groups a whole row.)
    pub fn groups_whole_row(&self, width: usize) -> bool {
        matches!(self, Step::Aggregate { group, bound: None, .. }
            if !group.is_empty() && width == group.len() && group.iter().copied().eq(0..width))
    }
}

/// A source and its steps; `width` is the number of slots of the final row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    pub source: Source,
    pub steps: Vec<Step>,
    /// The variable in each slot of the final row.
    pub layout: Vec<VarId>,
    /// The layout after the source and after each step (for display).
    pub layouts: Vec<Vec<VarId>>,
}

impl Pipeline {
    /// The relation scanned when the pipeline's first step is an antijoin straight on
    /// a scan without a filter that probes every column in order: the relation's set
    /// of rows is then the rows keyed by the probe, and the antijoin reads it.
    pub fn antijoin_on_its_scan(&self, arities: &[usize]) -> Option<RelId> {
        let (Source::Scan { rel, filter, out }, Some(Step::Antijoin { probe, .. })) =
            (&self.source, self.steps.first())
        else {
            return None;
        };
        let in_order = probe.len() == arities[*rel]
            && probe.iter().enumerate().all(|(i, pick)| match pick {
                Pick::Slot(s) => out.get(*s) == Some(&Pick::Col(i)),
                _ => false,
            });
        (filter.consts.is_empty() && filter.equal.is_empty() && in_order).then_some(*rel)
    }

    /// Adds the relations whose rows the pipeline streams through its operators (its
    /// scan, and its aggregates' bodies' scans) to `out`: the rest of what it reads
    /// it looks up in arrangements.
    pub fn scans(&self, out: &mut Vec<RelId>) {
        if let Source::Scan { rel, .. } = &self.source {
            out.push(*rel);
        }
        for s in &self.steps {
            if let Step::Aggregate { body, .. } = s {
                body.scans(out);
            }
        }
    }

    /// Adds the relations the pipeline reads (its source, joins, antijoins and
    /// aggregates' bodies) to `out`.
    pub fn reads(&self, out: &mut Vec<RelId>) {
        match &self.source {
            Source::Scan { rel, .. } => out.push(*rel),
            Source::Lone { count, rel, .. } => out.extend([*count, *rel]),
            Source::Unit | Source::Given => {}
        }
        for s in &self.steps {
            match s {
                Step::Join { rel, .. } | Step::Antijoin { rel, .. } => out.push(*rel),
                Step::Aggregate { body, .. } => body.reads(out),
                _ => {}
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct RulePlan {
    /// Index of the rule in `Program::rules`.
    pub rule: usize,
    pub head: RelId,
    pub tier: u32,
    /// `@ungated`: its facts are added in every round, outside tier gating.
    pub ungated: bool,
    pub body: Pipeline,
    /// The head row, from the body's final row.
    pub head_out: Vec<Pick>,
    /// With explanations: the slots of the template's variables, in template order.
    pub explain: Option<Vec<usize>>,
    /// Each head fact is derived at most once (every variable of a positive atom is in
    /// the head and no atom has a wildcard), so the rule's output is already a set.
    pub yields_set: bool,
}

#[derive(Clone, Debug)]
pub enum StratumPlan {
    Flat {
        rel: RelId,
        rules: Vec<RulePlan>,
    },
    Block {
        block: BlockId,
        key: Option<usize>,
        state: Vec<RelId>,
        /// Views in evaluation order, each with its rules.
        views: Vec<(RelId, Vec<RulePlan>)>,
        /// Rules whose heads are state relations.
        rules: Vec<RulePlan>,
        /// Distinct tiers of `rules` (but the ungated ones), ascending.
        tiers: Vec<u32>,
    },
}

impl StratumPlan {
    /// A flat relation whose rows are its one rule's, a set already (the rule
    /// [`RulePlan::yields_set`]), and that is neither an input nor written in the
    /// program: rendered without a distinct, and with no input from the session.
    pub fn derived_set(&self, program: &Program) -> Option<RelId> {
        match self {
            StratumPlan::Flat { rel, rules }
                if rules.len() == 1
                    && rules[0].yields_set
                    && !program.relations[*rel].input
                    && !program.facts.iter().any(|(r, _)| r == rel) =>
            {
                Some(*rel)
            }
            _ => None,
        }
    }

    /// Every rule of the stratum: a flat relation's, or a block's views' then its rules.
    pub fn rules(&self) -> Vec<&RulePlan> {
        match self {
            StratumPlan::Flat { rules, .. } => rules.iter().collect(),
            StratumPlan::Block { views, rules, .. } => views
                .iter()
                .flat_map(|(_, r)| r.iter())
                .chain(rules.iter())
                .collect(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub strata: Vec<StratumPlan>,
    /// Whether explained rules produce explain events.
    pub explain: bool,
}

impl Plan {
    /// The most values a row of the plan holds at once: a pipeline's row at any step
    /// (aggregate bodies included), or an explain record (the rule, then bindings).
    /// Relation rows are as wide as their arities (not counted here).
    pub fn width(&self) -> usize {
        fn walk(p: &Pipeline) -> usize {
            let mut w = p.layouts.iter().map(Vec::len).max().unwrap_or(0);
            w = w.max(p.layout.len());
            for s in &p.steps {
                match s {
                    Step::Aggregate { body, .. } => w = w.max(walk(body)),
                    Step::Join { out, .. } | Step::Project { out } | Step::Assign { out, .. } => {
                        w = w.max(out.len())
                    }
                    _ => {}
                }
            }
            w
        }
        let mut w = 0;
        for s in &self.strata {
            for r in s.rules() {
                w = w.max(walk(&r.body)).max(r.head_out.len());
                if let Some(slots) = &r.explain {
                    w = w.max(slots.len() + 1);
                }
            }
        }
        w
    }

    /// How many steps of the plan arrange the rows they are fed: joins, antijoins and
    /// aggregates, in aggregate bodies too. Each holds rows of every instance (puzzle,
    /// search node) the dataflow evaluates, so what an instance costs in memory grows
    /// with this count.
    pub fn arranging_steps(&self) -> usize {
        fn walk(p: &Pipeline) -> usize {
            p.steps
                .iter()
                .map(|s| match s {
                    Step::Join { .. } | Step::Antijoin { .. } => 1,
                    Step::Aggregate { body, .. } => 1 + walk(body),
                    _ => 0,
                })
                .sum()
        }
        self.strata
            .iter()
            .flat_map(|s| s.rules())
            .map(|r| walk(&r.body))
            .sum()
    }

    /// Every (relation, key columns) arrangement the plan probes, for display.
    pub fn arrangements(&self) -> BTreeSet<(RelId, Vec<usize>, bool)> {
        let mut out = BTreeSet::new();
        fn walk(p: &Pipeline, out: &mut BTreeSet<(RelId, Vec<usize>, bool)>) {
            for s in &p.steps {
                match s {
                    Step::Join { rel, key_cols, .. } => {
                        out.insert((*rel, key_cols.clone(), false));
                    }
                    Step::Antijoin { rel, key_cols, .. } => {
                        out.insert((*rel, key_cols.clone(), true));
                    }
                    Step::Aggregate { body, .. } => walk(body, out),
                    _ => {}
                }
            }
        }
        for s in &self.strata {
            for r in s.rules() {
                walk(&r.body, &mut out);
            }
        }
        out
    }
}

/// Plans every rule of a checked program. Fails only when a rule needs more than
/// [`crate::MAX_ARITY`] variables at once.
pub fn plan(program: &Program, explain: bool) -> Result<Plan, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut plan_rules = |rel: RelId| -> Vec<RulePlan> {
        let mut out = Vec::new();
        for (i, rule) in program.rules.iter().enumerate() {
            if rule.head != rel {
                continue;
            }
            match plan_rule(program, i, explain) {
                Ok(p) => out.push(p),
                Err(msg) => errors.push(Diagnostic::new(rule.span, msg)),
            }
        }
        out
    };
    let mut strata = Vec::new();
    for s in &program.strata {
        match s {
            Stratum::Flat(rel) => strata.push(StratumPlan::Flat {
                rel: *rel,
                rules: plan_rules(*rel),
            }),
            Stratum::Block(b) => {
                let block = &program.blocks[*b];
                let views = block.views.iter().map(|&v| (v, plan_rules(v))).collect();
                let rules: Vec<RulePlan> =
                    block.state.iter().flat_map(|&s| plan_rules(s)).collect();
                let (views, after) = after_the_loop(views, &rules);
                let mut tiers: Vec<u32> = rules
                    .iter()
                    .filter(|r| !r.ungated)
                    .map(|r| r.tier)
                    .collect();
                tiers.sort();
                tiers.dedup();
                strata.push(StratumPlan::Block {
                    block: *b,
                    key: block.key,
                    state: block.state.clone(),
                    views,
                    rules,
                    tiers,
                });
                strata.extend(
                    after
                        .into_iter()
                        .map(|(rel, rules)| StratumPlan::Flat { rel, rules }),
                );
            }
        }
    }
    for s in &mut strata {
        lone::fuse(program, s);
    }
    if errors.is_empty() {
        Ok(Plan { strata, explain })
    } else {
        Err(errors)
    }
}

/// A view and its rules.
type ViewPlan = (RelId, Vec<RulePlan>);

/// Splits a block's views (in evaluation order, each with its rules) into those its
/// loop needs and those it does not: a view that no rule of the block reads (state
/// rules, or views it keeps) is, at the fixpoint, a function of the final state, so
/// it is computed once after the loop (in order, a flat stratum each) instead of in
/// every round. Views leave a block without rounds and explain nothing (the checker
/// refuses `@explain` on them), so what is observed is the same.
fn after_the_loop(views: Vec<ViewPlan>, rules: &[RulePlan]) -> (Vec<ViewPlan>, Vec<ViewPlan>) {
    let mut read = Vec::new();
    for rp in rules {
        rp.body.reads(&mut read);
    }
    let (mut keep, mut after) = (Vec::new(), Vec::new());
    // Last first: a view only reads views before it.
    for (v, rps) in views.into_iter().rev() {
        if read.contains(&v) {
            for rp in &rps {
                rp.body.reads(&mut read);
            }
            keep.push((v, rps));
        } else {
            after.push((v, rps));
        }
    }
    keep.reverse();
    after.reverse();
    (keep, after)
}

fn plan_rule(program: &Program, index: usize, explain: bool) -> Result<RulePlan, String> {
    let rule = &program.rules[index];
    let template: Vec<VarId> = if explain {
        rule.template_vars()
    } else {
        Vec::new()
    };
    let mut keep: Vec<VarId> = template.clone();
    for t in &rule.head_args {
        if let Term::Var(v) = t {
            if !keep.contains(v) {
                keep.push(*v);
            }
        }
    }
    let body = plan_pipeline(&rule.body, &[], &keep, rule.vars.len(), false)?;
    let slot = |v: VarId| {
        body.layout
            .iter()
            .position(|&x| x == v)
            .expect("head variables are kept")
    };
    let head_out = rule
        .head_args
        .iter()
        .map(|t| match t {
            Term::Var(v) => Pick::Slot(slot(*v)),
            Term::Const(c) => Pick::Const(*c),
            Term::Wild => unreachable!("the checker rejects wildcards in heads"),
        })
        .collect();
    let explain_slots =
        (explain && rule.explain.is_some()).then(|| template.iter().map(|&v| slot(v)).collect());
    if template.len() + 1 > crate::MAX_ARITY {
        return Err(format!(
            "the @explain template names {} variables; at most {} are supported",
            template.len(),
            crate::MAX_ARITY - 1
        ));
    }
    let yields_set = rule.body.iter().all(|l| match l {
        Literal::Atom { args, .. } => args.iter().all(|t| match t {
            Term::Var(v) => rule.head_args.contains(&Term::Var(*v)),
            Term::Const(_) => true,
            Term::Wild => false,
        }),
        _ => true,
    }) || one_row_per_group(&body, &rule.head_args);
    Ok(RulePlan {
        rule: index,
        head: rule.head,
        tier: rule.tier,
        ungated: rule.ungated,
        body,
        head_out,
        explain: explain_slots,
        yields_set,
    })
}

/// The body of a count or sum planned on its own (scanning its first atom, no groups
/// fed in), when that is sound and worth it: the body joins two atoms or more, keeps
/// every variable of its atoms (so, relations being sets, each binding is one row,
/// and rows projected onto `keep`, the group and the target, still count each
/// binding once), and its atoms bind every variable it uses. Its rows then come as
/// the relations change, each weighed as it comes (a count of pairs where time is
/// totally ordered): no join against the groups, no deduplication, and rows no
/// wider than the group and the target (`sum x : { candidate(p, c, v), weight(c, g,
/// x) }` per `(p, g, v)` holds four values, not five). The groups asked for still
/// decide which are reported, as markers.
fn streamed_body(
    func: AggFunc,
    body: &[Literal],
    group: &[VarId],
    keep: &[VarId],
    nvars: usize,
    body_set: bool,
) -> Option<Pipeline> {
    let mut bound = Vec::new();
    let mut atoms = 0;
    for l in body {
        match l {
            Literal::Atom { .. } => {
                atoms += 1;
                bound.extend(lit_vars(l));
            }
            Literal::Agg { .. } => return None,
            _ => {}
        }
    }
    let used = body.iter().flat_map(lit_vars).chain(keep.iter().copied());
    let closed = used
        .chain(group.iter().copied())
        .all(|v| bound.contains(&v));
    let worth = matches!(func, AggFunc::Count | AggFunc::Sum) && atoms > 1;
    if !(worth && body_set && closed) {
        return None;
    }
    plan_pipeline(body, &[], keep, nvars, false).ok()
}

/// Whether a rule's rows are one per group of an aggregate: its body scans one
/// relation and aggregates per whole scanned row (`inbl(p, b, l, v, n) :- blc(p, b, l,
/// v, _), n = count : { ... }`: the aggregate yields one value per distinct group,
/// however many rows share it), then runs only stateless steps, and the head holds
/// every variable of the aggregate's rows, which keep every group column. Then no head
/// fact is derived twice, though the scanned atom has a wildcard.
fn one_row_per_group(body: &Pipeline, head: &[Term]) -> bool {
    let Source::Scan { out, .. } = &body.source else {
        return false;
    };
    let Some(
        first @ Step::Aggregate {
            group, out: kept, ..
        },
    ) = body.steps.first()
    else {
        return false;
    };
    // The aggregate's rows keep every group column and the value.
    let whole = first.groups_whole_row(out.len())
        && (0..group.len()).all(|j| kept.contains(&Pick::Slot(j)))
        && kept.contains(&Pick::Col(0));
    let stateless = body.steps[1..].iter().all(|s| {
        matches!(
            s,
            Step::Filter { .. } | Step::Project { .. } | Step::Assign { .. }
        )
    });
    whole
        && stateless
        && body.layouts[1]
            .iter()
            .all(|v| head.contains(&Term::Var(*v)))
}

/// Variables of a literal that must be bound before it runs, or that it reads.
fn lit_vars(l: &Literal) -> Vec<VarId> {
    let mut out = Vec::new();
    match l {
        Literal::Atom { args, .. } | Literal::Neg { args, .. } => {
            for t in args {
                if let Term::Var(v) = t {
                    if !out.contains(v) {
                        out.push(*v)
                    }
                }
            }
        }
        Literal::Cmp { lhs, rhs, .. } => {
            lhs.vars(&mut out);
            rhs.vars(&mut out);
        }
        Literal::Agg { result, group, .. } => {
            out.extend(group.iter().copied());
            if !out.contains(result) {
                out.push(*result);
            }
        }
    }
    out
}

fn sexpr(e: &Expr, layout: &[VarId]) -> SExpr {
    match e {
        Expr::Var(v) => SExpr::Slot(slot(layout, *v)),
        Expr::Const(c) => SExpr::Const(*c),
        Expr::Binary(op, a, b) => {
            SExpr::Binary(*op, Box::new(sexpr(a, layout)), Box::new(sexpr(b, layout)))
        }
        Expr::Neg(a) => SExpr::Neg(Box::new(sexpr(a, layout))),
    }
}

/// How an atom's columns meet the variables bound so far.
struct AtomShape {
    /// Columns to look the atom up by (bound variables, and constants when keyed)...
    key_cols: Vec<usize>,
    /// ...and where the probing row's key values come from.
    probe: Vec<Pick>,
    /// Conditions on the atom's own row: constants (when not keyed), repeated new variables.
    filter: AtomFilter,
    /// The variables the atom binds, each with its first column.
    new_vars: Vec<(VarId, usize)>,
}

impl AtomShape {
    fn of(args: &[Term], bound: &[bool], layout: &[VarId], consts_in_key: bool) -> AtomShape {
        let mut shape = AtomShape {
            key_cols: Vec::new(),
            probe: Vec::new(),
            filter: AtomFilter::default(),
            new_vars: Vec::new(),
        };
        for (c, t) in args.iter().enumerate() {
            match t {
                Term::Var(v) if bound[*v] => {
                    shape.key_cols.push(c);
                    shape.probe.push(Pick::Slot(slot(layout, *v)));
                }
                Term::Const(x) if consts_in_key => {
                    shape.key_cols.push(c);
                    shape.probe.push(Pick::Const(*x));
                }
                Term::Const(x) => shape.filter.consts.push((c, *x)),
                Term::Var(v) => match shape.new_vars.iter().find(|(x, _)| x == v) {
                    Some(&(_, first)) => shape.filter.equal.push((first, c)),
                    None => shape.new_vars.push((*v, c)),
                },
                Term::Wild => {}
            }
        }
        shape
    }
}

/// Plans a conjunction. `given` are variables bound on entry (an aggregate's group;
/// the source is then `Given`). `keep` must survive to the final row; with `keep_all`
/// every variable bound stays (aggregate bodies count distinct full bindings).
fn plan_pipeline(
    body: &[Literal],
    given: &[VarId],
    keep: &[VarId],
    nvars: usize,
    keep_all: bool,
) -> Result<Pipeline, String> {
    let mut p = Planner {
        body,
        keep,
        nvars,
        keep_all,
        bound: vec![false; nvars],
        done: vec![false; body.len()],
        layout: given.to_vec(),
        steps: Vec::new(),
    };
    for &v in given {
        p.bound[v] = true;
    }
    let source = if given.is_empty() {
        p.source()?
    } else {
        Source::Given
    };
    let mut layouts = vec![p.layout.clone()];
    while let Some(i) = p.next_literal() {
        p.done[i] = true;
        match &body[i] {
            Literal::Cmp { lhs, op, rhs, text } => p.cmp(lhs, *op, rhs, *text)?,
            Literal::Neg { rel, args } => p.neg(*rel, args),
            Literal::Atom { rel, args } => p.join(*rel, args)?,
            Literal::Agg {
                result,
                func,
                target,
                body: inner,
                group,
            } => p.aggregate(*result, *func, target.as_ref(), inner, group)?,
        }
        // Every step added by that literal ends where the layout now is.
        while layouts.len() < p.steps.len() + 1 {
            layouts.push(p.layout.clone());
        }
    }
    Ok(Pipeline {
        source,
        steps: p.steps,
        layout: p.layout,
        layouts,
    })
}

/// A conjunction as [`plan_pipeline`] plans it, literal by literal: what is bound,
/// which literals are done, the current row's layout and the steps so far.
struct Planner<'b> {
    body: &'b [Literal],
    keep: &'b [VarId],
    nvars: usize,
    keep_all: bool,
    bound: Vec<bool>,
    done: Vec<bool>,
    layout: Vec<VarId>,
    steps: Vec<Step>,
}

/// Where variable `v` sits in `layout`.
fn slot(layout: &[VarId], v: VarId) -> usize {
    layout.iter().position(|&x| x == v).expect("bound has slot")
}

/// An error unless a row of `n` values fits the engine's widest rows.
fn check_width(n: usize) -> Result<(), String> {
    if n > crate::MAX_ARITY {
        Err(format!(
            "this rule needs {} variables at once; at most {} are supported (split it with an intermediate relation)",
            n,
            crate::MAX_ARITY
        ))
    } else {
        Ok(())
    }
}

impl Planner<'_> {
    /// The variables of `layout` still needed: kept, or read by a literal not yet
    /// done (with `keep_all`, all of them), in `layout`'s order.
    fn needed_later(&self, layout: &[VarId]) -> Vec<VarId> {
        let mut need: Vec<VarId> = self.keep.to_vec();
        for (i, l) in self.body.iter().enumerate() {
            if !self.done[i] {
                for v in lit_vars(l) {
                    if !need.contains(&v) {
                        need.push(v);
                    }
                }
            }
        }
        if self.keep_all {
            for &v in layout {
                if !need.contains(&v) {
                    need.push(v);
                }
            }
        }
        layout
            .iter()
            .copied()
            .filter(|v| need.contains(v))
            .collect()
    }

    /// The source when no variable is given: a scan of the first positive atom
    /// (done, its variables bound and laid out), or the unit row.
    fn source(&mut self) -> Result<Source, String> {
        let Some(i) = self
            .body
            .iter()
            .position(|l| matches!(l, Literal::Atom { .. }))
        else {
            return Ok(Source::Unit);
        };
        let Literal::Atom { rel, args } = &self.body[i] else {
            unreachable!()
        };
        self.done[i] = true;
        // Nothing is bound yet: constants filter the scan instead of keying a lookup.
        let AtomShape {
            filter, new_vars, ..
        } = AtomShape::of(args, &self.bound, &[], false);
        for &(v, _) in &new_vars {
            self.bound[v] = true;
        }
        let all: Vec<VarId> = new_vars.iter().map(|(v, _)| *v).collect();
        let keep_now = self.needed_later(&all);
        check_width(keep_now.len())?;
        let out = keep_now
            .iter()
            .map(|v| Pick::Col(new_vars.iter().find(|(x, _)| x == v).unwrap().1))
            .collect();
        self.layout = keep_now;
        Ok(Source::Scan {
            rel: *rel,
            filter,
            out,
        })
    }

    /// The next literal to plan, among those ready: cheap literals first (filters,
    /// assignments, negations); then atoms that only test bound variables (they
    /// never add rows); then aggregates (their bodies run per group: the fewer
    /// groups the better); then joins; then any atom left.
    fn next_literal(&self) -> Option<usize> {
        let bound = &self.bound;
        let todo = |i: usize, l: &Literal| !self.done[i] && crate::check::ready(l, bound);
        for pass in 0..4 {
            let next = self.body.iter().enumerate().position(|(i, l)| {
                todo(i, l)
                    && match (pass, l) {
                        (0, Literal::Cmp { .. }) | (0, Literal::Neg { .. }) => true,
                        (1, Literal::Atom { args, .. }) => args.iter().all(|t| match t {
                            Term::Var(v) => bound[*v],
                            Term::Const(_) => true,
                            Term::Wild => false,
                        }),
                        (2, Literal::Agg { .. }) => true,
                        (3, Literal::Atom { args, .. }) => args.iter().any(|t| {
                            matches!(t, Term::Var(v) if bound[*v]) || matches!(t, Term::Const(_))
                        }),
                        _ => false,
                    }
            });
            if next.is_some() {
                return next;
            }
        }
        (0..self.body.len())
            .find(|&i| !self.done[i] && matches!(self.body[i], Literal::Atom { .. }))
    }

    /// A projection onto the variables still needed, unless that is the layout.
    fn project_needed(&mut self) {
        let keep_now = self.needed_later(&self.layout);
        if keep_now != self.layout {
            let out = keep_now
                .iter()
                .map(|&v| Pick::Slot(slot(&self.layout, v)))
                .collect();
            self.steps.push(Step::Project { out });
            self.layout = keep_now;
        }
    }

    /// A comparison: a filter when both sides are bound, else an assignment of the
    /// side that is one unbound variable.
    fn cmp(&mut self, lhs: &Expr, op: CmpOp, rhs: &Expr, text: bool) -> Result<(), String> {
        let is_bound = |e: &Expr| {
            let mut vs = Vec::new();
            e.vars(&mut vs);
            vs.iter().all(|v| self.bound[*v])
        };
        if is_bound(lhs) && is_bound(rhs) {
            self.steps.push(Step::Filter {
                lhs: sexpr(lhs, &self.layout),
                op,
                rhs: sexpr(rhs, &self.layout),
                text,
            });
            self.project_needed();
            return Ok(());
        }
        let (var, expr) = match (lhs, rhs) {
            (Expr::Var(v), e) if !self.bound[*v] => (*v, e),
            (e, Expr::Var(v)) => (*v, e),
            _ => unreachable!("ready assignment"),
        };
        let expr = sexpr(expr, &self.layout);
        let out = self.bind_value(Some(var))?;
        self.steps.push(Step::Assign { expr, out });
        Ok(())
    }

    /// The picks of the row after a step that computes one value (column 0 of its
    /// output), bound to `var` (`None`: the value is only tested), and the layout
    /// moved on to the variables still needed.
    fn bind_value(&mut self, var: Option<VarId>) -> Result<Vec<Pick>, String> {
        let mut with: Vec<VarId> = self.layout.clone();
        if let Some(var) = var {
            self.bound[var] = true;
            with.push(var);
        }
        let keep_now = self.needed_later(&with);
        check_width(keep_now.len())?;
        let out = keep_now
            .iter()
            .map(|&v| match var {
                Some(var) if v == var => Pick::Col(0),
                _ => Pick::Slot(slot(&self.layout, v)),
            })
            .collect();
        self.layout = keep_now;
        Ok(out)
    }

    /// A negated atom: an antijoin keyed by its variables and constants.
    fn neg(&mut self, rel: RelId, args: &[Term]) {
        let mut key_cols = Vec::new();
        let mut probe = Vec::new();
        for (c, t) in args.iter().enumerate() {
            match t {
                Term::Var(v) => {
                    key_cols.push(c);
                    probe.push(Pick::Slot(slot(&self.layout, *v)));
                }
                Term::Const(x) => {
                    key_cols.push(c);
                    probe.push(Pick::Const(*x));
                }
                Term::Wild => {}
            }
        }
        self.steps.push(Step::Antijoin {
            rel,
            key_cols,
            probe,
        });
        self.project_needed();
    }

    /// A positive atom after the source: a join keyed by what is bound.
    fn join(&mut self, rel: RelId, args: &[Term]) -> Result<(), String> {
        let AtomShape {
            key_cols,
            probe,
            filter,
            new_vars,
        } = AtomShape::of(args, &self.bound, &self.layout, true);
        for &(v, _) in &new_vars {
            self.bound[v] = true;
        }
        let mut with = self.layout.clone();
        with.extend(new_vars.iter().map(|(v, _)| *v));
        let keep_now = self.needed_later(&with);
        check_width(keep_now.len())?;
        let out = keep_now
            .iter()
            .map(|&v| match new_vars.iter().find(|(x, _)| *x == v) {
                Some(&(_, c)) => Pick::Col(c),
                None => Pick::Slot(slot(&self.layout, v)),
            })
            .collect();
        self.steps.push(Step::Join {
            rel,
            key_cols,
            probe,
            filter,
            out,
        });
        self.layout = keep_now;
        Ok(())
    }

    /// An aggregate: its body planned as a pipeline of its own from its group (or
    /// streamed), its value bound to `result` (or tested against it when bound).
    fn aggregate(
        &mut self,
        result: VarId,
        func: AggFunc,
        target: Option<&Expr>,
        inner: &[Literal],
        group: &[VarId],
    ) -> Result<(), String> {
        // The group in the order of the incoming row: a group that is the whole
        // row, in order, needs no join back (`Step::groups_whole_row`).
        let mut group = group.to_vec();
        group.sort_by_key(|&v| slot(&self.layout, v));
        let group_slots: Vec<usize> = group.iter().map(|&v| slot(&self.layout, v)).collect();
        let mut inner_keep: Vec<VarId> = group.clone();
        if let Some(t) = target {
            t.vars(&mut inner_keep);
        }
        let (pipe, body_set, streamed) = self.aggregate_body(func, inner, &group, &inner_keep)?;
        let target = target.map(|t| sexpr(t, &pipe.layout));
        let body_group = group.iter().map(|&v| slot(&pipe.layout, v)).collect();
        let bound_slot = self.bound[result].then(|| slot(&self.layout, result));
        let out = self.bind_value(bound_slot.is_none().then_some(result))?;
        self.steps.push(Step::Aggregate {
            group: group_slots,
            func,
            body: Box::new(pipe),
            target,
            bound: bound_slot,
            out,
            body_group,
            body_set,
            streamed,
            lone: None,
        });
        Ok(())
    }

    /// An aggregate's body: its pipeline from the group (or the streamed one, where
    /// [`streamed_body`] finds it), whether its atoms bind every column (a set of
    /// rows), and whether it is streamed.
    fn aggregate_body(
        &self,
        func: AggFunc,
        inner: &[Literal],
        group: &[VarId],
        inner_keep: &[VarId],
    ) -> Result<(Pipeline, bool, bool), String> {
        let pipe = plan_pipeline(inner, group, inner_keep, self.nvars, true)?;
        let body_set = inner.iter().all(|l| match l {
            Literal::Atom { args, .. } => args.iter().all(|t| match t {
                Term::Var(v) => pipe.layout.contains(v),
                Term::Const(_) => true,
                Term::Wild => false,
            }),
            _ => true,
        });
        let stream = streamed_body(func, inner, group, inner_keep, self.nvars, body_set);
        let streamed = stream.is_some();
        Ok((stream.unwrap_or(pipe), body_set, streamed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program's text checked and planned (no explanations): the program, and the
    /// plan of every rule.
    pub(super) fn planned(text: &str) -> (Program, Vec<RulePlan>) {
        let (sources, ast) = crate::syntax::parse_str("t.dl", text).expect("parses");
        let program = crate::check::check(sources, &ast).expect("checks");
        let plan = plan(&program, false).expect("plans");
        let rules = plan
            .strata
            .iter()
            .flat_map(|s| s.rules())
            .cloned()
            .collect();
        (program, rules)
    }

    fn steps_of(text: &str, head: &str) -> Vec<Step> {
        let (program, rules) = planned(text);
        let rel = program
            .relations
            .iter()
            .position(|r| r.name == head)
            .unwrap();
        let rp = rules
            .iter()
            .find(|rp| rp.head == rel)
            .expect("a rule for the head");
        rp.body.steps.clone()
    }

    /// A count or sum over two atoms is streamed: its body scans on its own and keeps
    /// only the group and the target, so a place's weight per (p, g, v) needs rows
    /// of four values (the cell that joins the atoms is dropped), and the group
    /// follows the incoming row's order (no join back). A body that reads a variable
    /// only the rule binds, a min, or a single atom is fed the groups as before.
    #[test]
    fn counts_and_sums_over_joins_are_streamed() {
        let decls = ".decl cand(p: number, c: number, v: number)\n\
                     .decl weight(c: number, g: number, w: number)\n\
                     .decl gv(p: number, g: number, v: number)\n\
                     .decl out(p: number, g: number, v: number, w: number)\n\
                     .input cand, weight, gv\n";
        let agg = |body: &str| {
            let text = format!("{decls}out(p, g, v, w) :- gv(p, g, v), {body}.\n");
            let steps = steps_of(&text, "out");
            let Some(Step::Aggregate {
                streamed,
                body,
                group,
                ..
            }) = steps
                .into_iter()
                .find(|s| matches!(s, Step::Aggregate { .. }))
            else {
                panic!("no aggregate in {text}")
            };
            (streamed, body.layouts.iter().map(Vec::len).max(), group)
        };
        let (streamed, widest, group) = agg("w = sum x : { cand(p, c, v), weight(c, g, x) }");
        assert!(streamed);
        assert_eq!(widest, Some(4));
        assert_eq!(group, [0, 1, 2]);
        assert!(agg("w = count : { cand(p, c, v), weight(c, g, _) }").0);
        assert!(!agg("w = min x : { cand(p, c, v), weight(c, g, x) }").0);
        assert!(!agg("w = sum x : { weight(c, g, x), x > v, cand(p, c, 1) }").0);
        assert!(!agg("w = sum x : { weight(v, g, x) }").0);
        assert!(agg("w = count : { cand(p, c, v), weight(c, g, x) }").0);
    }

    /// An atom whose variables are all bound only filters rows: it runs before an
    /// aggregate, so the aggregate's body runs for fewer groups.
    #[test]
    fn tests_of_bound_atoms_precede_aggregates() {
        let steps = steps_of(
            ".decl r(x: number, n: number)\n.decl s(x: number, n: number)\n\
             .decl t(x: number, y: number)\n.decl q(x: number, m: number)\n\
             .input r, s, t\n\
             q(x, m) :- r(x, n), m = min y : { t(x, y) }, s(x, n).\n",
            "q",
        );
        let kinds: Vec<&str> = steps
            .iter()
            .map(|s| match s {
                Step::Join { .. } => "join",
                Step::Aggregate { .. } => "aggregate",
                _ => "other",
            })
            .filter(|k| *k != "other")
            .collect();
        assert_eq!(kinds, ["join", "aggregate"]);
    }

    /// An atom that binds a new variable (or has a wildcard) may multiply rows: the
    /// aggregate runs first, on the groups as they are.
    #[test]
    fn expanding_atoms_follow_aggregates() {
        for atom in ["s(x, k)", "s(x, _)"] {
            let steps = steps_of(
                &format!(
                    ".decl r(x: number)\n.decl s(x: number, n: number)\n\
                     .decl t(x: number, y: number)\n.decl q(x: number, m: number)\n\
                     .input r, s, t\n\
                     q(x, m) :- r(x), {atom}, m = min y : {{ t(x, y) }}.\n"
                ),
                "q",
            );
            assert!(
                matches!(steps.first(), Some(Step::Aggregate { .. })),
                "{atom}: {steps:?}"
            );
        }
    }

    /// A rule whose rows are one per group of an aggregate over the whole scanned row
    /// yields a set, wildcard or not; one that joins on after the aggregate, or whose
    /// head drops a group variable or the value, does not.
    #[test]
    fn one_row_per_group_yields_a_set() {
        let (program, rules) = planned(
            ".decl e(x: number, y: number, z: number)\n.input e\n\
             .decl a(x: number, y: number, n: number)\n.decl b(x: number, n: number)\n\
             .decl c(x: number, n: number)\n.decl d(x: number, y: number, n: number)\n\
             a(x, y, n) :- e(x, y, _), n = count : { e(x, y, _) }, n > 1.\n\
             b(x, n) :- e(x, y, _), n = count : { e(x, y, _) }.\n\
             c(y, n) :- e(x, y, _), n = count : { e(x, _, _) }.\n\
             d(x, y, n) :- e(x, y, _), n = count : { e(x, y, _) }, e(y, x, _).\n",
        );
        let set = |head: &str| {
            let rel = program.relations.iter().position(|r| r.name == head);
            rules
                .iter()
                .find(|rp| Some(rp.head) == rel)
                .unwrap()
                .yields_set
        };
        assert!(set("a"));
        assert!(!set("b"), "the head drops y");
        assert!(!set("c"), "the aggregate is per x, not per scanned row");
        assert!(!set("d"), "a join after the aggregate");
    }

    /// A view that no rule of its block reads (but another such view) is computed
    /// after the loop; the others stay in it.
    #[test]
    fn views_the_loop_does_not_read_come_after_it() {
        let text = ".decl e(x: number)\n.input e\n\
             .fixpoint {\n\
               .decl s(x: number)\n\
               .view u(x: number)\n.view b(x: number)\n.view a(x: number)\n\
               .view w(x: number)\n\
               s(x) :- e(x).\n s(x) :- u(x).\n u(x) :- s(y), x = y + 1, x < 5.\n\
               b(x) :- s(x), !u(x).\n a(x) :- b(x).\n w(x) :- s(x), x > 2.\n\
             }\n";
        let program = crate::check::check_str("t.dl", text).expect("checks");
        let name = |r: &RelId| program.relations[*r].name.clone();
        let plan = plan(&program, false).expect("plans");
        let layout: Vec<String> = plan
            .strata
            .iter()
            .map(|s| match s {
                StratumPlan::Flat { rel, .. } => name(rel),
                StratumPlan::Block { state, views, .. } => {
                    let names: Vec<String> = state
                        .iter()
                        .chain(views.iter().map(|(v, _)| v))
                        .map(name)
                        .collect();
                    format!("{{{}}}", names.join(" "))
                }
            })
            .collect();
        assert_eq!(layout, ["e", "{s u}", "b", "a", "w"]);
    }
}
