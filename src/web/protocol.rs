//! The messages between the page and the server, as JSON over one WebSocket.
//!
//! In ([`Request`]): one JSON object per text frame, `{"op": "set", "cell": 12,
//! "value": 5}`; cells are 0-based indices, row-major. Out ([`Reply`]): `state` (the
//! whole board, on connect and after a load), `diff` (what one command changed),
//! `hint`, `dump`, `validate`, `busy` and `error` messages.

use serde::{Deserialize, Serialize};

/// A command from the page.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
pub enum Request {
    /// Send the whole board (after a (re)connect).
    Sync,
    /// Put the given `value` in `cell`.
    Set {
        cell: usize,
        value: u8,
    },
    /// Remove the given in `cell`.
    Clear {
        cell: usize,
    },
    /// Load a built-in sample by its command-line name (`hard3`).
    Sample {
        name: String,
    },
    /// Load the first puzzle of a text in any format `solve` reads.
    Open {
        text: String,
    },
    /// Remove every given (undoable).
    Empty,
    Step,
    Hint,
    Solve,
    Dump,
    Validate,
    Undo,
    Redo,
}

impl Request {
    /// What the engine is doing while it runs this request, for the status line.
    pub fn doing(&self) -> &'static str {
        match self {
            Request::Sync => "reading the board",
            Request::Set { .. } | Request::Clear { .. } | Request::Empty => "re-solving the edit",
            Request::Sample { .. } | Request::Open { .. } => "loading",
            Request::Step => "stepping to the next value",
            Request::Hint => "looking for the next deduction",
            Request::Solve => "solving to the fixpoint",
            Request::Dump => "dumping",
            Request::Validate => "validating the givens",
            Request::Undo => "undoing",
            Request::Redo => "redoing",
        }
    }
}

/// One cell as the page draws it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CellView {
    pub c: usize,
    /// The cell holds a given.
    pub given: bool,
    /// The value shown (given or placed by the rules), 0 when open.
    pub value: u8,
    /// Candidates of an open cell (empty when a value is shown).
    pub cands: Vec<u8>,
}

/// One explain log line with the cells it names.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    /// The pattern's cells.
    pub cells: Vec<usize>,
    /// The cell it acts on.
    pub target: Option<usize>,
    /// Withdrawn by the last commit (shown struck through).
    pub withdrawn: bool,
}

/// A contradiction, with the cells it is about.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Contradiction {
    pub text: String,
    pub cells: Vec<usize>,
}

/// Which buttons can act.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Buttons {
    pub solve: bool,
    pub step: bool,
    pub hint: bool,
    pub dump: bool,
    pub validate: bool,
    pub undo: bool,
    pub redo: bool,
    pub clear: bool,
}

/// The status line.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Caption {
    /// Where the reasoning stands, in words.
    pub text: String,
    /// Placed cells shown, and all cells.
    pub filled: usize,
    pub cells: usize,
    /// The engine's time for the last commit, in milliseconds.
    pub commit_ms: Option<f64>,
    /// `solved`, `stalled`, `contradiction` or `invalid` (at the fixpoint).
    pub outcome: &'static str,
    /// Stepping (some reasoning not shown yet).
    pub stepping: bool,
}

/// A message to the page.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Reply {
    /// The whole board.
    State {
        size: usize,
        box_size: usize,
        /// Each cell's box, or its region in a jigsaw: the page draws thick lines
        /// between cells of different ones.
        regions: Vec<usize>,
        /// Sudoku X: the diagonals are groups too (the page tints them).
        diagonals: bool,
        cells: Vec<CellView>,
        log: Vec<Line>,
        contradictions: Vec<Contradiction>,
        buttons: Buttons,
        caption: Caption,
        /// Samples as `(name, menu title)`, Drools' menu first.
        samples: Vec<(String, String)>,
        /// Text the command printed (`sudolog edit`'s words), if any.
        text: String,
    },
    /// What one command changed.
    Diff {
        /// Only the cells that changed.
        cells: Vec<CellView>,
        /// Lines withdrawn by the previous commit that are now dropped.
        dropped: Vec<String>,
        /// Lines this commit withdrew (to strike through).
        withdrawn: Vec<String>,
        /// New lines, to append in order.
        added: Vec<Line>,
        contradictions: Vec<Contradiction>,
        buttons: Buttons,
        caption: Caption,
        text: String,
    },
    /// The next deduction, not applied.
    Hint { line: Option<Line> },
    /// Drools' dump layout.
    Dump { text: String },
    /// The validation rules' lines.
    Validate { lines: Vec<String> },
    /// The server took a request and is working on it.
    Busy { doing: String },
    /// A request failed; the board is unchanged.
    Error { message: String },
}
