//! Random edit sessions against from-scratch evaluations.
//!
//! Scripts of `set`, `clear`, `undo`, `redo`, `load` (Drools samples) and some
//! `step`/`solve` (so that edits also happen while stepping) drive an [`Editor`];
//! contradictions and conflicting givens come up often and are undone or cleared
//! again. After every command:
//!
//! * the givens equal those of a small model of the script (set / clear / load /
//!   undo / redo stacks), and the command failed exactly when the model says so;
//! * the printed diff of an edit turns the state before into the state after, at
//!   the horizon: `+`/`-` lines, `candidates` lines, new and withdrawn deductions,
//!   contradictions;
//! * the editor's grid and candidates at horizon "all" (computed from `placed`,
//!   `candidate` and `eliminated` with their rounds) equal the engine's `candidate`
//!   view;
//!
//! and the state after each command (every command in one test, a sample in the
//! longer ones; `singles.dl` and `fast.dl` too, against one fresh block) is compared with from-scratch evaluations of the same givens: a
//! fresh editor's board (its tiers stepped by the host, as the editor's are), equal
//! in everything, explain events with their rounds included; and a fresh [`Board`]
//! of one fixpoint block to which the queued states are added as separate puzzles
//! and evaluated in one commit (puzzles are independent: the rules join on the
//! puzzle id and tiers are per puzzle), comparing placed values, candidates,
//! status, contradictions and explain events with their rounds: the stepped
//! editor numbers its rounds as the block does, except after a chain that loops
//! (X-Chain, XY-Chain) is found, where one block has spent a few rounds more on the
//! chain's first links: there the events are compared without their rounds (and
//! the chains' without their reasons).
//!
//! Costs on a 2-core machine: an incremental edit takes the engine some 20-60 ms, a
//! from-scratch evaluation 0.1-0.3 s (building the dataflow dominates; batched, about
//! 60 ms a state), hence the batching and sampling, and 1000 commands in the
//! default tests (about 35 s on an idle 2-core machine); `very_long_session`
//! (ignored by default) runs 3000 more.

use std::collections::{BTreeMap, BTreeSet};

use sudolog::sudoku::board::{Board, Options, Status};
use sudolog::sudoku::edit::{random_edit_in, Editor, Horizon, Rng};
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::grid::{digit_char, parse_cell, Grid};
use sudolog::sudoku::puzzle::parse_text;
use sudolog::sudoku::rules::{builtin, from_files, load_split, Builtin};
use sudolog::sudoku::samples::{sample, DROOLS_MENU, SAMPLES};

const D: Notation = Notation::Drools;

fn sample_grid(name: &str) -> Grid {
    parse_text(name, sample(name).unwrap())
        .remove(0)
        .unwrap()
        .grid
}

/// An explain event without its puzzle id: (rule, round, head after p, bindings).
type Ev = (usize, u32, Vec<i32>, Vec<i32>);

/// What a from-scratch evaluation must reproduce.
#[derive(Clone, Debug, PartialEq)]
struct Snapshot {
    givens: Grid,
    placed: Vec<u8>,
    cands: Vec<Vec<u8>>,
    status: Status,
    contradictions: Vec<String>,
    events: Vec<Ev>,
}

fn events_of(board: &Board, p: i32) -> Vec<Ev> {
    let mut v: Vec<Ev> = board
        .events()
        .into_iter()
        .filter(|e| e.head[0] == p)
        .map(|e| (e.rule, e.round, e.head[1..].to_vec(), e.bindings))
        .collect();
    v.sort();
    v
}

fn snapshot(ed: &Editor) -> Snapshot {
    let (placed, cands) = ed.state_at(None);
    Snapshot {
        givens: ed.givens().clone(),
        placed,
        cands,
        status: ed.board().status(0),
        contradictions: ed.board().contradictions(0, D),
        events: events_of(ed.board(), 0),
    }
}

/// The snapshot of puzzle `p` of `board`, for `givens`.
fn fresh_snapshot(board: &Board, p: i32, givens: &Grid) -> Snapshot {
    let v = board.view(p).unwrap();
    Snapshot {
        givens: givens.clone(),
        placed: v.placed,
        cands: v.candidates,
        status: board.status(p),
        contradictions: board.contradictions(p, D),
        events: events_of(board, p),
    }
}

/// The rules of the tiers whose chains loop (a fixpoint block in their tier's
/// program).
fn chain_rules() -> Vec<bool> {
    let (program, split) = load_split(&[], Builtin::Full).unwrap();
    let split = split.expect("the full rules split");
    let looping: Vec<u32> = (split.tiers.iter())
        .filter(|t| t.program().unwrap().blocks.iter().any(|b| b.explicit))
        .map(|t| t.tier)
        .collect();
    assert!(!looping.is_empty(), "the chains loop in their tiers");
    (program.rules.iter())
        .map(|r| looping.contains(&r.tier))
        .collect()
}

/// Where a looping chain's deductions come in (`chains`), one block spends a few
/// rounds more on a chain's first links than the stepped tier, whose block starts
/// from them: from there on its rounds differ, and a chain's reason may be another
/// chain (the block's may be longer). There `s` and `fresh` are compared with their
/// events' rounds and the chains' reasons left out (rules and facts must agree, and
/// the other deductions' reasons).
fn without_chain_rounds(s: &Snapshot, chains: &[bool]) -> Snapshot {
    let mut s = s.clone();
    if s.events.iter().any(|e| chains[e.0]) {
        for e in &mut s.events {
            e.1 = 0;
            if chains[e.0] {
                e.3.clear();
            }
        }
        s.events.sort();
    }
    s
}

/// Evaluates every snapshot's givens from scratch and compares: on a fresh editor's
/// board (one puzzle, its tiers stepped), everything; on one fresh board of one
/// fixpoint block (puzzle `i` for the `i`-th), everything but the rounds and
/// reasons of a grid whose deductions include a looping chain's.
fn check_from_scratch(rules: &Rules, batch: &[(usize, String, Snapshot)]) {
    if batch.is_empty() {
        return;
    }
    let Rules::Full = rules else {
        return check_one_block(rules, batch);
    };
    let (program, split) = load_split(&[], Builtin::Full).unwrap();
    for (step, cmd, s) in batch {
        let opts = Options {
            candidates: true,
            eliminations: true,
            explain: true,
            one_puzzle: true,
            stepped: split.clone(),
            ..Default::default()
        };
        let mut board = Board::new(program.clone(), &opts).unwrap();
        assert!(board.tier_steps().is_some(), "the tiers are stepped");
        board.add(0, &s.givens).unwrap();
        board.commit().unwrap();
        let fresh = fresh_snapshot(&board, 0, &s.givens);
        assert_eq!(
            &fresh, s,
            "after command {step} ({cmd}): the session differs from a fresh stepped one"
        );
    }
    let chains = chain_rules();
    let opts = Options {
        candidates: true,
        eliminations: true,
        explain: true,
        ..Default::default()
    };
    let mut board = Board::new(builtin(Builtin::Full).unwrap(), &opts).unwrap();
    for (i, (_, _, s)) in batch.iter().enumerate() {
        board.add(i as i32, &s.givens).unwrap();
    }
    board.commit().unwrap();
    for (i, (step, cmd, s)) in batch.iter().enumerate() {
        let p = i as i32;
        let fresh = fresh_snapshot(&board, p, &s.givens);
        let (s, fresh) = (
            without_chain_rounds(s, &chains),
            without_chain_rounds(&fresh, &chains),
        );
        if fresh != s {
            let cells: Vec<usize> = (0..81)
                .filter(|&c| fresh.placed[c] != s.placed[c] || fresh.cands[c] != s.cands[c])
                .collect();
            panic!(
                "after command {step} ({cmd}) on {}: the session differs from a from-scratch \
                 evaluation (cells {cells:?})\nsession: {s:?}\nfresh:   {fresh:?}",
                s.givens
            );
        }
    }
}

/// For a rule set of one block and no tiers: the session's states against a fresh
/// board of the same program holding them all as separate puzzles (one commit),
/// explain events with their rounds included.
fn check_one_block(rules: &Rules, batch: &[(usize, String, Snapshot)]) {
    let opts = Options {
        candidates: true,
        eliminations: true,
        explain: true,
        ..Default::default()
    };
    let mut board = Board::new(rules.program(), &opts).unwrap();
    for (i, (_, _, s)) in batch.iter().enumerate() {
        board.add(i as i32, &s.givens).unwrap();
    }
    board.commit().unwrap();
    for (i, (step, cmd, s)) in batch.iter().enumerate() {
        let fresh = fresh_snapshot(&board, i as i32, &s.givens);
        assert_eq!(
            &fresh, s,
            "{rules:?}, after command {step} ({cmd}): the session differs from a fresh board"
        );
    }
}

/// The rules an editing session runs.
#[derive(Debug)]
enum Rules {
    /// The built-in rules, their tiers stepped by the host (as `sudolog edit`).
    Full,
    /// A rule program of one fixpoint block (`--rules`).
    Block(&'static str),
}

impl Rules {
    fn program(&self) -> std::sync::Arc<sudolog::check::ir::Program> {
        match self {
            Rules::Full => builtin(Builtin::Full).unwrap(),
            Rules::Block(path) => from_files(&[path.to_string()]).unwrap(),
        }
    }

    fn editor(&self, grid: Grid) -> Editor {
        match self {
            Rules::Full => Editor::new(grid, D).unwrap(),
            Rules::Block(_) => {
                Editor::with_program(self.program(), Options::default(), grid, D).unwrap()
            }
        }
    }
}

/// The givens an edit script should lead to: a model of set/clear/load/undo/redo.
struct Model {
    givens: Grid,
    undo: Vec<Grid>,
    redo: Vec<Grid>,
}

impl Model {
    /// Applies `cmd`; `false` if the editor must reject it.
    fn apply(&mut self, cmd: &str) -> bool {
        let w: Vec<&str> = cmd.split_whitespace().collect();
        let shape = self.givens.shape;
        let target = match w[..] {
            ["set", c, v] => {
                let mut g = self.givens.clone();
                g.values[parse_cell(c, shape).unwrap()] = v.parse().unwrap();
                g
            }
            ["clear", c] => {
                let c = parse_cell(c, shape).unwrap();
                if self.givens.values[c] == 0 {
                    return false;
                }
                let mut g = self.givens.clone();
                g.values[c] = 0;
                g
            }
            ["load", name] => sample_grid(name),
            ["undo"] => {
                let Some(g) = self.undo.pop() else {
                    return false;
                };
                self.redo.push(std::mem::replace(&mut self.givens, g));
                return true;
            }
            ["redo"] => {
                let Some(g) = self.redo.pop() else {
                    return false;
                };
                self.undo.push(std::mem::replace(&mut self.givens, g));
                return true;
            }
            _ => return true,
        };
        if target != self.givens {
            self.undo.push(std::mem::replace(&mut self.givens, target));
            self.redo.clear();
        }
        true
    }
}

/// The visible state at a horizon, as the diff talks about it.
struct Seen {
    placed: BTreeSet<(usize, u8)>,
    open: Vec<bool>,
    cands: Vec<Vec<u8>>,
    /// Rendered explain lines, keyed by (rule, head, the explanation's bindings)
    /// (rounds ignored; an `@hint` binding that changes alone changes no line).
    events: BTreeMap<(usize, Vec<i32>, Vec<i32>), String>,
}

fn seen(ed: &Editor, h: Option<Horizon>) -> Seen {
    let vis = ed.visible(h);
    let b = ed.board();
    let placed = b
        .session()
        .rows_with_prefix(b.rels.placed.unwrap(), &[0])
        .into_iter()
        .filter(|(row, r)| vis.fact(true, row[1] as usize, row[2] as u8, *r))
        .map(|(row, _)| (row[1] as usize, row[2] as u8))
        .collect();
    let (values, cands) = ed.state_at(h);
    let events = b
        .events()
        .into_iter()
        .filter(|e| e.head[0] == 0 && vis.event(e))
        .map(|e| {
            let line = b.render(&e, D);
            let n = b.program().rules[e.rule].explain_vars().len();
            ((e.rule, e.head, e.bindings[..n].to_vec()), line)
        })
        .collect();
    Seen {
        placed,
        open: values.iter().map(|&v| v == 0).collect(),
        cands,
        events,
    }
}

/// Checks an edit's output against the states before and after it.
fn check_diff(ed: &Editor, before: &Seen, after: &Seen, out: &str, cmd: &str) {
    let name = |c: usize| D.cell(ed.givens().shape, c);
    let mut want: Vec<String> = Vec::new();
    for (c, v) in after.placed.difference(&before.placed) {
        want.push(format!("+ {} = {}", name(*c), digit_char(*v)));
    }
    for (c, v) in before.placed.difference(&after.placed) {
        want.push(format!("- {} = {}", name(*c), digit_char(*v)));
    }
    for c in 0..after.open.len() {
        if !after.open[c] {
            continue;
        }
        let (b, a) = (&before.cands[c], &after.cands[c]);
        let removed: Vec<String> = b
            .iter()
            .filter(|v| !a.contains(v))
            .map(|v| format!(" -{v}"))
            .collect();
        let restored: Vec<String> = a
            .iter()
            .filter(|v| !b.contains(v))
            .map(|v| format!(" +{v}"))
            .collect();
        if !removed.is_empty() || !restored.is_empty() {
            want.push(format!(
                "candidates {}:{}{}",
                name(c),
                removed.concat(),
                restored.concat()
            ));
        }
    }
    let lines: Vec<&str> = out.lines().collect();
    let n = want.len();
    assert_eq!(
        lines[..n.min(lines.len())]
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
        want,
        "{cmd}: cells and candidates\n{out}"
    );
    let mut rest = &lines[n.min(lines.len())..];
    let broken = matches!(
        ed.board().status(0),
        Status::Contradiction | Status::Invalid
    );
    let why: Vec<String> = if broken {
        ed.board()
            .contradictions(0, D)
            .into_iter()
            .map(|w| format!("contradiction: {w}"))
            .collect()
    } else {
        Vec::new()
    };
    let k = rest.len().saturating_sub(why.len());
    assert_eq!(rest[k..].to_vec(), why, "{cmd}: contradictions\n{out}");
    rest = &rest[..k];
    let new: BTreeSet<&str> = after
        .events
        .iter()
        .filter(|(key, _)| !before.events.contains_key(*key))
        .map(|(_, l)| l.as_str())
        .collect();
    let gone: BTreeSet<String> = before
        .events
        .iter()
        .filter(|(key, _)| !after.events.contains_key(*key))
        .map(|(_, l)| format!("withdrawn: {l}"))
        .collect();
    let split = rest
        .iter()
        .position(|l| l.starts_with("withdrawn: "))
        .unwrap_or(rest.len());
    let got_new: BTreeSet<&str> = rest[..split].iter().copied().collect();
    let got_gone: BTreeSet<String> = rest[split..].iter().map(|s| s.to_string()).collect();
    if n == 0 && why.is_empty() && new.is_empty() && gone.is_empty() {
        assert_eq!(out, "no change\n", "{cmd}");
        return;
    }
    assert_eq!(got_new, new, "{cmd}: new deductions\n{out}");
    assert_eq!(got_gone, gone, "{cmd}: withdrawn deductions\n{out}");
}

/// Runs `n` random commands from `seed`, keeping 22..=45 givens or `band`; checks
/// every command as described in the module docs, and queues every `every`-th
/// state for a from-scratch check in batches of `batch`. Returns the number of
/// from-scratch checks.
fn session(seed: u64, n: usize, band: (usize, usize), every: usize, batch: usize) -> usize {
    session_with(Rules::Full, seed, n, band, every, batch)
}

/// As [`session`], over `rules`.
fn session_with(
    rules: Rules,
    seed: u64,
    n: usize,
    band: (usize, usize),
    every: usize,
    batch: usize,
) -> usize {
    let mut rng = Rng::new(seed);
    let (first, _, _) = SAMPLES[rng.below(DROOLS_MENU)];
    let grid = sample_grid(first);
    let mut ed = rules.editor(grid.clone());
    let mut model = Model {
        givens: grid,
        undo: Vec::new(),
        redo: Vec::new(),
    };
    let mut queue: Vec<(usize, String, Snapshot)> = Vec::new();
    let mut checked = 0;
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut broken = 0;
    for step in 0..n {
        let roll = rng.below(100);
        let cmd = if roll < 5 {
            "step".to_string()
        } else if roll < 6 {
            "solve".to_string()
        } else {
            random_edit_in(&mut rng, &ed, band)
        };
        let h_before = ed.horizon();
        let before = seen(&ed, h_before);
        let before_all = seen(&ed, None);
        let ok = model.apply(&cmd);
        let result = ed.command(&cmd);
        assert_eq!(result.is_ok(), ok, "command {step} ({cmd}): {result:?}");
        assert_eq!(ed.givens(), &model.givens, "command {step} ({cmd})");
        let word = cmd.split_whitespace().next().unwrap().to_string();
        *kinds
            .entry(if result.is_ok() {
                word.clone()
            } else {
                format!("{word} (error)")
            })
            .or_default() += 1;
        let out = result.unwrap_or_default();
        if ok && ["set", "clear", "load", "undo", "redo"].contains(&word.as_str()) {
            let h = ed.horizon();
            let before = if h == h_before { &before } else { &before_all };
            check_diff(&ed, before, &seen(&ed, h), &out, &cmd);
        }
        if word == "solve" {
            let solved = ed.board().status(0) == Status::Solved;
            assert_eq!(
                out.ends_with("Sorry - can't solve this grid.\n"),
                !solved,
                "{out}"
            );
        }
        if matches!(
            ed.board().status(0),
            Status::Contradiction | Status::Invalid
        ) {
            broken += 1;
        }
        // The editor's grid and candidates equal the engine's views.
        let (placed, cands) = ed.state_at(None);
        let v = ed.board().view(0).unwrap();
        assert_eq!(
            (&placed, &cands),
            (&v.placed, &v.candidates),
            "command {step} ({cmd})"
        );
        if step % every == 0 {
            queue.push((step, cmd.clone(), snapshot(&ed)));
            if queue.len() >= batch {
                check_from_scratch(&rules, &queue);
                checked += queue.len();
                queue.clear();
            }
        }
    }
    check_from_scratch(&rules, &queue);
    checked += queue.len();
    eprintln!(
        "{rules:?}, seed {seed}: {n} commands {kinds:?}, {broken} in contradictory states, \
         {checked} checked from scratch"
    );
    // The scripts did what they are meant to: edits of every kind, contradictions.
    for k in ["set", "clear", "undo", "redo"] {
        assert!(kinds.get(k).copied().unwrap_or(0) > 0, "no successful {k}");
    }
    assert!(broken > 0, "no contradiction");
    checked
}

#[test]
fn every_command_against_a_fresh_board() {
    let checked = session(11, 60, (22, 45), 1, 25);
    assert_eq!(checked, 60);
}

#[test]
fn long_session_sampled() {
    session(12, 150, (30, 55), 10, 25);
}

#[test]
fn long_session_many_givens() {
    session(13, 150, (50, 75), 10, 25);
}

#[test]
fn long_session_other_samples() {
    session(14, 120, (40, 65), 10, 25);
}

/// The lighter rule sets strike the givens' values before their block, outside
/// `eliminated`: the editor's pencil marks and its `candidates` lines must still
/// follow the `candidate` view, while stepping too.
#[test]
fn sessions_over_singles_and_fast() {
    for (rules, seed) in [
        (Rules::Block("datalog/singles.dl"), 21),
        (Rules::Block("datalog/fast.dl"), 22),
    ] {
        session_with(rules, seed, 200, (22, 45), 5, 40);
    }
}

/// A longer run for when there is time: `cargo test --release --test suite edit_property
/// -- --ignored` (a few minutes).
#[test]
#[ignore]
fn very_long_session() {
    session(15, 3000, (25, 60), 10, 25);
}
