//! What a commit lists: each change of an observed relation ([`Change`]), its
//! values held inline ([`Tuple`]), read from the commit's additions and removals
//! ([`ChangeList`]): listing a million changes allocates nothing.

use std::cmp::Ordering;
use std::fmt;
use std::iter::Peekable;
use std::ops::Deref;
use std::slice;

use super::contents::Run;
use crate::check::ir::{RelId, Value};
use crate::dataflow::render::{Update, EVENT};
use crate::dataflow::row::{Row, WIDTH};
use crate::dataflow::sorted;

/// A fact's values, as many as its relation's arity, held inline. It reads as a
/// slice (`t[0]`, `&t[..]`, `t.to_vec()`) and orders as one.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tuple {
    /// The values, then zeros.
    values: Row,
    len: u8,
}

impl Tuple {
    /// The first `len` values of `row`.
    pub fn new(row: &Row, len: usize) -> Tuple {
        let mut values = [0; WIDTH];
        values[..len].copy_from_slice(&row[..len]);
        Tuple {
            values,
            len: len as u8,
        }
    }

    /// `values` as a tuple. Panics past [`WIDTH`] values (no relation is wider).
    pub fn from_slice(values: &[Value]) -> Tuple {
        let mut row = [0; WIDTH];
        row[..values.len()].copy_from_slice(values);
        Tuple::new(&row, values.len())
    }
}

impl Deref for Tuple {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        &self.values[..self.len as usize]
    }
}

impl Ord for Tuple {
    fn cmp(&self, other: &Self) -> Ordering {
        self[..].cmp(&other[..])
    }
}

impl PartialOrd for Tuple {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for Tuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A change to a relation: `diff` +1 (added) or -1 (removed). `round` is the round
/// of its block in which the fact first appeared (0 outside blocks and for views).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Change {
    pub rel: RelId,
    pub row: Tuple,
    pub round: u32,
    pub diff: isize,
}

/// The changes of one relation in a commit: its additions (the run its contents
/// keep, shared; each +1) and the rest (removals, and the excess of additions of
/// more than one), each sorted by (row, round).
#[derive(Clone, Debug)]
struct RelChanges {
    rel: RelId,
    arity: usize,
    added: Run,
    rest: Vec<(Row, u32, isize)>,
}

/// Every change of a commit's relations, in order (relation, row, round). Built
/// from what the commit adds to the contents (not copied) and its removals, and
/// read by iterating: the changes of one fact at one round add up (an addition on
/// one worker and a removal on another cancel), as a merge of the workers' runs
/// would list them.
#[derive(Clone, Debug, Default)]
pub struct ChangeList {
    rels: Vec<RelChanges>,
}

impl ChangeList {
    /// In: each relation's additions (sorted by row), in relation order; the rest of
    /// the commit's changes (removals, events, additions' excess) in key order.
    pub(super) fn new(
        added: &[(RelId, Run)],
        rest: &[Update],
        arity: &dyn Fn(RelId) -> usize,
    ) -> ChangeList {
        let mut rels: Vec<RelChanges> = added
            .iter()
            .map(|(rel, run)| RelChanges {
                rel: *rel,
                arity: arity(*rel),
                added: run.clone(),
                rest: Vec::new(),
            })
            .collect();
        for u in rest.iter().filter(|u| u.tag != EVENT) {
            let rel = u.tag as RelId;
            let i = match rels.binary_search_by_key(&rel, |c| c.rel) {
                Ok(i) => i,
                Err(i) => {
                    let c = RelChanges {
                        rel,
                        arity: arity(rel),
                        added: Run::default(),
                        rest: Vec::new(),
                    };
                    rels.insert(i, c);
                    i
                }
            };
            rels[i].rest.push((u.row, u.round, u.diff));
        }
        ChangeList { rels }
    }

    /// The changes of several commits, in order, as one commit's: those of one fact
    /// at one round add up (added by one, removed by a later one: no change).
    pub(super) fn merged(lists: &[ChangeList]) -> ChangeList {
        ChangeList::of(lists.iter().flat_map(ChangeList::iter).collect())
    }

    /// A list of the changes `all` (in any order): those of one fact at one round
    /// add up.
    pub(super) fn of(mut all: Vec<Change>) -> ChangeList {
        all.sort_unstable();
        let mut rels: Vec<RelChanges> = Vec::new();
        for c in all {
            if rels.last().is_none_or(|r| r.rel != c.rel) {
                rels.push(RelChanges {
                    rel: c.rel,
                    arity: c.row.len(),
                    added: Run::default(),
                    rest: Vec::new(),
                });
            }
            let last = rels.last_mut().expect("pushed above");
            last.rest.push((c.row.values, c.round, c.diff));
        }
        ChangeList { rels }
    }

    pub fn iter(&self) -> impl Iterator<Item = Change> + '_ {
        self.rels.iter().flat_map(|c| Listing {
            of: c,
            adds: c.added.iter().peekable(),
            rest: c.rest.iter().peekable(),
        })
    }

    /// How many changes there are (counted: a pass over them).
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    pub fn to_vec(&self) -> Vec<Change> {
        self.iter().collect()
    }
}

/// One relation's changes, its additions and the rest merged in order.
struct Listing<'a> {
    of: &'a RelChanges,
    adds: Peekable<sorted::Iter<'a>>,
    rest: Peekable<slice::Iter<'a, (Row, u32, isize)>>,
}

impl Iterator for Listing<'_> {
    type Item = Change;
    fn next(&mut self) -> Option<Change> {
        loop {
            let key = match (self.adds.peek(), self.rest.peek()) {
                (None, None) => return None,
                (Some(&a), None) => a,
                (None, Some(&&(r, k, _))) => (r, k),
                (Some(&a), Some(&&(r, k, _))) => a.min((r, k)),
            };
            let mut diff = 0;
            while self.adds.next_if(|a| *a == key).is_some() {
                diff += 1;
            }
            while let Some((_, _, d)) = self.rest.next_if(|&&(r, k, _)| (r, k) == key) {
                diff += d;
            }
            if diff != 0 {
                return Some(Change {
                    rel: self.of.rel,
                    row: Tuple::new(&key.0, self.of.arity),
                    round: key.1,
                    diff,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Tuple;

    #[test]
    fn tuples_read_and_order_as_slices() {
        let t = Tuple::from_slice(&[-1]);
        let u = Tuple::from_slice(&[-1, -3]);
        assert_eq!(&t[..], &[-1]);
        assert_eq!(u.to_vec(), vec![-1, -3]);
        // As slices: a prefix first (zero padding would put [-1, -3] first).
        assert!(t < u);
        assert!(Tuple::from_slice(&[0, 5]) < Tuple::from_slice(&[1]));
        assert_eq!(format!("{u:?}"), "[-1, -3]");
    }
}
