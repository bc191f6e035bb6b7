//! Program text -> tokens.
//!
//! The lexer never fails: a lexical problem (an unterminated string or comment, a
//! character that cannot start a token, a bad escape) becomes a [`TokenKind::Error`]
//! token carrying its message, and the parser reports it when it reaches it. This keeps
//! all diagnostics in source order and lets the parser's error recovery skip over bad
//! input uniformly.
//!
//! Tokens follow Soufflé: `.decl`-style directives are single tokens (see
//! [`TokenKind::Directive`] for when a `.` followed by a name is one), as are
//! `#include` and `@label`-style annotation names. Comments (`// ...` and
//! `/* ... */`, not nested) and white space separate tokens and are dropped.

use crate::diag::{FileId, Span};

/// The directives that are always lexed as one token, even in the middle of a line.
const KNOWN_DIRECTIVES: &[&str] = &["decl", "view", "input", "output", "type", "fixpoint"];

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// `[A-Za-z_][A-Za-z0-9_]*`, except a lone `_`.
    Ident(String),
    /// `_`
    Underscore,
    /// A decimal integer literal; saturates at `u64::MAX` (the parser range-checks it).
    Number(u64),
    /// A string literal, unescaped.
    Str(String),
    /// `.name`: a known directive (`.decl`, `.view`, `.input`, `.output`, `.type`,
    /// `.fixpoint`) anywhere, or any `.name` that is the first token of its line. The
    /// name is stored without the dot. Elsewhere `.name` is [`TokenKind::Dot`] followed
    /// by [`TokenKind::Ident`], so that `a(1).b(2).` is two facts.
    Directive(String),
    /// `#name` (only `#include` is meaningful); the name without `#`.
    Hash(String),
    /// `@name`, an annotation; the name without `@`.
    Annot(String),
    LParen,
    RParen,
    LBrace,
    RBrace,
    Comma,
    Dot,
    Colon,
    /// `:-`
    ColonDash,
    /// `!`
    Bang,
    /// `=`
    Eq,
    /// `!=`
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `<:`
    Subtype,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    /// A lexical error, with its message; the span is the offending text.
    Error(String),
    /// End of input. Its span is empty and sits just after the last token.
    Eof,
}

impl TokenKind {
    /// The fixed spelling of a punctuation, directive or annotation token, used in
    /// messages as `'('`. `None` for tokens whose description depends on their text.
    pub(crate) fn spelling(&self) -> Option<String> {
        use TokenKind::*;
        let s = match self {
            Ident(_) | Number(_) | Str(_) | Error(_) | Eof => return None,
            Directive(n) => return Some(format!(".{n}")),
            Hash(n) => return Some(format!("#{n}")),
            Annot(n) => return Some(format!("@{n}")),
            Underscore => "_",
            LParen => "(",
            RParen => ")",
            LBrace => "{",
            RBrace => "}",
            Comma => ",",
            Dot => ".",
            Colon => ":",
            ColonDash => ":-",
            Bang => "!",
            Eq => "=",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Subtype => "<:",
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Percent => "%",
        };
        Some(s.to_string())
    }
}

/// One token and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub span: Span,
    /// Whether this is the first token on its line (only white space and comments
    /// before it on that line). Used to recognise directives and for error recovery.
    pub line_start: bool,
}

impl Token {
    /// How the token is named in `expected X, found <token>` messages: `'('`,
    /// `identifier 'foo'`, `number 12`, `string "x"`, `end of file`. `src` is the text
    /// of the token's file.
    pub(crate) fn describe(&self, src: &str) -> String {
        let text = src
            .get(self.span.start as usize..self.span.end as usize)
            .unwrap_or("");
        match &self.kind {
            TokenKind::Ident(name) => format!("identifier '{name}'"),
            TokenKind::Number(_) => format!("number {text}"),
            TokenKind::Str(_) => format!("string {text}"),
            TokenKind::Eof => "end of file".to_string(),
            TokenKind::Error(msg) => msg.clone(),
            other => format!("'{}'", other.spelling().unwrap_or_default()),
        }
    }
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Splits `text` (the contents of file `file`) into tokens. The result always ends
/// with exactly one [`TokenKind::Eof`]. Never panics.
pub(crate) fn lex(file: FileId, text: &str) -> Vec<Token> {
    let mut lx = Lexer {
        file,
        text,
        bytes: text.as_bytes(),
        i: 0,
        line_start: true,
        toks: Vec::new(),
    };
    while lx.i < lx.bytes.len() {
        if lx.skip_blank() {
            continue;
        }
        let start = lx.i;
        let (kind, end) = lx.token();
        lx.i = end;
        lx.toks.push(Token {
            kind,
            span: Span::new(file, start, lx.i),
            line_start: lx.line_start,
        });
        lx.line_start = false;
    }
    let end = lx.toks.last().map_or(0, |t| t.span.end as usize);
    lx.toks.push(Token {
        kind: TokenKind::Eof,
        span: Span::new(file, end, end),
        line_start: lx.line_start,
    });
    lx.toks
}

/// The lexer's place in one file's text: the offset `i`, whether no token has
/// started its line yet, and the tokens so far.
struct Lexer<'t> {
    file: FileId,
    text: &'t str,
    bytes: &'t [u8],
    i: usize,
    line_start: bool,
    toks: Vec<Token>,
}

impl Lexer<'_> {
    /// The byte at `i` (0 past the end).
    fn at(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(0)
    }

    /// Where the run of identifier characters from `j` ends.
    fn ident_end(&self, mut j: usize) -> usize {
        while j < self.bytes.len() && is_ident_char(self.bytes[j]) {
            j += 1;
        }
        j
    }

    /// Where the run of digits from `j` ends.
    fn digits_end(&self, mut j: usize) -> usize {
        while j < self.bytes.len() && self.bytes[j].is_ascii_digit() {
            j += 1;
        }
        j
    }

    /// Skips one white space character or comment at `i`, if there is one (an
    /// unterminated comment becomes an error token that runs to the end).
    fn skip_blank(&mut self) -> bool {
        let (i, len) = (self.i, self.bytes.len());
        match self.bytes[i] {
            b'\n' => {
                self.line_start = true;
                self.i += 1;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.i += 1,
            b'/' if self.at(i + 1) == b'/' => {
                while self.i < len && self.bytes[self.i] != b'\n' {
                    self.i += 1;
                }
            }
            b'/' if self.at(i + 1) == b'*' => match self.text[i + 2..].find("*/") {
                Some(off) => {
                    let end = i + 2 + off + 2;
                    if self.text[i..end].contains('\n') {
                        self.line_start = false;
                    }
                    self.i = end;
                }
                None => {
                    self.toks.push(Token {
                        kind: TokenKind::Error("unterminated comment".into()),
                        span: Span::new(self.file, i, i + 2),
                        line_start: self.line_start,
                    });
                    self.i = len;
                }
            },
            _ => return false,
        }
        true
    }

    /// The kind of the token that starts at `i`, and the offset just past it.
    fn token(&self) -> (TokenKind, usize) {
        let (i, text) = (self.i, self.text);
        let b = self.bytes[i];
        let next = self.at(i + 1);
        let one = |kind| (kind, i + 1);
        let two = |kind| (kind, i + 2);
        match b {
            b'(' => one(TokenKind::LParen),
            b')' => one(TokenKind::RParen),
            b'{' => one(TokenKind::LBrace),
            b'}' => one(TokenKind::RBrace),
            b',' => one(TokenKind::Comma),
            b'+' => one(TokenKind::Plus),
            b'-' => one(TokenKind::Minus),
            b'*' => one(TokenKind::Star),
            b'/' => one(TokenKind::Slash),
            b'%' => one(TokenKind::Percent),
            b'=' => one(TokenKind::Eq),
            b':' if next == b'-' => two(TokenKind::ColonDash),
            b':' => one(TokenKind::Colon),
            b'!' if next == b'=' => two(TokenKind::Ne),
            b'!' => one(TokenKind::Bang),
            b'<' if next == b'=' => two(TokenKind::Le),
            b'<' if next == b':' => two(TokenKind::Subtype),
            b'<' => one(TokenKind::Lt),
            b'>' if next == b'=' => two(TokenKind::Ge),
            b'>' => one(TokenKind::Gt),
            b'.' if is_ident_start(next) => {
                let end = self.ident_end(i + 1);
                let name = &text[i + 1..end];
                if self.line_start || KNOWN_DIRECTIVES.contains(&name) {
                    (TokenKind::Directive(name.to_string()), end)
                } else {
                    one(TokenKind::Dot)
                }
            }
            b'.' => one(TokenKind::Dot),
            b'#' | b'@' if is_ident_start(next) => {
                let end = self.ident_end(i + 1);
                let name = text[i + 1..end].to_string();
                if b == b'#' {
                    (TokenKind::Hash(name), end)
                } else {
                    (TokenKind::Annot(name), end)
                }
            }
            b'"' => lex_string(text, i),
            b'0'..=b'9' => {
                let end = self.digits_end(i);
                let value = self.bytes[i..end].iter().fold(0u64, |value, d| {
                    value.saturating_mul(10).saturating_add(u64::from(d - b'0'))
                });
                (TokenKind::Number(value), end)
            }
            _ if is_ident_start(b) => {
                let end = self.ident_end(i);
                match &text[i..end] {
                    "_" => (TokenKind::Underscore, end),
                    name => (TokenKind::Ident(name.to_string()), end),
                }
            }
            _ => {
                let c = text[i..].chars().next();
                let end = i + c.map_or(1, char::len_utf8);
                let c = c.unwrap_or('\u{fffd}');
                (TokenKind::Error(format!("unexpected character {c:?}")), end)
            }
        }
    }
}

/// Lexes the string literal starting at `text[start] == '"'`. Returns the token (a
/// [`TokenKind::Str`] or an error) and the offset just past it. An unterminated string
/// extends to the end of its line (strings cannot contain raw newlines).
fn lex_string(text: &str, start: usize) -> (TokenKind, usize) {
    let bytes = text.as_bytes();
    let mut value = String::new();
    let mut bad_escape: Option<String> = None;
    let mut j = start + 1;
    // Start of the run of plain characters not yet copied into `value`.
    let mut run = j;
    loop {
        match bytes.get(j).copied() {
            None | Some(b'\n') => {
                let mut end = j;
                if end > start + 1 && bytes[end - 1] == b'\r' {
                    end -= 1;
                }
                return (TokenKind::Error("unterminated string".into()), end);
            }
            Some(b'"') => {
                value.push_str(&text[run..j]);
                let kind = match bad_escape {
                    Some(esc) => {
                        TokenKind::Error(format!("unknown escape sequence '{esc}' in string"))
                    }
                    None => TokenKind::Str(value),
                };
                return (kind, j + 1);
            }
            Some(b'\\') => {
                value.push_str(&text[run..j]);
                let escaped = match bytes.get(j + 1).copied() {
                    None | Some(b'\n') => {
                        // Let the loop report the unterminated string.
                        j += 1;
                        run = j;
                        continue;
                    }
                    Some(b'"') => '"',
                    Some(b'\\') => '\\',
                    Some(b'n') => '\n',
                    Some(b't') => '\t',
                    Some(_) => {
                        let c = text[j + 1..].chars().next().unwrap_or('\u{fffd}');
                        if bad_escape.is_none() {
                            bad_escape = Some(format!("\\{c}"));
                        }
                        j += 1 + c.len_utf8();
                        run = j;
                        continue;
                    }
                };
                value.push(escaped);
                j += 2;
                run = j;
            }
            Some(_) => j += 1,
        }
    }
}
