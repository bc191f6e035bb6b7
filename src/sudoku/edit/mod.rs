//! The interactive editing session behind `sudolog edit`: one grid, edited a given
//! at a time, with the reasoning kept up to date incrementally.
//!
//! In: command lines (`set r3c4 7`, `clear [2,3]`, `load hard1`, `step`, `undo`, ...).
//! Out: for each, the text to print, or an error message (the session goes on).
//!
//! An [`Editor`] owns one [`Board`] for the whole session (puzzle id 0, with
//! candidates, eliminations and explain events observed, no search). An edit changes
//! the `given` facts with [`Board::set_given`] and commits: the engine updates its
//! fixpoint incrementally, and the editor prints what the commit changed, in this
//! order:
//!
//! ```text
//! + [0,1] = 8                      cells newly solved
//! - [0,2] = 3                      cells no longer solved
//! candidates [3,8]: -6 -9 +2       per open cell: candidates removed, then restored
//! single 8 at [0,1]                new deductions (explain lines, in log order)
//! withdrawn: single 3 at [0,2]     deductions no longer made
//! contradiction: [6,2] has no candidates
//! ```
//!
//! Candidate lines cover only cells that are open after the edit (a newly solved
//! cell is reported by its `+` line). Facts and explain events carry the round in
//! which they first appeared, and an edit may move a surviving fact or deduction to
//! another round (a `-1` at the old round and a `+1` at the new one): the diff nets
//! those out by identity, ignoring the round, so they are neither new nor withdrawn.
//! An edit that changes nothing prints `no change`. A `load` of a grid of the same
//! size is an edit like any other (the givens that differ are retracted and
//! inserted); one of another size is a different puzzle, so the board starts afresh
//! ([`Board::reset`]) and everything shows as new. `validate` runs the validation
//! rules (`datalog/validate.dl`) on a second board, kept in step the same way.
//!
//! # Horizon
//!
//! Like the Drools example's Step button, the session shows the reasoning up to a
//! [`Horizon`]: a round, and how many of that round's placed values are shown; or
//! all rounds. The engine always computes the whole fixpoint; the horizon only
//! filters what is shown. After start and `load` the horizon is "all". `step` from
//! "all" rewinds to [`Horizon::GIVENS`] (the givens placed and the candidates they
//! rule out); each further `step` shows exactly one more placed value and the
//! deductions that led to it (those not shown yet, up to it in log order), as
//! Drools' Step does; `solve` prints the rest and returns to "all". Within a round,
//! values are shown in log order (tier, rule, cell). Edits while stepping are diffed
//! at the horizon.
//!
//! # Undo
//!
//! `undo` and `redo` restore the givens before / after an edit (and go through the
//! same incremental path). The undo stack holds at most [`UNDO_LIMIT`] grids of
//! givens; nothing else grows with the length of a session.
//!
//! # Parts
//!
//! This file holds the editor and its commands; `diff` builds the text of what a
//! commit changed (the lines above); `random` draws random edit scripts for the
//! benches and the property tests ([`Rng`], [`random_edit`], [`bench_edits`]).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use super::board::{Board, Options, Status};
use super::dump::dump;
use super::explain::{dedup_lines, Notation};
use super::grid::{parse_cell, parse_digit, Grid, Shape};
use super::puzzle::parse_puzzle_arg;
use super::rules::{self, Builtin};
use crate::check::ir::{Program, RelId, Value};
use crate::session::Event;

mod diff;
mod random;

pub use random::{bench_edits, random_edit, random_edit_in, Draw, EditTimes, Rng};

/// The puzzle id of the edited grid.
const P: Value = 0;

/// The most edits `undo` can go back (older ones are forgotten).
pub const UNDO_LIMIT: usize = 1000;

/// How far the reasoning is shown while stepping: every fact and deduction of the
/// rounds before `round`, and the first `placed` values placed in `round` (in log
/// order) with their deductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Horizon {
    pub round: u32,
    pub placed: usize,
}

impl Horizon {
    /// Where stepping starts: the givens (placed in round 1) and the candidates they
    /// rule out (round 2).
    pub const GIVENS: Horizon = Horizon {
        round: 3,
        placed: 0,
    };
}

/// What a horizon shows, resolved against the engine's current state (which values
/// of the horizon's round come first). Made by [`Editor::visible`].
#[derive(Clone, Debug)]
pub struct Visible {
    /// `None`: everything.
    horizon: Option<Horizon>,
    /// The values of the horizon's round that are shown.
    first: HashSet<(usize, u8)>,
    /// Per rule: whether its head is `placed`.
    places: Vec<bool>,
}

impl Visible {
    /// Whether a fact of `placed` (`is_placed`) or `eliminated` about cell `c` and
    /// value `v`, first derived in `round`, is shown.
    pub fn fact(&self, is_placed: bool, c: usize, v: u8, round: u32) -> bool {
        match self.horizon {
            None => true,
            Some(h) => {
                round < h.round || (is_placed && round == h.round && self.first.contains(&(c, v)))
            }
        }
    }

    /// Whether an explain event (of puzzle 0) is shown.
    pub fn event(&self, e: &Event) -> bool {
        let places = self.places.get(e.rule).copied().unwrap_or(false);
        let (c, v) = (
            e.head.get(1).copied().unwrap_or(-1),
            e.head.get(2).copied().unwrap_or(-1),
        );
        if c < 0 || v < 0 {
            return self.horizon.is_none_or(|h| e.round < h.round);
        }
        self.fact(places, c as usize, v as u8, e.round)
    }
}

/// One line of the explain log, for a front end: its text, the cells of its pattern
/// (those its template names, ascending) and the cell it acts on (the head's cell).
/// Lines that read the same in one round are one line (as `explain` prints them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub text: String,
    pub cells: Vec<usize>,
    pub target: Option<usize>,
}

/// The text of `help`.
pub const HELP: &str = "\
commands:
  set CELL V     put the given V in CELL (replacing any given there)
  clear CELL     remove the given in CELL
  load PUZZLE    a file, an 81-character string or a sample name (simple, medium,
                 hard1..hard4, broken, sdo, javadoc, 6948)
  step           place one more value and show the deductions that led to it
                 (the first step goes back to the givens)
  solve          show the remaining deductions, then the solution or the dump
  dump           the grid with candidates (at the current step)
  explain        every deduction so far (up to the current step)
  givens         the givens, one row per line
  undo, redo     take back the last edit, or make it again
  validate       look for duplicate givens
  hint [vague]   the next deduction, not applied (vague: its technique and where)
  help           this text
  quit           end the session
CELL is r3c4 (1-based) or [2,3] (0-based, row first). Lines starting with # are ignored.
";

/// One undoable edit: the givens on the other side of it, and whether it was a load
/// (undoing or redoing a load shows all rounds again, as a load does).
#[derive(Clone, Debug)]
struct Entry {
    givens: Grid,
    load: bool,
}

/// An editing session. See the [module docs](self).
pub struct Editor {
    board: Board,
    placed: RelId,
    eliminated: RelId,
    /// `candidate`, when the program defines it: the pencil marks of the whole
    /// fixpoint (see [`Editor::marks`]).
    candidate: Option<RelId>,
    /// Per rule of the board's program: whether it derives `placed`, and whether it
    /// derives `placed` or `eliminated` (a deduction that acts on one cell).
    places: Vec<bool>,
    acts: Vec<bool>,
    opts: Options,
    notation: Notation,
    givens: Grid,
    /// `None`: all rounds.
    horizon: Option<Horizon>,
    undo: VecDeque<Entry>,
    /// Most edits `undo` can take back (the oldest are forgotten beyond it).
    undo_limit: usize,
    redo: Vec<Entry>,
    /// The validation program's board and the givens it holds, made on first use.
    validator: Option<(Board, Grid)>,
    finished: bool,
    last_commit: Option<Duration>,
}

impl Editor {
    /// A session over the built-in rules (`datalog/sudoku.dl`) starting from `grid`
    /// (use [`Grid::empty`] for a blank one).
    /// Its tiers are stepped by the host ([`Options::stepped`]).
    pub fn new(grid: Grid, notation: Notation) -> Result<Editor, String> {
        let (program, split) = rules::load_split(&[], Builtin::Full)?;
        let opts = Options {
            stepped: split,
            ..Options::default()
        };
        Editor::with_program(program, opts, grid, notation)
    }

    /// A session over any Sudoku rule program that defines `placed` and
    /// `eliminated`. Of `opts`, only the engine settings (workers, timely arguments,
    /// `profile`) are used.
    pub fn with_program(
        program: Arc<Program>,
        opts: Options,
        grid: Grid,
        notation: Notation,
    ) -> Result<Editor, String> {
        let opts = Options {
            candidates: true,
            eliminations: true,
            explain: true,
            search: false,
            max_rounds: None,
            one_puzzle: true,
            ..opts
        };
        let mut board = Board::new(program, &opts)?;
        let placed = board
            .rels
            .placed
            .ok_or("the rule program must define 'placed'")?;
        let eliminated = board
            .rels
            .eliminated
            .ok_or("the rule program must define 'eliminated' to be edited")?;
        let candidate = board.rels.candidate;
        board.add(P, &grid)?;
        let commit = board.commit()?;
        let places = board.rules_deriving(placed);
        let acts = (places.iter().zip(board.rules_deriving(eliminated)))
            .map(|(&p, e)| p || e)
            .collect();
        Ok(Editor {
            board,
            placed,
            eliminated,
            candidate,
            places,
            acts,
            opts,
            notation,
            givens: grid,
            horizon: None,
            undo: VecDeque::new(),
            undo_limit: UNDO_LIMIT,
            redo: Vec::new(),
            validator: None,
            finished: false,
            last_commit: Some(commit.elapsed),
        })
    }

    /// The current givens.
    pub fn givens(&self) -> &Grid {
        &self.givens
    }

    /// The horizon: `Some` while stepping, `None` for all rounds.
    pub fn horizon(&self) -> Option<Horizon> {
        self.horizon
    }

    /// The board the session runs on.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Whether `quit` was given.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// How long the engine took for the last commit (of an edit, load or start).
    pub fn last_commit(&self) -> Option<Duration> {
        self.last_commit
    }

    /// Number of edits `undo` / `redo` can take back / make again.
    pub fn history(&self) -> (usize, usize) {
        (self.undo.len(), self.redo.len())
    }

    /// The placed values (0 = open; the lower if a cell holds two) and each cell's
    /// candidates (its pencil marks, ascending: a candidate of the fixpoint, or a
    /// value struck in a round the horizon does not show yet; placed cells included)
    /// at the current horizon.
    pub fn state(&self) -> (Vec<u8>, Vec<Vec<u8>>) {
        self.state_at(self.horizon)
    }

    /// As [`Editor::state`], at horizon `h` (`None`: all rounds).
    pub fn state_at(&self, h: Option<Horizon>) -> (Vec<u8>, Vec<Vec<u8>>) {
        let vis = self.visible(h);
        let size = self.givens.shape.size();
        let cands = (self.marks(&vis).iter())
            .map(|ok| (1..=size).filter(|&v| ok[v]).map(|v| v as u8).collect())
            .collect();
        (self.placed_at(&vis), cands)
    }

    /// Per cell, the value placed there at `vis` (0: none; of two that clash, the
    /// lower).
    pub(super) fn placed_at(&self, vis: &Visible) -> Vec<u8> {
        let n = self.givens.shape.cells();
        let mut placed = vec![0u8; n];
        for (row, r) in self.board.rows(self.placed, &[P]) {
            let (c, v) = (row[1] as usize, row[2] as u8);
            if c < n && vis.fact(true, c, v, r) && (placed[c] == 0 || v < placed[c]) {
                placed[c] = v;
            }
        }
        placed
    }

    /// Per cell, per value (indices 1..=size): whether it is a pencil mark at `vis`.
    /// With a `candidate` relation: a candidate of the whole fixpoint, or a value an
    /// `eliminated` fact strikes in a round `vis` does not show yet (what the rules
    /// strike outside `eliminated`, such as the givens' strikes before a block, counts
    /// as shown from the start). Without one: every value no shown `eliminated` fact
    /// strikes.
    fn marks(&self, vis: &Visible) -> Vec<Vec<bool>> {
        let shape = self.givens.shape;
        let (n, size) = (shape.cells(), shape.size());
        let mut out = vec![vec![self.candidate.is_none(); size + 1]; n];
        for (row, _) in self
            .candidate
            .map_or(Vec::new(), |r| self.board.rows(r, &[P]))
        {
            let (c, v) = (row[1] as usize, row[2] as usize);
            if c < n && v <= size {
                out[c][v] = true;
            }
        }
        for (row, r) in self.board.rows(self.eliminated, &[P]) {
            let (c, v) = (row[1] as usize, row[2] as usize);
            if c < n && v <= size {
                let shown = vis.fact(false, c, v as u8, r);
                out[c][v] = !shown || (self.candidate.is_some() && out[c][v]);
            }
        }
        out
    }

    /// Shows the reasoning from [`Horizon::GIVENS`] on, as stepping does (the board
    /// starts there after a load).
    pub fn rewind(&mut self) {
        self.horizon = Some(Horizon::GIVENS);
    }

    /// Loads `grid` as `load` does (an edit of the givens, or a new puzzle if its
    /// size differs). Out: the diff text.
    pub fn load_grid(&mut self, grid: Grid) -> Result<String, String> {
        self.edit(grid, true)
    }

    /// What the rules concluded about the grid (at the fixpoint).
    pub fn status(&self) -> Status {
        self.board.status(P)
    }

    /// The explain log at the current horizon, in log order.
    pub fn log(&self) -> Vec<LogLine> {
        let vis = self.visible(self.horizon);
        self.log_of(self.board.events().into_iter().filter(|e| vis.event(e)))
    }

    /// The next deduction the horizon does not show yet (while stepping), not applied.
    pub fn hint(&self) -> Option<LogLine> {
        let vis = self.visible(Some(self.horizon?));
        let next = self
            .board
            .events()
            .into_iter()
            .filter(|e| e.head[0] == P && !vis.event(e))
            .collect::<Vec<_>>();
        self.log_of(next.into_iter()).into_iter().next()
    }

    /// The next deduction, not applied, as a line for `hint`: while stepping the
    /// first the horizon does not show yet, else the first the rules make from the
    /// givens (the simplest tier's, earliest round). `vague`: the rule's `@hint`
    /// wording (the technique and where to look), or its label without one.
    fn hint_text(&self, vague: bool) -> String {
        let vis = self.horizon.map(|h| self.visible(Some(h)));
        let mut next: Vec<Event> = self
            .board
            .events()
            .into_iter()
            .filter(|e| e.head[0] == P && vis.as_ref().is_none_or(|v| !v.event(e)))
            .collect();
        self.sort_log_order(&mut next);
        let Some(ev) = next.first() else {
            return match (self.status(), vis.is_some()) {
                (Status::Solved, _) => "no hint: the grid is solved\n".into(),
                (_, true) => "no hint: every deduction is shown\n".into(),
                _ => "no hint: the rules find nothing here\n".into(),
            };
        };
        let text = if vague {
            self.board
                .render_hint(ev, self.notation)
                .unwrap_or_else(|| self.board.program().rules[ev.rule].label.clone())
        } else {
            self.board.render(ev, self.notation)
        };
        format!("hint: {text}\n")
    }

    /// Sorts events in log order: round, tier, rule, head, bindings.
    fn sort_log_order(&self, evs: &mut [Event]) {
        let rules = &self.board.program().rules;
        evs.sort_by(|a, b| {
            (a.round, rules[a.rule].tier, a.rule, &a.head, &a.bindings).cmp(&(
                b.round,
                rules[b.rule].tier,
                b.rule,
                &b.head,
                &b.bindings,
            ))
        });
    }

    /// Log lines of events (puzzle 0), in log order, lines that read the same in one
    /// round merged.
    fn log_of(&self, evs: impl Iterator<Item = Event>) -> Vec<LogLine> {
        let mut evs: Vec<Event> = evs.filter(|e| e.head[0] == P).collect();
        self.sort_log_order(&mut evs);
        let shape = self.givens.shape;
        let mut out: Vec<LogLine> = Vec::new();
        let mut last: Option<(u32, String)> = None;
        for e in evs {
            let cells = RefCell::new(Vec::new());
            let text = crate::session::render_event(
                self.board.program(),
                self.board.session().symbols_ref(),
                &e,
                &|format, v| {
                    (format == "cell").then(|| {
                        cells.borrow_mut().push(v as usize);
                        self.notation.cell(shape, v as usize)
                    })
                },
            );
            let mut cells = cells.into_inner();
            let target = (self.acts[e.rule])
                .then(|| e.head.get(1).map(|&c| c as usize))
                .flatten();
            if last.as_ref() == Some(&(e.round, text.clone())) {
                if let Some(prev) = out.last_mut() {
                    prev.cells.append(&mut cells);
                    prev.cells.sort_unstable();
                    prev.cells.dedup();
                }
                continue;
            }
            cells.sort_unstable();
            cells.dedup();
            last = Some((e.round, text.clone()));
            out.push(LogLine {
                text,
                cells,
                target,
            });
        }
        out
    }

    /// Where the grid is contradictory (at the fixpoint): each reason, as
    /// [`Board::contradictions`] words it, with the cells it is about (the empty
    /// cell, or the group's cells).
    pub fn contradictions_with_cells(&self) -> Vec<(String, Vec<usize>)> {
        let words = self.board.contradictions(P, self.notation);
        let shape = self.givens.shape;
        let all = super::grid::groups(shape);
        let s = self.board.session();
        let rels = &self.board.rels;
        let mut cells: Vec<Vec<usize>> = Vec::new();
        for (rel, group) in [
            (rels.empty_cell, false),
            (rels.no_place, true),
            (rels.clash, true),
        ] {
            if let Some(r) = rel.filter(|&r| s.is_observed(r)) {
                for (row, _) in s.rows_with_prefix(r, &[P]) {
                    let x = row[1] as usize;
                    cells.push(if group {
                        all.get(x).map(|(_, cs)| cs.clone()).unwrap_or_default()
                    } else {
                        vec![x]
                    });
                }
            }
        }
        words.into_iter().zip(cells).collect()
    }

    /// Runs one command line. `Ok` holds the text to print (lines ending in `'\n'`,
    /// empty for blank and comment lines); `Err` a message for `error: ...`.
    pub fn command(&mut self, line: &str) -> Result<String, String> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Ok(String::new());
        }
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (line, ""),
        };
        let args: Vec<&str> = rest.split_whitespace().collect();
        let word = word.to_ascii_lowercase();
        const NO_ARGS: &[&str] = &[
            "undo", "redo", "step", "solve", "dump", "explain", "givens", "validate", "help",
            "quit", "exit",
        ];
        if word == "hint" {
            return match args[..] {
                [] => Ok(self.hint_text(false)),
                ["vague"] => Ok(self.hint_text(true)),
                _ => Err("usage: hint [vague]".into()),
            };
        }
        if NO_ARGS.contains(&word.as_str()) && !args.is_empty() {
            return Err(format!("'{word}' takes no arguments"));
        }
        match word.as_str() {
            "set" => self.set_command(&args),
            "clear" => self.clear_command(&args),
            "load" => {
                if rest.is_empty() {
                    return Err(
                        "usage: load PUZZLE (a file, an 81-character string or a sample name)"
                            .into(),
                    );
                }
                let grid = read_puzzle(rest)?;
                self.edit(grid, true)
            }
            "undo" => self.undo_edit(),
            "redo" => self.redo_edit(),
            "step" => self.step(),
            "solve" => self.solve(),
            "dump" => Ok(self.dump_text()),
            "explain" => Ok(self.explain_command()),
            "givens" => Ok(self.givens.to_rows()),
            "validate" => self.validate(),
            "help" => Ok(HELP.to_string()),
            "quit" | "exit" => {
                self.finished = true;
                Ok(String::new())
            }
            other => Err(format!("unknown command '{other}'; type help")),
        }
    }

    /// `set CELL VALUE`: the cell's given becomes the value.
    fn set_command(&mut self, args: &[&str]) -> Result<String, String> {
        let [cell, value] = args[..] else {
            return Err("usage: set CELL VALUE, e.g. set r3c4 7".into());
        };
        let shape = self.givens.shape;
        let c = parse_cell(cell, shape)?;
        let v = parse_value(value, shape)?;
        let mut target = self.givens.clone();
        target.values[c] = v;
        self.edit(target, false)
    }

    /// `clear CELL`: the cell's given is removed (an error when it holds none).
    fn clear_command(&mut self, args: &[&str]) -> Result<String, String> {
        let [cell] = args[..] else {
            return Err("usage: clear CELL, e.g. clear r3c4".into());
        };
        let shape = self.givens.shape;
        let c = parse_cell(cell, shape)?;
        if self.givens.get(c) == 0 {
            return Err(format!("{} holds no given", self.cell(c)));
        }
        let mut target = self.givens.clone();
        target.values[c] = 0;
        self.edit(target, false)
    }

    /// `undo`: back to the givens before the last edit; the current ones can be redone.
    fn undo_edit(&mut self) -> Result<String, String> {
        let e = self.undo.pop_back().ok_or("nothing to undo")?;
        let (back, out) = self.travel(e)?;
        self.redo.push(back);
        Ok(out)
    }

    /// `redo`: the last undone edit again; the current givens can be undone.
    fn redo_edit(&mut self) -> Result<String, String> {
        let e = self.redo.pop().ok_or("nothing to redo")?;
        let (back, out) = self.travel(e)?;
        self.push_undo(back);
        Ok(out)
    }

    /// The givens of an undo or redo entry applied. Out: the entry that leads back
    /// to the givens before, and what the commit changed.
    fn travel(&mut self, e: Entry) -> Result<(Entry, String), String> {
        let back = Entry {
            givens: self.givens.clone(),
            load: e.load,
        };
        let out = self.apply(e.givens, e.load)?;
        Ok((back, out))
    }

    /// `explain`: the deductions shown at the horizon, in log order.
    fn explain_command(&self) -> String {
        let lines = self.explain_lines(None, &self.visible(self.horizon));
        if lines.is_empty() {
            "no deductions\n".to_string()
        } else {
            lines
        }
    }

    fn cell(&self, c: usize) -> String {
        self.notation.cell(self.givens.shape, c)
    }

    /// Keeps at most `n` edits for `undo` (default [`UNDO_LIMIT`]).
    pub fn set_undo_limit(&mut self, n: usize) {
        self.undo_limit = n;
        while self.undo.len() > n {
            self.undo.pop_front();
        }
    }

    fn push_undo(&mut self, e: Entry) {
        if self.undo.len() >= self.undo_limit {
            self.undo.pop_front();
        }
        self.undo.push_back(e);
    }

    /// A new edit: recorded for undo (unless it changes nothing); clears redo.
    fn edit(&mut self, target: Grid, load: bool) -> Result<String, String> {
        if load {
            self.horizon = None;
        }
        if target == self.givens {
            return Ok("no change\n".into());
        }
        let back = Entry {
            givens: self.givens.clone(),
            load,
        };
        let out = self.apply(target, load)?;
        self.push_undo(back);
        self.redo.clear();
        Ok(out)
    }

    /// Makes `target` the givens, incrementally when the shape stays (retract and
    /// insert the givens that differ, one commit), and describes what changed.
    fn apply(&mut self, target: Grid, load: bool) -> Result<String, String> {
        if load {
            self.horizon = None;
        }
        // What was shown before, resolved against the state before the commit.
        let before = self.visible(self.horizon);
        move_givens(&mut self.board, &self.givens, &target)?;
        self.givens = target;
        let commit = self.board.commit()?;
        self.last_commit = Some(commit.elapsed);
        Ok(self.describe(&commit, &before))
    }

    /// `contradiction: ...` lines when the grid (at the fixpoint) is contradictory.
    fn contradictions(&self) -> String {
        let mut out = String::new();
        if matches!(
            self.board.status(P),
            Status::Contradiction | Status::Invalid
        ) {
            let why = self.board.contradictions(P, self.notation);
            if why.is_empty() {
                out.push_str("contradiction\n");
            }
            for w in why {
                out.push_str(&format!("contradiction: {w}\n"));
            }
        }
        out
    }

    /// Events in log order (round, tier, rule, head), rendered, repeated lines of one
    /// round dropped (as `explain` prints them).
    fn render_events(&self, mut evs: Vec<Event>) -> Vec<String> {
        self.sort_log_order(&mut evs);
        let lines = evs
            .iter()
            .map(|e| (e.round, self.board.render(e, self.notation)))
            .collect();
        dedup_lines(lines)
    }

    /// The explain lines shown by `to` and not by `from` (`None`: none shown), in
    /// log order, one per line.
    fn explain_lines(&self, from: Option<&Visible>, to: &Visible) -> String {
        let evs: Vec<Event> = self
            .board
            .events()
            .into_iter()
            .filter(|e| e.head[0] == P)
            .filter(|e| to.event(e) && !from.is_some_and(|f| f.event(e)))
            .collect();
        let mut out = String::new();
        for l in self.render_events(evs) {
            out.push_str(&l);
            out.push('\n');
        }
        out
    }

    /// What horizon `h` shows in the current state of the engine.
    pub fn visible(&self, h: Option<Horizon>) -> Visible {
        let places = self.places.clone();
        let first = match h {
            Some(h) if h.placed > 0 => self
                .round_placements(h.round)
                .into_iter()
                .take(h.placed)
                .collect(),
            _ => HashSet::new(),
        };
        Visible {
            horizon: h,
            first,
            places,
        }
    }

    /// The values placed in `round`, in log order: by the (tier, rule) of the first
    /// deduction that placed them, then cell and value; values no explained rule
    /// placed come last.
    fn round_placements(&self, round: u32) -> Vec<(usize, u8)> {
        let rules = &self.board.program().rules;
        let mut keyed: BTreeMap<(usize, u8), (u32, usize)> = BTreeMap::new();
        for (row, r) in self.board.rows(self.placed, &[P]) {
            if r == round {
                keyed.insert((row[1] as usize, row[2] as u8), (u32::MAX, usize::MAX));
            }
        }
        for e in self.board.events() {
            if e.round != round || e.head[0] != P || !self.places[e.rule] {
                continue;
            }
            let cv = (e.head[1] as usize, e.head[2] as u8);
            if let Some(k) = keyed.get_mut(&cv) {
                *k = (*k).min((rules[e.rule].tier, e.rule));
            }
        }
        let mut list: Vec<((u32, usize), (usize, u8))> =
            keyed.into_iter().map(|(cv, k)| (k, cv)).collect();
        list.sort();
        list.into_iter().map(|(_, cv)| cv).collect()
    }

    /// The horizon one placed value further than `h`: the next value of `h`'s round,
    /// else the first value of the next round that places one; `None` when no value
    /// is left to show.
    fn next_horizon(&self, h: Horizon) -> Option<Horizon> {
        if self.round_placements(h.round).len() > h.placed {
            return Some(Horizon {
                round: h.round,
                placed: h.placed + 1,
            });
        }
        self.board
            .rows(self.placed, &[P])
            .into_iter()
            .map(|(_, r)| r)
            .filter(|&r| r > h.round)
            .min()
            .map(|round| Horizon { round, placed: 1 })
    }

    /// The Drools dump at the current horizon.
    fn dump_text(&self) -> String {
        let (placed, cands) = self.state();
        dump(self.givens.shape, &placed, &cands)
    }

    /// The end of `step` and `solve`: the solution's rows (`rows`) or the dump and a
    /// word on the outcome. Shown at all rounds.
    fn outcome(&self, rows: bool) -> String {
        let solved = self.board.status(P) == Status::Solved;
        let (placed, cands) = self.state_at(None);
        let shape = self.givens.shape;
        if solved && rows {
            return Grid {
                shape,
                values: placed,
            }
            .to_rows();
        }
        let mut out = dump(shape, &placed, &cands);
        out.push_str(if solved {
            "solved\n"
        } else {
            "Sorry - can't solve this grid.\n"
        });
        out
    }

    fn step(&mut self) -> Result<String, String> {
        let Some(h) = self.horizon else {
            self.horizon = Some(Horizon::GIVENS);
            return Ok("stepping from the givens\n".into());
        };
        let from = self.visible(Some(h));
        match self.next_horizon(h) {
            Some(n) => {
                self.horizon = Some(n);
                Ok(self.explain_lines(Some(&from), &self.visible(Some(n))))
            }
            None => {
                self.horizon = None;
                let mut out = self.explain_lines(Some(&from), &self.visible(None));
                out.push_str(&self.outcome(false));
                Ok(out)
            }
        }
    }

    fn solve(&mut self) -> Result<String, String> {
        let from = self.horizon.map(|h| self.visible(Some(h)));
        self.horizon = None;
        let mut out = match &from {
            Some(f) => self.explain_lines(Some(f), &self.visible(None)),
            None => String::new(),
        };
        out.push_str(&self.outcome(true));
        Ok(out)
    }

    fn validate(&mut self) -> Result<String, String> {
        if self.validator.is_none() {
            let opts = Options {
                workers: self.opts.workers,
                timely_args: self.opts.timely_args.clone(),
                explain: true,
                one_puzzle: true,
                ..Default::default()
            };
            let board = Board::new(rules::builtin(Builtin::Validate)?, &opts)?;
            self.validator = Some((board, Grid::empty(Shape::NINE)));
            let (board, held) = self.validator.as_mut().expect("just made");
            board.add(P, held)?;
        }
        let (board, held) = self.validator.as_mut().expect("made above");
        move_givens(board, held, &self.givens)?;
        *held = self.givens.clone();
        board.commit()?;
        let mut out = String::new();
        for ev in board.events() {
            out.push_str(&board.render(&ev, self.notation));
            out.push('\n');
        }
        out.push_str("Validation complete.\n");
        Ok(out)
    }
}

/// Makes `to` the givens of `board`'s puzzle, which holds `from`: the givens that
/// differ retracted and inserted, or, for a grid of another shape (a different
/// puzzle), the board reset and `to` added. Pending until the board commits.
fn move_givens(board: &mut Board, from: &Grid, to: &Grid) -> Result<(), String> {
    if from.shape != to.shape {
        board.reset()?;
        return board.add(P, to);
    }
    for (c, (&a, &b)) in from.values.iter().zip(&to.values).enumerate() {
        if a != b {
            if a != 0 {
                board.set_given(P, c, a, false)?;
            }
            if b != 0 {
                board.set_given(P, c, b, true)?;
            }
        }
    }
    Ok(())
}

/// A value typed by the user: a digit of the grid's alphabet (`7`, `A` on 16x16) or a
/// decimal number in range (`12`).
fn parse_value(text: &str, shape: Shape) -> Result<u8, String> {
    let bad = || {
        format!(
            "bad value '{}' for a {shape} grid; use 1 to {} (clear empties a cell)",
            text.escape_debug(),
            shape.size()
        )
    };
    let mut chars = text.chars();
    if let (Some(ch), None) = (chars.next(), chars.next()) {
        return parse_digit(ch, shape).ok_or_else(bad);
    }
    match text.parse::<usize>() {
        Ok(v) if (1..=shape.size()).contains(&v) => Ok(v as u8),
        _ => Err(bad()),
    }
}

/// The first puzzle a `load` argument names.
fn read_puzzle(arg: &str) -> Result<Grid, String> {
    if arg == "-" {
        return Err(
            "commands come from standard input; load a file, a puzzle string or a sample name"
                .into(),
        );
    }
    let mut items = parse_puzzle_arg(arg)?;
    if items.is_empty() {
        return Err(format!("no puzzle in '{arg}'"));
    }
    items
        .swap_remove(0)
        .map(|p| p.grid)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Beyond the limit the oldest edits are forgotten: `undo` goes back exactly
    /// `limit` edits, to the givens after the earliest one still remembered.
    #[test]
    fn undo_stops_at_its_limit() {
        let program = rules::builtin(Builtin::Fast).unwrap();
        let mut ed = Editor::with_program(
            program,
            Options::default(),
            Grid::empty(Shape::NINE),
            Notation::Rc,
        )
        .unwrap();
        ed.set_undo_limit(3);
        let mut after = Vec::new();
        for (i, cell) in ["r1c1", "r2c4", "r3c7", "r5c2", "r9c9"].iter().enumerate() {
            ed.command(&format!("set {cell} {}", i + 1)).unwrap();
            after.push(ed.givens().clone());
        }
        assert_eq!(ed.history(), (3, 0));
        for _ in 0..3 {
            ed.command("undo").unwrap();
        }
        assert_eq!(ed.givens(), &after[1]);
        assert_eq!(ed.command("undo"), Err("nothing to undo".to_string()));
        assert_eq!(ed.givens(), &after[1]);
        ed.command("redo").unwrap();
        assert_eq!(ed.givens(), &after[2]);
    }

    #[test]
    fn values() {
        assert_eq!(parse_value("7", Shape::NINE), Ok(7));
        assert_eq!(parse_value("g", Shape::SIXTEEN), Ok(16));
        assert_eq!(parse_value("12", Shape::SIXTEEN), Ok(12));
        assert!(parse_value("0", Shape::NINE).is_err());
        assert!(parse_value("10", Shape::NINE).is_err());
        assert!(parse_value("5", Shape::FOUR).is_err());
        assert!(parse_value("x", Shape::NINE).is_err());
    }

    #[test]
    fn rng_is_deterministic() {
        let (mut a, mut b) = (Rng::new(5), Rng::new(5));
        let xs: Vec<usize> = (0..20).map(|_| a.below(10)).collect();
        assert_eq!(xs, (0..20).map(|_| b.below(10)).collect::<Vec<_>>());
        assert!(xs.iter().all(|&x| x < 10));
    }
}
