//! Sudoku X and jigsaw through the command line: the shipped variant puzzles are
//! solved to the solution an independent brute-force oracle finds over the variant's
//! groups (written here, from the puzzle text, without the library's geometry), the
//! explain log agrees with it and uses the variant's groups, duplicate givens in a
//! diagonal or region are reported, and bad variant files get located errors.

use crate::sudoku_common::*;

/// The oracle's groups for a 9x9 grid: rows, columns, then boxes, or a jigsaw's
/// regions (`regions`: one letter per cell), then for Sudoku X both diagonals.
fn groups9(x: bool, regions: Option<&str>) -> Vec<Vec<usize>> {
    let mut gs: Vec<Vec<usize>> = Vec::new();
    for i in 0..9 {
        gs.push((0..9).map(|k| i * 9 + k).collect());
        gs.push((0..9).map(|k| k * 9 + i).collect());
    }
    match regions {
        Some(letters) => {
            let letters: Vec<char> = letters.chars().collect();
            let mut seen: Vec<char> = Vec::new();
            for &l in &letters {
                if !seen.contains(&l) {
                    seen.push(l);
                    gs.push((0..81).filter(|&c| letters[c] == l).collect());
                }
            }
        }
        None => {
            for b in 0..9 {
                let (r0, c0) = ((b / 3) * 3, (b % 3) * 3);
                gs.push((0..9).map(|k| (r0 + k / 3) * 9 + c0 + k % 3).collect());
            }
        }
    }
    if x {
        gs.push((0..9).map(|k| k * 10).collect());
        gs.push((0..9).map(|k| k * 9 + 8 - k).collect());
    }
    gs
}

/// Counts the solutions (up to `limit`) of `values` (0 empty) where every group holds
/// each value once, by backtracking on the cell with the fewest options. Returns the
/// count and the first solution.
fn count_solutions(values: &[u8], groups: &[Vec<usize>], limit: usize) -> (usize, Option<Vec<u8>>) {
    let mut of_cell: Vec<Vec<usize>> = vec![Vec::new(); values.len()];
    for (g, cells) in groups.iter().enumerate() {
        cells.iter().for_each(|&c| of_cell[c].push(g));
    }
    let mut used = vec![0u32; groups.len()];
    for (c, &v) in values.iter().enumerate() {
        if v != 0 {
            for &g in &of_cell[c] {
                if used[g] & (1 << v) != 0 {
                    return (0, None);
                }
                used[g] |= 1 << v;
            }
        }
    }
    struct Search<'a> {
        of_cell: &'a [Vec<usize>],
        used: Vec<u32>,
        grid: Vec<u8>,
        count: usize,
        first: Option<Vec<u8>>,
        limit: usize,
    }
    fn go(s: &mut Search) {
        if s.count >= s.limit {
            return;
        }
        let mut best: Option<(usize, u32)> = None;
        for c in 0..s.grid.len() {
            if s.grid[c] == 0 {
                let taken = s.of_cell[c].iter().fold(0, |m, &g| m | s.used[g]);
                let free = !taken & 0b11_1111_1110;
                if best.is_none_or(|(_, f)| free.count_ones() < f.count_ones()) {
                    best = Some((c, free));
                }
            }
        }
        let Some((c, free)) = best else {
            s.count += 1;
            s.first.get_or_insert_with(|| s.grid.clone());
            return;
        };
        for v in 1..=9u8 {
            if free & (1 << v) != 0 {
                s.grid[c] = v;
                s.of_cell[c].iter().for_each(|&g| s.used[g] |= 1 << v);
                go(s);
                s.of_cell[c].iter().for_each(|&g| s.used[g] &= !(1 << v));
                s.grid[c] = 0;
            }
        }
    }
    let mut s = Search {
        of_cell: &of_cell,
        used,
        grid: values.to_vec(),
        count: 0,
        first: None,
        limit,
    };
    go(&mut s);
    (s.count, s.first)
}

/// A shipped variant file: its marker, the puzzle line and the region letters (jigsaw),
/// read here by hand (one marker line, one 81-character line, 9 rows of letters).
struct Sample {
    path: &'static str,
    x: bool,
    puzzle: String,
    regions: Option<String>,
}

fn sample(path: &'static str) -> Sample {
    let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let x = lines[0].eq_ignore_ascii_case("x");
    assert!(
        x || lines[0].eq_ignore_ascii_case("jigsaw"),
        "{path}: a marker first"
    );
    let regions = (!x).then(|| lines[2..11].concat());
    Sample {
        path,
        x,
        puzzle: lines[1].to_string(),
        regions,
    }
}

const X_FILE: &str = "inputs/x_diagonals.txt";
const JIGSAW_FILE: &str = "inputs/jigsaw_regions.txt";

impl Sample {
    fn groups(&self) -> Vec<Vec<usize>> {
        groups9(self.x, self.regions.as_deref())
    }

    /// The oracle's unique solution.
    fn solution(&self) -> Vec<u8> {
        let (n, sol) = count_solutions(&parse81(&self.puzzle), &self.groups(), 2);
        assert_eq!(n, 1, "{} must have exactly one solution", self.path);
        sol.unwrap()
    }
}

#[test]
fn variants_solve_to_the_oracles_unique_solution() {
    let (code, out, err) = run(&["solve", X_FILE, JIGSAW_FILE], None);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    for (file, line) in [X_FILE, JIGSAW_FILE].into_iter().zip(lines) {
        let s = sample(file);
        assert_eq!(line, format!("{} solved", line81(&s.solution())), "{file}");
    }
}

#[test]
fn the_diagonals_make_the_x_puzzle_unique() {
    let s = sample(X_FILE);
    let values = parse81(&s.puzzle);
    // Classic reading: many solutions (the oracle stops at 100).
    let (classic, _) = count_solutions(&values, &groups9(false, None), 100);
    assert_eq!(classic, 100);
    assert_eq!(count_solutions(&values, &s.groups(), 100).0, 1);
    // And sudolog says so for both readings (the classic one with the light rules:
    // finding a second solution is search work).
    let (code, out, err) = run(&["solve", "--fast", &s.puzzle], None);
    assert_eq!(code, 0, "{err}");
    assert!(out.trim_end().ends_with(" multiple"), "{out}");
    let (code, out, err) = run(&["solve", "-"], Some(&format!("x\n{}\n", s.puzzle)));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, format!("{} solved\n", line81(&s.solution())));
}

/// The cells an explain line names, as cell numbers.
fn named_cells(line: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find('[') {
        let Some(j) = rest[i..].find(']') else { break };
        let inner = &rest[i + 1..i + j];
        if let Some((r, c)) = inner.split_once(',') {
            if let (Ok(r), Ok(c)) = (r.trim().parse::<usize>(), c.trim().parse::<usize>()) {
                out.push(r * 9 + c);
            }
        }
        rest = &rest[i + j + 1..];
    }
    out
}

/// Checks every deduction of `explain` before its first guess against the solution.
/// Returns those lines, and the ones among them whose cells all lie in one of the
/// variant's own groups (a diagonal, a jigsaw region) and in no classic row, column or
/// box together.
fn explain_checked(s: &Sample) -> (Vec<String>, Vec<String>) {
    let solution = s.solution();
    let (code, out, err) = run(&["explain", s.path], None);
    assert_eq!(code, 0, "{err}");
    // The solution ends the output, as rows.
    assert_eq!(last_rows(&out, 9), line81(&solution), "{}", s.path);
    let classic = groups9(false, None);
    let variant: Vec<Vec<usize>> = s
        .groups()
        .into_iter()
        .filter(|g| !classic.contains(g))
        .collect();
    assert!(!variant.is_empty());
    let mut uses = Vec::new();
    let mut checked = 0;
    let root: Vec<String> = out
        .lines()
        .take_while(|l| !l.starts_with("guess "))
        .map(String::from)
        .collect();
    for line in &root {
        let cells = named_cells(line);
        let words: Vec<&str> = line.split_whitespace().collect();
        let value = |w: &str| w.parse::<u8>().unwrap_or_else(|_| panic!("{line}"));
        if line.starts_with("single ") || line.starts_with("hidden single ") {
            let v = value(words[words.len() - 3]);
            assert_eq!(solution[cells[0]], v, "{}: {line}", s.path);
            checked += 1;
        } else if line.starts_with("X-wing with ") {
            // "X-wing with 2 in columns ... remove from [4,8]"
            let v = value(words[2]);
            let target = *cells.last().unwrap();
            assert_ne!(solution[target], v, "{}: {line}", s.path);
            checked += 1;
        } else if let Some(i) = words.iter().position(|&w| w == "remove") {
            let v = value(words[i + 1]);
            let target = named_cells(&words[i + 3..].join(" "))[0];
            assert_ne!(solution[target], v, "{}: {line}", s.path);
            checked += 1;
        }
        let within = |g: &Vec<usize>| cells.iter().all(|c| g.contains(c));
        if cells.len() >= 2 && variant.iter().any(within) && !classic.iter().any(within) {
            uses.push(line.to_string());
        }
    }
    assert!(checked > 0, "{}: no deduction checked in\n{out}", s.path);
    (root, uses)
}

#[test]
fn x_explain_is_sound_and_uses_a_diagonal() {
    let s = sample(X_FILE);
    let (root, uses) = explain_checked(&s);
    // A line that names a diagonal as its group ("diagonal elimination due to ...",
    // "box elimination due to [4,4] in its diagonal: ..."), or one whose cells share
    // only a diagonal (a naked triple along it).
    assert!(
        root.iter().any(|l| l.contains("diagonal")) || !uses.is_empty(),
        "no deduction uses a diagonal: {root:?}"
    );
}

#[test]
fn jigsaw_explain_is_sound_and_uses_a_region() {
    let s = sample(JIGSAW_FILE);
    let (root, uses) = explain_checked(&s);
    assert!(
        !uses.is_empty(),
        "no deduction on a jigsaw region alone: {root:?}"
    );
}

#[test]
fn dump_shows_the_variant() {
    let (code, out, err) = run(&["dump", X_FILE, "--rounds", "0"], None);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.ends_with("\nSudoku X: diagonal 0 runs [0,0] to [8,8], diagonal 1 [0,8] to [8,0]\n")
    );
    let s = sample(JIGSAW_FILE);
    let (code, out, err) = run(&["dump", JIGSAW_FILE], None);
    assert_eq!(code, 0, "{err}");
    let tail: Vec<&str> = out.lines().rev().take(10).collect();
    assert_eq!(tail[9], "Regions:");
    // The regions as letters A.. in the order of their first cells: the file's own.
    let rows: String = tail[..9].iter().rev().map(|l| &l[7..]).collect();
    let mut map: Vec<(char, char)> = Vec::new();
    for (a, b) in s.regions.unwrap().chars().zip(rows.chars()) {
        match map.iter().find(|(x, _)| *x == a) {
            Some(&(_, y)) => assert_eq!(y, b),
            None => map.push((a, b)),
        }
    }
    assert_eq!(map.len(), 9);
}

#[test]
fn validate_reports_duplicates_in_diagonals_and_regions() {
    // 5 at [0,0] and [4,4]: the main diagonal only.
    let mut values = [0u8; 81];
    values[0] = 5;
    values[40] = 5;
    let grid = line81(&values);
    let (code, out, _) = run(&["validate", "-"], Some(&format!("X\n{grid}\n")));
    assert_eq!(
        (code, out.as_str()),
        (
            1,
            "cell [0,0]: 5 has a duplicate in diagonal 0\ncell [4,4]: 5 has a duplicate in diagonal 0\nValidation complete.\n"
        )
    );
    let (code, out, _) = run(&["validate", &grid], None);
    assert_eq!((code, out.as_str()), (0, "Validation complete.\n"));
    // The jigsaw's region of [0,2] holds [1,3] too (another row, column and box).
    let s = sample(JIGSAW_FILE);
    let regions = s.regions.clone().unwrap();
    let (a, b) = (2, 12);
    assert_eq!(regions.as_bytes()[a], regions.as_bytes()[b]);
    let mut values = [0u8; 81];
    values[a] = 7;
    values[b] = 7;
    let text = format!("jigsaw\n{}\n{regions}\n", line81(&values));
    let (code, out, _) = run(&["validate", "-"], Some(&text));
    assert_eq!(
        (code, out.as_str()),
        (
            1,
            "cell [0,2]: 7 has duplicate in its square of nine.\ncell [1,3]: 7 has duplicate in its square of nine.\nValidation complete.\n"
        )
    );
    // solve calls it invalid; explain reports it and stops.
    let (code, out, err) = run(&["solve", "-"], Some(&text));
    assert_eq!(code, 0, "{err}");
    assert!(out.trim_end().ends_with(" invalid"), "{out}");
    let (_, out, _) = run(&["explain", "-"], Some(&format!("X\n{grid}\n")));
    assert!(
        out.starts_with("cell [0,0]: 5 has a duplicate in diagonal 0\n"),
        "{out}"
    );
}

#[test]
fn bad_variant_files_get_located_errors() {
    let s = sample(JIGSAW_FILE);
    let regions = s.regions.clone().unwrap();
    let rows: Vec<&str> = (0..9).map(|r| &regions[r * 9..r * 9 + 9]).collect();
    let p = &s.puzzle;
    let cases = [
        // The region grid of the wrong size: a row of 8 letters.
        (
            format!("jigsaw\n{p}\n{}\n{}\n", rows[..4].join("\n"), &rows[4][..8]),
            "<stdin>:7:1: error: region grid row has 8 characters; a 9x9 jigsaw's region grid has 9 rows of 9 letters, or one line of 81 (the jigsaw puzzle at lines 1-2, after its region rows at lines 3-6)",
        ),
        // A region of 10 cells (the last cell's letter changed to the first's).
        (
            format!("jigsaw\n{p}\n{}{}\n", &regions[..80], &regions[..1]),
            "<stdin>:3:1: error: region 'A' has 10 cells; a region of a 9x9 jigsaw has 9 (region grid of line 3), for the jigsaw puzzle at lines 1-2",
        ),
        // No region grid at all.
        (
            format!("jigsaw\n{p}\n"),
            "<stdin>:1:1: error: the jigsaw puzzle at lines 1-2 has no region grid (9 lines of 9 letters, or one line of 81), then the end of the input",
        ),
    ];
    for (text, want) in &cases {
        assert!(regions.starts_with('A'));
        for command in ["solve", "explain", "validate", "dump"] {
            let (code, _, err) = run(&[command, "-"], Some(text));
            assert_eq!(code, 1, "{command}: {text}");
            assert!(err.lines().any(|l| l == *want), "{command}: {err}");
        }
    }
}
