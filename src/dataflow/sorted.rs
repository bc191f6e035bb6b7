//! Facts sorted by row, each with a round, held as narrow as the dataflow that made
//! them: a 2-wide program's facts take 12 bytes each, not a host row's 36 (a
//! closure of 600,000 paths is 8 MB, not 24).
//!
//! In: a worker's additions of one relation, already sorted ([`Facts::Pairs`] from
//! a 2-wide dataflow, [`Facts::Rows`] otherwise). Out: the facts read as host rows
//! ([`Row`], zeros after the relation's columns), in order, from any row on.

use std::slice;

use super::row::{rewiden, Row, WIDTH};
use crate::check::ir::Value;

/// Facts a level of [`Facts::merge_all`] moves at least, to merge its pairs on
/// threads of their own (a thread costs tens of microseconds; merging this many
/// facts, a few hundred).
const PARALLEL_MERGE: usize = 1 << 16;

/// Facts sorted by (row, round).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Facts {
    /// Rows two values wide.
    Pairs(Vec<([Value; 2], u32)>),
    Rows(Vec<(Row, u32)>),
}

impl Default for Facts {
    fn default() -> Facts {
        Facts::Rows(Vec::new())
    }
}

/// The facts of a [`Facts`] read as host rows, in order.
#[derive(Clone)]
pub enum Iter<'a> {
    Pairs(slice::Iter<'a, ([Value; 2], u32)>),
    Rows(slice::Iter<'a, (Row, u32)>),
}

impl Iterator for Iter<'_> {
    type Item = (Row, u32);
    #[inline]
    fn next(&mut self) -> Option<(Row, u32)> {
        match self {
            Iter::Pairs(i) => i.next().map(|(r, k)| (rewiden(r), *k)),
            Iter::Rows(i) => i.next().copied(),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Iter::Pairs(i) => i.size_hint(),
            Iter::Rows(i) => i.size_hint(),
        }
    }
}

impl Facts {
    pub fn len(&self) -> usize {
        match self {
            Facts::Pairs(v) => v.len(),
            Facts::Rows(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The facts from position `i` on.
    pub fn iter_from(&self, i: usize) -> Iter<'_> {
        match self {
            Facts::Pairs(v) => Iter::Pairs(v[i.min(v.len())..].iter()),
            Facts::Rows(v) => Iter::Rows(v[i.min(v.len())..].iter()),
        }
    }

    pub fn iter(&self) -> Iter<'_> {
        self.iter_from(0)
    }

    /// The position of the first fact whose row is not below `lo`.
    pub fn partition_point(&self, lo: &Row) -> usize {
        match self {
            Facts::Pairs(v) => v.partition_point(|(r, _)| rewiden::<2, WIDTH>(r) < *lo),
            Facts::Rows(v) => v.partition_point(|(r, _)| r < lo),
        }
    }

    /// The round of row `r`'s first fact, if there is one (a search of the whole
    /// vector: the tests' reference for [`Facts::find_from`]).
    #[cfg(test)]
    pub fn find(&self, r: &Row) -> Option<u32> {
        self.iter_from(self.partition_point(r))
            .next()
            .filter(|(x, _)| x == r)
            .map(|(_, k)| k)
    }

    /// The round of row `r`'s first fact, if there is one, for rows looked up in
    /// order: when the fact before position `from` is below `r`, the search gallops
    /// forward from `from` (over the gap since the last row, not the whole vector).
    /// Also returns where `r` is or would go: the next lookup's `from`.
    pub fn find_from(&self, r: &Row, from: usize) -> (usize, Option<u32>) {
        let at = match self {
            Facts::Pairs(v) => seek(v, from, |(x, _)| rewiden::<2, WIDTH>(x) < *r),
            Facts::Rows(v) => seek(v, from, |(x, _)| x < r),
        };
        let k = self.iter_from(at).next().filter(|(x, _)| x == r);
        (at, k.map(|(_, k)| k))
    }

    /// Whether the fact (row, round) is here.
    pub fn contains(&self, fact: &(Row, u32)) -> bool {
        self.iter_from(self.partition_point(&fact.0))
            .take_while(|(r, _)| *r == fact.0)
            .any(|f| f == *fact)
    }

    /// Facts at this one's width (`rows`: sorted, each row as narrow as its kind
    /// allows when this one is [`Facts::Pairs`]).
    pub fn like(&self, rows: impl Iterator<Item = (Row, u32)>) -> Facts {
        match self {
            Facts::Pairs(_) => Facts::Pairs(rows.map(|(r, k)| (rewiden(&r), k)).collect()),
            Facts::Rows(_) => Facts::Rows(rows.collect()),
        }
    }

    /// This and `other` merged, both sorted: by row only (`by_row`: equal rows keep
    /// this one's facts first, so a later [`Facts::dedup_rows`] keeps `other`'s
    /// round) or by (row, round).
    pub fn merge(self, other: Facts, by_row: bool) -> Facts {
        match (self, other) {
            (a, b) if b.is_empty() => a,
            (a, b) if a.is_empty() => b,
            (Facts::Pairs(a), Facts::Pairs(b)) => Facts::Pairs(merge(a, b, by_row)),
            (Facts::Rows(a), Facts::Rows(b)) => Facts::Rows(merge(a, b, by_row)),
            (a, b) => {
                let wide = |f: Facts| match f {
                    Facts::Rows(v) => v,
                    f => f.iter().collect(),
                };
                Facts::Rows(merge(wide(a), wide(b), by_row))
            }
        }
    }

    /// Runs merged by (row, round), in pairs, level by level: each fact is moved
    /// once a level (log2 of the runs' number), not once for every run merged after
    /// it. A level that moves at least [`PARALLEL_MERGE`] facts merges its pairs on
    /// threads of their own: a commit of 16 workers' shares of a 600,000-fact closure
    /// waits for four merges of growing size, not fifteen of the whole.
    pub fn merge_all(mut runs: Vec<Facts>) -> Facts {
        runs.retain(|f| !f.is_empty());
        while runs.len() > 1 {
            let total: usize = runs.iter().map(Facts::len).sum();
            let odd = (runs.len() % 2 == 1).then(|| runs.pop()).flatten();
            let mut pairs = Vec::with_capacity(runs.len() / 2);
            let mut it = runs.into_iter();
            while let (Some(a), Some(b)) = (it.next(), it.next()) {
                pairs.push((a, b));
            }
            runs = if total >= PARALLEL_MERGE && pairs.len() > 1 {
                std::thread::scope(|s| {
                    let handles: Vec<_> = pairs
                        .into_iter()
                        .map(|(a, b)| s.spawn(move || a.merge(b, false)))
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| h.join().expect("a merge does not panic"))
                        .collect()
                })
            } else {
                pairs.into_iter().map(|(a, b)| a.merge(b, false)).collect()
            };
            runs.extend(odd);
        }
        runs.pop().unwrap_or_default()
    }

    /// Keeps one fact per row: the later of two equal rows (its round) wins.
    pub fn dedup_rows(&mut self) {
        match self {
            Facts::Pairs(v) => dedup_rows(v),
            Facts::Rows(v) => dedup_rows(v),
        }
    }

    /// Keeps the facts `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(&(Row, u32)) -> bool) {
        match self {
            Facts::Pairs(v) => v.retain(|(r, k)| keep(&(rewiden(r), *k))),
            Facts::Rows(v) => v.retain(keep),
        }
    }
}

/// The first position of `v` (sorted: `below` holds on a prefix) where `below`
/// fails. From `from` on by galloping when everything before `from` is below, by
/// a binary search of the whole slice otherwise.
fn seek<T>(v: &[T], from: usize, below: impl Fn(&T) -> bool) -> usize {
    let from = from.min(v.len());
    if from > 0 && !below(&v[from - 1]) {
        return v.partition_point(below);
    }
    if from == v.len() || !below(&v[from]) {
        return from;
    }
    // `below` holds at `at`; steps double until it fails or the slice ends.
    let (mut at, mut step) = (from, 1);
    while at + step < v.len() && below(&v[at + step]) {
        at += step;
        step *= 2;
    }
    let end = (at + step).min(v.len());
    at + 1 + v[at + 1..end].partition_point(below)
}

/// Keeps one fact per row in facts sorted by row: the later of two equal rows
/// (its round) wins.
fn dedup_rows<R: PartialEq>(v: &mut Vec<(R, u32)>) {
    v.dedup_by(|later, earlier| {
        let same = later.0 == earlier.0;
        if same {
            earlier.1 = later.1;
        }
        same
    });
}

/// Two sorted runs merged into one (by row only, or by row and round); where they
/// are equal, `a`'s facts go first.
fn merge<R: Ord + Copy>(a: Vec<(R, u32)>, b: Vec<(R, u32)>, by_row: bool) -> Vec<(R, u32)> {
    let before = |y: &(R, u32), x: &(R, u32)| if by_row { y.0 < x.0 } else { y < x };
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
    use super::Facts;
    use crate::dataflow::row::{row, Row};

    fn r(a: i32, b: i32) -> Row {
        row(&[a, b])
    }

    /// The same facts held both ways.
    fn both(facts: &[(i32, i32, u32)]) -> [Facts; 2] {
        [
            Facts::Pairs(facts.iter().map(|&(a, b, k)| ([a, b], k)).collect()),
            Facts::Rows(facts.iter().map(|&(a, b, k)| (r(a, b), k)).collect()),
        ]
    }

    #[test]
    fn lookups_from_a_position_find_what_a_search_finds() {
        let facts: Vec<(i32, i32, u32)> =
            (0..40).map(|i| (i / 7, (i * 5) % 11, i as u32)).collect();
        let mut sorted = facts.clone();
        sorted.sort();
        sorted.dedup_by_key(|f| (f.0, f.1));
        for f in both(&sorted) {
            for from in 0..=f.len() + 2 {
                for x in -1..7 {
                    for y in -1..12 {
                        let at = f.partition_point(&r(x, y));
                        assert_eq!(f.find_from(&r(x, y), from), (at, f.find(&r(x, y))));
                    }
                }
            }
        }
    }

    #[test]
    fn pairs_read_as_the_rows_they_hold() {
        let [p, w] = both(&[(-3, 1, 0), (0, 0, 2), (0, 5, 1), (0, 5, 4), (7, -1, 3)]);
        assert_eq!(p.iter().collect::<Vec<_>>(), w.iter().collect::<Vec<_>>());
        for f in [&p, &w] {
            assert_eq!(f.len(), 5);
            assert_eq!(f.partition_point(&r(0, 1)), 2);
            assert_eq!(f.partition_point(&r(i32::MIN, i32::MIN)), 0);
            assert_eq!(f.partition_point(&r(9, 9)), 5);
            assert_eq!(f.find(&r(0, 5)), Some(1));
            assert_eq!(f.find(&r(0, 4)), None);
            assert!(f.contains(&(r(0, 5), 4)));
            assert!(!f.contains(&(r(0, 5), 3)));
            assert_eq!(f.iter_from(4).collect::<Vec<_>>(), vec![(r(7, -1), 3)]);
            assert_eq!(f.iter_from(9).count(), 0);
        }
    }

    #[test]
    fn many_runs_merge_as_one_sort_would_order_them() {
        // Runs of every size, overlapping, some rows in several: small ones merged
        // on this thread, and ones large enough to merge on threads of their own.
        for (n, len) in [(0, 0), (1, 5), (3, 7), (16, 40), (5, 20_000), (16, 9_000)] {
            let runs: Vec<Vec<(i32, i32, u32)>> = (0..n)
                .map(|w: i32| {
                    let mut v: Vec<_> = (0..len)
                        .map(|i| ((i * 7 + w) % 5_000, i % 3, (i + w) as u32 % 4))
                        .collect();
                    v.sort_by_key(|&(a, b, k)| (a, b, k));
                    v
                })
                .collect();
            let mut want: Vec<_> = runs.iter().flatten().copied().collect();
            want.sort_by_key(|&(a, b, k)| (a, b, k));
            for wide in [false, true] {
                let all = Facts::merge_all(
                    runs.iter()
                        .map(|v| both(v)[wide as usize].clone())
                        .collect(),
                );
                assert_eq!(matches!(all, Facts::Rows(_)), wide || n == 0);
                let got: Vec<_> = all.iter().map(|(x, k)| (x[0], x[1], k)).collect();
                assert_eq!(got, want, "{n} runs of {len}");
            }
        }
    }

    #[test]
    fn merges_keep_the_width_and_the_order() {
        let [pa, wa] = both(&[(1, 0, 0), (4, 0, 0), (4, 0, 1)]);
        let [pb, wb] = both(&[(0, 0, 5), (4, 0, 2), (9, 0, 0)]);
        let rows = |f: &Facts| f.iter().map(|(x, k)| (x[0], k)).collect::<Vec<_>>();
        // By (row, round): the same whichever run goes first.
        let by_round = vec![(0, 5), (1, 0), (4, 0), (4, 1), (4, 2), (9, 0)];
        for (a, b) in [(&pa, &pb), (&pb, &pa), (&wa, &wb), (&wb, &wa)] {
            assert_eq!(rows(&a.clone().merge(b.clone(), false)), by_round);
        }
        // By row only: this one's facts before other's where rows are equal.
        let m = pa.clone().merge(pb.clone(), true);
        assert!(matches!(m, Facts::Pairs(_)));
        assert_eq!(rows(&m), by_round);
        let b_first = vec![(0, 5), (1, 0), (4, 2), (4, 0), (4, 1), (9, 0)];
        assert_eq!(rows(&pb.clone().merge(pa.clone(), true)), b_first);
        assert_eq!(rows(&wb.clone().merge(wa.clone(), true)), b_first);
        // Mixed widths widen; empty runs give way.
        assert_eq!(rows(&pa.clone().merge(wb.clone(), true)), by_round);
        assert_eq!(Facts::default().merge(pb.clone(), true), pb);
        let mut d = pb.merge(pa, true);
        d.dedup_rows();
        assert_eq!(rows(&d), vec![(0, 5), (1, 0), (4, 1), (9, 0)]);
        d.retain(|(x, _)| x[0] != 1);
        assert_eq!(rows(&d), vec![(0, 5), (4, 1), (9, 0)]);
        assert!(matches!(d, Facts::Pairs(_)));
        assert_eq!(rows(&wa.like(d.iter())), rows(&d));
    }
}
