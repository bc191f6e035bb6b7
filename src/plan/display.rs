//! Human-readable plans, as printed by `sudolog check`.

use std::fmt::Write;

use super::*;

fn pick(p: &Pick, slots: &[String], other: &str) -> String {
    match p {
        Pick::Slot(s) => slots[*s].clone(),
        Pick::Col(c) => format!("{other}.{c}"),
        Pick::Const(v) => v.to_string(),
    }
}

fn expr(e: &SExpr, slots: &[String]) -> String {
    match e {
        SExpr::Slot(s) => slots[*s].clone(),
        SExpr::Const(c) => c.to_string(),
        SExpr::Binary(op, a, b) => {
            let o = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                BinOp::Rem => "%",
            };
            format!("({} {} {})", expr(a, slots), o, expr(b, slots))
        }
        SExpr::Neg(a) => format!("-{}", expr(a, slots)),
    }
}

fn cmp(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "=",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

fn filter_text(f: &AtomFilter) -> String {
    let mut parts: Vec<String> = f
        .consts
        .iter()
        .map(|(c, v)| format!("#{c} = {v}"))
        .collect();
    parts.extend(f.equal.iter().map(|(a, b)| format!("#{a} = #{b}")));
    if parts.is_empty() {
        String::new()
    } else {
        format!(" where {}", parts.join(", "))
    }
}

fn cols(c: &[usize]) -> String {
    let v: Vec<String> = c.iter().map(|c| format!("#{c}")).collect();
    format!("[{}]", v.join(", "))
}

/// A pipeline's lines: its source, then a line per step (a projection has none; an
/// aggregate's body is nested under it), each with the layout after it.
fn pipeline(out: &mut String, p: &Pipeline, prog: &Program, rule: &Rule, indent: &str) {
    let names = |i: usize| -> Vec<String> {
        p.layouts
            .get(i)
            .map(|l| l.iter().map(|&v| rule.vars[v].0.clone()).collect())
            .unwrap_or_default()
    };
    let rel = |r: RelId| prog.relations[r].name.clone();
    let first = names(0).join(", ");
    let _ = match &p.source {
        Source::Scan { rel: r, filter, .. } => writeln!(
            out,
            "{indent}scan {}{} -> ({first})",
            rel(*r),
            filter_text(filter)
        ),
        Source::Unit => writeln!(out, "{indent}unit"),
        Source::Given => writeln!(out, "{indent}for each group ({first})"),
        Source::Lone { count, rel: r, .. } => writeln!(
            out,
            "{indent}scan {} alone in its {} group (count 1, from the count) -> ({first})",
            rel(*r),
            rel(*count)
        ),
    };
    for (i, s) in p.steps.iter().enumerate() {
        let slots = names(i);
        let after = names(i + 1).join(", ");
        if let Step::Aggregate { .. } = s {
            aggregate(out, s, prog, rule, indent, &slots, &after);
            continue;
        }
        let keys = |probe: &[Pick]| -> String {
            let keys: Vec<String> = probe.iter().map(|x| pick(x, &slots, "")).collect();
            keys.join(", ")
        };
        let _ = match s {
            Step::Join {
                rel: r,
                key_cols,
                probe,
                filter,
                ..
            } => writeln!(
                out,
                "{indent}join {} by {} = ({}){} -> ({after})",
                rel(*r),
                cols(key_cols),
                keys(probe),
                filter_text(filter)
            ),
            Step::Antijoin {
                rel: r,
                key_cols,
                probe,
            } => writeln!(
                out,
                "{indent}antijoin {} by {} = ({})",
                rel(*r),
                cols(key_cols),
                keys(probe)
            ),
            Step::Filter { lhs, op, rhs, text } => writeln!(
                out,
                "{indent}filter {} {} {}{}",
                expr(lhs, &slots),
                cmp(*op),
                expr(rhs, &slots),
                if *text { " (by text)" } else { "" }
            ),
            Step::Assign { expr: e, .. } => {
                writeln!(out, "{indent}assign {} -> ({after})", expr(e, &slots))
            }
            Step::Project { .. } | Step::Aggregate { .. } => Ok(()),
        };
    }
}

/// An aggregate step's lines (`slots`: the names of its incoming row, `after`: of
/// the row after it): the aggregate, its body nested, and the test of a value
/// already bound.
fn aggregate(
    out: &mut String,
    s: &Step,
    prog: &Program,
    rule: &Rule,
    indent: &str,
    slots: &[String],
    after: &str,
) {
    let Step::Aggregate {
        group,
        func,
        body,
        target,
        bound,
        lone,
        streamed,
        ..
    } = s
    else {
        unreachable!("aggregate lines are an aggregate's")
    };
    let g: Vec<String> = group.iter().map(|&s| slots[s].clone()).collect();
    let f = format!("{func:?}").to_lowercase();
    let of = target
        .as_ref()
        .map(|t| {
            let inner: Vec<String> = body
                .layout
                .iter()
                .map(|&v| rule.vars[v].0.clone())
                .collect();
            format!(" of {}", expr(t, &inner))
        })
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{indent}aggregate {f}{of} per ({}) -> ({after}):",
        g.join(", ")
    );
    if *streamed {
        let _ = writeln!(
            out,
            "{indent}    (its body on its own, every binding weighed as it comes)"
        );
    }
    pipeline(out, body, prog, rule, &format!("{indent}    "));
    if lone.is_some() {
        let _ = writeln!(out, "{indent}    (and hands on the groups of one row)");
    }
    if let Some(b) = bound {
        let _ = writeln!(out, "{indent}filter {} = {f}", slots[*b]);
    }
}

impl Plan {
    /// The plan as text: strata in order, each rule's pipeline, shared arrangements.
    pub fn display(&self, prog: &Program) -> String {
        let mut out = String::new();
        let rel = |r: RelId| prog.relations[r].name.clone();
        let rule_text = |out: &mut String, rp: &RulePlan, indent: &str| {
            let rule = &prog.rules[rp.rule];
            let tier = if rp.ungated {
                " ungated".to_string()
            } else if rule.block.is_some() && prog.blocks[rule.block.unwrap()].explicit {
                format!(" tier {}", rp.tier)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "{indent}rule {} ({}){}:",
                rule.label,
                prog.sources.location(rule.span),
                tier
            );
            pipeline(out, &rp.body, prog, rule, &format!("{indent}    "));
            let names: Vec<String> = rp
                .body
                .layout
                .iter()
                .map(|&v| rule.vars[v].0.clone())
                .collect();
            let head: Vec<String> = rp.head_out.iter().map(|x| pick(x, &names, "")).collect();
            let _ = writeln!(out, "{indent}    => {}({})", rel(rp.head), head.join(", "));
        };
        for (i, s) in self.strata.iter().enumerate() {
            match s {
                StratumPlan::Flat { rel: r, rules } => {
                    let _ = writeln!(out, "stratum {i}: {}", rel(*r));
                    for rp in rules {
                        rule_text(&mut out, rp, "  ");
                    }
                }
                StratumPlan::Block {
                    block,
                    key,
                    state,
                    views,
                    rules,
                    tiers,
                } => {
                    let names: Vec<String> = state.iter().map(|&r| rel(r)).collect();
                    let kind = if prog.blocks[*block].explicit {
                        "fixpoint block"
                    } else {
                        "recursive"
                    };
                    let key = key.map(|k| format!(", key column {k}")).unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "stratum {i}: {kind} {{{}}}{key}, tiers {:?}",
                        names.join(", "),
                        tiers
                    );
                    for (v, vr) in views {
                        let _ = writeln!(out, "  view {} (recomputed each round):", rel(*v));
                        for rp in vr {
                            rule_text(&mut out, rp, "    ");
                        }
                    }
                    for rp in rules {
                        rule_text(&mut out, rp, "  ");
                    }
                }
            }
        }
        let _ = writeln!(out, "arrangements:");
        for (r, c, neg) in self.arrangements() {
            let what = if neg { "keys" } else { "rows" };
            let _ = writeln!(out, "  {} {} by {}", rel(r), what, cols(&c));
        }
        out
    }
}
