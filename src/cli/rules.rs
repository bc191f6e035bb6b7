//! The rule program a Sudoku command runs, and what the command reads from it.
//!
//! In: `--rules` files, `--fast` or `--assume-unique`, and the relations (name and column count) a
//! command reads. Out: the checked program, or an error naming the first relation
//! the program lacks and the columns it must have.

use std::sync::Arc;

use super::args::{RulesArgs, SearchArgs};
use super::error::CliError;
use sudolog::check::ir::Program;
use sudolog::sudoku::rules::{self, Builtin};

/// A relation a command reads: name and column count.
pub type Need = (&'static str, usize);

/// What every solving command reads: the placements and the statuses.
pub const STATUS: &[Need] = &[("placed", 3), ("solved", 1), ("broken", 1), ("invalid", 1)];
/// What the search reads: the cell to guess and its candidates.
pub const SEARCH: &[Need] = &[("choice_value", 3)];
/// What dumps and editing read.
pub const CANDIDATES: &[Need] = &[("placed", 3), ("candidate", 3)];
/// What editing reads besides [`STATUS`] and [`CANDIDATES`].
pub const EDIT: &[Need] = &[("eliminated", 3)];
/// The validation messages (Drools' validate.drl): `datalog/validate.dl`.
pub const VALIDATION: &[Need] = &[("dup_row", 4), ("dup_col", 4), ("dup_box", 3)];

/// The program: `--rules` files, else `--fast`'s, `--assume-unique`'s or
/// `default`'s built-in one.
pub fn program(args: &RulesArgs, default: Builtin) -> Result<Arc<Program>, CliError> {
    rules::load(&args.rules, chosen(args, default)).map_err(CliError::Program)
}

/// [`program`], and its split by tier when `wanted` and not `--one-block` (see
/// [`rules::load_split`]).
pub fn stepping(
    args: &RulesArgs,
    default: Builtin,
    wanted: bool,
) -> Result<rules::Stepping, CliError> {
    match args.one_block || !wanted {
        true => Ok((program(args, default)?, None)),
        false => rules::load_split(&args.rules, chosen(args, default)).map_err(CliError::Program),
    }
}

/// The built-in program the flags pick.
fn chosen(args: &RulesArgs, default: Builtin) -> Builtin {
    match (args.fast, args.assume_unique) {
        (true, _) => Builtin::Fast,
        (_, true) => Builtin::Unique,
        _ => default,
    }
}

/// How measurements name the program [`program`] picks.
pub fn program_name(args: &RulesArgs, default: Builtin) -> String {
    if !args.rules.is_empty() {
        return args.rules.join(" + ");
    }
    match chosen(args, default) {
        Builtin::Fast => "fast",
        Builtin::Unique => "unique",
        _ => "full",
    }
    .into()
}

/// What a solving command reads: the statuses, and the choice when it searches.
pub fn solving(search: &SearchArgs) -> Vec<Need> {
    let mut needs = STATUS.to_vec();
    if !search.no_search {
        needs.extend_from_slice(SEARCH);
    }
    needs
}

/// Checks that `program` defines every relation of `needs` with its column count;
/// `command` names the reader in the error.
pub fn require(program: &Program, needs: &[Need], command: &str) -> Result<(), CliError> {
    for &(name, arity) in needs {
        let columns = |n: usize| format!("{n} column{}", if n == 1 { "" } else { "s" });
        match program.relation(name) {
            None => {
                return Err(CliError::Interface(format!(
                "the rule program has no relation '{name}' ({}), which `sudolog {command}` reads",
                columns(arity)
            )))
            }
            Some(r) if program.relations[r].arity() != arity => {
                return Err(CliError::Interface(format!(
                    "the rule program's '{name}' has {}; `sudolog {command}` reads it with {}",
                    columns(program.relations[r].arity()),
                    columns(arity)
                )))
            }
            Some(_) => {}
        }
    }
    Ok(())
}
