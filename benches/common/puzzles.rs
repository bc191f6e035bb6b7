//! Command lines and puzzle files of the Sudoku baselines (`sudoku_baseline`,
//! `search_baseline`): `-- [WORKERS [FILE [LIMIT [...]]]]`.

use sudolog::sudoku::puzzle::{Puzzle, PuzzleReader};

/// A bench's arguments: worker threads (default 1), the puzzle file (default
/// `tests/data/kaggle_300.txt`), how many of its puzzles (default all), and the rest.
pub struct Args {
    pub workers: usize,
    pub file: String,
    pub limit: usize,
    pub rest: Vec<String>,
}

/// The arguments after `--` (cargo's own `--bench` left out).
pub fn args() -> Args {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let workers = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let file = args
        .next()
        .unwrap_or_else(|| "tests/data/kaggle_300.txt".into());
    let limit = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(usize::MAX);
    Args {
        workers,
        file,
        limit,
        rest: args.collect(),
    }
}

/// The 9x9 puzzles of `file` (the first `limit`), read as sudolog reads them.
pub fn puzzles(file: &str, limit: usize) -> Vec<Puzzle> {
    let f = std::fs::File::open(file).expect("the puzzle file reads");
    PuzzleReader::new(file, std::io::BufReader::new(f))
        .take(limit)
        .map(|p| {
            let p = p.expect("the puzzles parse");
            assert_eq!(p.grid.shape.cells(), 81, "9x9 puzzles only");
            p
        })
        .collect()
}

/// A puzzle's givens, cell by cell (0 = empty).
pub fn cells(p: &Puzzle) -> [u8; 81] {
    std::array::from_fn(|c| p.grid.get(c))
}
