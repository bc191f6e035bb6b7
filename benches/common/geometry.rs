//! 9x9 Sudoku geometry for the hand-written baselines (`sudoku_baseline`,
//! `search_baseline`, `edit_baseline`): cells 0..81 row by row, groups 0..27 (rows,
//! columns, boxes).

/// Rows, columns and boxes: (cell, group).
pub fn members() -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    for c in 0..81u8 {
        let (r, k) = (c / 9, c % 9);
        out.push((c, r));
        out.push((c, 9 + k));
        out.push((c, 18 + (r / 3) * 3 + k / 3));
    }
    out
}

/// (cell, other cell sharing a group).
pub fn peers() -> Vec<(u8, u8)> {
    let m = members();
    let mut out = std::collections::BTreeSet::new();
    for &(a, g) in &m {
        for &(b, h) in &m {
            if g == h && a != b {
                out.insert((a, b));
            }
        }
    }
    out.into_iter().collect()
}

/// The values a cell holding `v` rules out of itself: every other digit.
pub fn other_values(v: u8) -> impl Iterator<Item = u8> {
    (1..=9u8).filter(move |&w| w != v)
}
