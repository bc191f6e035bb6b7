//! The `sudolog` command line. See `sudolog help`.

mod cli;

fn main() {
    reset_sigpipe();
    std::process::exit(cli::main(std::env::args().skip(1).collect()));
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
