//! The `sudolog` command line. See `sudolog --help`.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    reset_sigpipe();
    match cli::main(std::env::args_os()) {
        Ok(status) => ExitCode::from(status),
        Err(e) => {
            // Rendered once: the text is final (diagnostics carry their carets).
            let text = format!("{e:#}");
            if text.ends_with('\n') {
                eprint!("{text}");
            } else {
                eprintln!("{text}");
            }
            ExitCode::from(cli::exit_code(&e))
        }
    }
}

/// Ends quietly when the reader of stdout goes away (`sudolog solve big.txt | head`),
/// like other Unix tools: Rust ignores SIGPIPE, so `println!` would panic instead.
#[cfg(unix)]
fn reset_sigpipe() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: restoring a signal's default disposition at start-up, before any
    // thread exists; `signal` has this C signature on every Unix.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

#[cfg(not(unix))]
fn reset_sigpipe() {}
