//! Grading: a difficulty level and a score per puzzle, on HoDoKu's scale.
//!
//! In: the steps the rules took at a puzzle's root (explain events grouped into
//! steps by [`StepCounter`]) and whether the search had to guess. Out: a [`Grade`].
//!
//! The scale is this file's [`TECHNIQUES`] table, one row per rule label of the
//! built-in programs: the HoDoKu level the technique belongs to and the score one
//! application adds (HoDoKu's `Options.solverSteps`). As in HoDoKu, a puzzle's level
//! is the highest level of the techniques it needed, raised while its score exceeds
//! that level's [`MAX_SCORE`]. A puzzle the rules could not finish needs the search:
//! it is `Extreme`, and each guess adds [`GUESS_SCORE`] (HoDoKu's score for brute
//! force).
//!
//! A step is one application of a technique: every placement is a step; for an
//! elimination rule, the eliminations of one round that share the explanation's
//! pattern (its variables other than the cell and value acted on) are one step, as
//! HoDoKu counts a naked pair that removes four candidates once.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use crate::check::ir::{Program, Term, Value};
use crate::session::Event;

/// HoDoKu's difficulty levels, easiest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Easy,
    Medium,
    Hard,
    Unfair,
    Extreme,
}

impl Level {
    pub const ALL: [Level; 5] = [
        Level::Easy,
        Level::Medium,
        Level::Hard,
        Level::Unfair,
        Level::Extreme,
    ];

    /// HoDoKu's name: `Easy`, `Medium`, `Hard`, `Unfair`, `Extreme`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "Easy",
            Level::Medium => "Medium",
            Level::Hard => "Hard",
            Level::Unfair => "Unfair",
            Level::Extreme => "Extreme",
        }
    }

    /// A level from its name, any case (`EASY` as hodoku-py prints it, or `Easy`).
    pub fn parse(s: &str) -> Option<Level> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s))
    }

    fn next(self) -> Level {
        match self {
            Level::Easy => Level::Medium,
            Level::Medium => Level::Hard,
            Level::Hard => Level::Unfair,
            Level::Unfair | Level::Extreme => Level::Extreme,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One technique of the scale: the rule label, its level, the score of one step.
#[derive(Clone, Copy, Debug)]
pub struct Technique {
    pub label: &'static str,
    pub level: Level,
    pub score: u32,
}

const fn t(label: &'static str, level: Level, score: u32) -> Technique {
    Technique {
        label,
        level,
        score,
    }
}

/// The grading scale: every explained rule label of the built-in programs, with
/// HoDoKu's level and base score for the technique.
pub const TECHNIQUES: &[Technique] = &[
    t("single", Level::Easy, 4),
    t("hidden single", Level::Easy, 14),
    t("intersection removal", Level::Medium, 50),
    t("claiming", Level::Medium, 50),
    t("naked pair", Level::Medium, 60),
    t("hidden pair in row", Level::Medium, 70),
    t("hidden pair in column", Level::Medium, 70),
    t("hidden pair in square", Level::Medium, 70),
    t("naked triple", Level::Medium, 80),
    t("hidden triple", Level::Medium, 100),
    t("X-wing in rows", Level::Hard, 140),
    t("X-wing in columns", Level::Hard, 140),
    t("Swordfish", Level::Hard, 150),
    t("Jellyfish", Level::Hard, 160),
    t("Bivalue Universal Grave + 1", Level::Hard, 100),
    t("Skyscraper", Level::Hard, 130),
    t("2-String Kite", Level::Hard, 150),
    t("Empty Rectangle", Level::Hard, 120),
    t("W-Wing", Level::Hard, 150),
    t("XY-Wing", Level::Hard, 160),
    t("XYZ-Wing", Level::Hard, 180),
    t("Uniqueness Test 1", Level::Hard, 100),
    t("Simple Colors Trap", Level::Hard, 150),
    t("Simple Colors Wrap", Level::Hard, 150),
    t("X-Chain", Level::Unfair, 260),
    t("XY-Chain", Level::Unfair, 260),
];

/// The highest score of each level before a puzzle moves up one (HoDoKu's
/// `DifficultyLevel` maximum scores); `Extreme` has none.
pub const MAX_SCORE: [(Level, u32); 4] = [
    (Level::Easy, 800),
    (Level::Medium, 1000),
    (Level::Hard, 1600),
    (Level::Unfair, 1800),
];

/// What one guess of the search adds (HoDoKu scores a brute-force step 10,000).
pub const GUESS_SCORE: u32 = 10_000;

/// The label of the rule that places the search's guesses (`sudoku.dl`): its events
/// are the search's, counted by the guesses, not a technique.
pub const GUESS_LABEL: &str = "guess";

/// A puzzle's grade.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grade {
    pub level: Level,
    pub score: u32,
}

/// A label the scale does not know (a rule program of the user's own).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("rule label '{0}' has no level in the grading scale (src/sudoku/grade.rs); grading needs the built-in rules")]
pub struct UnknownTechnique(pub String);

/// The row of the scale for a rule label.
pub fn technique(label: &str) -> Option<&'static Technique> {
    TECHNIQUES.iter().find(|t| t.label == label)
}

/// Grades a puzzle from its steps per rule label and the guesses its search made.
pub fn grade(steps: &BTreeMap<String, u32>, guesses: u32) -> Result<Grade, UnknownTechnique> {
    let mut level = Level::Easy;
    let mut score: u32 = 0;
    for (label, &n) in steps.iter().filter(|(l, _)| *l != GUESS_LABEL) {
        let t = technique(label).ok_or_else(|| UnknownTechnique(label.clone()))?;
        level = level.max(t.level);
        score = score.saturating_add(t.score.saturating_mul(n));
    }
    if guesses > 0 {
        level = Level::Extreme;
        score = score.saturating_add(GUESS_SCORE.saturating_mul(guesses));
    }
    while let Some(&(_, max)) = MAX_SCORE.iter().find(|(l, _)| *l == level) {
        if score <= max {
            break;
        }
        level = level.next();
    }
    Ok(Grade { level, score })
}

/// Groups explain events into steps. In: events of one puzzle (any order). Out:
/// steps per rule label.
///
/// HoDoKu applies one step at a time and always takes the cheapest technique that
/// finds one, so it places every naked single it can before it looks for a hidden
/// single. The rules place all singles of a round at once; so that the score counts
/// what HoDoKu would, the placements of one round all count as the cheapest
/// placement technique that fired in that round.
pub struct StepCounter<'a> {
    rules: &'a StepRules<'a>,
    seen: HashSet<(usize, u32, Vec<Value>)>,
    /// Placement steps per round, by rule.
    placements: BTreeMap<u32, Vec<usize>>,
    steps: BTreeMap<String, u32>,
}

/// What a program's rules say about steps, worked out once for all the puzzles
/// counted: per rule, which of its explanation's variables (in binding order) are
/// part of the step's pattern (not the head's cell or value).
pub struct StepRules<'a> {
    program: &'a Program,
    pattern: Vec<Vec<bool>>,
}

impl<'a> StepRules<'a> {
    pub fn new(program: &'a Program) -> StepRules<'a> {
        StepRules {
            program,
            pattern: program.rules.iter().map(pattern_of).collect(),
        }
    }

    /// A counter for one puzzle's events.
    pub fn counter(&'a self) -> StepCounter<'a> {
        StepCounter {
            rules: self,
            seen: HashSet::new(),
            placements: BTreeMap::new(),
            steps: BTreeMap::new(),
        }
    }
}

impl StepCounter<'_> {
    /// Counts one event (of the puzzle this counter is for).
    pub fn add(&mut self, ev: &Event) {
        let pattern = &self.rules.pattern[ev.rule];
        let mut key: Vec<Value> = ev
            .bindings
            .iter()
            .zip(pattern)
            .filter(|(_, keep)| **keep)
            .map(|(&v, _)| v)
            .collect();
        let placement = key.is_empty();
        if placement {
            // A placement (or a pattern-less elimination): the fact is the step.
            key = ev.head.clone();
        }
        if self.seen.insert((ev.rule, ev.round, key)) {
            if placement {
                self.placements.entry(ev.round).or_default().push(ev.rule);
            } else {
                let label = &self.rules.program.rules[ev.rule].label;
                *self.steps.entry(label.clone()).or_default() += 1;
            }
        }
    }

    pub fn finish(mut self) -> BTreeMap<String, u32> {
        let program = self.rules.program;
        let score = |rule: &usize| {
            let label = &program.rules[*rule].label;
            technique(label).map_or(u32::MAX, |t| t.score)
        };
        for rules in self.placements.values() {
            let Some(cheapest) = rules.iter().min_by_key(|r| (score(r), **r)) else {
                continue;
            };
            let label = &program.rules[*cheapest].label;
            *self.steps.entry(label.clone()).or_default() += rules.len() as u32;
        }
        self.steps
    }
}

/// For each variable of a rule's explanation, in binding order: whether it belongs
/// to the pattern (it is not the head's cell or value, columns 1 and 2).
fn pattern_of(rule: &crate::check::ir::Rule) -> Vec<bool> {
    let acted_on: Vec<usize> = rule
        .head_args
        .iter()
        .skip(1)
        .take(2)
        .filter_map(|t| match t {
            Term::Var(v) => Some(*v),
            _ => None,
        })
        .collect();
    rule.explain_vars()
        .iter()
        .map(|v| !acted_on.contains(v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(list: &[(&str, u32)]) -> BTreeMap<String, u32> {
        list.iter().map(|(l, n)| (l.to_string(), *n)).collect()
    }

    #[test]
    fn level_is_the_hardest_technique_then_raised_by_score() {
        let g = grade(&steps(&[("single", 40), ("hidden single", 10)]), 0).unwrap();
        assert_eq!(
            g,
            Grade {
                level: Level::Easy,
                score: 300
            }
        );
        let g = grade(&steps(&[("single", 20), ("naked pair", 1)]), 0).unwrap();
        assert_eq!(
            g,
            Grade {
                level: Level::Medium,
                score: 140
            }
        );
        // 60 hidden singles: 840 > 800, so Medium; 72: 1008 > 1000, so Hard.
        let g = grade(&steps(&[("hidden single", 60)]), 0).unwrap();
        assert_eq!(g.level, Level::Medium);
        let g = grade(&steps(&[("hidden single", 72)]), 0).unwrap();
        assert_eq!(
            g,
            Grade {
                level: Level::Hard,
                score: 1008
            }
        );
        let g = grade(&steps(&[("single", 10), ("X-wing in rows", 1)]), 0).unwrap();
        assert_eq!(g.level, Level::Hard);
        let g = grade(&steps(&[("single", 10)]), 2).unwrap();
        assert_eq!(
            g,
            Grade {
                level: Level::Extreme,
                score: 20_040
            }
        );
    }

    #[test]
    fn unknown_labels_are_an_error() {
        let e = grade(&steps(&[("my rule", 1)]), 0).unwrap_err();
        assert_eq!(e, UnknownTechnique("my rule".into()));
    }

    #[test]
    fn level_names_round_trip() {
        for l in Level::ALL {
            assert_eq!(Level::parse(l.name()), Some(l));
            assert_eq!(Level::parse(&l.name().to_uppercase()), Some(l));
        }
        assert_eq!(Level::parse("Diabolical"), None);
    }
}
