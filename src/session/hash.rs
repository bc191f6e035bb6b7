//! The hasher of the host's sets of facts ([`super::Session`]'s inputs, program facts
//! and events): rows of small integers, hashed for every fact inserted. SipHash's
//! resistance to chosen keys buys nothing for facts a program or its host makes, and
//! hashing each inserted row twice with it cost a search ~2% of its time (a batch of
//! search nodes inserts each node's ~700 candidates). This is the multiply-rotate
//! hash rustc uses for its own tables (FxHash), eight bytes at a time.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A set keyed by rows, hashed with [`FactHasher`].
pub(crate) type FactSet<K> = HashSet<K, BuildHasherDefault<FactHasher>>;
/// A map keyed by rows, hashed with [`FactHasher`].
pub(crate) type FactMap<K, V> = HashMap<K, V, BuildHasherDefault<FactHasher>>;

/// FxHash: each word rotated into the state and multiplied by a large odd constant.
#[derive(Clone, Copy, Default)]
pub(crate) struct FactHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FactHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FactHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().expect("eight bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }
    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.add(u64::from(x));
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }
    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }
    /// The product's high bits carry the most of the input: rotated down, the hash
    /// table's bucket index (its low bits) reads them.
    #[inline]
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash<T: Hash>(t: &T) -> u64 {
        BuildHasherDefault::<FactHasher>::default().hash_one(t)
    }

    #[test]
    fn rows_that_differ_in_any_column_hash_apart() {
        let base: (usize, [i32; 8]) = (3, [7, 40, 5, 0, 0, 0, 0, 0]);
        let mut seen = std::collections::HashSet::new();
        seen.insert(hash(&base));
        for col in 0..8 {
            let mut r = base;
            r.1[col] += 1;
            assert!(seen.insert(hash(&r)), "column {col}");
        }
        assert!(seen.insert(hash(&(4usize, base.1))), "the relation");
        // A set of a batch's worth of rows keeps them all, and finds each.
        let mut set = FactSet::default();
        for p in 0..96 {
            for c in 0..81 {
                for v in 1..10 {
                    assert!(set.insert((5usize, [p, c, v, 0, 0, 0, 0, 0])));
                }
            }
        }
        assert_eq!(set.len(), 96 * 81 * 9);
        assert!(set.contains(&(5usize, [95, 80, 9, 0, 0, 0, 0, 0])));
        assert!(!set.contains(&(5usize, [96, 0, 1, 0, 0, 0, 0, 0])));
    }
}
