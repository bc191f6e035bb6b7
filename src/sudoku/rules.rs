//! The rule programs: embedded defaults, or files a researcher passes with `--rules`.
//!
//! Built-in programs are compiled into the binary and resolve their `#include`s
//! against the other embedded files, so the binary runs anywhere. A program given on
//! the command line replaces them and resolves includes on the file system.
//!
//! The interface between the host and any Sudoku rule program: it must declare the
//! input relations of `grid.dl` (`puzzle`, `cell`, `digit`, `given`, `guess`,
//! `member`, `group`) and define `placed(p, c, v)`; the host also reads, when the
//! program defines them, `candidate(p, c, v)`, `solved(p)`, `broken(p)`,
//! `invalid(p)`, `choice_value(p, c, v)` and the contradiction views `empty_cell`,
//! `no_place`, `clash`; and in sessions that edit it inserts `eager(p)` for each
//! puzzle when the program declares it (tiers reached from the start, see
//! `datalog/base.dl`).

use std::sync::Arc;

use crate::check::ir::Program;
use crate::check::split::{split, TierSplit};
use crate::diag::SourceMap;
use crate::syntax::ast::Program as Ast;
use crate::syntax::{parse_paths, FsLoader, Loader};

/// The embedded files, by name.
pub const FILES: &[(&str, &str)] = &[
    ("grid.dl", include_str!("../../datalog/grid.dl")),
    ("sudoku.dl", include_str!("../../datalog/sudoku.dl")),
    ("base.dl", include_str!("../../datalog/base.dl")),
    ("tiers.dl", include_str!("../../datalog/tiers.dl")),
    ("techniques.dl", include_str!("../../datalog/techniques.dl")),
    ("uniqueness.dl", include_str!("../../datalog/uniqueness.dl")),
    ("unique.dl", include_str!("../../datalog/unique.dl")),
    ("status.dl", include_str!("../../datalog/status.dl")),
    ("validate.dl", include_str!("../../datalog/validate.dl")),
    ("fast.dl", include_str!("../../datalog/fast.dl")),
];

/// Which built-in program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// Every rule, tiered, with explanations: `sudoku.dl`.
    Full,
    /// The full rules with every puzzle assumed to have one solution (the
    /// uniqueness techniques on): `unique.dl`.
    Unique,
    /// Singles and intersections only, for raw speed: `fast.dl`.
    Fast,
    /// Duplicate givens: `validate.dl`.
    Validate,
}

impl Builtin {
    pub fn file(self) -> &'static str {
        match self {
            Builtin::Full => "sudoku.dl",
            Builtin::Unique => "unique.dl",
            Builtin::Fast => "fast.dl",
            Builtin::Validate => "validate.dl",
        }
    }
}

struct Embedded;

impl Loader for Embedded {
    fn load(&self, path: &str, _from: &str) -> Result<(String, String), String> {
        let name = path.rsplit('/').next().unwrap_or(path);
        FILES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, t)| (format!("datalog/{n}"), t.to_string()))
            .ok_or_else(|| format!("no built-in file named {name}"))
    }
}

/// The files given, concatenated, or if none the text of `which`, parsed.
fn parse_rules(rules: &[String], which: Builtin) -> Result<(SourceMap, Ast), String> {
    let builtin = [which.file().to_string()];
    let (paths, loader): (&[String], &dyn Loader) = match rules.is_empty() {
        true => (&builtin, &Embedded),
        false => (rules, &FsLoader),
    };
    parse_paths(paths, loader).map_err(|e| e.to_string())
}

/// A parsed program, checked.
fn finish(sources: SourceMap, ast: &Ast) -> Result<Arc<Program>, String> {
    crate::check::check(sources, ast)
        .map(Arc::new)
        .map_err(|d| d.to_string())
}

/// A built-in program, checked.
pub fn builtin(which: Builtin) -> Result<Arc<Program>, String> {
    load(&[], which)
}

/// Program files given by the user (concatenated), checked.
pub fn from_files(paths: &[String]) -> Result<Arc<Program>, String> {
    let (sources, ast) = parse_paths(paths, &FsLoader).map_err(|e| e.to_string())?;
    finish(sources, &ast)
}

/// `--rules` files if any were given, else the built-in program.
pub fn load(rules: &[String], default: Builtin) -> Result<Arc<Program>, String> {
    let (sources, ast) = parse_rules(rules, default)?;
    finish(sources, &ast)
}

/// A program and its split by tier ([`crate::check::split`]; `None` when it has no
/// tiers above 1 to split), for a board that steps its tiers.
pub type Stepping = (Arc<Program>, Option<Arc<TierSplit>>);

/// What [`load`] loads, and its split.
pub fn load_split(rules: &[String], default: Builtin) -> Result<Stepping, String> {
    let (sources, ast) = parse_rules(rules, default)?;
    let program = finish(sources.clone(), &ast)?;
    let split = split(&sources, &ast).map_err(|d| d.to_string())?;
    Ok((program, split.map(Arc::new)))
}

#[cfg(test)]
mod tests {
    use super::{builtin, from_files, Builtin};
    use crate::dataflow::render::width;
    use crate::plan::plan;

    /// The width each rule set renders at in batch runs (no explanations): a rule
    /// that holds one variable more moves a whole rule set to the next width, a
    /// cost its author should see (singles.dl at 6 wide was ~1.09x its time at 4).
    #[test]
    fn each_rule_set_renders_at_its_width() {
        let at = |program: &crate::check::ir::Program| {
            width(program, &plan(program, false).expect("the rules plan"))
        };
        let singles = from_files(&["datalog/singles.dl".to_string()]).expect("singles.dl checks");
        assert_eq!(at(&singles), 4);
        assert_eq!(at(&builtin(Builtin::Fast).expect("fast.dl checks")), 4);
        assert_eq!(
            at(&builtin(Builtin::Full).expect("sudoku.dl checks")),
            crate::MAX_ARITY
        );
    }
}
