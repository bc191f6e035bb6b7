//! The syntax stage's error type.

use crate::diag::Diagnostics;

/// Why program text could not be turned into a syntax tree. Displays as the located
/// diagnostics, each with its source line and caret line (`file:line:col: error: ...`).
#[derive(Clone, Debug, thiserror::Error)]
pub enum SyntaxError {
    /// Lexical and grammar errors, and files (top-level or `#include`d) that cannot be
    /// read: at least one, at most [`super::MAX_ERRORS`].
    #[error("{0}")]
    Invalid(Diagnostics),
}

impl SyntaxError {
    /// The diagnostics, with the sources they point into.
    pub fn diagnostics(&self) -> &Diagnostics {
        match self {
            SyntaxError::Invalid(d) => d,
        }
    }

    /// The diagnostics, taken out.
    pub fn into_diagnostics(self) -> Diagnostics {
        match self {
            SyntaxError::Invalid(d) => d,
        }
    }
}
