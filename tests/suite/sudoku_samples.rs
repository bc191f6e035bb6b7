//! The Drools samples and the other shipped puzzles, through the command line.

use crate::sudoku_common::*;

const SOLUTIONS: &[(&str, &str)] = &[
    (
        "simple",
        "356871942984625713712493568897142635123956874465387291531269487678534129249718356",
    ),
    (
        "medium",
        "847193256593682714216475938764328591351946872928517643489251367675834129132769485",
    ),
    (
        "hard1",
        "264351987987246135153978264321867549675429813849135672712583496538694721496712358",
    ),
    (
        "hard2",
        "329674158148325796567891234486917523931582467752436819674253981815769342293148675",
    ),
    (
        "hard3",
        "784126395215973486369548217957684132842351769631297548593462871476815923128739654",
    ),
    (
        "hard4",
        "381274695679538214254619837523897461816453972497126583148365729962741358735982146",
    ),
    (
        "sdo",
        "893465712752981643416732598375629481189574236264813975548396127631247859927158364",
    ),
    (
        "javadoc",
        "746281395852493671931675248175362984384759162629814537567138429493527816218946753",
    ),
];

fn file_of(sample: &str) -> String {
    let f = match sample {
        "broken" => "deliberately_broken",
        "sdo" => "sample_sdo",
        "javadoc" => "javadoc_example",
        "6948" => "nscripter_6948",
        s => s,
    };
    format!("inputs/{f}.txt")
}

#[test]
fn every_drools_sample_is_solved_by_the_rules_alone() {
    let files: Vec<String> = SOLUTIONS.iter().map(|(s, _)| file_of(s)).collect();
    let mut args = vec!["solve", "--no-search"];
    args.extend(files.iter().map(|s| s.as_str()));
    let (code, out, err) = run(&args, None);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), SOLUTIONS.len());
    for ((name, solution), line) in SOLUTIONS.iter().zip(&lines) {
        assert_eq!(*line, format!("{solution} solved"), "sample {name}");
    }
    assert!(
        err.contains(&format!(
            "{} puzzles: {} solved",
            SOLUTIONS.len(),
            SOLUTIONS.len()
        )),
        "{err}"
    );
}

#[test]
fn hard2_and_hard3_need_no_guess() {
    // The Drools engine stalls on these at 41 and 36 cells; the rules here finish them.
    for name in ["hard2", "hard3"] {
        let (code, out, _) = run(&["explain", name], None);
        assert_eq!(code, 0);
        assert!(!out.contains("guess"), "{name} needed a guess:\n{out}");
        assert!(!out.contains("Sorry"), "{name} stalled:\n{out}");
        let solution = SOLUTIONS.iter().find(|(n, _)| *n == name).unwrap().1;
        assert_eq!(last_rows(&out, 9), solution);
    }
}

#[test]
fn puzzle_6948_is_solved() {
    let (code, out, _) = run(&["solve", "--no-search", "inputs/nscripter_6948.txt"], None);
    assert_eq!(code, 0);
    let (line, status) = out.trim().split_once(' ').unwrap();
    assert_eq!(status, "solved");
    let puzzle =
        "8..2...7...36....91....3...7....1.2.9...7...6.5.8.9..3...4....26....78...1...2..7";
    let (n, sol) = solve_count(&parse81(puzzle), 2);
    assert_eq!(n, 1);
    assert_eq!(line, line81(&sol.unwrap()));
}

#[test]
fn broken_sample_validation_matches_drools() {
    let (code, out, _) = run(&["validate", "broken"], None);
    assert_eq!(code, 1, "duplicates exit with status 1");
    assert_eq!(
        out,
        "cell [0,0]: 5 has a duplicate in row 0\n\
         cell [0,8]: 5 has a duplicate in row 0\n\
         cell [4,0]: 8 has a duplicate in col 0\n\
         cell [6,0]: 8 has a duplicate in col 0\n\
         Validation complete.\n"
    );
    let (code, out, _) = run(&["validate", "simple"], None);
    assert_eq!((code, out.as_str()), (0, "Validation complete.\n"));
    // A duplicate in a box only.
    let mut boxdup = vec![b'.'; 81];
    boxdup[0] = b'1';
    boxdup[11] = b'1';
    let boxdup = String::from_utf8(boxdup).unwrap();
    let (code, out, _) = run(&["validate", &boxdup], None);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "cell [0,0]: 1 has duplicate in its square of nine.\n\
         cell [1,2]: 1 has duplicate in its square of nine.\n\
         Validation complete.\n"
    );
    let (_, out, _) = run(&["solve", "inputs/deliberately_broken.txt"], None);
    assert!(out.ends_with(" invalid\n"), "{out}");
}

fn solutions_in_comments(file: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(format!("{}/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for w in lines.windows(2) {
        if !w[0].starts_with('#') && !w[0].is_empty() {
            if let Some(sol) = w[1].strip_prefix("# solution: ") {
                out.push((w[0].to_string(), sol.trim().to_string()));
            }
        }
    }
    out
}

#[test]
fn four_by_four_and_sixteen_by_sixteen_use_the_same_rules() {
    for file in ["inputs/4x4.txt", "inputs/16x16.txt"] {
        let expected = solutions_in_comments(file);
        assert!(!expected.is_empty());
        let (code, out, err) = run(&["solve", "--no-search", file], None);
        assert_eq!(code, 0, "{err}");
        let got: Vec<&str> = out.lines().collect();
        assert_eq!(got.len(), expected.len());
        for ((_, sol), line) in expected.iter().zip(got) {
            assert_eq!(line, format!("{sol} solved"));
        }
    }
}

#[test]
fn dump_after_the_givens_shows_the_candidates_they_leave() {
    // After round 2 the givens are placed and have eliminated themselves from their
    // peers: an independent computation of that grid must match the dump exactly.
    let puzzle = parse81(
        ".568.194.9..6.5..37..493..8897.4.635..39.68..465.8.2915..269..76..5.4..9.497.835.",
    );
    let (code, out, _) = run(&["dump", "simple", "--rounds", "2"], None);
    assert_eq!(code, 0);
    let mut expected = String::from("       ");
    for c in 0..9 {
        expected.push_str(&format!("Col: {c}     "));
    }
    expected.push('\n');
    for r in 0..9 {
        expected.push_str(&format!("Row {r}: "));
        for c in 0..9 {
            let v = puzzle[r * 9 + c];
            if v != 0 {
                expected.push_str(&format!(" --- {v} --- "));
            } else {
                let mut s = String::from(" ");
                for d in 1..=9u8 {
                    let clash = (0..9).any(|k| puzzle[r * 9 + k] == d || puzzle[k * 9 + c] == d)
                        || (0..9)
                            .any(|k| puzzle[((r / 3) * 3 + k / 3) * 9 + (c / 3) * 3 + k % 3] == d);
                    s.push(if clash { ' ' } else { (b'0' + d) as char });
                }
                expected.push_str(&format!("{s:<11}"));
            }
        }
        expected.push('\n');
    }
    assert_eq!(out, expected);
}

#[test]
fn explain_and_dump_outputs_are_stable() {
    // Golden outputs: their soundness is checked independently in
    // `sudoku_soundness.rs`; these pin down wording, order and layout.
    for (args, golden) in [
        (vec!["explain", "hard1"], "explain_hard1.txt"),
        (
            vec!["explain", "hard4", "--notation", "rc"],
            "explain_hard4_rc.txt",
        ),
        (vec!["dump", "hard3", "--rounds", "6"], "dump_hard3_r6.txt"),
        (
            vec![
                "explain",
                "--no-search",
                ".47.8...1............6..7..6....357......5....1..6....28..4.....9.1...4.....2.69.",
            ],
            "explain_stalled.txt",
        ),
    ] {
        let (code, out, err) = run(&args, None);
        assert_eq!(code, 0, "{err}");
        let path = format!("{}/tests/golden/{golden}", env!("CARGO_MANIFEST_DIR"));
        if std::env::var("UPDATE_GOLDEN").is_ok() {
            std::fs::write(&path, &out).unwrap();
        }
        let expected = std::fs::read_to_string(&path).unwrap();
        assert_eq!(out, expected, "{args:?} differs from {golden}");
    }
}

#[test]
fn a_bad_puzzle_gets_its_own_error_line_and_the_rest_go_on() {
    let input = "# two good puzzles around a bad one\n\
        .568.194.9..6.5..37..493..8897.4.635..39.68..465.8.2915..269..76..5.4..9.497.835.\n\
        .568.194.9..6.5..37..493..8897.4.635..39.68..465.8.2915..269..76..5.4..9.497.835\n\
        847...2565...8...42...7...8...3.8....51...872...5.7...4...5...76...3...9132...485\n";
    let (code, out, err) = run(&["solve", "-"], Some(input));
    // A bad line is an input that failed: exit status 1, its error on stderr.
    assert_eq!(code, 1, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].ends_with(" solved"));
    assert!(
        err.starts_with("<stdin>:3:1: error: puzzle line has 80 characters; expected 16, 81, 256 or 625 (one puzzle per line) or a 9-line block\n"),
        "{err}"
    );
    assert!(lines[1].ends_with(" solved"));
    let (code, _, err) = run(&["solve", "no/such/file.txt"], None);
    assert_eq!(code, 1);
    assert!(err.contains("1 error"), "{err}");
}
