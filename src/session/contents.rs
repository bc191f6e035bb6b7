//! One observed relation's facts on the host, each with the round it was derived in.
//!
//! In: runs of added facts sorted by row (what a commit adds), single removals.
//! Out: lookups, the count, and the facts in row order from a given row on. A batch
//! run's relation arrives as one long sorted run and is then only read: it is kept
//! as that vector (a closure of 600,000 paths is never copied into a tree). Facts
//! that come and go one by one (editing sessions) live in a tree.

use std::collections::BTreeMap;

use crate::dataflow::row::Row;

#[derive(Clone, Debug)]
pub(crate) enum Contents {
    /// Sorted by row, no row twice.
    Sorted(Vec<(Row, u32)>),
    Tree(BTreeMap<Row, u32>),
}

impl Default for Contents {
    fn default() -> Self {
        Contents::Tree(BTreeMap::new())
    }
}

impl Contents {
    pub(crate) fn len(&self) -> usize {
        match self {
            Contents::Sorted(v) => v.len(),
            Contents::Tree(t) => t.len(),
        }
    }

    pub(crate) fn clear(&mut self) {
        *self = Contents::default();
    }

    /// The round of fact `r`, if present.
    pub(crate) fn get(&self, r: &Row) -> Option<u32> {
        match self {
            Contents::Sorted(v) => v.binary_search_by(|(x, _)| x.cmp(r)).ok().map(|i| v[i].1),
            Contents::Tree(t) => t.get(r).copied(),
        }
    }

    pub(crate) fn remove(&mut self, r: &Row) {
        self.tree().remove(r);
    }

    /// Adds facts sorted by row (a row given twice keeps its later round). `keep`:
    /// a run into an empty relation, or one at least a quarter of its size, stays a
    /// sorted vector (a batch session, which only adds); otherwise the facts go into
    /// the tree, one bulk build for a long run.
    pub(crate) fn add_sorted(&mut self, mut run: Vec<(Row, u32)>, keep: bool) {
        let long = run.len() * 4 >= self.len();
        match self {
            Contents::Sorted(v) if keep && long => {
                let old = std::mem::take(v);
                // New facts after old ones: the later of two equal rows wins.
                run = merge(old, run, |y, x| y.0 < x.0);
            }
            Contents::Tree(t) if keep && t.is_empty() => {}
            _ => {
                let t = self.tree();
                if long {
                    // Sorted by row already: a linear build, then a linear merge.
                    let mut batch: BTreeMap<Row, u32> = run.into_iter().collect();
                    t.append(&mut batch);
                } else {
                    t.extend(run);
                }
                return;
            }
        }
        // The later of two equal rows wins, as in a tree.
        run.dedup_by(|later, earlier| {
            let same = later.0 == earlier.0;
            if same {
                earlier.1 = later.1;
            }
            same
        });
        run.shrink_to_fit();
        *self = Contents::Sorted(run);
    }

    /// Calls `f` on the facts from row `lo` on, in row order, while it returns true.
    pub(crate) fn scan_from(&self, lo: &Row, mut f: impl FnMut(&Row, u32) -> bool) {
        match self {
            Contents::Sorted(v) => {
                let i = v.partition_point(|(r, _)| r < lo);
                for (r, k) in &v[i..] {
                    if !f(r, *k) {
                        break;
                    }
                }
            }
            Contents::Tree(t) => {
                for (r, k) in t.range::<Row, _>(lo..) {
                    if !f(r, *k) {
                        break;
                    }
                }
            }
        }
    }

    /// The tree, built from the sorted vector the first time facts change one by one.
    fn tree(&mut self) -> &mut BTreeMap<Row, u32> {
        if let Contents::Sorted(v) = self {
            let t: BTreeMap<Row, u32> = std::mem::take(v).into_iter().collect();
            *self = Contents::Tree(t);
        }
        match self {
            Contents::Tree(t) => t,
            Contents::Sorted(_) => unreachable!("just made a tree"),
        }
    }
}

/// Two sorted runs merged into one: an element of `b` goes first where
/// `before(b's, a's)`, so equal elements keep `a`'s before `b`'s.
pub(crate) fn merge(
    a: Vec<(Row, u32)>,
    b: Vec<(Row, u32)>,
    before: impl Fn(&(Row, u32), &(Row, u32)) -> bool,
) -> Vec<(Row, u32)> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        if before(y, x) {
            out.extend(b.next());
        } else {
            out.extend(a.next());
        }
    }
    out.extend(a);
    out.extend(b);
    out
}

#[cfg(test)]
mod tests {
    use super::{merge, Contents};
    use crate::dataflow::row::{row, Row};

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
    fn sorted_and_tree_contents_answer_alike() {
        let run = vec![(r(1, 1), 0), (r(2, 5), 3), (r(2, 5), 4), (r(3, 0), 1)];
        let mut sorted = Contents::default();
        sorted.add_sorted(run.clone(), true);
        let mut tree = Contents::default();
        tree.add_sorted(run, false);
        assert!(matches!(sorted, Contents::Sorted(_)));
        assert!(matches!(tree, Contents::Tree(_)));
        for c in [&sorted, &tree] {
            assert_eq!(c.len(), 3);
            assert_eq!(c.get(&r(2, 5)), Some(4));
            assert_eq!(c.get(&r(2, 6)), None);
            assert_eq!(all(c), vec![(r(1, 1), 0), (r(2, 5), 4), (r(3, 0), 1)]);
            let mut from = Vec::new();
            c.scan_from(&r(2, 0), |x, _| {
                from.push(x[0]);
                x[0] == 2
            });
            assert_eq!(from, vec![2, 3]);
        }
        // A long run merges and stays sorted; a short one, or a removal, makes a tree.
        sorted.add_sorted(vec![(r(0, 0), 2), (r(2, 5), 7)], true);
        assert!(matches!(sorted, Contents::Sorted(_)));
        assert_eq!(
            all(&sorted),
            vec![(r(0, 0), 2), (r(1, 1), 0), (r(2, 5), 7), (r(3, 0), 1)]
        );
        sorted.remove(&r(1, 1));
        assert!(matches!(sorted, Contents::Tree(_)));
        sorted.add_sorted(vec![(r(9, 9), 1)], true);
        assert_eq!(
            all(&sorted),
            vec![(r(0, 0), 2), (r(2, 5), 7), (r(3, 0), 1), (r(9, 9), 1)]
        );
        sorted.clear();
        assert_eq!(sorted.len(), 0);
    }

    #[test]
    fn runs_merge_in_row_order() {
        let a = vec![(r(1, 0), 0), (r(4, 0), 0), (r(4, 0), 1)];
        let b = vec![(r(0, 0), 5), (r(4, 0), 2), (r(9, 0), 0)];
        let by_row = |y: &(Row, u32), x: &(Row, u32)| y.0 < x.0;
        let rows: Vec<(i32, u32)> = merge(b.clone(), a.clone(), by_row)
            .iter()
            .map(|(x, k)| (x[0], *k))
            .collect();
        assert_eq!(rows, vec![(0, 5), (1, 0), (4, 2), (4, 0), (4, 1), (9, 0)]);
        let by_round = |y: &(Row, u32), x: &(Row, u32)| y < x;
        let rows: Vec<(i32, u32)> = merge(b, a, by_round)
            .iter()
            .map(|(x, k)| (x[0], *k))
            .collect();
        assert_eq!(rows, vec![(0, 5), (1, 0), (4, 0), (4, 1), (4, 2), (9, 0)]);
        assert_eq!(merge(Vec::new(), vec![(r(1, 1), 1)], by_row).len(), 1);
    }
}
