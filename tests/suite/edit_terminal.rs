//! sudolog at a terminal: the editor's line editing and history, progress on long
//! runs. Each command runs under
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
    /// `sudolog ARGS` under `script`, or `None` when `script` cannot be started.
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
    let mut t = Terminal::start("edit simple").expect("`script` (util-linux) must be installed");
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
    let status = wait(&mut t.child, 30, "the session after quit");
    assert!(status.success(), "{}", t.text());
    assert!(
        t.text()
            .contains("sudolog edit: type help for the commands"),
        "{}",
        t.text()
    );
}

/// Waits for a child to end (at most `secs`), returning its status.
fn wait(child: &mut Child, secs: u64, what: &str) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "{what} did not end"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A long `solve` shows its progress (indicatif, on stderr) at a terminal, and not
/// when stderr is a pipe, where only the summary line is written.
#[test]
fn solve_shows_progress_at_a_terminal_only() {
    let dir = std::env::temp_dir().join(format!("sudolog-progress-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("puzzles.txt");
    let all = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/17_clue_300.txt"
    ))
    .unwrap();
    let some: String = all.lines().take(80).map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, some).unwrap();
    let args = format!("solve {} --no-search --fast -w 1", file.display());
    let mut t = Terminal::start(&args).expect("`script` (util-linux) must be installed");
    let status = wait(&mut t.child, 120, "solve");
    assert!(status.success(), "{}", t.text());
    // `{pos} puzzles ({per_sec}, {elapsed})`, redrawn while the run goes on.
    assert!(
        t.text().contains(" puzzles (") && t.text().contains("/s, "),
        "no progress at a terminal:\n{}",
        t.text()
    );
    let piped = Command::new(env!("CARGO_BIN_EXE_sudolog"))
        .args(args.split(' '))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&piped.stderr);
    assert!(piped.status.success(), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("80 puzzles: "), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
