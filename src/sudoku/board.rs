//! Grids in, views out: the Sudoku host's side of an engine session.
//!
//! In: puzzles ([`Grid`]s) under small integer ids, edits to their givens, guesses.
//! They become facts: `puzzle(p)`, `cell(p, c)`, `digit(p, v)`, `given(p, c, v)` and
//! `guess(p, c, v)` per puzzle, and once for all of them the geometry: `member(c, g)`
//! and `group(g, kind, index)` with kinds `"row"`, `"column"`, `"box"` (a jigsaw's
//! regions too) and `"diagonal"` (Sudoku X), as [`groups`] lists them for the grid's
//! layout. A board holds puzzles of one shape at a time (the geometry has no puzzle
//! column): [`Board::reset`] before puzzles of another. Out: per puzzle the placed values,
//! the candidates (when asked for), the status, the contradictions and the search
//! choice, read from the relations the rule program defines. No reasoning happens
//! here.

use std::collections::HashMap;
use std::sync::Arc;

use super::grid::{digit_char, groups, Grid, Shape};
use crate::check::ir::{Program, RelId, Value};
use crate::check::split::TierSplit;
use crate::session::stepped::Stepped;
use crate::session::{Commit, Config, Event, Observe, Session};

/// What the rules concluded about a puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every cell placed, no contradiction.
    Solved,
    /// The rules reached their fixpoint with cells left open.
    Stalled,
    /// The rules derived a contradiction from givens that do not conflict directly.
    Contradiction,
    /// Two givens conflict (same value twice in a group).
    Invalid,
}

/// One puzzle as the rules left it.
#[derive(Clone, Debug)]
pub struct View {
    pub shape: Shape,
    /// Per cell: the placed value, 0 when open (if two values were placed, the lower).
    pub placed: Vec<u8>,
    /// Per cell: remaining candidates, ascending (empty unless candidates are observed).
    pub candidates: Vec<Vec<u8>>,
    pub status: Status,
    /// The highest round in which anything was placed or eliminated.
    pub rounds: u32,
}

impl View {
    pub fn grid(&self) -> Grid {
        Grid {
            shape: self.shape,
            values: self.placed.clone(),
        }
    }
    pub fn filled(&self) -> usize {
        self.placed.iter().filter(|&&v| v != 0).count()
    }
}

/// A search node's candidates at its start, (cell, value) pairs: shared by the
/// children of one node.
pub type Start = Arc<Vec<[Value; 2]>>;

/// What to observe.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub workers: usize,
    pub timely_args: Vec<String>,
    /// Report candidates (for dumps and editing).
    pub candidates: bool,
    /// Report eliminations with their rounds (for editing and stepping). With this
    /// or `max_rounds`, rounds are observed: `@ungated` rules are gated as tier 0
    /// (see [`Program::gated`]).
    pub eliminations: bool,
    /// Produce explain events.
    pub explain: bool,
    /// Report the search choice (`choice_value`). Off, the rules' choice is not
    /// computed at all (its strata are not rendered) and stalled puzzles stay
    /// stalled: logic-only runs (`solve --no-search`) save its cost.
    pub search: bool,
    /// With `search`: a stalled node's children start from its candidates
    /// ([`Board::carried`], inserted as `start`) instead of working them out again
    /// from its placements. Batch solving; `explain` leaves it off, so that each
    /// node's log shows every deduction from its placements.
    pub inherit: bool,
    pub max_rounds: Option<u32>,
    /// The engine's batch rendering: faster, but only facts added (no edits, no
    /// retracted guesses); `reset` between batches.
    pub batch: bool,
    /// Measure each rule's cost (see [`Board::profile`]).
    pub profile: bool,
    /// The board holds one puzzle, added once and then edited (an [`Editor`]'s): its
    /// own facts (`puzzle`, `cell`, `digit`, `eager`) are sealed with the geometry
    /// (see [`Config::sealed`]), so that an edit's commit reaches only what its
    /// givens change. Another puzzle then needs a [`Board::reset`]. Without
    /// `search`, the board takes no guesses or starts either: they are sealed empty.
    ///
    /// [`Editor`]: super::edit::Editor
    pub one_puzzle: bool,
    /// The same rules split by tier ([`crate::check::split`]): the board then runs
    /// the base and steps the tiers from the host ([`Stepped`]), so that a grid
    /// pays only for the tiers it needs, when nothing asks for what only one
    /// fixpoint block gives: a round limit (`max_rounds`), a profile of a board
    /// that numbers nothing (its costs could not name the tiers' rules), processes
    /// of their own (`timely_args`), or rounds (`eliminations`) and explanations for
    /// more than one puzzle. A board of `one_puzzle` (an editor's) has its rounds
    /// and explanations numbered across the steps as one block numbers them
    /// ([`Stepped::numbered`]), and its profile charges the base's and the tiers'
    /// costs to the program split ([`Stepped::profile`]).
    pub stepped: Option<Arc<TierSplit>>,
}

impl Options {
    /// The split to step, when these options allow it (see [`Options::stepped`]).
    fn split(&self) -> Option<Arc<TierSplit>> {
        let whole = (self.numbered() && !self.one_puzzle)
            || self.max_rounds.is_some()
            || (self.profile && !self.numbered())
            || !self.timely_args.is_empty();
        self.stepped.clone().filter(|_| !whole)
    }

    /// Whether the board reads rounds or explanations.
    fn numbered(&self) -> bool {
        self.eliminations || self.explain
    }
}

/// The engine under a board: one fixpoint block, or the base and tiers stepped.
enum Engine {
    Block(Box<Session>),
    Stepped(Box<Stepped>),
}

impl Engine {
    fn insert(&mut self, rel: RelId, values: &[Value]) -> Result<(), String> {
        match self {
            Engine::Block(s) => s.insert(rel, values),
            Engine::Stepped(s) => s.insert(rel, values),
        }
    }
    fn retract(&mut self, rel: RelId, values: &[Value]) -> Result<(), String> {
        match self {
            Engine::Block(s) => s.retract(rel, values),
            Engine::Stepped(s) => s.retract(rel, values),
        }
    }
    fn reset(&mut self) -> Result<(), String> {
        match self {
            Engine::Block(s) => s.reset(),
            Engine::Stepped(s) => s.reset(),
        }
    }
    /// Costs charged to `program`'s pieces (the board's: with the tiers stepped and
    /// numbered, the program split).
    fn profile(&mut self, program: &Program) -> Result<Vec<crate::session::Cost>, String> {
        match self {
            Engine::Block(s) => s.profile(),
            Engine::Stepped(s) => s.profile(program),
        }
    }
    fn symbols(&mut self) -> &mut crate::check::ir::Symbols {
        match self {
            Engine::Block(s) => s.symbols(),
            Engine::Stepped(s) => s.symbols(),
        }
    }
}

/// Relation ids of the host interface (see `rules`).
#[derive(Clone, Debug)]
pub struct Rels {
    pub puzzle: RelId,
    pub cell: RelId,
    pub digit: RelId,
    pub given: RelId,
    pub guess: RelId,
    /// `start(p, c, v)`: a search node's candidates at its start (see `carry`).
    pub start: Option<RelId>,
    pub member: RelId,
    pub group: RelId,
    pub placed: Option<RelId>,
    pub eliminated: Option<RelId>,
    pub candidate: Option<RelId>,
    pub solved: Option<RelId>,
    pub broken: Option<RelId>,
    pub invalid: Option<RelId>,
    pub choice_value: Option<RelId>,
    /// `carry(p, c, v)`: a stalled puzzle's candidates, its children's `start`.
    pub carry: Option<RelId>,
    pub empty_cell: Option<RelId>,
    pub no_place: Option<RelId>,
    pub clash: Option<RelId>,
    /// `eager(p)`: reach tiers 2-5 from the start (see `datalog/base.dl`).
    pub eager: Option<RelId>,
}

impl Rels {
    /// The relations a board loads once (see [`Config::sealed`]): the geometry
    /// (once per board, until a reset), and with `one_puzzle` the puzzle's own facts;
    /// when it does not `search` either, also the search's `guess` and `start`,
    /// which only a searching board's nodes insert (so they stay empty, and what
    /// reads them, `inherits` and the block's guessed placements, is settled).
    fn sealed(&self, one_puzzle: bool, search: bool) -> Vec<RelId> {
        let mut out = vec![self.member, self.group];
        if one_puzzle {
            out.extend([self.puzzle, self.cell, self.digit]);
            out.extend(self.eager);
            if !search {
                out.push(self.guess);
                out.extend(self.start);
            }
        }
        out
    }

    pub fn of(program: &Program) -> Result<Rels, String> {
        let need = |name: &str, arity: usize| -> Result<RelId, String> {
            let r = program.relation(name).ok_or_else(|| {
                format!("the rule program must declare '{name}' (see datalog/grid.dl)")
            })?;
            if program.relations[r].arity() != arity {
                return Err(format!("'{name}' must have {arity} columns"));
            }
            Ok(r)
        };
        // Relations the host reads when the program defines them: with their columns.
        let opt = |name: &str, arity: usize| -> Result<Option<RelId>, String> {
            match program.relation(name) {
                Some(r) if program.relations[r].arity() != arity => Err(format!(
                    "'{name}' must have {arity} columns; the rule program's has {}",
                    program.relations[r].arity()
                )),
                r => Ok(r),
            }
        };
        Ok(Rels {
            puzzle: need("puzzle", 1)?,
            cell: need("cell", 2)?,
            digit: need("digit", 2)?,
            given: need("given", 3)?,
            guess: need("guess", 3)?,
            start: opt("start", 3)?,
            member: need("member", 2)?,
            group: need("group", 3)?,
            placed: opt("placed", 3)?,
            eliminated: opt("eliminated", 3)?,
            candidate: opt("candidate", 3)?,
            solved: opt("solved", 1)?,
            broken: opt("broken", 1)?,
            invalid: opt("invalid", 1)?,
            choice_value: opt("choice_value", 3)?,
            carry: opt("carry", 3)?,
            empty_cell: opt("empty_cell", 2)?,
            no_place: opt("no_place", 3)?,
            clash: opt("clash", 3)?,
            eager: opt("eager", 1)?,
        })
    }
}

/// A session of the engine running a Sudoku rule program over any number of puzzles.
pub struct Board {
    engine: Engine,
    pub rels: Rels,
    /// The symbols of the group kinds, as [`GroupKind::fact`] names them.
    ///
    /// [`GroupKind::fact`]: super::grid::GroupKind::fact
    kinds: Vec<(&'static str, Value)>,
    /// Each puzzle's shape: all one, whose geometry (`member`, `group`) the session
    /// holds since the first puzzle was added.
    shapes: HashMap<Value, Shape>,
    program: Arc<Program>,
    /// Insert `eager(p)` with each puzzle: not in the batch rendering, where a round
    /// costs little, but in sessions that edit, where every round is paid again on
    /// every edit (`bench edit`: 85 ms median eager, 128 ms with lazy tiers).
    eager: bool,
}

impl Board {
    /// A board on `program`, or on its split when `opts` can step it (then
    /// [`Board::program`] is the split's base, unless rounds and events are
    /// numbered as `program`'s: then it is `program`, whose rules the events name,
    /// and [`Board::rels`] are the base's).
    pub fn new(program: Arc<Program>, opts: &Options) -> Result<Board, String> {
        let split = opts.split();
        // Rounds are observed when stepping: `@ungated` rules then wait their round.
        let gated = opts.eliminations || opts.max_rounds.is_some();
        let gate = |p: Arc<Program>| match gated && p.has_ungated() {
            true => Arc::new(p.gated()),
            false => p,
        };
        let numbered = split.is_some() && opts.numbered();
        let (program, engine_program) = match &split {
            Some(split) if numbered => (gate(program), Arc::new(split.base.clone())),
            Some(split) => {
                let base = gate(Arc::new(split.base.clone()));
                (base.clone(), base)
            }
            None => {
                let program = gate(program);
                (program.clone(), program)
            }
        };
        let rels = Rels::of(&engine_program)?;
        let mut observe = Vec::new();
        let mut add = |r: Option<RelId>, on: bool| {
            if let (Some(r), true) = (r, on) {
                observe.push(r);
            }
        };
        add(rels.placed, true);
        add(rels.solved, true);
        add(rels.broken, true);
        add(rels.invalid, true);
        add(rels.candidate, opts.candidates);
        add(rels.eliminated, opts.eliminations);
        add(rels.choice_value, opts.search);
        add(
            rels.carry,
            opts.search && opts.inherit && rels.start.is_some(),
        );
        add(rels.empty_cell, opts.candidates);
        add(rels.no_place, opts.candidates);
        add(rels.clash, opts.candidates);
        let config = Config {
            workers: opts.workers.max(1),
            timely_args: opts.timely_args.clone(),
            explain: opts.explain,
            observe: Observe::Relations(observe),
            max_rounds: opts.max_rounds,
            batch: opts.batch,
            // Editing reads each commit's changes; a batch reads contents only.
            changes: !opts.batch,
            profile: opts.profile,
            // The board adds puzzles, geometry, guesses and starts: inputs only.
            inputs_only: true,
            sealed: rels.sealed(opts.one_puzzle, opts.search),
            // A batch of puzzles keeps its one worker on a thread: inline,
            // `sudoku_baseline -- 1` read ~4% slower in three pairs (cause not
            // found; a reset waits for its rebuild, so it is no overlap). An
            // editor's short commits save the two wake-ups, and so do the base's
            // many small commits when the tiers are stepped (one grid: `solve
            // hard1` ~6% faster; docs/PERFORMANCE.md, sessions 58 and 59).
            threaded: opts.batch && split.is_none(),
        };
        let mut engine = match split {
            Some(split) if numbered => {
                Engine::Stepped(Box::new(Stepped::numbered(split, config, &program, gated)?))
            }
            Some(split) => Engine::Stepped(Box::new(Stepped::new(split, config)?)),
            None => Engine::Block(Box::new(Session::new(program.clone(), config)?)),
        };
        let kinds = ["row", "column", "box", "diagonal"]
            .into_iter()
            .map(|k| (k, engine.symbols().intern(k)))
            .collect();
        Ok(Board {
            engine,
            rels,
            kinds,
            shapes: HashMap::new(),
            program,
            eager: !opts.batch,
        })
    }

    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }
    /// Per rule, relation and block, what it has cost so far (empty unless
    /// `Options::profile`).
    pub fn profile(&mut self) -> Result<Vec<crate::session::Cost>, String> {
        self.engine.profile(&self.program)
    }
    /// The session whose contents the board reads (with tiers stepped, the base's).
    pub fn session(&self) -> &Session {
        match &self.engine {
            Engine::Block(s) => s,
            Engine::Stepped(s) => s.base(),
        }
    }
    /// With the tiers stepped by the host ([`Options::stepped`]): how many tier
    /// dataflows it has stepped so far. `None` for one fixpoint block.
    pub fn tier_steps(&self) -> Option<usize> {
        match &self.engine {
            Engine::Block(_) => None,
            Engine::Stepped(s) => Some(s.steps()),
        }
    }
    pub fn shape(&self, p: Value) -> Option<Shape> {
        self.shapes.get(&p).copied()
    }

    /// A puzzle's own facts: `puzzle(p)`, `eager(p)` when asked for, its cells and
    /// values.
    fn puzzle_facts(&mut self, p: Value, shape: Shape) -> Result<(), String> {
        let s = &mut self.engine;
        s.insert(self.rels.puzzle, &[p])?;
        if let (Some(eager), true) = (self.rels.eager, self.eager) {
            s.insert(eager, &[p])?;
        }
        for c in 0..shape.cells() {
            s.insert(self.rels.cell, &[p, c as Value])?;
        }
        for v in 1..=shape.size() {
            s.insert(self.rels.digit, &[p, v as Value])?;
        }
        Ok(())
    }

    /// The geometry of `shape` (`group` and `member`), once per board: every puzzle
    /// of the board shares it. A puzzle of another shape needs a [`Board::reset`].
    fn geometry_facts(&mut self, shape: Shape) -> Result<(), String> {
        match self.shapes.values().next() {
            Some(&held) if held == shape => return Ok(()),
            Some(_) => {
                return Err(
                    "a board holds puzzles of one grid shape at a time: reset it first".to_string(),
                )
            }
            None => {}
        }
        for (g, (kind, cells)) in groups(shape).into_iter().enumerate() {
            let (name, i) = kind.fact();
            let k = self
                .kinds
                .iter()
                .find(|(n, _)| *n == name)
                .map(|&(_, k)| k)
                .ok_or_else(|| format!("no symbol for the group kind '{name}'"))?;
            self.engine
                .insert(self.rels.group, &[g as Value, k, i as Value])?;
            for c in cells {
                self.engine
                    .insert(self.rels.member, &[c as Value, g as Value])?;
            }
        }
        Ok(())
    }

    /// Adds a puzzle under id `p` (pending until commit), with the groups of its
    /// shape's layout.
    pub fn add(&mut self, p: Value, grid: &Grid) -> Result<(), String> {
        self.geometry_facts(grid.shape)?;
        self.shapes.insert(p, grid.shape);
        self.puzzle_facts(p, grid.shape)?;
        for (c, v) in grid.givens() {
            self.engine
                .insert(self.rels.given, &[p, c as Value, v as Value])?;
        }
        Ok(())
    }

    /// Sets or clears one given.
    pub fn set_given(&mut self, p: Value, c: usize, v: u8, on: bool) -> Result<(), String> {
        let row = [p, c as Value, v as Value];
        if on {
            self.engine.insert(self.rels.given, &row)
        } else {
            self.engine.retract(self.rels.given, &row)
        }
    }

    /// Inserts the candidates search node `p` starts from (see [`Board::carried`]).
    pub fn set_start(&mut self, p: Value, start: &Start) -> Result<(), String> {
        let rel = self
            .rels
            .start
            .ok_or("the rule program declares no 'start'")?;
        for &[c, v] in start.iter() {
            self.engine.insert(rel, &[p, c, v])?;
        }
        Ok(())
    }

    /// Inserts or retracts a guess.
    pub fn set_guess(&mut self, p: Value, c: usize, v: u8, on: bool) -> Result<(), String> {
        let row = [p, c as Value, v as Value];
        if on {
            self.engine.insert(self.rels.guess, &row)
        } else {
            self.engine.retract(self.rels.guess, &row)
        }
    }

    pub fn commit(&mut self) -> Result<Commit, String> {
        match &mut self.engine {
            Engine::Block(s) => s.commit(),
            Engine::Stepped(s) => {
                // Once every puzzle is decided, no tier needs stepping.
                let (puzzles, rels) = (&self.shapes, &self.rels);
                let decided = |s: &Session| {
                    let has = |r: Option<RelId>, p: Value| {
                        r.is_some_and(|r| !s.rows_with_prefix(r, &[p]).is_empty())
                    };
                    puzzles.keys().all(|&p| {
                        has(rels.solved, p) || has(rels.broken, p) || has(rels.invalid, p)
                    })
                };
                s.commit_until(&decided)
            }
        }
    }

    /// Forgets every puzzle (drops the dataflow; cheaper than retracting).
    pub fn reset(&mut self) -> Result<(), String> {
        self.shapes.clear();
        self.engine.reset()
    }

    fn has(&self, rel: Option<RelId>, p: Value) -> bool {
        rel.is_some_and(|r| !self.session().rows_with_prefix(r, &[p]).is_empty())
    }

    /// The facts of an observed relation whose first columns equal `prefix`, with
    /// their rounds (with the tiers stepped, the base's: numbered as one block's
    /// when [`Stepped::numbered`]), sorted.
    pub fn rows(&self, rel: RelId, prefix: &[Value]) -> Vec<(Vec<Value>, u32)> {
        self.session().rows_with_prefix(rel, prefix)
    }

    /// Per rule of [`Board::program`]: whether its head is the relation the board
    /// reads as `rel` (the engine's relation of that name).
    pub fn rules_deriving(&self, rel: RelId) -> Vec<bool> {
        let name = &self.session().program().relations[rel].name;
        let program = &self.program;
        (program.rules.iter())
            .map(|r| program.relations[r.head].name == *name)
            .collect()
    }

    /// One puzzle's status.
    pub fn status(&self, p: Value) -> Status {
        if self.has(self.rels.invalid, p) {
            Status::Invalid
        } else if self.has(self.rels.solved, p) {
            Status::Solved
        } else if self.has(self.rels.broken, p) {
            Status::Contradiction
        } else {
            Status::Stalled
        }
    }

    /// One puzzle's view (reads only that puzzle's facts).
    pub fn view(&self, p: Value) -> Option<View> {
        let shape = self.shape(p)?;
        let n = shape.cells();
        let mut v = View {
            shape,
            placed: vec![0; n],
            candidates: vec![Vec::new(); n],
            status: self.status(p),
            rounds: 0,
        };
        for (row, round) in self
            .rels
            .placed
            .map(|r| self.rows(r, &[p]))
            .unwrap_or_default()
        {
            let c = row[1] as usize;
            if c < n && (v.placed[c] == 0 || (row[2] as u8) < v.placed[c]) {
                v.placed[c] = row[2] as u8;
            }
            v.rounds = v.rounds.max(round);
        }
        if let Some(r) = self
            .rels
            .eliminated
            .filter(|&r| self.session().is_observed(r))
        {
            for (_, round) in self.rows(r, &[p]) {
                v.rounds = v.rounds.max(round);
            }
        }
        if let Some(r) = self
            .rels
            .candidate
            .filter(|&r| self.session().is_observed(r))
        {
            for (row, _) in self.session().rows_with_prefix(r, &[p]) {
                if let Some(cs) = v.candidates.get_mut(row[1] as usize) {
                    cs.push(row[2] as u8);
                }
            }
        }
        Some(v)
    }

    /// Whether the board reports the search's choice ([`Options::search`]).
    pub fn searches(&self) -> bool {
        self.choice_rel().is_some()
    }

    /// `choice_value`, when the program defines it and the board observes it.
    fn choice_rel(&self) -> Option<RelId> {
        self.rels
            .choice_value
            .filter(|&r| self.session().is_observed(r))
    }

    /// The search's choice for one puzzle: the open cell the rules choose
    /// (`datalog/status.dl`: fewest candidates, then most open peers, then fewest
    /// candidates among those, then lowest cell) and its candidates, ascending. None
    /// when the puzzle has none, or the board does not search.
    pub fn choice(&self, p: Value) -> Option<(usize, Vec<u8>)> {
        let r = self.choice_rel()?;
        let rows = self.session().rows_with_prefix(r, &[p]);
        let cell = rows.first()?.0[1] as usize;
        Some((cell, rows.iter().map(|(row, _)| row[2] as u8).collect()))
    }

    /// A stalled puzzle's candidates (`carry`), for its children to start from: None
    /// unless the board inherits ([`Options::inherit`]) and the puzzle has a choice.
    pub fn carried(&self, p: Value) -> Option<Start> {
        let r = self.rels.carry.filter(|&r| self.session().is_observed(r))?;
        let rows = self.session().rows_with_prefix(r, &[p]);
        (!rows.is_empty()).then(|| Arc::new(rows.iter().map(|(r, _)| [r[1], r[2]]).collect()))
    }

    /// Where a puzzle is contradictory, in words (cells in Drools notation).
    pub fn contradictions(&self, p: Value, notation: super::explain::Notation) -> Vec<String> {
        let Some(shape) = self.shape(p) else {
            return Vec::new();
        };
        let cell = |c: Value| notation.cell(shape, c as usize);
        let group_name = |g: Value| -> String {
            format_value(shape, notation, "group", g).unwrap_or_else(|| format!("group {g}"))
        };
        let mut out = Vec::new();
        let mut read = |rel: Option<RelId>, f: &dyn Fn(&[Value]) -> String| {
            if let Some(r) = rel.filter(|&r| self.session().is_observed(r)) {
                for (row, _) in self.session().rows_with_prefix(r, &[p]) {
                    out.push(f(&row));
                }
            }
        };
        read(self.rels.empty_cell, &|r| {
            format!("{} has no candidates", cell(r[1]))
        });
        read(self.rels.no_place, &|r| {
            format!(
                "{} has no place left for {}",
                group_name(r[1]),
                digit_char(r[2] as u8)
            )
        });
        read(self.rels.clash, &|r| {
            format!(
                "{} holds {} twice",
                group_name(r[1]),
                digit_char(r[2] as u8)
            )
        });
        out
    }

    /// All explain events, in log order: round, then tier, then rule, then fact.
    pub fn events(&self) -> Vec<Event> {
        let mut evs = match &self.engine {
            Engine::Block(s) => s.events(),
            Engine::Stepped(s) => s.events(),
        };
        let rules = &self.program.rules;
        evs.sort_by(|a, b| {
            (a.round, rules[a.rule].tier, a.rule, &a.head).cmp(&(
                b.round,
                rules[b.rule].tier,
                b.rule,
                &b.head,
            ))
        });
        evs
    }

    /// Renders an event with its rule's template; names as [`format_value`] gives them.
    pub fn render(&self, ev: &Event, notation: super::explain::Notation) -> String {
        let shape = self.shape(ev.head[0]).unwrap_or(Shape::new(3).unwrap());
        crate::session::render_event(
            &self.program,
            self.session().symbols_ref(),
            ev,
            &|format, v| format_value(shape, notation, format, v),
        )
    }

    /// Renders an event with its rule's `@hint` template (`None` without one).
    pub fn render_hint(&self, ev: &Event, notation: super::explain::Notation) -> Option<String> {
        let shape = self.shape(ev.head[0]).unwrap_or(Shape::new(3).unwrap());
        crate::session::render_hint(
            &self.program,
            self.session().symbols_ref(),
            ev,
            &|format, v| format_value(shape, notation, format, v),
        )
    }
}

/// A template value in one of the Sudoku formats: `{c:cell}` the cell, `{g:group}`
/// group `g` (`row 3`), `{c:box}` the box (or jigsaw region) holding cell `c`,
/// `{i:index}` a row or column index (from 0 in Drools' notation, from 1 in `rc`).
fn format_value(
    shape: Shape,
    notation: super::explain::Notation,
    format: &str,
    v: Value,
) -> Option<String> {
    let name = |kind: super::grid::GroupKind| notation.group(kind.word(), kind.fact().1);
    match format {
        "cell" => Some(notation.cell(shape, v as usize)),
        "index" => Some(match notation {
            super::explain::Notation::Drools => v.to_string(),
            super::explain::Notation::Rc => (v + 1).to_string(),
        }),
        "group" => groups(shape).get(v as usize).map(|(k, _)| name(*k)),
        "box" => groups(shape)
            .into_iter()
            .find(|(k, cells)| k.fact().0 == "box" && cells.contains(&(v as usize)))
            .map(|(k, _)| name(k)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::rules::{builtin, Builtin};

    /// One copy of the geometry serves every puzzle of a board, so a puzzle of
    /// another shape is refused until a reset; after it, that shape's geometry serves.
    #[test]
    fn a_board_holds_one_shape_until_reset() {
        let program = builtin(Builtin::Fast).unwrap();
        let mut board = Board::new(program, &Options::default()).unwrap();
        board.add(0, &Grid::empty(Shape::NINE)).unwrap();
        board.add(1, &Grid::empty(Shape::NINE)).unwrap();
        let err = board.add(2, &Grid::empty(Shape::FOUR)).unwrap_err();
        assert!(err.contains("one grid shape at a time"), "{err}");
        board.reset().unwrap();
        board.add(0, &Grid::empty(Shape::FOUR)).unwrap();
        board.commit().unwrap();
        let view = board.view(0).unwrap();
        assert_eq!((view.shape, view.status), (Shape::FOUR, Status::Stalled));
    }

    /// A one-puzzle board seals its puzzle with the geometry at the first commit: its
    /// givens still change, another puzzle needs a reset, and after one the board
    /// solves as a fresh one does.
    #[test]
    fn a_one_puzzle_board_seals_its_puzzle() {
        let program = builtin(Builtin::Fast).unwrap();
        let opts = Options {
            one_puzzle: true,
            ..Options::default()
        };
        let mut board = Board::new(program.clone(), &opts).unwrap();
        let sample = crate::sudoku::samples::SAMPLES[0].2;
        let grid = crate::sudoku::puzzle::parse_puzzle_arg(sample).unwrap()[0]
            .as_ref()
            .unwrap()
            .grid
            .clone();
        board.add(0, &grid).unwrap();
        board.commit().unwrap();
        let (c, v) = grid.givens().next().unwrap();
        board.set_given(0, c, v, false).unwrap();
        board.commit().unwrap();
        board.set_given(0, c, v, true).unwrap();
        board.commit().unwrap();
        let err = board.add(1, &grid).unwrap_err();
        assert!(err.contains("sealed"), "{err}");
        // A board that does not search takes no guesses.
        let open = (0..81).find(|&c| grid.get(c) == 0).unwrap();
        let err = board.set_guess(0, open, 1, true).unwrap_err();
        assert!(err.contains("sealed"), "{err}");
        board.reset().unwrap();
        board.add(1, &grid).unwrap();
        board.commit().unwrap();
        let mut fresh = Board::new(program, &Options::default()).unwrap();
        fresh.add(1, &grid).unwrap();
        fresh.commit().unwrap();
        let view = |b: &Board| b.view(1).map(|v| (v.status, v.grid()));
        assert_eq!(view(&board), view(&fresh));
    }

    /// What a board reads: status, and placements and candidates unless the grid is
    /// invalid or broken (the two designs may stop placing at different points of a
    /// contradiction).
    fn seen(board: &Board) -> (Status, Vec<u8>, Vec<Vec<u8>>) {
        let v = board.view(0).unwrap();
        match v.status {
            Status::Solved | Status::Stalled => (v.status, v.placed, v.candidates),
            _ => (v.status, Vec::new(), Vec::new()),
        }
    }

    /// A board that steps the full rules' tiers from the host reads what one
    /// fixpoint block does: each sample solved from scratch as `solve` runs one
    /// grid, then a one-puzzle board through edits that add and clear givens (a
    /// clear withdraws what the tiers found). Options that need the block keep it.
    #[test]
    fn a_stepped_board_reads_what_one_block_does() {
        let (program, split) = crate::sudoku::rules::load_split(&[], Builtin::Full).unwrap();
        let split = split.expect("the full rules split");
        let stepped = |opts: &Options| Options {
            stepped: Some(split.clone()),
            ..opts.clone()
        };
        let explain = Options {
            explain: true,
            ..Options::default()
        };
        let b = Board::new(program.clone(), &stepped(&explain)).unwrap();
        assert_eq!(b.tier_steps(), None, "explanations need the block");
        let grid = |name: &str| {
            let text = crate::sudoku::samples::sample(name).unwrap();
            crate::sudoku::puzzle::parse_puzzle_arg(text).unwrap()[0]
                .as_ref()
                .unwrap()
                .grid
                .clone()
        };
        let batch = Options {
            batch: true,
            candidates: true,
            ..Options::default()
        };
        for name in [
            "simple", "medium", "hard1", "hard3", "hard4", "broken", "6948",
        ] {
            let mut block = Board::new(program.clone(), &batch).unwrap();
            let mut step = Board::new(program.clone(), &stepped(&batch)).unwrap();
            for b in [&mut block, &mut step] {
                b.add(0, &grid(name)).unwrap();
                b.commit().unwrap();
            }
            assert_eq!(seen(&step), seen(&block), "{name}");
        }
        let edit = Options {
            one_puzzle: true,
            candidates: true,
            ..Options::default()
        };
        let hard = grid("hard3");
        let mut block = Board::new(program.clone(), &edit).unwrap();
        let mut step = Board::new(program.clone(), &stepped(&edit)).unwrap();
        for b in [&mut block, &mut step] {
            b.add(0, &hard).unwrap();
            b.commit().unwrap();
        }
        let givens: Vec<(usize, u8)> = hard.givens().collect();
        for (k, &(c, v)) in givens.iter().enumerate().take(8) {
            for b in [&mut block, &mut step] {
                b.set_given(0, c, v, false).unwrap();
                if k % 3 == 0 {
                    let (c2, v2) = givens[(k + 5) % givens.len()];
                    b.set_given(0, c2, v2, false).unwrap();
                    b.set_given(0, c2, v2 % 9 + 1, true).unwrap();
                }
                b.commit().unwrap();
            }
            assert_eq!(seen(&step), seen(&block), "edit {k}");
            for b in [&mut block, &mut step] {
                b.set_given(0, c, v, true).unwrap();
                b.commit().unwrap();
            }
            assert_eq!(seen(&step), seen(&block), "edit {k} undone");
        }
        assert!(step.tier_steps().is_some_and(|n| n > 0));
    }
}
