//! Program text -> syntax tree.
//!
//! [`parse`] turns the text of a rule program into an [`ast::Program`], resolving
//! `#include "file"` lines relative to the including file. Errors are
//! [`Diagnostic`]s with the exact place of the problem.

pub mod ast;
mod error;
mod lexer;
mod parser;

pub use error::SyntaxError;
pub use parser::{
    parse, parse_files, parse_paths, parse_str, FsLoader, Loader, MAX_ERRORS, MAX_FILE_BYTES,
    MAX_OPERATORS,
};
