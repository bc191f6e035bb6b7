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

fn pipeline(
    out: &mut String,
    p: &Pipeline,
    prog: &Program,
    rule: &Rule,
    indent: &str,
    given: &[String],
) -> Vec<String> {
    let name = |v: VarId| rule.vars[v].0.clone();
    let rel = |r: RelId| prog.relations[r].name.clone();
    // Reconstruct slot names by replaying projections.
    let mut slots: Vec<String> = given.to_vec();
    match &p.source {
        Source::Scan {
            rel: r,
            filter,
            out: o,
        } => {
            let _ = writeln!(out, "{indent}scan {}{}", rel(*r), filter_text(filter));
            slots = o.iter().map(|x| pick(x, &slots, &rel(*r))).collect();
        }
        Source::Unit => {
            let _ = writeln!(out, "{indent}unit");
        }
        Source::Given => {
            let _ = writeln!(out, "{indent}for each group ({})", slots.join(", "));
        }
    }
    let mut layout_names: Vec<String> = Vec::new();
    for s in &p.steps {
        match s {
            Step::Join {
                rel: r,
                key_cols,
                probe,
                filter,
                out: o,
            } => {
                let keys: Vec<String> = probe.iter().map(|x| pick(x, &slots, "")).collect();
                let _ = writeln!(
                    out,
                    "{indent}join {} by {} = ({}){}",
                    rel(*r),
                    cols(key_cols),
                    keys.join(", "),
                    filter_text(filter)
                );
                slots = o.iter().map(|x| pick(x, &slots, &rel(*r))).collect();
            }
            Step::Antijoin {
                rel: r,
                key_cols,
                probe,
            } => {
                let keys: Vec<String> = probe.iter().map(|x| pick(x, &slots, "")).collect();
                let _ = writeln!(
                    out,
                    "{indent}antijoin {} by {} = ({})",
                    rel(*r),
                    cols(key_cols),
                    keys.join(", ")
                );
            }
            Step::Filter { lhs, op, rhs } => {
                let _ = writeln!(
                    out,
                    "{indent}filter {} {} {}",
                    expr(lhs, &slots),
                    cmp(*op),
                    expr(rhs, &slots)
                );
            }
            Step::Project { out: o } => {
                slots = o.iter().map(|x| pick(x, &slots, "")).collect();
            }
            Step::Assign { expr: e, out: o } => {
                let _ = writeln!(out, "{indent}assign {}", expr(e, &slots));
                let value = format!("({})", expr(e, &slots));
                slots = o
                    .iter()
                    .map(|x| {
                        if matches!(x, Pick::Col(_)) {
                            value.clone()
                        } else {
                            pick(x, &slots, "")
                        }
                    })
                    .collect();
            }
            Step::Aggregate {
                group,
                func,
                body,
                target,
                bound,
                out: o,
                ..
            } => {
                let g: Vec<String> = group.iter().map(|&s| slots[s].clone()).collect();
                let f = format!("{func:?}").to_lowercase();
                let _ = writeln!(out, "{indent}aggregate {f} by ({}):", g.join(", "));
                let inner = pipeline(out, body, prog, rule, &format!("{indent}    "), &g);
                if let Some(t) = target {
                    let _ = writeln!(out, "{indent}    of {}", expr(t, &inner));
                }
                let value = format!("{f}");
                if let Some(b) = bound {
                    let _ = writeln!(out, "{indent}filter {} = {f}", slots[*b]);
                }
                slots = o
                    .iter()
                    .map(|x| {
                        if matches!(x, Pick::Col(_)) {
                            value.clone()
                        } else {
                            pick(x, &slots, "")
                        }
                    })
                    .collect();
            }
        }
        layout_names = slots.clone();
    }
    let _ = layout_names;
    // Prefer the real variable names for the final layout.
    p.layout.iter().map(|&v| name(v)).collect()
}

impl Plan {
    /// The plan as text: strata in order, each rule's pipeline, shared arrangements.
    pub fn display(&self, prog: &Program) -> String {
        let mut out = String::new();
        let rel = |r: RelId| prog.relations[r].name.clone();
        let rule_text = |out: &mut String, rp: &RulePlan, indent: &str| {
            let rule = &prog.rules[rp.rule];
            let tier = if rule.block.is_some() && prog.blocks[rule.block.unwrap()].explicit {
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
            let names = pipeline(out, &rp.body, prog, rule, &format!("{indent}    "), &[]);
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
