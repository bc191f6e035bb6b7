//! Explain logs: events rendered as lines, in the order the reasoning happened.

use super::grid::{cell_drools, cell_rc, Shape};

/// How cells are named in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Notation {
    /// `[row,col]`, 0-based, as the Drools example prints.
    #[default]
    Drools,
    /// `r1c1`, 1-based.
    Rc,
}

impl Notation {
    pub fn parse(s: &str) -> Result<Notation, String> {
        match s {
            "drools" => Ok(Notation::Drools),
            "rc" => Ok(Notation::Rc),
            other => Err(format!("unknown notation '{other}'; use drools or rc")),
        }
    }
    /// A group: `row 3` 0-based as Drools counts, `row 4` in `rc` notation.
    pub fn group(self, kind: &str, i: usize) -> String {
        match self {
            Notation::Drools => format!("{kind} {i}"),
            Notation::Rc => format!("{kind} {}", i + 1),
        }
    }
    pub fn cell(self, shape: Shape, c: usize) -> String {
        match self {
            Notation::Drools => cell_drools(shape, c),
            Notation::Rc => cell_rc(shape, c),
        }
    }
}

/// Drops a line identical to an earlier line of the same round: one deduction that
/// removes several candidates (a hidden pair) reads as one line, as in Drools.
///
/// In: `(round, line)` in log order. Out: the lines, each kept at its first place.
/// Lines of one deduction need not be adjacent: the log orders a rule's events by the
/// fact they derive (cell, then value), so two hidden pairs of one kind found in one
/// round interleave when their cells do (two pairs in overlapping rows of different
/// columns), and the second line of the first pair used to survive a check against
/// the previous line only.
pub fn dedup_lines(lines: Vec<(u32, String)>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut round: Option<u32> = None;
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (r, line) in lines {
        if round != Some(r) {
            round = Some(r);
            seen.clear();
        }
        if seen.insert(line.clone()) {
            out.push(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedup_within_a_round_only() {
        let l = |r: u32, s: &str| (r, s.to_string());
        let lines = vec![
            l(3, "hidden pair in column at [2,0] and [5,0]"),
            l(3, "hidden pair in column at [3,1] and [4,1]"),
            l(3, "hidden pair in column at [2,0] and [5,0]"),
            l(4, "hidden pair in column at [2,0] and [5,0]"),
            l(4, "single 3 at [0,0]"),
        ];
        assert_eq!(
            dedup_lines(lines),
            [
                "hidden pair in column at [2,0] and [5,0]",
                "hidden pair in column at [3,1] and [4,1]",
                "hidden pair in column at [2,0] and [5,0]",
                "single 3 at [0,0]",
            ]
        );
    }
}
