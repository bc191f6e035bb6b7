//! Test oracles for the Sudoku tests: an independent brute-force solver (never used
//! by the product) and helpers to run the binary.
#![allow(dead_code)]

use std::process::{Command, Stdio};

/// Counts solutions (up to `limit`) of an n*n grid given as values (0 empty) by plain
/// backtracking over bitmasks; returns the first solution found.
pub fn solve_count(values: &[u8], limit: usize) -> (usize, Option<Vec<u8>>) {
    let size = (values.len() as f64).sqrt() as usize;
    let n = (size as f64).sqrt() as usize;
    let mut grid = values.to_vec();
    let (mut rows, mut cols, mut boxes) = (vec![0u32; size], vec![0u32; size], vec![0u32; size]);
    for (c, &v) in values.iter().enumerate() {
        if v != 0 {
            let bit = 1u32 << v;
            let (r, k, b) = (c / size, c % size, (c / size / n) * n + (c % size) / n);
            if rows[r] & bit != 0 || cols[k] & bit != 0 || boxes[b] & bit != 0 {
                return (0, None);
            }
            rows[r] |= bit;
            cols[k] |= bit;
            boxes[b] |= bit;
        }
    }
    let mut count = 0;
    let mut first = None;
    #[allow(clippy::too_many_arguments)]
    fn go(
        grid: &mut Vec<u8>,
        size: usize,
        n: usize,
        rows: &mut [u32],
        cols: &mut [u32],
        boxes: &mut [u32],
        count: &mut usize,
        first: &mut Option<Vec<u8>>,
        limit: usize,
    ) {
        if *count >= limit {
            return;
        }
        // The empty cell with the fewest options.
        let mut best: Option<(usize, u32)> = None;
        for (c, &v) in grid.iter().enumerate() {
            if v == 0 {
                let (r, k, b) = (c / size, c % size, (c / size / n) * n + (c % size) / n);
                let free = !(rows[r] | cols[k] | boxes[b]) & (((1u32 << (size + 1)) - 1) & !1);
                if best.is_none_or(|(_, f)| free.count_ones() < f.count_ones()) {
                    best = Some((c, free));
                }
            }
        }
        let Some((c, free)) = best else {
            *count += 1;
            if first.is_none() {
                *first = Some(grid.clone());
            }
            return;
        };
        let (r, k, b) = (c / size, c % size, (c / size / n) * n + (c % size) / n);
        for v in 1..=size as u8 {
            let bit = 1u32 << v;
            if free & bit != 0 {
                grid[c] = v;
                rows[r] |= bit;
                cols[k] |= bit;
                boxes[b] |= bit;
                go(grid, size, n, rows, cols, boxes, count, first, limit);
                rows[r] &= !bit;
                cols[k] &= !bit;
                boxes[b] &= !bit;
                grid[c] = 0;
            }
        }
    }
    go(
        &mut grid, size, n, &mut rows, &mut cols, &mut boxes, &mut count, &mut first, limit,
    );
    (count, first)
}

/// Digits of a 9x9 puzzle line ('.' or '0' empty).
pub fn parse81(line: &str) -> Vec<u8> {
    line.chars()
        .map(|c| c.to_digit(10).unwrap_or(0) as u8)
        .collect()
}

pub fn line81(values: &[u8]) -> String {
    values
        .iter()
        .map(|&v| if v == 0 { '.' } else { (b'0' + v) as char })
        .collect()
}

/// Starts the binary in the crate root with `args`, its stdout and stderr piped,
/// `stdin` written and closed.
pub fn spawn(args: &[&str], stdin: &str) -> std::process::Child {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sudolog"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sudolog");
    let mut input = child.stdin.take().unwrap();
    // A command that exits without reading its input closes the pipe: not an error.
    let _ = input.write_all(stdin.as_bytes());
    child
}

/// Runs the binary with arguments and optional stdin; returns (status, stdout, stderr).
pub fn run(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let out = spawn(args, stdin.unwrap_or("")).wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Puzzle lines of a test data file (first `n`).
pub fn data(file: &str, n: usize) -> Vec<String> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| l.len() == 81)
        .take(n)
        .map(|s| s.to_string())
        .collect()
}

/// The last `n` lines of `out`, joined: a grid printed as rows, read back as one line.
pub fn last_rows(out: &str, n: usize) -> String {
    let lines: Vec<&str> = out.lines().collect();
    lines[lines.len().saturating_sub(n)..].concat()
}

/// A numeric field of the first JSON line of `out` (`solve --format json`).
pub fn json_number(out: &str, field: &str) -> u64 {
    let first = out.lines().next().expect("a JSON line");
    let record: serde_json::Value = serde_json::from_str(first).expect("the line is JSON");
    record[field]
        .as_u64()
        .unwrap_or_else(|| panic!("no number '{field}' in {first}"))
}

/// A board over `program` with each puzzle (id = its index) added and committed,
/// and the puzzles' solutions from the brute-force oracle; every puzzle must have a
/// unique solution.
pub fn board_with_solutions(
    puzzles: &[String],
    program: std::sync::Arc<sudolog::check::ir::Program>,
    opts: &sudolog::sudoku::board::Options,
) -> (sudolog::sudoku::board::Board, Vec<Vec<u8>>) {
    use sudolog::sudoku::grid::{Grid, Shape};
    let mut board = sudolog::sudoku::board::Board::new(program, opts).unwrap();
    let mut solutions = Vec::new();
    for (i, line) in puzzles.iter().enumerate() {
        let values = parse81(line);
        let (n, sol) = solve_count(&values, 2);
        assert_eq!(n, 1, "puzzle {line} must have a unique solution");
        solutions.push(sol.unwrap());
        let grid = Grid {
            shape: Shape::new(3).unwrap(),
            values,
        };
        board.add(i as i32, &grid).unwrap();
    }
    board.commit().unwrap();
    (board, solutions)
}

/// Asserts that an explain event agrees with the solutions: a placement places the
/// solution's value, an elimination removes another value.
pub fn assert_event_sound(
    board: &sudolog::sudoku::board::Board,
    ev: &sudolog::session::Event,
    solutions: &[Vec<u8>],
    puzzles: &[String],
) {
    let program = board.program();
    let head = &program.relations[program.rules[ev.rule].head].name;
    let (p, c, v) = (ev.head[0] as usize, ev.head[1] as usize, ev.head[2] as u8);
    let line = board.render(ev, Default::default());
    match head.as_str() {
        "placed" => assert_eq!(solutions[p][c], v, "{}: {line}", puzzles[p]),
        "eliminated" => assert_ne!(solutions[p][c], v, "{}: {line}", puzzles[p]),
        other => panic!("unexpected event head {other}"),
    }
}
