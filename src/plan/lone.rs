//! Singles without a join back: `n(g, 1), r(g, x)` where `n` counts `r` per `g`.
//!
//! A rule that reads the groups of a count view with exactly one row and then looks
//! that row up (`placed(p, c, v) :- nplace(p, g, v, 1), place(p, g, v, c)`, where
//! `nplace(p, g, v, n) :- ..., n = count : { place(p, g, v, _) }`) would join the
//! count's changes with an arrangement of the counted relation in every round. The
//! count already sees each row of the group: where time is totally ordered it also
//! sums the one column that is not the group's, so a group whose count is 1 holds
//! its row's last column in that sum. The rule then reads those rows
//! ([`Source::Lone`]) and needs no join.
//!
//! In: a stratum's plan. Out: the same plan, with each such rule's scan and join
//! replaced by a scan of the lone rows (and a projection where the join was), and
//! the count's aggregate marked to hand them on. Rules are rewritten only inside one
//! block, when the view is defined by that one count alone (no facts), its body is
//! one atom of the counted relation with every group column and one column more,
//! and the join reads exactly the group's columns, with nothing but antijoins
//! between the scan and the join.

use crate::check::ir::{AggFunc, Program, RelId};

use super::{Pick, Pipeline, RulePlan, Source, Step, StratumPlan};

/// What the count that defines a view looks like from a rule that reads it.
struct Count {
    view: RelId,
    /// The counted relation.
    rel: RelId,
    /// For each column of `view`: the column of `rel` that holds its group value,
    /// or `None` for the count itself.
    cols: Vec<Option<usize>>,
    /// `rel`'s one column that is not the group's.
    extra: usize,
}

/// Fuses every rule of a block that reads a count view's singles with the count.
pub fn fuse(program: &Program, stratum: &mut StratumPlan) {
    let StratumPlan::Block { views, rules, .. } = stratum else {
        return;
    };
    let counts: Vec<Count> = views
        .iter()
        .filter_map(|(v, rps)| match rps.as_slice() {
            [rp] => count_of(program, *v, rp),
            _ => None,
        })
        .collect();
    let mut used = Vec::new();
    for rp in views
        .iter_mut()
        .flat_map(|(_, r)| r)
        .chain(rules.iter_mut())
    {
        for c in &counts {
            if rewrite(&mut rp.body, c) {
                used.push(c.view);
                break;
            }
        }
    }
    for (v, rps) in views.iter_mut() {
        if used.contains(v) {
            if let Some(Step::Aggregate { lone, .. }) = rps[0].body.steps.last_mut() {
                *lone = Some(*v);
            }
        }
    }
}

/// The count that `rp`, the only rule of the view `view`, is, if it has the form
/// that can hand on its singles.
fn count_of(program: &Program, view: RelId, rp: &RulePlan) -> Option<Count> {
    let alone = program.rules.iter().filter(|r| r.head == view).count() == 1
        && !program.facts.iter().any(|(r, _)| *r == view);
    let Some(Step::Aggregate {
        group,
        func: AggFunc::Count,
        body,
        bound: None,
        out,
        body_set: true,
        ..
    }) = rp.body.steps.last()
    else {
        return None;
    };
    let [Step::Join {
        rel,
        key_cols,
        probe,
        filter,
        ..
    }] = body.steps.as_slice()
    else {
        return None;
    };
    let arity = program.relations[*rel].arity();
    // The render counts such a body straight from its relation (a group of no
    // columns is a body scanned on its own, never this form).
    if !alone
        || group.is_empty()
        || body.source != Source::Given
        || !filter.is_empty()
        || arity != key_cols.len() + 1
    {
        return None;
    }
    // The column of `rel` that holds each group position, each exactly once.
    let mut col_of = vec![None; group.len()];
    for (p, &c) in probe.iter().zip(key_cols) {
        match *p {
            Pick::Slot(j) if j < group.len() && col_of[j].is_none() => col_of[j] = Some(c),
            _ => return None,
        }
    }
    let extra = (0..arity).find(|c| !key_cols.contains(c))?;
    // Each head column: through the aggregate's output, a group position or the count.
    let mut cols = Vec::new();
    for h in &rp.head_out {
        let Pick::Slot(s) = h else { return None };
        cols.push(match out.get(*s)? {
            Pick::Col(0) => None,
            Pick::Slot(t) => Some(col_of[group.iter().position(|g| g == t)?]?),
            _ => return None,
        });
    }
    let groups_covered = col_of.iter().flatten().all(|c| cols.contains(&Some(*c)));
    let one_count = cols.iter().filter(|c| c.is_none()).count() == 1;
    (groups_covered && one_count).then_some(Count {
        view,
        rel: *rel,
        cols,
        extra,
    })
}

/// Where `p` reads `c`'s singles: when it scans `c`'s view with the count 1 and
/// then (after antijoins only) joins the counted relation on the whole group. Out:
/// the counted relation's column behind each slot of the scan, and the join's step.
fn single_read(p: &Pipeline, c: &Count) -> Option<(Vec<usize>, usize)> {
    let Source::Scan { rel, filter, out } = &p.source else {
        return None;
    };
    let n = c
        .cols
        .iter()
        .position(Option::is_none)
        .expect("a count column");
    if *rel != c.view || !filter.equal.is_empty() || filter.consts != [(n, 1)] {
        return None;
    }
    // The column of the counted relation behind each slot of the scan.
    let slot_cols: Vec<usize> = out
        .iter()
        .map(|o| match o {
            Pick::Col(a) => c.cols[*a],
            _ => None,
        })
        .collect::<Option<_>>()?;
    let j = p
        .steps
        .iter()
        .position(|s| !matches!(s, Step::Antijoin { .. }))?;
    let Step::Join {
        rel: joined,
        key_cols,
        probe,
        filter: jfilter,
        ..
    } = &p.steps[j]
    else {
        return None;
    };
    let on_group = key_cols.len() + 1 == c.cols.len()
        && key_cols
            .iter()
            .zip(probe)
            .all(|(k, pk)| matches!(pk, Pick::Slot(s) if slot_cols.get(*s) == Some(k)));
    (*joined == c.rel && jfilter.is_empty() && on_group).then_some((slot_cols, j))
}

/// Rewrites `p` to read `c`'s singles where it reads them ([`single_read`]).
fn rewrite(p: &mut Pipeline, c: &Count) -> bool {
    let Some((slot_cols, j)) = single_read(p, c) else {
        return false;
    };
    let Step::Join { out: jout, .. } = &p.steps[j] else {
        unreachable!("single_read found a join")
    };
    // The scan's slots, then the counted relation's extra column in a new last slot
    // (when the rule reads it).
    let width = slot_cols.len();
    let extra_var = jout
        .iter()
        .position(|o| *o == Pick::Col(c.extra))
        .map(|i| p.layouts[j + 1][i]);
    let mut new_out: Vec<Pick> = slot_cols.iter().map(|&k| Pick::Col(k)).collect();
    if extra_var.is_some() {
        new_out.push(Pick::Col(c.extra));
    }
    let slot_of_col = |k: usize| slot_cols.iter().position(|&x| x == k);
    let project: Vec<Pick> = jout
        .iter()
        .map(|o| match o {
            Pick::Col(k) if *k == c.extra => Pick::Slot(width),
            Pick::Col(k) => Pick::Slot(slot_of_col(*k).expect("a key column is a slot")),
            other => other.clone(),
        })
        .collect();
    p.source = Source::Lone {
        count: c.view,
        rel: c.rel,
        out: new_out,
    };
    p.steps[j] = Step::Project { out: project };
    if let Some(v) = extra_var {
        for l in &mut p.layouts[..=j] {
            l.push(v);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::tests::planned;

    /// A block whose count views hand on their singles: `n` counts `left` per cell
    /// (groups from `grp`, with markers), `o` per value (its own groups).
    const BLOCK: &str = ".decl cand(k: number, c: number, v: number)\n\
        .decl grp(k: number, c: number)\n.input cand, grp\n\
        .fixpoint key 0 {\n\
          .decl pick(k: number, c: number, v: number)\n\
          .view gone(k: number, c: number, v: number)\n\
          .view left(k: number, c: number, v: number)\n\
          .view n(k: number, c: number, m: number)\n\
          .view o(k: number, v: number, m: number)\n\
          .view stop(k: number)\n\
          gone(k, d, v) :- pick(k, c, v), cand(k, d, v), d != c.\n\
          left(k, c, v) :- cand(k, c, v), !gone(k, c, v).\n\
          n(k, c, m) :- grp(k, c), m = count : { left(k, c, _) }.\n\
          o(k, v, m) :- left(k, _, v), m = count : { left(k, _, v) }.\n\
          stop(k) :- n(k, _, 0).\n\
          pick(k, c, v) :- n(k, c, 1), left(k, c, v), !stop(k).\n\
          pick(k, c, v) :- o(k, v, 1), left(k, c, v), !stop(k).\n\
          pick(k, c, v) :- n(k, c, 2), left(k, c, v), v > 8.\n\
        }\n";

    /// The plan of the program's rule `index` (rules in text order).
    fn rule(rules: &[RulePlan], index: usize) -> &RulePlan {
        rules
            .iter()
            .find(|r| r.rule == index)
            .expect("a plan per rule")
    }

    fn fused(rules: &[RulePlan], view: RelId) -> (usize, usize) {
        let reads = rules
            .iter()
            .filter(|r| matches!(r.body.source, Source::Lone { count, .. } if count == view))
            .count();
        let counts = rules
            .iter()
            .filter(|r| {
                matches!(r.body.steps.last(), Some(Step::Aggregate { lone: Some(v), .. }) if *v == view)
            })
            .count();
        (reads, counts)
    }

    /// Both singles rules read the counts' lone rows (no join with `left`), and both
    /// counts hand them on; the rule that reads the count 2 keeps its join.
    #[test]
    fn singles_read_their_count() {
        let (p, rules) = planned(BLOCK);
        let (n, o, left) = (
            p.relation("n").unwrap(),
            p.relation("o").unwrap(),
            p.relation("left").unwrap(),
        );
        for (index, count) in [(5, n), (6, o)] {
            let body = &rule(&rules, index).body;
            assert!(
                matches!(body.source, Source::Lone { count: c, rel, .. } if c == count && rel == left),
                "rule {index}: {body:?}"
            );
            assert!(!body.steps.iter().any(|s| matches!(s, Step::Join { .. })));
        }
        assert_eq!(fused(&rules, n), (1, 1));
        assert_eq!(fused(&rules, o), (1, 1));
        let two = &rule(&rules, 7).body;
        assert!(two.steps.iter().any(|s| matches!(s, Step::Join { .. })));
    }

    /// A count view with a second rule (or a fact) may hold a 1 the count did not
    /// make: rules that read it keep their join, and the count hands nothing on.
    #[test]
    fn views_with_other_derivations_are_left_alone() {
        for extra in ["n(k, c, 1) :- grp(k, c), c > 5.\n", "n(1, 2, 1).\n"] {
            let text = BLOCK.replace("stop(k) :-", &format!("{extra}stop(k) :-"));
            let (p, rules) = planned(&text);
            assert_eq!(fused(&rules, p.relation("n").unwrap()), (0, 0), "{extra}");
            assert_eq!(fused(&rules, p.relation("o").unwrap()), (1, 1), "{extra}");
        }
    }
}
