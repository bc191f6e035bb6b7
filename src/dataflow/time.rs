//! Timestamps: the two renderings of one plan differ only in how a block's rounds
//! are timed.
//!
//! The top level runs at [`Epoch`]s (`u32`, one per commit), a total order. Inside a
//! fixpoint block a round is a second coordinate:
//!
//! - **Incremental** ([`Product<Epoch, u32>`]): (epoch, round) in the product order.
//!   Every epoch's rounds start again from round 0, so a commit that retracts facts
//!   is exact; deduplication (`distinct`) must replay each key's history over that
//!   partial order.
//! - **Batch** (`(Epoch, u32)` in lexicographic order): rounds of one epoch are totally
//!   ordered, so deduplication is `distinct_total` (each key's count before and after
//!   a round, no history replay). A later epoch continues from the previous fixpoint:
//!   exact for a first commit, for commits that only add facts to a monotone block,
//!   and for commits that only add facts of new instances of a keyed block. The
//!   session allows only insertions in this rendering.

use std::hash::Hash;

use differential_dataflow::difference::Semigroup;
use differential_dataflow::hashable::Hashable;
use differential_dataflow::lattice::Lattice;
use differential_dataflow::operators::arrange::{Arrange, Arranged, TraceAgent};
use differential_dataflow::operators::{CountTotal, ThresholdTotal};
use differential_dataflow::trace::implementations::{KeyBatcher, KeyBuilder, KeySpine};
use differential_dataflow::{ExchangeData, VecCollection as Collection};
use timely::order::Product;
use timely::progress::timestamp::Refines;
use timely::progress::Timestamp;

/// A timestamp the engine renders at: how it deduplicates a collection.
/// `distinct` for a totally ordered time: each key's count before and after each
/// update, no history replay. (Differential dataflow 0.25's own `distinct_total`
/// maps every count to 1, zero included, so a count that returns to zero is never
/// retracted; views shrink between rounds, and sessions retract.)
fn distinct_total<'s, T, D>(c: Collection<'s, T, D>) -> Collection<'s, T, D>
where
    T: Timestamp + Lattice + timely::order::TotalOrder,
    D: ExchangeData + Hashable,
{
    c.threshold_total(|_, n: &isize| isize::from(*n > 0))
}

/// Keys paired with `()` (by the operator that builds them), arranged as keys
/// alone: how the engine arranges every set of keys, for lookups and for counts.
pub fn arrange_keys<'s, T, K, R>(
    c: Collection<'s, T, (K, ()), R>,
    name: &str,
) -> Arranged<'s, TraceAgent<KeySpine<K, T, R>>>
where
    T: Timestamp + Lattice,
    K: ExchangeData + Hashable,
    R: ExchangeData + Semigroup,
{
    c.arrange_named::<KeyBatcher<K, T, R>, KeyBuilder<K, T, R>, KeySpine<K, T, R>>(name)
}

/// The distinct keys of `c` (paired with `()`), arranged: a reduce whose output
/// trace is the arrangement, as differential dataflow's own `distinct` builds it
/// before reading it out. Joins and antijoins that look the keys up read that trace
/// (no arrangement of their own after it). For times only partially ordered (where
/// totally ordered, a threshold costs less and arranges nothing).
pub fn distinct_keys<'s, T, K>(
    c: Collection<'s, T, (K, ())>,
) -> Arranged<'s, TraceAgent<KeySpine<K, T, isize>>>
where
    T: Timestamp + Lattice,
    K: ExchangeData + Hashable,
{
    arrange_keys(c, "Arrange: Distinct")
        .reduce_abelian::<_, KeyBuilder<K, T, isize>, KeySpine<K, T, isize>, _, _>(
            "Distinct",
            |_k, _s, t| t.push(((), 1)),
            |vec, key, upds| {
                vec.clear();
                vec.extend(upds.drain(..).map(|(v, t, r)| ((key.clone(), v), t, r)));
            },
        )
}

/// Each key's running total weight (`count_total`), from keys paired with `()`:
/// differential dataflow's `count_total` pairs them in an operator of its own first.
fn count_paired<'s, T, K, R>(c: Collection<'s, T, (K, ()), R>) -> Collection<'s, T, (K, R)>
where
    T: Timestamp + Lattice + timely::order::TotalOrder,
    K: ExchangeData + Hashable,
    R: ExchangeData + Semigroup,
{
    arrange_keys(c, "Arrange: CountTotal").count_total()
}

/// The top level's time: one epoch per commit.
pub type Epoch = u32;

pub trait Time: Timestamp + Lattice + Ord + Refines<Epoch> {
    /// Totally ordered: [`Time::count_distinct`] builds a count (and a caller that
    /// will count may prepare its input for it).
    const TOTAL: bool;
    /// The round of a time inside a block (0 for the first, and at the top level).
    fn round(&self) -> u32;
    /// One copy of every element with a positive count.
    fn distinct<'s, D: ExchangeData + Hashable>(
        c: Collection<'s, Self, D>,
    ) -> Collection<'s, Self, D>;
    /// For each key, the number of distinct values it has, as it changes: a
    /// threshold (unless `distinct`: the pairs are a set already) and a running count
    /// (no history replay, no output trace) where time is totally ordered (`TOTAL`);
    /// `None`, with nothing built, where it is only partially ordered.
    fn count_distinct<'s, K: ExchangeData + Hash, V: ExchangeData + Hash>(
        c: Collection<'s, Self, (K, V)>,
        distinct: bool,
    ) -> Option<Collection<'s, Self, (K, isize)>>;
    /// Each key's total weight (any semigroup: several weights carried side by side),
    /// as it changes, where time is totally ordered
    /// (`count_total`); `None`, with nothing built, where it is only partially ordered.
    /// The keys come paired with `()`, as the arrangement holds them, so that the
    /// operator that builds them does so (no operator of its own to pair them).
    fn count_keys<'s, K: ExchangeData + Hashable, R: ExchangeData + Semigroup>(
        c: Collection<'s, Self, (K, ()), R>,
    ) -> Option<Collection<'s, Self, (K, R)>>;
}

fn count_distinct_total<'s, T, K, V>(
    c: Collection<'s, T, (K, V)>,
    distinct: bool,
) -> Option<Collection<'s, T, (K, isize)>>
where
    T: Timestamp + Lattice + timely::order::TotalOrder,
    K: ExchangeData + Hash,
    V: ExchangeData + Hash,
{
    let c = if distinct { c } else { distinct_total(c) };
    Some(count_paired(c.map(|(k, _)| (k, ()))))
}

/// The timestamp of a block's rounds, inside an epoch of the top level.
pub trait Rounds: Time {
    /// The summary that advances a time by one round.
    fn step() -> Self::Summary;
    /// The time at round `round` of this time's epoch (`round` at least this one's).
    fn at_round(&self, round: u32) -> Self;
    /// The scope's name in timely's logs.
    const NAME: &'static str;
}

impl Time for Epoch {
    const TOTAL: bool = true;
    fn round(&self) -> u32 {
        0
    }
    fn distinct<'s, D: ExchangeData + Hashable>(
        c: Collection<'s, Self, D>,
    ) -> Collection<'s, Self, D> {
        distinct_total(c)
    }
    fn count_distinct<'s, K: ExchangeData + Hash, V: ExchangeData + Hash>(
        c: Collection<'s, Self, (K, V)>,
        distinct: bool,
    ) -> Option<Collection<'s, Self, (K, isize)>> {
        count_distinct_total(c, distinct)
    }
    fn count_keys<'s, K: ExchangeData + Hashable, R: ExchangeData + Semigroup>(
        c: Collection<'s, Self, (K, ()), R>,
    ) -> Option<Collection<'s, Self, (K, R)>> {
        Some(count_paired(c))
    }
}

impl Time for Product<Epoch, u32> {
    const TOTAL: bool = false;
    fn round(&self) -> u32 {
        self.inner
    }
    fn distinct<'s, D: ExchangeData + Hashable>(
        c: Collection<'s, Self, D>,
    ) -> Collection<'s, Self, D> {
        c.distinct()
    }
    fn count_distinct<'s, K: ExchangeData + Hash, V: ExchangeData + Hash>(
        _c: Collection<'s, Self, (K, V)>,
        _distinct: bool,
    ) -> Option<Collection<'s, Self, (K, isize)>> {
        None
    }
    fn count_keys<'s, K: ExchangeData + Hashable, R: ExchangeData + Semigroup>(
        _c: Collection<'s, Self, (K, ()), R>,
    ) -> Option<Collection<'s, Self, (K, R)>> {
        None
    }
}

impl Rounds for Product<Epoch, u32> {
    fn step() -> Self::Summary {
        Product::new(Default::default(), 1)
    }
    fn at_round(&self, round: u32) -> Self {
        Product::new(self.outer, round.max(self.inner))
    }
    const NAME: &'static str = "Block (incremental)";
}

impl Time for (Epoch, u32) {
    const TOTAL: bool = true;
    fn round(&self) -> u32 {
        self.1
    }
    fn distinct<'s, D: ExchangeData + Hashable>(
        c: Collection<'s, Self, D>,
    ) -> Collection<'s, Self, D> {
        distinct_total(c)
    }
    fn count_distinct<'s, K: ExchangeData + Hash, V: ExchangeData + Hash>(
        c: Collection<'s, Self, (K, V)>,
        distinct: bool,
    ) -> Option<Collection<'s, Self, (K, isize)>> {
        count_distinct_total(c, distinct)
    }
    fn count_keys<'s, K: ExchangeData + Hashable, R: ExchangeData + Semigroup>(
        c: Collection<'s, Self, (K, ()), R>,
    ) -> Option<Collection<'s, Self, (K, R)>> {
        Some(count_paired(c))
    }
}

impl Rounds for (Epoch, u32) {
    fn step() -> Self::Summary {
        (Default::default(), 1)
    }
    fn at_round(&self, round: u32) -> Self {
        (self.0, round.max(self.1))
    }
    const NAME: &'static str = "Block (batch)";
}
