//! The tiers as dataflows of their own, stepped by the host: does that design reach
//! what one fixpoint block cannot (issue 10: one grid in 50 ms, edits in 10 ms)?
//!
//! `cargo bench --bench tier_steps [-- EDITS [REPS [TOP]]]` (defaults: 300 edits, 15
//! runs of one grid, TOP 17: the full rules; TOP 5: the full rules cut at tier 5,
//! `tiers.dl` without `techniques.dl`). One worker throughout.
//!
//! - **One fixpoint block:** the rules as the tree runs them (`sudoku.dl`) on a
//!   [`Board`]: for one grid as `solve` runs it (the batch rendering, tiers reached
//!   lazily), for edits as an editor's (incremental, its geometry and cells sealed,
//!   tiers 2-5 reached from the start); placements, status and candidates observed.
//! - **Host-stepped:** the same rules split by the engine ([`split_files`]): a base
//!   (tiers 0-1) and one program per higher tier, on a [`Board`] with
//!   [`Options::stepped`] (the engine's `session::stepped`, as `solve` runs it). The
//!   base runs to its fixpoint; then the host steps the tiers in order, each fed the
//!   changes of what it reads of the base's contents. The first tier that derives
//!   something the base lacks hands it to the base (its `__stepped` inputs), and the
//!   host starts again from the base; when no tier finds anything, the grid is
//!   stalled. A tier's dataflow is built the first time the host needs it. An edit
//!   that retracts a given withdraws everything handed to the base so far (the
//!   fixpoint across dataflows is the host's, not differential dataflow's), and the
//!   tiers find it again.
//!
//! The host keeps the block's tier order (a tier only when every lower one finds
//! nothing), so both designs should reach the same status, placements and candidates;
//! the bench counts the states where they do not. It reports one grid (`hard1`:
//! sessions built, the puzzle loaded and solved; programs checked and split
//! beforehand on both sides) and the edits of `edit_baseline`'s script (an Editor on
//! `singles.dl` fed [`random_edit`]s from seed 1), medians and p99, the two designs
//! timed edit by edit in turn. With
//! `TIER_STEPS_CHECK=FILE` it only compares the two designs on every puzzle of FILE,
//! each solved from scratch.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sudolog::check::ir::{Program, RelId, Value};
use sudolog::check::split::{split_files, TierSplit};
use sudolog::session::Session;
use sudolog::sudoku::board::{Board, Options, Status};
use sudolog::sudoku::edit::{random_edit, Editor, Rng};
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::grid::{Grid, Shape};
use sudolog::sudoku::puzzle::parse_puzzle_arg;
use sudolog::sudoku::rules::from_files;
use sudolog::sudoku::samples::{DROOLS_MENU, SAMPLES};
use sudolog::syntax::FsLoader;

/// The puzzle id every session here uses.
const P: Value = 0;
const HARD1: &str = include_str!("../inputs/hard1.txt");

fn datalog(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datalog")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The programs: the block's, and its split.
struct Programs {
    split: Arc<TierSplit>,
    /// The same rules in one fixpoint block (`sudoku.dl`, cut at tier 5 unless `all`).
    looped: Arc<Program>,
}

/// `sudoku.dl` (without `techniques.dl` unless `all`), from copies of the tree's
/// files in `dir`, checked, and split by tier.
fn programs(dir: &Path, all: bool) -> Programs {
    std::fs::create_dir_all(dir).expect("a scratch folder");
    for f in [
        "grid.dl",
        "base.dl",
        "status.dl",
        "sudoku.dl",
        "techniques.dl",
    ] {
        std::fs::write(dir.join(f), datalog(f)).expect("a copy");
    }
    let tiers = if all {
        datalog("tiers.dl")
    } else {
        datalog("tiers.dl").replace("#include \"techniques.dl\"", "")
    };
    std::fs::write(dir.join("tiers.dl"), tiers).expect("tiers.dl");
    let path = [dir.join("sudoku.dl").display().to_string()];
    Programs {
        split: Arc::new(
            split_files(&path, &FsLoader)
                .expect("the rules check")
                .expect("the rules have tiers to split"),
        ),
        looped: from_files(&path).expect("the rules check"),
    }
}

type Row = [Value; 3];

fn rows(s: &Session, r: RelId) -> BTreeSet<Row> {
    s.contents(r)
        .into_iter()
        .map(|(v, _)| [v[0], v[1], v[2]])
        .collect()
}

/// A board with the split's tiers stepped by the host, on `grid`, committed: as
/// `solve` runs one grid (`batch`) or as an editor does (one puzzle sealed).
fn stepped_board(programs: &Programs, grid: &[u8], batch: bool) -> Board {
    let opts = Options {
        stepped: Some(programs.split.clone()),
        ..options(batch)
    };
    let mut board = Board::new(programs.looped.clone(), &opts).expect("a board");
    assert!(board.tier_steps().is_some(), "the board steps its tiers");
    board.add(P, &to_grid(grid)).unwrap();
    board.commit().unwrap();
    board
}

fn options(batch: bool) -> Options {
    Options {
        one_puzzle: !batch,
        batch,
        candidates: true,
        ..Options::default()
    }
}

/// The fixpoint block's board on `grid`, committed: as `solve` runs one grid (`batch`:
/// the batch rendering, tiers reached lazily) or as an editor does (incremental,
/// one puzzle sealed, tiers 2-5 from the start). Candidates observed either way, as
/// the host-stepped side must.
fn one_loop_board(programs: &Programs, grid: &[u8], batch: bool) -> Board {
    let mut board = Board::new(programs.looped.clone(), &options(batch)).expect("a board");
    board.add(P, &to_grid(grid)).unwrap();
    board.commit().unwrap();
    board
}

fn board_placed(board: &Board) -> BTreeSet<Row> {
    rows(board.session(), board.rels.placed.expect("placed"))
}

fn board_candidates(board: &Board) -> BTreeSet<Row> {
    rows(board.session(), board.rels.candidate.expect("candidate"))
}

/// The givens that change from `before` to `grid`: (cell, value, set or cleared), a
/// cell's old value cleared before its new one is set.
fn given_changes(before: &[u8], grid: &[u8]) -> Vec<(usize, u8, bool)> {
    let mut out = Vec::new();
    for (c, (&old, &new)) in before.iter().zip(grid).enumerate() {
        if old != new {
            if old != 0 {
                out.push((c, old, false));
            }
            if new != 0 {
                out.push((c, new, true));
            }
        }
    }
    out
}

fn to_grid(s: &[u8]) -> Grid {
    Grid {
        shape: Shape::NINE,
        values: s.to_vec(),
    }
}

/// The givens of an edit session's script (as `edit_baseline`'s).
fn edit_states(n: usize, seed: u64) -> Vec<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("datalog/singles.dl");
    let program = from_files(&[path.display().to_string()]).expect("singles.dl");
    let mut rng = Rng::new(seed);
    let (sample, _, _) = SAMPLES[rng.below(DROOLS_MENU)];
    let grid = parse_puzzle_arg(sample)
        .unwrap()
        .swap_remove(0)
        .unwrap()
        .grid;
    let mut ed = Editor::with_program(program, Options::default(), grid, Notation::Drools)
        .expect("the editor starts");
    let mut states = vec![ed.givens().values.clone()];
    let mut attempts = 0;
    while states.len() <= n && attempts < n * 20 + 100 {
        attempts += 1;
        let cmd = random_edit(&mut rng, &ed);
        let before = ed.givens().clone();
        let _ = ed.command(&cmd);
        if *ed.givens() != before {
            states.push(ed.givens().values.clone());
        }
    }
    states
}

fn median(v: &[Duration]) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v[v.len() / 2]
}

fn p99(v: &[Duration]) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v[(v.len() * 99 / 100).min(v.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// `hard1` built and solved `reps` times by each design (the block in the batch
/// rendering, as `solve` runs it): the medians, and the tier steps the host took.
fn one_grid(programs: &Programs, reps: usize) -> (Duration, Duration, usize) {
    let hard1: Vec<u8> = parse_puzzle_arg(HARD1.trim())
        .unwrap()
        .swap_remove(0)
        .unwrap()
        .grid
        .values;
    let (mut looped, mut stepped) = (Vec::new(), Vec::new());
    let mut steps = 0;
    for _ in 0..reps {
        let t = Instant::now();
        let board = one_loop_board(programs, &hard1, true);
        looped.push(t.elapsed());
        let t = Instant::now();
        let s = stepped_board(programs, &hard1, true);
        stepped.push(t.elapsed());
        assert_eq!(board.status(P), Status::Solved, "hard1 needs tiers 0-3");
        assert_eq!(s.status(P), Status::Solved);
        assert_eq!(board_placed(&board), board_placed(&s));
        steps = s.tier_steps().unwrap_or(0);
    }
    (median(&looped), median(&stepped), steps)
}

/// What the edits cost each design, edit by edit in turn.
struct Edits {
    looped: Vec<Duration>,
    stepped: Vec<Duration>,
    /// States by the fixpoint block's status (indexed by `Status as usize`).
    by_status: [usize; 4],
    /// The edits after which the two designs differ.
    differ: Vec<usize>,
    steps: usize,
}

fn edits(programs: &Programs, states: &[Vec<u8>]) -> Edits {
    let mut board = one_loop_board(programs, &states[0], false);
    let mut s = stepped_board(programs, &states[0], false);
    let mut out = Edits {
        looped: Vec::new(),
        stepped: Vec::new(),
        by_status: [0; 4],
        differ: Vec::new(),
        steps: 0,
    };
    let steps0 = s.tier_steps().unwrap_or(0);
    for (i, w) in states.windows(2).enumerate() {
        let (before, grid) = (&w[0], &w[1]);
        let t = Instant::now();
        for (c, v, on) in given_changes(before, grid) {
            board.set_given(P, c, v, on).unwrap();
        }
        board.commit().unwrap();
        out.looped.push(t.elapsed());
        let t = Instant::now();
        for (c, v, on) in given_changes(before, grid) {
            s.set_given(P, c, v, on).unwrap();
        }
        s.commit().unwrap();
        out.stepped.push(t.elapsed());
        let status = board.status(P);
        out.by_status[status as usize] += 1;
        // (In a contradiction the two may stop placing in different rounds.)
        let open = matches!(status, Status::Solved | Status::Stalled);
        let same = board_placed(&board) == board_placed(&s)
            && board_candidates(&board) == board_candidates(&s);
        if status != s.status(P) || (open && !same) {
            out.differ.push(i + 1);
        }
    }
    out.steps = s.tier_steps().unwrap_or(0) - steps0;
    out
}

/// `TIER_STEPS_CHECK=FILE`: every puzzle of FILE (one a line) solved from scratch by
/// both designs; the number whose status, placements or candidates differ.
fn check_file(programs: &Programs, path: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (mut n, mut differ, mut stalled) = (0, Vec::new(), 0);
    for line in text.lines().filter(|l| l.trim().len() >= 81) {
        let grid = parse_puzzle_arg(line.trim())
            .unwrap()
            .swap_remove(0)
            .unwrap()
            .grid;
        let board = one_loop_board(programs, &grid.values, true);
        let s = stepped_board(programs, &grid.values, true);
        n += 1;
        stalled += usize::from(board.status(P) == Status::Stalled);
        let same = board_placed(&board) == board_placed(&s)
            && board_candidates(&board) == board_candidates(&s);
        if board.status(P) != s.status(P) || !same {
            differ.push(n);
        }
    }
    println!(
        "{path}: {n} puzzles ({stalled} stalled under the rules); differ: {} {:?}",
        differ.len(),
        &differ[..differ.len().min(20)]
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let n: usize = args.first().map_or(300, |a| a.parse().expect("EDITS"));
    let reps: usize = args.get(1).map_or(15, |a| a.parse().expect("REPS"));
    let top: u32 = args.get(2).map_or(17, |a| a.parse().expect("TOP: 5 or 17"));
    assert!(
        top == 5 || top == 17,
        "TOP: 5 (tiers 0-5) or 17 (the full rules)"
    );
    let dir = std::env::temp_dir().join(format!("sudolog-tier-steps-{}", std::process::id()));
    let t = Instant::now();
    let programs = programs(&dir, top == 17);
    let made = t.elapsed();
    let t = Instant::now();
    from_files(&[dir.join("sudoku.dl").display().to_string()]).expect("it checked before");
    println!(
        "reading and checking the rules: {}; and splitting them too: {}",
        ms(t.elapsed()),
        ms(made)
    );
    let order: Vec<u32> = programs.split.tiers.iter().map(|t| t.tier).collect();
    for t in &programs.split.tiers {
        println!(
            "tier {}: reads {:?}, writes {:?}",
            t.tier, t.reads, t.writes
        );
    }
    println!("tiers 0-{top}: the host steps tiers {order:?} after the base (tiers 0-1)");

    if let Ok(path) = std::env::var("TIER_STEPS_CHECK") {
        check_file(&programs, &path);
        return;
    }
    let (looped, stepped, steps) = one_grid(&programs, reps);
    println!("\none grid (hard1), {reps} runs, sessions built and the grid solved (medians):");
    println!("| one fixpoint block | host-stepped ({steps} tier steps) |\n|---|---|");
    println!("| {} | {} |", ms(looped), ms(stepped));

    let e = edits(&programs, &edit_states(n, 1));
    let count = |s: Status| e.by_status[s as usize];
    println!(
        "\nedits: {} ({} solved, {} stalled, {} broken, {} invalid); {} tier steps in all:",
        e.looped.len(),
        count(Status::Solved),
        count(Status::Stalled),
        count(Status::Contradiction),
        count(Status::Invalid),
        e.steps
    );
    println!("| | median | p99 |\n|---|---|---|");
    println!(
        "| one fixpoint block | {} | {} |",
        ms(median(&e.looped)),
        ms(p99(&e.looped))
    );
    println!(
        "| host-stepped | {} | {} |",
        ms(median(&e.stepped)),
        ms(p99(&e.stepped))
    );
    println!(
        "edits after which the two differ (status; placements or candidates when solved or stalled): {} {:?}",
        e.differ.len(),
        &e.differ[..e.differ.len().min(20)]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
