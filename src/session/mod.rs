//! A live evaluation: insert and retract facts, commit, read what changed.
//!
//! A [`Session`] plans a checked program, starts timely workers (threads, or
//! processes through timely's own `-n/-p/-h` options), and renders the plan in each.
//! The calling thread drives them over channels (or, for one worker in this
//! process, runs it itself: [`Config::threaded`]): facts go to their owning
//! worker's input, a commit advances every input to the next epoch and each worker
//! steps (parking when idle, so an idle session costs nothing) until the probe shows the
//! epoch complete. Each worker hands back its share of the observed changes and
//! explain events, split by relation ([`Split`]), and the session merges the
//! shares. Contents after any sequence of commits equal a from-scratch
//! evaluation of the final inputs: that is differential dataflow's guarantee, and
//! the test suite checks it against a reference evaluator.

mod change;
mod contents;
mod hash;
mod rounds;
pub mod stepped;
mod worker;

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::check::ir::{Program, RelId, RelKind, Symbols, Value};
pub use crate::dataflow::profile::{merge_costs, Charge, Cost};
use crate::dataflow::render::{merge_runs, ChangeRun, Split, Update, EVENT};
use crate::dataflow::row::{row, Row, WIDTH};
use crate::dataflow::sorted::Facts;
use crate::plan::Plan;
pub use change::{Change, ChangeList, Tuple};
use contents::{Contents, Run};
use hash::{FactMap, FactSet};
use worker::{Cmd, Reply};

/// Which relations a session reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Observe {
    All,
    /// The relations marked `.output`.
    Outputs,
    Relations(Vec<RelId>),
}

#[derive(Clone, Debug)]
pub struct Config {
    /// Worker threads per process.
    pub workers: usize,
    /// Extra timely options (`-n`, `-p`, `-h`) to run across processes.
    pub timely_args: Vec<String>,
    /// Produce explain events for rules with `@explain`.
    pub explain: bool,
    pub observe: Observe,
    /// Stop every block after this many rounds.
    pub max_rounds: Option<u32>,
    /// The batch rendering (see [`crate::dataflow::time`]): blocks' rounds totally
    /// ordered, several times faster, but commits may only add facts (`retract`
    /// fails; `reset` starts afresh).
    pub batch: bool,
    /// List each change in [`Commit::changes`] (editing sessions read them). A list
    /// copies nothing, but holds on to the commit's additions while it is kept.
    pub changes: bool,
    /// Measure each rule (see [`Session::profile`]): its operators' scheduled time,
    /// its derivations and the rounds it fired in.
    pub profile: bool,
    /// Facts go only into `.input` relations (the session refuses others): a
    /// relation derived by one rule that yields a set then needs no deduplication
    /// ([`crate::plan::StratumPlan::derived_set`]).
    pub inputs_only: bool,
    /// Relations loaded by one commit and never changed after it (a board's
    /// geometry): they are fed from an input of their own, which closes after the
    /// first commit that changes them, so that what is derived from them alone
    /// (and its arrangements in every block) costs later commits nothing. After that
    /// commit, a change to one fails; [`Session::reset`] opens them again.
    pub sealed: Vec<RelId>,
    /// Run even a single worker on a thread of its own, so that
    /// [`Session::start_commit`] returns while the commit runs (the stepped tiers'
    /// commits overlap). Otherwise one worker in this process runs on the calling
    /// thread, which saves two thread wake-ups a commit (an edit's empty commit
    /// ~0.21 -> ~0.13 ms).
    pub threaded: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            workers: 1,
            timely_args: Vec::new(),
            explain: false,
            observe: Observe::Outputs,
            max_rounds: None,
            batch: false,
            changes: true,
            profile: false,
            inputs_only: false,
            sealed: Vec::new(),
            threaded: false,
        }
    }
}

/// A rule with `@explain` derived a fact that did not exist before.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Event {
    pub rule: usize,
    pub round: u32,
    pub head: Vec<Value>,
    /// Values of the template's variables, in the order they first appear in it.
    pub bindings: Vec<Value>,
}

/// What one commit changed.
#[derive(Clone, Debug, Default)]
pub struct Commit {
    /// Each change, when the session lists them ([`Config::changes`]), in order.
    pub changes: ChangeList,
    /// How many facts of observed relations changed (listed or not).
    pub changed: usize,
    /// Events added (+1) and withdrawn (-1).
    pub events: Vec<(Event, isize)>,
    pub elapsed: Duration,
}

pub struct Session {
    program: Arc<Program>,
    plan: Arc<Plan>,
    symbols: Symbols,
    workers: Workers,
    inputs: FactSet<(RelId, Row)>,
    /// Facts written in the program: always present, whatever is inserted or retracted.
    fixed: FactSet<(RelId, Row)>,
    pending: Vec<(RelId, Row, isize)>,
    epoch: crate::dataflow::time::Epoch,
    observed: Vec<bool>,
    /// The session refuses facts for relations other than inputs
    /// ([`Config::inputs_only`]).
    inputs_only: bool,
    /// By relation: loaded once ([`Config::sealed`]).
    sealed: Vec<bool>,
    /// Whether a commit has loaded the sealed relations (their input is closed).
    shut: bool,
    contents: Vec<Contents>,
    events: FactMap<(RelId, Row), (usize, Row, u32)>,
    /// A worker failed: the other workers may be stuck waiting for it.
    failed: bool,
    /// Whether the workers' dataflow has been sent facts since it was built: a reset
    /// of one that has not keeps it (building the full rules' ~1,700 operators again
    /// costs as much as solving a puzzle in it).
    touched: bool,
    /// The batch rendering: only insertions.
    batch: bool,
    /// List changes in commits.
    list_changes: bool,
    /// When the commit under way started ([`Session::start_commit`]).
    in_flight: Option<Instant>,
}

impl Session {
    /// Plans `program` and starts the workers. Program facts are inserted as inputs.
    pub fn new(program: Arc<Program>, config: Config) -> Result<Session, String> {
        let plan = crate::plan::plan(&program, config.explain).map_err(|errs| {
            errs.iter()
                .map(|d| d.render(&program.sources))
                .collect::<Vec<_>>()
                .join("")
        })?;
        Self::with_plan(program, Arc::new(plan), config)
    }

    pub fn with_plan(
        program: Arc<Program>,
        plan: Arc<Plan>,
        config: Config,
    ) -> Result<Session, String> {
        let n = program.relations.len();
        let observed: Vec<bool> = (0..n)
            .map(|r| match &config.observe {
                Observe::All => true,
                Observe::Outputs => program.relations[r].output,
                Observe::Relations(list) => list.contains(&r),
            })
            .collect();
        let sealed: Vec<bool> = (0..n).map(|r| config.sealed.contains(&r)).collect();
        let outputs = crate::dataflow::Outputs {
            observe: observed.clone(),
            max_rounds: config.max_rounds,
            batch: config.batch,
            // Across processes the session hears only its own workers.
            gather: !config.timely_args.is_empty(),
            inputs_only: config.inputs_only,
            sealed: sealed.clone(),
        };
        let workers = Workers::start(&program, &plan, outputs, &config)?;
        let symbols = program.symbols.clone();
        let mut s = Session {
            program: program.clone(),
            plan,
            symbols,
            workers,
            inputs: FactSet::default(),
            fixed: FactSet::default(),
            pending: Vec::new(),
            epoch: 0,
            observed,
            inputs_only: config.inputs_only,
            sealed,
            shut: false,
            contents: vec![Contents::default(); n],
            events: FactMap::default(),
            failed: false,
            touched: false,
            batch: config.batch,
            list_changes: config.changes,
            in_flight: None,
        };
        s.load_program_facts();
        Ok(s)
    }

    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }
    pub fn plan(&self) -> &Plan {
        &self.plan
    }
    /// The symbol table: the program's symbols and those interned since.
    pub fn symbols(&mut self) -> &mut Symbols {
        &mut self.symbols
    }
    pub fn symbols_ref(&self) -> &Symbols {
        &self.symbols
    }

    fn check_row(&self, rel: RelId, values: &[Value]) -> Result<Row, String> {
        let r = self
            .program
            .relations
            .get(rel)
            .ok_or_else(|| format!("no relation {rel}"))?;
        if r.kind == RelKind::View {
            return Err(format!(
                "'{}' is a view: its contents are computed, not inserted",
                r.name
            ));
        }
        if self.inputs_only && !r.input {
            return Err(format!(
                "'{}' is not an input of this session: declare it .input to add facts",
                r.name
            ));
        }
        if values.len() != r.arity() {
            return Err(format!(
                "'{}' has {} column{}, not {}",
                r.name,
                r.arity(),
                if r.arity() == 1 { "" } else { "s" },
                values.len()
            ));
        }
        Ok(row(values))
    }

    /// Refuses a change to a sealed relation after the commit that loaded it.
    /// `changes` says whether the insert or retract would change anything (an
    /// insert of a fact already there, or of a program fact, does not); it is asked
    /// only of a sealed relation, so other facts pay no extra lookups.
    fn check_open(&self, rel: RelId, changes: impl FnOnce() -> bool) -> Result<(), String> {
        if self.shut && self.sealed[rel] && changes() {
            return Err(format!(
                "'{}' was loaded by an earlier commit and is sealed: reset the session to change it",
                self.program.relations[rel].name
            ));
        }
        Ok(())
    }

    fn load_program_facts(&mut self) {
        let program = self.program.clone();
        for (rel, values) in &program.facts {
            let r = row(values);
            if self.fixed.insert((*rel, r)) && !self.inputs.contains(&(*rel, r)) {
                self.pending.push((*rel, r, 1));
            }
        }
    }

    /// Adds an input fact (no effect if it is already present). Takes effect at commit.
    pub fn insert(&mut self, rel: RelId, values: &[Value]) -> Result<(), String> {
        let r = self.check_row(rel, values)?;
        let fact = (rel, r);
        self.check_open(rel, || {
            !self.inputs.contains(&fact) && !self.fixed.contains(&fact)
        })?;
        if self.inputs.insert(fact) && !self.fixed.contains(&fact) {
            self.pending.push((rel, r, 1));
        }
        Ok(())
    }

    /// Removes an input fact (no effect if it is absent, or written in the program).
    /// Takes effect at commit.
    pub fn retract(&mut self, rel: RelId, values: &[Value]) -> Result<(), String> {
        let r = self.check_row(rel, values)?;
        if self.batch {
            return Err("a batch session only adds facts (reset it to start again)".into());
        }
        let fact = (rel, r);
        self.check_open(rel, || {
            self.inputs.contains(&fact) && !self.fixed.contains(&fact)
        })?;
        if self.inputs.remove(&fact) && !self.fixed.contains(&fact) {
            self.pending.push((rel, r, -1));
        }
        Ok(())
    }

    /// Whether an input fact is present.
    pub fn has_input(&self, rel: RelId, values: &[Value]) -> bool {
        values.len() <= WIDTH && self.inputs.contains(&(rel, row(values)))
    }

    /// Removes every input fact (program facts stay). A batch session's next
    /// commit then fails, as does one whose sealed relations are loaded
    /// ([`Config::sealed`]): `reset` it instead.
    pub fn retract_all(&mut self) {
        for (rel, r) in self.inputs.drain() {
            if !self.fixed.contains(&(rel, r)) {
                self.pending.push((rel, r, -1));
            }
        }
    }

    fn send(&mut self, cmd: Cmd) -> Result<(), String> {
        if self.in_flight.is_some() {
            return Err("internal error: the workers are running a commit".into());
        }
        match &mut self.workers {
            Workers::Threads { senders, .. } => {
                for s in senders.iter() {
                    s.send(cmd.clone())
                        .map_err(|_| "a worker stopped".to_string())?;
                }
                Ok(())
            }
            Workers::Inline(w) => w.send(cmd),
        }
    }

    /// One reply from each worker, each turned into a `T` by `take` (`None`: a reply
    /// of another kind, an internal error). A failed or stopped worker, or a reply of
    /// the wrong kind, fails the session.
    fn replies<T>(
        &mut self,
        what: &str,
        take: impl Fn(Reply) -> Option<T>,
    ) -> Result<Vec<T>, String> {
        let n = self.workers.len();
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let reply = match self.workers.reply() {
                Some(Reply::Failed(msg)) => Err(format!("internal error: a worker failed: {msg}")),
                Some(r) => take(r).ok_or_else(|| {
                    format!("internal error: a worker answered {what} with another reply")
                }),
                None => Err("internal error: a worker stopped".to_string()),
            };
            match reply {
                Ok(t) => out.push(t),
                Err(e) => {
                    self.failed = true;
                    return Err(e);
                }
            }
        }
        Ok(out)
    }

    /// Every worker's changes of the commit just made, split.
    fn wait(&mut self) -> Result<Vec<Split>, String> {
        self.replies("a commit", |r| match r {
            Reply::Done(u) => Some(u),
            _ => None,
        })
    }

    /// Whether facts were inserted or retracted since the last commit.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Applies the pending inserts and retracts and runs to the fixpoint.
    pub fn commit(&mut self) -> Result<Commit, String> {
        self.start_commit()?;
        self.finish_commit()
    }

    /// The first half of [`Session::commit`]: the pending facts sent and the
    /// workers set running to the fixpoint, without waiting for them (another
    /// session's can run meanwhile). [`Session::finish_commit`] takes the result;
    /// until then the session takes facts, but sends its workers nothing else.
    pub(crate) fn start_commit(&mut self) -> Result<(), String> {
        let start = Instant::now();
        if self.batch && self.pending.iter().any(|(_, _, d)| *d < 0) {
            return Err("a batch session only adds facts (reset it to start again)".into());
        }
        let loads = self.pending.iter().any(|(rel, _, _)| self.sealed[*rel]);
        if loads && self.shut {
            return Err(
                "a sealed relation changed after the commit that loaded it: reset the session"
                    .into(),
            );
        }
        let batch = std::mem::take(&mut self.pending);
        self.touched = true;
        self.send(Cmd::Update(Arc::new(batch)))?;
        self.epoch += 1;
        self.shut |= loads;
        self.send(Cmd::Commit {
            epoch: self.epoch,
            seal: loads,
        })?;
        self.in_flight = Some(start);
        Ok(())
    }

    /// The commit [`Session::start_commit`] set running, waited for and taken in.
    /// Out: its changes, and its time from the start.
    pub(crate) fn finish_commit(&mut self) -> Result<Commit, String> {
        let start = (self.in_flight.take()).ok_or("internal error: no commit under way")?;
        let updates = self.wait()?;
        let mut commit = self.absorb(updates);
        commit.elapsed = start.elapsed();
        Ok(commit)
    }

    /// Whether a commit is under way ([`Session::start_commit`]).
    pub(crate) fn in_flight(&self) -> bool {
        self.in_flight.is_some()
    }

    /// Drops the dataflow and starts an empty one (inputs cleared), reusing workers.
    /// Cheaper than retracting a large batch: nothing has to be un-derived. A
    /// dataflow that has been sent nothing since it was built is empty already, and
    /// stays.
    pub fn reset(&mut self) -> Result<(), String> {
        if self.in_flight.is_some() {
            self.finish_commit()?;
        }
        self.pending.clear();
        self.inputs.clear();
        if self.touched || self.failed {
            self.send(Cmd::Rebuild)?;
            self.wait()?;
            self.touched = false;
            self.shut = false;
        }
        self.epoch = 0;
        for c in &mut self.contents {
            c.clear();
        }
        self.events.clear();
        self.fixed.clear();
        self.load_program_facts();
        Ok(())
    }

    /// In: every worker's changes, split. Out: the commit, its changes listed when
    /// the session lists them; contents and events updated.
    fn absorb(&mut self, splits: Vec<Split>) -> Commit {
        let mut commit = Commit::default();
        let rels = &self.program.relations;
        let arity = |rel: RelId| rels[rel].arity();
        let list: Option<&dyn Fn(RelId) -> usize> = self.list_changes.then_some(&arity);
        let (added, rest) = absorb_splits(splits, &mut commit, list);
        self.add_contents(added);
        self.apply_rest(rest, &mut commit);
        commit.events.sort();
        commit
    }

    /// Removals and events, after the additions. A removal takes a fact out only at
    /// the round it had, so a fact that moved rounds (removed at one, added at
    /// another) ends up present.
    fn apply_rest(&mut self, mut rest: Vec<Update>, commit: &mut Commit) {
        // Removals first (a stable sort keeps the rest in order).
        rest.sort_by_key(|u| u.diff > 0);
        for Update {
            tag,
            row: r,
            binds: b,
            round,
            diff,
        } in rest
        {
            if tag != EVENT {
                let rel = tag as RelId;
                self.contents[rel].remove_at(&r, round);
                continue;
            }
            let rule = b[0] as usize;
            let head_rel = self.program.rules[rule].head;
            let ev = self.event(head_rel, &r, &b, round);
            if diff > 0 {
                self.events.insert((head_rel, r), (rule, b, round));
            } else if self.events.get(&(head_rel, r)) == Some(&(rule, b, round)) {
                self.events.remove(&(head_rel, r));
            }
            commit.events.push((ev, diff));
        }
    }

    /// Adds runs of added facts, each one relation's and sorted by row, to the
    /// relations' contents (see [`Contents::add_sorted`]).
    fn add_contents(&mut self, added: Added) {
        for (rel, run) in added {
            self.contents[rel].add_sorted(run);
        }
    }

    /// An event from its stored form: the head row and [rule, bindings...].
    fn event(&self, head_rel: RelId, head: &Row, binds: &Row, round: u32) -> Event {
        let rule = binds[0] as usize;
        let arity = self.program.relations[head_rel].arity();
        let nb = self.binding_count(rule);
        Event {
            rule,
            round,
            head: head[..arity].to_vec(),
            bindings: binds[1..1 + nb].to_vec(),
        }
    }

    fn binding_count(&self, rule: usize) -> usize {
        self.program.rules[rule].template_vars().len()
    }

    /// The current contents of an observed relation with each fact's round, sorted.
    pub fn contents(&self, rel: RelId) -> Vec<(Vec<Value>, u32)> {
        self.rows_with_prefix(rel, &[])
    }

    /// The facts of an observed relation whose first columns equal `prefix`, with
    /// their rounds, sorted.
    pub fn rows_with_prefix(&self, rel: RelId, prefix: &[Value]) -> Vec<(Vec<Value>, u32)> {
        assert!(
            self.observed[rel],
            "relation {} is not observed",
            self.program.relations[rel].name
        );
        let arity = self.program.relations[rel].arity();
        // The least row with this prefix: every other column at its minimum.
        let mut lo = [Value::MIN; WIDTH];
        lo[..prefix.len()].copy_from_slice(prefix);
        let mut out = Vec::new();
        self.contents[rel].scan_from(&lo, |r, k| {
            let within = r[..prefix.len()] == *prefix;
            if within {
                out.push((r[..arity].to_vec(), k));
            }
            within
        });
        out
    }

    /// How many facts an observed relation holds.
    pub fn len(&self, rel: RelId) -> usize {
        self.contents[rel].len()
    }

    pub fn is_observed(&self, rel: RelId) -> bool {
        self.observed[rel]
    }

    /// Per rule, relation and block, and for the rest of the dataflow, what it has
    /// cost since the session started (or was last reset), summed over the workers
    /// of this process. Empty unless [`Config::profile`].
    pub fn profile(&mut self) -> Result<Vec<Cost>, String> {
        self.send(Cmd::Profile)?;
        let per_worker = self.replies("a profile request", |r| match r {
            Reply::Profile(costs) => Some(costs),
            _ => None,
        })?;
        let mut all = Vec::new();
        for costs in per_worker {
            merge_costs(&mut all, costs);
        }
        all.sort_by_key(|c| c.charge);
        Ok(all)
    }

    /// All current explain events, sorted by (round, rule, head).
    pub fn events(&self) -> Vec<Event> {
        let mut v: Vec<Event> = self
            .events
            .iter()
            .map(|((rel, r), (_, b, round))| self.event(*rel, r, b, *round))
            .collect();
        v.sort_by(|a, b| {
            (a.round, a.rule, &a.head, &a.bindings).cmp(&(b.round, b.rule, &b.head, &b.bindings))
        });
        v
    }
}

/// Each relation's added facts, sorted by row.
type Added = Vec<(RelId, Run)>;

/// In: every worker's changes, split on the workers, and the relations' arities
/// when the commit lists its changes. Each relation's additions are merged (sorted
/// runs, in pairs level by level: [`Facts::merge_all`]), and the rests (few) merged
/// as runs are. Out: what the contents take, as a merge of the workers' runs would have
/// left it (see [`settle`]): each relation's additions (sorted by row) and the rest
/// (removals and events, in key order); the commit's count and list of changes.
fn absorb_splits(
    splits: Vec<Split>,
    commit: &mut Commit,
    list: Option<&dyn Fn(RelId) -> usize>,
) -> (Added, Vec<Update>) {
    let mut parts: Vec<(RelId, Facts)> = Vec::new();
    let mut rests: Vec<ChangeRun> = Vec::new();
    for s in splits {
        parts.extend(s.added);
        rests.push(s.rest);
    }
    // Each relation's parts merged, equal rows by round.
    parts.sort_by_key(|(rel, _)| *rel);
    let mut grouped: Vec<(RelId, Vec<Facts>)> = Vec::new();
    for (rel, run) in parts {
        match grouped.last_mut() {
            Some((r, all)) if *r == rel => all.push(run),
            _ => grouped.push((rel, vec![run])),
        }
    }
    let runs = grouped
        .into_iter()
        .map(|(rel, all)| (rel, Facts::merge_all(all)));
    // A fact first appears once (a commit moves it from one round to another by a
    // removal and an addition), so this finds nothing to drop; the contents keep
    // one fact per row all the same.
    let added: Added = runs
        .map(|(rel, mut run)| {
            run.dedup_rows();
            (rel, Arc::new(run))
        })
        .collect();
    let rest: Vec<Update> = merge_runs(rests).collect();
    if let Some(arity) = list {
        commit.changes = ChangeList::new(&added, &rest, arity);
    }
    settle(added, rest, &mut commit.changed)
}

/// In: each relation's additions (sorted by row, each +1) and the rest of a commit
/// (events, removals, additions' excess; consolidated across workers). Where the
/// rest has a change of an added fact at the same round (one worker's share of a
/// view's fact can be +1 where another's is -1), their sum decides, as it would in
/// a merge of the runs: positive, an addition; zero, no change; negative, a
/// removal. Out: the additions and removals for the contents, events in order;
/// `changed` set to the number of facts (at a round) that changed.
fn settle(added: Added, rest: Vec<Update>, changed: &mut usize) -> (Added, Vec<Update>) {
    *changed = added.iter().map(|(_, run)| run.len()).sum();
    // Additions the rest cancels or outweighs, per relation.
    let mut out: Vec<(RelId, Vec<(Row, u32)>)> = Vec::new();
    let mut kept = Vec::with_capacity(rest.len());
    for u in rest {
        if u.tag == EVENT {
            kept.push(u);
            continue;
        }
        let rel = u.tag as RelId;
        let key = (u.row, u.round);
        let met = added
            .iter()
            .find(|(r, _)| *r == rel)
            .is_some_and(|(_, run)| run.contains(&key));
        let sum = u.diff + met as isize;
        if met && sum <= 0 {
            // The addition goes: zero is no change, negative a removal.
            match out.last_mut() {
                Some((r, keys)) if *r == rel => keys.push(key),
                _ => out.push((rel, vec![key])),
            }
        }
        if met && sum == 0 {
            *changed -= 1;
        }
        if !met && sum != 0 {
            *changed += 1;
        }
        if sum < 0 {
            kept.push(u);
        }
    }
    if out.is_empty() {
        return (added, kept);
    }
    let added = added
        .into_iter()
        .map(|(rel, run)| match out.iter().find(|(r, _)| *r == rel) {
            None => (rel, run),
            Some((_, keys)) => {
                let mut left = Arc::unwrap_or_clone(run);
                left.retain(|x| !keys.contains(x));
                (rel, Arc::new(left))
            }
        })
        .collect();
    (added, kept)
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Workers::Threads {
            senders, guards, ..
        } = &mut self.workers
        {
            // Closed channels end the workers' command loops (after a commit
            // still running, whose reply nobody reads).
            senders.clear();
            let Some(g) = guards.take() else { return };
            if self.failed {
                // The others may wait forever for the failed worker: don't join them.
                std::mem::forget(g);
            } else {
                let _ = g.join();
            }
        }
    }
}

/// A session's timely workers: threads driven over channels, or (one worker in
/// this process, [`Config::threaded`] not asked for) the calling thread itself.
enum Workers {
    Threads {
        senders: Vec<Sender<Cmd>>,
        replies: Receiver<Reply>,
        guards: Option<timely::communication::WorkerGuards<()>>,
    },
    Inline(Box<worker::Inline>),
}

impl Workers {
    /// The workers for `config`, each with `plan` rendered for `outputs`.
    fn start(
        program: &Arc<Program>,
        plan: &Arc<Plan>,
        outputs: crate::dataflow::Outputs,
        config: &Config,
    ) -> Result<Workers, String> {
        let threads = config.workers.max(1);
        let (p2, plan2) = (program.clone(), plan.clone());
        let profile = config.profile;
        if threads == 1 && config.timely_args.is_empty() && !config.threaded {
            let inline = worker::Inline::new(p2, plan2, outputs, profile);
            return Ok(Workers::Inline(Box::new(inline)));
        }
        let mut senders = Vec::new();
        let mut receivers = Vec::new();
        for _ in 0..threads {
            let (tx, rx) = channel();
            senders.push(tx);
            receivers.push(Some(rx));
        }
        let receivers = Arc::new(Mutex::new(receivers));
        let (reply_tx, replies) = channel();
        let reply_tx = Arc::new(Mutex::new(reply_tx));
        let mut args = vec!["sudolog".to_string(), "-w".to_string(), threads.to_string()];
        args.extend(config.timely_args.iter().cloned());
        let guards = timely::execute_from_args(args.into_iter(), move |w| {
            let rx = receivers.lock().unwrap()[w.index() % threads]
                .take()
                .expect("one receiver per worker");
            let tx = reply_tx.lock().unwrap().clone();
            let job = worker::Job {
                program: &p2,
                plan: &plan2,
                outputs: &outputs,
                profile,
            };
            worker::run(w, &job, rx, tx);
        })?;
        Ok(Workers::Threads {
            senders,
            replies,
            guards: Some(guards),
        })
    }

    /// How many replies a command gets: one a worker in this process.
    fn len(&self) -> usize {
        match self {
            Workers::Threads { senders, .. } => senders.len(),
            Workers::Inline(_) => 1,
        }
    }

    /// The next reply (waited for from a thread); None when the workers stopped.
    fn reply(&mut self) -> Option<Reply> {
        match self {
            Workers::Threads { replies, .. } => replies.recv().ok(),
            Workers::Inline(w) => w.reply(),
        }
    }
}

/// Renders an event's `@explain` template. `format` turns `{var:name}` values into
/// text for format names the client knows; otherwise numbers print as numbers and
/// symbols as their text.
pub fn render_event(
    program: &Program,
    symbols: &Symbols,
    ev: &Event,
    format: &dyn Fn(&str, Value) -> Option<String>,
) -> String {
    let rule = &program.rules[ev.rule];
    match &rule.explain {
        Some(pieces) => render_pieces(rule, pieces, symbols, ev, format),
        None => rule.label.clone(),
    }
}

/// An event in its rule's `@hint` wording (the vaguer one), or `None` when the rule
/// has no `@hint`. Formats as [`render_event`].
pub fn render_hint(
    program: &Program,
    symbols: &Symbols,
    ev: &Event,
    format: &dyn Fn(&str, Value) -> Option<String>,
) -> Option<String> {
    let rule = &program.rules[ev.rule];
    let pieces = rule.hint.as_ref()?;
    Some(render_pieces(rule, pieces, symbols, ev, format))
}

fn render_pieces(
    rule: &crate::check::ir::Rule,
    pieces: &[crate::check::ir::Piece],
    symbols: &Symbols,
    ev: &Event,
    format: &dyn Fn(&str, Value) -> Option<String>,
) -> String {
    use crate::check::ir::{Piece, Type};
    let order = rule.template_vars();
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Var { var, format: f } => {
                let i = order.iter().position(|v| v == var).unwrap_or(0);
                let v = ev.bindings.get(i).copied().unwrap_or(0);
                let text = f.as_deref().and_then(|f| format(f, v)).unwrap_or_else(|| {
                    match rule.vars[*var].1 {
                        Type::Symbol => symbols.name(v).to_string(),
                        Type::Number => v.to_string(),
                    }
                });
                out.push_str(&text);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{absorb_splits, Commit, Config, Observe, Session};
    use crate::check::check_str;
    use crate::check::ir::{Program, RelId};
    use crate::dataflow::render::{ChangeRun, Split, Update, EVENT};
    use crate::dataflow::row::{row, Row};
    use crate::dataflow::sorted::Facts;

    fn r(a: i32) -> Row {
        row(&[a])
    }

    /// A worker's additions of one relation, 2 wide as from a 2-wide dataflow.
    fn pairs(facts: &[(i32, u32)]) -> Facts {
        Facts::Pairs(facts.iter().map(|&(a, k)| ([a, 0], k)).collect())
    }

    /// Transitive closure: the program, its edges `e` and its paths `p`.
    fn paths() -> (Arc<Program>, RelId, RelId) {
        let text = ".decl e(a: number, b: number)\n.input e\n\
                    .decl p(a: number, b: number)\n.output p\n\
                    p(a, b) :- e(a, b).\np(a, c) :- p(a, b), e(b, c).\n";
        let program = Arc::new(check_str("t.dl", text).expect("the program checks"));
        let [e, p] = ["e", "p"].map(|n| program.relation(n).unwrap());
        (program, e, p)
    }

    /// A reset keeps a dataflow that was sent no facts (facts only pending are
    /// dropped), and rebuilds one that was: nothing committed before a reset shows
    /// after it, in either rendering.
    #[test]
    fn a_reset_rebuilds_only_a_dataflow_that_was_sent_facts() {
        let (program, e, p) = paths();
        for batch in [true, false] {
            let config = Config {
                workers: 1,
                observe: Observe::Relations(vec![p]),
                batch,
                ..Default::default()
            };
            let mut s = Session::new(program.clone(), config).expect("the session starts");
            let paths = |s: &Session| {
                s.contents(p)
                    .into_iter()
                    .map(|(r, _)| r)
                    .collect::<Vec<_>>()
            };
            s.reset().unwrap();
            assert!(!s.touched, "a fresh dataflow is kept");
            s.insert(e, &[1, 2]).unwrap();
            s.reset().unwrap();
            assert!(!s.touched, "pending facts never reached the dataflow");
            s.insert(e, &[2, 3]).unwrap();
            s.commit().unwrap();
            assert_eq!(paths(&s), vec![vec![2, 3]], "the dropped fact is gone");
            s.reset().unwrap();
            assert!(!s.touched, "rebuilt");
            assert!(paths(&s).is_empty());
            s.insert(e, &[1, 2]).unwrap();
            s.insert(e, &[3, 4]).unwrap();
            s.commit().unwrap();
            assert_eq!(paths(&s), vec![vec![1, 2], vec![3, 4]], "batch {batch}");
        }
    }

    /// One worker runs on the calling thread unless a thread is asked for, and the
    /// two report the same changes, rounds included, commit by commit (inserts and
    /// retractions, a commit started and finished apart, a reset).
    #[test]
    fn one_worker_inline_or_threaded_reports_the_same() {
        let (program, e, p) = paths();
        let run = |threaded: bool| {
            let config = Config {
                observe: Observe::Relations(vec![p]),
                threaded,
                ..Default::default()
            };
            let mut s = Session::new(program.clone(), config).expect("the session starts");
            assert_eq!(matches!(s.workers, super::Workers::Inline(_)), !threaded);
            let mut log = Vec::new();
            let steps: [&[(i32, i32, isize)]; 4] = [
                &[(1, 2, 1), (2, 3, 1), (3, 4, 1)],
                &[(4, 1, 1)],
                &[(2, 3, -1), (5, 6, 1)],
                &[],
            ];
            for (i, step) in steps.iter().enumerate() {
                for &(a, b, d) in step.iter() {
                    match d > 0 {
                        true => s.insert(e, &[a, b]).unwrap(),
                        false => s.retract(e, &[a, b]).unwrap(),
                    }
                }
                let commit = match i % 2 {
                    0 => s.commit().unwrap(),
                    _ => {
                        s.start_commit().unwrap();
                        assert!(s.in_flight());
                        s.finish_commit().unwrap()
                    }
                };
                log.push(commit.changes.iter().collect::<Vec<_>>());
            }
            s.reset().unwrap();
            s.insert(e, &[7, 8]).unwrap();
            log.push(s.commit().unwrap().changes.iter().collect());
            log
        };
        let (inline, threaded) = (run(false), run(true));
        assert_eq!(inline, threaded);
        assert_eq!(inline[0].len(), 6, "1->2->3->4: six paths");
        assert_eq!(inline[1].len(), 16 - 6, "a cycle of four: every pair");
        assert!(inline[3].is_empty(), "an empty commit changes nothing");
        assert_eq!(inline[4].len(), 1, "after a reset, only 7->8");
    }

    /// A session that takes facts for inputs only refuses others, and its relations
    /// derived by one rule that yields a set (no distinct rendered) hold what they
    /// hold without it: each fact once, retractions included.
    #[test]
    fn sessions_of_inputs_only_render_derived_sets_without_a_distinct() {
        let text = ".decl e(a: number, b: number)\n.input e\n\
                    .decl two(a: number, b: number, c: number)\n.output two\n\
                    .decl from(a: number)\n.output from\n\
                    two(a, b, c) :- e(a, b), e(b, c).\nfrom(a) :- e(a, _).\n";
        let program = Arc::new(check_str("t.dl", text).expect("the program checks"));
        let plan = crate::plan::plan(&program, false).unwrap();
        let sets: Vec<RelId> = plan
            .strata
            .iter()
            .filter_map(|s| s.derived_set(&program))
            .collect();
        let [e, two, from] = ["e", "two", "from"].map(|n| program.relation(n).unwrap());
        assert_eq!(sets, vec![two], "from(a) drops e's second column");
        let rows = |s: &Session, r: RelId| {
            s.contents(r)
                .into_iter()
                .map(|(r, _)| r)
                .collect::<Vec<_>>()
        };
        for batch in [true, false] {
            let config = Config {
                observe: Observe::Relations(vec![two, from]),
                batch,
                inputs_only: true,
                ..Default::default()
            };
            let mut s = Session::new(program.clone(), config).expect("the session starts");
            let refused = s.insert(two, &[1, 2, 3]).unwrap_err();
            assert!(refused.contains("not an input"), "{refused}");
            for (a, b) in [(1, 2), (2, 3), (2, 4), (1, 5)] {
                s.insert(e, &[a, b]).unwrap();
            }
            s.commit().unwrap();
            assert_eq!(rows(&s, two), vec![vec![1, 2, 3], vec![1, 2, 4]]);
            assert_eq!(rows(&s, from), vec![vec![1], vec![2]]);
            if !batch {
                s.retract(e, &[2, 4]).unwrap();
                s.insert(e, &[3, 1]).unwrap();
                s.commit().unwrap();
                let want = vec![vec![1, 2, 3], vec![2, 3, 1], vec![3, 1, 2], vec![3, 1, 5]];
                assert_eq!(rows(&s, two), want);
            }
        }
    }

    #[test]
    fn splits_merge_as_the_runs_would() {
        // Worker 0 adds facts 1 and 5 of relation 0 and 7 of relation 2, 8 of
        // relation 0 twice (its excess in the rest), and an event; worker 1 adds 3
        // of relation 0, removes 5 (round 2: with worker 0's addition at that
        // round, no change), 6 and 8 (once: 8 is added), and withdraws worker 0's
        // event.
        let w0 = Split {
            added: vec![(0, pairs(&[(1, 0), (5, 2), (8, 0)])), (2, pairs(&[(7, 1)]))],
            rest: ChangeRun::of_pairs(&[(0, 8, 0, 0, 1), (EVENT, 9, 0, 1, 1)]),
        };
        let w1 = Split {
            added: vec![(0, pairs(&[(3, 4)]))],
            rest: ChangeRun::of_pairs(&[
                (0, 5, 0, 2, -1),
                (0, 6, 0, 0, -1),
                (0, 8, 0, 0, -1),
                (EVENT, 9, 0, 1, -1),
            ]),
        };
        let mut commit = Commit::default();
        let arity = |_| 1;
        let (added, rest) = absorb_splits(vec![w0, w1], &mut commit, Some(&arity));
        let added: Vec<_> = added
            .into_iter()
            .map(|(rel, run)| (rel, run.iter().collect::<Vec<_>>()))
            .collect();
        assert_eq!(
            added,
            vec![
                (0, vec![(r(1), 0), (r(3), 4), (r(8), 0)]),
                (2, vec![(r(7), 1)])
            ]
        );
        let removal = Update {
            tag: 0,
            row: r(6),
            binds: r(0),
            round: 0,
            diff: -1,
        };
        assert_eq!(rest, vec![removal]);
        // 1, 3, 7, 8 added and 6 removed; 5's addition and removal cancel, and
        // 8's second addition and its removal.
        assert_eq!(commit.changed, 5);
        let listed: Vec<_> = commit
            .changes
            .iter()
            .map(|c| (c.rel, c.row.to_vec(), c.round, c.diff))
            .collect();
        let want = [
            (0, vec![1], 0, 1),
            (0, vec![3], 4, 1),
            (0, vec![6], 0, -1),
            (0, vec![8], 0, 1),
            (2, vec![7], 1, 1),
        ];
        assert_eq!(listed, want);
    }
}
