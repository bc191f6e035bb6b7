//! The explain log prints each deduction once: a hidden pair that removes candidates
//! from both of its cells is one line, even when another pair's lines fall between
//! them in the log's order (top95 #12 printed a hidden pair line twice in one round).

use super::sudoku_common::{data, run};

/// Between two search lines (a guess or a contradiction) the log shows what one
/// commit deduced, round by round; within it a deduction's line never repeats (all
/// eliminations of one deduction happen in one round, and a search branch that
/// repeats a deduction is a later commit).
///
/// #12 is the puzzle that showed it (its hidden pairs come in search branches, which
/// depend on the cell the rules choose to guess); #4 and #5 use hidden pairs before
/// any guess.
#[test]
fn hidden_pair_printed_once_per_commit() {
    let top = data("top95.txt", 12);
    for n in [4, 5, 12] {
        let (code, out, err) = run(&["explain", &top[n - 1]], None);
        assert_eq!(code, 0, "{err}");
        assert!(
            n == 12 || out.contains("hidden pair"),
            "top95 #{n} uses hidden pairs:\n{out}"
        );
        let mut seen = std::collections::HashSet::new();
        for line in out.lines() {
            if line.starts_with("guess") || line.starts_with("contradiction") {
                seen.clear();
                continue;
            }
            assert!(
                seen.insert(line),
                "top95 #{n}: printed twice in one commit: {line}\n{out}"
            );
        }
    }
}
