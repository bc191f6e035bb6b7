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
//! A shape also carries its [`Layout`], the variant's groups:
//!
//! | layout | groups, in [`groups`] order |
//! |--------|-----------------------------|
//! | classic | rows, columns, boxes |
//! | Sudoku X | rows, columns, boxes, then diagonal 0 (`[0,0]` to `[8,8]`) and diagonal 1 (`[0,8]` to `[8,0]`) |
//! | jigsaw | rows, columns, then the irregular regions in place of the boxes |
//!
//! Jigsaw regions are numbered in the order of their first cell (row-major): region 0
//! holds cell 0. Each has `size` cells; they need not be contiguous. A layout is cheap
//! to copy: a jigsaw's region map is interned (one shared copy per distinct map, kept
//! for the life of the process).
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

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};

/// The variant of a grid: which groups it has besides its rows and columns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layout {
    /// Rows, columns and `n`x`n` boxes.
    #[default]
    Classic,
    /// Sudoku X: the classic groups and both diagonals.
    X,
    /// Jigsaw: rows, columns and irregular regions in place of the boxes.
    Jigsaw(Regions),
}

impl fmt::Display for Layout {
    /// `classic`, `Sudoku X`, `jigsaw`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layout::Classic => "classic",
            Layout::X => "Sudoku X",
            Layout::Jigsaw(_) => "jigsaw",
        })
    }
}

/// A jigsaw's regions: the region (0-based) of every cell, row-major, regions numbered
/// in the order of their first cell. Built by [`Shape::jigsaw`], which checks that
/// every region has `size` cells; interned, so copying it copies a reference.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Regions(&'static [u8]);

impl Regions {
    /// The region of cell `c` (0 past the end).
    pub fn of(self, c: usize) -> usize {
        self.0.get(c).map_or(0, |&r| usize::from(r))
    }

    /// The cells of region `i`, in cell order.
    pub fn cells(self, i: usize) -> Vec<usize> {
        (0..self.0.len()).filter(|&c| self.of(c) == i).collect()
    }

    /// One letter per cell, row-major: `A` for region 0, `B` for region 1, ...
    pub fn letters(self) -> String {
        self.0.iter().map(|&r| char::from(b'A' + r)).collect()
    }

    /// The one shared copy of a region map.
    fn intern(map: Vec<u8>) -> Regions {
        static MAPS: OnceLock<Mutex<HashSet<&'static [u8]>>> = OnceLock::new();
        let mut maps = MAPS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(&m) = maps.get(map.as_slice()) {
            return Regions(m);
        }
        let m: &'static [u8] = Box::leak(map.into_boxed_slice());
        maps.insert(m);
        Regions(m)
    }
}

impl fmt::Debug for Regions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Regions({})", self.letters())
    }
}

/// The geometry of a grid, given by its box side `n` (2, 3, 4 or 5 for the supported
/// 4x4, 9x9, 16x16 and 25x25 grids) and its [`Layout`]. The arithmetic works for any
/// `n >= 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    /// The box side: 3 for a classic 9x9 Sudoku.
    pub n: usize,
    layout: Layout,
}

impl Shape {
    /// 4x4 grid (2x2 boxes).
    pub const FOUR: Shape = Shape::classic_of(2);
    /// Classic 9x9 grid (3x3 boxes).
    pub const NINE: Shape = Shape::classic_of(3);
    /// 16x16 grid (4x4 boxes).
    pub const SIXTEEN: Shape = Shape::classic_of(4);
    /// 25x25 grid (5x5 boxes).
    pub const TWENTY_FIVE: Shape = Shape::classic_of(5);
    /// All supported shapes, smallest first.
    pub const ALL: [Shape; 4] = [Shape::FOUR, Shape::NINE, Shape::SIXTEEN, Shape::TWENTY_FIVE];

    const fn classic_of(n: usize) -> Shape {
        Shape {
            n,
            layout: Layout::Classic,
        }
    }

    /// The shape with box side `n`, if supported (2..=5).
    pub fn new(n: usize) -> Option<Shape> {
        (2..=5).contains(&n).then_some(Shape::classic_of(n))
    }

    /// The variant's layout.
    pub fn layout(self) -> Layout {
        self.layout
    }

    /// The same size, classic.
    pub fn classic(self) -> Shape {
        Shape::classic_of(self.n)
    }

    /// The same size as Sudoku X (both diagonals are groups too).
    pub fn x(self) -> Shape {
        Shape {
            layout: Layout::X,
            ..self
        }
    }

    /// The same size as a jigsaw whose regions are given by one label per cell
    /// (row-major; equal labels, one region). On error: the cell to blame (the first
    /// cell of a region of the wrong size, or 0 for a wrong number of labels) and a
    /// message such as `region 'C' has 8 cells; a region of a 9x9 jigsaw has 9`.
    pub fn jigsaw<T: Copy + Eq + fmt::Display>(
        self,
        labels: &[T],
    ) -> Result<Shape, (usize, String)> {
        if labels.len() != self.cells() {
            return Err((
                0,
                format!(
                    "a {self} region grid has {} cells, not {}",
                    self.cells(),
                    labels.len()
                ),
            ));
        }
        // Region numbers in the order of each label's first cell.
        let mut seen: Vec<T> = Vec::new();
        let mut map = Vec::with_capacity(labels.len());
        for &l in labels {
            let i = seen.iter().position(|&s| s == l).unwrap_or_else(|| {
                seen.push(l);
                seen.len() - 1
            });
            map.push(i);
        }
        for (i, &l) in seen.iter().enumerate() {
            let count = map.iter().filter(|&&r| r == i).count();
            if count != self.size() {
                let first = map.iter().position(|&r| r == i).unwrap_or(0);
                return Err((
                    first,
                    format!(
                        "region '{l}' has {count} cell{}; a region of a {self} jigsaw has {}",
                        if count == 1 { "" } else { "s" },
                        self.size()
                    ),
                ));
            }
        }
        // Every region has `size` cells, so there are `size` regions: each fits a u8.
        let map = map.into_iter().map(|r| r as u8).collect();
        Ok(Shape {
            layout: Layout::Jigsaw(Regions::intern(map)),
            ..self
        })
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
        let size = self.size();
        match kind {
            GroupKind::Row(i) => self.row_cells(i),
            GroupKind::Col(i) => self.col_cells(i),
            GroupKind::Box(i) => self.box_cells(i),
            GroupKind::Region(i) => match self.layout {
                Layout::Jigsaw(regions) => regions.cells(i),
                _ => self.box_cells(i),
            },
            GroupKind::Diag(0) => (0..size).map(|k| self.cell(k, k)).collect(),
            GroupKind::Diag(_) => (0..size).map(|k| self.cell(k, size - 1 - k)).collect(),
        }
    }

    /// The groups of cell `c`: its row, column, box or region, and the diagonals it
    /// lies on (Sudoku X).
    pub fn groups_of(self, c: usize) -> Vec<GroupKind> {
        let (r, col) = (self.row(c), self.col(c));
        let mut out = vec![GroupKind::Row(r), GroupKind::Col(col)];
        match self.layout {
            Layout::Jigsaw(regions) => out.push(GroupKind::Region(regions.of(c))),
            _ => out.push(GroupKind::Box(self.box_of(c))),
        }
        if self.layout == Layout::X {
            if r == col {
                out.push(GroupKind::Diag(0));
            }
            if r + col + 1 == self.size() {
                out.push(GroupKind::Diag(1));
            }
        }
        out
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

/// A row, column, box, jigsaw region or diagonal, with its 0-based index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GroupKind {
    Row(usize),
    Col(usize),
    Box(usize),
    /// A jigsaw region (the rules see it as a box).
    Region(usize),
    /// Sudoku X: 0 is the main diagonal (top left to bottom right), 1 the other.
    Diag(usize),
}

impl GroupKind {
    /// The kind the rules see in `group(g, kind, i)`: `"row"`, `"column"`, `"box"`
    /// (jigsaw regions too) or `"diagonal"`; and the index `i`.
    pub fn fact(self) -> (&'static str, usize) {
        match self {
            GroupKind::Row(i) => ("row", i),
            GroupKind::Col(i) => ("column", i),
            GroupKind::Box(i) | GroupKind::Region(i) => ("box", i),
            GroupKind::Diag(i) => ("diagonal", i),
        }
    }

    /// How messages name the kind: `row`, `column`, `box`, `region`, `diagonal`.
    pub fn word(self) -> &'static str {
        match self {
            GroupKind::Region(_) => "region",
            other => other.fact().0,
        }
    }
}

impl fmt::Display for GroupKind {
    /// Drools' wording: `row 0`, `col 0`, `square 0`; and `region 0`, `diagonal 0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupKind::Row(i) => write!(f, "row {i}"),
            GroupKind::Col(i) => write!(f, "col {i}"),
            GroupKind::Box(i) => write!(f, "square {i}"),
            GroupKind::Region(i) => write!(f, "region {i}"),
            GroupKind::Diag(i) => write!(f, "diagonal {i}"),
        }
    }
}

/// Every group with its cells: rows `0..size`, then columns, then boxes (or a
/// jigsaw's regions), then for Sudoku X the two diagonals. `3*size` groups, plus 2 for
/// Sudoku X.
pub fn groups(shape: Shape) -> Vec<(GroupKind, Vec<usize>)> {
    let size = shape.size();
    let third: fn(usize) -> GroupKind = match shape.layout {
        Layout::Jigsaw(_) => GroupKind::Region,
        _ => GroupKind::Box,
    };
    let diagonals = if shape.layout == Layout::X {
        0..2
    } else {
        0..0
    };
    let kinds = (0..size)
        .map(GroupKind::Row)
        .chain((0..size).map(GroupKind::Col))
        .chain((0..size).map(third))
        .chain(diagonals.map(GroupKind::Diag));
    kinds.map(|k| (k, shape.group_cells(k))).collect()
}

/// The peers of cell `c`: every other cell sharing one of its groups, in increasing
/// order (20 for a classic 9x9 grid; up to 32 on a Sudoku X's centre).
pub fn peers(shape: Shape, c: usize) -> Vec<usize> {
    let mut out: Vec<usize> = shape
        .groups_of(c)
        .into_iter()
        .flat_map(|g| shape.group_cells(g))
        .filter(|&p| p != c)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A value that appears twice in one group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Duplicate {
    pub group: GroupKind,
    pub value: u8,
    /// The two cells, the first one first.
    pub cells: (usize, usize),
}

/// Every pair of filled cells that share a group and a value, group by group (in
/// [`groups`] order: rows, columns, boxes or regions, diagonals), in cell order. Empty
/// for a consistent grid.
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

/// Checks that `solution` solves `grid`: same size, every cell filled with a value in
/// range, every given kept, and each value once in every group of the puzzle's layout
/// (the solution's own layout is ignored). The error names the first problem found,
/// with 1-based `r1c1` cell names.
pub fn check_solution(grid: &Grid, solution: &Grid) -> Result<(), String> {
    let shape = grid.shape;
    if solution.shape.n != shape.n {
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
    let in_layout = Grid {
        shape,
        values: solution.values.clone(),
    };
    if let Some(d) = duplicates(&in_layout).first() {
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

    /// A 9x9 jigsaw's region letters (rows of `inputs/jigsaw_*.txt` style).
    const REGIONS: &str =
        "AABBBBCCCAABBBBBCDEAAAACCCDEEAFFCFCDEEEFFFFDDGEEFHFIDDGGEHHHIIDGGGGHIIIDGGHHHHIII";

    #[test]
    fn sudoku_x_groups_and_peers() {
        let x = Shape::NINE.x();
        assert_eq!(x.layout(), Layout::X);
        assert_eq!((x.size(), x.cells()), (9, 81));
        assert_ne!(x, Shape::NINE);
        assert_eq!(x.classic(), Shape::NINE);
        let gs = groups(x);
        assert_eq!(gs.len(), 29);
        // The classic 27 first, unchanged, then the two diagonals.
        assert_eq!(gs[..27], groups(Shape::NINE)[..]);
        assert_eq!(
            gs[27],
            (GroupKind::Diag(0), (0..9).map(|k| k * 10).collect())
        );
        assert_eq!(
            gs[28],
            (GroupKind::Diag(1), (1..10).map(|k| k * 8).collect())
        );
        assert_eq!(GroupKind::Diag(1).fact(), ("diagonal", 1));
        assert_eq!(GroupKind::Diag(0).to_string(), "diagonal 0");
        // The centre lies on both diagonals: 20 classic peers and 6 more on each.
        assert_eq!(peers(x, 40).len(), 32);
        assert_eq!(peers(x, 1), peers(Shape::NINE, 1));
        assert!(peers(x, 0).contains(&80) && !peers(Shape::NINE, 0).contains(&80));
        assert_eq!(x.groups_of(8).len(), 4);
        assert_eq!(groups(Shape::FOUR.x())[13].1, vec![3, 6, 9, 12]);
    }

    #[test]
    fn jigsaw_regions() {
        let labels: Vec<char> = REGIONS.chars().collect();
        let j = Shape::NINE.jigsaw(&labels).unwrap();
        let Layout::Jigsaw(regions) = j.layout() else {
            panic!("not a jigsaw: {j:?}")
        };
        assert_eq!(regions.letters(), REGIONS);
        // The same map, interned: equal shapes.
        assert_eq!(Shape::NINE.jigsaw(&labels), Ok(j));
        let gs = groups(j);
        assert_eq!(gs.len(), 27);
        assert_eq!(gs[..18], groups(Shape::NINE)[..18]);
        assert_eq!(gs[18].0, GroupKind::Region(0));
        assert_eq!(gs[18].1, vec![0, 1, 9, 10, 19, 20, 21, 22, 29]);
        assert_eq!(GroupKind::Region(0).fact(), ("box", 0));
        assert_eq!(GroupKind::Region(4).to_string(), "region 4");
        let mut seen = [0; 81];
        for (_, cells) in &gs {
            assert_eq!(cells.len(), 9);
            cells.iter().for_each(|&c| seen[c] += 1);
        }
        assert!(seen.iter().all(|&k| k == 3));
        // Cell 2 (region B) sees region B, not its classic box's cell 19 (region A).
        assert!(peers(j, 2).contains(&12) && !peers(j, 2).contains(&19));
        // Any labels: digits work as well as letters, renumbered by first cell.
        let digits: Vec<u8> = REGIONS.bytes().map(|b| b - b'A').collect();
        assert_eq!(Shape::NINE.jigsaw(&digits), Ok(j));
        // A region of 8 cells and one of 10: the first (by its first cell) is blamed.
        let mut bad = labels.clone();
        bad[2] = 'A';
        assert_eq!(
            Shape::NINE.jigsaw(&bad),
            Err((
                0,
                "region 'A' has 10 cells; a region of a 9x9 jigsaw has 9".into()
            ))
        );
        let mut bad = labels.clone();
        bad[80] = 'Z';
        assert_eq!(
            Shape::NINE.jigsaw(&bad),
            Err((
                51,
                "region 'I' has 8 cells; a region of a 9x9 jigsaw has 9".into()
            ))
        );
        assert_eq!(
            Shape::NINE.jigsaw(&labels[..80]),
            Err((0, "a 9x9 region grid has 81 cells, not 80".into()))
        );
    }

    #[test]
    fn variant_duplicates_and_solutions() {
        // 5 twice on the main diagonal: a duplicate for Sudoku X only.
        let mut g = Grid::empty(Shape::NINE);
        g.values[0] = 5;
        g.values[40] = 5;
        assert!(duplicates(&g).is_empty());
        g.shape = g.shape.x();
        let d = duplicates(&g);
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].group, d[0].value, d[0].cells),
            (GroupKind::Diag(0), 5, (0, 40))
        );
        // The classic solution of `simple` breaks a diagonal.
        let sol: Grid = SIMPLE_SOLUTION.parse().unwrap();
        let e = check_solution(&Grid::empty(Shape::NINE.x()), &sol).unwrap_err();
        assert_eq!(e, "2 appears twice in diagonal 0 (r3c3 and r8c8)");
        // And the jigsaw's regions.
        let labels: Vec<char> = REGIONS.chars().collect();
        let j = Shape::NINE.jigsaw(&labels).unwrap();
        let e = check_solution(&Grid::empty(j), &sol).unwrap_err();
        assert!(e.contains(" in region "), "{e}");
    }
}
