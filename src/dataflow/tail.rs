//! Rules of one head that end in the same antijoin, rendered with one antijoin on
//! the union of their heads.
//!
//! `singles.dl`'s two singles both end in `!broken(p)`: rendered rule by rule, each
//! keys its rows, arranges them, looks them up in `broken`, and unites its rows with
//! the matches, signs flipped (five operators a rule, in every round of the loop).
//! The antijoin reads only head columns, so it commutes with the head projection
//! (the rules' rows less the excluded ones, projected, are the projected rows less
//! the excluded ones), and the union of the heads needs it once: their rows keyed
//! together, one arrangement, one lookup, and the matches handed, with the rows, to
//! the union the head's rules feed anyway (six operators for two rules, not ten).
//!
//! In: a block's rules ([`RulePlan`]). Out: the grouping ([`share_tails`]) and each
//! group's rows ([`render_group`]).

use differential_dataflow::collection::concatenate;
use differential_dataflow::{ExchangeData, VecCollection as Collection};

use super::pipeline::{excluded, key_of, render_rule, Env};
use super::row::Wide;
use super::time::Time;
use crate::check::ir::{RelId, Value};
use crate::plan::{Pick, RulePlan, Source, Step};

/// An antijoin on a head row: (relation, its key columns, the probe as picks of
/// the head row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HeadAntijoin {
    rel: RelId,
    key_cols: Vec<usize>,
    probe: Vec<Pick>,
}

/// The antijoin `rp`'s body ends with, on its head's columns: when the rule is not
/// explained, its last step is an antijoin whose probe reads only constants and
/// slots the head keeps, and that antijoin is not one straight on a scan (which
/// reads the scanned relation's own arrangement, see
/// [`crate::plan::Pipeline::antijoin_on_its_scan`]).
fn head_antijoin(rp: &RulePlan) -> Option<HeadAntijoin> {
    let steps = &rp.body.steps;
    let on_scan = steps.len() == 1 && matches!(rp.body.source, Source::Scan { .. });
    if on_scan || rp.explain.is_some() {
        return None;
    }
    let Some(Step::Antijoin {
        rel,
        key_cols,
        probe,
    }) = steps.last()
    else {
        return None;
    };
    let in_head = |p: &Pick| match p {
        Pick::Slot(s) => (rp.head_out.iter())
            .position(|h| *h == Pick::Slot(*s))
            .map(Pick::Slot),
        Pick::Const(v) => Some(Pick::Const(*v)),
        Pick::Col(_) => None,
    };
    Some(HeadAntijoin {
        rel: *rel,
        key_cols: key_cols.clone(),
        probe: probe.iter().map(in_head).collect::<Option<_>>()?,
    })
}

/// A group of rules rendered together: one rule as it is, or several of one head
/// and tier that end in the same [`HeadAntijoin`].
pub(crate) enum Group<'r> {
    One(&'r RulePlan),
    Tail(HeadAntijoin, Vec<&'r RulePlan>),
}

/// `rules` in groups, in the order of each group's first rule (every worker builds
/// the same operators in the same order). `share`: whether to group at all (a
/// profile records each rule's derivations, so it renders every rule whole).
pub(crate) fn share_tails(rules: &[RulePlan], share: bool) -> Vec<Group<'_>> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    for rp in rules {
        let tail = (share && !rp.ungated).then(|| head_antijoin(rp)).flatten();
        let Some(tail) = tail else {
            groups.push(Group::One(rp));
            continue;
        };
        let same = |g: &Group<'_>| match g {
            Group::Tail(t, rs) => *t == tail && rs[0].head == rp.head && rs[0].tier == rp.tier,
            Group::One(_) => false,
        };
        match groups.iter_mut().find(|g| same(g)) {
            Some(Group::Tail(_, rs)) => rs.push(rp),
            _ => groups.push(Group::Tail(tail, vec![rp])),
        }
    }
    // A group of one keeps its antijoin in place (keyed in the step before it).
    (groups.into_iter())
        .map(|g| match g {
            Group::Tail(_, rs) if rs.len() == 1 => Group::One(rs[0]),
            g => g,
        })
        .collect()
}

/// The head rows of a group of rules sharing `tail` (each row with `tag` after the
/// head's columns, as [`render_rule`] writes it): each rule rendered without its
/// last step, and what the antijoin, run once on all of them, takes away: as
/// collections whose union the rows are.
pub(crate) fn render_group<'s, T: Time, const W: usize>(
    env: &mut Env<'s, T, W>,
    tail: &HeadAntijoin,
    rules: &[&RulePlan],
    tag: Option<Value>,
) -> Vec<Collection<'s, T, Wide<W>>>
where
    Wide<W>: ExchangeData,
{
    let parts: Vec<_> = (rules.iter())
        .map(|rp| {
            let mut body = rp.body.clone();
            body.steps.pop();
            body.layouts.pop();
            let without = RulePlan {
                body,
                ..(*rp).clone()
            };
            render_rule(env, &without, tag).0
        })
        .collect();
    let rows = concatenate(env.unit.inner.scope(), parts.clone());
    let probe = tail.probe.clone();
    let keyed = rows.map(move |r| (key_of(&probe, &r), r));
    let arr = env.any_keys(tail.rel, &tail.key_cols);
    let mut out = parts;
    out.push(excluded(keyed, arr, Some));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_str;
    use crate::plan::{plan, StratumPlan};
    use crate::session::{Config, Observe, Session};
    use std::collections::BTreeSet;
    use std::sync::Arc;

    /// Reachability over edges taken either way, through nodes not `bad`: two rules
    /// of `reach` that end in `!bad(y)`, and a third that ends elsewhere.
    const TEXT: &str = ".decl e(x: number, y: number)\n.input e\n\
        .decl bad(x: number)\n.input bad\n\
        .decl reach(x: number)\n.output reach\n\
        reach(1).\n\
        reach(y) :- reach(x), e(x, y), !bad(y).\n\
        reach(y) :- reach(x), e(y, x), !bad(y).\n\
        reach(y) :- reach(x), e(x, y), y > 100.\n";

    /// An edit: (insert or retract, an edge or a `bad` node).
    type Edit = (bool, Result<(i32, i32), i32>);

    /// What `TEXT` derives, worked out by hand: a search from node 1.
    fn reach(edges: &BTreeSet<(i32, i32)>, bad: &BTreeSet<i32>) -> BTreeSet<i32> {
        let mut seen = BTreeSet::from([1]);
        loop {
            let more: Vec<i32> = (edges.iter())
                .flat_map(|&(x, y)| [(x, y, false), (y, x, true)])
                .filter(|&(x, y, back)| {
                    seen.contains(&x)
                        && !seen.contains(&y)
                        && (!bad.contains(&y) || (!back && y > 100))
                })
                .map(|(_, y, _)| y)
                .collect();
            if more.is_empty() {
                return seen;
            }
            seen.extend(more);
        }
    }

    /// The two rules ending in `!bad(y)` form one group; the third renders alone.
    #[test]
    fn rules_of_one_head_ending_in_one_antijoin_are_grouped() {
        let program = check_str("t.dl", TEXT).expect("the program checks");
        let plan = plan(&program, false).expect("it plans");
        let rules = (plan.strata.iter())
            .find_map(|s| match s {
                StratumPlan::Block { rules, .. } => Some(rules.clone()),
                _ => None,
            })
            .expect("reach is a recursive block");
        let shape = |share| -> Vec<usize> {
            (share_tails(&rules, share).iter())
                .map(|g| match g {
                    Group::One(_) => 1,
                    Group::Tail(_, rs) => rs.len(),
                })
                .collect()
        };
        assert_eq!(shape(true), vec![2, 1]);
        assert_eq!(shape(false), vec![1, 1, 1]);
    }

    /// A grouped antijoin derives what the rules derive one by one, in both
    /// renderings, as edges and `bad` nodes come and go.
    #[test]
    fn a_shared_antijoin_keeps_up_with_edits() {
        let program = Arc::new(check_str("t.dl", TEXT).expect("the program checks"));
        let [e, bad, r] = ["e", "bad", "reach"].map(|n| program.relation(n).unwrap());
        for batch in [false, true] {
            let config = Config {
                observe: Observe::Relations(vec![r]),
                batch,
                ..Default::default()
            };
            let mut s = Session::new(program.clone(), config).expect("the session starts");
            let (mut edges, mut bads) = (BTreeSet::new(), BTreeSet::new());
            let script: [Edit; 9] = [
                (true, Ok((1, 2))),
                (true, Ok((3, 2))),
                (true, Ok((3, 104))),
                (true, Err(3)),
                (true, Ok((1, 3))),
                (false, Err(3)),
                (true, Err(104)),
                (true, Ok((104, 5))),
                (false, Ok((1, 2))),
            ];
            for (insert, what) in script {
                match (insert, what) {
                    (true, Ok(xy)) => edges.insert(xy),
                    (false, Ok(xy)) => edges.remove(&xy),
                    (true, Err(x)) => bads.insert(x),
                    (false, Err(x)) => bads.remove(&x),
                };
                if batch {
                    // A batch session's commits may only add: each state from scratch.
                    s.reset().expect("the session resets");
                    for &(x, y) in &edges {
                        s.insert(e, &[x, y]).unwrap();
                    }
                    for &x in &bads {
                        s.insert(bad, &[x]).unwrap();
                    }
                } else {
                    match (insert, what) {
                        (true, Ok((x, y))) => s.insert(e, &[x, y]),
                        (false, Ok((x, y))) => s.retract(e, &[x, y]),
                        (true, Err(x)) => s.insert(bad, &[x]),
                        (false, Err(x)) => s.retract(bad, &[x]),
                    }
                    .expect("the edit is taken");
                }
                s.commit().expect("the commit runs");
                let got: BTreeSet<i32> = s.contents(r).into_iter().map(|(v, _)| v[0]).collect();
                assert_eq!(got, reach(&edges, &bads), "batch {batch}, after {what:?}");
            }
        }
    }
}
