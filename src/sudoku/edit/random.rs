//! Random edit scripts, for the benches and the property tests: a small seeded
//! generator, edits drawn from an [`Editor`]'s state, and a timed session of them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{read_puzzle, Editor, P};
use crate::check::ir::Program;
use crate::check::split::TierSplit;
use crate::session::Cost;
use crate::sudoku::board::{Board, Options, Status};
use crate::sudoku::explain::Notation;
use crate::sudoku::grid::digit_char;
use crate::sudoku::samples::{DROOLS_MENU, SAMPLES};

/// A small deterministic generator (SplitMix64) for random edit scripts.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// A random edit command for the editor's current state, as a command line, keeping
/// the number of givens mostly within `band` (inclusive): mostly `set` of an open
/// cell to one of its candidates (sometimes a wrong one: a contradiction shows up
/// later) and `clear` of a given, some `set`s of any value anywhere (often a
/// contradiction at once), `undo` (mostly, while the grid is contradictory), `redo`
/// (more often when there is something to redo), and now and then `load` of a
/// Drools sample. Cells are named in both
/// notations.
pub fn random_edit_in(rng: &mut Rng, ed: &Editor, band: (usize, usize)) -> String {
    let g = ed.givens();
    let shape = g.shape;
    let name = |rng: &mut Rng, c: usize| {
        if rng.below(2) == 0 {
            Notation::Rc.cell(shape, c)
        } else {
            Notation::Drools.cell(shape, c)
        }
    };
    let any_set = |rng: &mut Rng| {
        let c = rng.below(shape.cells());
        let v = 1 + rng.below(shape.size()) as u8;
        format!("set {} {}", name(rng, c), digit_char(v))
    };
    let givens: Vec<usize> = g.givens().map(|(c, _)| c).collect();
    let broken = !matches!(ed.board().status(P), Status::Solved | Status::Stalled);
    let can_redo = ed.history().1 > 0;
    let roll = rng.below(100);
    if broken && roll < 85 {
        return if roll < 65 || givens.is_empty() {
            "undo".into()
        } else {
            let c = givens[rng.below(givens.len())];
            format!("clear {}", name(rng, c))
        };
    }
    match roll {
        0 => {
            let (sample, _, _) = SAMPLES[rng.below(DROOLS_MENU)];
            return format!("load {sample}");
        }
        1..=9 => return "undo".into(),
        10..=11 => return "redo".into(),
        12..=29 if can_redo => return "redo".into(),
        30..=34 => return any_set(rng),
        _ => {}
    }
    let bias = if givens.len() < band.0 {
        15
    } else if givens.len() > band.1 {
        85
    } else {
        50
    };
    if !givens.is_empty() && rng.below(100) < bias {
        let c = givens[rng.below(givens.len())];
        return format!("clear {}", name(rng, c));
    }
    let (placed, cands) = ed.state_at(None);
    let open: Vec<usize> = (0..shape.cells())
        .filter(|&c| placed[c] == 0 && !cands[c].is_empty())
        .collect();
    if open.is_empty() {
        // Everything is placed: give a deduced value (that changes no value).
        let deduced: Vec<usize> = (0..shape.cells())
            .filter(|&c| g.get(c) == 0 && placed[c] != 0)
            .collect();
        if deduced.is_empty() {
            return any_set(rng);
        }
        let c = deduced[rng.below(deduced.len())];
        return format!("set {} {}", name(rng, c), digit_char(placed[c]));
    }
    let c = open[rng.below(open.len())];
    let v = cands[c][rng.below(cands[c].len())];
    format!("set {} {}", name(rng, c), digit_char(v))
}

/// [`random_edit_in`] with the band of the Drools samples, 22 to 45 givens.
pub fn random_edit(rng: &mut Rng, ed: &Editor) -> String {
    random_edit_in(rng, ed, (22, 45))
}

/// Times a long random edit session on the 9x9 Drools samples under `program`: `n`
/// edits that change the givens (see [`random_edit`]; commands that fail or change
/// nothing are skipped), as `draw` says (a seed, or a script). Returns the engine's
/// time for each edit's incremental commit and, for every `scratch_every`-th of those
/// states (the 1st, then every `scratch_every`-th after it; never if 0), the time of a
/// from-scratch evaluation of the same givens on a second board (`reset`, `add`,
/// `commit`: a new dataflow built and run to its fixpoint). `after(k)` is called after
/// the k-th edit, while the session is alive (to read memory, say). With `profile`, the
/// session measures its rules as it runs (see [`Options::profile`]; the times then
/// include the measuring), and the costs come back with the program the session ran.
/// `split`: the program's tiers, stepped by the host in both boards (see
/// [`Options::stepped`]; a profile charges the base's and the tiers' costs to `program`'s rules).
pub fn bench_edits(
    program: Arc<Program>,
    split: Option<Arc<TierSplit>>,
    n: usize,
    draw: Draw,
    scratch_every: usize,
    profile: bool,
    mut after: impl FnMut(usize),
) -> Result<EditTimes, String> {
    let mut rng = Rng::new(draw.seed);
    let (sample, _, _) = SAMPLES[rng.below(DROOLS_MENU)];
    let mut given = draw.script.map(|s| s.into_iter());
    let mut commands = Vec::new();
    let grid = read_puzzle(sample)?;
    let engine = Options {
        profile,
        stepped: split.clone(),
        ..Options::default()
    };
    let mut ed = Editor::with_program(program.clone(), engine, grid, Notation::Drools)?;
    let opts = Options {
        candidates: true,
        eliminations: true,
        explain: true,
        one_puzzle: true,
        profile,
        stepped: split,
        ..Default::default()
    };
    let mut scratch = if scratch_every > 0 {
        Some(Board::new(program, &opts)?)
    } else {
        None
    };
    let (mut inc, mut full) = (Vec::new(), Vec::new());
    let mut attempts = 0usize;
    while inc.len() < n && attempts < n.saturating_mul(20).max(100) {
        attempts += 1;
        let cmd = match given.as_mut() {
            Some(script) => match script.next() {
                Some(cmd) => cmd,
                None => break,
            },
            None => random_edit(&mut rng, &ed),
        };
        commands.push(cmd.clone());
        ed.last_commit = None;
        // Errors (nothing to undo, ...) are part of the script; they commit nothing.
        let _ = ed.command(&cmd);
        let Some(t) = ed.last_commit else { continue };
        inc.push(t);
        after(inc.len());
        if let Some(scratch) = scratch.as_mut() {
            if inc.len() % scratch_every == 1 % scratch_every {
                let start = Instant::now();
                scratch.reset()?;
                scratch.add(P, ed.givens())?;
                scratch.commit()?;
                full.push(start.elapsed());
            }
        }
    }
    let profile = match profile {
        true => Some((ed.board.program().clone(), ed.board.profile()?)),
        false => None,
    };
    Ok(EditTimes {
        incremental: inc,
        scratch: full,
        profile,
        commands,
    })
}

/// What [`bench_edits`] measured.
pub struct EditTimes {
    /// Each edit's incremental commit.
    pub incremental: Vec<Duration>,
    /// The from-scratch evaluations of every `scratch_every`-th state.
    pub scratch: Vec<Duration>,
    /// With `profile`: the program the session ran (gated, as an Editor's board
    /// runs it) and its costs over the whole session.
    pub profile: Option<(Arc<Program>, Vec<Cost>)>,
    /// Every command run, in order (those that failed or changed nothing too):
    /// replayed as [`Draw::script`], they take a session through the same states.
    pub commands: Vec<String>,
}

/// Where [`bench_edits`]'s commands come from.
pub struct Draw {
    /// Picks the sample the session starts from and, without `script`, draws the
    /// commands ([`random_edit`]).
    pub seed: u64,
    /// These commands in order instead (a run's [`EditTimes::commands`]): rule
    /// programs that differ on some states would draw different scripts, so they
    /// are compared on one. The session ends when they run out.
    pub script: Option<Vec<String>>,
}
