//! Sudoku grids: shapes, the digit alphabet, cell names, groups and a solution checker.
//!
//! In: a box side (2..=5), characters of puzzle text, cell names typed by a user.
//! Out: [`Shape`] geometry (rows, columns, boxes, peers), [`Grid`] values, printable
//! digits and cell names, the list of groups that facts are generated from, and
//! [`check_solution`], the oracle that tests of the solver use.
//!
//! # Geometry
//!
//! A [`Shape`] is given by its box side `n`: a grid has `size = n*n` rows, columns and
//! boxes, holds the values `1..=size`, and has `size*size` cells numbered row-major,
//! `c = r*size + col` (all 0-based). Boxes are numbered row-major too: box `b` covers
//! rows `(b / n)*n ..` and columns `(b % n)*n ..`.
//!
//! # Digit alphabet
//!
//! | grid  | values | characters |
//! |-------|--------|------------|
//! | 4x4   | 1..=4  | `1`-`4` |
//! | 9x9   | 1..=9  | `1`-`9` |
//! | 16x16 | 1..=16 | `1`-`9`, then `A`-`G` for 10..=16 |
//! | 25x25 | 1..=25 | `1`-`9`, then `A`-`P` for 10..=25 |
//!
//! Letters are accepted in either case on input and printed upper-case. An empty cell is
//! printed as `.`; on input `.` and `0` mean empty, and in an 81-character line (the
//! common 9x9 exchange format) any character other than `1`-`9` means empty too.
//!
//! # Cell names
//!
//! Two spellings: Drools' `[r,c]` (0-based, row first, as in `single 8 at [0,1]`) from
//! [`cell_drools`], and the 1-based `r1c9` from [`cell_rc`]. [`parse_cell`] reads both.

use std::fmt;
use std::str::FromStr;

/// The geometry of a grid, given by its box side `n` (2, 3, 4 or 5 for the supported
/// 4x4, 9x9, 16x16 and 25x25 grids). The arithmetic works for any `n >= 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    /// The box side: 3 for a classic 9x9 Sudoku.
    pub n: usize,
}

impl Shape {
    /// 4x4 grid (2x2 boxes).
    pub const FOUR: Shape = Shape { n: 2 };
    /// Classic 9x9 grid (3x3 boxes).
    pub const NINE: Shape = Shape { n: 3 };
    /// 16x16 grid (4x4 boxes).
    pub const SIXTEEN: Shape = Shape { n: 4 };
    /// 25x25 grid (5x5 boxes).
    pub const TWENTY_FIVE: Shape = Shape { n: 5 };
    /// All supported shapes, smallest first.
    pub const ALL: [Shape; 4] = [Shape::FOUR, Shape::NINE, Shape::SIXTEEN, Shape::TWENTY_FIVE];

    /// The shape with box side `n`, if supported (2..=5).
    pub fn new(n: usize) -> Option<Shape> {
        (2..=5).contains(&n).then_some(Shape { n })
    }

    /// The shape of a grid with `cells` cells (16, 81, 256 or 625).
    pub fn from_len(cells: usize) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.cells() == cells)
    }

    /// The shape whose rows hold `size` cells (4, 9, 16 or 25).
    pub fn from_size(size: usize) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.size() == size)
    }

    /// Number of values, and of cells in a row, column or box (`n*n`).
    pub fn size(self) -> usize {
        self.n * self.n
    }

    /// Number of cells (`size*size`).
    pub fn cells(self) -> usize {
        self.size() * self.size()
    }

    /// The largest value, `size` (as a `u8`, saturating).
    pub fn max_value(self) -> u8 {
        u8::try_from(self.size()).unwrap_or(u8::MAX)
    }

    /// Row (0-based) of cell `c`.
    pub fn row(self, c: usize) -> usize {
        c / self.size()
    }

    /// Column (0-based) of cell `c`.
    pub fn col(self, c: usize) -> usize {
        c % self.size()
    }

    /// Box (0-based, row-major) of cell `c`.
    pub fn box_of(self, c: usize) -> usize {
        (self.row(c) / self.n) * self.n + self.col(c) / self.n
    }

    /// The cell at row `r`, column `col` (both 0-based).
    pub fn cell(self, r: usize, col: usize) -> usize {
        r * self.size() + col
    }

    /// The cells of row `r`, left to right.
    pub fn row_cells(self, r: usize) -> Vec<usize> {
        (0..self.size()).map(|k| self.cell(r, k)).collect()
    }

    /// The cells of column `col`, top to bottom.
    pub fn col_cells(self, col: usize) -> Vec<usize> {
        (0..self.size()).map(|k| self.cell(k, col)).collect()
    }

    /// The cells of box `b`, row-major.
    pub fn box_cells(self, b: usize) -> Vec<usize> {
        let (r0, c0) = ((b / self.n) * self.n, (b % self.n) * self.n);
        (0..self.size())
            .map(|k| self.cell(r0 + k / self.n, c0 + k % self.n))
            .collect()
    }

    /// The cells of one group.
    pub fn group_cells(self, kind: GroupKind) -> Vec<usize> {
        match kind {
            GroupKind::Row(i) => self.row_cells(i),
            GroupKind::Col(i) => self.col_cells(i),
            GroupKind::Box(i) => self.box_cells(i),
        }
    }

    /// `"9x9"`, `"16x16"`, ...
    pub fn name(self) -> String {
        format!("{0}x{0}", self.size())
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{0}x{0}", self.size())
    }
}

/// The character for value `v`: `1`-`9`, then `A` for 10 up to `Z` for 35; `.` for 0
/// (empty) and `?` for anything larger.
pub fn digit_char(v: u8) -> char {
    match v {
        0 => '.',
        1..=9 => char::from(b'0' + v),
        10..=35 => char::from(b'A' + (v - 10)),
        _ => '?',
    }
}

/// The value of a digit character in a grid of this shape: `Some(1..=size)`, or `None`
/// if `ch` is not a digit of that size (empty markers `.` and `0` included). Letters
/// are case-insensitive.
pub fn parse_digit(ch: char, shape: Shape) -> Option<u8> {
    let v = match ch {
        '1'..='9' => ch as u32 - '0' as u32,
        'A'..='Z' => ch as u32 - 'A' as u32 + 10,
        'a'..='z' => ch as u32 - 'a' as u32 + 10,
        _ => return None,
    };
    let v = u8::try_from(v).ok()?;
    (usize::from(v) <= shape.size()).then_some(v)
}

/// Whether `ch` is an explicit empty-cell marker (`.` or `0`) in every format.
pub fn is_empty_marker(ch: char) -> bool {
    ch == '.' || ch == '0'
}

/// A grid of values, `0` for an empty cell.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Grid {
    /// The grid's geometry.
    pub shape: Shape,
    /// One value per cell, row-major; `0` is empty. Length `shape.cells()`.
    pub values: Vec<u8>,
}

impl Grid {
    /// An empty grid.
    pub fn empty(shape: Shape) -> Grid {
        Grid {
            shape,
            values: vec![0; shape.cells()],
        }
    }

    /// A grid from its values, checking their number and range.
    pub fn from_values(shape: Shape, values: Vec<u8>) -> Result<Grid, String> {
        if values.len() != shape.cells() {
            return Err(format!(
                "a {shape} grid has {} cells, not {}",
                shape.cells(),
                values.len()
            ));
        }
        if let Some((c, v)) = values
            .iter()
            .enumerate()
            .find(|(_, v)| usize::from(**v) > shape.size())
        {
            return Err(format!(
                "value {v} at {} is out of range for a {shape} grid",
                cell_rc(shape, c)
            ));
        }
        Ok(Grid { shape, values })
    }

    /// Reads a one-line grid (16, 81, 256 or 625 characters, trailing whitespace
    /// ignored). On error, returns the 1-based column of the offending character (1 for
    /// a bad length) and a message. Only digits of the size and the empty markers `.`
    /// and `0` are allowed, in every size: 81 characters of text are not an empty grid.
    pub fn parse_line(line: &str) -> Result<Grid, (usize, String)> {
        let line = line.trim_end();
        let len = line.chars().count();
        let shape = Shape::from_len(len).ok_or_else(|| {
            (
                1,
                format!("a one-line puzzle has 16, 81, 256 or 625 characters, not {len}"),
            )
        })?;
        let mut values = Vec::with_capacity(len);
        for (i, ch) in line.chars().enumerate() {
            let v = match parse_digit(ch, shape) {
                Some(v) => v,
                None if is_empty_marker(ch) => 0,
                None => {
                    return Err((
                        i + 1,
                        format!("'{}' is not a digit of a {shape} puzzle", ch.escape_debug()),
                    ))
                }
            };
            values.push(v);
        }
        Ok(Grid { shape, values })
    }

    /// The value of cell `c` (0 if empty or out of range).
    pub fn get(&self, c: usize) -> u8 {
        self.values.get(c).copied().unwrap_or(0)
    }

    /// One character per cell, row-major, `.` for empty.
    pub fn to_line(&self) -> String {
        self.values.iter().map(|&v| digit_char(v)).collect()
    }

    /// `size` lines of `size` characters, each ending in `'\n'` (the Drools "Open..."
    /// layout for 9x9).
    pub fn to_rows(&self) -> String {
        let size = self.shape.size().max(1);
        let mut out = String::with_capacity(self.values.len() + size);
        for row in self.values.chunks(size) {
            out.extend(row.iter().map(|&v| digit_char(v)));
            out.push('\n');
        }
        out
    }

    /// The filled cells as `(cell, value)`, in cell order.
    pub fn givens(&self) -> impl Iterator<Item = (usize, u8)> + '_ {
        self.values
            .iter()
            .enumerate()
            .filter(|(_, &v)| v != 0)
            .map(|(c, &v)| (c, v))
    }

    /// Number of filled cells.
    pub fn given_count(&self) -> usize {
        self.values.iter().filter(|&&v| v != 0).count()
    }

    /// Whether every cell is filled.
    pub fn is_complete(&self) -> bool {
        self.values.len() == self.shape.cells() && self.values.iter().all(|&v| v != 0)
    }
}

impl fmt::Display for Grid {
    /// The one-line form, as [`Grid::to_line`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_line())
    }
}

impl FromStr for Grid {
    type Err = String;
    /// As [`Grid::parse_line`], with the column folded into the message.
    fn from_str(s: &str) -> Result<Grid, String> {
        Grid::parse_line(s).map_err(|(col, msg)| format!("column {col}: {msg}"))
    }
}

/// Drools' name of cell `c`: `[row,col]`, 0-based, row first (`[0,8]`).
pub fn cell_drools(shape: Shape, c: usize) -> String {
    format!("[{},{}]", shape.row(c), shape.col(c))
}

/// The 1-based name of cell `c`: `r1c9`.
pub fn cell_rc(shape: Shape, c: usize) -> String {
    format!("r{}c{}", shape.row(c) + 1, shape.col(c) + 1)
}

/// Reads a cell name: `r3c4` (1-based, case-insensitive) or `[2,3]` (0-based, row
/// first; spaces allowed inside the brackets). Surrounding whitespace is ignored.
///
/// Errors: `cell out of range: r10c1`, `bad cell 'x'; use r3c4 or [2,3]`.
pub fn parse_cell(text: &str, shape: Shape) -> Result<usize, String> {
    let t = text.trim();
    let bad = || format!("bad cell '{}'; use r3c4 or [2,3]", t.escape_debug());
    // Each coordinate: Some(0-based index) if in range, None if out of range.
    let size = shape.size();
    let (r, c) = if let Some(inner) = t.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        let (a, b) = inner.split_once(',').ok_or_else(bad)?;
        (
            coord(a.trim(), 0, size).ok_or_else(bad)?,
            coord(b.trim(), 0, size).ok_or_else(bad)?,
        )
    } else {
        let lower = t.to_ascii_lowercase();
        let rest = lower.strip_prefix('r').ok_or_else(bad)?;
        let (a, b) = rest.split_once('c').ok_or_else(bad)?;
        (
            coord(a, 1, size).ok_or_else(bad)?,
            coord(b, 1, size).ok_or_else(bad)?,
        )
    };
    match (r, c) {
        (Some(r), Some(c)) => Ok(shape.cell(r, c)),
        _ => Err(format!("cell out of range: {t}")),
    }
}

/// A coordinate written in decimal with the given base (0 or 1): `None` if not a
/// number, `Some(None)` if a number outside `base..base+size`, else the 0-based index.
fn coord(s: &str, base: usize, size: usize) -> Option<Option<usize>> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Too many digits to fit in usize: certainly out of range.
    let v: usize = match s.parse() {
        Ok(v) => v,
        Err(_) => return Some(None),
    };
    Some((v >= base && v - base < size).then(|| v - base))
}

/// A row, column or box, with its 0-based index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GroupKind {
    Row(usize),
    Col(usize),
    Box(usize),
}

impl fmt::Display for GroupKind {
    /// Drools' wording: `row 0`, `col 0`, `square 0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupKind::Row(i) => write!(f, "row {i}"),
            GroupKind::Col(i) => write!(f, "col {i}"),
            GroupKind::Box(i) => write!(f, "square {i}"),
        }
    }
}

/// All `3*size` groups with their cells: rows `0..size`, then columns, then boxes.
pub fn groups(shape: Shape) -> Vec<(GroupKind, Vec<usize>)> {
    let size = shape.size();
    let kinds = (0..size)
        .map(GroupKind::Row)
        .chain((0..size).map(GroupKind::Col))
        .chain((0..size).map(GroupKind::Box));
    kinds.map(|k| (k, shape.group_cells(k))).collect()
}

/// The peers of cell `c`: every other cell sharing its row, column or box, in
/// increasing order (20 for a 9x9 grid).
pub fn peers(shape: Shape, c: usize) -> Vec<usize> {
    let (r, col, b) = (shape.row(c), shape.col(c), shape.box_of(c));
    (0..shape.cells())
        .filter(|&p| p != c && (shape.row(p) == r || shape.col(p) == col || shape.box_of(p) == b))
        .collect()
}

/// A value that appears twice in one group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Duplicate {
    pub group: GroupKind,
    pub value: u8,
    /// The two cells, the first one first.
    pub cells: (usize, usize),
}

/// Every pair of filled cells that share a group and a value, group by group (rows,
/// columns, boxes), in cell order. Empty for a consistent grid.
pub fn duplicates(grid: &Grid) -> Vec<Duplicate> {
    let mut out = Vec::new();
    for (group, cells) in groups(grid.shape) {
        for (i, &a) in cells.iter().enumerate() {
            for &b in &cells[i + 1..] {
                let v = grid.get(a);
                if v != 0 && v == grid.get(b) {
                    out.push(Duplicate {
                        group,
                        value: v,
                        cells: (a, b),
                    });
                }
            }
        }
    }
    out
}

/// Checks that `solution` solves `grid`: same shape, every cell filled with a value in
/// range, every given kept, and each value once in every row, column and box. The
/// error names the first problem found, with 1-based `r1c1` cell names.
pub fn check_solution(grid: &Grid, solution: &Grid) -> Result<(), String> {
    let shape = grid.shape;
    if solution.shape != shape {
        return Err(format!(
            "the solution is {}, the puzzle {shape}",
            solution.shape
        ));
    }
    if grid.values.len() != shape.cells() || solution.values.len() != shape.cells() {
        return Err(format!("a {shape} grid must have {} cells", shape.cells()));
    }
    for (c, &v) in solution.values.iter().enumerate() {
        if v == 0 {
            return Err(format!(
                "the solution is incomplete: {} is empty",
                cell_rc(shape, c)
            ));
        }
        if usize::from(v) > shape.size() {
            return Err(format!(
                "value {v} at {} is out of range",
                cell_rc(shape, c)
            ));
        }
    }
    for (c, v) in grid.givens() {
        if solution.values[c] != v {
            return Err(format!(
                "the solution has {} at {} where the puzzle gives {}",
                digit_char(solution.values[c]),
                cell_rc(shape, c),
                digit_char(v)
            ));
        }
    }
    if let Some(d) = duplicates(solution).first() {
        return Err(format!(
            "{} appears twice in {} ({} and {})",
            digit_char(d.value),
            d.group,
            cell_rc(shape, d.cells.0),
            cell_rc(shape, d.cells.1)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIMPLE: &str =
        ".568.194.9..6.5..37..493..8897.4.635..39.68..465.8.2915..269..76..5.4..9.497.835.";
    const SIMPLE_SOLUTION: &str =
        "356871942984625713712493568897142635123956874465387291531269487678534129249718356";

    #[test]
    fn shape_geometry() {
        let s = Shape::NINE;
        assert_eq!((s.size(), s.cells()), (9, 81));
        assert_eq!((s.row(80), s.col(80), s.box_of(80)), (8, 8, 8));
        assert_eq!((s.row(12), s.col(12), s.box_of(12)), (1, 3, 1));
        assert_eq!(s.box_of(30), 4);
        assert_eq!(s.box_cells(4), vec![30, 31, 32, 39, 40, 41, 48, 49, 50]);
        assert_eq!(Shape::from_len(16), Some(Shape::FOUR));
        assert_eq!(Shape::from_len(81), Some(Shape::NINE));
        assert_eq!(Shape::from_len(256), Some(Shape::SIXTEEN));
        assert_eq!(Shape::from_len(625), Some(Shape::TWENTY_FIVE));
        assert_eq!(Shape::from_len(80), None);
        assert_eq!(Shape::new(6), None);
        assert_eq!(Shape::SIXTEEN.to_string(), "16x16");
        let p = Shape::SIXTEEN;
        assert_eq!(p.box_of(p.cell(5, 9)), 6);
    }

    #[test]
    fn digits_both_ways() {
        assert_eq!(digit_char(0), '.');
        assert_eq!(digit_char(9), '9');
        assert_eq!(digit_char(10), 'A');
        assert_eq!(digit_char(16), 'G');
        assert_eq!(digit_char(25), 'P');
        for shape in Shape::ALL {
            for v in 1..=shape.max_value() {
                let ch = digit_char(v);
                assert_eq!(parse_digit(ch, shape), Some(v));
                assert_eq!(parse_digit(ch.to_ascii_lowercase(), shape), Some(v));
            }
            let over = digit_char(shape.max_value() + 1);
            assert_eq!(parse_digit(over, shape), None);
            assert_eq!(parse_digit('.', shape), None);
            assert_eq!(parse_digit('0', shape), None);
        }
        assert_eq!(parse_digit('g', Shape::SIXTEEN), Some(16));
        assert_eq!(parse_digit('H', Shape::SIXTEEN), None);
        assert_eq!(parse_digit('A', Shape::NINE), None);
        assert_eq!(parse_digit('é', Shape::TWENTY_FIVE), None);
    }

    #[test]
    fn grid_lines() {
        let g: Grid = SIMPLE.parse().unwrap();
        assert_eq!(g.shape, Shape::NINE);
        assert_eq!(g.given_count(), 48);
        assert_eq!(g.to_line(), SIMPLE);
        assert_eq!(g.to_string(), SIMPLE);
        assert!(!g.is_complete());
        assert_eq!(g.givens().next(), Some((1, 5)));
        assert!(g.to_rows().starts_with(".568.194.\n9..6.5..3\n"));
        // 81 characters: `0` is empty as `.` is; anything else is an error at its column.
        assert_eq!(Grid::parse_line(&SIMPLE.replace('.', "0")).unwrap(), g);
        let other = SIMPLE.replace('.', "x");
        assert_eq!(
            Grid::parse_line(&other),
            Err((1, "'x' is not a digit of a 9x9 puzzle".into()))
        );
        // 16 characters: strict.
        let four = Grid::parse_line("1.3.0a..........").map(|g| g.to_line());
        assert_eq!(four, Err((6, "'a' is not a digit of a 4x4 puzzle".into())));
        assert_eq!(Grid::parse_line("12.4\t").unwrap_err().0, 1);
        let sixteen = "G..8.F7C..6.51..".repeat(16);
        let g16 = Grid::parse_line(&sixteen.to_lowercase()).unwrap();
        assert_eq!(g16.to_line(), sixteen);
        assert!(Grid::from_values(Shape::FOUR, vec![5; 16]).is_err());
        assert!(Grid::from_values(Shape::FOUR, vec![1; 15]).is_err());
    }

    #[test]
    fn cell_names_both_ways() {
        let s = Shape::NINE;
        assert_eq!(cell_drools(s, 8), "[0,8]");
        assert_eq!(cell_drools(s, 9 * 4 + 2), "[4,2]");
        assert_eq!(cell_rc(s, 8), "r1c9");
        for c in 0..s.cells() {
            assert_eq!(parse_cell(&cell_drools(s, c), s), Ok(c));
            assert_eq!(parse_cell(&cell_rc(s, c), s), Ok(c));
        }
        assert_eq!(parse_cell("R3C4", s), Ok(2 * 9 + 3));
        assert_eq!(parse_cell(" [2, 3] ", s), Ok(2 * 9 + 3));
        assert_eq!(
            parse_cell("r10c1", s),
            Err("cell out of range: r10c1".into())
        );
        assert_eq!(parse_cell("r0c1", s), Err("cell out of range: r0c1".into()));
        assert_eq!(
            parse_cell("[9,0]", s),
            Err("cell out of range: [9,0]".into())
        );
        let big = "r99999999999999999999999c1";
        assert_eq!(parse_cell(big, s), Err(format!("cell out of range: {big}")));
        assert_eq!(
            parse_cell("x", s),
            Err("bad cell 'x'; use r3c4 or [2,3]".into())
        );
        for bad in [
            "", "r3", "c3", "r-1c2", "[1,2", "[1;2]", "r1c2x", "[,]", "r+1c1",
        ] {
            let e = parse_cell(bad, s).unwrap_err();
            assert!(e.starts_with("bad cell '"), "{bad}: {e}");
        }
        assert_eq!(parse_cell("r16c16", Shape::SIXTEEN), Ok(255));
    }

    #[test]
    fn groups_and_peers() {
        let gs = groups(Shape::NINE);
        assert_eq!(gs.len(), 27);
        assert_eq!(gs[0].0, GroupKind::Row(0));
        assert_eq!(gs[9], (GroupKind::Col(0), (0..9).map(|r| r * 9).collect()));
        assert_eq!(gs[18].0, GroupKind::Box(0));
        assert_eq!(gs[26].1, vec![60, 61, 62, 69, 70, 71, 78, 79, 80]);
        for shape in Shape::ALL {
            let gs = groups(shape);
            assert_eq!(gs.len(), 3 * shape.size());
            let mut seen = vec![0; shape.cells()];
            for (_, cells) in &gs {
                assert_eq!(cells.len(), shape.size());
                cells.iter().for_each(|&c| seen[c] += 1);
            }
            assert!(seen.iter().all(|&k| k == 3));
            let np = 3 * shape.size() - 2 * shape.n - 1;
            assert_eq!(peers(shape, 0).len(), np);
        }
        assert_eq!(peers(Shape::NINE, 40).len(), 20);
    }

    #[test]
    fn checks_solutions() {
        let g: Grid = SIMPLE.parse().unwrap();
        let sol: Grid = SIMPLE_SOLUTION.parse().unwrap();
        assert!(sol.is_complete());
        assert_eq!(check_solution(&g, &sol), Ok(()));
        assert_eq!(check_solution(&Grid::empty(Shape::NINE), &sol), Ok(()));
        // Swap two cells of row 0: a given changes.
        let mut bad = sol.clone();
        bad.values.swap(0, 1);
        let e = check_solution(&g, &bad).unwrap_err();
        assert_eq!(e, "the solution has 3 at r1c2 where the puzzle gives 5");
        // Against an empty puzzle the same swap breaks columns.
        let e = check_solution(&Grid::empty(Shape::NINE), &bad).unwrap_err();
        assert_eq!(e, "5 appears twice in col 0 (r1c1 and r7c1)");
        let mut holey = sol.clone();
        holey.values[80] = 0;
        let e = check_solution(&g, &holey).unwrap_err();
        assert_eq!(e, "the solution is incomplete: r9c9 is empty");
        let e = check_solution(&Grid::empty(Shape::FOUR), &sol).unwrap_err();
        assert_eq!(e, "the solution is 9x9, the puzzle 4x4");
    }

    #[test]
    fn finds_duplicates() {
        let broken: Grid =
            "5....4.9567.5...1....6.9....2....4..81.....72..7....8.8..3.5....6...1.5873.9....."
                .parse()
                .unwrap();
        let d = duplicates(&broken);
        let names: Vec<String> = d
            .iter()
            .map(|d| {
                let s = broken.shape;
                let (a, b) = d.cells;
                format!(
                    "{} {} {} {}",
                    d.group,
                    d.value,
                    cell_drools(s, a),
                    cell_drools(s, b)
                )
            })
            .collect();
        assert_eq!(names, ["row 0 5 [0,0] [0,8]", "col 0 8 [4,0] [6,0]"]);
    }
}
