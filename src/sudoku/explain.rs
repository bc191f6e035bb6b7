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

/// Drops a line identical to the one before it in the same round: one deduction
/// that removes several candidates (a hidden pair) reads as one line, as in Drools.
pub fn dedup_lines(lines: Vec<(u32, String)>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut last: Option<(u32, String)> = None;
    for (round, line) in lines {
        if last.as_ref() != Some(&(round, line.clone())) {
            out.push(line.clone());
        }
        last = Some((round, line));
    }
    out
}
