//! The techniques past the X-wing (datalog/techniques.dl, tiers 6-17): for each, a
//! puzzle whose explain log (before any guess) shows it, with its exact line(s); a new
//! tier only fires in rounds where every earlier tier stalled, so each of these lines
//! is a deduction the earlier techniques could not make at that point. Then
//! soundness: on every puzzle of tests/data/techniques.txt (unique solutions, checked
//! by the brute-force oracle), every explain event agrees with the solution, under
//! the built-in rules and under datalog/unique.dl (uniqueness techniques on), every
//! technique fires somewhere, and each has a vague hint that names no cell.

use crate::sudoku_common::*;

use sudolog::sudoku::board::Options;
use sudolog::sudoku::rules::{builtin, from_files, Builtin};

/// The puzzle that tests/data/techniques.txt lists under the comment `# {label}: ...`.
fn puzzle(label: &str) -> String {
    let path = format!("{}/tests/data/techniques.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    let head = format!("# {label}:");
    while let Some(line) = lines.next() {
        if line.starts_with(&head) {
            let p = lines.next().expect("a puzzle after the comment");
            assert_eq!(p.len(), 81, "{p}");
            return p.to_string();
        }
    }
    panic!("no puzzle for {label} in {path}");
}

/// The explain log of `puzzle` up to its first guess (the rules' own deductions).
fn logic_log(puzzle: &str, unique: bool) -> Vec<String> {
    let mut args = vec!["explain", puzzle];
    if unique {
        args.extend(["--rules", "datalog/unique.dl"]);
    }
    let (code, out, err) = run(&args, None);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .take_while(|l| !l.starts_with("guess"))
        .map(str::to_string)
        .collect()
}

/// The lines of `label` in the logic log of the puzzle listed for it are `expected`.
fn shows(label: &str, unique: bool, expected: &[&str]) {
    let log = logic_log(&puzzle(label), unique);
    let got: Vec<&str> = log
        .iter()
        .map(String::as_str)
        .filter(|l| l.starts_with(label))
        .collect();
    assert_eq!(got, expected, "{}", log.join("\n"));
}

#[test]
fn swordfish() {
    shows(
        "Swordfish",
        false,
        &[
            "Swordfish 6 in rows, columns 0, 1, 8: remove 6 from [1,1]",
            "Swordfish 6 in rows, columns 0, 1, 8: remove 6 from [3,0]",
            "Swordfish 6 in rows, columns 0, 1, 8: remove 6 from [3,1]",
            "Swordfish 6 in rows, columns 0, 1, 8: remove 6 from [3,8]",
        ],
    );
}

/// Fish lines name their rows or columns as the cells do: from 1 under `--notation rc`.
#[test]
fn swordfish_in_rc_notation() {
    let (code, out, err) = run(&["explain", &puzzle("Swordfish"), "--notation", "rc"], None);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines()
            .any(|l| l == "Swordfish 6 in rows, columns 1, 2, 9: remove 6 from r2c2"),
        "{out}"
    );
}

#[test]
fn jellyfish() {
    let cells = [
        "[0,1]", "[0,6]", "[0,7]", "[1,1]", "[1,6]", "[1,7]", "[3,7]", "[4,1]", "[4,6]", "[7,6]",
        "[7,7]",
    ];
    let mut expected: Vec<String> = cells
        .iter()
        .map(|c| format!("Jellyfish 5 in rows, columns 1, 4, 6, 7: remove 5 from {c}"))
        .collect();
    expected.push("Jellyfish 5 in columns, rows 0, 1, 3, 4: remove 5 from [0,0]".into());
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    shows("Jellyfish", false, &expected);
}

#[test]
fn bug_plus_1_only_when_assumed() {
    let label = "Bivalue Universal Grave + 1";
    shows(label, true, &["Bivalue Universal Grave + 1: 7 at [0,2]"]);
    shows(label, false, &[]);
}

#[test]
fn skyscraper() {
    shows(
        "Skyscraper",
        false,
        &[
            "Skyscraper 7 [6,0] [1,0] [1,5] [8,5]: remove 7 from [6,3]",
            "Skyscraper 7 [6,0] [1,0] [1,5] [8,5]: remove 7 from [8,2]",
        ],
    );
}

#[test]
fn two_string_kite() {
    shows(
        "2-String Kite",
        false,
        &["2-String Kite 4 [7,6] [7,0] [8,2] [0,2]: remove 4 from [0,6]"],
    );
}

/// An Empty Rectangle: box 7's 1s lie in row 8 and column 5 through [8,5]; a strong
/// link on 1 in row 1 from [1,5] to [1,8]; so [8,8] is not 1. HoDoKu grades this puzzle
/// Hard; before this technique sudolog guessed and graded it Extreme.
#[test]
fn empty_rectangle() {
    shows(
        "Empty Rectangle",
        false,
        &["Empty Rectangle 1 in box 7 ([8,5]) with [1,5] [1,8]: remove 1 from [8,8]"],
    );
    let (code, out, err) = run(&["grade", &puzzle("Empty Rectangle")], None);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(" Hard "), "{out}");
}

#[test]
fn w_wing() {
    shows(
        "W-Wing",
        false,
        &[
            "W-Wing 9/4 [0,1] [1,5] linked by 9 in [0,7] [1,8]: remove 4 from [1,0]",
            "W-Wing 9/4 [0,1] [1,5] linked by 9 in [0,7] [1,8]: remove 4 from [1,1]",
        ],
    );
}

#[test]
fn xy_wing() {
    shows(
        "XY-Wing",
        false,
        &[
            "XY-Wing [7,3] [7,8] [8,7]: remove 2 from [7,6]",
            "XY-Wing [7,3] [7,8] [8,7]: remove 2 from [8,3]",
        ],
    );
}

#[test]
fn xyz_wing() {
    shows(
        "XYZ-Wing",
        false,
        &["XYZ-Wing [5,7] [6,7] [7,8]: remove 7 from [8,7]"],
    );
}

#[test]
fn uniqueness_test_1_only_when_assumed() {
    let expected = ["Uniqueness Test 1 7/9 in [1,5] [1,4] [4,5]: remove 7 and 9 from [4,4]"];
    shows("Uniqueness Test 1", true, &expected);
    // The built-in rules do not assume a unique solution.
    shows("Uniqueness Test 1", false, &[]);
}

#[test]
fn simple_colors_trap() {
    shows(
        "Simple Colors Trap",
        false,
        &[
            "Simple Colors Trap 5: [7,1] and [8,7] have opposite colours: remove 5 from [7,7]",
            "Simple Colors Trap 5: [7,1] and [8,7] have opposite colours: remove 5 from [7,8]",
        ],
    );
}

#[test]
fn x_chain() {
    shows(
        "X-Chain",
        false,
        &[
            "X-Chain 4 [0,2] to [1,7], 3 strong links: remove 4 from [0,8]",
            "X-Chain 4 [0,2] to [1,7], 3 strong links: remove 4 from [1,1]",
            "X-Chain 4 [0,2] to [3,1], 3 strong links: remove 4 from [5,2]",
        ],
    );
}

#[test]
fn xy_chain() {
    shows(
        "XY-Chain",
        false,
        &["XY-Chain 7 [1,0] to [4,5], 4 cells: remove 7 from [4,0]"],
    );
}

/// Every explain event of `program` on `puzzles` agrees with the unique solution;
/// returns the labels that fired.
fn sound_events(
    puzzles: &[String],
    program: std::sync::Arc<sudolog::check::ir::Program>,
) -> Vec<String> {
    let opts = Options {
        eliminations: true,
        explain: true,
        ..Default::default()
    };
    let (board, solutions) = board_with_solutions(puzzles, program.clone(), &opts);
    let mut labels = Vec::new();
    for ev in board.events() {
        assert_event_sound(&board, &ev, &solutions, puzzles);
        let rule = &program.rules[ev.rule];
        if rule.tier >= 6 {
            // The vague hint: the technique, and no cell.
            let hint = board.render_hint(&ev, Default::default());
            let hint = hint.unwrap_or_else(|| panic!("{} has no @hint", rule.label));
            assert!(hint.starts_with(&rule.label), "{hint}");
            assert!(!hint.contains('['), "{hint} names a cell");
        }
        labels.push(rule.label.clone());
    }
    labels.sort();
    labels.dedup();
    labels
}

const TECHNIQUES: &[&str] = &[
    "Swordfish",
    "Jellyfish",
    "Simple Colors Trap",
    "Skyscraper",
    "2-String Kite",
    "Empty Rectangle",
    "W-Wing",
    "XY-Wing",
    "XYZ-Wing",
    "X-Chain",
    "XY-Chain",
];

#[test]
fn technique_puzzles_are_sound_under_the_full_rules() {
    let puzzles = data("techniques.txt", 100);
    let labels = sound_events(&puzzles, builtin(Builtin::Full).unwrap());
    for t in TECHNIQUES {
        assert!(labels.iter().any(|l| l == t), "no {t} among {labels:?}");
    }
    for t in ["Uniqueness Test 1", "Bivalue Universal Grave + 1"] {
        assert!(!labels.iter().any(|l| l == t), "{t} without assume_unique");
    }
}

#[test]
fn technique_puzzles_are_sound_assuming_uniqueness() {
    let puzzles = data("techniques.txt", 100);
    let path = format!("{}/datalog/unique.dl", env!("CARGO_MANIFEST_DIR"));
    let labels = sound_events(&puzzles, from_files(&[path]).unwrap());
    let uniqueness = ["Uniqueness Test 1", "Bivalue Universal Grave + 1"];
    for t in TECHNIQUES.iter().chain(&uniqueness) {
        assert!(labels.iter().any(|l| l == t), "no {t} among {labels:?}");
    }
}

/// Per puzzle, its explain events round by round (each round's sorted), rounds without
/// any left out: the order in which the rules deduced, whatever the round numbers.
type Deductions = std::collections::BTreeMap<i32, Vec<Vec<(usize, Vec<i32>, Vec<i32>)>>>;

/// The puzzles' deductions, and the sum of their last rounds.
fn deductions(puzzles: &[String], batch: bool) -> (Deductions, u32) {
    let opts = Options {
        explain: true,
        batch,
        ..Default::default()
    };
    let (board, _) = board_with_solutions(puzzles, builtin(Builtin::Full).unwrap(), &opts);
    let mut by_round: std::collections::BTreeMap<i32, std::collections::BTreeMap<u32, Vec<_>>> =
        Default::default();
    for ev in board.events() {
        by_round
            .entry(ev.head[0])
            .or_default()
            .entry(ev.round)
            .or_default()
            .push((ev.rule, ev.head.clone(), ev.bindings.clone()));
    }
    let last = by_round
        .values()
        .map(|rounds| rounds.keys().last().copied().unwrap_or(0))
        .sum();
    let order = by_round
        .into_iter()
        .map(|(p, rounds)| {
            let rounds = rounds.into_values().map(|mut evs| {
                evs.sort();
                evs
            });
            (p, rounds.collect())
        })
        .collect();
    (order, last)
}

/// A batch reaches tiers 2-5 lazily (`reach` in datalog/tiers.dl: a round the first
/// time a puzzle stalls below one), a session from the start (`eager`): the same
/// deductions in the same order, round by round, on puzzles that need every tier; the
/// batch only later.
#[test]
fn lazy_and_eager_tiers_deduce_alike() {
    let puzzles = data("techniques.txt", 100);
    let (lazy, lazy_rounds) = deductions(&puzzles, true);
    let (eager, eager_rounds) = deductions(&puzzles, false);
    assert!(lazy_rounds > eager_rounds, "{lazy_rounds} {eager_rounds}");
    assert_eq!(lazy.len(), puzzles.len());
    for (p, rounds) in &lazy {
        assert_eq!(
            Some(rounds),
            eager.get(p),
            "puzzle {}",
            puzzles[*p as usize]
        );
    }
    assert_eq!(lazy.len(), eager.len());
}
