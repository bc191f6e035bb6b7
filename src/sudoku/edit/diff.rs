//! What one commit changed, as the editor prints it: the `+`/`-` lines of values
//! placed and no longer placed, the `candidates` lines of open cells, the new and
//! withdrawn deductions, then any contradiction (see the [module docs](super)).
//!
//! In: the commit's changes and events, and what the editor showed before it
//! ([`Visible`]). Out: the text, at the editor's horizon.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::{Editor, Visible, P};
use crate::check::ir::{RelId, Value};
use crate::session::{Commit, Event};
use crate::sudoku::grid::digit_char;

/// Where a fact (or event) stood before and after a commit: its round, if present.
#[derive(Clone, Copy, Debug, Default)]
struct Move {
    before: Option<u32>,
    after: Option<u32>,
}

/// One commit seen at the editor's horizon: what was shown before it and after.
struct CommitDiff<'a> {
    commit: &'a Commit,
    before: &'a Visible,
    after: Visible,
    /// Values of the horizon's round whose order the commit changed.
    reordered: HashSet<(usize, u8)>,
}

impl CommitDiff<'_> {
    /// Whether a placement (`placed`) or an elimination of (cell, value) was shown
    /// before the commit and after it, at the rounds the move gives.
    fn shown(&self, placed: bool, cv: (usize, u8), m: Move) -> (bool, bool) {
        let at = |vis: &Visible, r: Option<u32>| r.is_some_and(|r| vis.fact(placed, cv.0, cv.1, r));
        (at(self.before, m.before), at(&self.after, m.after))
    }
}

/// Pairs up the removals and additions of one commit by key.
fn moves<K: Ord>(entries: impl Iterator<Item = (K, u32, isize)>) -> BTreeMap<K, Move> {
    let mut out: BTreeMap<K, Move> = BTreeMap::new();
    for (k, round, diff) in entries {
        let m = out.entry(k).or_default();
        let slot = if diff < 0 {
            &mut m.before
        } else {
            &mut m.after
        };
        *slot = Some(slot.map_or(round, |r| r.min(round)));
    }
    out
}

impl Editor {
    /// The diff of one commit at the current horizon (`before`: what it showed before
    /// the commit), then any contradiction.
    pub(super) fn describe(&self, commit: &Commit, before: &Visible) -> String {
        let after = self.visible(self.horizon);
        // Values of the horizon's round that the edit reordered in or out of the
        // first `placed` are shown or hidden without changing in the commit.
        let reordered = before.first.union(&after.first).copied().collect();
        let diff = CommitDiff {
            commit,
            before,
            after,
            reordered,
        };
        let mut out = self.placement_lines(&diff);
        out.push_str(&self.candidate_lines(&diff));
        out.push_str(&self.event_lines(&diff));
        out.push_str(&self.contradictions());
        if out.is_empty() {
            out.push_str("no change\n");
        }
        out
    }

    /// One commit's changes to `rel`'s rows of the puzzle, paired by (cell, value).
    fn fact_moves(&self, commit: &Commit, rel: RelId) -> BTreeMap<(usize, u8), Move> {
        moves(
            commit
                .changes
                .iter()
                .filter(|ch| ch.rel == rel && ch.row[0] == P)
                .map(|ch| ((ch.row[1] as usize, ch.row[2] as u8), ch.round, ch.diff)),
        )
    }

    /// `+ r1c1 = 5` for each value the commit shows placed, `- r1c1 = 5` for each it
    /// no longer shows.
    fn placement_lines(&self, diff: &CommitDiff) -> String {
        let (mut solved, mut unsolved) = (Vec::new(), Vec::new());
        let mut placed_moves = self.fact_moves(diff.commit, self.placed);
        for (row, r) in self.board.rows(self.placed, &[P]) {
            let cv = (row[1] as usize, row[2] as u8);
            if diff.reordered.contains(&cv) {
                placed_moves.entry(cv).or_insert(Move {
                    before: Some(r),
                    after: Some(r),
                });
            }
        }
        for (cv, m) in placed_moves {
            match diff.shown(true, cv, m) {
                (false, true) => solved.push(cv),
                (true, false) => unsolved.push(cv),
                _ => {}
            }
        }
        let mut out = String::new();
        for (sign, list) in [('+', &solved), ('-', &unsolved)] {
            for &(c, v) in list {
                out.push_str(&format!("{sign} {} = {}\n", self.cell(c), digit_char(v)));
            }
        }
        out
    }

    /// `candidates r1c1: -3 +4` for each open cell whose shown candidates (its
    /// pencil marks, [`Editor::marks`]) the commit changed: removed values first,
    /// then restored ones. Only values whose `eliminated` or `candidate` fact the
    /// commit moved can change.
    fn candidate_lines(&self, diff: &CommitDiff) -> String {
        // The placed values alone (not the marks, which read the rows below too).
        let placed_now = self.placed_at(&self.visible(self.horizon));
        let elim_moves = self.fact_moves(diff.commit, self.eliminated);
        let cand_moves =
            (self.candidate).map_or(BTreeMap::new(), |r| self.fact_moves(diff.commit, r));
        let keys: BTreeSet<(usize, u8)> = elim_moves
            .keys()
            .chain(cand_moves.keys())
            .copied()
            .collect();
        let now = |rel: Option<RelId>| -> HashMap<(usize, u8), u32> {
            rel.map_or(Vec::new(), |r| self.board.rows(r, &[P]))
                .into_iter()
                .map(|(row, r)| ((row[1] as usize, row[2] as u8), r))
                .collect()
        };
        let (elim_now, cand_now) = if keys.is_empty() {
            Default::default()
        } else {
            (now(Some(self.eliminated)), now(self.candidate))
        };
        let unmoved = |now: &HashMap<(usize, u8), u32>, cv| {
            let r = now.get(&cv).copied();
            Move {
                before: r,
                after: r,
            }
        };
        let mut cands: BTreeMap<usize, (Vec<u8>, Vec<u8>)> = BTreeMap::new();
        for cv in keys {
            if placed_now.get(cv.0).is_none_or(|&p| p != 0) {
                continue;
            }
            let e = elim_moves
                .get(&cv)
                .copied()
                .unwrap_or_else(|| unmoved(&elim_now, cv));
            let k = cand_moves
                .get(&cv)
                .copied()
                .unwrap_or_else(|| unmoved(&cand_now, cv));
            let (struck_b, struck_a) = diff.shown(false, cv, e);
            let mark = |cand: Option<u32>, elim: Option<u32>, struck: bool| match self.candidate {
                Some(_) => cand.is_some() || (elim.is_some() && !struck),
                None => !struck,
            };
            match (
                mark(k.before, e.before, struck_b),
                mark(k.after, e.after, struck_a),
            ) {
                (true, false) => cands.entry(cv.0).or_default().0.push(cv.1),
                (false, true) => cands.entry(cv.0).or_default().1.push(cv.1),
                _ => {}
            }
        }
        let mut out = String::new();
        for (c, (removed, restored)) in cands {
            let mut line = format!("candidates {}:", self.cell(c));
            for v in removed {
                line.push_str(&format!(" -{}", digit_char(v)));
            }
            for v in restored {
                line.push_str(&format!(" +{}", digit_char(v)));
            }
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// The explanation lines of the deductions the commit shows, then those it
    /// withdraws (`withdrawn: ...`), each in log order.
    fn event_lines(&self, diff: &CommitDiff) -> String {
        let mut evs = moves(
            diff.commit
                .events
                .iter()
                .filter(|(e, _)| e.head[0] == P)
                .map(|(e, d)| ((e.rule, e.head.clone(), self.explained(e)), e.round, *d)),
        );
        for e in self.board.events() {
            if e.head[0] != P || e.head.len() < 3 {
                continue;
            }
            if diff
                .reordered
                .contains(&(e.head[1] as usize, e.head[2] as u8))
            {
                evs.entry((e.rule, e.head.clone(), self.explained(&e)))
                    .or_insert(Move {
                        before: Some(e.round),
                        after: Some(e.round),
                    });
            }
        }
        let (mut new, mut gone) = (Vec::new(), Vec::new());
        for ((rule, head, bindings), m) in evs {
            let at = |round: Option<u32>| {
                round.map(|round| Event {
                    rule,
                    round,
                    head: head.clone(),
                    bindings: bindings.clone(),
                })
            };
            let (b, a) = (at(m.before), at(m.after));
            let shown_b = b.as_ref().is_some_and(|e| diff.before.event(e));
            let shown_a = a.as_ref().is_some_and(|e| diff.after.event(e));
            match (shown_b, shown_a, a, b) {
                (false, true, Some(e), _) => new.push(e),
                (true, false, _, Some(e)) => gone.push(e),
                _ => {}
            }
        }
        let mut out = String::new();
        for l in self.render_events(new) {
            out.push_str(&l);
            out.push('\n');
        }
        for l in self.render_events(gone) {
            out.push_str(&format!("withdrawn: {l}\n"));
        }
        out
    }

    /// An event's bindings that its explanation reads: an edit that only changes the
    /// `@hint`'s (another group now derives the same hidden single) changes no line.
    fn explained(&self, e: &Event) -> Vec<Value> {
        let n = self.board.program().rules[e.rule].explain_vars().len();
        e.bindings[..n.min(e.bindings.len())].to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_pair_removals_and_additions() {
        let m = moves(
            [
                ("moved", 3, -1),
                ("moved", 5, 1),
                ("new", 2, 1),
                ("gone", 4, -1),
            ]
            .into_iter(),
        );
        let get = |k| (m[k].before, m[k].after);
        assert_eq!(get("moved"), (Some(3), Some(5)));
        assert_eq!(get("new"), (None, Some(2)));
        assert_eq!(get("gone"), (Some(4), None));
    }
}
