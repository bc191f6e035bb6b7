//! Search on top of the rules, the IBM article's hybrid, as batches of instances.
//!
//! A search *node* is a puzzle instance of its own: its givens are its parent's
//! placements, plus one `guess(p, c, v)` fact. When the rules stall on a node that is
//! neither solved nor contradictory, the rule program's `choice_value` view names the
//! most promising cell (fewest candidates; on ties the most open peers, then the fewest
//! candidates among them, then the lowest cell: aggregates in `datalog/status.dl`) and
//! its candidates; each candidate becomes a child node. The host never reasons about
//! the grid: it reads each node's status, placements and choice, and inserts facts.
//! [`super::batch`] evaluates nodes of many puzzles together, one fresh dataflow per
//! batch with inserts only; [`explain`] walks one puzzle's nodes depth first, to print
//! the reasoning in order.

use std::collections::HashSet;
use std::sync::Arc;

use super::board::{Board, Start, Status, View};
use super::explain::{dedup_lines, Notation};
use super::grid::{Grid, Shape};
use crate::check::ir::Value;

/// How far to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// Guess when the rules stall (`--no-search` turns it off).
    pub search: bool,
    /// Stop at the first solution instead of looking for a second (`--first`).
    pub first: bool,
    /// Guess at most this many levels deep (`--max-depth`); a puzzle whose search
    /// would go deeper ends `depth-limit`.
    pub max_depth: Option<u32>,
}

impl Default for Mode {
    fn default() -> Self {
        Mode {
            search: true,
            first: false,
            max_depth: None,
        }
    }
}

/// The final word on a puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Solved,
    /// More than one solution; the first (in depth-first order) is reported.
    Multiple,
    /// Logic finished with cells open and search was off.
    Stalled,
    /// Conflicting givens.
    Invalid,
    /// Valid givens, no solution.
    Unsolvable,
    /// The search needed a guess deeper than `--max-depth` and found no answer
    /// within it (no second solution; with `--first`, no first one).
    DepthLimit,
}

impl Outcome {
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Solved => "solved",
            Outcome::Multiple => "multiple",
            Outcome::Stalled => "stalled",
            Outcome::Invalid => "invalid",
            Outcome::Unsolvable => "unsolvable",
            Outcome::DepthLimit => "depth-limit",
        }
    }
}

/// One search node: which puzzle, how deep, and the facts that make the instance.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    /// The puzzle's key in its solver.
    pub puzzle: usize,
    /// Guesses on the way here (0 at the root).
    pub depth: u32,
    /// The values guessed on the way here, root first: ordering solutions by it gives
    /// depth-first order, whatever order the nodes were evaluated in.
    pub path: Vec<u8>,
    /// Given values: the parent's placements (the puzzle's givens at the root).
    pub base: Arc<Grid>,
    /// The guess that makes this node: cell and value.
    pub guess: Option<(usize, u8)>,
    /// The candidates it starts from: its parent's last (when the board inherits
    /// them), else those its givens leave.
    pub start: Option<Start>,
}

impl Node {
    pub fn root(puzzle: usize, grid: Grid) -> Node {
        Node {
            puzzle,
            depth: 0,
            path: Vec::new(),
            base: Arc::new(grid),
            guess: None,
            start: None,
        }
    }

    /// Inserts the node's facts under instance id `p` (pending until commit).
    pub fn insert(&self, board: &mut Board, p: Value) -> Result<(), String> {
        board.add(p, &self.base)?;
        if let Some(start) = &self.start {
            board.set_start(p, start)?;
        }
        if let Some((c, v)) = self.guess {
            board.set_guess(p, c, v, true)?;
        }
        Ok(())
    }

    /// The children of a stalled node: one per candidate of the chosen cell, each
    /// starting from `start` when given (the node's last candidates).
    fn children(
        &self,
        placed: &Arc<Grid>,
        cell: usize,
        values: &[u8],
        start: Option<Start>,
    ) -> Vec<Node> {
        values
            .iter()
            .map(|&v| {
                let mut path = self.path.clone();
                path.push(v);
                Node {
                    puzzle: self.puzzle,
                    depth: self.depth + 1,
                    path,
                    base: placed.clone(),
                    guess: Some((cell, v)),
                    start: start.clone(),
                }
            })
            .collect()
    }
}

/// What the rules concluded about one node, read after its batch's commit.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// Conflicting givens (only a root can be invalid).
    Invalid(View),
    Solved(View),
    Contradiction,
    /// Cells open: the view, the chosen cell and its candidates (None when the
    /// board does not search: see [`Board::searches`]), and the candidates its
    /// children start from (None unless the board inherits: [`Board::carried`]).
    Stalled(View, Option<(usize, Vec<u8>)>, Option<Start>),
}

impl Verdict {
    /// Reads instance `p`'s status, view and choice.
    pub fn read(board: &Board, p: Value) -> Result<Verdict, String> {
        let status = board.status(p);
        if status == Status::Contradiction {
            return Ok(Verdict::Contradiction);
        }
        let view = board.view(p).ok_or("unknown search node")?;
        Ok(match status {
            Status::Invalid => Verdict::Invalid(view),
            Status::Solved => Verdict::Solved(view),
            Status::Contradiction => Verdict::Contradiction,
            Status::Stalled if !board.searches() => Verdict::Stalled(view, None, None),
            Status::Stalled => match board.choice(p) {
                Some(choice) => Verdict::Stalled(view, Some(choice), board.carried(p)),
                // No open cell with candidates: a dead end.
                None => Verdict::Contradiction,
            },
        })
    }
}

/// One puzzle's search so far: its answers and counts.
#[derive(Debug)]
pub(crate) struct Tally {
    mode: Mode,
    /// Solutions found with their paths (the two first in depth-first order are kept).
    solutions: Vec<(Vec<u8>, Grid)>,
    /// How many solutions were found.
    pub found: u32,
    /// The grid as the rules left the root.
    pub root: Option<Grid>,
    pub root_rounds: u32,
    pub guesses: u32,
    /// Nodes that ended in a contradiction.
    pub backtracks: u32,
    pub max_depth: u32,
    /// A node needed a guess deeper than the mode allows.
    limited: bool,
    /// Nodes created and not yet evaluated.
    pub open: usize,
    pub outcome: Option<Outcome>,
}

impl Tally {
    pub fn new(mode: Mode) -> Tally {
        Tally {
            mode,
            solutions: Vec::new(),
            found: 0,
            root: None,
            root_rounds: 0,
            guesses: 0,
            backtracks: 0,
            max_depth: 0,
            limited: false,
            open: 1,
            outcome: None,
        }
    }

    /// Takes one evaluated node's verdict; returns its children (to be evaluated).
    /// Sets the outcome once the puzzle is decided.
    pub fn absorb(&mut self, node: &Node, verdict: Verdict) -> Vec<Node> {
        self.open -= 1;
        if self.outcome.is_some() {
            return Vec::new();
        }
        if node.depth == 0 {
            if let Verdict::Invalid(v) | Verdict::Solved(v) | Verdict::Stalled(v, ..) = &verdict {
                self.root = Some(v.grid());
                self.root_rounds = v.rounds;
            }
        }
        self.max_depth = self.max_depth.max(node.depth);
        let mut children = Vec::new();
        match verdict {
            Verdict::Invalid(_) if node.depth == 0 => self.outcome = Some(Outcome::Invalid),
            Verdict::Invalid(_) | Verdict::Contradiction => self.backtracks += 1,
            Verdict::Solved(v) => {
                self.found += 1;
                self.solutions.push((node.path.clone(), v.grid()));
                self.solutions.sort_by(|a, b| a.0.cmp(&b.0));
                self.solutions.truncate(2);
            }
            // Without search (or a board that reports no choice) a stall is final.
            Verdict::Stalled(v, choice, start) => match choice.filter(|_| self.mode.search) {
                None => self.outcome = Some(Outcome::Stalled),
                Some(_) if self.mode.max_depth.is_some_and(|m| node.depth >= m) => {
                    self.limited = true
                }
                Some((cell, values)) => {
                    children = node.children(&Arc::new(v.grid()), cell, &values, start);
                    self.guesses += children.len() as u32;
                    self.open += children.len();
                }
            },
        }
        let enough = if self.mode.first { 1 } else { 2 };
        if self.outcome.is_none() && (self.found >= enough || self.open == 0) {
            self.outcome = Some(self.conclusion());
        }
        if self.outcome.is_some() {
            children.clear();
        }
        children
    }

    fn conclusion(&self) -> Outcome {
        match self.found {
            n if n >= 2 => Outcome::Multiple,
            1 if self.mode.first || !self.limited => Outcome::Solved,
            _ if self.limited => Outcome::DepthLimit,
            _ => Outcome::Unsolvable,
        }
    }

    /// The grid to print: the first solution, or where the rules left the root.
    pub fn grid(&self) -> Option<&Grid> {
        self.solutions.first().map(|s| &s.1).or(self.root.as_ref())
    }
}

/// How `explain` ended: the outcome, the first solution, and the root as the rules
/// left it (with candidates when the board observes them).
pub struct Explained {
    pub outcome: Outcome,
    pub solution: Option<Grid>,
    pub root: Option<View>,
}

/// One node on the explain walk's path: the cell guessed below it and the lines it
/// printed (a descendant does not repeat them).
struct Frame {
    node: Node,
    placed: Arc<Grid>,
    cell: usize,
    values: Vec<u8>,
    next: usize,
    said: HashSet<String>,
}

/// The line for a solution the walk just found below the root (none for the second:
/// `multiple solutions` ends the walk).
fn say_found(tally: &Tally, mode: Mode, say: &mut dyn FnMut(&str)) {
    match tally.outcome {
        None => say("solution found; looking for another"),
        // The second: `multiple solutions` below.
        Some(Outcome::Multiple) => {}
        Some(Outcome::Solved) if !mode.first => say("solution found; no branch left to search"),
        // With `--first`, or beside branches cut at the depth limit.
        Some(_) => say("solution found"),
    }
}

/// The walk's next node: the next value of the deepest frame with one left (its
/// `guess` line said), after `backtrack from` for each exhausted frame popped on the
/// way. `None` when the path is empty.
fn next_sibling(
    path: &mut Vec<Frame>,
    shape: Shape,
    notation: Notation,
    say: &mut dyn FnMut(&str),
) -> Option<Node> {
    loop {
        let top = path.last_mut()?;
        if top.next < top.values.len() {
            let v = top.values[top.next];
            top.next += 1;
            say(&format!(
                "guess {} at {} ({} candidates, depth {})",
                v,
                notation.cell(shape, top.cell),
                top.values.len(),
                top.node.depth + 1
            ));
            return Some(
                top.node
                    .children(&top.placed, top.cell, &[v], None)
                    .remove(0),
            );
        }
        let done = path.pop().expect("a frame");
        say(&format!(
            "backtrack from {}",
            notation.cell(shape, done.cell)
        ));
    }
}

/// Evaluates one node alone (a fresh dataflow) and returns its verdict and its
/// deductions in log order, less those its ancestors printed and the event that
/// restates its guess.
fn evaluate_alone(
    board: &mut Board,
    node: &Node,
    path: &[Frame],
    notation: Notation,
) -> Result<(Verdict, Vec<String>), String> {
    board.reset()?;
    node.insert(board, 0)?;
    board.commit()?;
    let mut lines = Vec::new();
    for ev in board.events() {
        if node
            .guess
            .is_some_and(|(c, v)| ev.head == [0, c as Value, v as Value])
        {
            continue;
        }
        let line = board.render(&ev, notation);
        if !path.iter().any(|f| f.said.contains(&line)) {
            lines.push((ev.round, line));
        }
    }
    Ok((Verdict::read(board, 0)?, dedup_lines(lines)))
}

/// Explains one puzzle: the rules' deductions, then a depth-first walk of its search
/// nodes, each evaluated alone, in order: `guess v at c (k candidates, depth d)`
/// once per guess, the deductions it led to, `contradiction: ...`, `backtrack from
/// c`, `solution found; looking for another` (`; no branch left to search` when it
/// was the last; alone with `--first` or beside a depth limit), and `multiple
/// solutions` when a second one turns up. Lines go to `say` as they happen.
pub fn explain(
    board: &mut Board,
    grid: &Grid,
    mode: Mode,
    notation: Notation,
    say: &mut dyn FnMut(&str),
) -> Result<Explained, String> {
    let shape = grid.shape;
    let mut tally = Tally::new(mode);
    let mut path: Vec<Frame> = Vec::new();
    let mut root_view = None;
    let mut node = Node::root(0, grid.clone());
    loop {
        let (verdict, lines) = evaluate_alone(board, &node, &path, notation)?;
        for l in &lines {
            say(l);
        }
        if node.depth == 0 {
            if let Verdict::Invalid(v) | Verdict::Solved(v) | Verdict::Stalled(v, ..) = &verdict {
                root_view = Some(v.clone());
            }
        }
        let before = tally.found;
        let stalled = match &verdict {
            Verdict::Stalled(v, Some((c, vals)), _) => Some((Arc::new(v.grid()), *c, vals.clone())),
            _ => None,
        };
        if let Verdict::Contradiction = verdict {
            for why in board.contradictions(0, notation) {
                say(&format!("contradiction: {why}"));
            }
        }
        let children = tally.absorb(&node, verdict);
        match stalled {
            Some((placed, cell, values)) if !children.is_empty() => path.push(Frame {
                node: node.clone(),
                placed,
                cell,
                values,
                next: 0,
                said: lines.into_iter().collect(),
            }),
            Some((_, cell, _)) if mode.search => say(&format!(
                "depth limit {}: {} would need a guess at depth {}",
                node.depth,
                notation.cell(shape, cell),
                node.depth + 1
            )),
            _ if tally.found > before && node.depth > 0 => say_found(&tally, mode, say),
            _ => {}
        }
        if tally.outcome.is_some() {
            break;
        }
        let next = next_sibling(&mut path, shape, notation, say);
        match next {
            Some(child) => node = child,
            None => break,
        }
    }
    let outcome = tally.outcome.unwrap_or(Outcome::Stalled);
    if outcome == Outcome::Multiple {
        say("multiple solutions");
    }
    Ok(Explained {
        outcome,
        solution: tally.solutions.first().map(|s| s.1.clone()),
        root: root_view,
    })
}
