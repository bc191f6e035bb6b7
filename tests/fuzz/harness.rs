//! The fuzz harness: one function per front door of sudolog, shared by the cargo-fuzz
//! targets in `fuzz_targets/` and by the bounded test `tests/suite/fuzz.rs` (both
//! include this file with `#[path]`).
//!
//! In: arbitrary bytes. Out: nothing; a panic (or a hang, or a stack overflow) is the
//! finding. Each function also asserts what must hold of any input:
//! - [`program`]: program text is parsed and checked (includes are refused, nothing is
//!   read from disk); a program that checks is planned, with and without explain, and
//!   one that is small is run on tiny inputs for a few rounds, then edited
//!   (a retraction) and committed again. Errors render with a location.
//! - [`puzzle`]: puzzle text through [`PuzzleReader`]: every non-blank, non-comment
//!   line is accounted for (part of a puzzle or named by an error), grids are well
//!   formed, and reading in small chunks gives the same results.
//! - [`edit`]: lines of the input are commands of one editing session (kept for the
//!   whole process, over the light rules); loading files is left out.

#![allow(dead_code)]

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::io::BufReader;
use std::sync::Arc;

use sudolog::check::ir::{Program, RelKind, Type};
use sudolog::diag::SourceMap;
use sudolog::session::{Config, Observe, Session};
use sudolog::sudoku::edit::Editor;
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::grid::{Grid, Layout, Shape};
use sudolog::sudoku::puzzle::{parse_text, InputError, Puzzle, PuzzleReader};
use sudolog::syntax::Loader;

/// Refuses every `#include`: the fuzzer must not wander the file system.
struct NoIncludes;

impl Loader for NoIncludes {
    fn load(&self, path: &str, _including: &str) -> Result<(String, String), String> {
        Err(format!("includes are off while fuzzing ({path})"))
    }
}

/// Largest program (in bytes) that is run, not only checked and planned.
const RUN_MAX_BYTES: usize = 2048;
/// Most rules and relations of a program that is run.
const RUN_MAX_RULES: usize = 24;
/// Rounds a block may take in a fuzzed run (arithmetic in recursion never ends).
const RUN_MAX_ROUNDS: u32 = 6;

/// Parses and checks `data` as program text; plans it; runs it when it is small.
pub fn program(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::new();
    let file = sources.add("fuzz.dl", text);
    let ast = match sudolog::syntax::parse(&mut sources, file, &NoIncludes) {
        Ok(ast) => ast,
        Err(errs) => {
            assert!(!errs.is_empty(), "a failed parse reports an error");
            for d in errs {
                assert!(d.render(&sources).starts_with("fuzz.dl:"));
            }
            return;
        }
    };
    let program = match sudolog::check::check(sources, &ast) {
        Ok(p) => p,
        Err(e) => {
            let shown = e.to_string();
            assert!(shown.starts_with("fuzz.dl:"), "{shown}");
            return;
        }
    };
    let mut planned = false;
    for explain in [false, true] {
        match sudolog::plan::plan(&program, explain) {
            Ok(_) => planned = true,
            Err(errs) => {
                for d in errs {
                    assert!(d.render(&program.sources).starts_with("fuzz.dl:"));
                }
            }
        }
    }
    if planned && text.len() <= RUN_MAX_BYTES && small(&program) {
        run(Arc::new(program));
    }
}

fn small(p: &Program) -> bool {
    p.rules.len() <= RUN_MAX_RULES && p.relations.len() <= RUN_MAX_RULES
}

/// A session over `p` with two or three facts in every relation that takes them,
/// committed, then one fact retracted and committed again.
fn run(p: Arc<Program>) {
    let config = Config {
        workers: 1,
        explain: true,
        observe: Observe::All,
        max_rounds: Some(RUN_MAX_ROUNDS),
        ..Config::default()
    };
    let Ok(mut s) = Session::new(p.clone(), config) else {
        return;
    };
    let syms = [s.symbols().intern("a"), s.symbols().intern("b")];
    let mut inserted = Vec::new();
    for (rel, r) in p.relations.iter().enumerate() {
        if r.kind == RelKind::View {
            continue;
        }
        for k in 0..3i32 {
            let row: Vec<_> = r
                .columns
                .iter()
                .enumerate()
                .map(|(i, (_, ty))| match ty {
                    Type::Number => (k + i as i32) % 3,
                    Type::Symbol => syms[(k as usize + i) % 2],
                })
                .collect();
            if s.insert(rel, &row).is_ok() {
                inserted.push((rel, row));
            }
        }
    }
    if s.commit().is_err() {
        return;
    }
    let _ = s.events();
    if let Some((rel, row)) = inserted.first() {
        let _ = s.retract(*rel, row);
        let _ = s.commit();
        for rel in 0..p.relations.len() {
            let _ = s.contents(rel);
        }
    }
}

/// The content lines of puzzle text as the reader sees them: `(number, chars)` of each
/// line that is neither blank nor a comment.
fn content_lines(data: &[u8]) -> Vec<(usize, usize)> {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let mut out = Vec::new();
    let mut parts: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if parts.last().is_some_and(|l| l.is_empty()) {
        parts.pop();
    }
    for (i, raw) in parts.into_iter().enumerate() {
        let text = String::from_utf8_lossy(raw);
        let t = text.trim_end();
        if t.trim().is_empty() || t.trim_start().starts_with('#') {
            continue;
        }
        out.push((i + 1, t.chars().count()));
    }
    out
}

/// Line numbers named in an error message: `line N` and `lines S-E`.
fn named_lines(message: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let words: Vec<&str> = message
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .collect();
    for w in words.windows(2) {
        if w[0] == "line" || w[0] == "lines" {
            let mut nums = w[1].split('-').map(|n| n.parse::<usize>());
            if let Some(Ok(s)) = nums.next() {
                let e = match nums.next() {
                    Some(Ok(e)) => e,
                    _ => s,
                };
                out.push((s, e));
            }
        }
    }
    out
}

/// Reads `data` as puzzle text and checks what must hold of the results.
pub fn puzzle(data: &[u8]) {
    let results: Vec<Result<Puzzle, InputError>> = PuzzleReader::new("f", data).collect();
    let lines = content_lines(data);
    let mut covered = BTreeSet::new();
    for r in &results {
        match r {
            Ok(p) => {
                let g = &p.grid;
                assert_eq!(g.values.len(), g.shape.cells());
                assert!(g.values.iter().all(|&v| usize::from(v) <= g.shape.size()));
                assert!(p.line >= 1);
                covered.insert(p.line);
                // A block (or a Drools file) covers up to 9 content lines from its start.
                let from = lines.iter().position(|&(n, _)| n >= p.line);
                if g.shape.layout() != Layout::Classic {
                    // A variant: its marker line, its grid (a line or a 9-line block),
                    // and a jigsaw's region grid (a line or `size` rows).
                    let i = from.unwrap_or(lines.len());
                    let grid = match lines.get(i + 1) {
                        Some(&(_, chars)) if chars <= 9 => 9,
                        _ => 1,
                    };
                    let regions = match (g.shape.layout(), lines.get(i + 1 + grid)) {
                        (Layout::Jigsaw(_), Some(&(_, c))) if c == g.shape.cells() => 1,
                        (Layout::Jigsaw(_), _) => g.shape.size(),
                        _ => 0,
                    };
                    for &(n, _) in lines.iter().skip(i).take(1 + grid + regions) {
                        covered.insert(n);
                    }
                } else if g.shape == Shape::NINE
                    && from.is_some_and(|i| lines[i].0 != p.line || lines[i].1 <= 9)
                {
                    for &(n, _) in lines.iter().skip(from.unwrap()).take(9) {
                        covered.insert(n);
                    }
                }
            }
            Err(e) => {
                assert!(e.line >= 1 && e.col >= 1, "{e}");
                assert_eq!(e.source, "f");
                covered.insert(e.line);
                for (s, end) in named_lines(&e.message) {
                    covered.extend(s..=end);
                }
            }
        }
    }
    for (n, _) in &lines {
        assert!(
            covered.contains(n),
            "line {n} is neither a puzzle nor named by an error: {results:?}"
        );
    }
    // Reading in small chunks changes nothing.
    let cap = 1 + data.first().copied().unwrap_or(0) as usize % 7;
    let chunked: Vec<_> = PuzzleReader::new("f", BufReader::with_capacity(cap, data)).collect();
    assert_eq!(chunked, results);
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(parse_text("f", text), results);
        let _ = Grid::parse_line(text);
        for shape in Shape::ALL {
            let _ = sudolog::sudoku::grid::parse_cell(text, shape);
        }
    }
}

thread_local! {
    /// One editing session for the whole process: opening one costs far more than an
    /// edit.
    static EDITOR: RefCell<Option<Editor>> = const { RefCell::new(None) };
}

/// Commands per input, at most.
const EDIT_MAX_COMMANDS: usize = 12;

/// Whether an edit command would read a file (or standard input): `load` of anything
/// that is not a sample name or puzzle text.
fn reads_files(line: &str) -> bool {
    let mut words = line.split_whitespace();
    let Some(word) = words.next() else {
        return false;
    };
    if !word.eq_ignore_ascii_case("load") {
        return false;
    }
    let arg = line.trim()[word.len()..].trim();
    let is_sample = sudolog::sudoku::samples::sample(arg).is_some();
    let is_text = Shape::from_len(arg.chars().count()).is_some() && !arg.contains('/');
    !(is_sample || is_text)
}

/// Runs the lines of `data` as commands of the process's editing session.
pub fn edit(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    EDITOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        let ed = slot.get_or_insert_with(|| {
            let program = sudolog::sudoku::rules::builtin(sudolog::sudoku::rules::Builtin::Fast)
                .expect("the light rules check");
            Editor::with_program(
                program,
                Default::default(),
                Grid::empty(Shape::NINE),
                Notation::Drools,
            )
            .expect("an editing session opens")
        });
        for line in text.lines().take(EDIT_MAX_COMMANDS) {
            if reads_files(line) {
                continue;
            }
            match ed.command(line) {
                Ok(out) => {
                    let _ = out;
                }
                Err(e) => assert!(!e.is_empty(), "an error says something"),
            }
        }
        // The next input starts from a known grid again.
        let _ = ed.command("load hard1");
    });
}
