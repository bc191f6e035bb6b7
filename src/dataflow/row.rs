//! The row types collections carry.
//!
//! A fixed-width array of 32-bit values: unused trailing columns are zero. Fixed
//! width avoids a heap allocation per record (measured ~3x faster and ~3x smaller in
//! differential dataflow than `Vec` rows); the price is a limit on arity and on the
//! number of variables a rule holds at once ([`crate::MAX_ARITY`]).
//!
//! The host side (sessions, outputs) uses [`Row`], [`WIDTH`] wide. A dataflow is
//! rendered at the narrowest width its plan fits ([`Wide`], see
//! [`super::render`]): every record, key and trace entry is that much smaller, which
//! is most of a narrow program's cost (transitive closure runs at width 2,
//! `singles.dl` at 4, `fast.dl` at 6).

use crate::check::ir::Value;
use crate::plan::Pick;

pub const WIDTH: usize = crate::MAX_ARITY;

/// A host-side row: [`WIDTH`] values.
pub type Row = [Value; WIDTH];

/// A row inside a dataflow rendered `W` wide.
pub type Wide<const W: usize> = [Value; W];

/// A row from a slice (at most `W` values; the rest are zero).
pub fn row<const W: usize>(values: &[Value]) -> Wide<W> {
    let mut r = [0; W];
    r[..values.len()].copy_from_slice(values);
    r
}

/// A row of another width: its first `min(V, W)` values, zeros after them.
#[inline]
pub fn rewiden<const V: usize, const W: usize>(r: &Wide<V>) -> Wide<W> {
    let mut out = [0; W];
    let n = V.min(W);
    out[..n].copy_from_slice(&r[..n]);
    out
}

/// Builds a row from picks: `Slot` from `left`, `Col` from `right`, constants as given.
#[inline]
pub fn build<const W: usize>(picks: &[Pick], left: &[Value], right: &[Value]) -> Wide<W> {
    let mut r = [0; W];
    for (i, p) in picks.iter().enumerate() {
        r[i] = match p {
            Pick::Slot(s) => left[*s],
            Pick::Col(c) => right[*c],
            Pick::Const(v) => *v,
        };
    }
    r
}

/// The values of `cols` of a row.
#[inline]
pub fn project<const W: usize>(cols: &[usize], r: &Wide<W>) -> Wide<W> {
    let mut k = [0; W];
    for (i, c) in cols.iter().enumerate() {
        k[i] = r[*c];
    }
    k
}
