//! The random graph of `sudolog bench tc`, shared with `benches/tc_baseline.rs` so
//! that both measure the same edges: `edges` distinct random edges over `nodes`
//! nodes from an xorshift generator seeded by `seed`, then further edges not in it.

use std::collections::BTreeSet;

pub struct RandomGraph {
    pub edges: BTreeSet<(i32, i32)>,
    nodes: u64,
    state: u64,
}

impl RandomGraph {
    pub fn new(nodes: u64, edges: usize, seed: u64) -> RandomGraph {
        let mut g = RandomGraph {
            edges: BTreeSet::new(),
            nodes,
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        };
        while g.edges.len() < edges {
            let e = g.any_edge();
            g.edges.insert(e);
        }
        g
    }

    fn below(&mut self, n: u64) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state % n
    }

    fn any_edge(&mut self) -> (i32, i32) {
        (self.below(self.nodes) as i32, self.below(self.nodes) as i32)
    }

    /// The next random edge that is not in the graph (the graph is unchanged).
    pub fn new_edge(&mut self) -> (i32, i32) {
        loop {
            let e = self.any_edge();
            if !self.edges.contains(&e) {
                return e;
            }
        }
    }
}
