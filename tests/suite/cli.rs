//! The command line as a user meets it (issue 12): clap's help, version and usage
//! errors per subcommand, validated process options, exit statuses (0 all ran, 1 an
//! input failed, 2 usage), JSON Lines, PUZZLE arguments, validation on load, the
//! `--rules` interface check and `bench tc`'s graph sizes. Every run has a time
//! limit: a hang fails the test instead of stalling the suite.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use sudolog::sudoku::grid::{check_solution, Grid};

/// The solution of the `hard1` sample (checked in `sudoku_samples.rs`).
const HARD1: &str =
    "264351987987246135153978264321867549675429813849135672712583496538694721496712358";
/// The `simple` sample and its solution.
const SIMPLE: &str =
    ".568.194.9..6.5..37..493..8897.4.635..39.68..465.8.2915..269..76..5.4..9.497.835.";

/// The Drools lines for the `broken` sample.
const BROKEN_LINES: &str = "cell [0,0]: 5 has a duplicate in row 0\n\
    cell [0,8]: 5 has a duplicate in row 0\n\
    cell [4,0]: 8 has a duplicate in col 0\n\
    cell [6,0]: 8 has a duplicate in col 0\n\
    Validation complete.\n";

struct Run {
    code: i32,
    out: String,
    err: String,
}

/// Runs the binary in the crate root with `stdin`, killed after `limit` (a failed
/// test, not a hung suite).
fn run_for(args: &[&str], stdin: &str, limit: Duration) -> Run {
    let mut child = crate::sudoku_common::spawn(args, stdin);
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "sudolog {args:?} still running after {limit:?}; stderr:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&out.stdout).into_owned(),
        err: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run(args: &[&str]) -> Run {
    run_for(args, "", Duration::from_secs(120))
}

fn run_in(args: &[&str], stdin: &str) -> Run {
    run_for(args, stdin, Duration::from_secs(120))
}

/// A usage error: exit status 2, nothing on stdout, the message on stderr.
fn usage_error(args: &[&str], says: &str) {
    let r = run_for(args, "", Duration::from_secs(30));
    assert_eq!(r.code, 2, "{args:?}: {}", r.err);
    assert!(r.out.is_empty(), "{args:?}: {}", r.out);
    assert!(r.err.contains(says), "{args:?}: {}", r.err);
}

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("sudolog-cli-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn file(&self, name: &str, text: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Option names (`--x`) a help text lists.
fn options_of(help: &str) -> Vec<String> {
    help.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.trim_end_matches(|c: char| !c.is_alphanumeric())
                .to_string()
        })
        .collect()
}

#[test]
fn each_subcommand_help_lists_only_its_own_options() {
    for (cmd, has, lacks) in [
        (
            vec!["solve"],
            &[
                "--chunk",
                "--format",
                "--no-search",
                "--first",
                "--rules",
                "--workers",
            ][..],
            &["--rounds", "--edges", "--echo", "--notation"][..],
        ),
        (
            vec!["dump"],
            &["--rounds", "--rules", "--fast"],
            &["--chunk", "--format", "--echo"],
        ),
        (
            vec!["explain"],
            &["--notation", "--no-search"],
            &["--rounds", "--chunk", "--edges"],
        ),
        (
            vec!["edit"],
            &["--echo", "--notation"],
            &["--chunk", "--rounds"],
        ),
        (
            vec!["run"],
            &[
                "--facts",
                "--output",
                "--stats",
                "--processes",
                "--process",
                "--hostfile",
            ],
            &["--rules", "--chunk"],
        ),
        (vec!["check"], &["--no-explain"], &["--workers", "--rules"]),
        (
            vec!["bench", "tc"],
            &["--nodes", "--edges", "--seed", "--repeat"],
            &["--limit", "--rules", "--edits"],
        ),
        (
            vec!["bench", "solve"],
            &["--limit", "--chunk", "--rules"],
            &["--nodes", "--edits"],
        ),
        (
            vec!["bench", "edit"],
            &["--edits", "--scratch-every", "--profile"],
            &["--nodes", "--limit"],
        ),
    ] {
        for help in ["--help", "-h"] {
            let mut args = cmd.clone();
            args.push(help);
            let r = run(&args);
            assert_eq!(r.code, 0, "{args:?}: {}", r.err);
            let listed = options_of(&r.out);
            for o in has {
                assert!(
                    listed.iter().any(|l| l == o),
                    "{args:?} lacks {o}:\n{}",
                    r.out
                );
            }
            for o in lacks {
                assert!(
                    !listed.iter().any(|l| l == o),
                    "{args:?} lists {o}:\n{}",
                    r.out
                );
            }
        }
    }
}

#[test]
fn version_and_top_level_help() {
    let r = run(&["--version"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.out, format!("sudolog {}\n", env!("CARGO_PKG_VERSION")));
    let r = run(&["--help"]);
    assert_eq!(r.code, 0);
    for cmd in [
        "run", "check", "solve", "explain", "dump", "validate", "edit", "bench",
    ] {
        assert!(
            r.out.lines().any(|l| l.trim_start().starts_with(cmd)),
            "{cmd}:\n{}",
            r.out
        );
    }
    // No command at all, or an unknown one: usage errors.
    usage_error(&[], "Usage:");
    usage_error(&["frobnicate"], "unrecognized subcommand 'frobnicate'");
}

#[test]
fn options_a_subcommand_does_not_take_are_usage_errors() {
    usage_error(
        &["solve", "--rounds", "6", "--edges", "3", "simple"],
        "'--rounds'",
    );
    usage_error(&["dump", "--chunk", "3", "simple"], "'--chunk'");
    usage_error(&["solve", "--format", "xml", "simple"], "'xml'");
    usage_error(&["explain", "--notation", "a1", "simple"], "'a1'");
    usage_error(&["dump", "--rounds", "many", "simple"], "'many'");
    usage_error(&["solve"], "PUZZLE");
    usage_error(&["solve", "--chunk", "0", "simple"], "'0'");
    usage_error(
        &["solve", "--fast", "--rules", "datalog/singles.dl", "simple"],
        "--fast",
    );
}

/// Timely's process options are named options, checked before any engine starts.
#[test]
fn process_options_are_validated() {
    usage_error(&["solve", "-w", "99999", "simple"], "99999");
    usage_error(&["solve", "-w", "0", "simple"], "'0'");
    usage_error(
        &["solve", "-n", "2", "-p", "5", "simple"],
        "--process 5 is out of range",
    );
    usage_error(&["solve", "-n", "0", "simple"], "'0'");
    usage_error(&["solve", "--processes", "0", "simple"], "'0'");
    usage_error(
        &["run", "tests/souffle/tc/program.dl", "-D", "-", "-p", "1"],
        "--process 1",
    );
    let dir = TempDir::new("hosts");
    let hosts = dir.file("hosts.txt", "127.0.0.1:41001\n");
    usage_error(
        &["solve", "-n", "2", "--hostfile", &hosts, "simple"],
        "names 1 process(es)",
    );
    usage_error(&["solve", "--hostfile", &hosts, "simple"], "--processes 2");
    usage_error(
        &["solve", "-n", "2", "--hostfile", "/no/such/hosts", "simple"],
        "/no/such/hosts",
    );
}

/// `solve hard1` and `solve <81 characters>`: samples and literal grids anywhere a
/// PUZZLE is taken.
#[test]
fn samples_and_literal_grids_are_puzzles() {
    let r = run(&["solve", "hard1", SIMPLE]);
    assert_eq!(r.code, 0, "{}", r.err);
    let lines: Vec<&str> = r.out.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.out);
    assert_eq!(lines[0], format!("{HARD1} solved"));
    assert!(
        lines[1].ends_with(" solved") && !lines[1].contains('.'),
        "{}",
        r.out
    );
    let r = run(&["bench", "solve", "hard1", "--no-search"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("1 solved"), "{}", r.out);
}

/// Exit statuses and where errors go: a missing file, a directory and a bad puzzle
/// line are failed inputs (1); the other inputs still get their results.
#[test]
fn failed_inputs_exit_1_with_errors_on_stderr() {
    let dir = TempDir::new("inputs");
    let d = dir.0.to_str().unwrap();
    let r = run(&["solve", d, "simple"]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert!(
        r.err.starts_with(&format!("error: cannot read '{d}': ")),
        "{}",
        r.err
    );
    assert_eq!(r.out.lines().count(), 1, "{}", r.out);
    assert!(r.out.ends_with(" solved\n"), "{}", r.out);
    assert!(r.err.contains("2 puzzles: 1 error, 1 solved"), "{}", r.err);
    let r = run(&["solve", "/nonexistent/puzzles.txt"]);
    assert_eq!(r.code, 1);
    assert!(r.out.is_empty(), "{}", r.out);
    for cmd in ["explain", "dump", "validate", "edit"] {
        let r = run(&[cmd, d]);
        assert_eq!(r.code, 1, "{cmd}: {}", r.err);
        assert!(r.err.contains("is a directory"), "{cmd}: {}", r.err);
        assert!(r.out.is_empty(), "{cmd}: {}", r.out);
    }
    let bad = dir.file("bad.txt", &format!("{SIMPLE}\n{}\n", &SIMPLE[..80]));
    let r = run(&["explain", &format!("{d}/nothing.txt")]);
    assert_eq!(r.code, 1);
    let r = run(&["solve", &bad]);
    assert_eq!(r.code, 1);
    assert_eq!(r.out.lines().count(), 1);
    assert!(
        r.err
            .starts_with(&format!("{bad}:2:1: error: puzzle line has 80 characters")),
        "{}",
        r.err
    );
}

/// `--format json`: one JSON object per line, an input error included (`source`,
/// `line`, `column`, `error`); never a bare text line on stdout.
#[test]
fn json_lines_for_results_and_input_errors() {
    let input = format!("{SIMPLE}\n{}\n{HARD1}\n", &SIMPLE[..80]);
    let r = run_in(
        &["solve", "--format", "json", "-", "/nonexistent/puzzles.txt"],
        &input,
    );
    assert_eq!(r.code, 1, "{}", r.err);
    let records: Vec<serde_json::Value> = r
        .out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(records.len(), 4, "{}", r.out);
    assert_eq!(records[0]["status"], "solved");
    assert_eq!(records[0]["source"], "<stdin>");
    assert_eq!(records[0]["line"], 1);
    assert_eq!(records[0]["puzzle"], SIMPLE);
    assert!(records[0]["deductions"].is_object());
    assert_eq!(records[1]["source"], "<stdin>");
    assert_eq!(records[1]["line"], 2);
    assert_eq!(records[1]["column"], 1);
    assert!(
        records[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("puzzle line has 80 characters"),
        "{}",
        r.out
    );
    assert_eq!(records[2]["grid"], HARD1);
    assert_eq!(records[3]["source"], "/nonexistent/puzzles.txt");
    assert!(records[3]["line"].is_null());
    assert!(records[3]["error"]
        .as_str()
        .unwrap()
        .contains("cannot read"));
    // Duplicate givens come with Drools' lines.
    let r = run(&["solve", "--format", "json", "broken"]);
    assert_eq!(r.code, 0, "{}", r.err);
    let rec: serde_json::Value = serde_json::from_str(r.out.trim()).unwrap();
    assert_eq!(rec["status"], "invalid");
    let lines: Vec<&str> = BROKEN_LINES.lines().take(4).collect();
    assert_eq!(rec["validation"], serde_json::json!(lines));
}

/// In one process, `-w N` runs N engines of one worker, each on its share of the
/// puzzles: every input, input errors and invalid givens included, still gets its
/// record in input order, the same record one engine gives (grids, grades and
/// deductions are per puzzle; only the work before a second solution depends on the
/// batches), and `--profile` sums the engines' tables.
#[test]
fn engines_per_worker_keep_input_order() {
    let data = |name: &str| std::fs::read_to_string(format!("tests/data/{name}")).unwrap();
    let (hard, multi) = (data("top95.txt"), data("multisol_200.txt"));
    let mut input = String::new();
    for (i, (a, b)) in hard.lines().zip(multi.lines()).take(12).enumerate() {
        input.push_str(&format!("{a}\n{b}\n"));
        if i % 5 == 2 {
            input.push_str(&format!("{}\n", &SIMPLE[..80]));
        }
    }
    input.push_str(
        "55..............................................................................5\n",
    );
    let records = |workers: &str| {
        let args = [
            "solve", "--format", "json", "-w", workers, "--chunk", "3", "-",
        ];
        let r = run_in(&args, &input);
        assert_eq!(r.code, 1, "-w {workers}: {}", r.err);
        let mut rows: Vec<serde_json::Value> = r
            .out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        for row in &mut rows {
            let multiple = row["status"] == "multiple";
            let row = row.as_object_mut().unwrap();
            row.remove("time_ms");
            // The search stops at a second solution: how many nodes it evaluated
            // before, and so which two solutions it met (the grid is the first of
            // them), depends on which nodes of other puzzles shared their batches.
            // The grid must still solve the puzzle.
            if multiple {
                let grid = |k: &str| row[k].as_str().unwrap().parse::<Grid>().unwrap();
                check_solution(&grid("puzzle"), &grid("grid")).unwrap();
                for work in ["guesses", "backtracks", "max_depth", "grid"] {
                    row.remove(work);
                }
            }
        }
        rows
    };
    let one = records("1");
    assert_eq!(one.len(), input.lines().count());
    let statuses: Vec<&str> = one.iter().filter_map(|r| r["status"].as_str()).collect();
    for s in ["solved", "multiple", "invalid"] {
        assert!(statuses.contains(&s), "{statuses:?}");
    }
    assert_eq!(one.iter().filter(|r| r["error"].is_string()).count(), 2);
    assert_eq!(records("3"), one);
    // The profile of three engines: each rule's derivations summed over them.
    let profile = |w: &str| {
        let args = [
            "solve",
            "--no-search",
            "--profile",
            "-w",
            w,
            "--chunk",
            "3",
            "-",
        ];
        let r = run_in(&args, &input);
        let derived = |label: &str| -> i64 {
            let fields = r
                .err
                .lines()
                .map(|l| l.split_whitespace().collect::<Vec<_>>())
                .find(|f| f.get(1) == Some(&label))
                .unwrap_or_else(|| panic!("no {label} in {}", r.err));
            fields[2].parse().unwrap()
        };
        // Besides the rules, each relation's own operators and the block's: the
        // total's shares by kind add up to all of the operators' time.
        let line = |first: &str, label: &str| {
            r.err.lines().any(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.first() == Some(&first) && f.get(1) == Some(&label)
            })
        };
        assert!(line("rel", "[placed]") && line("loop", "{placed,eliminated,reach,colour~"));
        let last = r.err.lines().find(|l| l.starts_with("all operators: "));
        let last = last.unwrap_or_else(|| panic!("no total in {}", r.err));
        let shares: Vec<f64> = last
            .split(['(', ')', ','])
            .filter_map(|part| part.trim().split(' ').nth(1)?.strip_suffix('%'))
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(shares.len(), 4, "{last}");
        assert!((shares.iter().sum::<f64>() - 100.0).abs() < 0.3, "{last}");
        assert!(shares[1] > 0.0, "relations: {last}");
        (derived("given"), derived("eliminate"), derived("single"))
    };
    let (given, eliminated, singles) = profile("1");
    // Counted as added: a single's placement is withdrawn from its body a round
    // later (its cell is solved then), and still counts.
    assert!(given > 0 && eliminated > 0 && singles > 0);
    assert_eq!(profile("3"), (given, eliminated, singles));
}

/// The columns of the `--profile` line (on stderr, `err`) for the rule `label`.
fn profile_row(err: &str, label: &str) -> Vec<String> {
    err.lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .find(|cols| cols.get(1).map(String::as_str) == Some(label))
        .unwrap_or_else(|| panic!("no profile line for {label}:\n{err}"))
}

/// `bench edit --profile` with the full rules profiles the editor's board as it
/// runs, its tiers stepped from the host: the base's rules keep the rounds they
/// fired in (numbered as one block's), a tier's rules are charged to the full
/// program's rules of the same span (their own rounds are their dataflow's, so none
/// are shown), and the base's inputs for the tiers' finds to the relations they feed.
#[test]
fn bench_edit_profile_charges_the_stepped_tiers_to_the_programs_rules() {
    let r = run(&[
        "bench",
        "edit",
        "--edits",
        "4",
        "--scratch-every",
        "0",
        "--profile",
    ]);
    assert_eq!(r.code, 0, "{}", r.err);
    let row = |label: &str| profile_row(&r.err, label);
    // Columns: rule, label, derived, rounds, first-last, operators, ms, share.
    let single = row("single");
    assert!(single[2].parse::<i64>().unwrap() > 0, "{}", r.err);
    assert!(single[3].parse::<usize>().unwrap() > 1, "{}", r.err);
    for label in ["XY-Chain", "Skyscraper", "Swordfish"] {
        let cols = row(label);
        assert_eq!(
            (cols[3].as_str(), cols[4].as_str()),
            ("0", "-"),
            "{label}: {}",
            r.err
        );
        assert!(cols[5].parse::<usize>().unwrap() > 0, "{label}: {}", r.err);
    }
    assert!(!r.err.contains("__stepped"), "{}", r.err);
    assert!(row("[eliminated]")[0] == "rel", "{}", r.err);
}

/// `bench edit --profile`: after the edits' figures, one line per rule of the
/// session's program on stderr, over the whole session (the sample's first load
/// included). `singles.dl` solves the Drools samples by singles, so its placement
/// rules derive in rounds after the first, and `eliminated@46` (a placement's peers)
/// fires from round 1 on, never in round 0 (nothing is placed before it).
#[test]
fn bench_edit_profile_reports_the_sessions_rules() {
    let r = run(&[
        "bench",
        "edit",
        "--rules",
        "datalog/singles.dl",
        "--edits",
        "12",
        "--scratch-every",
        "0",
        "--profile",
    ]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("over 12 edits"), "{}", r.out);
    let row = |label: &str| profile_row(&r.err, label);
    // Columns: rule, label, derived, rounds, first-last, operators, ms, share.
    for label in ["placed@56", "placed@57", "eliminated@46"] {
        let cols = row(label);
        assert!(cols[2].parse::<i64>().unwrap() > 0, "{label}: {}", r.err);
        assert!(cols[5].parse::<usize>().unwrap() > 0, "{label}: {}", r.err);
    }
    let first = row("eliminated@46")[4]
        .split('-')
        .next()
        .unwrap()
        .to_string();
    assert_eq!(first, "1", "{}", r.err);
    assert!(
        r.err.lines().any(|l| l.starts_with("all operators: ")),
        "{}",
        r.err
    );
}

/// `bench edit --save-script` writes every command the session ran, and
/// `--script` runs them again: the same commands, so the same edits timed; the
/// replay's own saved script is the same file. A script that cannot be read is an
/// input error.
#[test]
fn bench_edit_replays_a_saved_script() {
    let dir = TempDir::new("script");
    let path = |name: &str| dir.0.join(name).to_str().unwrap().to_string();
    let (first, again) = (path("first.txt"), path("again.txt"));
    let bench = |extra: &[&str]| {
        let mut args = vec!["bench", "edit", "--rules", "datalog/singles.dl"];
        args.extend(["--edits", "15", "--scratch-every", "0"]);
        args.extend(extra);
        run(&args)
    };
    let r = bench(&["--seed", "7", "--save-script", &first]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("15 random edits"), "{}", r.out);
    let script = std::fs::read_to_string(&first).unwrap();
    assert!(script.lines().count() >= 15, "{script}");
    let r = bench(&["--seed", "7", "--script", &first, "--save-script", &again]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains(&format!("15 edits of {first}")), "{}", r.out);
    assert!(r.out.contains("over 15 edits"), "{}", r.out);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), script);
    let r = bench(&["--script", &path("missing.txt")]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert!(
        r.err.contains("cannot read") && r.err.contains("missing.txt"),
        "{}",
        r.err
    );
}

/// `explain`, `dump` and `validate` on an input of several puzzles say they used
/// the first.
#[test]
fn single_puzzle_commands_say_they_used_the_first() {
    let dir = TempDir::new("several");
    let file = dir.file("two.txt", &format!("# two\n{SIMPLE}\n{HARD1}\n"));
    for cmd in ["explain", "dump", "validate"] {
        let r = run(&[cmd, &file]);
        assert_eq!(r.code, 0, "{cmd}: {}", r.err);
        assert_eq!(
            r.err,
            format!("note: '{file}' holds 2 puzzles; `sudolog {cmd}` used the first ({file}:2)\n"),
            "{cmd}"
        );
    }
    // One puzzle: no note.
    let r = run(&["validate", SIMPLE]);
    assert_eq!(
        (r.code, r.out.as_str(), r.err.as_str()),
        (0, "Validation complete.\n", "")
    );
}

/// Validation on load: duplicate givens are reported with Drools' lines before
/// anything else, and the rules do not run on them.
#[test]
fn duplicate_givens_are_reported_first() {
    let r = run(&["explain", "broken"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(
        r.out,
        format!("{BROKEN_LINES}Sorry - can't solve this grid.\n")
    );
    let r = run_in(&["edit", "broken"], "givens\nquit\n");
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.starts_with(BROKEN_LINES), "{}", r.out);
    let r = run(&["solve", "broken"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.ends_with(" invalid\n"), "{}", r.out);
    let located: String = BROKEN_LINES
        .lines()
        .take(4)
        .map(|l| format!("broken:1: {l}\n"))
        .collect();
    assert!(r.err.starts_with(&located), "{}", r.err);
    // A valid puzzle prints no validation lines.
    let r = run(&["explain", "simple"]);
    assert!(!r.out.contains("Validation"), "{}", r.out);
}

/// A `--rules` program that lacks what a command reads is an error naming the
/// relation and its columns.
#[test]
fn rules_lacking_what_a_command_reads_are_errors() {
    let dir = TempDir::new("rules");
    // The singles program without its status relations.
    let singles = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("datalog/singles.dl"),
    )
    .unwrap();
    let no_status = dir.file(
        "no_status.dl",
        &singles.replace("#include \"status.dl\"", "").replace(
            "#include \"grid.dl\"",
            &format!(
                "#include \"{}/datalog/grid.dl\"",
                env!("CARGO_MANIFEST_DIR")
            ),
        ),
    );
    let narrow = dir.file(
        "narrow.dl",
        &format!(
            "#include \"{}/datalog/grid.dl\"\n.decl placed(p: number, c: number)\nplaced(p, c) :- given(p, c, _).\n",
            env!("CARGO_MANIFEST_DIR")
        ),
    );
    for (args, says) in [
        (
            vec!["dump", "--rules", "datalog/validate.dl", "simple"],
            "'placed' (3 columns)",
        ),
        (
            vec!["solve", "--rules", "datalog/validate.dl", "simple"],
            "'placed' (3 columns)",
        ),
        (
            vec!["solve", "--rules", &no_status, "simple"],
            "'solved' (1 column)",
        ),
        (
            vec!["explain", "--rules", &no_status, "simple"],
            "'solved' (1 column)",
        ),
        (vec!["edit", "--rules", &no_status], "'solved' (1 column)"),
        (
            vec!["validate", "--rules", "datalog/sudoku.dl", "simple"],
            "'dup_row' (4 columns)",
        ),
        (
            vec!["dump", "--rules", &narrow, "simple"],
            "'placed' has 2 columns",
        ),
    ] {
        let r = run(&args);
        assert_eq!(r.code, 1, "{args:?}: {}", r.err);
        assert!(r.out.is_empty(), "{args:?}: {}", r.out);
        assert!(r.err.contains(says), "{args:?}: {}", r.err);
    }
}

/// `bench tc` graph sizes the generator cannot make are usage errors, at once.
#[test]
fn bench_tc_checks_the_graph_size() {
    usage_error(&["bench", "tc", "--nodes", "0"], "'0'");
    usage_error(
        &["bench", "tc", "--nodes", "1", "--edges", "5"],
        "--edges 5",
    );
    usage_error(
        &["bench", "tc", "--nodes", "2", "--edges", "4"],
        "--edges 4",
    );
    let r = run_for(
        &[
            "bench", "tc", "--nodes", "2", "--edges", "3", "--repeat", "2",
        ],
        "",
        Duration::from_secs(60),
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.out.starts_with("transitive closure: 2 nodes, 3 edges"),
        "{}",
        r.out
    );
    // Two nodes with three of the four possible edges: every pair is a path.
    assert!(r.out.contains("for 4 paths"), "{}", r.out);
}

/// Progress is for terminals: through pipes, stderr holds the summary line alone.
#[test]
fn no_progress_output_without_a_terminal() {
    let r = run(&["solve", "simple", "hard1"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.err.lines().count(), 1, "{:?}", r.err);
    assert!(r.err.starts_with("2 puzzles: 2 solved in "), "{:?}", r.err);
    assert!(!r.err.contains('\r'), "{:?}", r.err);
}

/// Several processes: process 0 prints each result once, complete; process 1
/// prints nothing (no `stalled` lines, no summary). The search, which only process
/// 0 could follow, is refused across processes rather than left to hang.
#[test]
fn across_processes_results_are_printed_once() {
    let dir = TempDir::new("processes");
    let (a, b) = crate::common::free_ports();
    let hosts = dir.file("hosts.txt", &format!("127.0.0.1:{a}\n127.0.0.1:{b}\n"));
    let args = |i: &'static str| -> Vec<String> {
        let mut a: Vec<String> = ["solve", "--no-search", "-w", "1", "-n", "2", "-p", i]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.extend([
            "--hostfile".into(),
            hosts.clone(),
            "simple".into(),
            "hard2".into(),
        ]);
        a
    };
    let a1 = args("1");
    let p1 = std::thread::spawn(move || {
        let a: Vec<&str> = a1.iter().map(|s| s.as_str()).collect();
        run_for(&a, "", Duration::from_secs(300))
    });
    let a0 = args("0");
    let a: Vec<&str> = a0.iter().map(|s| s.as_str()).collect();
    let r0 = run_for(&a, "", Duration::from_secs(300));
    let r1 = p1.join().unwrap();
    assert_eq!(r0.code, 0, "{}", r0.err);
    assert_eq!(r1.code, 0, "{}", r1.err);
    let lines: Vec<&str> = r0.out.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r0.out);
    assert!(lines.iter().all(|l| l.ends_with(" solved")), "{}", r0.out);
    assert!(r0.err.contains("2 puzzles: 2 solved"), "{}", r0.err);
    assert!(r1.out.is_empty(), "{}", r1.out);
    assert!(!r1.err.contains("puzzles:"), "{}", r1.err);
    usage_error(
        &["solve", "-n", "2", "-p", "1", "simple"],
        "cannot run across processes",
    );
}

/// `run --profile`: one line per rule on stderr with the rows its body derived and the
/// rounds it fired in. On the path 1 -> 2 -> 3, `path(x, y) :- edge(x, y)` derives the
/// two edges at round 0 (outside the loop's growth) and `path(x, z) :- path(x, y),
/// edge(y, z)` derives path(1, 3) in round 1 only.
#[test]
fn run_profile_reports_each_rule() {
    let dir = TempDir::new("profile");
    dir.file("edge.facts", "1\t2\n2\t3\n");
    let facts = dir.0.to_str().unwrap().to_string();
    let r = run(&["run", "benches/tc.dl", "-F", &facts, "-D", "-", "--profile"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("1\t3\n"), "{}", r.out);
    let row = |label: &str| profile_row(&r.err, label);
    // Columns: rule, label, derived, rounds, first-last, operators, ms, share.
    let base = row("path@6");
    assert_eq!((&base[2][..], &base[3][..]), ("2", "1"), "{}", r.err);
    let step = row("path@7");
    assert_eq!(
        (&step[2][..], &step[3][..], &step[4][..]),
        ("1", "1", "1-1"),
        "{}",
        r.err
    );
    assert!(step[5].parse::<usize>().unwrap() > 0, "{}", r.err);
}
