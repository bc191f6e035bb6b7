//! Rules plus depth-first search: every valid puzzle solved, several or no solutions
//! reported. Solutions are checked by the test against the givens and the Sudoku
//! constraints; counts of solutions come from an independent brute-force solver.

use crate::sudoku_common::*;

fn assert_solves(puzzle: &str, solution: &str) {
    let p = parse81(puzzle);
    let s = parse81(solution);
    assert_eq!(s.len(), 81);
    for (a, b) in p.iter().zip(&s) {
        assert!(
            *a == 0 || a == b,
            "solution {solution} breaks a given of {puzzle}"
        );
    }
    for i in 0..9 {
        let row: std::collections::BTreeSet<u8> = (0..9).map(|k| s[i * 9 + k]).collect();
        let col: std::collections::BTreeSet<u8> = (0..9).map(|k| s[k * 9 + i]).collect();
        let bx: std::collections::BTreeSet<u8> = (0..9)
            .map(|k| s[((i / 3) * 3 + k / 3) * 9 + (i % 3) * 3 + k % 3])
            .collect();
        for set in [row, col, bx] {
            assert_eq!(
                set,
                (1..=9).collect(),
                "solution {solution} of {puzzle} is not a Sudoku"
            );
        }
    }
}

/// Solves lines through `sudolog solve -` and returns (grid, status) per line.
fn solve(lines: &[String], extra: &[&str]) -> Vec<(String, String)> {
    let mut args = vec!["solve", "-"];
    args.extend_from_slice(extra);
    let input = lines.join("\n") + "\n";
    let (code, out, err) = run(&args, Some(&input));
    assert_eq!(code, 0, "{err}");
    let got: Vec<(String, String)> = out
        .lines()
        .map(|l| {
            l.split_once(' ')
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .unwrap()
        })
        .collect();
    assert_eq!(got.len(), lines.len(), "{out}");
    got
}

#[test]
fn hardest_puzzles_are_solved_and_checked() {
    let mut puzzles = data("magictour_top1465.txt", 24);
    puzzles.extend(data("top95.txt", 8));
    for ((grid, status), puzzle) in solve(&puzzles, &["--fast", "-w", "2"]).iter().zip(&puzzles) {
        assert_eq!(status, "solved", "{puzzle}");
        assert_solves(puzzle, grid);
    }
}

#[test]
fn seventeen_clue_puzzles_are_solved_with_the_full_rules() {
    let puzzles = data("17_clue_300.txt", 40);
    for ((grid, status), puzzle) in solve(&puzzles, &[]).iter().zip(&puzzles) {
        assert_eq!(status, "solved", "{puzzle}");
        assert_solves(puzzle, grid);
    }
}

#[test]
fn several_solutions_are_reported_as_multiple() {
    // Known puzzles with givens removed until the brute-force solver finds two
    // solutions, plus the first puzzles of a set where every puzzle has several.
    let mut puzzles = Vec::new();
    for line in data("17_clue_300.txt", 6)
        .into_iter()
        .chain(data("kaggle_300.txt", 6))
    {
        let mut p = parse81(&line);
        for c in 0..81 {
            if p[c] != 0 {
                let keep = p[c];
                p[c] = 0;
                if solve_count(&p, 2).0 >= 2 {
                    break;
                }
                p[c] = keep;
            }
        }
        assert!(solve_count(&p, 2).0 >= 2);
        puzzles.push(line81(&p));
    }
    puzzles.extend(data("multisol_200.txt", 12));
    for ((grid, status), puzzle) in solve(&puzzles, &["--fast"]).iter().zip(&puzzles) {
        assert_eq!(status, "multiple", "{puzzle}");
        assert_solves(puzzle, grid);
    }
    // --first stops at the first solution.
    for ((grid, status), puzzle) in solve(&puzzles[..4], &["--fast", "--first"])
        .iter()
        .zip(&puzzles)
    {
        assert_eq!(status, "solved");
        assert_solves(puzzle, grid);
    }
}

#[test]
fn valid_givens_without_a_solution_are_unsolvable() {
    // Add one given that clashes with nothing directly yet leaves no solution.
    let mut puzzles = Vec::new();
    for line in data("kaggle_300.txt", 40) {
        let p = parse81(&line);
        let (_, sol) = solve_count(&p, 1);
        let sol = sol.unwrap();
        'cells: for c in 0..81 {
            if p[c] != 0 {
                continue;
            }
            for v in 1..=9u8 {
                if v == sol[c] {
                    continue;
                }
                let (r, k) = (c / 9, c % 9);
                let clash = (0..9).any(|i| p[r * 9 + i] == v || p[i * 9 + k] == v)
                    || (0..9).any(|i| p[((r / 3) * 3 + i / 3) * 9 + (k / 3) * 3 + i % 3] == v);
                if !clash {
                    let mut q = p.clone();
                    q[c] = v;
                    assert_eq!(solve_count(&q, 1).0, 0);
                    puzzles.push(line81(&q));
                    break 'cells;
                }
            }
        }
        if puzzles.len() == 8 {
            break;
        }
    }
    assert_eq!(puzzles.len(), 8);
    for ((_, status), puzzle) in solve(&puzzles, &[]).iter().zip(&puzzles) {
        assert_eq!(status, "unsolvable", "{puzzle}");
    }
    // Conflicting givens are invalid, not unsolvable.
    let mut bad = parse81(&data("kaggle_300.txt", 1)[0]);
    let first = bad.iter().position(|&v| v != 0).unwrap();
    let twin = (0..9)
        .map(|k| (first / 9) * 9 + k)
        .find(|&c| c != first && bad[c] == 0)
        .unwrap();
    bad[twin] = bad[first];
    assert_eq!(solve(&[line81(&bad)], &[])[0].1, "invalid");
}

#[test]
fn no_search_keeps_the_rules_only_behaviour() {
    let puzzles = data("magictour_top1465.txt", 3);
    for (_, status) in solve(&puzzles, &["--no-search"]) {
        assert_eq!(status, "stalled");
    }
    let (code, out, _) = run(&["explain", "--no-search", &puzzles[0]], None);
    assert_eq!(code, 0);
    assert!(out.ends_with("Sorry - can't solve this grid.\n"));
    assert!(!out.contains("guess"));
}

#[test]
fn explain_shows_guesses_and_backtracks_and_ends_solved() {
    let puzzle = &data("magictour_top1465.txt", 1)[0];
    let (code, out, err) = run(&["explain", puzzle], None);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let first_guess = lines
        .iter()
        .find(|l| l.starts_with("guess "))
        .expect("a guess");
    assert!(first_guess.ends_with(", depth 1)"), "{first_guess}");
    assert!(first_guess.contains(" candidates, "), "{first_guess}");
    assert!(
        lines.iter().any(|l| l.starts_with("contradiction: ")),
        "{out}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("backtrack from "))
            || lines.iter().filter(|l| l.starts_with("guess")).count() > 1
    );
    let grid: String = lines[lines.len() - 9..].concat();
    assert_solves(puzzle, &grid);
    // JSON counts the search.
    let (_, out, _) = run(
        &["solve", "--format", "json", "-"],
        Some(&format!("{puzzle}\n")),
    );
    assert!(out.contains("\"status\":\"solved\""), "{out}");
    let guesses: u32 = out
        .split("\"guesses\":")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(guesses >= 1);
    assert!(out.contains("\"max_depth\":"));
}

/// All of top1465 (long: run with `cargo test --release -- --ignored`).
#[test]
#[ignore = "long: the whole magictour top1465 set"]
fn all_of_top1465() {
    let puzzles = data("magictour_top1465.txt", 1465);
    for ((grid, status), puzzle) in solve(&puzzles, &["--fast", "-w", "2"]).iter().zip(&puzzles) {
        assert_eq!(status, "solved", "{puzzle}");
        assert_solves(puzzle, grid);
    }
}
