//! A tiered fixpoint block split into programs a host can step in tier order.
//!
//! In: a parsed program whose one `.fixpoint` block holds rules of tier 2 and up.
//! Out ([`TierSplit`]): checked programs (a tier's when it is first asked for).
//! - **The base:** the program without those rules, and without the block's relations
//!   only they need. The block's relations that those rules derive and the base keeps
//!   (its accumulating relations: the `writes`) take facts from the host through an
//!   input each (`R__stepped`, joined into `R` by an `@ungated` rule).
//! - **One program per tier** that writes: its rules, and the relations they read.
//!   Those the base computes are inputs here (the `reads`), fed from the base's
//!   contents; the others are worked out here, the ones that recurse among
//!   themselves (chains that grow a link a round) in a fixpoint block of their own.
//!   Tiers are dropped (a tier's program is evaluated only when every lower tier
//!   found nothing, which is what tier gating did inside the block); labels and
//!   explanations stay, each rule at the span of the block's rule it copies.
//!
//! A host ([`crate::session::stepped`]) runs the base to its fixpoint, hands the
//! reads to tier 2's program, and, when that derives something new, adds it to the
//! base through the host inputs and starts again from the base; otherwise it tries
//! the next tier. That is the block's order, so it reaches the block's fixpoint
//! (`benches/tier_steps.rs` checks it on the full Sudoku rules), without a round of
//! the block ever reaching the operators of the tiers it does not need.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

use crate::diag::{SourceMap, Span};
use crate::syntax::ast::{
    Annotations, Atom, Decl, DeclKind, Expr, FixpointBlock, Ident, Item, Literal, Param,
    Program as Ast, Rule,
};
use crate::syntax::Loader;

use super::ir::Program;
use super::{check, CheckError};

/// The suffix of the base's input for the host's facts of an accumulating relation.
pub const HOST_INPUT: &str = "__stepped";

/// The programs of a split (see the module's documentation).
#[derive(Debug)]
pub struct TierSplit {
    pub base: Program,
    /// The tiers that write, lowest first.
    pub tiers: Vec<TierProgram>,
}

/// One tier's program. It keeps the program's inputs and the rules outside the block
/// that do not depend on it: the host gives it the input facts it gives the base (for
/// the Sudoku rules, the geometry). It is checked the first time it is asked for
/// ([`TierProgram::program`]): a grid that needs two tiers pays for checking two
/// small programs, not fourteen, and the tiers share the sources and the items
/// outside the block until then (not a copy each: `solve hard1` starts sooner).
#[derive(Debug)]
pub struct TierProgram {
    pub tier: u32,
    sources: Arc<SourceMap>,
    /// The program's items outside the block that every tier's program starts from.
    statics: Arc<[Item]>,
    /// This tier's items, after the statics.
    own: Vec<Item>,
    checked: OnceLock<Result<Arc<Program>, String>>,
    /// Relations of the base's block this program reads: inputs here, fed from the
    /// base's contents (same names).
    pub reads: Vec<String>,
    /// Accumulating relations of the base this program derives: what it finds goes
    /// to the base's `name__stepped` input.
    pub writes: Vec<String>,
    /// The program's other inputs (the original program's, e.g. the geometry): the
    /// host gives it the facts it gives the base's relations of the same names.
    pub inputs: Vec<String>,
}

impl TierProgram {
    /// Tier `tier`'s program (unchecked): `statics`, then its `own` items, reading
    /// `reads` from the base and deriving `writes` for it.
    fn new(
        tier: u32,
        sources: &Arc<SourceMap>,
        statics: &Arc<[Item]>,
        own: Vec<Item>,
        reads: Vec<String>,
        writes: Vec<String>,
    ) -> TierProgram {
        let inputs = (statics.iter().chain(&own))
            .filter_map(|it| match it {
                Item::Input(names) => Some(names),
                _ => None,
            })
            .flatten()
            .map(|n| n.name.clone())
            .filter(|n| !reads.contains(n))
            .collect();
        TierProgram {
            tier,
            sources: sources.clone(),
            statics: statics.clone(),
            own,
            checked: OnceLock::new(),
            reads,
            writes,
            inputs,
        }
    }

    /// The tier's program, checked (once). An error is the split's bug: the split of
    /// a program that checks should check.
    pub fn program(&self) -> Result<&Arc<Program>, String> {
        self.checked
            .get_or_init(|| {
                let items = self.statics.iter().chain(&self.own).cloned().collect();
                check(SourceMap::clone(&self.sources), &Ast { items })
                    .map(Arc::new)
                    .map_err(|e| format!("tier {}'s program: {e}", self.tier))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// Parses program files as [`super::check_files`] does, and splits them: `None` when
/// no fixpoint block has rules of tier 2 and up.
pub fn split_files(paths: &[String], loader: &dyn Loader) -> Result<Option<TierSplit>, CheckError> {
    let (sources, ast) = crate::syntax::parse_paths(paths, loader)?;
    check(sources.clone(), &ast)?;
    split(&sources, &ast)
}

fn high(r: &Rule) -> bool {
    r.annotations.tier.is_some_and(|(t, _)| t >= 2)
}

fn atoms<'a>(lits: &'a [Literal], out: &mut Vec<&'a str>) {
    for l in lits {
        match l {
            Literal::Atom(a) | Literal::Negated(a, _) => out.push(&a.relation.name),
            Literal::Aggregate(g) => atoms(&g.body, out),
            Literal::Compare(..) => {}
        }
    }
}

/// The relations a rule's body reads.
fn reads(r: &Rule) -> Vec<&str> {
    let mut out = Vec::new();
    atoms(&r.body, &mut out);
    out
}

/// The block's pieces, by relation name.
struct Block<'a> {
    block: &'a FixpointBlock,
    decls: BTreeMap<&'a str, &'a Decl>,
    rules: Vec<&'a Rule>,
}

impl<'a> Block<'a> {
    fn of(block: &'a FixpointBlock) -> Block<'a> {
        let mut decls = BTreeMap::new();
        let mut rules = Vec::new();
        for item in &block.items {
            match item {
                Item::Decl(d) => {
                    decls.insert(d.name.name.as_str(), d);
                }
                Item::Rule(r) => rules.push(r),
                _ => {}
            }
        }
        Block {
            block,
            decls,
            rules,
        }
    }

    fn holds(&self, rel: &str) -> bool {
        self.decls.contains_key(rel)
    }

    /// The block's relations the base needs: its accumulating relations and what the
    /// rest of the program reads, closed over the rules below tier 2.
    fn base_needs(&self, outside: &[&'a Rule]) -> BTreeSet<&'a str> {
        let mut need: Vec<&str> = self
            .decls
            .iter()
            .filter(|(_, d)| d.kind == DeclKind::Relation)
            .map(|(n, _)| *n)
            .collect();
        need.extend(
            outside
                .iter()
                .flat_map(|r| reads(r))
                .filter(|n| self.holds(n)),
        );
        let mut seen = BTreeSet::new();
        while let Some(n) = need.pop() {
            if !seen.insert(n) {
                continue;
            }
            for r in self
                .rules
                .iter()
                .filter(|r| !high(r) && r.head.relation.name == n)
            {
                need.extend(reads(r).into_iter().filter(|m| self.holds(m)));
            }
        }
        seen
    }
}

/// Splits `ast` (which checks): `None` when no fixpoint block has rules of tier 2 and
/// up, when more than one has, or when a tier's rules read what only another tier
/// above 1 derives (see `tier_items`).
pub fn split(sources: &SourceMap, ast: &Ast) -> Result<Option<TierSplit>, CheckError> {
    let tiered: Vec<usize> = (0..ast.items.len())
        .filter(|&i| match &ast.items[i] {
            Item::Fixpoint(b) => b
                .items
                .iter()
                .any(|it| matches!(it, Item::Rule(r) if high(r))),
            _ => false,
        })
        .collect();
    let [at] = tiered[..] else { return Ok(None) };
    let Item::Fixpoint(fixpoint) = &ast.items[at] else {
        unreachable!("a block")
    };
    let block = Block::of(fixpoint);
    let outside: Vec<&Rule> = ast
        .items
        .iter()
        .filter_map(|it| match it {
            Item::Rule(r) => Some(r),
            _ => None,
        })
        .collect();
    let base_rules: Vec<&Rule> = {
        let needs = block.base_needs(&outside);
        block
            .rules
            .iter()
            .copied()
            .filter(|r| !high(r) && needs.contains(r.head.relation.name.as_str()))
            .collect()
    };
    let computed: BTreeSet<&str> = base_rules
        .iter()
        .map(|r| r.head.relation.name.as_str())
        .collect();
    // What the higher tiers derive that the base keeps: the host hands it back. The
    // base keeps what its own rules derive, and what its rules or the rest of the
    // program read that only higher tiers derive (a tier's head is accumulating: the
    // host's facts are then all the base holds of it).
    let read_below: BTreeSet<&str> = (base_rules.iter().chain(&outside))
        .flat_map(|r| reads(r))
        .collect();
    let writes: BTreeSet<&str> = block
        .rules
        .iter()
        .filter(|r| high(r))
        .map(|r| r.head.relation.name.as_str())
        .filter(|n| computed.contains(n) || read_below.contains(n))
        .collect();
    let mut tiers: Vec<u32> = block
        .rules
        .iter()
        .filter(|r| high(r) && writes.contains(r.head.relation.name.as_str()))
        .filter_map(|r| r.annotations.tier.map(|(t, _)| t))
        .collect();
    tiers.sort_unstable();
    tiers.dedup();
    // What every tier's program starts from: the same for all of them.
    let shared = Arc::new(sources.clone());
    let statics: Arc<[Item]> = outside_items(ast, at, &block, &outside).into();
    let mut out = Vec::new();
    for tier in tiers {
        match tier_items(&block, &computed, &writes, tier) {
            Some((own, reads, writes)) => out.push(TierProgram::new(
                tier, &shared, &statics, own, reads, writes,
            )),
            None => return Ok(None),
        }
    }
    // A host input has a column more than its relation (the round it enters at).
    if writes
        .iter()
        .any(|w| block.decls[w].params.len() >= crate::MAX_ARITY)
    {
        return Ok(None);
    }
    let base = base_ast(ast, at, &block, &base_rules, &writes);
    let mut base = check(sources.clone(), &base)?;
    for w in &writes {
        if let Some(r) = base.relation(&format!("{w}{HOST_INPUT}")) {
            base.relations[r].enters_at_round = true;
        }
    }
    Ok(Some(TierSplit { base, tiers: out }))
}

fn ident(name: &str, span: Span) -> Ident {
    Ident {
        name: name.to_string(),
        span,
    }
}

/// `name(params)` declared again (as `kind`), at `name`'s own span.
fn decl_as(d: &Decl, name: &str, kind: DeclKind) -> Decl {
    Decl {
        name: ident(name, d.name.span),
        params: d.params.clone(),
        kind,
        span: d.span,
    }
}

/// `R__stepped(x0, .., at)`: the host's facts of `R`, each with the round of the
/// block it enters at (its last column, see
/// [`super::ir::Relation::enters_at_round`]).
fn host_decl(d: &Decl, name: &str) -> Decl {
    let mut out = decl_as(d, name, DeclKind::Relation);
    out.params.push(Param {
        name: ident("stepped__at", d.span),
        ty: ident("number", d.span),
    });
    out
}

/// `R(x0, ..) :- R__stepped(x0, .., at).`, `@ungated`.
fn host_rule(d: &Decl) -> Rule {
    let span = d.span;
    let vars: Vec<Expr> = (0..d.params.len())
        .map(|i| Expr::Var(ident(&format!("x{i}"), span)))
        .collect();
    let atom = |name: &str, at: bool| Atom {
        relation: ident(name, span),
        args: (vars.iter().cloned())
            .chain(at.then(|| Expr::Var(ident("at", span))))
            .collect(),
        span,
    };
    Rule {
        annotations: Annotations {
            ungated: Some(span),
            ..Annotations::default()
        },
        head: atom(&d.name.name, false),
        body: vec![Literal::Atom(atom(
            &format!("{}{HOST_INPUT}", d.name.name),
            true,
        ))],
        span,
    }
}

/// The base: `ast` with the block's rules of tier 2 and up left out, and the
/// relations only they need; an input for the host's facts of each written relation.
fn base_ast(ast: &Ast, at: usize, block: &Block, rules: &[&Rule], writes: &BTreeSet<&str>) -> Ast {
    let keep: BTreeSet<&str> = rules
        .iter()
        .flat_map(|r| reads(r).into_iter().chain([r.head.relation.name.as_str()]))
        .chain(writes.iter().copied())
        .chain(
            block
                .decls
                .iter()
                .filter(|(_, d)| d.kind == DeclKind::Relation)
                .map(|(n, _)| *n),
        )
        .collect();
    let mut items: Vec<Item> = block
        .block
        .items
        .iter()
        .filter(|it| match it {
            Item::Decl(d) => keep.contains(d.name.name.as_str()),
            Item::Rule(r) => rules.iter().any(|k| std::ptr::eq(*k, r)),
            _ => true,
        })
        .cloned()
        .collect();
    let mut outer = Vec::new();
    for w in writes {
        let d = block.decls[w];
        let input = format!("{w}{HOST_INPUT}");
        outer.push(Item::Decl(host_decl(d, &input)));
        outer.push(Item::Input(vec![ident(&input, d.span)]));
        items.push(Item::Rule(host_rule(d)));
    }
    let mut out = ast.items.clone();
    out[at] = Item::Fixpoint(FixpointBlock {
        key: block.block.key,
        items,
        span: block.block.span,
    });
    out.splice(at..at, outer);
    Ast { items: out }
}

/// The relations of `rels` that recurse among themselves through `rules`.
fn recursive<'a>(rels: &BTreeSet<&'a str>, rules: &[&'a Rule]) -> BTreeSet<&'a str> {
    // m reaches n when a rule for n reads m; a relation recurses when it reaches itself.
    let step = |from: &BTreeSet<&'a str>| -> BTreeSet<&'a str> {
        rules
            .iter()
            .filter(|r| reads(r).iter().any(|m| from.contains(m)))
            .map(|r| r.head.relation.name.as_str())
            .filter(|n| rels.contains(n))
            .collect()
    };
    rels.iter()
        .copied()
        .filter(|&n| {
            let mut seen = BTreeSet::new();
            let mut frontier = step(&BTreeSet::from([n]));
            while !frontier.is_empty() {
                if frontier.contains(n) {
                    return true;
                }
                seen.extend(frontier.iter().copied());
                frontier = step(&frontier).difference(&seen).copied().collect();
            }
            false
        })
        .collect()
}

/// The items outside the block that do not depend on it (the static relations a
/// tier's rules may read), without `.output`s. `outside`: the rules outside the block.
fn outside_items(ast: &Ast, at: usize, block: &Block, outside: &[&Rule]) -> Vec<Item> {
    let mut dependent: BTreeSet<&str> = BTreeSet::new();
    loop {
        let more: Vec<&str> = outside
            .iter()
            .filter(|r| !dependent.contains(r.head.relation.name.as_str()))
            .filter(|r| {
                reads(r)
                    .iter()
                    .any(|n| block.holds(n) || dependent.contains(n))
            })
            .map(|r| r.head.relation.name.as_str())
            .collect();
        if more.is_empty() {
            break;
        }
        dependent.extend(more);
    }
    ast.items
        .iter()
        .enumerate()
        .filter(|(i, it)| {
            *i != at
                && match it {
                    Item::Output(_) => false,
                    Item::Rule(r) => !dependent.contains(r.head.relation.name.as_str()),
                    Item::Decl(d) => !dependent.contains(d.name.name.as_str()),
                    _ => true,
                }
        })
        .map(|(_, it)| it.clone())
        .collect()
}

/// A rule without its tier (and `@ungated`): a tier's program runs only when every
/// lower tier found nothing, which is what tier gating did inside the block. Its
/// `@label`, `@explain` and `@hint` stay, so that a host can report the tier's
/// deductions as the block's rule reports them.
fn untiered(r: &Rule) -> Rule {
    Rule {
        annotations: Annotations {
            tier: None,
            ungated: None,
            ..r.annotations.clone()
        },
        ..r.clone()
    }
}

/// Tier `tier`'s own items (what its program adds to the statics), the base's relations it
/// reads, and those it writes. `None` when it needs a relation that neither the base
/// keeps nor it can work out (a rule of another tier above 1 derives it): stepped, it
/// would never see what that tier finds.
fn tier_items(
    block: &Block,
    computed: &BTreeSet<&str>,
    writes: &BTreeSet<&str>,
    tier: u32,
) -> Option<(Vec<Item>, Vec<String>, Vec<String>)> {
    let of_tier = |r: &&Rule| r.annotations.tier.map(|(t, _)| t) == Some(tier);
    let seeds: Vec<&Rule> = block
        .rules
        .iter()
        .copied()
        .filter(|r| of_tier(r) && writes.contains(r.head.relation.name.as_str()))
        .collect();
    // The block's relations the seeds need: read from the base, or worked out here by
    // their own rules (views below tier 2, or rules of this tier).
    let (mut fed, mut local) = (BTreeSet::new(), BTreeSet::new());
    let mut need: Vec<&str> = seeds.iter().flat_map(|r| reads(r)).collect();
    let mut rules: Vec<&Rule> = Vec::new();
    while let Some(n) = need.pop() {
        if !block.holds(n) || fed.contains(n) || local.contains(n) {
            continue;
        }
        if computed.contains(n) {
            fed.insert(n);
            continue;
        }
        local.insert(n);
        for r in block.rules.iter().copied() {
            if r.head.relation.name != n {
                continue;
            }
            if high(r) && !of_tier(&r) {
                return None;
            }
            rules.push(r);
            need.extend(reads(r));
        }
    }
    let looping = recursive(&local, &rules);
    let mut items = Vec::new();
    let tier_writes: BTreeSet<&str> = seeds
        .iter()
        .map(|r| r.head.relation.name.as_str())
        .collect();
    // A tier whose chains loop derives what it writes in their block too, so that
    // each find comes at the round its chain is complete, as in one block (and the
    // shortest chain is its reason). Not when it also reads what it writes.
    let chained = !looping.is_empty() && tier_writes.iter().all(|n| !fed.contains(n));
    let mut inner = Vec::new();
    // (A relation may be both: `reach` is read from the base and derived here.)
    for n in fed.union(&tier_writes) {
        if chained && tier_writes.contains(n) {
            inner.push(Item::Decl(block.decls[n].clone()));
        } else {
            items.push(Item::Decl(decl_as(block.decls[n], n, DeclKind::Relation)));
        }
    }
    for n in &fed {
        items.push(Item::Input(vec![ident(n, block.decls[n].span)]));
    }
    for n in &local {
        let d = block.decls[n];
        if looping.contains(n) {
            inner.push(Item::Decl(d.clone()));
        } else {
            items.push(Item::Decl(decl_as(d, n, DeclKind::Relation)));
        }
    }
    for r in rules {
        let to = if looping.contains(r.head.relation.name.as_str()) {
            &mut inner
        } else {
            &mut items
        };
        to.push(Item::Rule(untiered(r)));
    }
    let seeded = seeds.iter().map(|r| Item::Rule(untiered(r)));
    match chained {
        true => inner.extend(seeded),
        false => items.extend(seeded),
    }
    if !inner.is_empty() {
        items.push(Item::Fixpoint(FixpointBlock {
            key: block.block.key,
            items: inner,
            span: block.block.span,
        }));
    }
    let names = |s: &BTreeSet<&str>| s.iter().map(|n| n.to_string()).collect();
    Some((items, names(&fed), names(&tier_writes)))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{split, split_files, HOST_INPUT};
    use crate::syntax::{parse_str, FsLoader};

    fn datalog(name: &str) -> String {
        format!("{}/datalog/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn the_full_rules_split_by_tier() {
        let split = split_files(&[datalog("sudoku.dl")], &FsLoader)
            .unwrap()
            .expect("sudoku.dl has tiers above 1");
        let tiers: Vec<u32> = split.tiers.iter().map(|t| t.tier).collect();
        assert_eq!(tiers, [2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 15, 16, 17]);
        let base = &split.base;
        assert!(base.rules.iter().all(|r| r.tier < 2));
        // The base keeps no pattern of a higher tier, and takes the tiers' finds.
        assert!(base.relation("inblc").is_none() && base.relation("xchain").is_some());
        assert!(base.relation(&format!("eliminated{HOST_INPUT}")).is_some());
        let two = &split.tiers[0];
        assert_eq!(two.writes, ["eliminated", "reach"]);
        assert!(two.reads.iter().any(|r| r == "candidate"));
        assert!(two.program().unwrap().relation("inblc").is_some());
        assert!(two.program().unwrap().relation("xchain").is_none());
        // Chains grow a link a round: in a block of their own in their tier's program.
        let explicit = |t: u32| {
            let t = split.tiers.iter().find(|p| p.tier == t).unwrap();
            t.program().unwrap().blocks.iter().any(|b| b.explicit)
        };
        assert!(!explicit(2) && explicit(16) && explicit(17));
    }

    #[test]
    fn a_block_without_higher_tiers_is_not_split() {
        let singles = split_files(&[datalog("singles.dl")], &FsLoader).unwrap();
        assert!(singles.is_none());
    }

    /// TOY with `jump`, a relation of the block that only tier 2 derives, read
    /// outside the block.
    fn jump_read_outside() -> String {
        with_jump(TOY, "seen(k, x), far(x, y)")
            + "\n.decl jumped(k: number, x: number)\njumped(k, x) :- jump(k, x).\n"
    }

    /// `text` (TOY or a variant) with its tier-2 rule `seen(k, y) :- BODY.` deriving
    /// `jump` instead, an accumulating relation of the block that only tier 2
    /// derives.
    fn with_jump(text: &str, body: &str) -> String {
        let rule = format!("seen(k, y) :- {body}.");
        assert!(text.contains(&rule), "no rule {rule}");
        text.replace(&rule, &format!("jump(k, y) :- {body}."))
            .replace(
                ".view stuck(k: number, x: number)",
                ".view stuck(k: number, x: number)\n.decl jump(k: number, x: number)",
            )
    }

    /// [`with_jump`], and a rule of tier 1 that reads `jump`: what is seen from a
    /// jump.
    pub(crate) fn jump_read_below(text: &str, body: &str) -> String {
        let rule = format!("jump(k, y) :- {body}.");
        with_jump(text, body).replace(
            &rule,
            &format!("{rule}\n            @tier(1)\n            seen(k, y) :- jump(k, y)."),
        )
    }

    /// An accumulating relation that only a higher tier derives, read below tier 2
    /// or outside the block, is kept by the base: the tier hands it on. (The base
    /// kept an empty relation when only its own rules read it, and the split was
    /// refused when the rest of the program read it.)
    #[test]
    fn what_only_a_higher_tier_derives_is_handed_to_the_base_that_reads_it() {
        for text in [
            jump_read_outside(),
            jump_read_below(TOY, "seen(k, x), far(x, y)"),
        ] {
            let (sources, ast) = parse_str("toy.dl", &text).unwrap();
            crate::check::check(sources.clone(), &ast).expect("it checks");
            let split = split(&sources, &ast).unwrap().expect("tiers 2 and 3");
            assert_eq!(split.tiers[0].writes, ["jump"]);
            assert!(split.base.relation(&format!("jump{HOST_INPUT}")).is_some());
        }
    }

    #[test]
    fn a_tier_that_reads_what_another_tier_derives_is_not_split() {
        // `jump` is the block's, derived only at tier 3 and read at tier 2: in the
        // block tier 2 fires again once tier 3 found jumps; stepped, tier 2's program
        // would hold no rule for it.
        let text = TOY
            .replace(
                "seen(k, y) :- seen(k, x), far(x, y).",
                "seen(k, y) :- jump(k, x), far(x, y).",
            )
            .replace(
                "seen(k, y) :- stuck(k, x), back(y, x).",
                "seen(k, y) :- stuck(k, x), back(y, x).\n            @tier(3)\n            jump(k, y) :- seen(k, x), back(x, y).",
            )
            .replace(
                ".view stuck(k: number, x: number)",
                ".view stuck(k: number, x: number)\n.decl jump(k: number, x: number)",
            );
        let (sources, ast) = parse_str("toy.dl", &text).unwrap();
        crate::check::check(sources.clone(), &ast).expect("it checks");
        assert!(split(&sources, &ast).unwrap().is_none());
        // The same jumps found at tier 2 itself: worked out in tier 2's program.
        let text = text.replace("@tier(3)\n            jump", "@tier(2)\n            jump");
        let (sources, ast) = parse_str("toy.dl", &text).unwrap();
        let split = split(&sources, &ast).unwrap().expect("tiers 2 and 3");
        assert!(split.tiers[0].program().unwrap().relation("jump").is_some());
    }

    /// Reachability with three kinds of edge, the farther ones at tiers 2 and 3
    /// (tier 3 reads a view of the block that only it needs, `stuck`).
    pub(crate) const TOY: &str = r#"
        .decl start(k: number, x: number)
        .decl near(x: number, y: number)
        .decl far(x: number, y: number)
        .decl back(x: number, y: number)
        .input start, near, far, back
        .fixpoint key 0 {
            .decl seen(k: number, x: number)
            .view stuck(k: number, x: number)
            seen(k, x) :- start(k, x).
            @tier(1)
            seen(k, y) :- seen(k, x), near(x, y).
            stuck(k, x) :- seen(k, x), !near(x, _).
            @tier(2)
            seen(k, y) :- seen(k, x), far(x, y).
            @tier(3)
            seen(k, y) :- stuck(k, x), back(y, x).
        }
        .decl reached(k: number, x: number)
        reached(k, x) :- seen(k, x).
    "#;

    #[test]
    fn a_tier_reads_the_views_only_it_needs() {
        let (sources, ast) = parse_str("toy.dl", TOY).unwrap();
        let split = split(&sources, &ast).unwrap().expect("tiers 2 and 3");
        assert_eq!(
            split.tiers.iter().map(|t| t.tier).collect::<Vec<_>>(),
            [2, 3]
        );
        // `stuck` is read by tier 3 only: worked out there, from the base's `seen`.
        assert_eq!(split.tiers[1].reads, ["seen"]);
        assert!(split.base.relation("stuck").is_none());
        assert!(split.tiers[1]
            .program()
            .unwrap()
            .relation("stuck")
            .is_some());
    }
}
