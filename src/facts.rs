//! Facts files in and relation files out, the way Soufflé reads and writes them.
//!
//! `.input rel` reads `<dir>/rel.facts`: one fact a line, columns separated by tabs,
//! numbers in decimal, symbols as raw text. `.output rel` writes `<dir>/rel.csv` in
//! the same form, sorted, without a header. A bad line is an error naming
//! `file:line:column` (the character column where the bad field, or the surplus or
//! missing column, starts). Only regular files are read: a device or a FIFO named
//! like a facts file is an error, not a read that never ends.

use std::path::Path;

use crate::check::ir::{Program, RelId, Symbols, Type, Value};

/// Parses the text of a facts file for `rel`.
pub fn parse_facts(
    program: &Program,
    rel: RelId,
    file: &str,
    text: &str,
    symbols: &mut Symbols,
) -> Result<Vec<Vec<Value>>, String> {
    let r = &program.relations[rel];
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        // The 1-based character column where field `k` starts (`k` = fields.len():
        // just past the line's end).
        let col = |k: usize| -> usize {
            1 + fields[..k.min(fields.len())]
                .iter()
                .map(|f| f.chars().count() + 1)
                .sum::<usize>()
                - usize::from(k >= fields.len())
        };
        if fields.len() != r.arity() {
            return Err(format!(
                "{}:{}:{}: expected {} tab-separated column{} for '{}', found {}",
                file,
                i + 1,
                col(fields.len().min(r.arity())),
                r.arity(),
                if r.arity() == 1 { "" } else { "s" },
                r.name,
                fields.len()
            ));
        }
        let mut row = Vec::with_capacity(fields.len());
        for (c, (f, (cname, ty))) in fields.iter().zip(&r.columns).enumerate() {
            match ty {
                Type::Number => match f.trim().parse::<i32>() {
                    Ok(v) => row.push(v),
                    Err(_) => {
                        return Err(format!(
                        "{}:{}:{}: column {} ('{}') of '{}' must be a 32-bit number, found '{}'",
                        file,
                        i + 1,
                        col(c),
                        c + 1,
                        cname,
                        r.name,
                        f
                    ))
                    }
                },
                Type::Symbol => row.push(symbols.intern(f)),
            }
        }
        out.push(row);
    }
    Ok(out)
}

/// Reads `<dir>/<rel>.facts`.
pub fn read_facts(
    program: &Program,
    rel: RelId,
    dir: &Path,
    symbols: &mut Symbols,
) -> Result<Vec<Vec<Value>>, String> {
    let path = dir.join(format!("{}.facts", program.relations[rel].name));
    let name = path.display().to_string();
    let meta = std::fs::metadata(&path).map_err(|e| format!("cannot read {name}: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "cannot read {name}: not a regular file (a facts file is a file of tab-separated lines)"
        ));
    }
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {name}: {e}"))?;
    parse_facts(program, rel, &name, &text, symbols)
}

/// Formats tuples the way `.output` writes them (sorted by value, tab-separated).
pub fn format_rows(
    program: &Program,
    rel: RelId,
    rows: &[Vec<Value>],
    symbols: &Symbols,
) -> String {
    let r = &program.relations[rel];
    // Sorted like Soufflé: numbers numerically, symbols in the order they were interned.
    let mut rows: Vec<&Vec<Value>> = rows.iter().collect();
    rows.sort();
    rows.dedup();
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .zip(&r.columns)
                .map(|(v, (_, ty))| match ty {
                    Type::Number => v.to_string(),
                    Type::Symbol => symbols.name(*v).to_string(),
                })
                .collect()
        })
        .collect();
    let mut out = String::new();
    for l in lines {
        out.push_str(&l.join("\t"));
        out.push('\n');
    }
    out
}
