//! What can go wrong in a command, as a type: each kind knows its exit status, and
//! its text is final (diagnostics keep their `file:line:col` and carets). `main`
//! renders an error once, on stderr.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum CliError {
    /// Arguments that do not make sense together: exit status 2.
    #[error("error: {0}")]
    Usage(String),
    /// An argument's own text, already rendered by clap: exit status 2.
    #[error("{0}")]
    Clap(String),
    /// An input that cannot be read or is not what the command takes (a missing
    /// file, a bad puzzle): exit status 1.
    #[error("error: {0}")]
    Input(String),
    /// A program that does not parse or check: its rendered diagnostics.
    #[error("{0}")]
    Program(String),
    /// An input error with its place, already rendered (`file:line:col: error: ...`).
    #[error("{0}")]
    Located(String),
    /// A rule program that lacks a relation the command reads.
    #[error("error: {0}")]
    Interface(String),
    /// The engine failed while running.
    #[error("error: {0}")]
    Engine(String),
    /// Results could not be written.
    #[error("error: cannot write {what}: {source}")]
    Write {
        what: String,
        source: std::io::Error,
    },
}

impl CliError {
    pub fn usage(msg: impl Into<String>) -> CliError {
        CliError::Usage(msg.into())
    }

    /// The process's exit status for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) | CliError::Clap(_) => 2,
            _ => 1,
        }
    }
}

/// Engine errors (the library's stages report `String`s).
pub fn engine(e: String) -> CliError {
    CliError::Engine(e)
}

/// A failed write to standard output.
pub fn stdout(e: std::io::Error) -> CliError {
    CliError::Write {
        what: "standard output".into(),
        source: e,
    }
}
