//! `sudolog edit` at a terminal: line editing and history. The session runs under
//! `script` (util-linux), which gives it a pseudo-terminal; keys are sent one line at
//! a time, each after the output of the one before, as a person would type them.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The first row of the `simple` sample, as `givens` prints it.
const FIRST_ROW: &str = ".568.194.";

struct Terminal {
    child: Child,
    out: Arc<Mutex<Vec<u8>>>,
}

impl Terminal {
    /// `sudolog ARGS` under `script`, or `None` when `script` is not installed.
    fn start(args: &str) -> Option<Terminal> {
        let cmd = format!("{} {args}", env!("CARGO_BIN_EXE_sudolog"));
        let mut child = Command::new("script")
            .args(["-qfec", &cmd, "/dev/null"])
            .env("TERM", "xterm")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let out = Arc::new(Mutex::new(Vec::new()));
        let (mut stdout, sink) = (child.stdout.take().unwrap(), out.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Some(Terminal { child, out })
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.out.lock().unwrap()).into_owned()
    }

    /// Waits until `what` has appeared `n` times in the output.
    fn wait_for(&self, what: &str, n: usize) {
        let start = Instant::now();
        while self.text().matches(what).count() < n {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no {n} x {what:?} in:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends keys once the session has had time to print its prompt and wait.
    fn keys(&mut self, keys: &[u8]) {
        std::thread::sleep(Duration::from_millis(300));
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(keys).unwrap();
        stdin.flush().unwrap();
    }
}

/// The up arrow recalls the previous command; Ctrl-C drops the line being typed and
/// the session goes on; `quit` ends it with status 0.
#[test]
fn history_and_interrupt() {
    let Some(mut t) = Terminal::start("edit simple") else {
        eprintln!("skipped: `script` (util-linux) is not installed");
        return;
    };
    t.wait_for("> ", 1);
    t.keys(b"givens\r");
    t.wait_for(FIRST_ROW, 1);
    // Up arrow, Enter: `givens` again.
    t.keys(b"\x1b[A\r");
    t.wait_for(FIRST_ROW, 2);
    // A half-typed command dropped by Ctrl-C runs nothing: the given stays.
    t.keys(b"clear r1c2");
    t.keys(b"\x03");
    t.keys(b"givens\r");
    t.wait_for(FIRST_ROW, 3);
    t.keys(b"quit\r");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = t.child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "quit did not end the session"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{}", t.text());
    assert!(
        t.text()
            .contains("sudolog edit: type help for the commands"),
        "{}",
        t.text()
    );
}
