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
//!   (tiers 0-1) and one program per higher tier. The base runs to its fixpoint; then
//!   the host steps the tiers in order, each fed what it reads of the base's contents
//!   (only what changed since its last step). The first tier that derives something
//!   the base lacks hands it to the base (its `__stepped` inputs), and the host starts
//!   again from the base; when no tier finds anything, the grid is stalled. A tier's
//!   dataflow is built the first time the host needs it. An edit that retracts a
//!   given withdraws everything handed to the base so far (the fixpoint across
//!   dataflows is the host's, not differential dataflow's), and the tiers find it
//!   again.
//!
//! The host keeps the block's tier order (a tier only when every lower one finds
//! nothing), so both designs should reach the same status, placements and candidates;
//! the bench counts the states where they do not. It reports one grid (`hard1`:
//! sessions built, the puzzle loaded and solved; programs checked and split
//! beforehand on both sides) and the edits of `edit_baseline`'s script (an Editor on
//! `singles.dl` fed [`random_edit`]s from seed 1), medians and p99, the two designs
//! timed edit by edit in turn, and where the host-stepped edits' time went. With
//! `TIER_STEPS_CHECK=FILE` it only compares the two designs on every puzzle of FILE,
//! each solved from scratch.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sudolog::check::ir::{Program, RelId, Value};
use sudolog::check::split::{split_files, TierSplit, HOST_INPUT};
use sudolog::session::{Config, Observe, Session};
use sudolog::sudoku::board::{Board, Options, Status};
use sudolog::sudoku::edit::{random_edit, Editor, Rng};
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::grid::{groups, Grid, Shape};
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
    split: TierSplit,
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
        split: split_files(&path, &FsLoader)
            .expect("the rules check")
            .expect("the rules have tiers to split"),
        looped: from_files(&path).expect("the rules check"),
    }
}

fn rel(program: &Program, name: &str) -> RelId {
    program
        .relation(name)
        .unwrap_or_else(|| panic!("no relation {name}"))
}

/// A session with one 9x9 puzzle's geometry loaded (not committed).
fn session(program: &Program, observe: &[&str]) -> Session {
    let sealed = ["member", "group", "puzzle", "cell", "digit", "eager"];
    let config = Config {
        workers: 1,
        observe: Observe::Relations(observe.iter().map(|n| rel(program, n)).collect()),
        changes: true,
        inputs_only: true,
        sealed: sealed.iter().map(|n| rel(program, n)).collect(),
        ..Default::default()
    };
    let mut s = Session::new(Arc::new(program.clone()), config).expect("a session");
    let shape = Shape::NINE;
    let (group, member) = (rel(program, "group"), rel(program, "member"));
    for (g, (kind, cells)) in groups(shape).into_iter().enumerate() {
        let (name, i) = kind.fact();
        let k = s.symbols().intern(name);
        s.insert(group, &[g as Value, k, i as Value]).unwrap();
        for c in cells {
            s.insert(member, &[c as Value, g as Value]).unwrap();
        }
    }
    s.insert(rel(program, "puzzle"), &[P]).unwrap();
    for c in 0..shape.cells() {
        s.insert(rel(program, "cell"), &[P, c as Value]).unwrap();
    }
    for v in 1..=shape.size() {
        s.insert(rel(program, "digit"), &[P, v as Value]).unwrap();
    }
    s
}

type Row = [Value; 3];
type Rows = BTreeSet<Vec<Value>>;

fn rows(s: &Session, r: RelId) -> BTreeSet<Row> {
    s.contents(r)
        .into_iter()
        .map(|(v, _)| [v[0], v[1], v[2]])
        .collect()
}

fn all_rows(s: &Session, r: RelId) -> Rows {
    s.contents(r).into_iter().map(|(v, _)| v).collect()
}

/// One tier's session and what it holds of the base's relations it reads.
struct TierFlow {
    session: Session,
    held: Vec<Rows>,
}

/// The host-stepped design over a [`TierSplit`]: the base's session, the tiers'
/// (built when first needed), and the facts handed to the base so far.
struct Stepped<'a> {
    split: &'a TierSplit,
    base: Session,
    given: RelId,
    candidate: RelId,
    placed: RelId,
    solved: RelId,
    broken: RelId,
    invalid: RelId,
    tiers: Vec<Option<TierFlow>>,
    /// (the base's host input, the row) for every fact handed to the base.
    found: Vec<(RelId, Vec<Value>)>,
    /// The base's contents of the relations the tiers read or write, read once per
    /// base commit.
    snapshot: std::collections::HashMap<String, Rows>,
    /// Tier dataflows stepped, over the whole life of this design.
    steps: usize,
    /// Time in the base's commits, and in each tier's steps (syncing what it reads,
    /// its commit, reading what it found).
    spent_base: Duration,
    spent: Vec<Duration>,
}

impl<'a> Stepped<'a> {
    fn new(programs: &'a Programs) -> Stepped<'a> {
        let split = &programs.split;
        let b = &split.base;
        let mut observe = vec!["candidate", "placed", "solved", "broken", "invalid"];
        for t in &split.tiers {
            observe.extend(t.reads.iter().chain(&t.writes).map(String::as_str));
        }
        observe.sort_unstable();
        observe.dedup();
        let mut base = session(b, &observe);
        base.insert(rel(b, "eager"), &[P]).unwrap();
        Stepped {
            given: rel(b, "given"),
            candidate: rel(b, "candidate"),
            placed: rel(b, "placed"),
            solved: rel(b, "solved"),
            broken: rel(b, "broken"),
            invalid: rel(b, "invalid"),
            base,
            tiers: split.tiers.iter().map(|_| None).collect(),
            found: Vec::new(),
            snapshot: Default::default(),
            steps: 0,
            spent_base: Duration::ZERO,
            spent: vec![Duration::ZERO; split.tiers.len()],
            split,
        }
    }

    /// Sets the givens to `grid` (from `before`), then settles.
    fn edit(&mut self, before: &[u8], grid: &[u8]) {
        let mut retracted = false;
        for (c, v, on) in given_changes(before, grid) {
            let row = [P, c as Value, v as Value];
            if on {
                self.base.insert(self.given, &row).unwrap();
            } else {
                self.base.retract(self.given, &row).unwrap();
                retracted = true;
            }
        }
        if retracted {
            for (r, row) in std::mem::take(&mut self.found) {
                self.base.retract(r, &row).unwrap();
            }
        }
        self.commit_base();
        self.settle();
    }

    fn commit_base(&mut self) {
        let t = Instant::now();
        self.base.commit().unwrap();
        self.snapshot.clear();
        self.spent_base += t.elapsed();
    }

    /// Tier `i` brought up to the base's contents and committed: what it derives
    /// that the base does not hold yet.
    fn step(&mut self, i: usize) -> Vec<(RelId, Vec<Value>)> {
        let t = &self.split.tiers[i];
        let (base, program) = (&self.base, &t.program);
        let flow = self.tiers[i].get_or_insert_with(|| TierFlow {
            session: session(
                program,
                &t.writes.iter().map(String::as_str).collect::<Vec<_>>(),
            ),
            held: vec![Rows::new(); t.reads.len()],
        });
        for (k, name) in t.reads.iter().enumerate() {
            let now = self
                .snapshot
                .entry(name.clone())
                .or_insert_with(|| all_rows(base, rel(&self.split.base, name)));
            let r = rel(program, name);
            for row in flow.held[k].difference(now) {
                flow.session.retract(r, row).unwrap();
            }
            for row in now.difference(&flow.held[k]) {
                flow.session.insert(r, row).unwrap();
            }
            flow.held[k] = now.clone();
        }
        flow.session.commit().unwrap();
        let mut new = Vec::new();
        for name in &t.writes {
            let held = self
                .snapshot
                .entry(name.clone())
                .or_insert_with(|| all_rows(base, rel(&self.split.base, name)));
            let input = rel(&self.split.base, &format!("{name}{HOST_INPUT}"));
            for row in all_rows(&flow.session, rel(program, name)) {
                if !held.contains(&row) {
                    new.push((input, row));
                }
            }
        }
        new
    }

    /// Steps the tiers in order until the base is solved, broken or stalled.
    fn settle(&mut self) {
        'rounds: loop {
            let done = |r| !self.base.contents(r).is_empty();
            if done(self.solved) || done(self.broken) {
                return;
            }
            for i in 0..self.tiers.len() {
                self.steps += 1;
                let start = Instant::now();
                let new = self.step(i);
                self.spent[i] += start.elapsed();
                if !new.is_empty() {
                    for (r, row) in &new {
                        self.base.insert(*r, row).unwrap();
                    }
                    self.found.extend(new);
                    self.commit_base();
                    continue 'rounds;
                }
            }
            return;
        }
    }

    fn status(&self) -> Status {
        let has = |r| !self.base.contents(r).is_empty();
        if has(self.invalid) {
            Status::Invalid
        } else if has(self.solved) {
            Status::Solved
        } else if has(self.broken) {
            Status::Contradiction
        } else {
            Status::Stalled
        }
    }

    fn placed(&self) -> BTreeSet<Row> {
        rows(&self.base, self.placed)
    }

    fn candidates(&self) -> BTreeSet<Row> {
        rows(&self.base, self.candidate)
    }
}

/// The fixpoint block's board on `grid`, committed: as `solve` runs one grid (`batch`:
/// the batch rendering, tiers reached lazily) or as an editor does (incremental,
/// one puzzle sealed, tiers 2-5 from the start). Candidates observed either way, as
/// the host-stepped side must.
fn one_loop_board(programs: &Programs, grid: &[u8], batch: bool) -> Board {
    let opts = Options {
        one_puzzle: !batch,
        batch,
        candidates: true,
        ..Options::default()
    };
    let mut board = Board::new(programs.looped.clone(), &opts).expect("a board");
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
        let mut s = Stepped::new(programs);
        s.edit(&[0; 81], &hard1);
        stepped.push(t.elapsed());
        assert_eq!(board.status(P), Status::Solved, "hard1 needs tiers 0-3");
        assert_eq!(s.status(), Status::Solved);
        assert_eq!(board_placed(&board), s.placed());
        steps = s.steps;
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
    /// The host-stepped side's time in its base and in each tier, over all edits.
    spent_base: Duration,
    spent: Vec<Duration>,
}

fn edits(programs: &Programs, states: &[Vec<u8>]) -> Edits {
    let mut board = one_loop_board(programs, &states[0], false);
    let mut s = Stepped::new(programs);
    s.edit(&[0; 81], &states[0]);
    let mut out = Edits {
        looped: Vec::new(),
        stepped: Vec::new(),
        by_status: [0; 4],
        differ: Vec::new(),
        steps: 0,
        spent_base: Duration::ZERO,
        spent: Vec::new(),
    };
    let (base0, spent0) = (s.spent_base, s.spent.clone());
    for (i, w) in states.windows(2).enumerate() {
        let (before, grid) = (&w[0], &w[1]);
        let t = Instant::now();
        for (c, v, on) in given_changes(before, grid) {
            board.set_given(P, c, v, on).unwrap();
        }
        board.commit().unwrap();
        out.looped.push(t.elapsed());
        let t = Instant::now();
        s.edit(before, grid);
        out.stepped.push(t.elapsed());
        let status = board.status(P);
        out.by_status[status as usize] += 1;
        // (In a contradiction the two may stop placing in different rounds.)
        let open = matches!(status, Status::Solved | Status::Stalled);
        let same = board_placed(&board) == s.placed() && board_candidates(&board) == s.candidates();
        if status != s.status() || (open && !same) {
            out.differ.push(i + 1);
        }
    }
    out.steps = s.steps;
    out.spent_base = s.spent_base - base0;
    out.spent = s.spent.iter().zip(&spent0).map(|(a, b)| *a - *b).collect();
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
        let mut s = Stepped::new(programs);
        s.edit(&[0; 81], &grid.values);
        n += 1;
        stalled += usize::from(board.status(P) == Status::Stalled);
        let same = board_placed(&board) == s.placed() && board_candidates(&board) == s.candidates();
        if board.status(P) != s.status() || !same {
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
    let tiers: Vec<String> = (order.iter().zip(&e.spent))
        .map(|(k, d)| format!("tier {k} {:.0}", d.as_secs_f64() * 1000.0))
        .collect();
    println!(
        "the host-stepped edits' time in all, ms: the base {:.0}, {}",
        e.spent_base.as_secs_f64() * 1000.0,
        tiers.join(", ")
    );
    println!(
        "edits after which the two differ (status; placements or candidates when solved or stalled): {} {:?}",
        e.differ.len(),
        &e.differ[..e.differ.len().min(20)]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
