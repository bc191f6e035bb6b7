//! One observed relation's facts on the host, each with the round it was derived in.
//!
//! In: runs of added facts sorted by row (what a commit adds), removals in row
//! order. Out: the count, and the facts in row order from a given row on. The
//! facts are a sorted vector (a run that arrives into an empty relation, or one at
//! least a quarter of its size, merged in) with a tree of what differs from it on
//! top: a closure of 600,000 paths is never copied into a tree, and facts that come
//! and go one by one (editing sessions) cost a tree's update. A fact back at the
//! vector's round leaves the tree, so a change undone leaves nothing behind. The
//! vector is shared (a commit lists its additions from the very run the contents
//! keep), and held as narrow as the dataflow's rows ([`Facts`]); a commit's rows,
//! in order, are looked up in it each from where the last ended.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::check::ir::Value;
use crate::dataflow::row::{Row, WIDTH};
use crate::dataflow::sorted::Facts;

/// Facts sorted by row, no row twice.
pub(crate) type Run = Arc<Facts>;

#[derive(Clone, Debug, Default)]
pub(crate) struct Contents {
    /// The facts as of the last long run.
    base: Run,
    /// What differs from `base`: a fact added or at another round (its round), or
    /// a fact of `base` removed (`None`).
    delta: BTreeMap<Row, Option<u32>>,
    len: usize,
    /// Where the last lookup in `base` ended: the rows of a commit come in order,
    /// so the next lookup starts there ([`Facts::find_from`]).
    near: usize,
}

impl Contents {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn clear(&mut self) {
        *self = Contents::default();
    }

    /// The round of fact `r`, if present.
    #[cfg(test)]
    fn get(&self, r: &Row) -> Option<u32> {
        match self.delta.get(r) {
            Some(k) => *k,
            None => self.base.find(r),
        }
    }

    /// Removes fact `r` if it is present at `round` (a fact that moved to another
    /// round stays). One lookup in the tree, and at most one in the vector.
    pub(crate) fn remove_at(&mut self, r: &Row, round: u32) {
        let (base, near) = (&self.base, &mut self.near);
        match self.delta.entry(*r) {
            Entry::Occupied(mut e) => {
                if *e.get() != Some(round) {
                    return;
                }
                if find_near(base, near, r).is_some() {
                    e.insert(None);
                } else {
                    e.remove();
                }
            }
            Entry::Vacant(e) => {
                if find_near(base, near, r) != Some(round) {
                    return;
                }
                e.insert(None);
            }
        }
        self.len -= 1;
    }

    /// Adds facts sorted by row (no row twice; a fact present keeps the new round).
    /// A run into an empty relation becomes its vector as it is; one at least a
    /// quarter of the relation's size is merged into a new vector; a shorter one
    /// goes into the tree.
    pub(crate) fn add_sorted(&mut self, run: Run) {
        if self.len == 0 && self.delta.is_empty() {
            self.len = run.len();
            self.base = run;
        } else if run.len() * 4 >= self.len {
            let mut now = Vec::with_capacity(self.len);
            self.scan_from(&[Value::MIN; WIDTH], |r, k| {
                now.push((*r, k));
                true
            });
            // The new round wins where a fact is present.
            let run = Arc::unwrap_or_clone(run);
            let mut all = run.like(now.into_iter()).merge(run, true);
            all.dedup_rows();
            self.len = all.len();
            self.base = Arc::new(all);
            self.delta.clear();
        } else {
            // One lookup in the tree per fact and one in the vector (from where
            // the last ended). A fact the vector holds at that very round leaves
            // the tree: the tree keeps only what differs from the vector, so a
            // change undone (an edge inserted and deleted) does not grow it.
            for (r, k) in run.iter() {
                let was = find_near(&self.base, &mut self.near, &r);
                let present = match self.delta.entry(r) {
                    Entry::Occupied(e) if was == Some(k) => e.remove().is_some(),
                    Entry::Occupied(mut e) => e.insert(Some(k)).is_some(),
                    Entry::Vacant(e) => {
                        if was != Some(k) {
                            e.insert(Some(k));
                        }
                        was.is_some()
                    }
                };
                self.len += !present as usize;
            }
        }
    }

    /// Calls `f` on the facts from row `lo` on, in row order, while it returns true.
    pub(crate) fn scan_from(&self, lo: &Row, mut f: impl FnMut(&Row, u32) -> bool) {
        let mut base = self
            .base
            .iter_from(self.base.partition_point(lo))
            .peekable();
        let mut delta = self.delta.range::<Row, _>(lo..).peekable();
        loop {
            // The next fact: the lesser row; the tree's where both have it.
            let (r, k) = match (base.peek(), delta.peek()) {
                (None, None) => return,
                (Some(&(b, _)), Some(&(d, _))) if b < *d => {
                    let (r, k) = base.next().expect("peeked");
                    (r, Some(k))
                }
                (Some(_), None) => {
                    let (r, k) = base.next().expect("peeked");
                    (r, Some(k))
                }
                (b, Some(&(d, _))) => {
                    if b.is_some_and(|&(b, _)| b == *d) {
                        base.next();
                    }
                    let (r, k) = delta.next().expect("peeked");
                    (*r, *k)
                }
            };
            if let Some(k) = k {
                if !f(&r, k) {
                    return;
                }
            }
        }
    }
}

/// The round of `r` in `base`, looked up from where the last lookup ended (`near`,
/// moved to where this one ends).
fn find_near(base: &Facts, near: &mut usize, r: &Row) -> Option<u32> {
    let (at, k) = base.find_from(r, *near);
    *near = at;
    k
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::Contents;
    use crate::dataflow::row::{row, Row};
    use crate::dataflow::sorted::Facts;

    fn r(a: i32, b: i32) -> Row {
        row(&[a, b])
    }

    fn all(c: &Contents) -> Vec<(Row, u32)> {
        let mut out = Vec::new();
        c.scan_from(&r(i32::MIN, i32::MIN), |x, k| {
            out.push((*x, k));
            true
        });
        out
    }

    #[test]
    fn a_vector_and_its_changes_answer_as_one_set() {
        // Runs held 2 wide, then at the host's width.
        same_set_as_a_tree(|v| Facts::Pairs(v.iter().map(|(x, k)| ([x[0], x[1]], *k)).collect()));
        same_set_as_a_tree(|v| Facts::Rows(v.to_vec()));
    }

    /// Read against a BTreeMap holding the same facts, after each step; `facts`
    /// holds each step's run.
    fn same_set_as_a_tree(facts: impl Fn(&[(Row, u32)]) -> Facts) {
        let mut c = Contents::default();
        let mut want = std::collections::BTreeMap::new();
        let check = |c: &Contents, want: &std::collections::BTreeMap<Row, u32>| {
            assert_eq!(c.len(), want.len());
            let listed: Vec<(Row, u32)> = want.iter().map(|(r, k)| (*r, *k)).collect();
            assert_eq!(all(c), listed);
            for x in 0..10 {
                for y in 0..10 {
                    assert_eq!(c.get(&r(x, y)), want.get(&r(x, y)).copied());
                }
            }
            let mut from = Vec::new();
            c.scan_from(&r(2, 0), |x, _| {
                from.push(x[0]);
                x[0] == 2
            });
            let expect: Vec<i32> = want
                .range(r(2, 0)..)
                .map(|(x, _)| x[0])
                .scan(true, |go, x| {
                    go.then(|| {
                        *go = x == 2;
                        x
                    })
                })
                .collect();
            assert_eq!(from, expect);
        };
        // (facts added, then facts removed)
        type Step = (Vec<(Row, u32)>, Vec<Row>);
        let steps: Vec<Step> = vec![
            // Into an empty relation: the vector itself.
            (vec![(r(1, 1), 0), (r(2, 5), 4), (r(3, 0), 1)], vec![]),
            // Short: into the tree, one of them already present (a new round).
            (vec![(r(2, 5), 6)], vec![r(1, 1)]),
            (vec![], vec![r(3, 0), r(7, 7)]),
            (vec![(r(2, 1), 2), (r(3, 0), 3)], vec![]),
            // Long: merged into a new vector (the tree's facts with it).
            (vec![(r(0, 0), 2), (r(2, 5), 7), (r(8, 8), 1)], vec![]),
            (vec![(r(9, 9), 1)], vec![r(0, 0), r(2, 1)]),
            // A fact moved to another round, then back to the vector's.
            (vec![(r(2, 5), 3)], vec![]),
            (vec![(r(2, 5), 7)], vec![]),
        ];
        for (added, removed) in steps {
            for (x, k) in &added {
                want.insert(*x, *k);
            }
            c.add_sorted(Arc::new(facts(&added)));
            for x in removed {
                // Only at the round it has: a fact at another round stays.
                if let Some(k) = want.get(&x).copied() {
                    c.remove_at(&x, k + 1);
                    check(&c, &want);
                    c.remove_at(&x, k);
                }
                c.remove_at(&x, 0);
                want.remove(&x);
            }
            check(&c, &want);
        }
        // Back at the vector's round, the fact is the vector's again.
        assert_eq!(c.delta.get(&r(2, 5)), None);
        // Merged runs keep their width.
        let narrow = matches!(facts(&[]), Facts::Pairs(_));
        assert_eq!(matches!(*c.base, Facts::Pairs(_)), narrow);
        c.clear();
        assert_eq!(c.len(), 0);
        assert_eq!(all(&c), vec![]);
    }
}
