//! `sudolog grade` and `sudolog hint`: grades against HoDoKu's levels for the same
//! puzzles (tests/data/hodoku_levels.txt, computed with hodoku-py), the score as the
//! scale's table says, and hints as the first deduction of the explain log.

use std::collections::BTreeMap;

use crate::sudoku_common::*;

use sudolog::sudoku::grade::{self, Level};

/// `(puzzle, HoDoKu level, HoDoKu score)` of the reference file, first `n`.
fn reference(n: usize) -> Vec<(String, Level, u32)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/hodoku_levels.txt");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty() && !l.contains(" TIMEOUT "))
        .take(n)
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let level = Level::parse(f[1]).unwrap_or_else(|| panic!("level in {l}"));
            (f[0].to_string(), level, f[2].parse().unwrap())
        })
        .collect()
}

/// Runs `sudolog grade --format json` on puzzle lines; one JSON value per puzzle.
fn grade_json(puzzles: &[String]) -> Vec<serde_json::Value> {
    let input: String = puzzles.iter().map(|p| format!("{p}\n")).collect();
    let (code, out, err) = run(&["grade", "-", "--format", "json", "-w", "2"], Some(&input));
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(rows.len(), puzzles.len(), "one line per puzzle");
    rows
}

/// On the first 150 reference puzzles (a stride through the Kaggle sample: every
/// HoDoKu level occurs), the levels agree exactly on at least 80% and within one
/// level on at least 98%, the targets.
#[test]
fn levels_agree_with_hodoku() {
    let refs = reference(150);
    let puzzles: Vec<String> = refs.iter().map(|r| r.0.clone()).collect();
    let rows = grade_json(&puzzles);
    let (mut exact, mut near) = (0, 0);
    let mut confusion: BTreeMap<(Level, Level), usize> = BTreeMap::new();
    for ((p, want, _), row) in refs.iter().zip(&rows) {
        assert_eq!(row["puzzle"].as_str(), Some(p.as_str()));
        assert_eq!(row["status"], "solved", "{row}");
        let got = Level::parse(row["level"].as_str().expect("a level")).unwrap();
        *confusion.entry((*want, got)).or_default() += 1;
        let d = (*want as i32 - got as i32).abs();
        exact += usize::from(d == 0);
        near += usize::from(d <= 1);
    }
    let n = refs.len();
    let table = format!("{confusion:?}");
    assert!(exact * 100 >= n * 80, "exact {exact}/{n}: {table}");
    assert!(near * 100 >= n * 98, "within one {near}/{n}: {table}");
}

/// The score is the scale's: the sum over techniques of steps x score, plus the
/// guesses; the level follows from it. `solve --format json` carries the same grade.
#[test]
fn score_is_the_tables_and_solve_agrees() {
    let puzzles: Vec<String> = reference(12).into_iter().map(|r| r.0).collect();
    let rows = grade_json(&puzzles);
    for row in &rows {
        let steps: BTreeMap<String, u32> = row["steps"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap() as u32))
            .collect();
        assert!(steps.get("single").copied().unwrap_or(0) > 0, "{row}");
        let guesses = row["guesses"].as_u64().unwrap() as u32;
        let mut score = guesses * grade::GUESS_SCORE;
        for (label, n) in &steps {
            score += grade::technique(label).expect("on the scale").score * n;
        }
        assert_eq!(row["score"].as_u64(), Some(score as u64), "{row}");
        let g = grade::grade(&steps, guesses).unwrap();
        assert_eq!(row["level"].as_str(), Some(g.level.name()), "{row}");
    }
    let input: String = puzzles.iter().map(|p| format!("{p}\n")).collect();
    let (code, out, err) = run(&["solve", "-", "--format", "json", "-w", "2"], Some(&input));
    assert_eq!(code, 0, "{err}");
    for (line, row) in out.lines().zip(&rows) {
        let solved: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(solved["grade"]["level"], row["level"], "{line}");
        assert_eq!(solved["grade"]["score"], row["score"], "{line}");
    }
}

/// Text output: `PUZZLE Level score`; puzzles without exactly one solution get their
/// status; a program with techniques off the scale is a usage error.
#[test]
fn grade_text_statuses_and_unknown_rules() {
    let unique = reference(1).remove(0).0;
    let multi = data("multisol_200.txt", 1).remove(0);
    let mut dup = unique.clone().into_bytes();
    let first = dup.iter().position(|&b| b != b'.').unwrap();
    let v = dup[first];
    let free = (0..9).find(|&c| c != first && dup[c] == b'.').unwrap();
    dup[free] = v; // the same value twice in the first row
    let dup = String::from_utf8(dup).unwrap();
    let input = format!("{unique}\n{multi}\n{dup}\n");
    let (code, out, err) = run(&["grade", "-", "-w", "1"], Some(&input));
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let json = &grade_json(std::slice::from_ref(&unique))[0];
    assert_eq!(
        lines[0],
        format!(
            "{unique} {} {}",
            json["level"].as_str().unwrap(),
            json["score"]
        )
    );
    assert_eq!(lines[1], format!("{multi} multiple"));
    assert_eq!(lines[2], format!("{dup} invalid"));
    assert!(err.contains("levels: 1 "), "{err}");

    let dir = std::env::temp_dir().join(format!("sudolog-grade-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The rule files, the hidden single relabelled (in tiers.dl, which sudoku.dl
    // includes).
    let datalog = concat!(env!("CARGO_MANIFEST_DIR"), "/datalog");
    for f in std::fs::read_dir(datalog).unwrap() {
        let f = f.unwrap();
        let text = std::fs::read_to_string(f.path()).unwrap();
        let text = text.replace("@label(\"hidden single\")", "@label(\"my hidden single\")");
        std::fs::write(dir.join(f.file_name()), text).unwrap();
    }
    let rules = dir.join("sudoku.dl");
    let (code, _, err) = run(
        &["grade", "simple", "--rules", rules.to_str().unwrap()],
        None,
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("rule label 'my hidden single' has no level in the grading scale"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `--assume-unique` grades as HoDoKu does, uniqueness techniques on: a reference
/// puzzle that HoDoKu rates Hard with a Uniqueness Test 1 needs a guess (Extreme)
/// without it and is Hard with it. The flag is a rule choice: not with `--fast`.
#[test]
fn assume_unique_grades_with_uniqueness_techniques() {
    let p = ".6.75.......2.8.6...9..1...6.8.....4.41.8........3.7......243..9.2..3..5.......71";
    let hodoku = reference(1000)
        .into_iter()
        .find(|r| r.0 == p)
        .expect("a reference puzzle");
    assert_eq!(hodoku.1, Level::parse("HARD").unwrap());
    let level = |extra: &[&str]| {
        let mut args = vec!["grade", p, "-w", "1"];
        args.extend_from_slice(extra);
        let (code, out, err) = run(&args, None);
        assert_eq!(code, 0, "{err}");
        out.split_whitespace().nth(1).unwrap().to_string()
    };
    assert_eq!(level(&[]), "Extreme");
    assert_eq!(level(&["--assume-unique"]), "Hard");
    let (code, _, err) = run(&["grade", p, "--assume-unique", "--fast"], None);
    assert_eq!(code, 2, "{err}");
}

/// `hint` is the explain log's first deduction, not applied; `--vague` words it with
/// the rule's @hint; the editor gives the same, and while stepping the next one.
#[test]
fn hints_are_the_next_deduction() {
    for sample in ["simple", "hard1", "hard4"] {
        let (code, explained, err) = run(&["explain", sample, "--no-search"], None);
        assert_eq!(code, 0, "{err}");
        let first = explained.lines().next().unwrap();
        let (code, out, err) = run(&["hint", sample], None);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, format!("hint: {first}\n"), "{sample}");
        let (code, vague, err) = run(&["hint", sample, "--vague"], None);
        assert_eq!(code, 0, "{err}");
        assert!(
            vague.starts_with("hint: ") && vague.len() < out.len(),
            "{vague}"
        );
        assert!(!vague.contains(" at "), "{vague} names the cell");
    }
    let (code, out, err) = run(
        &["edit", "hard1"],
        Some("hint\nstep\nhint\nhint vague\nhint x\n"),
    );
    assert_eq!(code, 0, "{err}");
    let (_, explained, _) = run(&["explain", "hard1", "--no-search"], None);
    let first = explained.lines().next().unwrap();
    assert_eq!(out.matches(&format!("hint: {first}")).count(), 2, "{out}");
    assert!(out.contains("error: usage: hint [vague]") || err.contains("usage: hint [vague]"));
}
