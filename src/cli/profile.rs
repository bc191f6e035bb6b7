//! `--profile`: what each rule cost, as a table on stderr.

use sudolog::check::ir::Program;
use sudolog::session::RuleCost;

/// One line per rule that rendered operators or derived anything, costliest first:
/// its index and label, the rows its body derived, the rounds it derived in (and the
/// first and last of them), its operators, and their scheduled time summed over the
/// workers. Arrangements shared by several rules are charged to the first.
pub fn table(program: &Program, costs: &[RuleCost]) -> String {
    let mut rows: Vec<&RuleCost> = costs.iter().collect();
    rows.sort_by(|a, b| b.time.cmp(&a.time).then(a.rule.cmp(&b.rule)));
    let total: f64 = rows.iter().map(|c| c.time.as_secs_f64()).sum();
    let mut out = format!(
        "{:>5}  {:<32} {:>10} {:>7} {:>9} {:>5} {:>10} {:>6}\n",
        "rule", "label", "derived", "rounds", "first-last", "ops", "time ms", "share"
    );
    for c in rows {
        let label = program.rules.get(c.rule).map_or("?", |r| r.label.as_str());
        let span = match (c.rounds.first(), c.rounds.last()) {
            (Some(a), Some(b)) => format!("{a}-{b}"),
            _ => "-".to_string(),
        };
        let ms = c.time.as_secs_f64() * 1000.0;
        out.push_str(&format!(
            "{:>5}  {:<32} {:>10} {:>7} {:>9} {:>5} {:>10.1} {:>5.1}%\n",
            c.rule,
            truncate(label, 32),
            c.derived,
            c.rounds.len(),
            span,
            c.operators,
            ms,
            if total > 0.0 {
                100.0 * c.time.as_secs_f64() / total
            } else {
                0.0
            }
        ));
    }
    out
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).chain(std::iter::once('~')).collect()
    }
}
