//! Source files and diagnostics.
//!
//! Every error the engine reports about user input points at a place in a source file:
//! `file:line:column: error: message`, then the source line and a caret under the
//! offending span. Sources are kept in a [`SourceMap`] so that spans stay small
//! (a file index and byte offsets) and diagnostics can be rendered long after parsing.

use std::fmt;

/// Index of a file in a [`SourceMap`].
pub type FileId = u32;

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }
    /// The smallest span covering both (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// One named source text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }
    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = self.text[start..offset].chars().count() + 1;
        (line + 1, col)
    }
    /// The text of a 1-based line, without its line terminator.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1];
        let end = self
            .line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }
}

/// All the source files of one program (the main file and its includes).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push(SourceFile::new(name, text));
        (self.files.len() - 1) as FileId
    }
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id as usize]
    }
    pub fn text(&self, span: Span) -> &str {
        &self.file(span.file).text[span.start as usize..span.end as usize]
    }
    /// `name:line:column` of the start of a span.
    pub fn location(&self, span: Span) -> String {
        let file = self.file(span.file);
        let (line, col) = file.line_col(span.start as usize);
        format!("{}:{}:{}", file.name, line, col)
    }
}

/// A problem found in user input, tied to a span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Span,
    pub message: String,
    /// Further places that explain the error (e.g. the other rules of a cycle).
    pub notes: Vec<(Span, String)>,
}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            span,
            message: message.into(),
            notes: Vec::new(),
        }
    }
    pub fn with_note(mut self, span: Span, note: impl Into<String>) -> Diagnostic {
        self.notes.push((span, note.into()));
        self
    }
    /// Renders as
    /// ```text
    /// file.dl:3:12: error: message
    ///   3 | h(x) :- a(y).
    ///     |            ^
    /// ```
    /// followed by the notes in the same form (`note:` instead of `error:`).
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = String::new();
        render_one(&mut out, sources, self.span, "error", &self.message);
        for (span, note) in &self.notes {
            render_one(&mut out, sources, *span, "note", note);
        }
        out
    }
}

fn render_one(out: &mut String, sources: &SourceMap, span: Span, kind: &str, message: &str) {
    use std::fmt::Write;
    let file = sources.file(span.file);
    let (line, col) = file.line_col(span.start as usize);
    let _ = writeln!(out, "{}:{}:{}: {}: {}", file.name, line, col, kind, message);
    let text = file.line_text(line);
    let (end_line, end_col) = file.line_col(span.end as usize);
    let width = if end_line == line && end_col > col {
        end_col - col
    } else {
        1
    };
    let gutter = line.to_string();
    let _ = writeln!(out, "{} | {}", gutter, text);
    let pad: String = text
        .chars()
        .take(col - 1)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let _ = writeln!(
        out,
        "{} | {}{}",
        " ".repeat(gutter.len()),
        pad,
        "^".repeat(width)
    );
}

/// A list of diagnostics, rendered against their sources: what the front end returns on failure.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    pub sources: SourceMap,
    pub list: Vec<Diagnostic>,
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.list {
            write!(f, "{}", d.render(&self.sources))?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
