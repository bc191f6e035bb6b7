//! The `sudolog` binary on the Soufflé-style examples of `tests/souffle/`: each
//! directory holds `program.dl`, its input `*.facts` and the expected `*.csv` outputs
//! (computed independently of sudolog). `sudolog run program.dl -F <dir> -D <tmp>` must
//! write exactly the expected files, byte for byte. Also: `-D -` (stdout), `sudolog
//! check` (the plan), and the exit codes and messages of failing runs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXAMPLES: &[&str] = &["tc", "same_generation", "stratified_negation", "aggregates"];

fn example_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/souffle")
        .join(name)
}

fn sudolog(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sudolog"))
        .args(args)
        .output()
        .expect("runs sudolog")
}

/// A fresh, empty directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("sudolog-examples-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every expected `.csv` of `dir` was written to `out`, byte for byte.
fn same_csvs(dir: &Path, out: &Path) {
    for file in files_with_ext(dir, ".csv") {
        assert_eq!(
            std::fs::read_to_string(out.join(&file)).unwrap(),
            std::fs::read_to_string(dir.join(&file)).unwrap(),
            "{file}"
        );
    }
}

fn files_with_ext(dir: &Path, ext: &str) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(ext))
        .collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn run_example(name: &str) {
    let dir = example_dir(name);
    let out = TempDir::new(name);
    let program = dir.join("program.dl");
    let result = sudolog(&[
        "run",
        program.to_str().unwrap(),
        "-F",
        dir.to_str().unwrap(),
        "-D",
        out.path(),
    ]);
    assert!(
        result.status.success(),
        "{name}: exit {:?}\nstderr:\n{}",
        result.status.code(),
        text(&result.stderr)
    );
    let expected = files_with_ext(&dir, ".csv");
    assert!(!expected.is_empty(), "{name}: no expected .csv files");
    assert_eq!(
        files_with_ext(&out.0, ".csv"),
        expected,
        "{name}: the .csv files written are not the expected ones"
    );
    for file in &expected {
        let want = std::fs::read_to_string(dir.join(file)).unwrap();
        let got = std::fs::read_to_string(out.0.join(file)).unwrap();
        assert_eq!(
            got, want,
            "{name}/{file} differs (left: written, right: expected)"
        );
    }
}

#[test]
fn transitive_closure() {
    run_example("tc");
}

#[test]
fn same_generation() {
    run_example("same_generation");
}

#[test]
fn stratified_negation() {
    run_example("stratified_negation");
}

#[test]
fn aggregates() {
    run_example("aggregates");
}

/// Every example directory is covered by a test above.
#[test]
fn all_examples_listed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/souffle");
    let dirs: BTreeSet<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(dirs, EXAMPLES.iter().map(|s| s.to_string()).collect());
}

/// `-D -` prints every output relation in declaration order, framed by rules.
#[test]
fn output_to_stdout() {
    let dir = example_dir("tc");
    let result = sudolog(&[
        "run",
        dir.join("program.dl").to_str().unwrap(),
        "-F",
        dir.to_str().unwrap(),
        "-D",
        "-",
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let mut want = String::new();
    for rel in ["path", "cyclic"] {
        let rows = std::fs::read_to_string(dir.join(format!("{rel}.csv"))).unwrap();
        want += &format!("---------------\n{rel}\n===============\n{rows}===============\n");
    }
    assert_eq!(text(&result.stdout), want);
    assert!(result.stderr.is_empty(), "{}", text(&result.stderr));
}

/// Two workers write the same files.
#[test]
fn two_workers() {
    let dir = example_dir("stratified_negation");
    let out = TempDir::new("two-workers");
    let result = sudolog(&[
        "run",
        dir.join("program.dl").to_str().unwrap(),
        "-F",
        dir.to_str().unwrap(),
        "-D",
        out.path(),
        "-w",
        "2",
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    same_csvs(&dir, &out.0);
}

/// Two processes (`-n 2 -p I --hostfile FILE`, on loopback): process 0 writes
/// the outputs, and they equal the expected ones.
#[test]
fn two_processes() {
    let dir = example_dir("tc");
    let out = TempDir::new("two-processes");
    let other = TempDir::new("two-processes-1");
    // Both processes read the same host file.
    let (a, b) = crate::common::free_ports();
    let hosts = out.0.join("hosts.txt");
    std::fs::write(&hosts, format!("127.0.0.1:{a}\n127.0.0.1:{b}\n")).unwrap();
    let program = dir.join("program.dl");
    let args = |i: &str, to: &str| -> Vec<String> {
        [
            "run",
            program.to_str().unwrap(),
            "-F",
            dir.to_str().unwrap(),
            "-D",
            to,
            "-n",
            "2",
            "-p",
            i,
            "--hostfile",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([hosts.to_str().unwrap().to_string()])
        .collect()
    };
    let mut p1 = Command::new(env!("CARGO_BIN_EXE_sudolog"))
        .args(args("1", other.path()))
        .spawn()
        .unwrap();
    let result = Command::new(env!("CARGO_BIN_EXE_sudolog"))
        .args(args("0", out.path()))
        .output()
        .unwrap();
    if !result.status.success() {
        // Process 1 would wait for process 0 for ever.
        let _ = p1.kill();
    }
    assert!(result.status.success(), "{}", text(&result.stderr));
    assert!(p1.wait().unwrap().success());
    same_csvs(&dir, &out.0);
    // Process 1 writes nothing.
    assert!(files_with_ext(&other.0, ".csv").is_empty());
}

/// `sudolog check` prints the plan: one header per stratum, in order, naming every
/// relation of the program once; the recursive component and the rules' locations.
#[test]
fn check_prints_every_stratum() {
    let dir = example_dir("stratified_negation");
    let path = dir.join("program.dl");
    let result = sudolog(&["check", path.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    let plan = text(&result.stdout);
    let program =
        sudolog::check::check_str("program.dl", &std::fs::read_to_string(&path).unwrap()).unwrap();
    let headers: Vec<&str> = plan.lines().filter(|l| l.starts_with("stratum ")).collect();
    assert_eq!(headers.len(), program.strata.len(), "{plan}");
    for (i, h) in headers.iter().enumerate() {
        assert!(h.starts_with(&format!("stratum {i}: ")), "{h}");
    }
    for r in &program.relations {
        let n = headers
            .iter()
            .filter(|h| {
                h.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|w| w == r.name)
            })
            .count();
        assert_eq!(n, 1, "relation {} in {n} stratum headers:\n{plan}", r.name);
    }
    assert!(
        headers.iter().any(|h| h.contains("recursive {reach}")),
        "{plan}"
    );
    // Negation shows as an antijoin; each rule names its source location.
    assert!(plan.contains("antijoin reach"), "{plan}");
    for line in [29, 30, 32, 34, 35, 37, 38] {
        assert!(
            plan.contains(&format!("program.dl:{line}:1)")),
            "no rule at line {line}:\n{plan}"
        );
    }
    // Strata come in dependency order.
    let pos = |name: &str| {
        headers
            .iter()
            .position(|h| h.ends_with(&format!(": {name}")) || h.contains(&format!("{{{name}}}")))
            .unwrap_or_else(|| panic!("no stratum for {name}:\n{plan}"))
    };
    assert!(pos("source") < pos("reach"));
    assert!(pos("reach") < pos("unreachable"));
    assert!(pos("unreachable") < pos("unsafe"));
    assert!(pos("unsafe") < pos("safe"));
    assert!(pos("has_out") < pos("sink"));
}

/// A program that does not check: exit code 1, the diagnostic on stderr, nothing on
/// stdout.
#[test]
fn check_rejects_bad_program() {
    let dir = TempDir::new("bad-program");
    let path = dir.0.join("bad.dl");
    std::fs::write(
        &path,
        ".decl a(x: number)\n.decl h(x: number)\nh(x) :- a(x), !h(x).\n",
    )
    .unwrap();
    for cmd in ["check", "run"] {
        let result = sudolog(&[cmd, path.to_str().unwrap()]);
        assert_eq!(result.status.code(), Some(1), "{cmd}");
        assert!(result.stdout.is_empty(), "{cmd}: {}", text(&result.stdout));
        let err = text(&result.stderr);
        assert!(
            err.starts_with(&format!(
                "{}:3:1: error: unstratifiable program: negation of 'h' inside a recursive cycle through 'h'\n",
                path.display()
            )),
            "{cmd}: {err}"
        );
    }
}

/// The transitive-closure example run in a directory of its own, with `edge.facts`
/// made by `make_edges` (facts and outputs in that directory).
fn run_tc_with_edges(name: &str, make_edges: impl FnOnce(&Path)) -> (TempDir, Output) {
    let dir = TempDir::new(name);
    std::fs::copy(
        example_dir("tc").join("program.dl"),
        dir.0.join("program.dl"),
    )
    .unwrap();
    make_edges(&dir.0.join("edge.facts"));
    let result = sudolog(&[
        "run",
        dir.0.join("program.dl").to_str().unwrap(),
        "-F",
        dir.path(),
        "-D",
        dir.path(),
    ]);
    (dir, result)
}

/// A bad line in a facts file: exit code 1 and `file:line:col: message` on stderr.
#[test]
fn run_rejects_bad_facts() {
    let (dir, result) = run_tc_with_edges("bad-facts", |f| {
        std::fs::write(f, "1\t2\n2\t3\t4\n").unwrap()
    });
    assert_eq!(result.status.code(), Some(1));
    assert_eq!(
        text(&result.stderr),
        format!(
            "{}:2:5: expected 2 tab-separated columns for 'edge', found 3\n",
            dir.0.join("edge.facts").display()
        )
    );
    assert!(files_with_ext(&dir.0, ".csv").is_empty());
}

/// A facts file that is a device (here a link to /dev/zero) is refused at once, not
/// read forever.
#[test]
fn run_refuses_a_device_as_facts() {
    let (dir, result) = run_tc_with_edges("device-facts", |f| {
        std::os::unix::fs::symlink("/dev/zero", f).unwrap()
    });
    assert_eq!(result.status.code(), Some(1));
    assert_eq!(
        text(&result.stderr),
        format!(
            "cannot read {}: not a regular file (a facts file is a file of tab-separated lines)\n",
            dir.0.join("edge.facts").display()
        )
    );
}

/// A reader that goes away (`sudolog ... | head`) ends the run quietly: no panic
/// from `println!` on a closed pipe.
#[test]
fn closed_stdout_is_not_a_panic() {
    let tmp = TempDir::new("closed-stdout");
    let dir = &tmp.0;
    let program = dir.join("copy.dl");
    std::fs::write(
        &program,
        ".decl a(x: number)\n.input a\n.decl b(x: number)\n.output b\nb(x) :- a(x).\n",
    )
    .unwrap();
    // Well over a pipe's buffer of output, so some of it is written after the
    // reader has gone.
    let facts: String = (0..40_000).map(|i| format!("{i}\n")).collect();
    std::fs::write(dir.join("a.facts"), facts).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sudolog"))
        .args([
            "run",
            program.to_str().unwrap(),
            "-F",
            dir.to_str().unwrap(),
        ])
        .args(["-D", "-"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(out.status.code(), Some(101), "{err}");
}
