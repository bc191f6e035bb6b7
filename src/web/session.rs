//! One board session: an [`Editor`] on its own thread, driven over a channel.
//!
//! In: [`Request`]s with a reply channel. Out: the [`Reply`]s for each: a diff of
//! what the command changed against what the page was last sent (cells, log lines
//! new / withdrawn, contradictions, buttons, caption), or a whole `state` after a
//! load or a sync. The engine's session owns timely worker threads; it is made,
//! used and dropped on this one thread and never crosses threads.

use std::collections::HashSet;
use std::sync::mpsc;
use std::sync::Arc;

use tokio::sync::oneshot;

use super::protocol::{Buttons, Caption, CellView, Contradiction, Line, Reply, Request};
use crate::check::ir::Program;
use crate::check::split::TierSplit;
use crate::sudoku::batch::solve_chunk;
use crate::sudoku::board::{Board, Options, Status};
use crate::sudoku::edit::{Editor, LogLine};
use crate::sudoku::explain::Notation;
use crate::sudoku::grid::{digit_char, Grid, Layout};
use crate::sudoku::puzzle::{parse_text, Puzzle};
use crate::sudoku::samples::{sample, SAMPLES};
use crate::sudoku::search::{Mode, Outcome};

/// A request and where its replies go.
pub(crate) type Job = (Request, oneshot::Sender<Vec<Reply>>);

/// Starts a session thread over `program` with `grid`, stepping from its givens.
/// Out: the sender for its jobs; the thread ends when every sender is dropped.
pub(crate) fn spawn(
    program: Arc<Program>,
    split: Option<Arc<TierSplit>>,
    grid: Grid,
) -> std::io::Result<mpsc::Sender<Job>> {
    let (tx, rx) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("board-session".into())
        .spawn(move || run(program, split, grid, rx))?;
    Ok(tx)
}

fn run(program: Arc<Program>, split: Option<Arc<TierSplit>>, grid: Grid, rx: mpsc::Receiver<Job>) {
    let mut state = match BoardState::new(program, split, grid) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("sudolog serve: cannot start a session: {e}");
            None
        }
    };
    while let Ok((req, reply)) = rx.recv() {
        let out = match state.as_mut() {
            Some(s) => s.handle(req),
            None => vec![Reply::Error {
                message: "the engine could not start for this session".into(),
            }],
        };
        // The page may have gone away meanwhile: nothing to do then.
        let _ = reply.send(out);
    }
}

/// The editor and what the page was last sent.
struct BoardState {
    ed: Editor,
    cells: Vec<CellView>,
    /// The log as the page shows it (withdrawn lines included).
    log: Vec<Line>,
    /// The rule program, for the search board.
    program: Arc<Program>,
    /// Where Solve searches when the rules stall: the batched search on a batch
    /// dataflow of its own (made on first use).
    searcher: Option<Board>,
    /// The solution Solve's search found for the current givens, shown over the
    /// rules' fixpoint until the next edit.
    searched: Option<Grid>,
}

impl BoardState {
    /// A session on `program`, its tiers stepped when `split` is given.
    fn new(
        program: Arc<Program>,
        split: Option<Arc<TierSplit>>,
        grid: Grid,
    ) -> Result<BoardState, String> {
        let opts = Options {
            stepped: split,
            ..Options::default()
        };
        let mut ed = Editor::with_program(program.clone(), opts, grid, Notation::Drools)?;
        ed.rewind();
        let mut s = BoardState {
            ed,
            cells: Vec::new(),
            log: Vec::new(),
            program,
            searcher: None,
            searched: None,
        };
        s.cells = s.cell_views();
        s.log = s.ed.log().into_iter().map(line).collect();
        Ok(s)
    }

    /// Runs one request. A failed command answers an `error` and changes nothing.
    fn handle(&mut self, req: Request) -> Vec<Reply> {
        let shape = self.ed.givens().shape;
        let cell_ok = |c: usize| {
            (c < shape.cells())
                .then_some(())
                .ok_or_else(|| format!("no cell {c} on a {shape} grid"))
        };
        // A search's solution stands until something changes the board.
        let keeps = matches!(
            req,
            Request::Sync | Request::Solve | Request::Hint | Request::Dump | Request::Validate
        );
        if !keeps {
            self.searched = None;
        }
        let result: Result<Vec<Reply>, String> = match req {
            Request::Sync => Ok(vec![self.state(String::new())]),
            Request::Set { cell, value } => cell_ok(cell).and_then(|()| {
                if value == 0 || value as usize > shape.size() {
                    return Err(format!(
                        "bad value {value} for a {shape} grid; use 1 to {}",
                        shape.size()
                    ));
                }
                let (r, c) = (cell / shape.size(), cell % shape.size());
                self.command(&format!("set [{r},{c}] {}", digit_char(value)))
            }),
            Request::Clear { cell } => cell_ok(cell).and_then(|()| {
                let (r, c) = (cell / shape.size(), cell % shape.size());
                self.command(&format!("clear [{r},{c}]"))
            }),
            Request::Empty => {
                let text = self.ed.load_grid(Grid::empty(shape));
                text.map(|t| vec![self.diff(t)])
            }
            Request::Sample { name } => match sample(&name) {
                Some(text) => self.open(&name, text),
                None => Err(format!("no sample called '{name}'")),
            },
            Request::Open { text } => self.open("<opened>", &text),
            Request::Step => self.command("step"),
            Request::Solve => self.solve(),
            Request::Undo => self.command("undo"),
            Request::Redo => self.command("redo"),
            Request::Hint => Ok(vec![Reply::Hint {
                line: self.ed.hint().map(line),
            }]),
            Request::Dump => self
                .ed
                .command("dump")
                .map(|text| vec![Reply::Dump { text }]),
            Request::Validate => self.ed.command("validate").map(|text| {
                vec![Reply::Validate {
                    lines: text.lines().map(str::to_string).collect(),
                }]
            }),
        };
        result.unwrap_or_else(|message| vec![Reply::Error { message }])
    }

    /// An editing command; its diff.
    fn command(&mut self, cmd: &str) -> Result<Vec<Reply>, String> {
        let text = self.ed.command(cmd)?;
        Ok(vec![self.diff(text)])
    }

    /// Solve: the rules to their fixpoint, then, where they stall, the batched
    /// search (issue 11's, the engine deciding every step) for the solution.
    fn solve(&mut self) -> Result<Vec<Reply>, String> {
        let mut text = self.ed.command("solve")?;
        if self.ed.status() == Status::Stalled {
            let found = self.search()?;
            text.push_str(&match (found.outcome, &found.grid) {
                (Outcome::Solved, _) => format!("search: solved after {} guesses\n", found.guesses),
                (Outcome::Multiple, _) => format!(
                    "search: several solutions; one is shown ({} guesses)\n",
                    found.guesses
                ),
                (other, _) => format!("search: {}\n", other.word()),
            });
            if matches!(found.outcome, Outcome::Solved | Outcome::Multiple) {
                self.searched = Some(found.grid);
            }
        }
        Ok(vec![self.diff(text)])
    }

    /// Searches the current givens on the search board.
    fn search(&mut self) -> Result<crate::sudoku::batch::Solved, String> {
        if self.searcher.is_none() {
            let opts = Options {
                search: true,
                batch: true,
                ..Default::default()
            };
            self.searcher = Some(Board::new(self.program.clone(), &opts)?);
        }
        let board = self.searcher.as_mut().expect("made above");
        let puzzle = Puzzle {
            grid: self.ed.givens().clone(),
            source: "<board>".into(),
            line: 1,
        };
        let mode = Mode {
            search: true,
            first: false,
            max_depth: None,
        };
        solve_chunk(board, vec![Ok(puzzle)], mode)?
            .pop()
            .ok_or("the search gave no result")?
            .map_err(|e| e.to_string())
    }

    /// Loads the first puzzle of `text` and steps from its givens; the whole board.
    fn open(&mut self, source: &str, text: &str) -> Result<Vec<Reply>, String> {
        let first = parse_text(source, text)
            .into_iter()
            .next()
            .ok_or_else(|| format!("no puzzle in {source}"))?;
        let grid = first.map_err(|e| e.to_string())?.grid;
        let out = self.ed.load_grid(grid)?;
        self.ed.rewind();
        self.log.clear();
        Ok(vec![self.state(out)])
    }

    fn cell_views(&self) -> Vec<CellView> {
        let (placed, cands) = self.ed.state();
        let g = self.ed.givens();
        placed
            .iter()
            .zip(cands)
            .enumerate()
            .map(|(c, (&value, cands))| {
                // Values the search found fill the cells the rules left open.
                let value = match (&self.searched, value) {
                    (Some(s), 0) => s.get(c),
                    _ => value,
                };
                CellView {
                    c,
                    given: g.get(c) != 0,
                    value,
                    cands: if value == 0 { cands } else { Vec::new() },
                }
            })
            .collect()
    }

    fn contradictions(&self) -> Vec<Contradiction> {
        self.ed
            .contradictions_with_cells()
            .into_iter()
            .map(|(text, cells)| Contradiction { text, cells })
            .collect()
    }

    fn buttons(&self) -> Buttons {
        let stepping = self.ed.horizon().is_some();
        let (undo, redo) = self.ed.history();
        Buttons {
            // Solve also searches where the rules stall (until an edit).
            solve: stepping || (self.ed.status() == Status::Stalled && self.searched.is_none()),
            step: stepping,
            hint: stepping && self.ed.hint().is_some(),
            dump: true,
            validate: true,
            undo: undo > 0,
            redo: redo > 0,
            clear: self.ed.givens().given_count() > 0,
        }
    }

    fn caption(&self) -> Caption {
        let cells = self.ed.givens().shape.cells();
        let filled = self.cells.iter().filter(|c| c.value != 0).count();
        let status = self.ed.status();
        let stepping = self.ed.horizon().is_some();
        let searched = self.searched.is_some();
        let outcome = match status {
            Status::Solved => "solved",
            Status::Stalled if searched => "solved",
            Status::Stalled => "stalled",
            Status::Contradiction => "contradiction",
            Status::Invalid => "invalid",
        };
        let text = match (status, stepping) {
            (Status::Invalid, _) => "two givens clash: the grid is invalid".to_string(),
            (Status::Contradiction, _) => "the rules reached a contradiction".to_string(),
            (_, true) => {
                format!("stepping: {filled} of {cells} cells shown; Step places one more value")
            }
            (Status::Solved, false) => "solved by the rules".to_string(),
            (Status::Stalled, false) if searched => {
                "solved by search: the rules stalled, guesses decided the rest".to_string()
            }
            (Status::Stalled, false) => {
                format!("the rules can go no further: {filled} of {cells} cells placed")
            }
        };
        Caption {
            text,
            filled,
            cells,
            commit_ms: self.ed.last_commit().map(|d| d.as_secs_f64() * 1e3),
            outcome,
            stepping,
        }
    }

    /// The whole board (and the log reset to what the horizon shows).
    fn state(&mut self, text: String) -> Reply {
        self.cells = self.cell_views();
        let fresh: Vec<Line> = self.ed.log().into_iter().map(line).collect();
        if self.log.is_empty() {
            self.log = fresh;
        }
        let shape = self.ed.givens().shape;
        Reply::State {
            size: shape.size(),
            box_size: (shape.size() as f64).sqrt().round() as usize,
            regions: (0..shape.cells())
                .map(|c| match shape.layout() {
                    Layout::Jigsaw(regions) => regions.of(c),
                    _ => shape.box_of(c),
                })
                .collect(),
            diagonals: shape.layout() == Layout::X,
            cells: self.cells.clone(),
            log: self.log.clone(),
            contradictions: self.contradictions(),
            buttons: self.buttons(),
            caption: self.caption(),
            samples: SAMPLES
                .iter()
                .map(|&(n, t, _)| (n.to_string(), t.to_string()))
                .collect(),
            text,
        }
    }

    /// What changed since the page was last sent the board.
    fn diff(&mut self, text: String) -> Reply {
        let now = self.cell_views();
        if now.len() != self.cells.len() {
            // Another grid size: the page redraws the board.
            self.log.clear();
            return self.state(text);
        }
        let cells: Vec<CellView> = now
            .iter()
            .zip(&self.cells)
            .filter(|(a, b)| a != b)
            .map(|(a, _)| a.clone())
            .collect();
        self.cells = now;

        let dropped: Vec<String> = self
            .log
            .iter()
            .filter(|l| l.withdrawn)
            .map(|l| l.text.clone())
            .collect();
        self.log.retain(|l| !l.withdrawn);
        let fresh: Vec<LogLine> = self.ed.log();
        let texts: HashSet<&str> = fresh.iter().map(|l| l.text.as_str()).collect();
        let mut withdrawn = Vec::new();
        for l in &mut self.log {
            if !texts.contains(l.text.as_str()) {
                l.withdrawn = true;
                withdrawn.push(l.text.clone());
            }
        }
        let shown: HashSet<String> = self.log.iter().map(|l| l.text.clone()).collect();
        let added: Vec<Line> = fresh
            .into_iter()
            .filter(|l| !shown.contains(&l.text))
            .map(line)
            .collect();
        self.log.extend(added.iter().cloned());
        Reply::Diff {
            cells,
            dropped,
            withdrawn,
            added,
            contradictions: self.contradictions(),
            buttons: self.buttons(),
            caption: self.caption(),
            text,
        }
    }
}

fn line(l: LogLine) -> Line {
    Line {
        text: l.text,
        cells: l.cells,
        target: l.target,
        withdrawn: false,
    }
}
