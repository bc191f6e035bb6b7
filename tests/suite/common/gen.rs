//! Random programs, facts and update sequences for differential tests, all determined
//! by a `u64` seed (own xorshift generator, no crates).
//!
//! # The syntax emitted
//!
//! Soufflé-like text, as described in `src/syntax/ast.rs`. Every construct used:
//!
//! ```text
//! // generated: seed 7                        line comments
//! .decl e0(c0: number, c1: number)            relation declaration (numbers only)
//! .input e0                                   facts also come from outside
//! .output r0                                  (one name per line, or `.output s0, w0`)
//! e0(1, 2).                                   a fact
//! r0(x, y) :- e0(x, y), !e1(y, _), x < y.     rule; `_` wildcard; `!` negation
//! r1(x, z) :- r1(x, y), e0(y, z).             recursion (positive only)
//! r2(x, z) :- e0(x, y), z = (x + y) % 6.      arithmetic assignment (`+ - * / %`,
//! r2(x, z) :- e0(x, y), (y * 2) % 6 = z.        unary `-`), either side of `=`
//! r3(x, n) :- e1(x), n = count : { e0(x, _) }.       aggregates; the group may be
//! r3(x, s) :- e1(x), s = sum y : { e0(x, y) }.         empty (count/sum give 0,
//! r3(x, m) :- e1(x), m = min y : { e0(x, y), y > 1 }.  min/max nothing); the result
//! r3(x, m) :- e1(x), m = max (y / y) : { e0(x, y) }.   may be an already bound
//! r4(x) :- e0(x, n), n = count : { e1(_) }.            variable (then a filter)
//! r4(x, s) :- e1(x), s = sum z : { e0(x, y), e2(y, z) }.  a second atom, on a local
//! @label(l3) @explain("r5 got {x} from {y} and {x}")   annotations, before a rule
//! r5(x, y) :- r4(x), e0(x, y).
//! .fixpoint key 0 {                           fixpoint block; `key 0` optional:
//!     .decl s0(c0: number, c1: number)        `.fixpoint { ... }` is one instance
//!     .view w0(c0: number, c1: number)        view: recomputed every round
//!     s0(0, 1).                               fact of a state relation
//!     w0(k, x) :- e0(k, x), !s0(k, x).        views may negate/aggregate state and
//!     w1(k, n) :- e1(k), n = count : { s0(k, _) }.   earlier views
//!     @tier(1) @explain("pick {x} for {k}")   tiers and explanations on state rules
//!     @ungated                                state rules outside tier gating
//!     s0(k, x) :- w0(k, x), x > 2.
//!     s0(k, z) :- s0(k, x), e2(x, z), !w0(k, z).          chain: grows per round
//!     s1(k, x) :- w0(k, x), n = count : { w0(k, _) }, n = 1.   single candidate
//!     w0(3).                                  fact of a view (`Features::view_facts`)
//! }
//! .output s0, w0, w1                          directives for block relations come after it
//! ```
//!
//! Relation names: `e*` inputs (level 0), `f*` facts-only relations, `r*` ordinary
//! relations, `s*` accumulating (state) relations, `w*` views. Variables are lower-case
//! names (`x3`, `y5` for aggregate locals, `z2` assignments, `n4` aggregate results); a
//! variable that would occur only once is written `_`.
//!
//! # Why generated programs are valid
//!
//! Relations are arranged in levels: inputs at 0, then per level either one or two
//! ordinary relations (two for mutual recursion) or one fixpoint block. A rule of an
//! ordinary relation at level L reads positively anything below L and (recursion) the
//! relations of its own level; negation and aggregates only read below L. A view of a
//! block reads anything below the block, the block's state and earlier views of the
//! block; a state rule reads anything below, the state and all views of its block.
//! Every variable is bound by a positive atom, an assignment or an aggregate before
//! anything else uses it (the body is then optionally shuffled: the checker must find
//! the order). Aggregate bodies bind their own locals.
//!
//! Termination: inputs and constants are in `0..6`; arithmetic that feeds recursion
//! is either reduced `% 6`, guarded (`z = x + 1, z < 6`; `z = x - 1, z >= 0`), or
//! cannot grow (`x / y`, `x % y`). Counts and sums over a block's own relations may grow
//! with the state, so such values ("tainted") never reach a state relation's head
//! except through `% 6`. Aggregate targets use only the aggregate's own variables.
//!
//! Checked in a scratch harness (outside the repository): thousands of generated
//! programs pass the real parser and checker, and the engine agrees with
//! `naive::evaluate` on contents, rounds and events through random update sequences.

use std::collections::BTreeSet;

/// Values of inputs, facts and constants are in `0..DOMAIN`.
pub const DOMAIN: i32 = 6;

/// A small xorshift64 generator (seeded through splitmix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(if z == 0 { 1 } else { z })
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0);
        (self.next_u64() % n as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    pub fn value(&mut self) -> i32 {
        self.below(DOMAIN as usize) as i32
    }
    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
}

/// Which constructs a generated program may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// Several atoms per body, shared variables, constants, repeated variables, `_`.
    pub joins: bool,
    /// Stratified negation (and negation over state inside blocks).
    pub negation: bool,
    /// Comparison filters.
    pub comparisons: bool,
    /// Arithmetic assignments and arithmetic in comparisons.
    pub arithmetic: bool,
    /// count/sum/min/max.
    pub aggregates: bool,
    /// Positive self-recursion.
    pub recursion: bool,
    /// Two relations recursive through each other.
    pub mutual_recursion: bool,
    /// `.fixpoint` blocks with state relations and views.
    pub blocks: bool,
    /// `@tier(N)` on state rules (only with `blocks`).
    pub tiers: bool,
    /// Facts written for views (`w0(1).` inside a block; a view is its facts ∪ its
    /// rules).
    pub view_facts: bool,
    /// `@explain("...")` on some rules.
    pub explain: bool,
    /// `@label(name)` on some rules.
    pub labels: bool,
    /// Write body literals in a random order (a variable may be used before the atom
    /// binding it).
    pub shuffle: bool,
}

impl Features {
    pub const ALL: Features = Features {
        joins: true,
        negation: true,
        comparisons: true,
        arithmetic: true,
        aggregates: true,
        recursion: true,
        mutual_recursion: true,
        blocks: true,
        tiers: true,
        view_facts: true,
        explain: true,
        labels: true,
        shuffle: true,
    };
    /// Single-atom rules with distinct variables, facts, inputs: nothing else.
    pub const NONE: Features = Features {
        joins: false,
        negation: false,
        comparisons: false,
        arithmetic: false,
        aggregates: false,
        recursion: false,
        mutual_recursion: false,
        blocks: false,
        tiers: false,
        view_facts: false,
        explain: false,
        labels: false,
        shuffle: false,
    };
    /// Plain stratified Datalog with everything but blocks and annotations.
    pub const DATALOG: Features = Features {
        blocks: false,
        tiers: false,
        explain: false,
        labels: false,
        ..Features::ALL
    };
}

/// A generated program and what a test needs to know about it.
#[derive(Clone, Debug)]
pub struct Generated {
    pub text: String,
    /// `.input` relations with their arities (for [`random_facts`]).
    pub inputs: Vec<(String, usize)>,
    /// Every declared relation with its arity.
    pub relations: Vec<(String, usize)>,
    /// `.output` relations.
    pub outputs: Vec<String>,
}

/// The text of a random valid program.
pub fn random_program(seed: u64, features: Features) -> String {
    generate(seed, features).text
}

/// Random facts for the given relations (name, arity): up to 5, 10 or 14 distinct
/// tuples for arity 1, 2 or 3 (sometimes none, so that aggregate groups and negations see
/// empty relations), values in `0..DOMAIN`. Sorted by relation (in `decls` order), then
/// tuple.
pub fn random_facts(seed: u64, decls: &[(String, usize)]) -> Vec<(String, Vec<i32>)> {
    let mut rng = Rng::new(seed ^ 0xFAC7_5EED);
    let mut out = Vec::new();
    for (name, arity) in decls {
        let max = match arity {
            0 => 1,
            1 => 5,
            2 => 10,
            _ => 14,
        };
        let n = if rng.chance(5) {
            0
        } else {
            rng.range(max.min(2), max)
        };
        let mut set = BTreeSet::new();
        for _ in 0..n {
            set.insert((0..*arity).map(|_| rng.value()).collect::<Vec<i32>>());
        }
        out.extend(set.into_iter().map(|t| (name.clone(), t)));
    }
    out
}

/// One change to the inputs: relation, tuple, `true` to insert, `false` to retract.
pub type Update = (String, Vec<i32>, bool);

/// A sequence of 2 to 6 commits over facts drawn from `pool`, starting from empty
/// inputs. The first commit inserts about half the pool; later ones insert or retract
/// 0 to 4 facts each. Every update is effective: a fact is inserted only when absent and
/// retracted only when present (relative to the state before the commit), and no fact
/// appears twice in a commit. See [`facts_after`].
pub fn random_updates(seed: u64, pool: &[(String, Vec<i32>)]) -> Vec<Vec<Update>> {
    let mut rng = Rng::new(seed ^ 0x0DA7_E5EE);
    let mut pool: Vec<(String, Vec<i32>)> = pool.to_vec();
    pool.sort();
    pool.dedup();
    let mut present: BTreeSet<usize> = BTreeSet::new();
    let mut commits = Vec::new();
    let n = rng.range(2, 6);
    for c in 0..n {
        if pool.is_empty() {
            commits.push(Vec::new());
            continue;
        }
        let count = if c == 0 {
            pool.len().div_ceil(2)
        } else {
            rng.range(0, 4).min(pool.len())
        };
        let mut chosen: Vec<usize> = (0..pool.len()).collect();
        rng.shuffle(&mut chosen);
        chosen.truncate(count);
        let mut commit = Vec::new();
        for i in chosen {
            // Effective: insert when absent, retract when present.
            let insert = present.insert(i);
            if !insert {
                present.remove(&i);
            }
            commit.push((pool[i].0.clone(), pool[i].1.clone(), insert));
        }
        commits.push(commit);
    }
    commits
}

/// A longer and rougher sequence than [`random_updates`]: `commits` commits over facts
/// drawn from `pool`, starting from empty inputs. The first commit inserts about half
/// the pool; the others make 1 to 5 changes each, mostly effective, but some insert a
/// fact already present, retract one that is absent, or insert and retract the same
/// fact within the commit (in that order or the other); about one commit in eight
/// retracts everything present. Updates apply in order with set semantics, as
/// [`facts_after`] does.
pub fn random_edits(seed: u64, pool: &[(String, Vec<i32>)], commits: usize) -> Vec<Vec<Update>> {
    let mut rng = Rng::new(seed ^ 0xED17_5EED);
    let mut pool: Vec<(String, Vec<i32>)> = pool.to_vec();
    pool.sort();
    pool.dedup();
    let mut present: BTreeSet<usize> = BTreeSet::new();
    let mut out = Vec::new();
    for c in 0..commits {
        let mut commit: Vec<Update> = Vec::new();
        let mut op = |i: usize, insert: bool, present: &mut BTreeSet<usize>| {
            if insert {
                present.insert(i);
            } else {
                present.remove(&i);
            }
            commit.push((pool[i].0.clone(), pool[i].1.clone(), insert));
        };
        if pool.is_empty() {
        } else if c == 0 {
            let mut chosen: Vec<usize> = (0..pool.len()).collect();
            rng.shuffle(&mut chosen);
            chosen.truncate(pool.len().div_ceil(2));
            for i in chosen {
                op(i, true, &mut present);
            }
        } else if rng.chance(12) {
            for i in present.clone() {
                op(i, false, &mut present);
            }
        } else {
            for _ in 0..rng.range(1, 5) {
                let i = rng.below(pool.len());
                let roll = rng.below(100);
                if roll < 75 {
                    // Effective.
                    let insert = !present.contains(&i);
                    op(i, insert, &mut present);
                } else if roll < 87 {
                    // Ineffective.
                    let insert = present.contains(&i);
                    op(i, insert, &mut present);
                } else {
                    // Both ways round within the commit.
                    let first = rng.chance(50);
                    op(i, first, &mut present);
                    op(i, !first, &mut present);
                }
            }
        }
        out.push(commit);
    }
    out
}

/// The input facts after applying the first `upto` commits to empty inputs (sorted).
pub fn facts_after(commits: &[Vec<Update>], upto: usize) -> Vec<(String, Vec<i32>)> {
    let mut set: BTreeSet<(String, Vec<i32>)> = BTreeSet::new();
    for commit in &commits[..upto] {
        for (name, t, insert) in commit {
            if *insert {
                set.insert((name.clone(), t.clone()));
            } else {
                set.remove(&(name.clone(), t.clone()));
            }
        }
    }
    set.into_iter().collect()
}

// ---------------------------------------------------------------------------------------
// Program generation.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Level 0: `.input` (and maybe facts), or facts only.
    Edb,
    Plain,
    State,
    View,
}

#[derive(Clone, Debug)]
struct Rel {
    name: String,
    arity: usize,
    level: usize,
    kind: Kind,
    block: Option<usize>,
    /// Position among its block's views.
    view_index: usize,
    input: bool,
    /// Per column: may hold values that grow with the state of the block (views only).
    tainted: Vec<bool>,
}

#[derive(Clone, Debug)]
enum Term {
    Var(String),
    Num(i32),
    Wild,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Rem => "%",
        }
    }
    fn prec(self) -> u8 {
        match self {
            Op::Add | Op::Sub => 1,
            Op::Mul | Op::Div | Op::Rem => 2,
        }
    }
}

#[derive(Clone, Debug)]
enum Ex {
    Var(String),
    Num(i32),
    Bin(Op, Box<Ex>, Box<Ex>),
    Neg(Box<Ex>),
}

fn var(v: &str) -> Ex {
    Ex::Var(v.to_string())
}
fn bin(op: Op, a: Ex, b: Ex) -> Ex {
    Ex::Bin(op, Box::new(a), Box::new(b))
}

#[derive(Clone, Debug)]
enum Lit {
    Atom(usize, Vec<Term>),
    Neg(usize, Vec<Term>),
    Cmp(Ex, &'static str, Ex),
    Agg {
        result: String,
        func: &'static str,
        target: Option<Ex>,
        body: Vec<Lit>,
    },
}

#[derive(Clone, Debug)]
struct GRule {
    head: usize,
    args: Vec<Term>,
    body: Vec<Lit>,
    tier: Option<u32>,
    /// `@ungated` (state rules without a tier or an explanation).
    ungated: bool,
    explain: Option<String>,
    label: Option<String>,
}

struct Gen {
    rng: Rng,
    f: Features,
    rels: Vec<Rel>,
    labels: usize,
    /// The rule being made should likely derive something: few atoms, at most one
    /// extra literal. (The first rule of each ordinary relation is easy, so that fewer
    /// relations end up empty and starve everything above them.)
    easy: bool,
}

/// Which relations a rule may read.
struct Access {
    pos: Vec<usize>,
    /// Negation and aggregates.
    neg: Vec<usize>,
    /// The rule is inside a block (tainting applies).
    block: Option<usize>,
}

/// Builds one rule body.
struct Body {
    lits: Vec<Lit>,
    /// Outer variables bound so far, with their taint.
    bound: Vec<(String, bool)>,
    next: usize,
}

impl Body {
    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }
    fn vars(&self, untainted_only: bool) -> Vec<String> {
        self.bound
            .iter()
            .filter(|(_, t)| !untainted_only || !t)
            .map(|(v, _)| v.clone())
            .collect()
    }
    fn taint(&self, v: &str) -> bool {
        self.bound.iter().any(|(w, t)| w == v && *t)
    }
}

/// The program text for `seed` and `features`, with its relations.
pub fn generate(seed: u64, features: Features) -> Generated {
    let mut g = Gen {
        rng: Rng::new(seed),
        f: features,
        rels: Vec::new(),
        labels: 0,
        easy: false,
    };
    let mut text =
        format!("// generated by tests/suite/common/gen.rs: seed {seed}, {features:?}\n");

    // Level 0.
    let n_edb = g.rng.range(2, 4);
    for i in 0..n_edb {
        let arity = g.rng.range(1, 3);
        g.add_rel(format!("e{i}"), arity, 0, Kind::Edb, None, true);
    }
    if g.rng.chance(30) {
        let arity = g.rng.range(1, 2);
        g.add_rel("f0".into(), arity, 0, Kind::Edb, None, false);
    }
    for r in 0..g.rels.len() {
        text += &g.decl(r, ".decl");
        if g.rels[r].input {
            text += &format!(".input {}\n", g.rels[r].name);
        }
        let n_facts = if g.rels[r].input {
            if g.rng.chance(30) {
                g.rng.range(1, 2)
            } else {
                0
            }
        } else {
            g.rng.range(1, 5)
        };
        text += &g.facts(r, n_facts);
    }

    let levels = g.rng.range(2, 5);
    let mut n_plain = 0;
    let mut n_state = 0;
    let mut n_view = 0;
    let mut n_blocks = 0;
    for level in 1..=levels {
        if g.f.blocks && n_blocks < 2 && (g.rng.chance(45) || (level == levels && n_blocks == 0)) {
            text += &g.block(level, n_blocks, &mut n_state, &mut n_view);
            n_blocks += 1;
            continue;
        }
        let mutual = g.f.mutual_recursion && g.rng.chance(35);
        let count = if mutual { 2 } else { 1 };
        let mut group = Vec::new();
        for _ in 0..count {
            let arity = g.rng.range(1, 3);
            group.push(g.add_rel(
                format!("r{n_plain}"),
                arity,
                level,
                Kind::Plain,
                None,
                false,
            ));
            n_plain += 1;
        }
        for &r in &group {
            text += &g.decl(r, ".decl");
            text += &format!(".output {}\n", g.rels[r].name);
            if g.rng.chance(15) {
                text += &g.facts(r, 1);
            }
        }
        let recursive = mutual || (g.f.recursion && g.rng.chance(50));
        for (i, &r) in group.iter().enumerate() {
            let lower: Vec<usize> = (0..g.rels.len())
                .filter(|&q| g.rels[q].level < level)
                .collect();
            let access = Access {
                pos: lower.clone(),
                neg: lower.clone(),
                block: None,
            };
            for k in 0..g.rng.range(1, 3) {
                g.easy = k == 0;
                let rule = g.rule(r, &access, None);
                g.easy = false;
                text += &g.render(&rule, "");
            }
            if recursive {
                // Recursive rules start with an atom of the group: the other relation
                // for mutual recursion, else this one.
                let rec = group[(i + 1) % group.len()];
                let mut pos = lower.clone();
                pos.extend(&group);
                let access = Access {
                    pos,
                    neg: lower,
                    block: None,
                };
                for _ in 0..g.rng.range(1, 2) {
                    let rule = g.rule(r, &access, Some(rec));
                    text += &g.render(&rule, "");
                }
            }
        }
    }

    let inputs = g
        .rels
        .iter()
        .filter(|r| r.input)
        .map(|r| (r.name.clone(), r.arity))
        .collect();
    let relations = g.rels.iter().map(|r| (r.name.clone(), r.arity)).collect();
    let outputs = g
        .rels
        .iter()
        .filter(|r| r.kind != Kind::Edb)
        .map(|r| r.name.clone())
        .collect();
    Generated {
        text,
        inputs,
        relations,
        outputs,
    }
}

impl Gen {
    fn add_rel(
        &mut self,
        name: String,
        arity: usize,
        level: usize,
        kind: Kind,
        block: Option<usize>,
        input: bool,
    ) -> usize {
        self.rels.push(Rel {
            name,
            arity,
            level,
            kind,
            block,
            view_index: 0,
            input,
            tainted: vec![false; arity],
        });
        self.rels.len() - 1
    }

    fn decl(&self, r: usize, keyword: &str) -> String {
        let cols: Vec<String> = (0..self.rels[r].arity)
            .map(|c| format!("c{c}: number"))
            .collect();
        format!("{keyword} {}({})\n", self.rels[r].name, cols.join(", "))
    }

    fn facts(&mut self, r: usize, n: usize) -> String {
        let mut out = String::new();
        for _ in 0..n {
            let vals: Vec<String> = (0..self.rels[r].arity)
                .map(|_| self.rng.value().to_string())
                .collect();
            out += &format!("{}({}).\n", self.rels[r].name, vals.join(", "));
        }
        out
    }

    /// A fixpoint block at `level`.
    fn block(&mut self, level: usize, b: usize, n_state: &mut usize, n_view: &mut usize) -> String {
        let key = self.rng.chance(70);
        let mut text = if key {
            ".fixpoint key 0 {\n".to_string()
        } else {
            ".fixpoint {\n".to_string()
        };
        let mut state = Vec::new();
        for _ in 0..self.rng.range(1, 2) {
            let arity = self.rng.range(1, 3);
            state.push(self.add_rel(
                format!("s{n_state}"),
                arity,
                level,
                Kind::State,
                Some(b),
                false,
            ));
            *n_state += 1;
        }
        let n_views = if self.f.negation || self.f.aggregates {
            self.rng.range(1, 2)
        } else {
            self.rng.range(0, 1)
        };
        let mut views = Vec::new();
        for i in 0..n_views {
            let arity = self.rng.range(1, 3);
            let v = self.add_rel(
                format!("w{n_view}"),
                arity,
                level,
                Kind::View,
                Some(b),
                false,
            );
            self.rels[v].view_index = i;
            views.push(v);
            *n_view += 1;
        }
        for &s in &state {
            text += &format!("    {}", self.decl(s, ".decl"));
        }
        for &v in &views {
            text += &format!("    {}", self.decl(v, ".view"));
        }
        for &s in &state {
            if self.rng.chance(30) {
                let n = self.rng.range(1, 2);
                for line in self.facts(s, n).lines() {
                    text += &format!("    {line}\n");
                }
            }
        }
        let lower: Vec<usize> = (0..self.rels.len())
            .filter(|&q| self.rels[q].level < level)
            .collect();
        for (i, &v) in views.iter().enumerate() {
            // (The chance is drawn either way so the flag changes nothing else.)
            if self.rng.chance(10) && self.f.view_facts {
                for line in self.facts(v, 1).lines() {
                    text += &format!("    {line}\n");
                }
            }
            let mut pos = lower.clone();
            pos.extend(&state);
            pos.extend(&views[..i]);
            let access = Access {
                pos: pos.clone(),
                neg: pos,
                block: Some(b),
            };
            for k in 0..self.rng.range(1, 2) {
                // The first rule of a view reads something below the block and looks at
                // the state through negation or an aggregate when it can.
                let rule = if k == 0 {
                    self.view_rule(v, &lower, &state, &access)
                } else {
                    self.rule(v, &access, None)
                };
                text += &self.render(&rule, "    ");
            }
        }
        let mut all = lower.clone();
        all.extend(&state);
        all.extend(&views);
        let access = Access {
            pos: all.clone(),
            neg: all,
            block: Some(b),
        };
        for (i, &s) in state.iter().enumerate() {
            for k in 0..self.rng.range(1, 3) {
                // Seed rule from below, then rules that read views or the state.
                let first = if i == 0 && k == 0 {
                    if lower.is_empty() {
                        None
                    } else {
                        Some(*self.rng.pick(&lower))
                    }
                } else if !views.is_empty() && self.rng.chance(70) {
                    Some(*self.rng.pick(&views))
                } else {
                    None
                };
                self.easy = k == 0;
                let mut rule = self.rule(s, &access, first);
                self.easy = false;
                rule.tier = self.tier();
                rule.ungated = self.ungated(&rule);
                text += &self.render(&rule, "    ");
            }
            if self.rng.chance(50) {
                if let Some(rule) = self.chain_rule(s, &lower, &views) {
                    text += &self.render(&rule, "    ");
                }
            }
            if !views.is_empty() && self.rng.chance(40) {
                let w = *self.rng.pick(&views);
                if let Some(rule) = self.single_rule(s, w) {
                    text += &self.render(&rule, "    ");
                }
            }
        }
        text += "}\n";
        let names: Vec<String> = state
            .iter()
            .chain(&views)
            .map(|&r| self.rels[r].name.clone())
            .collect();
        text += &format!(".output {}\n", names.join(", "));
        text
    }

    /// The first rule of a view: an atom from below, then, if enabled, a negation or an
    /// aggregate over the state.
    fn view_rule(&mut self, v: usize, lower: &[usize], state: &[usize], access: &Access) -> GRule {
        if lower.is_empty() || !(self.f.negation || self.f.aggregates) {
            return self.rule(v, access, None);
        }
        let mut body = Body {
            lits: Vec::new(),
            bound: Vec::new(),
            next: 0,
        };
        let first = *self.rng.pick(lower);
        let args = self.atom_args(&mut body, first, false);
        body.lits.push(Lit::Atom(first, args));
        let s = *self.rng.pick(state);
        if self.f.negation && (!self.f.aggregates || self.rng.chance(50)) {
            let args = if self.rng.chance(60) {
                // Aligned with the atom: `w(x, y) :- d(x, y), !s(x, y).`
                let vars = body.vars(false);
                (0..self.rels[s].arity)
                    .map(|j| vars.get(j).map_or(Term::Wild, |v| Term::Var(v.clone())))
                    .collect()
            } else {
                self.neg_args(&body, s)
            };
            body.lits.push(Lit::Neg(s, args));
        } else {
            let access = Access {
                pos: state.to_vec(),
                neg: state.to_vec(),
                block: access.block,
            };
            self.aggregate(&mut body, &access);
        }
        self.extras(&mut body, access);
        self.finish(v, body)
    }

    /// A random rule for `head`; `first` forces the relation of the first atom.
    fn rule(&mut self, head: usize, access: &Access, first: Option<usize>) -> GRule {
        let mut body = Body {
            lits: Vec::new(),
            bound: Vec::new(),
            next: 0,
        };
        let n_atoms = if self.f.joins && self.easy {
            *self.rng.pick(&[1, 1, 2])
        } else if self.f.joins {
            *self.rng.pick(&[1, 1, 2, 2, 3])
        } else {
            1
        };
        for i in 0..n_atoms {
            let rel = match first {
                Some(r) if i == 0 => r,
                _ => *self.rng.pick(&access.pos),
            };
            let args = self.atom_args(&mut body, rel, self.f.joins);
            body.lits.push(Lit::Atom(rel, args));
        }
        self.extras(&mut body, access);
        self.finish(head, body)
    }

    /// Comparisons, arithmetic, negations and aggregates, as enabled.
    fn extras(&mut self, body: &mut Body, access: &Access) {
        // Percent chances of: assignments, an aggregate, a negation, a comparison. An easy
        // rule gets at most one of them.
        let chances = if self.easy {
            let mut c = [0; 4];
            if let Some(slot) = c.get_mut(self.rng.below(6)) {
                *slot = 100;
            }
            c
        } else {
            [40, 30, 30, 35]
        };
        if self.f.arithmetic && self.rng.chance(chances[0]) {
            let n = if self.easy {
                1
            } else {
                *self.rng.pick(&[1, 1, 2])
            };
            for _ in 0..n {
                self.assignment(body);
            }
        }
        if self.f.aggregates && !access.neg.is_empty() && self.rng.chance(chances[1]) {
            self.aggregate(body, access);
        }
        if self.f.negation && !access.neg.is_empty() && self.rng.chance(chances[2]) {
            let rel = *self.rng.pick(&access.neg);
            let args = self.neg_args(body, rel);
            body.lits.push(Lit::Neg(rel, args));
        }
        if self.f.comparisons && self.rng.chance(chances[3]) {
            if let Some(c) = self.comparison(body) {
                body.lits.push(c);
            }
        }
    }

    /// Arguments of a positive atom; binds new variables (tainted per the column).
    fn atom_args(&mut self, body: &mut Body, rel: usize, joins: bool) -> Vec<Term> {
        let mut args = Vec::new();
        let mut new: Vec<String> = Vec::new();
        for c in 0..self.rels[rel].arity {
            let tainted = self.rels[rel].tainted[c];
            let roll = self.rng.below(100);
            let term = if !joins {
                None
            } else if roll < 35 {
                // Join with an earlier atom (if there is one).
                let vars = body.vars(false);
                (!vars.is_empty()).then(|| Term::Var(self.rng.pick(&vars).clone()))
            } else if roll < 40 {
                Some(Term::Num(self.rng.value()))
            } else if roll < 50 {
                Some(Term::Wild)
            } else if roll < 54 {
                // The same variable twice in one atom.
                (!new.is_empty()).then(|| Term::Var(self.rng.pick(&new).clone()))
            } else {
                None
            };
            let term = term.unwrap_or_else(|| {
                let v = body.fresh("x");
                new.push(v.clone());
                body.bound.push((v.clone(), tainted));
                Term::Var(v)
            });
            args.push(term);
        }
        args
    }

    /// Arguments of a negated atom: bound variables, constants, wildcards.
    fn neg_args(&mut self, body: &Body, rel: usize) -> Vec<Term> {
        let vars = body.vars(false);
        (0..self.rels[rel].arity)
            .map(|_| {
                let roll = self.rng.below(100);
                if roll < 65 && !vars.is_empty() {
                    Term::Var(self.rng.pick(&vars).clone())
                } else if roll < 88 {
                    Term::Num(self.rng.value())
                } else {
                    Term::Wild
                }
            })
            .collect()
    }

    /// A bound variable or a small constant.
    fn operand(&mut self, body: &Body) -> (Ex, bool) {
        let vars = body.vars(false);
        if !vars.is_empty() && self.rng.chance(75) {
            let v = self.rng.pick(&vars).clone();
            let t = body.taint(&v);
            (Ex::Var(v), t)
        } else {
            (Ex::Num(self.rng.value()), false)
        }
    }

    /// `z = ...`: results stay in a finite set even under recursion.
    fn assignment(&mut self, body: &mut Body) {
        if body.bound.is_empty() {
            return;
        }
        let z = body.fresh("z");
        let (a, ta) = self.operand(body);
        let (b, tb) = self.operand(body);
        let m = Ex::Num(DOMAIN);
        let (e, tainted, guard) = match self.rng.below(8) {
            0 => (bin(Op::Rem, bin(Op::Add, a, b), m), false, None),
            1 => (bin(Op::Rem, bin(Op::Mul, a, b), m), false, None),
            2 => (bin(Op::Rem, bin(Op::Sub, a, b), m), false, None),
            3 => (
                bin(Op::Add, a, Ex::Num(1)),
                ta,
                Some(Lit::Cmp(var(&z), "<", Ex::Num(DOMAIN))),
            ),
            4 => (
                bin(Op::Sub, a, Ex::Num(1)),
                ta,
                Some(Lit::Cmp(var(&z), ">=", Ex::Num(0))),
            ),
            5 => (bin(Op::Div, a, b), ta, None),
            6 => (bin(Op::Rem, a, b), ta && tb, None),
            _ => (
                bin(Op::Rem, bin(Op::Add, Ex::Neg(Box::new(a)), Ex::Num(7)), m),
                false,
                None,
            ),
        };
        if self.rng.chance(25) {
            body.lits.push(Lit::Cmp(e, "=", var(&z)));
        } else {
            body.lits.push(Lit::Cmp(var(&z), "=", e));
        }
        body.lits.extend(guard);
        body.bound.push((z, tainted));
    }

    /// A filter over bound variables.
    fn comparison(&mut self, body: &Body) -> Option<Lit> {
        if body.bound.is_empty() {
            return None;
        }
        let vars = body.vars(false);
        let mut lhs = var(&self.rng.pick(&vars).clone());
        if self.f.arithmetic && self.rng.chance(30) {
            let (b, _) = self.operand(body);
            let op = *self
                .rng
                .pick(&[Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Rem]);
            lhs = bin(op, lhs, b);
        }
        let (rhs, _) = self.operand(body);
        let op = *self
            .rng
            .pick(&["=", "!=", "!=", "<", "<=", "<=", ">", ">=", ">="]);
        Some(Lit::Cmp(lhs, op, rhs))
    }

    /// `n = func target : { body }` over `access.neg`.
    fn aggregate(&mut self, body: &mut Body, access: &Access) {
        let func = *self.rng.pick(&["count", "sum", "min", "max"]);
        let rel = *self.rng.pick(&access.neg);
        let outer = body.vars(false);
        let mut locals: Vec<String> = Vec::new();
        let mut args = Vec::new();
        let arity = self.rels[rel].arity;
        let forced_local = if func == "count" {
            usize::MAX
        } else {
            self.rng.below(arity)
        };
        for c in 0..arity {
            let roll = self.rng.below(100);
            if c != forced_local && roll < 40 && !outer.is_empty() {
                args.push(Term::Var(self.rng.pick(&outer).clone()));
            } else if c != forced_local && roll < 50 {
                args.push(Term::Num(self.rng.value()));
            } else if c != forced_local && roll < 60 {
                args.push(Term::Wild);
            } else {
                let y = body.fresh("y");
                locals.push(y.clone());
                args.push(Term::Var(y));
            }
        }
        let in_block = |r: usize| access.block.is_some() && self.rels[r].block == access.block;
        let mut reads_block = in_block(rel);
        let mut inner = vec![Lit::Atom(rel, args)];
        // Sometimes a second atom joined on a local: a body the plan may stream
        // (every binding weighed as it comes) rather than feed the groups.
        if !locals.is_empty() && self.rng.chance(30) {
            let r2 = *self.rng.pick(&access.neg);
            reads_block |= in_block(r2);
            let mut a2 = vec![Term::Var(self.rng.pick(&locals).clone())];
            for _ in 1..self.rels[r2].arity {
                let roll = self.rng.below(100);
                if roll < 20 && !outer.is_empty() {
                    a2.push(Term::Var(self.rng.pick(&outer).clone()));
                } else if roll < 30 {
                    a2.push(Term::Wild);
                } else {
                    let y = body.fresh("y");
                    locals.push(y.clone());
                    a2.push(Term::Var(y));
                }
            }
            inner.push(Lit::Atom(r2, a2));
        }
        if !locals.is_empty() && self.rng.chance(25) {
            let y = self.rng.pick(&locals).clone();
            let op = *self.rng.pick(&["!=", "<", ">="]);
            inner.push(Lit::Cmp(var(&y), op, Ex::Num(self.rng.value())));
        }
        if self.f.negation && !locals.is_empty() && self.rng.chance(15) {
            let r2 = *self.rng.pick(&access.neg);
            reads_block |= in_block(r2);
            let vars: Vec<String> = locals.iter().chain(&outer).cloned().collect();
            let a2 = (0..self.rels[r2].arity)
                .map(|_| {
                    if self.rng.chance(70) {
                        Term::Var(self.rng.pick(&vars).clone())
                    } else {
                        Term::Wild
                    }
                })
                .collect();
            inner.push(Lit::Neg(r2, a2));
        }
        let mut target_tainted = false;
        let target = if func == "count" {
            None
        } else {
            let y = self.rng.pick(&locals).clone();
            // The columns that bound `y`: tainted if one of them is.
            for l in &inner {
                if let Lit::Atom(r, a) = l {
                    target_tainted |= a
                        .iter()
                        .zip(&self.rels[*r].tainted)
                        .any(|(t, &ct)| ct && matches!(t, Term::Var(w) if *w == y));
                }
            }
            if self.rng.chance(15) {
                // An expression target over locals and constants; `/` may divide by
                // zero (that binding is then skipped).
                let o = if self.rng.chance(50) {
                    var(&self.rng.pick(&locals).clone())
                } else {
                    Ex::Num(self.rng.value())
                };
                let op = *self.rng.pick(&[Op::Add, Op::Mul, Op::Div]);
                target_tainted = true;
                Some(bin(op, var(&y), o))
            } else {
                Some(var(&y))
            }
        };
        let tainted = reads_block && (func == "count" || func == "sum" || target_tainted);
        // Used outer variables must not be the result.
        let used = |v: &String| {
            inner.iter().any(|l| match l {
                Lit::Atom(_, a) | Lit::Neg(_, a) => {
                    a.iter().any(|t| matches!(t, Term::Var(w) if w == v))
                }
                _ => false,
            }) || matches!(&target, Some(e) if ex_vars(e).contains(v))
        };
        let candidates: Vec<String> = outer.iter().filter(|v| !used(v)).cloned().collect();
        let result = if !candidates.is_empty() && self.rng.chance(10) {
            // Already bound: the aggregate is a filter.
            self.rng.pick(&candidates).clone()
        } else {
            let n = body.fresh("n");
            body.bound.push((n.clone(), tainted));
            n
        };
        body.lits.push(Lit::Agg {
            result,
            func,
            target,
            body: inner,
        });
    }

    /// Head, annotations, uses for otherwise unused results, shuffling.
    fn finish(&mut self, head: usize, mut body: Body) -> GRule {
        let is_state = self.rels[head].kind == Kind::State;
        let candidates = body.vars(is_state);
        // Results of assignments and aggregates: preferably shown in the head.
        let defined: Vec<String> = body
            .lits
            .iter()
            .filter_map(|l| match l {
                Lit::Cmp(Ex::Var(z), "=", _) | Lit::Cmp(_, "=", Ex::Var(z))
                    if z.starts_with('z') =>
                {
                    Some(z.clone())
                }
                Lit::Agg { result, .. } if result.starts_with('n') => Some(result.clone()),
                _ => None,
            })
            .collect();
        let mut unshown: Vec<String> = defined
            .iter()
            .filter(|v| candidates.contains(v))
            .cloned()
            .collect();
        let mut args = Vec::new();
        for c in 0..self.rels[head].arity {
            if !unshown.is_empty() && self.rng.chance(60) {
                let v = unshown.remove(self.rng.below(unshown.len()));
                if self.rels[head].kind == Kind::View && body.taint(&v) {
                    self.rels[head].tainted[c] = true;
                }
                args.push(Term::Var(v));
            } else if !candidates.is_empty() && self.rng.chance(85) {
                let v = self.rng.pick(&candidates).clone();
                if self.rels[head].kind == Kind::View && body.taint(&v) {
                    self.rels[head].tainted[c] = true;
                }
                args.push(Term::Var(v));
            } else {
                args.push(Term::Num(self.rng.value()));
            }
        }
        // Results of assignments and aggregates that nothing uses get a filter.
        let mut uses = Vec::new();
        for t in &args {
            if let Term::Var(v) = t {
                uses.push(v.clone());
            }
        }
        for l in &body.lits {
            lit_vars(l, &mut uses);
        }
        for v in defined {
            if uses.iter().filter(|u| **u == v).count() <= 1 {
                let op = *self.rng.pick(&["!=", "<", ">=", "<="]);
                body.lits
                    .push(Lit::Cmp(var(&v), op, Ex::Num(self.rng.range(0, 3) as i32)));
            }
        }
        if self.f.shuffle && self.rng.chance(30) {
            self.rng.shuffle(&mut body.lits);
        }
        let (explain, label) = self.annotate(head, &args);
        GRule {
            head,
            args,
            body: body.lits,
            tier: None,
            ungated: false,
            explain,
            label,
        }
    }

    /// `@explain` (state rules and ordinary rules only) and `@label`, at random.
    fn annotate(&mut self, head: usize, args: &[Term]) -> (Option<String>, Option<String>) {
        let mut explain = None;
        let explainable = match self.rels[head].kind {
            Kind::State => self.rng.chance(50),
            Kind::Plain => self.rng.chance(25),
            _ => false,
        };
        if self.f.explain && explainable {
            let head_vars: Vec<String> = args
                .iter()
                .filter_map(|t| match t {
                    Term::Var(v) => Some(v.clone()),
                    _ => None,
                })
                .collect();
            let mut s = format!("{} because", self.rels[head].name);
            if !head_vars.is_empty() {
                for _ in 0..self.rng.range(1, 3) {
                    s += &format!(" {{{}}}", self.rng.pick(&head_vars));
                }
            }
            explain = Some(s + " holds");
        }
        let label = (self.f.labels && self.rng.chance(20)).then(|| {
            self.labels += 1;
            format!("l{}", self.labels)
        });
        (explain, label)
    }

    /// Whether a state rule gets `@ungated` (only one with no `@tier` and no
    /// `@explain`, which the checker would refuse with it).
    fn ungated(&mut self, rule: &GRule) -> bool {
        self.f.tiers && rule.tier.is_none() && rule.explain.is_none() && self.rng.chance(25)
    }

    /// A random `@tier` for a state rule (`None`: not written, tier 0).
    fn tier(&mut self) -> Option<u32> {
        if !self.f.tiers {
            return None;
        }
        let tier = self.rng.range(0, 2) as u32;
        (tier > 0 || self.rng.chance(30)).then_some(tier)
    }

    /// A state rule that grows `s` one step per round within an instance:
    /// `s(k, z) :- s(k, x), l(x, z).` or `s(k, z) :- s(k, x), z = (x + 1) % 6.`, maybe
    /// with `w(k, z)` or `!w(k, z)` for a view `w`. The key column 0 is kept.
    fn chain_rule(&mut self, s: usize, lower: &[usize], views: &[usize]) -> Option<GRule> {
        let arity = self.rels[s].arity;
        let xs: Vec<String> = (1..=arity).map(|i| format!("x{i}")).collect();
        let c = if arity == 1 {
            0
        } else {
            self.rng.range(1, arity - 1)
        };
        let mut body = vec![Lit::Atom(
            s,
            xs.iter().map(|x| Term::Var(x.clone())).collect(),
        )];
        let z = "z9".to_string();
        let binary: Vec<usize> = lower
            .iter()
            .copied()
            .filter(|&r| self.rels[r].arity == 2)
            .collect();
        if !binary.is_empty() && (!self.f.arithmetic || self.rng.chance(50)) {
            let l = *self.rng.pick(&binary);
            body.push(Lit::Atom(
                l,
                vec![Term::Var(xs[c].clone()), Term::Var(z.clone())],
            ));
        } else if self.f.arithmetic {
            let step = bin(Op::Add, var(&xs[c]), Ex::Num(1));
            if self.rng.chance(50) {
                body.push(Lit::Cmp(var(&z), "=", bin(Op::Rem, step, Ex::Num(DOMAIN))));
            } else {
                body.push(Lit::Cmp(var(&z), "=", step));
                body.push(Lit::Cmp(var(&z), "<", Ex::Num(DOMAIN)));
            }
        } else {
            return None;
        }
        if !views.is_empty() && self.rng.chance(60) {
            let w = *self.rng.pick(views);
            let args: Vec<Term> = (0..self.rels[w].arity)
                .map(|j| match j {
                    0 if arity > 1 => Term::Var(xs[0].clone()),
                    0 | 1 => Term::Var(z.clone()),
                    _ => Term::Wild,
                })
                .collect();
            if self.f.negation && self.rng.chance(50) {
                body.push(Lit::Neg(w, args));
            } else {
                body.push(Lit::Atom(w, args));
            }
        }
        let mut args: Vec<Term> = xs.iter().map(|x| Term::Var(x.clone())).collect();
        args[c] = Term::Var(z);
        let (explain, label) = self.annotate(s, &args);
        let tier = self.tier();
        let mut rule = GRule {
            head: s,
            args,
            body,
            tier,
            ungated: false,
            explain,
            label,
        };
        rule.ungated = self.ungated(&rule);
        Some(rule)
    }

    /// `s(k, x) :- w(k, x), n = count : { w(k, _) }, n = 1.`: a single candidate left in
    /// view `w` for instance `k` goes into `s` (columns beyond `w`'s are constants).
    fn single_rule(&mut self, s: usize, w: usize) -> Option<GRule> {
        let wa = self.rels[w].arity;
        if !self.f.aggregates || (0..wa).any(|j| self.rels[w].tainted[j]) {
            return None;
        }
        let xs: Vec<String> = (1..=wa).map(|i| format!("x{i}")).collect();
        let inner: Vec<Term> = (0..wa)
            .map(|j| {
                if j == 0 {
                    Term::Var(xs[0].clone())
                } else {
                    Term::Wild
                }
            })
            .collect();
        let body = vec![
            Lit::Atom(w, xs.iter().map(|x| Term::Var(x.clone())).collect()),
            Lit::Agg {
                result: "n9".into(),
                func: "count",
                target: None,
                body: vec![Lit::Atom(w, inner)],
            },
            Lit::Cmp(var("n9"), "=", Ex::Num(1)),
        ];
        let args: Vec<Term> = (0..self.rels[s].arity)
            .map(|j| match xs.get(j) {
                Some(x) => Term::Var(x.clone()),
                None => Term::Num(self.rng.value()),
            })
            .collect();
        let (explain, label) = self.annotate(s, &args);
        let tier = self.tier();
        let mut rule = GRule {
            head: s,
            args,
            body,
            tier,
            ungated: false,
            explain,
            label,
        };
        rule.ungated = self.ungated(&rule);
        Some(rule)
    }

    fn render(&self, rule: &GRule, indent: &str) -> String {
        // Variables occurring once are written `_`.
        let mut uses = Vec::new();
        for t in &rule.args {
            if let Term::Var(v) = t {
                uses.push(v.clone());
            }
        }
        for l in &rule.body {
            lit_vars(l, &mut uses);
        }
        let once = |v: &String| uses.iter().filter(|u| *u == v).count() == 1;
        let term = |t: &Term| match t {
            Term::Var(v) if once(v) => "_".to_string(),
            Term::Var(v) => v.clone(),
            Term::Num(n) => n.to_string(),
            Term::Wild => "_".to_string(),
        };
        let atom = |r: usize, args: &[Term]| {
            format!(
                "{}({})",
                self.rels[r].name,
                args.iter().map(term).collect::<Vec<_>>().join(", ")
            )
        };
        fn lit(l: &Lit, atom: &dyn Fn(usize, &[Term]) -> String) -> String {
            match l {
                Lit::Atom(r, a) => atom(*r, a),
                Lit::Neg(r, a) => format!("!{}", atom(*r, a)),
                Lit::Cmp(a, op, b) => format!("{} {op} {}", ex(a, 0), ex(b, 0)),
                Lit::Agg {
                    result,
                    func,
                    target,
                    body,
                } => {
                    let target = match target {
                        None => String::new(),
                        Some(e @ Ex::Var(_)) => format!(" {}", ex(e, 0)),
                        Some(e) => format!(" ({})", ex(e, 0)),
                    };
                    let inner: Vec<String> = body.iter().map(|l| lit(l, atom)).collect();
                    format!("{result} = {func}{target} : {{ {} }}", inner.join(", "))
                }
            }
        }
        let mut out = String::new();
        let mut ann = Vec::new();
        if let Some(l) = &rule.label {
            ann.push(format!("@label({l})"));
        }
        if let Some(t) = rule.tier {
            ann.push(format!("@tier({t})"));
        }
        if rule.ungated {
            ann.push("@ungated".into());
        }
        if let Some(e) = &rule.explain {
            ann.push(format!("@explain(\"{e}\")"));
        }
        if !ann.is_empty() {
            out += &format!("{indent}{}\n", ann.join(" "));
        }
        let body: Vec<String> = rule.body.iter().map(|l| lit(l, &atom)).collect();
        out += &format!(
            "{indent}{} :- {}.\n",
            atom(rule.head, &rule.args),
            body.join(", ")
        );
        out
    }
}

/// Renders an expression, parenthesised only where precedence needs it.
fn ex(e: &Ex, min_prec: u8) -> String {
    match e {
        Ex::Var(v) => v.clone(),
        Ex::Num(n) if *n < 0 => format!("({n})"),
        Ex::Num(n) => n.to_string(),
        Ex::Neg(a) => format!("-{}", ex(a, 3)),
        Ex::Bin(op, a, b) => {
            let p = op.prec();
            let s = format!("{} {} {}", ex(a, p), op.text(), ex(b, p + 1));
            if p < min_prec {
                format!("({s})")
            } else {
                s
            }
        }
    }
}

fn ex_vars(e: &Ex) -> Vec<String> {
    match e {
        Ex::Var(v) => vec![v.clone()],
        Ex::Num(_) => vec![],
        Ex::Neg(a) => ex_vars(a),
        Ex::Bin(_, a, b) => {
            let mut v = ex_vars(a);
            v.extend(ex_vars(b));
            v
        }
    }
}

/// Every occurrence of a variable in a literal (with repetitions).
fn lit_vars(l: &Lit, out: &mut Vec<String>) {
    match l {
        Lit::Atom(_, a) | Lit::Neg(_, a) => {
            for t in a {
                if let Term::Var(v) = t {
                    out.push(v.clone());
                }
            }
        }
        Lit::Cmp(a, _, b) => {
            out.extend(ex_vars(a));
            out.extend(ex_vars(b));
        }
        Lit::Agg {
            result,
            target,
            body,
            ..
        } => {
            out.push(result.clone());
            if let Some(t) = target {
                out.extend(ex_vars(t));
            }
            for l in body {
                lit_vars(l, out);
            }
        }
    }
}
