//! Keeping stdout for results. Timely's networking reports its connections with
//! `println!` while a multi-process session starts; [`to_stderr`] sends the process's
//! stdout to stderr meanwhile, so that stdout holds results only.

use std::io::Write;

/// Runs `f` with file descriptor 1 pointed at stderr when `on` (Unix), then puts it
/// back.
pub fn to_stderr<T>(on: bool, f: impl FnOnce() -> T) -> T {
    #[cfg(unix)]
    if on {
        extern "C" {
            fn dup(fd: i32) -> i32;
            fn dup2(from: i32, to: i32) -> i32;
            fn close(fd: i32) -> i32;
        }
        let _ = std::io::stdout().flush();
        // SAFETY: plain descriptor calls on 0-2 and a descriptor this function owns;
        // every failure leaves stdout as it was.
        let saved = unsafe { dup(1) };
        if saved >= 0 && unsafe { dup2(2, 1) } >= 0 {
            let result = f();
            let _ = std::io::stdout().flush();
            unsafe {
                dup2(saved, 1);
                close(saved);
            }
            return result;
        }
        if saved >= 0 {
            unsafe { close(saved) };
        }
    }
    f()
}
