//! The Drools "Dump" layout: the grid with every open cell's candidates.
//!
//! In: a shape, the placed values (0 = open) and each cell's candidate values.
//! Out: the text Drools prints for its Dump button, character for character on 9x9:
//!
//! ```text
//!        Col: 0     Col: 1     ...     Col: 8     
//! Row 0:  --- 5 ---  --- 3 ---   2  5  8   ...
//! ```
//!
//! A header of 7 spaces then, per column N, `Col: N` padded to 11 characters; then per
//! row `Row N: ` and 11 characters per cell: a placed value as ` --- V --- `, an open
//! cell as a space and its candidate string, in which index `k-1` holds digit `k` if
//! `k` is a candidate and a space otherwise, padded with spaces to 10 characters.
//! Every line ends in `'\n'` (trailing spaces kept).
//!
//! Other sizes keep the same layout with cells `max(11, size+2)` characters wide (the
//! dashes stretch to fill), and row/column numbers right-aligned to the width of the
//! largest, so the columns stay aligned for 16x16 and 25x25.
//!
//! A variant's dump ends with its groups: a Sudoku X with the line `Sudoku X: diagonal
//! 0 runs [0,0] to [8,8], diagonal 1 [0,8] to [8,0]`, a jigsaw with `Regions:` and its
//! region grid, one letter per cell (`A` for region 0, in the order of their first
//! cells), rows labelled as above. A classic dump has nothing more.

use super::grid::{cell_drools, digit_char, Layout, Shape};

/// Renders the dump of a grid. `placed[c]` is cell `c`'s value or 0 if open;
/// `candidates[c]` lists its candidates (ignored for a placed cell; values outside
/// `1..=size` are ignored). Missing entries count as open with no candidates.
pub fn dump(shape: Shape, placed: &[u8], candidates: &[Vec<u8>]) -> String {
    let size = shape.size();
    let width = (size + 2).max(11);
    let digits = size.saturating_sub(1).max(1).to_string().len();
    let mut out = String::new();

    // Header: as wide as a row label ("Row N: "), then one field per column.
    out.push_str(&" ".repeat(6 + digits));
    for col in 0..size {
        let label = format!("Col: {col:>digits$}");
        out.push_str(&format!("{label:<width$}"));
    }
    out.push('\n');

    let dashes = width - 5;
    let (left, right) = ("-".repeat(dashes / 2), "-".repeat(dashes - dashes / 2));
    for row in 0..size {
        out.push_str(&format!("Row {row:>digits$}: "));
        for col in 0..size {
            let c = shape.cell(row, col);
            let v = placed.get(c).copied().unwrap_or(0);
            if v != 0 {
                out.push_str(&format!(" {left} {} {right} ", digit_char(v)));
            } else {
                let mut cand = vec![' '; size];
                for &k in candidates.get(c).map(Vec::as_slice).unwrap_or(&[]) {
                    if (1..=size).contains(&usize::from(k)) {
                        cand[usize::from(k) - 1] = digit_char(k);
                    }
                }
                let cand: String = cand.into_iter().collect();
                out.push_str(&format!(" {cand:<w$}", w = width - 1));
            }
        }
        out.push('\n');
    }
    out.push_str(&layout_lines(shape, digits));
    out
}

/// The lines that describe a variant's groups (none for a classic grid).
fn layout_lines(shape: Shape, digits: usize) -> String {
    let size = shape.size();
    match shape.layout() {
        Layout::Classic => String::new(),
        Layout::X => format!(
            "Sudoku X: diagonal 0 runs {} to {}, diagonal 1 {} to {}\n",
            cell_drools(shape, 0),
            cell_drools(shape, shape.cells() - 1),
            cell_drools(shape, size - 1),
            cell_drools(shape, shape.cells() - size)
        ),
        Layout::Jigsaw(regions) => {
            let letters: Vec<char> = regions.letters().chars().collect();
            let mut out = String::from("Regions:\n");
            for (row, line) in letters.chunks(size.max(1)).enumerate() {
                let line: String = line.iter().collect();
                out.push_str(&format!("Row {row:>digits$}: {line}\n"));
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row 4 of the reference's example, exactly (note the trailing space).
    const ROW4: &str = "Row 4:  --- 6 ---  --- 7 ---      5      --- 4 ---   2  5  8   --- 9 ---      5  8   --- 1 ---  --- 3 --- ";

    #[test]
    fn reproduces_drools_row() {
        let shape = Shape::NINE;
        let mut placed = vec![0u8; 81];
        let mut cands = vec![Vec::new(); 81];
        for (col, v) in [6, 7, 0, 4, 0, 9, 0, 1, 3].into_iter().enumerate() {
            placed[shape.cell(4, col)] = v;
        }
        cands[shape.cell(4, 2)] = vec![5];
        cands[shape.cell(4, 4)] = vec![8, 2, 5];
        cands[shape.cell(4, 6)] = vec![5, 8];
        let text = dump(shape, &placed, &cands);
        let lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(lines.len(), 11); // header, 9 rows, "" after the last '\n'
        assert_eq!(lines[5], ROW4);
        assert_eq!(lines[10], "");
        assert_eq!(
            lines[0],
            "       Col: 0     Col: 1     Col: 2     Col: 3     Col: 4     Col: 5     Col: 6     Col: 7     Col: 8     "
        );
        assert_eq!(lines[1], format!("Row 0: {}", " ".repeat(99)));
        assert!(lines.iter().take(10).all(|l| l.len() == 106));
    }

    #[test]
    fn full_candidates_and_bad_input() {
        let shape = Shape::NINE;
        let all: Vec<Vec<u8>> = vec![(1..=9).collect(); 81];
        let text = dump(shape, &[], &all);
        assert!(text
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("Row 0:  123456789  123456789 "));
        // Short slices and out-of-range candidates do not panic.
        let text = dump(shape, &[1], &[vec![0, 10, 200]]);
        assert!(text
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("Row 0:  --- 1 ---             "));
    }

    #[test]
    fn other_sizes_stay_aligned() {
        for shape in [Shape::FOUR, Shape::SIXTEEN, Shape::TWENTY_FIVE] {
            let cells = shape.cells();
            let placed: Vec<u8> = (0..cells).map(|c| (c % 3 == 0) as u8 * 2).collect();
            let all: Vec<Vec<u8>> = vec![(1..=shape.max_value()).collect(); cells];
            let text = dump(shape, &placed, &all);
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), shape.size() + 1);
            let w = lines[0].chars().count();
            assert!(lines.iter().all(|l| l.chars().count() == w), "{shape}");
        }
        let text = dump(Shape::SIXTEEN, &[16], &[]);
        let row0 = text.lines().nth(1).unwrap();
        assert!(row0.starts_with("Row  0:  ------ G -------  "), "{row0}");
        let text = dump(Shape::FOUR, &[0, 3], &[vec![4, 1]]);
        assert!(text.starts_with("       Col: 0     Col: 1     "));
        assert!(text
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("Row 0:  1  4       --- 3 --- "));
    }

    #[test]
    fn variants_name_their_groups() {
        let plain = dump(Shape::NINE, &[], &[]);
        let x = dump(Shape::NINE.x(), &[], &[]);
        assert_eq!(
            x,
            format!("{plain}Sudoku X: diagonal 0 runs [0,0] to [8,8], diagonal 1 [0,8] to [8,0]\n")
        );
        let labels: Vec<u8> = (0..16)
            .map(|c| [0, 0, 1, 1, 0, 2, 1, 1, 0, 2, 2, 3, 2, 3, 3, 3][c])
            .collect();
        let j = Shape::FOUR.jigsaw(&labels).unwrap();
        let text = dump(j, &[], &[]);
        let plain = dump(Shape::FOUR, &[], &[]);
        assert_eq!(
            text,
            format!("{plain}Regions:\nRow 0: AABB\nRow 1: ACBB\nRow 2: ACCD\nRow 3: CDDD\n")
        );
    }
}
