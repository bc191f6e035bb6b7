//! Scripted `sudolog edit` sessions: the binary runs with a script on stdin and its
//! output is compared line for line with what was worked out by hand.
//!
//! Most scripts use the grid G1 below: the solution of the "simple" sample with three
//! cells open, [3,2] (7), [3,7] (3) and [4,2] (3), the corners of a rectangle whose
//! fourth corner is the given 7 at [4,7] (r5c8):
//!
//! ```text
//!         col 2      col 7
//! row 3:  [3,2]=7    [3,7]=3     box 3 | box 5
//! row 4:  [4,2]=3    [4,7]=7 (given)
//! ```
//!
//! Every other cell of rows 3-4, columns 2 and 7 and boxes 3 and 5 is given, so each
//! open corner can only hold 3 or 7. Round 1 places the givens, round 2 eliminates
//! their values from their peers, leaving [3,7] = {3} (column 7 has its 7 at [4,7]),
//! [4,2] = {3} (row 4 has its 7 there too) and [3,2] = {3, 7}; round 3 makes the
//! three deductions: `single 3 at [3,7]`, `single 3 at [4,2]` (the naked-single rule
//! comes first in the program, so it names these two) and `hidden single 7 at [3,2]`
//! (row 3's only place for 7). Log order is round, tier, rule, cell.

use std::io::Write;
use std::process::{Command, Stdio};

use sudolog::sudoku::dump::dump;
use sudolog::sudoku::grid::{Grid, Shape};

const G1: &str =
    "35687194298462571371249356889.1426.512.956874465387291531269487678534129249718356";
const SOLUTION: &str =
    "356871942984625713712493568897142635123956874465387291531269487678534129249718356";

/// Runs `sudolog edit ARGS` with `script` on stdin; returns stdout.
fn run(args: &[&str], script: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sudolog"))
        .arg("edit")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sudolog");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "sudolog edit failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Compares line by line (a failure shows both sides in full).
fn same(got: &str, want: &[String]) {
    let got: Vec<&str> = got.lines().collect();
    let want: Vec<&str> = want.iter().flat_map(|s| s.lines()).collect();
    assert_eq!(got, want, "\n--- got:\n{}\n", got.join("\n"));
}

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

fn grid(s: &str) -> Grid {
    s.parse().unwrap()
}

/// The Drools dump of `values` (0 = open) with the given candidates for open cells.
fn dump_of(values: &Grid, open: &[(usize, &[u8])]) -> Vec<String> {
    let mut cands = vec![Vec::new(); 81];
    for (c, cs) in open {
        cands[*c] = cs.to_vec();
    }
    lines(&dump(Shape::NINE, &values.values, &cands))
}

/// Cell index of 0-based (row, col).
fn at(r: usize, c: usize) -> usize {
    r * 9 + c
}

/// The three deductions of G1, in log order.
fn g1_deductions() -> Vec<String> {
    lines("single 3 at [3,7]\nsingle 3 at [4,2]\nhidden single 7 at [3,2]")
}

fn withdrawn(ds: &[String]) -> Vec<String> {
    ds.iter().map(|d| format!("withdrawn: {d}")).collect()
}

#[test]
fn withdraw_script() {
    let script = include_str!("../../inputs/edits/withdraw.txt");
    let out = run(&[G1], script);
    let mut want = lines(&grid(G1).to_rows());
    // clear r5c8: the rectangle is open, nothing can be deduced. Before, each corner
    // was solved and had its value as its only candidate; now each has {3, 7}.
    want.extend(lines(
        "- [3,2] = 7\n- [3,7] = 3\n- [4,2] = 3\n- [4,7] = 7\n\
         candidates [3,2]: +3\ncandidates [3,7]: +7\ncandidates [4,2]: +7\ncandidates [4,7]: +3",
    ));
    want.extend(withdrawn(&g1_deductions()));
    // dump: the four corners open with candidates 3 and 7.
    let mut open_grid = grid(G1);
    open_grid.values[at(4, 7)] = 0;
    let both: &[u8] = &[3, 7];
    want.extend(dump_of(
        &open_grid,
        &[
            (at(3, 2), both),
            (at(3, 7), both),
            (at(4, 2), both),
            (at(4, 7), both),
        ],
    ));
    // undo: back to G1.
    want.extend(lines("+ [3,2] = 7\n+ [3,7] = 3\n+ [4,2] = 3\n+ [4,7] = 7"));
    want.extend(g1_deductions());
    // set [3,2] 7: the deduced value becomes a given. The two singles stay in round
    // 3 ([3,7] and [4,2] had the single candidate 3 after round 2 anyway).
    want.push("withdrawn: hidden single 7 at [3,2]".into());
    // explain: the whole log.
    want.extend(lines("single 3 at [3,7]\nsingle 3 at [4,2]"));
    // undo
    want.push("hidden single 7 at [3,2]".into());
    same(&out, &want);
}

/// The diff of `set [3,2] 3` on G1 (see contradiction.txt): row 3 then needs its 7 at
/// [3,7], whose column has the 7 of [4,7]; row 4 needs its 3 at [4,2], whose column
/// now has the 3 of [3,2]. Both cells lose their last candidate; the singles are
/// blocked by the contradiction.
fn wrong_value() -> Vec<String> {
    let mut v = lines(
        "+ [3,2] = 3\n- [3,2] = 7\n- [3,7] = 3\n- [4,2] = 3\n\
         candidates [3,7]: -3\ncandidates [4,2]: -3",
    );
    v.extend(withdrawn(&g1_deductions()));
    v.extend(lines(
        "contradiction: [3,7] has no candidates
contradiction: [4,2] has no candidates
contradiction: row 3 has no place left for 7
contradiction: row 4 has no place left for 3
contradiction: column 2 has no place left for 7
contradiction: column 7 has no place left for 3
contradiction: box 3 has no place left for 7
contradiction: box 5 has no place left for 3",
    ));
    v
}

/// The diff of `set r4c8 7` on G1, in `notation` ("drools" or "rc"): the 7 at [3,7]
/// repeats the given 7 at [4,7] in column 7 and box 5. Each eliminates the other's
/// 7, so both have no candidates and neither column 7 nor box 5 has a place for 7
/// (nor for 3, the value [3,7] should hold). Row 3's 7 is now in a cell without
/// candidates, so row 3, column 2 and box 3 have no place for 7 either ([3,2] and
/// [4,2] keep only 3), and neither has row 4 (its 7 is [4,7]).
fn clash(rc: bool) -> Vec<String> {
    let name = |r: usize, c: usize| {
        if rc {
            format!("r{}c{}", r + 1, c + 1)
        } else {
            format!("[{r},{c}]")
        }
    };
    let mut v = vec![
        format!("+ {} = 7", name(3, 7)),
        format!("- {} = 7", name(3, 2)),
        format!("- {} = 3", name(3, 7)),
        format!("- {} = 3", name(4, 2)),
        format!("candidates {}: -7 +3", name(3, 2)),
        format!("withdrawn: single 3 at {}", name(3, 7)),
        format!("withdrawn: single 3 at {}", name(4, 2)),
        format!("withdrawn: hidden single 7 at {}", name(3, 2)),
        format!("contradiction: {} has no candidates", name(3, 7)),
        format!("contradiction: {} has no candidates", name(4, 7)),
    ];
    // Groups are counted from 0 as Drools does, from 1 in rc notation.
    let group = |kind: &str, i: usize| format!("{kind} {}", if rc { i + 1 } else { i });
    for (kind, i, what) in [
        ("row", 3, "has no place left for 7"),
        ("row", 4, "has no place left for 7"),
        ("column", 2, "has no place left for 7"),
        ("column", 7, "has no place left for 3"),
        ("column", 7, "has no place left for 7"),
        ("box", 3, "has no place left for 7"),
        ("box", 5, "has no place left for 3"),
        ("box", 5, "has no place left for 7"),
        ("column", 7, "holds 7 twice"),
        ("box", 5, "holds 7 twice"),
    ] {
        v.push(format!("contradiction: {} {what}", group(kind, i)));
    }
    v
}

/// Back to G1 from a state where [3,2], [3,7], [4,2] were unsolved and `given` held
/// a wrong value at `cell`.
fn back_to_g1(cell: &str, wrong: u8) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for (c, val) in [("[3,2]", 7), ("[3,7]", 3), ("[4,2]", 3)] {
        v.push(format!("+ {c} = {val}"));
    }
    v.push(format!("- {cell} = {wrong}"));
    v.extend(g1_deductions());
    v
}

#[test]
fn contradiction_script() {
    let script = include_str!("../../inputs/edits/contradiction.txt");
    let out = run(&[G1], script);
    let mut want = wrong_value();
    // dump: [3,7] and [4,2] open without candidates.
    let mut g = grid(G1);
    g.values[at(3, 2)] = 3;
    want.extend(dump_of(&g, &[]));
    // undo
    want.extend(back_to_g1("[3,2]", 3));
    // set r4c8 7, validate, undo, validate
    want.extend(clash(false));
    want.extend(lines(
        "cell [3,7]: 7 has a duplicate in col 7
cell [4,7]: 7 has a duplicate in col 7
cell [3,7]: 7 has duplicate in its square of nine.
cell [4,7]: 7 has duplicate in its square of nine.
Validation complete.",
    ));
    want.extend(back_to_g1("[3,7]", 7));
    want.push("Validation complete.".into());
    // redo, undo
    want.extend(clash(false));
    want.extend(back_to_g1("[3,7]", 7));
    same(&out, &want);
}

#[test]
fn errors_notation_and_quit() {
    let script = "\
# comments and blank lines print nothing

set r1c1
set r1c1 0
set r10c1 5
set [9,0] 5
set x 5
clear r4c3
clear
frobnicate
undo
redo
step extra
load
load -
givens
set r4c8 7
validate
  UNDO  
quit
set r1c1 1
";
    let out = run(&["--notation", "rc", G1], script);
    let mut want = lines(
        "error: usage: set CELL VALUE, e.g. set r3c4 7
error: bad value '0' for a 9x9 grid; use 1 to 9 (clear empties a cell)
error: cell out of range: r10c1
error: cell out of range: [9,0]
error: bad cell 'x'; use r3c4 or [2,3]
error: r4c3 holds no given
error: usage: clear CELL, e.g. clear r3c4
error: unknown command 'frobnicate'; type help
error: nothing to undo
error: nothing to redo
error: 'step' takes no arguments
error: usage: load PUZZLE (a file, an 81-character string or a sample name)
error: commands come from standard input; load a file, a puzzle string or a sample name",
    );
    want.extend(lines(&grid(G1).to_rows()));
    want.extend(clash(true));
    want.extend(lines(
        "cell r4c8: 7 has a duplicate in col 7
cell r5c8: 7 has a duplicate in col 7
cell r4c8: 7 has duplicate in its square of nine.
cell r5c8: 7 has duplicate in its square of nine.
Validation complete.",
    ));
    // Commands are case-insensitive; nothing after quit runs.
    want.extend(lines(
        "+ r4c3 = 7\n+ r4c8 = 3\n+ r5c3 = 3\n- r4c8 = 7\n\
         single 3 at r4c8\nsingle 3 at r5c3\nhidden single 7 at r4c3",
    ));
    same(&out, &want);
}

#[test]
fn stepping_and_an_edit_at_the_horizon() {
    let script = "step\ndump\nstep\nexplain\nstep\nstep\nclear r5c8\nstep\nundo\nsolve\n";
    let out = run(&[G1], script);
    let mut want = lines("stepping from the givens");
    // From the givens: they are placed and have removed their values from their
    // peers (rounds 1 and 2), nothing more.
    let (three, both): (&[u8], &[u8]) = (&[3], &[3, 7]);
    want.extend(dump_of(
        &grid(G1),
        &[(at(3, 2), both), (at(3, 7), three), (at(4, 2), three)],
    ));
    // Each step places exactly one value (round 3's, in log order); explain shows
    // what has been shown so far.
    want.extend(lines(
        "single 3 at [3,7]\nsingle 3 at [3,7]\nsingle 3 at [4,2]\nhidden single 7 at [3,2]",
    ));
    // clear r5c8 while all of round 3 is shown: the given and the three values go,
    // the open corners get back what the given had removed (round 2), and round 3's
    // deductions are withdrawn.
    want.extend(lines(
        "- [3,2] = 7\n- [3,7] = 3\n- [4,2] = 3\n- [4,7] = 7\n\
         candidates [3,7]: +7\ncandidates [4,2]: +7\ncandidates [4,7]: +3",
    ));
    want.extend(withdrawn(&g1_deductions()));
    // step: no value is left to place: the rest of the log (none), then the dump
    // with the rectangle open, and no solution.
    let mut open = grid(G1);
    open.values[at(4, 7)] = 0;
    want.extend(dump_of(
        &open,
        &[
            (at(3, 2), both),
            (at(3, 7), both),
            (at(4, 2), both),
            (at(4, 7), both),
        ],
    ));
    want.push("Sorry - can't solve this grid.".into());
    // undo, now showing all rounds.
    want.extend(lines("+ [3,2] = 7\n+ [3,7] = 3\n+ [4,2] = 3\n+ [4,7] = 7"));
    want.extend(g1_deductions());
    // solve: nothing left to show; the solution.
    want.extend(lines(&grid(SOLUTION).to_rows()));
    same(&out, &want);
}

#[test]
fn load_same_shape_is_an_edit_and_another_shape_a_new_grid() {
    let mut without_w = G1.to_string();
    without_w.replace_range(at(4, 7)..at(4, 7) + 1, ".");
    let four = "12343412214343.1";
    let script = format!("load {without_w}\nundo\nload {four}\ngivens\nset r1c1 5\nundo\n");
    let out = run(&[G1], &script);
    // Loading G1 without its given 7 at [4,7] is the same change as clearing it.
    let mut want = lines(
        "- [3,2] = 7\n- [3,7] = 3\n- [4,2] = 3\n- [4,7] = 7\n\
         candidates [3,2]: +3\ncandidates [3,7]: +7\ncandidates [4,2]: +7\ncandidates [4,7]: +3",
    );
    want.extend(withdrawn(&g1_deductions()));
    want.extend(lines("+ [3,2] = 7\n+ [3,7] = 3\n+ [4,2] = 3\n+ [4,7] = 7"));
    want.extend(g1_deductions());
    // A 4x4 grid is a new puzzle: everything is new. Its open cell [3,2] is in row 3
    // with 4, 3 and 1: a single 2.
    let full4 = "1234341221434321";
    for (c, ch) in full4.chars().enumerate() {
        want.push(format!("+ [{},{}] = {ch}", c / 4, c % 4));
    }
    want.push("single 2 at [3,2]".into());
    want.extend(lines("1234\n3412\n2143\n43.1"));
    want.push("error: bad value '5' for a 4x4 grid; use 1 to 4 (clear empties a cell)".into());
    // undo: back to the 9x9 grid G1, again shown as new.
    for (c, ch) in SOLUTION.chars().enumerate() {
        want.push(format!("+ [{},{}] = {ch}", c / 9, c % 9));
    }
    want.extend(g1_deductions());
    same(&out, &want);
}

#[test]
fn empty_start_help_and_no_change() {
    let script = "set r1c1 5\nset r1c1 5\nclear r1c1\nhelp\n";
    let out = run(&[], script);
    // One given on an empty grid: its 20 peers lose 5, nothing can be deduced.
    let mut want = vec!["+ [0,0] = 5".to_string()];
    let peers = sudolog::sudoku::grid::peers(Shape::NINE, 0);
    assert_eq!(peers.len(), 20);
    for p in peers {
        want.push(format!("candidates [{},{}]: -5", p / 9, p % 9));
    }
    // The same value again: nothing to do.
    want.push("no change".into());
    // Clearing it gives everything back; [0,0] has its 8 other candidates again.
    want.push("- [0,0] = 5".into());
    want.push("candidates [0,0]: +1 +2 +3 +4 +6 +7 +8 +9".into());
    for p in sudolog::sudoku::grid::peers(Shape::NINE, 0) {
        want.push(format!("candidates [{},{}]: +5", p / 9, p % 9));
    }
    want.extend(lines(sudolog::sudoku::edit::HELP));
    same(&out, &want);
}

#[test]
fn simple_clear_keeps_the_value_and_nets_out_moved_facts() {
    // Clearing the given 5 at [0,1] of "simple": row 0 has no other place for 5, so
    // the rules place it again (two rounds later, as a hidden single). The value, the
    // eliminations it causes and every other deduction survive, only in later
    // rounds: they are netted out, and the one change is the new deduction.
    let out = run(&["simple"], "clear r1c2\nundo\n");
    same(
        &out,
        &lines("hidden single 5 at [0,1]\nwithdrawn: hidden single 5 at [0,1]"),
    );
}

#[test]
fn step_script_runs() {
    // inputs/edits/step.txt on "simple": checked for its shape, not every line.
    let out = run(&["simple"], include_str!("../../inputs/edits/step.txt"));
    let ls: Vec<&str> = out.lines().collect();
    assert_eq!(ls[0], "stepping from the givens");
    // The dump from the givens: each open cell has the values no given peer holds.
    let simple =
        grid(".568.194.9..6.5..37..493..8897.4.635..39.68..465.8.2915..269..76..5.4..9.497.835.");
    let cands: Vec<(usize, Vec<u8>)> = (0..81)
        .filter(|&c| simple.values[c] == 0)
        .map(|c| {
            let peers = sudolog::sudoku::grid::peers(Shape::NINE, c);
            let left = (1..=9u8)
                .filter(|&v| peers.iter().all(|&p| simple.values[p] != v))
                .collect();
            (c, left)
        })
        .collect();
    let open: Vec<(usize, &[u8])> = cands.iter().map(|(c, v)| (*c, v.as_slice())).collect();
    let d = dump_of(&simple, &open);
    assert_eq!(
        ls[1..11].to_vec(),
        d.iter().map(String::as_str).collect::<Vec<_>>()
    );
    // The edit, from the givens.
    assert_eq!(ls[11], "- [0,1] = 5");
    // The next step places the 5 again.
    assert!(ls[12..].contains(&"hidden single 5 at [0,1]"), "{out}");
    // solve ends with the solution; undo withdraws the hidden single.
    let sol = lines(&grid(SOLUTION).to_rows());
    let at_sol = ls.iter().position(|l| *l == sol[0]).expect("solution");
    assert_eq!(
        ls[at_sol..at_sol + 9].to_vec(),
        sol.iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(
        ls[at_sol + 9..].to_vec(),
        vec!["withdrawn: hidden single 5 at [0,1]"]
    );
}

/// The output of each command of an `--echo` session, in order.
fn by_command(out: &str) -> Vec<(String, Vec<String>)> {
    let mut v: Vec<(String, Vec<String>)> = Vec::new();
    for line in out.lines() {
        match (line.strip_prefix("> "), v.last_mut()) {
            (Some(cmd), _) => v.push((cmd.to_string(), Vec::new())),
            (None, Some((_, lines))) => lines.push(line.to_string()),
            (None, None) => panic!("output before the first command: {line}"),
        }
    }
    v
}

/// A grid whose givens clash (another 5 in row 1 and column 1 of hard1) reaches no
/// technique in the editor, as a batch does not (`solve` calls it invalid): its
/// singles already wait on the contradiction, and now its tiers are not reached
/// either, so `explain` has no deductions; undo brings hard1's back, techniques and
/// all.
#[test]
fn a_grid_whose_givens_clash_reaches_no_technique() {
    let script = "explain\nset r1c1 5\nexplain\nundo\nexplain\n";
    let out = by_command(&run(&["--echo", "hard1"], script));
    let cmds: Vec<&str> = out.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(
        cmds,
        ["explain", "set r1c1 5", "explain", "undo", "explain"]
    );
    let hard1 = &out[0].1;
    assert!(
        hard1.iter().any(|l| l.contains("naked pair")),
        "hard1 needs techniques: {hard1:?}"
    );
    assert!(
        (out[1].1.iter()).any(|l| l == "contradiction: row 0 holds 5 twice"),
        "{:?}",
        out[1].1
    );
    assert_eq!(out[2].1, ["no deductions"]);
    assert_eq!(&out[4].1, hard1);
}

/// `--echo`: a script's commands appear after the prompt, before their output;
/// blank lines and comments do not. Without it the same script prints only results.
#[test]
fn echo_writes_the_commands() {
    let script = "# start\n\nset r1c1 9\n\nbogus\nundo\n";
    let plain = run(&["--notation", "rc", G1], script);
    let echoed = run(&["--notation", "rc", "--echo", G1], script);
    let mut want = vec!["> set r1c1 9".to_string()];
    let results: Vec<&str> = plain.lines().collect();
    let first = results
        .iter()
        .position(|l| *l == "error: unknown command 'bogus'; type help")
        .expect("the bad command's error");
    want.extend(results[..first].iter().map(|l| l.to_string()));
    want.push("> bogus".into());
    want.push(results[first].to_string());
    want.push("> undo".into());
    want.extend(results[first + 1..].iter().map(|l| l.to_string()));
    assert!(first > 0 && first + 1 < results.len(), "{plain}");
    same(&echoed, &want);
}

/// The editor's pencil marks are the candidates `sudolog dump` prints from the
/// rules' `candidate` relation, for each rule set: `singles.dl` and `fast.dl` strike
/// the givens' values before their block (grid.dl's `gstruck`), outside
/// `eliminated`, and the editor must still show them struck (it once showed a
/// given's value as a candidate of its peers).
#[test]
fn editor_dump_shows_the_candidates_of_the_rules() {
    for rules in [None, Some("datalog/singles.dl"), Some("datalog/fast.dl")] {
        let mut args: Vec<&str> = Vec::new();
        if let Some(r) = rules {
            args.extend(["--rules", r]);
        }
        let edited = run(&args, "load hard1\ndump\n");
        let grid_of = |out: &str| -> Vec<String> {
            let lines: Vec<&str> = out.lines().collect();
            let at = lines
                .iter()
                .rposition(|l| l.trim_start().starts_with("Col: 0"))
                .unwrap_or_else(|| panic!("{rules:?}: no dump in\n{out}"));
            lines[at..].iter().map(|l| l.to_string()).collect()
        };
        let dumped = Command::new(env!("CARGO_BIN_EXE_sudolog"))
            .arg("dump")
            .args(&args)
            .arg("inputs/hard1.txt")
            .output()
            .expect("run sudolog dump");
        assert!(dumped.status.success(), "{rules:?}");
        let dumped = String::from_utf8(dumped.stdout).unwrap();
        let want = grid_of(&dumped);
        assert_eq!(want.len(), 10, "{rules:?}: {dumped}");
        // Not every cell solved: the marks are compared, not only the values.
        let open = want[1..].iter().any(|l| l.matches("---").count() < 18);
        assert!(rules.is_none() || open, "{rules:?}: {dumped}");
        same(&grid_of(&edited).join("\n"), &want);
    }
}
