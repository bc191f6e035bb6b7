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

/// In: placements `(p, c, v)`, and `peer` (cell, other cell sharing a group)
/// arranged by cell. Out: each (p, c, v) a placement rules out, once: its value from
/// its peers, and the other values from its own cell.
pub fn strikes<'s, T, Tr>(
    placed: VecCollection<'s, T, (u32, u8, u8)>,
    peer: Arranged<'s, Tr>,
) -> VecCollection<'s, T, (u32, u8, u8)>
where
    T: Timestamp + Lattice + TotalOrder,
    Tr: TraceReader<Batch: Navigable, Time = T> + Clone + 'static,
    for<'a> BatchCursor<Tr>: Cursor<Key<'a> = &'a u8, Val<'a> = &'a u8>,
    BatchCursor<Tr>: Cursor<Diff = isize, Time = T>,
{
    placed
        .clone()
        .map(|(p, c, v)| (c, (p, v)))
        .join_core(peer, |_c, &(p, v), &o| Some((p, o, v)))
        .concat(placed.flat_map(|(p, c, v)| other_values(v).map(move |w| (p, c, w))))
        .distinct_total()
}
