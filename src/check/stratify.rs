//! Evaluation order.
//!
//! Builds the dependency graph (an edge from every relation a rule reads to the
//! relation it defines; a `.fixpoint` block is one node), finds its strongly
//! connected components (Tarjan), and orders them so that every stratum reads only
//! earlier strata and itself. A recursive component outside any block becomes an
//! implicit block if all its internal edges are positive, and is rejected otherwise.

use super::ir::*;
use crate::diag::{Diagnostic, Span};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Edge {
    Positive,
    Negative,
    Aggregate,
}

struct Dep {
    from: usize,
    to: usize,
    kind: Edge,
    /// The relation read (for messages).
    rel: RelId,
    rule: usize,
}

fn deps_of(lits: &[Literal], in_agg: bool, out: &mut Vec<(RelId, Edge)>) {
    for l in lits {
        match l {
            Literal::Atom { rel, .. } => out.push((
                *rel,
                if in_agg {
                    Edge::Aggregate
                } else {
                    Edge::Positive
                },
            )),
            Literal::Neg { rel, .. } => out.push((
                *rel,
                if in_agg {
                    Edge::Aggregate
                } else {
                    Edge::Negative
                },
            )),
            Literal::Agg { body, .. } => deps_of(body, true, out),
            Literal::Cmp { .. } => {}
        }
    }
}

/// The strata of a checked program in evaluation order: each reads only earlier
/// strata and itself. A block's views are ordered in place, and a monotone recursive
/// component outside any block becomes a block of its own (pushed onto `blocks`, its
/// rules marked). Out: the strata, or every cycle that cannot be evaluated.
pub(super) fn stratify(
    relations: &[Relation],
    rules: &mut [Rule],
    blocks: &mut Vec<Block>,
) -> Result<Vec<Stratum>, Vec<Diagnostic>> {
    let nrel = relations.len();
    let g = Graph::new(relations, rules, blocks);
    let mut errors = Vec::new();
    let mut strata = Vec::new();
    // Tarjan emits components downstream-first; evaluation goes upstream-first.
    for (ci, comp) in g.comps.iter().enumerate().rev() {
        // A relation declared in a block is evaluated as part of the block's node.
        if comp.len() == 1 && comp[0] < nrel && relations[comp[0]].block.is_some() {
            continue;
        }
        let internal: Vec<&Dep> = g
            .deps
            .iter()
            .filter(|d| g.comp_of[d.from] == ci && g.comp_of[d.to] == ci)
            .collect();
        let has_block = comp.iter().any(|&n| n >= nrel);
        if has_block && comp.len() > 1 {
            errors.push(g.block_in_cycle(rules, comp, &internal));
            continue;
        }
        if has_block {
            let b = comp[0] - nrel;
            match order_views(relations, rules, &blocks[b]) {
                Ok(order) => blocks[b].views = order,
                Err(d) => errors.push(d),
            }
            strata.push(Stratum::Block(b));
            continue;
        }
        let recursive = comp.len() > 1 || !internal.is_empty();
        if !recursive {
            strata.push(Stratum::Flat(comp[0]));
            continue;
        }
        if let Some(d) = internal.iter().find(|d| d.kind != Edge::Positive) {
            errors.push(g.unstratifiable(relations, rules, comp, d));
            continue;
        }
        strata.push(Stratum::Block(implicit_block(
            relations, rules, blocks, comp,
        )));
    }
    if errors.is_empty() {
        Ok(strata)
    } else {
        Err(errors)
    }
}

/// The dependency graph: a node per relation, then one per block (its relations
/// are that node), an edge per relation a rule reads; its strongly connected
/// components (downstream first) and each node's name for messages.
struct Graph {
    nrel: usize,
    deps: Vec<Dep>,
    comps: Vec<Vec<usize>>,
    comp_of: Vec<usize>,
    names: Vec<String>,
}

impl Graph {
    fn new(relations: &[Relation], rules: &[Rule], blocks: &[Block]) -> Graph {
        let nrel = relations.len();
        let node = |r: RelId| relations[r].block.map(|b| nrel + b).unwrap_or(r);
        let nnodes = nrel + blocks.len();
        let mut deps = Vec::new();
        for (ri, rule) in rules.iter().enumerate() {
            let mut d = Vec::new();
            deps_of(&rule.body, false, &mut d);
            for (rel, kind) in d {
                deps.push(Dep {
                    from: node(rel),
                    to: node(rule.head),
                    kind,
                    rel,
                    rule: ri,
                });
            }
        }
        let mut adj = vec![Vec::new(); nnodes];
        for d in &deps {
            adj[d.from].push(d.to);
        }
        let comps = tarjan(&adj);
        let mut comp_of = vec![0; nnodes];
        for (ci, c) in comps.iter().enumerate() {
            for &n in c {
                comp_of[n] = ci;
            }
        }
        let block_name = |b: &Block| {
            let names: Vec<&str> = b
                .state
                .iter()
                .map(|&r| relations[r].name.as_str())
                .collect();
            format!("the .fixpoint block of {}", names.join(", "))
        };
        let names = (0..nnodes)
            .map(|n| match n.checked_sub(nrel) {
                None => relations[n].name.clone(),
                Some(b) => block_name(&blocks[b]),
            })
            .collect();
        Graph {
            nrel,
            deps,
            comps,
            comp_of,
            names,
        }
    }

    /// A block in a cycle with relations outside it (`comp`, its `internal` edges):
    /// they must be declared inside it.
    fn block_in_cycle(&self, rules: &[Rule], comp: &[usize], internal: &[&Dep]) -> Diagnostic {
        let outside: Vec<String> = comp
            .iter()
            .filter(|&&n| n < self.nrel)
            .map(|&n| format!("'{}'", self.names[n]))
            .collect();
        let d = internal
            .iter()
            .find(|d| d.to < self.nrel)
            .or(internal.first())
            .expect("a cycle has edges");
        let block = comp.iter().copied().find(|&n| n >= self.nrel).unwrap();
        Diagnostic::new(
            rules[d.rule].span,
            format!(
                "{} both reads from and feeds {}; declare {} inside the block",
                outside.join(", "),
                self.names[block],
                if outside.len() == 1 { "it" } else { "them" }
            ),
        )
    }

    /// A recursive component (`comp`) outside any block that negates or aggregates
    /// (`d`) inside its own cycle.
    fn unstratifiable(
        &self,
        relations: &[Relation],
        rules: &[Rule],
        comp: &[usize],
        d: &Dep,
    ) -> Diagnostic {
        let mut cycle: Vec<String> = comp.iter().map(|&n| self.names[n].clone()).collect();
        cycle.sort();
        let what = if d.kind == Edge::Negative {
            "negation"
        } else {
            "aggregate"
        };
        let read = &relations[d.rel];
        Diagnostic::new(
            rules[d.rule].span,
            format!(
                "unstratifiable program: {} of '{}' inside a recursive cycle through {}",
                what,
                read.name,
                cycle.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ")
            ),
        )
        .with_note(
            read.span,
            format!("'{}' is declared here; relations declared in a .fixpoint block may negate and aggregate over one another", read.name),
        )
    }
}

/// An implicit block for a monotone recursive component (`comp`: relations),
/// evaluated by rounds: pushed onto `blocks`, the rules defining its relations
/// marked. Out: its index.
fn implicit_block(
    relations: &[Relation],
    rules: &mut [Rule],
    blocks: &mut Vec<Block>,
    comp: &[usize],
) -> usize {
    let id = blocks.len();
    let mut state: Vec<RelId> = comp.to_vec();
    state.sort();
    let span: Span = relations[state[0]].span;
    for rule in rules.iter_mut() {
        if state.contains(&rule.head) {
            rule.block = Some(id);
        }
    }
    blocks.push(Block {
        key: None,
        state,
        views: Vec::new(),
        explicit: false,
        span,
    });
    id
}

/// Orders a block's views so each only reads earlier ones; rejects cycles among views.
fn order_views(
    relations: &[Relation],
    rules: &[Rule],
    block: &Block,
) -> Result<Vec<RelId>, Diagnostic> {
    let views = &block.views;
    let mut reads: Vec<Vec<(RelId, usize)>> = vec![Vec::new(); views.len()];
    for (ri, rule) in rules.iter().enumerate() {
        if let Some(i) = views.iter().position(|&v| v == rule.head) {
            let mut d = Vec::new();
            deps_of(&rule.body, false, &mut d);
            for (rel, _) in d {
                if views.contains(&rel) {
                    reads[i].push((rel, ri));
                }
            }
        }
    }
    let mut order: Vec<RelId> = Vec::new();
    while order.len() < views.len() {
        let next = (0..views.len()).find(|&i| {
            !order.contains(&views[i]) && reads[i].iter().all(|(r, _)| order.contains(r))
        });
        match next {
            Some(i) => order.push(views[i]),
            None => {
                let left: Vec<usize> = (0..views.len())
                    .filter(|&i| !order.contains(&views[i]))
                    .collect();
                let rule = reads[left[0]]
                    .iter()
                    .find(|(r, _)| !order.contains(r))
                    .map(|(_, ri)| *ri)
                    .unwrap();
                let names: Vec<String> = left
                    .iter()
                    .map(|&i| format!("'{}'", relations[views[i]].name))
                    .collect();
                return Err(Diagnostic::new(
                    rules[rule].span,
                    format!(
                        "views of a .fixpoint block cannot be recursive: {}; declare recursive relations with .decl",
                        names.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(order)
}

/// Strongly connected components, each emitted after every component it reaches.
fn tarjan(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct St<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut St, v: usize) {
        // Iterative DFS to avoid deep recursion on long chains.
        let mut work: Vec<(usize, usize)> = vec![(v, 0)];
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on[v] = true;
        while let Some(&mut (u, ref mut i)) = work.last_mut() {
            if *i < s.adj[u].len() {
                let w = s.adj[u][*i];
                *i += 1;
                match s.index[w] {
                    None => {
                        s.index[w] = Some(s.next);
                        s.low[w] = s.next;
                        s.next += 1;
                        s.stack.push(w);
                        s.on[w] = true;
                        work.push((w, 0));
                    }
                    Some(iw) if s.on[w] => s.low[u] = s.low[u].min(iw),
                    _ => {}
                }
            } else {
                work.pop();
                if let Some(&(p, _)) = work.last() {
                    s.low[p] = s.low[p].min(s.low[u]);
                }
                if Some(s.low[u]) == s.index[u] {
                    let mut comp = Vec::new();
                    loop {
                        let w = s.stack.pop().unwrap();
                        s.on[w] = false;
                        comp.push(w);
                        if w == u {
                            break;
                        }
                    }
                    comp.sort();
                    s.out.push(comp);
                }
            }
        }
    }
    let n = adj.len();
    let mut s = St {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}
