//! A session over a [`TierSplit`]: the base's dataflow and one per tier, stepped by
//! the host in tier order.
//!
//! In: facts for the base program's inputs, and commits. Out: the base's contents
//! (every relation the program's host reads outside the block is the base's, see
//! [`crate::check::split`]) and each commit's changes.
//!
//! A commit runs the base to its fixpoint; then the tiers in order, each fed the
//! changes of what it reads since its last step (a tier whose reads did not change
//! since it last found nothing is skipped; a fact that none of its rules' atoms can
//! match, such as `reach(p, 6)` for a tier that reads only `reach(p, 2)`, is not fed to
//! it and changes nothing for it; a tier none of whose rules that write the base can
//! fire on what it holds is not stepped either, as it would find nothing:
//! `check::firing`, a rule needs a row of each of its positive atoms that passes the
//! rule's constants, and one that its negated atoms over that atom's variables lack; on
//! a solved grid no technique's rule can fire, nor on a broken one that reaches no
//! tier). The first that derives facts the base lacks hands them to the base's
//! `R__stepped` inputs, the base runs again, and the host starts over from the lowest
//! tier; the commit ends when no tier finds anything (or the caller's `halt` says so).
//! That is the block's tier order, so it reaches the block's fixpoint, and no round of
//! a dataflow reaches operators of tiers it does not need: a grid that needs two tiers
//! builds and runs two small dataflows besides the base. A tier's dataflow is built the
//! first time it is stepped.
//!
//! The fixpoint across dataflows is the host's: a commit that retracts an input
//! first withdraws every fact the tiers handed to the base, and the tiers find again
//! those that still hold.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::change::ChangeList;
use super::rounds::Numbers;
use super::{merge_costs, Charge, Commit, Config, Cost, Event, Observe, Session};
use crate::check::firing::{Firing, Tally};
use crate::check::ir::{Program, RelId, Symbols, Type, Value};
use crate::check::split::{TierProgram, TierSplit, HOST_INPUT};

type Fact = Vec<Value>;

/// One relation under its ids in two sessions; its symbol columns cross by name
/// (each session has its own symbol table).
#[derive(Clone)]
struct Link {
    from: RelId,
    to: RelId,
    symbols: Vec<usize>,
    /// For a relation `to`'s rules read: the facts they can match (see
    /// [`Program::read_patterns`]); None: every fact.
    read: Option<Vec<Vec<(usize, Value)>>>,
}

impl Link {
    /// `name` in `from` and in `to`, if both have it.
    fn of(name: &str, from: &Program, to: &Program) -> Option<Link> {
        let (f, t) = (from.relation(name)?, to.relation(name)?);
        let symbols = from.relations[f]
            .columns
            .iter()
            .enumerate()
            .filter(|(_, (_, ty))| *ty == Type::Symbol)
            .map(|(i, _)| i)
            .collect();
        Some(Link {
            from: f,
            to: t,
            symbols,
            read: None,
        })
    }

    /// `name` read by `to`'s rules: only the facts they can match cross
    /// ([`Link::matters`]).
    fn read(name: &str, from: &Program, to: &Program) -> Option<Link> {
        let mut link = Link::of(name, from, to)?;
        link.read = to.read_patterns(link.to);
        Some(link)
    }

    /// Whether a row (as `to`'s session writes it) can matter to `to`'s rules: a
    /// change of one that cannot leaves the tier as it is.
    fn matters(&self, row: &[Value]) -> bool {
        self.read
            .as_ref()
            .is_none_or(|patterns| (patterns.iter()).any(|p| p.iter().all(|&(i, v)| row[i] == v)))
    }

    /// A row of `from`'s relation as `to`'s session writes it.
    fn carry(&self, row: &[Value], from: &Symbols, to: &mut Symbols) -> Fact {
        let mut out = row.to_vec();
        for &i in &self.symbols {
            out[i] = to.intern(&from.name(row[i]));
        }
        out
    }
}

/// One tier's dataflow and what the host keeps for it.
struct Tier {
    session: Session,
    /// The base's relations it reads (base -> tier).
    reads: Vec<Link>,
    /// What it derives for the base (tier -> the base's host input), with the
    /// base's relation of that name.
    writes: Vec<(Link, RelId)>,
    /// The base's inputs it takes too (base -> tier).
    inputs: Vec<Link>,
    /// Net changes of its reads since its last step (those its rules can match), as
    /// its session writes them.
    pending: HashMap<(RelId, Fact), isize>,
    /// Its reads or inputs changed since it last stepped (or it never has).
    stale: bool,
    /// Its next step reads all it derives, not only what changed: the facts it
    /// handed to the base were withdrawn, or the session was reset.
    rescan: bool,
    /// Its session holds nothing yet (built, or reset): the next step loads it.
    empty: bool,
    /// Per rule of its program, the original program's (when numbering).
    rules: Vec<Option<usize>>,
    /// What its rules need before they derive what it hands the base, counted on
    /// the rows its session holds ([`Tally`]).
    tally: Tally,
}

impl Tier {
    /// A commit of it still running (one a lower tier's find made moot) waited for;
    /// what it derives is read again in full at its next step.
    fn settle(&mut self) -> Result<(), String> {
        if self.session.in_flight() {
            self.session.finish_commit()?;
            self.rescan = true;
        }
        Ok(())
    }

    /// A fact added to (`on`) or removed from its session's inputs, the rows
    /// passing each need and left open by each cover counted.
    fn feed(&mut self, rel: RelId, row: &[Value], on: bool) -> Result<(), String> {
        let had = self.session.has_input(rel, row);
        match on {
            true => self.session.insert(rel, row)?,
            false => self.session.retract(rel, row)?,
        }
        if had != on {
            let session = &self.session;
            (self.tally).changed(rel, row, on, |r, row| session.has_input(r, row));
        }
        Ok(())
    }

    /// Whether a step could derive anything it hands the base: some rule writing it
    /// can fire on the rows its session holds (the needs on its other inputs, the
    /// base's shared ones, taken as met). A step that cannot finds nothing.
    fn can_find(&self) -> bool {
        self.tally.can_fire()
    }
}

/// A tier's event as the base reports it: the base's relation of its head, and the
/// event under the original program's rule (see `tier_event`).
type TierEvent = (RelId, Event);

/// A tier's step: its finds, and (numbered) the events that derived them.
type Step = (Vec<Find>, Vec<TierEvent>);

/// What a tier's step found that the base does not hold: the base's host input for
/// it, and the row (in the base's symbols).
struct Find {
    input: RelId,
    row: Fact,
}

/// A session stepped by tier (see the module's documentation).
pub struct Stepped {
    split: Arc<TierSplit>,
    base: Session,
    /// Tiers' sessions: the caller's configuration, made incremental.
    config: Config,
    /// Whether the caller reads each commit's changes.
    list_changes: bool,
    tiers: Vec<Option<Tier>>,
    /// The base's facts of the inputs that some tier takes too, kept to load a tier
    /// built (or reset) later.
    shared: HashMap<RelId, BTreeSet<Fact>>,
    /// (the base's host input, the row) for every fact the tiers handed over.
    found: Vec<(RelId, Fact)>,
    /// An input was retracted since the last commit.
    retracted: bool,
    /// Tier dataflows stepped over the session's life.
    steps: usize,
    /// Rounds and events numbered across the steps ([`Stepped::numbered`]).
    numbers: Option<Numbers>,
    /// How many tiers' commits run at once ([`window`]).
    window: usize,
}

impl Stepped {
    /// The base's session on `config` (its observed relations, and those the tiers
    /// read and write); the tiers' are built when first stepped, on `config` too.
    pub fn new(split: Arc<TierSplit>, config: Config) -> Result<Stepped, String> {
        let base = split.base.clone();
        Stepped::with_base(split, config, base)
    }

    /// A session numbering rounds and events as one fixpoint block of `original`
    /// (the program split) does: the base's own rounds (its host inputs enter at
    /// the rounds the tiers fire in), events under `original`'s rules
    /// ([`Stepped::events`]), and each commit's changes and events at those rounds.
    /// Every commit then steps the tiers from the base's own fixpoint again, as a
    /// fresh session would (see [`super::rounds`]).
    /// `gated`: the base runs with its `@ungated` rules gated as tier 0, as
    /// `original` does (see [`Program::gated`]).
    pub fn numbered(
        split: Arc<TierSplit>,
        config: Config,
        original: &Program,
        gated: bool,
    ) -> Result<Stepped, String> {
        let base = match gated {
            true => split.base.gated(),
            false => split.base.clone(),
        };
        let mut s = Stepped::with_base(split, config, base)?;
        let observed: Vec<RelId> = (0..s.base.program().relations.len())
            .filter(|&r| s.base.is_observed(r))
            .collect();
        s.numbers = Some(Numbers::new(original, s.base.program(), &observed));
        Ok(s)
    }

    /// [`Stepped::new`] with the split's base program as `base` (gated or not).
    fn with_base(split: Arc<TierSplit>, config: Config, base: Program) -> Result<Stepped, String> {
        let workers = config.workers;
        let b = &base;
        let mut observe: Vec<RelId> = match &config.observe {
            Observe::Relations(rels) => rels.clone(),
            Observe::All => (0..b.relations.len()).collect(),
            Observe::Outputs => (0..b.relations.len())
                .filter(|&r| b.relations[r].output)
                .collect(),
        };
        for t in &split.tiers {
            observe.extend(
                t.reads
                    .iter()
                    .chain(&t.writes)
                    .filter_map(|n| b.relation(n)),
            );
        }
        observe.sort_unstable();
        observe.dedup();
        let base = Session::new(
            Arc::new(base),
            Config {
                observe: Observe::Relations(observe),
                changes: true,
                ..config.clone()
            },
        )?;
        let shared = shared_inputs(&split)
            .into_iter()
            .map(|r| (r, BTreeSet::new()))
            .collect();
        Ok(Stepped {
            tiers: split.tiers.iter().map(|_| None).collect(),
            list_changes: config.changes,
            config: Config {
                batch: false,
                changes: true,
                max_rounds: None,
                ..config
            },
            split,
            base,
            shared,
            found: Vec::new(),
            retracted: false,
            steps: 0,
            numbers: None,
            window: window(workers),
        })
    }

    /// Every current explain event: numbered ([`Stepped::numbered`]), the base's
    /// and the tiers', under the original program's rules; else the base's own.
    pub fn events(&self) -> Vec<Event> {
        match &self.numbers {
            Some(n) => n.events(&self.base),
            None => self.base.events(),
        }
    }

    /// The base's session: its program, contents and symbols.
    pub fn base(&self) -> &Session {
        &self.base
    }
    pub fn symbols(&mut self) -> &mut Symbols {
        self.base.symbols()
    }
    /// Tier dataflows stepped so far.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// What the base's and the tiers' dataflows have cost so far (each session's
    /// [`Config::profile`]), charged to the pieces of `original` (the program
    /// split): a rule to the rule it copies (same span), a relation to the relation
    /// of its name (a host input `R__stepped` to `R`), a block to `original`'s
    /// block, the rest to the rest. A tier's rounds are its own loop's, not the
    /// block's: only the base's rules keep theirs.
    pub fn profile(&mut self, original: &Program) -> Result<Vec<Cost>, String> {
        let mut all = Vec::new();
        let base = self.base.profile()?;
        merge_costs(&mut all, charged(base, self.base.program(), original, true));
        for tier in self.tiers.iter_mut().flatten() {
            tier.settle()?;
            let costs = tier.session.profile()?;
            let program = tier.session.program().clone();
            merge_costs(&mut all, charged(costs, &program, original, false));
        }
        all.sort_by_key(|c| c.charge);
        Ok(all)
    }

    /// Adds an input fact of the base (and of the tiers that take that input).
    pub fn insert(&mut self, rel: RelId, values: &[Value]) -> Result<(), String> {
        self.base.insert(rel, values)?;
        self.share(rel, values, true)
    }

    /// Removes an input fact; the next commit withdraws what the tiers found.
    pub fn retract(&mut self, rel: RelId, values: &[Value]) -> Result<(), String> {
        self.base.retract(rel, values)?;
        self.retracted = true;
        self.share(rel, values, false)
    }

    fn share(&mut self, rel: RelId, values: &[Value], on: bool) -> Result<(), String> {
        let Some(held) = self.shared.get_mut(&rel) else {
            return Ok(());
        };
        let changed = match on {
            true => held.insert(values.to_vec()),
            false => held.remove(values),
        };
        if !changed {
            return Ok(());
        }
        let from = self.base.symbols_ref();
        for tier in self.tiers.iter_mut().flatten().filter(|t| !t.empty) {
            if let Some(link) = tier.inputs.iter().find(|l| l.from == rel) {
                let (to, row) = (link.to, link.carry(values, from, tier.session.symbols()));
                tier.feed(to, &row, on)?;
                tier.stale = true;
            }
        }
        Ok(())
    }

    /// Forgets every fact (the dataflows are rebuilt when next needed).
    pub fn reset(&mut self) -> Result<(), String> {
        self.base.reset()?;
        for tier in self.tiers.iter_mut().flatten() {
            tier.session.reset()?;
            tier.pending.clear();
            (tier.stale, tier.rescan, tier.empty) = (true, true, true);
        }
        self.shared.values_mut().for_each(BTreeSet::clear);
        self.found.clear();
        self.retracted = false;
        if let Some(n) = &mut self.numbers {
            n.clear();
        }
        Ok(())
    }

    /// Commits, stepping the tiers until none finds anything new.
    pub fn commit(&mut self) -> Result<Commit, String> {
        self.commit_until(&|_| false)
    }

    /// Commits, stepping the tiers until none finds anything new or `halt` says the
    /// base's contents need no more (e.g. every puzzle solved; numbered, `halt` is
    /// not asked: one block does not stop either). Out: the changes of the base's
    /// commits, together.
    pub fn commit_until(&mut self, halt: &dyn Fn(&Session) -> bool) -> Result<Commit, String> {
        let start = std::time::Instant::now();
        // Numbered, every commit steps again from the base's own fixpoint.
        if std::mem::take(&mut self.retracted) || self.numbers.is_some() {
            for (r, row) in std::mem::take(&mut self.found) {
                self.base.retract(r, &row)?;
            }
            for tier in self.tiers.iter_mut().flatten() {
                tier.rescan = true;
            }
        }
        if let Some(n) = &mut self.numbers {
            n.begin(&self.base);
        }
        let mut commits = vec![self.commit_base()?];
        // Numbered, the steps go on as one block's rounds do.
        while self.numbers.is_some() || !halt(&self.base) {
            let Some((new, events)) = self.first_find()? else {
                break;
            };
            // A find enters the base's block at the round its tier fired in
            // (numbered; a looping chain's, the round it is complete), else at
            // once. (A step's events share their round.)
            let own = events.iter().map(|(_, e)| e.round).min().unwrap_or(0);
            let at = (self.numbers.as_ref()).map_or(0, |n| n.next_round() - 1 + own);
            for f in new {
                let mut row = f.row;
                row.push(at as Value);
                self.base.insert(f.input, &row)?;
                self.found.push((f.input, row));
            }
            if let Some(n) = &mut self.numbers {
                n.tier_found(events);
            }
            commits.push(self.commit_base()?);
        }
        self.settle()?;
        let mut out = together(commits, self.list_changes);
        if let Some(n) = &mut self.numbers {
            out.events = n.finish(&self.base);
        }
        // The whole commit's time: the tiers' steps and the host's numbering too.
        out.elapsed = start.elapsed();
        Ok(out)
    }

    /// The tiers stepped in order on the base as it stands, up to the first that
    /// finds something: its finds and events (see [`Stepped::collect`]); None when
    /// no tier finds anything. While a tier steps, the built tiers above it start
    /// theirs, up to `window` commits at once: the host waits on the lowest, and the
    /// others' work is done by the time it is needed (when the lowest finds nothing)
    /// or was done on cores the wait left idle (a moot commit is read again in full
    /// when its tier next steps).
    fn first_find(&mut self) -> Result<Option<Step>, String> {
        let n = self.tiers.len();
        let mut prep: Vec<Option<Prep>> = vec![None; n];
        for i in 0..n {
            let p = match prep[i] {
                Some(p) => p,
                None => self.prepare(i)?,
            };
            let mut running = usize::from(p == Prep::Commit);
            let mut j = i + 1;
            while j < n && running < self.window {
                if prep[j].is_none() && self.tiers[j].as_ref().is_some_and(|t| !t.empty) {
                    prep[j] = Some(self.prepare(j)?);
                }
                running += usize::from(prep[j] == Some(Prep::Commit));
                j += 1;
            }
            let found = match p {
                Prep::Skip => None,
                _ => Some(self.collect(i, p == Prep::Commit)?),
            };
            if let Some(found) = found.filter(|(new, _)| !new.is_empty()) {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    /// Every tier's commit still running waited for; their finds are read again in
    /// full when they next step.
    fn settle(&mut self) -> Result<(), String> {
        for tier in self.tiers.iter_mut().flatten() {
            tier.settle()?;
        }
        Ok(())
    }

    /// The base committed; what changed of the tiers' reads queued for them.
    fn commit_base(&mut self) -> Result<Commit, String> {
        let commit = self.base.commit()?;
        if let Some(n) = &mut self.numbers {
            n.after_base(&self.base);
        }
        let from = self.base.symbols_ref();
        for tier in self.tiers.iter_mut().flatten().filter(|t| !t.empty) {
            for c in commit.changes.iter() {
                if let Some(link) = tier.reads.iter().find(|l| l.from == c.rel) {
                    let row = link.carry(&c.row, from, tier.session.symbols());
                    if !link.matters(&row) {
                        continue;
                    }
                    *tier.pending.entry((link.to, row)).or_default() += c.diff;
                    tier.stale = true;
                }
            }
        }
        Ok(commit)
    }

    /// Tier `i` brought up to the base (built and loaded if need be) and, if its
    /// dataflow has anything new, its commit started. A commit of it still running
    /// from an earlier pass is waited for first (its finds are then read in full).
    fn prepare(&mut self, i: usize) -> Result<Prep, String> {
        if self.tiers[i].is_none() {
            self.tiers[i] = Some(self.build(i)?);
        }
        let tier = self.tiers[i].as_mut().expect("built above");
        tier.settle()?;
        if tier.empty {
            load(tier, &self.base, &self.shared)?;
        }
        if !tier.stale && !tier.rescan {
            return Ok(Prep::Skip);
        }
        for ((rel, row), diff) in std::mem::take(&mut tier.pending) {
            if diff != 0 {
                tier.feed(rel, &row, diff > 0)?;
            }
        }
        // Its rules cannot derive anything it hands over from what it holds: a step
        // would find nothing. Its inputs' changes wait in its session, and it stays
        // stale (and to be read in full, if it was) for its next step.
        if !tier.can_find() {
            return Ok(Prep::Skip);
        }

        self.steps += 1;
        // Nothing new for its dataflow (it is only to be read again in full, or
        // its reads changed and changed back): no commit.
        if !tier.session.has_pending() {
            return Ok(Prep::Read);
        }
        tier.session.start_commit()?;
        Ok(Prep::Commit)
    }

    /// Tier `i`'s step taken in (its commit waited for, when `committed`). Out: what
    /// it derives that the base does not hold, and (numbered) the events that
    /// derived it, under the original program's rules, with the base's relation of
    /// their head.
    fn collect(&mut self, i: usize, committed: bool) -> Result<Step, String> {
        let tier = self.tiers[i].as_mut().expect("prepared");
        let commit = match committed {
            true => tier.session.finish_commit()?,
            false => Commit::default(),
        };
        let events: Vec<Event> = match (self.numbers.is_some(), tier.rescan) {
            (false, _) => Vec::new(),
            (true, true) => tier.session.events(),
            (true, false) => (commit.events.iter())
                .filter(|(_, d)| *d > 0)
                .map(|(e, _)| e.clone())
                .collect(),
        };
        let mut derived: Vec<(usize, Fact)> = Vec::new();
        if tier.rescan {
            for (k, (link, _)) in tier.writes.iter().enumerate() {
                let rows = tier.session.contents(link.from);
                derived.extend(rows.into_iter().map(|(row, _)| (k, row)));
            }
        } else {
            for c in commit.changes.iter().filter(|c| c.diff > 0) {
                if let Some(k) = tier.writes.iter().position(|(l, _)| l.from == c.rel) {
                    derived.push((k, c.row.to_vec()));
                }
            }
        }
        (tier.stale, tier.rescan) = (false, false);
        let from = tier.session.symbols_ref();
        let mut new = Vec::new();
        for (k, row) in derived {
            let (link, held) = &tier.writes[k];
            let row = link.carry(&row, from, self.base.symbols());
            if self.base.rows_with_prefix(*held, &row).is_empty() {
                // What the tier reads too (`reach`) enables its other rules.
                let enables = tier.reads.iter().any(|l| l.from == *held);
                new.push((!enables, link.to, *held, row));
            }
        }
        new.sort_unstable();
        new.dedup();
        // Numbered, what enables the tier's other rules comes in first: in one
        // block those rules see it a round later (a puzzle pays a round the first
        // time it reaches a tier); the tier is read again in full next time.
        if self.numbers.is_some() && new.first().is_some_and(|f| !f.0) {
            new.retain(|f| !f.0);
            tier.rescan = true;
        }
        let held_new: HashSet<(RelId, Fact)> = new
            .iter()
            .map(|(_, _, held, row)| (*held, row.clone()))
            .collect();
        // The events of what it hands over (the base derived the rest itself).
        let mut events: Vec<TierEvent> = (events.into_iter())
            .filter_map(|e| tier_event(tier, e, from, self.base.symbols()))
            .filter(|(held, e)| held_new.contains(&(*held, e.head.clone())))
            .collect();
        // Numbered, a tier whose chains loop hands over what its first complete
        // chains find (one block would let the lower tiers act on those first).
        let first = events.iter().map(|(_, e)| e.round).min();
        if let Some(first) = first.filter(|_| self.numbers.is_some()) {
            let later: HashSet<(RelId, Fact)> = (events.iter())
                .filter(|(_, e)| e.round > first)
                .map(|(held, e)| (*held, e.head.clone()))
                .collect();
            if !later.is_empty() {
                events.retain(|(_, e)| e.round == first);
                new.retain(|(_, _, held, row)| !later.contains(&(*held, row.clone())));
                tier.rescan = true;
            }
        }
        let new = (new.into_iter())
            .map(|(_, input, _, row)| Find { input, row })
            .collect();
        Ok((new, events))
    }

    /// Tier `i`'s session, empty.
    fn build(&self, i: usize) -> Result<Tier, String> {
        let t = &self.split.tiers[i];
        let (base, program) = (&self.split.base, t.program()?);
        let link = |n: &String| {
            Link::read(n, base, program).ok_or_else(|| format!("tier {}: no relation {n}", t.tier))
        };
        let reads = t.reads.iter().map(link).collect::<Result<Vec<_>, _>>()?;
        let mut writes = Vec::new();
        for n in &t.writes {
            let mut out = Link::of(n, program, base).ok_or_else(|| format!("no relation {n}"))?;
            let held = out.to;
            out.to = base
                .relation(&format!("{n}{HOST_INPUT}"))
                .ok_or_else(|| format!("the base has no input for {n}"))?;
            writes.push((out, held));
        }
        let inputs = tier_inputs(t, base, program);
        let observe = writes.iter().map(|(l, _)| l.from).collect();
        let name = |r: &RelId| base.relations[*r].name.as_str();
        let sealed = (self.config.sealed.iter())
            .filter_map(|r| program.relation(name(r)))
            .collect();
        let config = Config {
            observe: Observe::Relations(observe),
            sealed,
            // Tiers' commits overlap (`first_find`) when more than one runs at once.
            threaded: self.window > 1,
            ..self.config.clone()
        };
        let rules = match &self.numbers {
            Some(n) => n.rules_of(program),
            None => Vec::new(),
        };
        let heads = writes.iter().map(|(l, _)| l.from).collect();
        let tally = Tally::new(Firing::of(program), heads, |r| {
            reads.iter().any(|l| l.to == r)
        });
        Ok(Tier {
            session: Session::new(program.clone(), config)?,
            reads,
            writes,
            inputs,
            pending: HashMap::new(),
            stale: true,
            rescan: true,
            empty: true,
            rules,
            tally,
        })
    }
}

/// What a tier's step needs, decided before its commit runs ([`Stepped::prepare`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Prep {
    /// Nothing changed for it since it last found nothing.
    Skip,
    /// Its commit is running.
    Commit,
    /// Nothing to commit, but what it derives is to be read again in full.
    Read,
}

/// How many tiers' commits run at once: one per core, each tier's `workers` taking
/// theirs, and one more where more than one fits: a tier's worker idles while its
/// commit's rows and progress are handed between threads, and the host waits on the
/// lowest tier, so a third commit on two cores kept them busier (docs/PERFORMANCE.md,
/// session 64). Where one fits, one (its commits run inline).
fn window(workers: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match cores / workers.max(1) {
        0 | 1 => 1,
        fit => fit + 1,
    }
}

/// A tier's event as the base reports it: under the original program's rule, its
/// head and symbol bindings in the base's symbols, with the base's relation of its
/// head. None for a rule the original program lacks or a head the tier does not
/// hand over.
fn tier_event(tier: &Tier, e: Event, from: &Symbols, to: &mut Symbols) -> Option<TierEvent> {
    let rule = tier.rules.get(e.rule).copied().flatten()?;
    let r = &tier.session.program().rules[e.rule];
    let (link, held) = tier.writes.iter().find(|(l, _)| l.from == r.head)?;
    let head = link.carry(&e.head, from, to);
    let bindings = (r.template_vars().iter().zip(&e.bindings))
        .map(|(&v, &b)| match r.vars[v].1 {
            Type::Symbol => to.intern(&from.name(b)),
            _ => b,
        })
        .collect();
    let event = Event {
        rule,
        round: e.round,
        head,
        bindings,
    };
    Some((*held, event))
}

/// The base's inputs that tier programs take too (named by the split: no tier's
/// program is checked for it).
fn shared_inputs(split: &TierSplit) -> BTreeSet<RelId> {
    let base = &split.base;
    (split.tiers.iter())
        .flat_map(|t| &t.inputs)
        .filter_map(|n| base.relation(n))
        .filter(|&r| base.relations[r].input)
        .collect()
}

/// The inputs of tier `t`'s `program` that are the base's inputs too.
fn tier_inputs(t: &TierProgram, base: &Program, program: &Program) -> Vec<Link> {
    (t.inputs.iter())
        .filter_map(|n| Link::of(n, base, program))
        .filter(|l| base.relations[l.from].input)
        .collect()
}

/// A tier's empty session loaded with the base's shared inputs and the current
/// contents of what it reads.
fn load(
    tier: &mut Tier,
    base: &Session,
    shared: &HashMap<RelId, BTreeSet<Fact>>,
) -> Result<(), String> {
    let from = base.symbols_ref();
    tier.tally.clear();
    for k in 0..tier.inputs.len() {
        let (at, to) = (tier.inputs[k].from, tier.inputs[k].to);
        for row in shared.get(&at).into_iter().flatten() {
            let row = tier.inputs[k].carry(row, from, tier.session.symbols());
            tier.feed(to, &row, true)?;
        }
    }
    for k in 0..tier.reads.len() {
        let (at, to) = (tier.reads[k].from, tier.reads[k].to);
        for (row, _) in base.contents(at) {
            let row = tier.reads[k].carry(&row, from, tier.session.symbols());
            if tier.reads[k].matters(&row) {
                tier.feed(to, &row, true)?;
            }
        }
    }
    tier.pending.clear();
    tier.empty = false;
    Ok(())
}

/// `costs` of a dataflow of `program` (the base or a tier's) charged to `original`'s
/// pieces (see [`Stepped::profile`]; the caller merges those charged alike); a rule
/// `original` lacks (the base's copy of a host input) is charged to its head
/// relation. `rounds`: keep the rules' rounds.
fn charged(costs: Vec<Cost>, program: &Program, original: &Program, rounds: bool) -> Vec<Cost> {
    let relation = |r: RelId| {
        let name = &program.relations[r].name;
        let name = name.strip_suffix(HOST_INPUT).unwrap_or(name);
        original
            .relation(name)
            .map_or(Charge::Rest, Charge::Relation)
    };
    let block =
        (original.blocks.iter().position(|b| b.explicit)).map_or(Charge::Rest, Charge::Block);
    let charge = |c: &mut Cost| match c.charge {
        Charge::Rule(i) => {
            let rule = &program.rules[i];
            let copied = original.rules.iter().position(|o| o.span == rule.span);
            if !rounds || copied.is_none() {
                c.rounds.clear();
            }
            copied.map_or_else(|| relation(rule.head), Charge::Rule)
        }
        Charge::Relation(r) => relation(r),
        Charge::Block(_) => block,
        Charge::Rest => Charge::Rest,
    };
    (costs.into_iter())
        .map(|mut c| {
            c.charge = charge(&mut c);
            c
        })
        .collect()
}

/// One commit's worth of several: their changes listed together (consolidated),
/// when `list`.
fn together(commits: Vec<Commit>, list: bool) -> Commit {
    let mut out = Commit::default();
    let mut lists = Vec::new();
    for c in commits {
        out.changed += c.changed;
        out.events.extend(c.events);
        out.elapsed += c.elapsed;
        if list {
            lists.push(c.changes);
        }
    }
    out.changes = ChangeList::merged(&lists);
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use super::Stepped;
    use crate::check::ir::{Program, Value};
    use crate::check::split::{split, tests::jump_read_below, tests::TOY};
    use crate::session::{Config, Observe, Session};
    use crate::syntax::parse_str;

    /// TOY with a symbol column (an input the tiers take too) and a symbol constant
    /// only tier 2 writes: its symbol tables differ from the base's.
    fn labelled() -> String {
        TOY.replace(
            ".input start, near, far, back",
            ".decl open(x: number, s: symbol)\n.input start, near, far, back, open",
        )
        .replace(
            "seen(k, y) :- seen(k, x), far(x, y).",
            "seen(k, y) :- seen(k, x), far(x, y), open(y, \"yes\").",
        )
    }

    fn config(program: &Program) -> Config {
        Config {
            observe: Observe::Relations(vec![program.relation("reached").unwrap()]),
            inputs_only: true,
            ..Default::default()
        }
    }

    type Rows = BTreeSet<Vec<Value>>;

    fn reached(s: &Session) -> Rows {
        let r = s.program().relation("reached").unwrap();
        s.contents(r).into_iter().map(|(r, _)| r).collect()
    }

    /// A random fact: an edge among 12 nodes, a start of key 0 or 1, or a node's label.
    fn fact(rng: &mut u64) -> (&'static str, Vec<Value>) {
        *rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = (*rng >> 33) as Value;
        let (a, b) = (x % 12, (x / 12) % 12);
        match (x / 144) % 6 {
            0 => ("start", vec![a % 2, b]),
            1 | 2 => ("near", vec![a, b]),
            3 => ("far", vec![a, b]),
            4 => ("back", vec![a, b]),
            _ => ("open", vec![a, if b % 3 == 0 { -1 } else { 1 }]),
        }
    }

    /// Random inserts and retracts, committed in fours: after each commit the stepped
    /// session holds what one fixpoint block holds.
    #[test]
    fn stepping_the_split_keeps_the_blocks_fixpoint_through_edits() {
        through_edits(&labelled());
    }

    /// The same with tier 2 deriving `jump`, an accumulating relation that only it
    /// derives and a rule of tier 1 reads: the base holds the jumps the host hands it.
    #[test]
    fn what_only_a_higher_tier_derives_reaches_the_base_that_reads_it() {
        let far = "seen(k, x), far(x, y), open(y, \"yes\")";
        through_edits(&jump_read_below(&labelled(), far));
    }

    /// The same with tier 2 acting on key 0 only: the base's facts of `seen` with
    /// key 1 are none of its business, so they are not fed to it, and that changes
    /// nothing the session holds.
    #[test]
    fn a_tier_fed_only_the_facts_its_atoms_match_keeps_the_blocks_fixpoint() {
        let text = key0();
        let (sources, ast) = parse_str("toy.dl", &text).unwrap();
        let split = split(&sources, &ast).unwrap().expect("tiers 2 and 3");
        let tier2 = split.tiers[0].program().unwrap();
        let seen = tier2.relation("seen").unwrap();
        assert_eq!(tier2.read_patterns(seen), Some(vec![vec![(0, 0)]]));
        let far = tier2.relation("far").unwrap();
        assert_eq!(tier2.read_patterns(far), None, "read whole");
        through_edits(&text);
    }

    /// `labelled` with tier 2 acting on key 0 only.
    fn key0() -> String {
        labelled().replace(
            "seen(k, y) :- seen(k, x), far(x, y), open(y, \"yes\").",
            "seen(0, y) :- seen(0, x), far(x, y), open(y, \"yes\").",
        )
    }

    /// A tier whose rules cannot fire on what it holds (tier 2 reads only `seen(0,
    /// _)`, and only key 1 is seen) is not stepped; once they can, it is, and finds.
    #[test]
    fn a_tier_that_cannot_fire_is_not_stepped() {
        let (sources, ast) = parse_str("toy.dl", &key0()).unwrap();
        let split = Arc::new(split(&sources, &ast).unwrap().expect("tiers 2 and 3"));
        let mut stepped = Stepped::new(split.clone(), config(&split.base)).unwrap();
        let yes = stepped.symbols().intern("yes");
        let rel = |n: &str| split.base.relation(n).unwrap();
        for (r, row) in [
            ("start", vec![1, 1]),
            ("near", vec![1, 2]),
            ("far", vec![2, 3]),
            ("open", vec![3, yes]),
        ] {
            stepped.insert(rel(r), &row).unwrap();
        }
        stepped.commit().unwrap();
        assert_eq!(stepped.steps(), 1, "tier 3 only");
        stepped.insert(rel("start"), &[0, 2]).unwrap();
        stepped.commit().unwrap();
        assert!(stepped.steps() > 2, "tier 2 stepped: {}", stepped.steps());
        assert!(
            reached(stepped.base()).contains(&vec![0, 3]),
            "tier 2 found (0, 3)"
        );
    }

    fn through_edits(text: &str) {
        let (sources, ast) = parse_str("toy.dl", text).unwrap();
        let program = Arc::new(crate::check::check(sources.clone(), &ast).unwrap());
        let split = Arc::new(split(&sources, &ast).unwrap().expect("tiers 2 and 3"));
        let mut block = Session::new(program.clone(), config(&program)).unwrap();
        let mut stepped = Stepped::new(split.clone(), config(&split.base)).unwrap();
        // Interned in another order than tier 2's program (which holds "yes").
        let (no, yes) = (block.symbols().intern("no"), block.symbols().intern("yes"));
        let (sno, syes) = (
            stepped.symbols().intern("no"),
            stepped.symbols().intern("yes"),
        );
        let mut held: BTreeSet<(&str, Vec<Value>)> = BTreeSet::new();
        let mut rng = 7;
        for round in 0..40 {
            for _ in 0..4 {
                let (name, mut row) = fact(&mut rng);
                let mut srow = row.clone();
                if name == "open" {
                    (row[1], srow[1]) = if row[1] < 0 { (no, sno) } else { (yes, syes) };
                }
                let (b, s) = (
                    program.relation(name).unwrap(),
                    split.base.relation(name).unwrap(),
                );
                // Mostly inserts early on, then as many retracts.
                if held.contains(&(name, row.clone())) && (round > 10 || rng % 4 == 0) {
                    held.remove(&(name, row.clone()));
                    block.retract(b, &row).unwrap();
                    stepped.retract(s, &srow).unwrap();
                } else {
                    held.insert((name, row.clone()));
                    block.insert(b, &row).unwrap();
                    stepped.insert(s, &srow).unwrap();
                }
            }
            block.commit().unwrap();
            stepped.commit().unwrap();
            assert_eq!(
                reached(stepped.base()),
                reached(&block),
                "after commit {round}"
            );
        }
        assert!(stepped.steps() > 40, "the tiers were stepped");
    }

    /// The split's host loop on the toy's facts reaches the block's fixpoint; `halt`
    /// stops it early.
    #[test]
    fn stepping_the_split_reaches_the_blocks_fixpoint() {
        let (sources, ast) = parse_str("toy.dl", TOY).unwrap();
        let program = Arc::new(crate::check::check(sources.clone(), &ast).unwrap());
        let split = Arc::new(split(&sources, &ast).unwrap().expect("tiers 2 and 3"));
        let mut facts: Vec<(&str, Vec<Value>)> =
            vec![("start", vec![0, 1]), ("start", vec![1, 20])];
        for (x, y) in [(1, 2), (2, 3), (5, 6), (20, 21), (8, 9)] {
            facts.push(("near", vec![x, y]));
        }
        facts.push(("far", vec![3, 5]));
        facts.push(("far", vec![21, 30]));
        facts.push(("back", vec![8, 6]));
        facts.push(("back", vec![40, 9]));
        let mut block = Session::new(program.clone(), config(&program)).unwrap();
        let mut stepped = Stepped::new(split.clone(), config(&split.base)).unwrap();
        let mut halted = Stepped::new(split.clone(), config(&split.base)).unwrap();
        for (r, row) in &facts {
            block.insert(program.relation(r).unwrap(), row).unwrap();
            stepped
                .insert(split.base.relation(r).unwrap(), row)
                .unwrap();
            halted.insert(split.base.relation(r).unwrap(), row).unwrap();
        }
        block.commit().unwrap();
        stepped.commit().unwrap();
        let want = reached(&block);
        // 0: 1 2 3, far 5 6, back from 6 to 8 9, back from 9 to 40; 1: 20 21, far 30.
        assert_eq!(want.len(), 11, "{want:?}");
        assert_eq!(reached(stepped.base()), want);
        // Halted once anything reaches 6: tier 3 (back) never runs.
        let six = |s: &Session| reached(s).iter().any(|r| r[1] == 6);
        halted.commit_until(&six).unwrap();
        let got = reached(halted.base());
        assert!(
            six(halted.base()) && !got.iter().any(|r| r[1] == 8),
            "{got:?}"
        );
    }
}
