//! Soundness of the rules: on puzzles with a unique solution (checked by an
//! independent brute-force solver), no derived elimination removes the solution's
//! value and every derived placement is the solution's value; every explain event
//! agrees too.

use crate::sudoku_common::*;

use sudolog::sudoku::board::Options;
use sudolog::sudoku::rules::{builtin, Builtin};

fn check(puzzles: &[String], which: Builtin) {
    let program = builtin(which).unwrap();
    let opts = Options {
        eliminations: true,
        explain: which == Builtin::Full,
        ..Default::default()
    };
    let (board, solutions) = board_with_solutions(puzzles, program.clone(), &opts);
    let rels = board.rels.clone();
    let session = board.session();
    let mut placed = 0;
    for (row, _) in session.contents(rels.placed.unwrap()) {
        let (p, c, v) = (row[0] as usize, row[1] as usize, row[2] as u8);
        assert_eq!(
            solutions[p][c], v,
            "puzzle {} places {v} at cell {c}",
            puzzles[p]
        );
        placed += 1;
    }
    let mut eliminated = 0;
    for (row, _) in session.contents(rels.eliminated.unwrap()) {
        let (p, c, v) = (row[0] as usize, row[1] as usize, row[2] as u8);
        assert_ne!(
            solutions[p][c], v,
            "puzzle {} eliminates its solution value {v} at cell {c}",
            puzzles[p]
        );
        eliminated += 1;
    }
    assert!(placed >= puzzles.len() * 17 && eliminated > 0);
    if which == Builtin::Full {
        let events = board.events();
        assert!(!events.is_empty());
        for ev in &events {
            assert_event_sound(&board, ev, &solutions, puzzles);
        }
        // Every rule of the full program that can fire on these puzzles did, and was sound.
        let mut labels: Vec<&str> = events
            .iter()
            .map(|e| program.rules[e.rule].label.as_str())
            .collect();
        labels.sort();
        labels.dedup();
        for expected in [
            "single",
            "hidden single",
            "intersection removal",
            "naked pair",
        ] {
            assert!(
                labels.contains(&expected),
                "no {expected} deduction among {labels:?}"
            );
        }
    }
}

const SAMPLES: &[&str] = &[
    ".568.194.9..6.5..37..493..8897.4.635..39.68..465.8.2915..269..76..5.4..9.497.835.",
    "847...2565...8...42...7...8...3.8....51...872...5.7...4...5...76...3...9132...485",
    "....51.8..8..4...5..3...2......6...967.4.9.138...3......2...4..5...9..2..9.71....",
    "...6..1.......5..65.7...23..8.9.7...93.....67...4.6.1..74...9.18..7.......3..8...",
    ".8...6..52.....48...9..8.1.....8.1.2...3.1...6.1.9.....9.4..8...76.....31..7...5.",
    ".....4.9567.5...1....6.9....2....4..81.....72..7....8....3.5....6...1.5873.9.....",
    "8.346..127...8.64...6..2..837...9...18.....36...8...755..3..1...31.4...992..583.4",
    ".......95........1.3..752.8.7.3..9.4.8..5...26..814..75..1.....49.5..8.6..8.4.7.3",
];

#[test]
fn drools_samples_and_euler_are_sound_under_the_full_rules() {
    let mut puzzles: Vec<String> = SAMPLES.iter().map(|s| s.to_string()).collect();
    puzzles.extend(data("euler96.txt", 50));
    check(&puzzles, Builtin::Full);
}

#[test]
fn kaggle_puzzles_are_sound_under_the_full_rules() {
    check(&data("kaggle_300.txt", 150), Builtin::Full);
}

#[test]
fn hard_puzzles_are_sound_under_the_full_rules() {
    let mut puzzles = data("top95.txt", 95);
    puzzles.extend(data("17_clue_300.txt", 40));
    check(&puzzles, Builtin::Full);
}

#[test]
fn the_fast_rules_are_sound() {
    let mut puzzles = data("17_clue_300.txt", 100);
    puzzles.extend(data("top95.txt", 30));
    check(&puzzles, Builtin::Fast);
}

/// At the fast rules' fixpoint no intersection is left to apply: wherever a value's
/// candidates in a box lie in one row or column, the value has no candidate in the rest
/// of that line, and wherever a value's candidates in a row or column lie in one box,
/// none in the rest of that box. Checked from the candidates the rules leave, with the
/// 9x9 geometry worked out here (the rules read it from `group` and `member` facts).
#[test]
fn the_fast_rules_leave_no_intersection_unapplied() {
    let mut puzzles = data("top95.txt", 95);
    puzzles.extend(data("17_clue_300.txt", 60));
    let opts = Options {
        candidates: true,
        ..Default::default()
    };
    let (board, _) = board_with_solutions(&puzzles, builtin(Builtin::Fast).unwrap(), &opts);
    // Each puzzle's candidates, a bit per value per cell.
    let mut cand = vec![[0u16; 81]; puzzles.len()];
    let session = board.session();
    for (row, _) in session.contents(board.rels.candidate.unwrap()) {
        cand[row[0] as usize][row[1] as usize] |= 1 << row[2];
    }
    let bx = |c: usize| (c / 27) * 3 + (c % 9) / 3;
    // A group's cells, for rows (0..9), columns (9..18) and boxes (18..27).
    let cells = |g: usize| -> Vec<usize> {
        (0..81)
            .filter(|&c| match g {
                0..=8 => c / 9 == g,
                9..=17 => c % 9 == g - 9,
                _ => bx(c) == g - 18,
            })
            .collect()
    };
    // The group of each kind a cell lies in: its row, its column, its box.
    let of = |c: usize| [c / 9, 9 + c % 9, 18 + bx(c)];
    let mut confined = 0;
    for (p, cand) in cand.iter().enumerate() {
        for g in 0..27 {
            for v in 1..=9 {
                let has = |c: usize| cand[c] & (1 << v) != 0;
                let places: Vec<usize> = cells(g).into_iter().filter(|&c| has(c)).collect();
                if places.len() < 2 {
                    continue;
                }
                // Lines for a box, the box for a line: one shared by every place.
                let kinds: &[usize] = if g >= 18 { &[0, 1] } else { &[2] };
                for &k in kinds {
                    let h = of(places[0])[k];
                    if places.iter().all(|&c| of(c)[k] == h) {
                        confined += 1;
                        for c in cells(h).into_iter().filter(|&c| !cells(g).contains(&c)) {
                            assert!(
                                !has(c),
                                "puzzle {}: {v} in group {g} lies in group {h} only, yet cell {c} keeps it",
                                puzzles[p]
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(
        confined > 100,
        "only {confined} confined values: the check saw little"
    );
}
