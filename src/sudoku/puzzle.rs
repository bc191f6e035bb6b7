//! Reading puzzle text.
//!
//! In: text from a file, standard input, a built-in sample or a command-line argument.
//! Out: a sequence of [`Puzzle`]s (a [`Grid`] of givens plus where it came from), one
//! `Result` per puzzle, so that one bad puzzle does not stop the others. Nothing here
//! panics, whatever the input.
//!
//! # Formats
//!
//! Lines are read one at a time; trailing whitespace (and a CR) is ignored, and so is a
//! UTF-8 byte-order mark at the start. A line whose first non-blank character is `#` is
//! a comment. Every other non-blank line is accounted for: it is part of a puzzle, or an
//! error names it (a block's error names the range of its lines). Three formats:
//!
//! 1. **One puzzle per line**: a line of 16, 81, 256 or 625 characters is a whole 4x4,
//!    9x9, 16x16 or 25x25 puzzle, row by row. Characters are digits of the size's
//!    alphabet (see [`crate::sudoku::grid`]) or `.`/`0` for an empty cell; anything
//!    else is an error at its column (81 characters of prose are not an empty grid).
//! 2. **A Drools file** (Drools' "File > Open...", 9x9): an input of at most 9 rows (not
//!    counting comments or trailing blank lines), none of a one-line puzzle's length,
//!    the first non-blank one at most 9 characters. Read as Drools reads it: a digit
//!    `1`-`9` is a given, any other mark is empty, a blank or all-space row is an empty
//!    row, a short file is padded with empty rows, and characters past the 9th are
//!    ignored.
//! 3. **Blocks** in a longer input: 9 consecutive lines of 1 to 9 characters each, read
//!    as Drools rows (a short row is padded with empty cells). A blank line, a line
//!    longer than 9 characters or the end of the input before the 9th row ends the
//!    block with an error naming its lines; a long line is then read on its own.
//!
//! In the Drools formats (2 and 3) a letter is not a cell: text is not a puzzle, so a
//! row holding one is an error at its column.
//!
//! # Variants
//!
//! A **marker line** before a puzzle makes it a variant: a line holding only `X`
//! (Sudoku X: both diagonals are groups too) or `jigsaw` (irregular regions in place of
//! the boxes), in any case. The marker applies to the one puzzle after it (a 9-line
//! block or a one-line puzzle of any size; blank lines and comments may come between),
//! and the puzzle's line is the marker's. A jigsaw's grid is followed by its **region
//! grid**: `size` lines of `size` letters, or one line of `size*size` letters (blank
//! lines and comments may come before it), one letter per cell, the same letter for
//! the cells of one region. Any ASCII letters, case-sensitive; each region must have
//! `size` cells (contiguous or not). Regions are numbered in the order of their first
//! cell. For example, a Sudoku X and a jigsaw:
//!
//! ```text
//! X
//! 4..82..63.2...918.....3........8.9...1........62..1.................5.....4...6..
//! jigsaw
//! ..51.........8..5.....2......8..........5.7...8.........7..1.652.3....7....9.....
//! AABBBBCCC
//! AABBBBBCD
//! EAAAACCCD
//! EEAFFCFCD
//! EEEFFFFDD
//! GEEFHFIDD
//! GGEHHHIID
//! GGGGHIIID
//! GGHHHHIII
//! ```
//!
//! Errors: a marker with no puzzle after it (another marker or the end of the input
//! comes first), a jigsaw without its region grid (a puzzle line, a marker or the end
//! of the input comes first), a region grid cut short or with a row of the wrong
//! length, a character that is not a letter, a region of the wrong number of cells
//! (named by its first cell's line and column). A marker is never the first row of a
//! Drools file (format 2): a marked puzzle is a full block or a line.
//!
//! Errors read `file:line:col: message`, for example
//! `puzzles.txt:3:1: puzzle line has 80 characters; expected 16, 81, 256 or 625 (one
//! puzzle per line) or a 9-line block`.
//!
//! [`PuzzleReader`] streams puzzles from any [`BufRead`] in bounded memory (a line is
//! kept up to a few kilobytes; the rest of an overlong line is only counted; the
//! look-ahead that recognises a Drools file keeps at most [`AHEAD_LINES`] lines);
//! [`parse_text`] and [`parse_puzzle_arg`] are built on it.

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufRead};

use super::grid::{Grid, Shape};
use super::samples;

/// A puzzle read from some source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    /// The givens (0 = empty).
    pub grid: Grid,
    /// Where it came from: a file name, `<stdin>`, `<argument>` or a sample name.
    pub source: String,
    /// The 1-based line where the puzzle starts.
    pub line: usize,
}

/// A puzzle that could not be read. Displays as `source:line:col: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub source: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.source, self.line, self.col, self.message
        )
    }
}

impl std::error::Error for InputError {}

/// Bytes of a line kept in memory; longer lines are only counted. Larger than the
/// longest valid line (625 characters of up to 4 bytes).
const MAX_LINE_BYTES: usize = 4096;

/// Number of rows in a block or Drools file, and the most characters a block row may
/// have.
const BLOCK: usize = 9;

/// The most lines (blank ones included, comments not) read ahead at the start to
/// decide whether the input is a Drools file.
pub const AHEAD_LINES: usize = 64;

/// A block being collected.
struct Block {
    /// 1-based line of its first row.
    start: usize,
    /// 1-based line of its latest row.
    last: usize,
    rows: usize,
    values: Vec<u8>,
    /// The first letter in its rows: `(line, col, char)`.
    letter: Option<(usize, usize, char)>,
}

/// One line as read: its 1-based number, its text (possibly cut at
/// [`MAX_LINE_BYTES`]) and its length in characters after trimming trailing whitespace.
struct Line {
    no: usize,
    text: String,
    chars: usize,
}

impl Line {
    fn is_comment(&self) -> bool {
        self.text.trim_start().starts_with('#')
    }

    fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

/// `line 3` or `lines 3-11`.
fn line_range(start: usize, last: usize) -> String {
    if start == last {
        format!("line {start}")
    } else {
        format!("lines {start}-{last}")
    }
}

/// The message for a letter in a Drools-format row.
fn letter_message(ch: char) -> String {
    format!(
        "'{}' is not a cell of a 9-line puzzle: a row holds 1-9 for givens and any other mark but a letter for empty cells",
        ch.escape_debug()
    )
}

/// Streams puzzles from a reader: an iterator of `Result<Puzzle, InputError>`, one per
/// puzzle or bad puzzle, in file order. See the [module docs](self) for the formats.
/// An I/O error is reported once, as an [`InputError`], and ends the stream.
pub struct PuzzleReader<R: BufRead> {
    reader: R,
    source: String,
    /// Number of lines read so far (the current line's 1-based number).
    line_no: usize,
    block: Option<Block>,
    pending: VecDeque<Result<Puzzle, InputError>>,
    buf: Vec<u8>,
    done: bool,
    /// Whether the look-ahead for a Drools file has been done.
    started: bool,
    /// Lines read ahead (comments dropped), handed out before any new line.
    ahead: VecDeque<Line>,
    /// An I/O error met while reading ahead, reported after the lines before it.
    ahead_error: Option<io::Error>,
    /// A variant marker waiting for its puzzle, or a jigsaw for its region grid.
    variant: Option<Variant>,
}

impl<R: BufRead> PuzzleReader<R> {
    /// A reader of puzzles from `reader`, naming `source` in positions.
    pub fn new(source: impl Into<String>, reader: R) -> PuzzleReader<R> {
        PuzzleReader {
            reader,
            source: source.into(),
            line_no: 0,
            block: None,
            pending: VecDeque::new(),
            buf: Vec::new(),
            done: false,
            started: false,
            ahead: VecDeque::new(),
            ahead_error: None,
            variant: None,
        }
    }

    /// The source name given to [`PuzzleReader::new`].
    pub fn source(&self) -> &str {
        &self.source
    }

    fn error(&self, line: usize, col: usize, message: String) -> Result<Puzzle, InputError> {
        Err(InputError {
            source: self.source.clone(),
            line,
            col,
            message,
        })
    }

    fn puzzle(&self, grid: Grid, line: usize) -> Result<Puzzle, InputError> {
        Ok(Puzzle {
            grid,
            source: self.source.clone(),
            line,
        })
    }

    /// Reads the next line from the underlying reader, or `None` at end of input.
    /// Keeps at most [`MAX_LINE_BYTES`] bytes of it.
    fn read_line(&mut self) -> io::Result<Option<Line>> {
        self.buf.clear();
        let mut any = false;
        // For the part beyond MAX_LINE_BYTES: characters seen, and characters up to
        // the last non-whitespace byte.
        let (mut extra, mut extra_trimmed) = (0usize, 0usize);
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            any = true;
            let (part, found) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], true),
                None => (chunk, false),
            };
            let room = MAX_LINE_BYTES.saturating_sub(self.buf.len());
            let keep = room.min(part.len());
            self.buf.extend_from_slice(&part[..keep]);
            for &b in &part[keep..] {
                // Count characters, not UTF-8 continuation bytes.
                if b & 0xC0 != 0x80 {
                    extra += 1;
                    if !b.is_ascii_whitespace() {
                        extra_trimmed = extra;
                    }
                }
            }
            let used = part.len() + usize::from(found);
            self.reader.consume(used);
            if found {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        self.line_no += 1;
        if self.line_no == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
            self.buf.drain(..3);
        }
        let text = String::from_utf8_lossy(&self.buf);
        let chars = if extra_trimmed > 0 {
            // The kept part is followed by more text: count all of it.
            self.buf.iter().filter(|&&b| b & 0xC0 != 0x80).count() + extra_trimmed
        } else {
            text.trim_end().chars().count()
        };
        let text = text.trim_end().to_string();
        Ok(Some(Line {
            no: self.line_no,
            text,
            chars,
        }))
    }

    /// The next line: a line read ahead, else a fresh one.
    fn next_line(&mut self) -> io::Result<Option<Line>> {
        if let Some(line) = self.ahead.pop_front() {
            return Ok(Some(line));
        }
        if let Some(e) = self.ahead_error.take() {
            return Err(e);
        }
        self.read_line()
    }

    /// Reads ahead (at most [`AHEAD_LINES`] lines, at most 10 non-blank rows) and, if
    /// the whole input is a Drools file, reads it as one: queues its puzzle (or error)
    /// and ends the stream.
    fn start(&mut self) {
        self.started = true;
        let mut non_blank = 0;
        let mut eof = false;
        while self.ahead.len() < AHEAD_LINES && non_blank <= BLOCK {
            match self.read_line() {
                Ok(Some(line)) if line.is_comment() => {}
                Ok(Some(line)) => {
                    non_blank += usize::from(!line.is_blank());
                    self.ahead.push_back(line);
                }
                Ok(None) => {
                    eof = true;
                    break;
                }
                Err(e) => {
                    self.ahead_error = Some(e);
                    break;
                }
            }
        }
        if !eof {
            return;
        }
        let mut rows = self.ahead.len();
        while rows > 0 && self.ahead[rows - 1].is_blank() {
            rows -= 1;
        }
        let first = self.ahead.iter().find(|l| !l.is_blank());
        let drools = rows <= BLOCK
            && first.is_some_and(|l| l.chars <= BLOCK && Marker::of(l).is_none())
            && self
                .ahead
                .iter()
                .all(|l| Shape::from_len(l.chars).is_none());
        if !drools {
            return;
        }
        let mut values = Vec::with_capacity(Shape::NINE.cells());
        let mut letter = None;
        for line in self.ahead.iter().take(rows) {
            let bad = block_row(&mut values, &line.text);
            letter = letter.or(bad.map(|(col, ch)| (line.no, col, ch)));
        }
        values.resize(Shape::NINE.cells(), 0);
        let start = self.ahead[0].no;
        let last = self.ahead[rows - 1].no;
        let r = match letter {
            Some((line, col, ch)) => self.error(
                line,
                col,
                format!(
                    "{} (file of {})",
                    letter_message(ch),
                    line_range(start, last)
                ),
            ),
            None => self.puzzle(
                Grid {
                    shape: Shape::NINE,
                    values,
                },
                start,
            ),
        };
        self.pending.push_back(r);
        self.ahead.clear();
        self.done = true;
    }

    /// Queues the error for a block cut short, `then` saying what cut it.
    fn incomplete(&mut self, b: Block, then: &str) {
        let msg = format!(
            "incomplete puzzle block: {} of {BLOCK} rows ({}), then {then}",
            b.rows,
            line_range(b.start, b.last)
        );
        let e = self.error(b.start, 1, msg);
        self.found(e, b.last);
    }

    /// Handles one line (or the end of input), queueing any results.
    fn step(&mut self) {
        if !self.started {
            self.start();
            if self.done {
                return;
            }
        }
        let line = match self.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => {
                self.done = true;
                if let Some(b) = self.block.take() {
                    self.incomplete(b, "the end of the input");
                }
                self.end_variant("the end of the input");
                return;
            }
            Err(e) => {
                self.done = true;
                let e = self.error(self.line_no + 1, 1, format!("cannot read: {e}"));
                self.pending.push_back(e);
                return;
            }
        };
        if line.is_comment() {
            return;
        }
        if let Some(line) = self.region_line(line) {
            self.handle(line);
        }
    }

    /// Handles a line that is not a comment and not part of a region grid.
    fn handle(&mut self, line: Line) {
        if let Some(marker) = Marker::of(&line) {
            if let Some(b) = self.block.take() {
                let then = format!("the variant marker at line {}", line.no);
                self.incomplete(b, &then);
            }
            self.end_variant(&format!("another marker at line {}", line.no));
            self.variant = Some(Variant::Marked(marker, line.no));
            return;
        }
        if line.is_blank() {
            if let Some(b) = self.block.take() {
                self.incomplete(b, "a blank line");
            }
            return;
        }
        if line.chars > BLOCK {
            if let Some(b) = self.block.take() {
                let then = format!("line {} of {} characters", line.no, line.chars);
                self.incomplete(b, &then);
            }
            self.long_line(&line);
            return;
        }
        let mut b = self.block.take().unwrap_or_else(|| Block {
            start: line.no,
            last: line.no,
            rows: 0,
            values: Vec::with_capacity(Shape::NINE.cells()),
            letter: None,
        });
        let bad = block_row(&mut b.values, &line.text);
        b.letter = b.letter.or(bad.map(|(col, ch)| (line.no, col, ch)));
        b.rows += 1;
        b.last = line.no;
        if b.rows < BLOCK {
            self.block = Some(b);
            return;
        }
        let r = match b.letter {
            Some((line, col, ch)) => self.error(
                line,
                col,
                format!(
                    "{} (block of {})",
                    letter_message(ch),
                    line_range(b.start, b.last)
                ),
            ),
            None => self.puzzle(
                Grid {
                    shape: Shape::NINE,
                    values: b.values,
                },
                b.start,
            ),
        };
        self.found(r, b.last);
    }

    /// Reads a line longer than a block row: a one-line puzzle, or a length error.
    fn long_line(&mut self, line: &Line) {
        let r = if Shape::from_len(line.chars).is_some() {
            match Grid::parse_line(&line.text) {
                Ok(grid) => self.puzzle(grid, line.no),
                Err((col, msg)) => self.error(line.no, col, msg),
            }
        } else {
            let msg = format!(
                "puzzle line has {} characters; expected 16, 81, 256 or 625 (one puzzle per line) or a 9-line block",
                line.chars
            );
            self.error(line.no, 1, msg)
        };
        self.found(r, line.no);
    }

    /// Queues a puzzle (or a bad one) read from a block or a line, under the variant
    /// marker before it if any: Sudoku X at once, a jigsaw once its region grid is read.
    /// `last`: the puzzle's last line.
    fn found(&mut self, r: Result<Puzzle, InputError>, last: usize) {
        match (self.variant.take(), r) {
            (Some(Variant::Marked(Marker::X, line)), Ok(mut p)) => {
                p.grid.shape = p.grid.shape.x();
                p.line = line;
                self.pending.push_back(Ok(p));
            }
            (Some(Variant::Marked(Marker::Jigsaw, line)), Ok(mut p)) => {
                p.line = line;
                self.variant = Some(Variant::Regions(p, last, Vec::new()));
            }
            (Some(Variant::Marked(marker, line)), Err(mut e)) => {
                let marker = marker.name();
                e.message.push_str(&format!(
                    " (the puzzle of the '{marker}' marker at line {line})"
                ));
                self.pending.push_back(Err(e));
            }
            (_, r) => self.pending.push_back(r),
        }
    }

    /// Ends a variant that is still waiting (for its puzzle or its region grid) with
    /// an error; `then` says what came instead.
    fn end_variant(&mut self, then: &str) {
        let e = match self.variant.take() {
            None => return,
            Some(Variant::Marked(marker, line)) => self.error(
                line,
                1,
                format!(
                    "the variant marker '{}' is not followed by a puzzle: then {then}",
                    marker.name()
                ),
            ),
            Some(Variant::Regions(p, last, rows)) => {
                let shape = p.grid.shape;
                match (rows.first(), rows.last()) {
                    (Some(&(first, _)), Some(&(row, _))) => self.error(
                        first,
                        1,
                        format!(
                            "incomplete region grid: {} of {} rows ({}) for the jigsaw puzzle at {}, then {then}",
                            rows.len(),
                            shape.size(),
                            line_range(first, row),
                            line_range(p.line, last)
                        ),
                    ),
                    _ => self.error(
                        p.line,
                        1,
                        format!(
                            "the jigsaw puzzle at {} has no region grid ({} lines of {} letters, or one line of {}), then {then}",
                            line_range(p.line, last),
                            shape.size(),
                            shape.size(),
                            shape.cells()
                        ),
                    ),
                }
            }
        };
        self.pending.push_back(e);
    }

    /// Reads a line of a jigsaw's region grid when one is awaited. Returns the line
    /// when it is not one (no grid awaited, or the grid ends before it: an error is
    /// queued), to be read as usual.
    fn region_line(&mut self, line: Line) -> Option<Line> {
        if !matches!(self.variant, Some(Variant::Regions(..))) {
            return Some(line);
        }
        let Some(Variant::Regions(p, last, mut rows)) = self.variant.take() else {
            return Some(line);
        };
        let shape = p.grid.shape;
        if line.is_blank() && rows.is_empty() {
            self.variant = Some(Variant::Regions(p, last, rows));
            return None;
        }
        let letters = line.text.chars().any(|c| c.is_ascii_alphabetic());
        if line.is_blank() || !letters || Marker::of(&line).is_some() {
            self.variant = Some(Variant::Regions(p, last, rows));
            let then = if line.is_blank() {
                "a blank line".to_string()
            } else {
                format!("line {}", line.no)
            };
            self.end_variant(&then);
            return Some(line);
        }
        let whole = line.chars == shape.cells() && rows.is_empty();
        if !whole && line.chars != shape.size() {
            // Which puzzle (and which rows read so far) the error is about.
            let whose = match (rows.first(), rows.last()) {
                (Some(&(a, _)), Some(&(b, _))) => format!(
                    "the jigsaw puzzle at {}, after its region rows at {}",
                    line_range(p.line, last),
                    line_range(a, b)
                ),
                _ => format!("the jigsaw puzzle at {}", line_range(p.line, last)),
            };
            let msg = format!(
                "region grid row has {} characters; a {shape} jigsaw's region grid has {} rows of {} letters, or one line of {} ({whose})",
                line.chars,
                shape.size(),
                shape.size(),
                shape.cells()
            );
            let e = self.error(line.no, 1, msg);
            self.pending.push_back(e);
            return None;
        }
        rows.push((line.no, line.text));
        if whole || rows.len() == shape.size() {
            let first = p.line;
            let r = regions(p, &rows).map_err(|(line, col, message)| InputError {
                source: self.source.clone(),
                line,
                col,
                message: format!(
                    "{message}, for the jigsaw puzzle at {}",
                    line_range(first, last)
                ),
            });
            self.pending.push_back(r);
        } else {
            self.variant = Some(Variant::Regions(p, last, rows));
        }
        None
    }
}

/// A variant marker: a line holding only `X` (Sudoku X) or `jigsaw`, in any case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    X,
    Jigsaw,
}

impl Marker {
    fn of(line: &Line) -> Option<Marker> {
        let t = line.text.trim();
        if t.eq_ignore_ascii_case("x") {
            Some(Marker::X)
        } else if t.eq_ignore_ascii_case("jigsaw") {
            Some(Marker::Jigsaw)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Marker::X => "X",
            Marker::Jigsaw => "jigsaw",
        }
    }
}

/// A variant the reader is in the middle of.
enum Variant {
    /// A marker read at this line: the next puzzle is of its variant.
    Marked(Marker, usize),
    /// A jigsaw's puzzle (from its marker line), read up to its last line, and the
    /// rows of its region grid so far (line, text).
    Regions(Puzzle, usize, Vec<(usize, String)>),
}

/// The jigsaw of puzzle `p` with the region grid `rows` (`(line, text)`, each a row,
/// or one line for the whole grid): letters, the same one for the cells of a region.
/// On error: line, column and message.
fn regions(mut p: Puzzle, rows: &[(usize, String)]) -> Result<Puzzle, (usize, usize, String)> {
    let first = rows.first().map_or(p.line, |r| r.0);
    let last = rows.last().map_or(p.line, |r| r.0);
    // Every error names the whole region grid: its lines are consumed with it.
    let grid = line_range(first, last);
    let mut labels = Vec::with_capacity(p.grid.shape.cells());
    let mut at = Vec::with_capacity(p.grid.shape.cells());
    for (line, text) in rows {
        for (i, ch) in text.chars().enumerate() {
            if !ch.is_ascii_alphabetic() {
                return Err((
                    *line,
                    i + 1,
                    format!(
                        "'{}' is not a region letter: a region grid has one letter per cell, the same letter for the cells of one region (region grid of {grid})",
                        ch.escape_debug()
                    ),
                ));
            }
            labels.push(ch);
            at.push((*line, i + 1));
        }
    }
    match p.grid.shape.jigsaw(&labels) {
        Ok(shape) => {
            p.grid.shape = shape;
            Ok(p)
        }
        Err((cell, msg)) => {
            let (line, col) = at.get(cell).copied().unwrap_or((first, 1));
            Err((line, col, format!("{msg} (region grid of {grid})")))
        }
    }
}

/// Appends one Drools row: `1`-`9` are givens, anything else (and any missing
/// characters up to 9) is empty; characters past the 9th are ignored. Returns the
/// first letter among the 9, with its 1-based column.
fn block_row(values: &mut Vec<u8>, text: &str) -> Option<(usize, char)> {
    let mut k = 0;
    let mut letter = None;
    for ch in text.chars().take(BLOCK) {
        k += 1;
        values.push(match ch {
            '1'..='9' => ch as u8 - b'0',
            _ => {
                if ch.is_alphabetic() && letter.is_none() {
                    letter = Some((k, ch));
                }
                0
            }
        });
    }
    values.resize(values.len() + (BLOCK - k), 0);
    letter
}

impl<R: BufRead> Iterator for PuzzleReader<R> {
    type Item = Result<Puzzle, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.pending.pop_front() {
                return Some(r);
            }
            if self.done {
                return None;
            }
            self.step();
        }
    }
}

/// Reads every puzzle of `text`, naming `source` in positions.
pub fn parse_text(source: &str, text: &str) -> Vec<Result<Puzzle, InputError>> {
    PuzzleReader::new(source, text.as_bytes()).collect()
}

/// Whether a command-line argument is itself puzzle text rather than a name: it holds
/// a line break, or it is one line of a one-line puzzle's length.
fn is_puzzle_text(arg: &str) -> bool {
    arg.contains('\n') || Shape::from_len(arg.trim().chars().count()).is_some()
}

/// How a command-line PUZZLE argument is resolved, in this order:
/// 1. a built-in sample name (see [`samples::SAMPLES`]): the sample, its source named
///    after it;
/// 2. `-`: standard input, source `<stdin>`;
/// 3. text holding a line break, or one line of 16, 81, 256 or 625 characters that is
///    not the name of an existing file: the puzzle(s) themselves, source `<argument>`;
/// 4. otherwise a file path, source the path as given. A file that cannot be read, a
///    directory or anything but a regular file (a device or pipe may never end) is an
///    `Err`: `cannot read 'x': <why>`.
pub fn parse_puzzle_arg(arg: &str) -> Result<Vec<Result<Puzzle, InputError>>, String> {
    if let Some(text) = samples::sample(arg) {
        return Ok(parse_text(arg, text));
    }
    if arg == "-" {
        let stdin = io::stdin();
        return Ok(PuzzleReader::new("<stdin>", stdin.lock()).collect());
    }
    if is_puzzle_text(arg) && !std::path::Path::new(arg).exists() {
        return Ok(parse_text("<argument>", arg.trim()));
    }
    // A device or a pipe may never end (`/dev/zero` is one endless line): files only.
    let meta = std::fs::metadata(arg).map_err(|e| format!("cannot read '{arg}': {e}"))?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "is a directory"
        } else {
            "not a regular file"
        };
        return Err(format!("cannot read '{arg}': {what}"));
    }
    let file = std::fs::File::open(arg).map_err(|e| format!("cannot read '{arg}': {e}"))?;
    Ok(PuzzleReader::new(arg, io::BufReader::new(file)).collect())
}

/// Like [`parse_puzzle_arg`], but streams: for large files, puzzles are read as the
/// iterator is consumed. A file is opened here (an error is `cannot read 'x': ...`);
/// later read errors come out of the iterator as [`InputError`]s.
pub fn open_puzzle_arg(arg: &str) -> Result<PuzzleReader<Box<dyn BufRead>>, String> {
    let (source, reader): (&str, Box<dyn BufRead>) = if let Some(text) = samples::sample(arg) {
        (arg, Box::new(text.as_bytes()))
    } else if arg == "-" {
        ("<stdin>", Box::new(io::BufReader::new(io::stdin())))
    } else if is_puzzle_text(arg) && !std::path::Path::new(arg).exists() {
        (
            "<argument>",
            Box::new(io::Cursor::new(arg.trim().to_string())),
        )
    } else {
        let cannot = |e: io::Error| format!("cannot read '{arg}': {e}");
        let file = std::fs::File::open(arg).map_err(cannot)?;
        if file.metadata().map_err(cannot)?.is_dir() {
            return Err(cannot(io::Error::from(io::ErrorKind::IsADirectory)));
        }
        (arg, Box::new(io::BufReader::new(file)))
    };
    Ok(PuzzleReader::new(source, reader))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::grid::{check_solution, Layout};

    fn errors(rs: &[Result<Puzzle, InputError>]) -> Vec<String> {
        rs.iter()
            .filter_map(|r| r.as_ref().err().map(|e| e.to_string()))
            .collect()
    }

    fn lines(rs: &[Result<Puzzle, InputError>]) -> Vec<String> {
        rs.iter()
            .filter_map(|r| r.as_ref().ok().map(|p| p.grid.to_line()))
            .collect()
    }

    const SIMPLE_LINE: &str =
        ".568.194.9..6.5..37..493..8897.4.635..39.68..465.8.2915..269..76..5.4..9.497.835.";

    #[test]
    fn one_per_line_and_comments() {
        let text = format!(
            "# header\n\n{SIMPLE_LINE}\r\n  # indented comment\n{}\t \n",
            "1.3.0..........."
        );
        let rs = parse_text("p.txt", &text);
        assert_eq!(errors(&rs), Vec::<String>::new());
        assert_eq!(lines(&rs), [SIMPLE_LINE, "1.3............."]);
        let p = rs[0].as_ref().unwrap();
        assert_eq!(
            (p.source.as_str(), p.line, p.grid.given_count()),
            ("p.txt", 3, 48)
        );
        assert_eq!(rs[1].as_ref().unwrap().line, 5);
    }

    #[test]
    fn eighty_one_strict() {
        let line = SIMPLE_LINE.replace('.', "0");
        assert_eq!(lines(&parse_text("p.txt", &line)), [SIMPLE_LINE]);
        let line = line.replacen('0', "*", 3);
        assert_eq!(
            errors(&parse_text("p.txt", &line)),
            ["p.txt:1:1: '*' is not a digit of a 9x9 puzzle"]
        );
        // 81 characters of English are not an empty grid.
        let prose =
            "It was the best of times, it was the worst of times, it was the age of wisdom, it";
        assert_eq!(prose.len(), 81);
        assert_eq!(
            errors(&parse_text("e.txt", prose)),
            ["e.txt:1:1: 'I' is not a digit of a 9x9 puzzle"]
        );
    }

    #[test]
    fn drools_file() {
        // Drools' File > Open: characters past the 9th are ignored (line 7).
        let text = "# Drools style\n.568.194.\n9..6.5..3\n7..493..8\n897.4.635\n..39.68..\n\
                    465.8.2915\n5..269..7\n6..5.4..9\n.497.835.\n\n\n";
        let rs = parse_text("b.txt", text);
        assert_eq!(errors(&rs), Vec::<String>::new());
        assert_eq!(lines(&rs), [SIMPLE_LINE]);
        assert_eq!(rs[0].as_ref().unwrap().line, 2);
        // Blank or all-space rows are empty rows; a short file is padded; any mark but
        // a letter is empty.
        let rs = parse_text("d.txt", "-5\n   \n\n\t\t\t\t\t\t\t\t7\n# skip\n1\n");
        let g = &rs[0].as_ref().unwrap().grid;
        assert_eq!(rs.len(), 1);
        assert_eq!(g.values[1], 5);
        assert_eq!(g.values[35], 7);
        assert_eq!(g.values[36], 1);
        assert_eq!(g.given_count(), 3);
        let rs = parse_text("f", "12345\n");
        assert_eq!(lines(&rs), [format!("12345{}", ".".repeat(76))]);
        // Nine lines of text are not an empty grid.
        let rs = parse_text("t.txt", &"abc\n".repeat(9));
        assert_eq!(
            errors(&rs),
            ["t.txt:1:1: 'a' is not a cell of a 9-line puzzle: a row holds 1-9 for givens and any other mark but a letter for empty cells (file of lines 1-9)"]
        );
        let rs = parse_text("t.txt", "1........\n..x......\n");
        assert_eq!(errors(&rs).len(), 1);
        assert!(errors(&rs)[0].starts_with("t.txt:2:3: 'x' is not a cell"));
        // A single long line is not a Drools file.
        let rs = parse_text("l", &"1".repeat(80));
        assert_eq!(errors(&rs), ["l:1:1: puzzle line has 80 characters; expected 16, 81, 256 or 625 (one puzzle per line) or a 9-line block"]);
    }

    #[test]
    fn blocks_account_for_every_line() {
        let eighty = &SIMPLE_LINE[..80];
        // Five lines in, five results out: the short line's block is cut by the long
        // line after it, and each long line is reported on its own.
        let text = format!("{SIMPLE_LINE}\n12345\n{eighty}\n{eighty}\n{eighty}\n");
        let rs = parse_text("f", &text);
        let long = "puzzle line has 80 characters; expected 16, 81, 256 or 625 (one puzzle per line) or a 9-line block";
        assert_eq!(
            errors(&rs),
            [
                "f:2:1: incomplete puzzle block: 1 of 9 rows (line 2), then line 3 of 80 characters".to_string(),
                format!("f:3:1: {long}"),
                format!("f:4:1: {long}"),
                format!("f:5:1: {long}"),
            ]
        );
        assert_eq!(rs.len(), 5);
        // A block in a longer input, comments inside; a blank line cuts the next one.
        let block = ".568.194.\n9..6.5..3\n# note\n7..493..8\n897.4.635\n..39.68..\n\
                     465.8.291\n5..269..7\n6..5.4..9\n.497.835.\n";
        let text = format!("{SIMPLE_LINE}\n{block}..3\nx5\n\n{SIMPLE_LINE}\n");
        let rs = parse_text("m.txt", &text);
        assert_eq!(
            errors(&rs),
            ["m.txt:12:1: incomplete puzzle block: 2 of 9 rows (lines 12-13), then a blank line"]
        );
        assert_eq!(lines(&rs), [SIMPLE_LINE; 3]);
        assert_eq!(rs[1].as_ref().unwrap().line, 2);
        // The end of the input cuts a block; a letter fails a whole block, once.
        let text = format!("{SIMPLE_LINE}\n{}1\n2\n", "a........\n".repeat(9));
        let rs = parse_text("e.txt", &text);
        assert_eq!(
            errors(&rs),
            [
                "e.txt:2:1: 'a' is not a cell of a 9-line puzzle: a row holds 1-9 for givens and any other mark but a letter for empty cells (block of lines 2-10)",
                "e.txt:11:1: incomplete puzzle block: 2 of 9 rows (lines 11-12), then the end of the input",
            ]
        );
        // A one-line puzzle after a stray title line is still read.
        let rs = parse_text("f", &format!("Puzzle 1\n{SIMPLE_LINE}\n"));
        assert_eq!(
            errors(&rs),
            ["f:1:1: incomplete puzzle block: 1 of 9 rows (line 1), then line 2 of 81 characters"]
        );
        assert_eq!(lines(&rs), [SIMPLE_LINE]);
    }

    #[test]
    fn exact_errors() {
        let eighty = &SIMPLE_LINE[..80];
        let text = format!(
            "# two puzzles\n{SIMPLE_LINE}\n{eighty}\n{}\n",
            "G..8.F7C..6.Z1..".repeat(16)
        );
        let rs = parse_text("puzzles.txt", &text);
        assert_eq!(
            errors(&rs),
            [
                "puzzles.txt:3:1: puzzle line has 80 characters; expected 16, 81, 256 or 625 (one puzzle per line) or a 9-line block",
                "puzzles.txt:4:13: 'Z' is not a digit of a 16x16 puzzle",
            ]
        );
        let rs = parse_text("f", "1234\t1234\t567\n");
        assert_eq!(errors(&rs)[0], "f:1:1: puzzle line has 13 characters; expected 16, 81, 256 or 625 (one puzzle per line) or a 9-line block");
        let rs = parse_text("f", "1..5............\n");
        assert_eq!(errors(&rs), ["f:1:4: '5' is not a digit of a 4x4 puzzle"]);
        let rs = parse_text("f", "\n\n.\n.\n.\n.\n.\n.\n.\n.\n1.2.3.4.5.6.7.8.9.\n");
        assert_eq!(
            errors(&rs),
            [
                "f:3:1: incomplete puzzle block: 8 of 9 rows (lines 3-10), then line 11 of 18 characters",
                "f:11:1: puzzle line has 18 characters; expected 16, 81, 256 or 625 (one puzzle per line) or a 9-line block",
            ]
        );
    }

    #[test]
    fn long_lines_bounded() {
        let long = "7".repeat(3 * MAX_LINE_BYTES) + "   ";
        let text = format!("{long}\n{SIMPLE_LINE}");
        let rs = parse_text("l", &text);
        let msg = format!(
            "l:1:1: puzzle line has {} characters; expected 16, 81, 256 or 625 (one puzzle per line) or a 9-line block",
            3 * MAX_LINE_BYTES
        );
        assert_eq!(errors(&rs), [msg]);
        assert_eq!(lines(&rs), [SIMPLE_LINE]);
        // 625 characters of 4 bytes each still fit: measured as 625, not cut short.
        let wide = "\u{1F600}".repeat(625);
        let rs = parse_text("w", &wide);
        assert_eq!(
            errors(&rs),
            ["w:1:1: '\u{1F600}' is not a digit of a 25x25 puzzle"]
        );
        // A valid line followed by a lot of trailing spaces.
        let padded = format!("{SIMPLE_LINE}{}\n", " ".repeat(2 * MAX_LINE_BYTES));
        assert_eq!(lines(&parse_text("p", &padded)), [SIMPLE_LINE]);
    }

    #[test]
    fn bom_and_lossy_utf8() {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(SIMPLE_LINE.as_bytes());
        bytes.extend_from_slice(b"\n\xFF\xFE..\n");
        let rs: Vec<_> = PuzzleReader::new("u", &bytes[..]).collect();
        assert_eq!(lines(&rs), [SIMPLE_LINE]);
        assert_eq!(
            errors(&rs),
            ["u:2:1: incomplete puzzle block: 1 of 9 rows (line 2), then the end of the input"]
        );
    }

    struct Failing(usize);
    impl io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Err(io::Error::other("disk on fire"));
            }
            let line = format!("{SIMPLE_LINE}\n");
            let n = line.len().min(buf.len());
            buf[..n].copy_from_slice(&line.as_bytes()[..n]);
            self.0 -= 1;
            Ok(n)
        }
    }

    #[test]
    fn io_error_ends_stream() {
        let r = io::BufReader::new(Failing(2));
        let rs: Vec<_> = PuzzleReader::new("d", r).collect();
        assert_eq!(lines(&rs).len(), 2);
        assert_eq!(errors(&rs), ["d:3:1: cannot read: disk on fire"]);
    }

    #[test]
    fn random_bytes_never_panic() {
        // A small xorshift generator: deterministic, no dependencies.
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet = b"123456789.0AGgPz#\n\n\n\r \t\xC3\xA9\xFF[],rc";
        for round in 0..3000 {
            let len = (next() % 700) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    let x = next();
                    if round % 3 == 0 {
                        x as u8
                    } else {
                        alphabet[(x % alphabet.len() as u64) as usize]
                    }
                })
                .collect();
            for r in PuzzleReader::new("r", &bytes[..]) {
                match r {
                    Ok(p) => {
                        assert_eq!(p.grid.values.len(), p.grid.shape.cells());
                        assert!(p.line >= 1);
                    }
                    Err(e) => assert!(e.line >= 1 && e.col >= 1),
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            let _ = parse_text("r", &text);
            let _ = Grid::parse_line(&text);
            let shape = Shape::ALL[round % 4];
            let _ = crate::sudoku::grid::parse_cell(&text, shape);
        }
        // Lines of exactly the one-line lengths, random content.
        for round in 0..2000 {
            let shape = Shape::ALL[round % 4];
            let line: String = (0..shape.cells())
                .map(|_| char::from(alphabet[(next() % 16) as usize]))
                .filter(|c| *c != '\n' && *c != '#')
                .collect();
            let _ = parse_text("r", &line);
        }
    }

    /// A jigsaw's region rows (9 letters each).
    const REGION_ROWS: [&str; 9] = [
        "AABBBBCCC",
        "AABBBBBCD",
        "EAAAACCCD",
        "EEAFFCFCD",
        "EEEFFFFDD",
        "GEEFHFIDD",
        "GGEHHHIID",
        "GGGGHIIID",
        "GGHHHHIII",
    ];

    fn layouts(rs: &[Result<Puzzle, InputError>]) -> Vec<String> {
        rs.iter()
            .filter_map(|r| r.as_ref().ok())
            .map(|p| format!("{}@{}", p.grid.shape.layout(), p.line))
            .collect()
    }

    #[test]
    fn variant_markers() {
        let block = SIMPLE_LINE
            .as_bytes()
            .chunks(9)
            .map(|r| format!("{}\n", std::str::from_utf8(r).unwrap()))
            .collect::<String>();
        let regions = REGION_ROWS.join("\n");
        let text = format!(
            "X\n{SIMPLE_LINE}\n{SIMPLE_LINE}\n# a block\nx\n\n{block}jigsaw\n{SIMPLE_LINE}\n\n{regions}\nJigsaw\n{block}{}\n",
            REGION_ROWS.concat()
        );
        let rs = parse_text("v.txt", &text);
        assert_eq!(errors(&rs), Vec::<String>::new());
        assert_eq!(lines(&rs), [SIMPLE_LINE; 5]);
        // A marker applies to the one puzzle after it; the puzzle starts at its marker.
        assert_eq!(
            layouts(&rs),
            [
                "Sudoku X@1",
                "classic@3",
                "Sudoku X@5",
                "jigsaw@16",
                "jigsaw@28"
            ]
        );
        let Layout::Jigsaw(r) = rs[3].as_ref().unwrap().grid.shape.layout() else {
            panic!("not a jigsaw")
        };
        assert_eq!(r.letters(), REGION_ROWS.concat());
        assert_eq!(
            rs[3].as_ref().unwrap().grid.shape,
            rs[4].as_ref().unwrap().grid.shape
        );
        // Any letters: lower case and other letters give the same regions.
        let other = REGION_ROWS.concat().replace('A', "q").replace('B', "z");
        let rs2 = parse_text("v", &format!("jigsaw\n{SIMPLE_LINE}\n{other}\n"));
        assert_eq!(
            rs2[0].as_ref().unwrap().grid.shape,
            rs[3].as_ref().unwrap().grid.shape
        );
        // 4x4: X and jigsaw on one-line grids of any size.
        let rs = parse_text(
            "f",
            "x\n1...............\njigsaw\n1...............\nAABB\nACBB\nACCD\nCDDD\n",
        );
        assert_eq!(errors(&rs), Vec::<String>::new());
        assert_eq!(layouts(&rs), ["Sudoku X@1", "jigsaw@3"]);
        assert_eq!(rs[1].as_ref().unwrap().grid.shape.size(), 4);
        // A marker first is not a Drools file: its puzzle is a 9-line block or a line.
        let rs = parse_text("d", "X\n.568.194.\n");
        assert_eq!(
            errors(&rs),
            ["d:2:1: incomplete puzzle block: 1 of 9 rows (line 2), then the end of the input (the puzzle of the 'X' marker at line 1)"]
        );
    }

    #[test]
    fn bad_variants_located() {
        let rows = |k: usize| REGION_ROWS[..k].join("\n");
        let cases: Vec<(String, Vec<&str>)> = vec![
            // No region grid: the end of the input, a puzzle line or a marker instead.
            (
                format!("jigsaw\n{SIMPLE_LINE}\n"),
                vec!["b:1:1: the jigsaw puzzle at lines 1-2 has no region grid (9 lines of 9 letters, or one line of 81), then the end of the input"],
            ),
            (
                format!("jigsaw\n{SIMPLE_LINE}\n{SIMPLE_LINE}\n"),
                vec!["b:1:1: the jigsaw puzzle at lines 1-2 has no region grid (9 lines of 9 letters, or one line of 81), then line 3"],
            ),
            (
                format!("jigsaw\n{SIMPLE_LINE}\n{}\n\n{SIMPLE_LINE}\n", rows(4)),
                vec!["b:3:1: incomplete region grid: 4 of 9 rows (lines 3-6) for the jigsaw puzzle at lines 1-2, then a blank line"],
            ),
            // Rows of the wrong size.
            (
                format!("jigsaw\n{SIMPLE_LINE}\n{}\nAABBBBCCCC\n", rows(3)),
                vec!["b:6:1: region grid row has 10 characters; a 9x9 jigsaw's region grid has 9 rows of 9 letters, or one line of 81 (the jigsaw puzzle at lines 1-2, after its region rows at lines 3-5)"],
            ),
            (
                format!("jigsaw\n{SIMPLE_LINE}\n{}\n", &REGION_ROWS.concat()[..80]),
                vec!["b:3:1: region grid row has 80 characters; a 9x9 jigsaw's region grid has 9 rows of 9 letters, or one line of 81 (the jigsaw puzzle at lines 1-2)"],
            ),
            // A region of the wrong size: its first cell is named.
            (
                format!("jigsaw\n{SIMPLE_LINE}\n{}\nGGHHHHIIZ\n", rows(8)),
                vec!["b:8:7: region 'I' has 8 cells; a region of a 9x9 jigsaw has 9 (region grid of lines 3-11), for the jigsaw puzzle at lines 1-2"],
            ),
            (
                format!("jigsaw\n{SIMPLE_LINE}\n{}\nGGHHHH.II\n", rows(8)),
                vec!["b:11:7: '.' is not a region letter: a region grid has one letter per cell, the same letter for the cells of one region (region grid of lines 3-11), for the jigsaw puzzle at lines 1-2"],
            ),
            // ... and in a middle row, so the rows after it are named too (found by
            // the puzzle fuzz target).
            (
                format!("jigsaw\n{SIMPLE_LINE}\n{}\nE;AFFCFCD\n{}\n", rows(3), REGION_ROWS[4..].join("\n")),
                vec!["b:6:2: ';' is not a region letter: a region grid has one letter per cell, the same letter for the cells of one region (region grid of lines 3-11), for the jigsaw puzzle at lines 1-2"],
            ),
            // Markers without a puzzle.
            (
                format!("X\nx\n{SIMPLE_LINE}\nX\n"),
                vec![
                    "b:1:1: the variant marker 'X' is not followed by a puzzle: then another marker at line 2",
                    "b:4:1: the variant marker 'X' is not followed by a puzzle: then the end of the input",
                ],
            ),
            // A marker cuts a block short; the marker's puzzle that fails takes its error.
            (
                format!("{SIMPLE_LINE}\n123\nX\n{}\n", &SIMPLE_LINE[..80]),
                vec![
                    "b:2:1: incomplete puzzle block: 1 of 9 rows (line 2), then the variant marker at line 3",
                    "b:4:1: puzzle line has 80 characters; expected 16, 81, 256 or 625 (one puzzle per line) or a 9-line block (the puzzle of the 'X' marker at line 3)",
                ],
            ),
        ];
        for (text, want) in cases {
            let rs = parse_text("b", &text);
            assert_eq!(errors(&rs), want, "{text}");
        }
        // After a bad region grid, reading goes on.
        let text = format!("jigsaw\n{SIMPLE_LINE}\n{}\n{SIMPLE_LINE}\n", rows(2));
        let rs = parse_text("b", &text);
        assert_eq!(errors(&rs).len(), 1);
        assert_eq!(layouts(&rs), ["classic@5"]);
    }

    #[test]
    fn random_variant_lines_never_panic() {
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let regions = REGION_ROWS.concat();
        let pieces: Vec<String> = vec![
            "X".into(),
            "jigsaw".into(),
            "".into(),
            "# c".into(),
            SIMPLE_LINE.into(),
            regions.clone(),
            regions[..80].into(),
            "1234".into(),
            "AABB".into(),
            "1...............".into(),
            ".568.194.".into(),
        ]
        .into_iter()
        .chain(REGION_ROWS.iter().map(|r| r.to_string()))
        .collect();
        for _ in 0..3000 {
            let n = (next() % 30) as usize;
            let text: Vec<&str> = (0..n)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize].as_str())
                .collect();
            let text = text.join("\n");
            let lines = text.lines().count().max(1);
            for r in parse_text("r", &text) {
                match r {
                    Ok(p) => {
                        assert_eq!(p.grid.values.len(), p.grid.shape.cells());
                        assert!(p.line >= 1 && p.line <= lines);
                    }
                    Err(e) => assert!(e.line >= 1 && e.line <= lines + 1 && e.col >= 1, "{e}"),
                }
            }
        }
    }

    #[test]
    fn samples_parse_with_their_givens() {
        let expected = [
            ("simple", 48),
            ("medium", 33),
            ("hard1", 26),
            ("hard2", 26),
            ("hard3", 26),
            ("hard4", 26),
            ("broken", 28),
            ("sdo", 36),
            ("javadoc", 31),
            ("6948", 26),
        ];
        for (name, givens) in expected {
            let rs = parse_puzzle_arg(name).unwrap();
            assert_eq!(rs.len(), 1, "{name}");
            let p = rs[0].as_ref().unwrap();
            assert_eq!(
                (p.grid.shape, p.grid.given_count()),
                (Shape::NINE, givens),
                "{name}"
            );
            assert_eq!((p.source.as_str(), p.line), (name, 1));
        }
    }

    #[test]
    fn readme_solutions_check() {
        let solved = [
            (
                "simple",
                "356871942984625713712493568897142635123956874465387291531269487678534129249718356",
            ),
            (
                "medium",
                "847193256593682714216475938764328591351946872928517643489251367675834129132769485",
            ),
            (
                "hard1",
                "264351987987246135153978264321867549675429813849135672712583496538694721496712358",
            ),
            (
                "hard2",
                "329674158148325796567891234486917523931582467752436819674253981815769342293148675",
            ),
            (
                "hard3",
                "784126395215973486369548217957684132842351769631297548593462871476815923128739654",
            ),
            (
                "hard4",
                "381274695679538214254619837523897461816453972497126583148365729962741358735982146",
            ),
            (
                "sdo",
                "893465712752981643416732598375629481189574236264813975548396127631247859927158364",
            ),
            (
                "javadoc",
                "746281395852493671931675248175362984384759162629814537567138429493527816218946753",
            ),
        ];
        for (name, solution) in solved {
            let p = parse_puzzle_arg(name).unwrap().remove(0).unwrap();
            let sol: Grid = solution.parse().unwrap();
            assert_eq!(check_solution(&p.grid, &sol), Ok(()), "{name}");
            // Corrupt it: swap two different values in the last row.
            let mut bad = sol.clone();
            let (a, b) = (
                72,
                (73..81).find(|&c| sol.values[c] != sol.values[72]).unwrap(),
            );
            bad.values.swap(a, b);
            assert!(check_solution(&p.grid, &bad).is_err(), "{name}");
            let mut bad = sol.clone();
            bad.values[40] = bad.values[40] % 9 + 1;
            assert!(check_solution(&p.grid, &bad).is_err(), "{name}");
        }
        let broken = parse_puzzle_arg("broken").unwrap().remove(0).unwrap();
        let d = crate::sudoku::grid::duplicates(&broken.grid);
        assert_eq!(d.len(), 2);
    }

    #[test]
    fn args() {
        let rs = parse_puzzle_arg(SIMPLE_LINE).unwrap();
        assert_eq!(lines(&rs), [SIMPLE_LINE]);
        assert_eq!(rs[0].as_ref().unwrap().source, "<argument>");
        let rs = parse_puzzle_arg(&format!("{SIMPLE_LINE}\n{SIMPLE_LINE}")).unwrap();
        assert_eq!(rs.len(), 2);
        let e = parse_puzzle_arg("/nonexistent/x.txt").unwrap_err();
        assert!(e.starts_with("cannot read '/nonexistent/x.txt': "), "{e}");
        assert!(parse_puzzle_arg("/")
            .unwrap_err()
            .starts_with("cannot read '/': "));
        assert!(open_puzzle_arg("/").is_err());
        assert_eq!(
            parse_puzzle_arg("/dev/zero").unwrap_err(),
            "cannot read '/dev/zero': not a regular file"
        );
        assert!(open_puzzle_arg("/nonexistent/x.txt").is_err());
        let n = open_puzzle_arg("hard2").unwrap().count();
        assert_eq!(n, 1);
        let n = open_puzzle_arg(SIMPLE_LINE).unwrap().count();
        assert_eq!(n, 1);
    }

    #[test]
    fn input_files() {
        // Paths relative to the crate root, where `cargo test` runs.
        let expect = [
            ("inputs/euler96.txt", 50, Shape::NINE),
            ("inputs/4x4.txt", 4, Shape::FOUR),
            ("inputs/16x16.txt", 3, Shape::SIXTEEN),
            ("tests/data/17_clue_300.txt", 300, Shape::NINE),
            ("tests/data/kaggle_300.txt", 300, Shape::NINE),
            ("tests/data/top95.txt", 95, Shape::NINE),
            ("tests/data/magictour_top1465.txt", 1465, Shape::NINE),
            ("tests/data/multisol_200.txt", 200, Shape::NINE),
            ("tests/data/euler96.txt", 50, Shape::NINE),
        ];
        let root = env!("CARGO_MANIFEST_DIR");
        for (path, count, shape) in expect {
            let rs = parse_puzzle_arg(&format!("{root}/{path}")).unwrap();
            assert_eq!(errors(&rs), Vec::<String>::new(), "{path}");
            assert_eq!(rs.len(), count, "{path}");
            assert!(
                rs.iter().all(|r| r.as_ref().unwrap().grid.shape == shape),
                "{path}"
            );
        }
        let p = parse_puzzle_arg(&format!("{root}/tests/data/17_clue_300.txt")).unwrap();
        assert!(p
            .iter()
            .all(|r| r.as_ref().unwrap().grid.given_count() == 17));
    }

    #[test]
    fn generated_puzzles_carry_their_solutions() {
        // inputs/4x4.txt and inputs/16x16.txt: each puzzle is followed by
        // `# solution: ...`.
        for path in ["inputs/4x4.txt", "inputs/16x16.txt"] {
            let text =
                std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
            let sols: Vec<Grid> = text
                .lines()
                .filter_map(|l| l.strip_prefix("# solution: "))
                .map(|s| s.parse().unwrap())
                .collect();
            let puzzles: Vec<Puzzle> = parse_text(path, &text)
                .into_iter()
                .map(|r| r.unwrap())
                .collect();
            assert_eq!(puzzles.len(), sols.len(), "{path}");
            for (p, s) in puzzles.iter().zip(&sols) {
                assert_eq!(check_solution(&p.grid, s), Ok(()), "{path}:{}", p.line);
            }
        }
    }
}
