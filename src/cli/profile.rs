//! `--profile`: what each rule, each relation's own operators and each block's
//! machinery cost, as a table on stderr.

use sudolog::check::ir::Program;
use sudolog::session::{Charge, Cost};

/// One line per piece that ran operators or derived anything, costliest first, then
/// a line that sums each kind. A rule shows its index and label, the rows its body
/// derived, the rounds it derived in (and the first and last of them); a relation's
/// own operators (union, deduplication, its arrangements entered into a block) show
/// `rel` and `[name]`; a block's machinery (its scope, loop variables, tier gating,
/// explanations) `loop` and its state relations; the rest of the dataflows (inputs,
/// outputs, the probe) `rest`. Then each piece's operators, their scheduled time
/// summed over the workers and its share of all operators' time. Arrangements shared
/// by several rules are charged to the first.
pub fn table(program: &Program, costs: &[Cost]) -> String {
    let mut rows: Vec<&Cost> = costs.iter().collect();
    rows.sort_by(|a, b| b.time.cmp(&a.time).then(a.charge.cmp(&b.charge)));
    let total: f64 = rows.iter().map(|c| c.time.as_secs_f64()).sum();
    let share = |c: &Cost| match total > 0.0 {
        true => 100.0 * c.time.as_secs_f64() / total,
        false => 0.0,
    };
    let mut out = format!(
        "{:>5}  {:<32} {:>10} {:>7} {:>9} {:>5} {:>10} {:>6}\n",
        "rule", "label", "derived", "rounds", "first-last", "ops", "time ms", "share"
    );
    for c in &rows {
        let (id, label) = name(program, c.charge);
        let span = match (c.rounds.first(), c.rounds.last()) {
            (Some(a), Some(b)) => format!("{a}-{b}"),
            _ => "-".to_string(),
        };
        let (derived, rounds) = match c.charge {
            Charge::Rule(_) => (c.derived.to_string(), c.rounds.len().to_string()),
            _ => ("-".to_string(), "-".to_string()),
        };
        out.push_str(&format!(
            "{:>5}  {:<32} {:>10} {:>7} {:>9} {:>5} {:>10.1} {:>5.1}%\n",
            id,
            truncate(&label, 32),
            derived,
            rounds,
            span,
            c.operators,
            c.time.as_secs_f64() * 1000.0,
            share(c),
        ));
    }
    let parts: Vec<String> = ["rules", "relations", "loops", "rest"]
        .iter()
        .map(|&k| {
            let of_kind = rows.iter().filter(|c| kind(c.charge) == k);
            let s: f64 = of_kind.map(|c| share(c)).sum();
            format!("{k} {s:.1}%")
        })
        .collect();
    out.push_str(&format!(
        "all operators: {:.1} ms ({})\n",
        total * 1000.0,
        parts.join(", ")
    ));
    out
}

/// The kind of piece, as the total line names it.
fn kind(c: Charge) -> &'static str {
    match c {
        Charge::Rule(_) => "rules",
        Charge::Relation(_) => "relations",
        Charge::Block(_) => "loops",
        Charge::Rest => "rest",
    }
}

/// The first two columns of a piece's line.
fn name(program: &Program, c: Charge) -> (String, String) {
    let rel = |r: usize| program.relations.get(r).map_or("?", |r| r.name.as_str());
    match c {
        Charge::Rule(i) => {
            let label = program.rules.get(i).map_or("?", |r| r.label.as_str());
            (i.to_string(), label.to_string())
        }
        Charge::Relation(r) => ("rel".into(), format!("[{}]", rel(r))),
        Charge::Block(b) => {
            let state = program.blocks.get(b).map(|b| &b.state[..]).unwrap_or(&[]);
            let names: Vec<&str> = state.iter().map(|&r| rel(r)).collect();
            ("loop".into(), format!("{{{}}}", names.join(",")))
        }
        Charge::Rest => ("rest".into(), "inputs,outputs,probe".into()),
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).chain(std::iter::once('~')).collect()
    }
}
