//! What placements rule out, for the hand-written batch baselines (`sudoku_baseline`,
//! `search_baseline`), at any totally ordered time: before a loop (the givens'
//! strikes) or inside it (the singles' placements).

use differential_dataflow::lattice::Lattice;
use differential_dataflow::operators::arrange::Arranged;
use differential_dataflow::operators::ThresholdTotal;
use differential_dataflow::trace::cursor::{BatchCursor, Cursor, Navigable};
use differential_dataflow::trace::TraceReader;
use differential_dataflow::VecCollection;
use timely::order::TotalOrder;
use timely::progress::Timestamp;

use super::geometry::other_values;

/// In: placements `(p, c, v)`, `peer` (cell, other cell sharing a group) arranged by
/// cell, and optionally eliminations made otherwise (`search_baseline`'s
/// intersections). Out: each (p, c, v) ruled out, once: a placement's value from its
/// peers, the other values from its own cell, and the other eliminations.
pub fn strikes<'s, T, Tr>(
    placed: VecCollection<'s, T, (u32, u8, u8)>,
    peer: Arranged<'s, Tr>,
    also: Option<VecCollection<'s, T, (u32, u8, u8)>>,
) -> VecCollection<'s, T, (u32, u8, u8)>
where
    T: Timestamp + Lattice + TotalOrder,
    Tr: TraceReader<Batch: Navigable, Time = T> + Clone + 'static,
    for<'a> BatchCursor<Tr>: Cursor<Key<'a> = &'a u8, Val<'a> = &'a u8>,
    BatchCursor<Tr>: Cursor<Diff = isize, Time = T>,
{
    let struck = placed
        .clone()
        .map(|(p, c, v)| (c, (p, v)))
        .join_core(peer, |_c, &(p, v), &o| Some((p, o, v)))
        .concat(placed.flat_map(|(p, c, v)| other_values(v).map(move |w| (p, c, w))));
    match also {
        Some(also) => struck.concat(also),
        None => struck,
    }
    .distinct_total()
}
