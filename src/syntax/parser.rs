//! Tokens -> syntax tree, with `#include` resolution and error recovery.
//!
//! The parser is a hand-written recursive descent parser over the tokens of
//! [`super::lexer`]. Each file is lexed completely, then parsed item by item; an
//! `#include "file"` line loads the file through a [`Loader`], parses it the same way
//! and splices its items in place (inside a `.fixpoint` block too).
//!
//! # Errors
//!
//! Messages follow one pattern where possible: `expected <what>, found <token>`, with
//! the token rendered as `'('`, `identifier 'foo'`, `number 12`, `string "x"` or
//! `end of file`, and the span of the offending token. Lexical errors
//! (`unterminated string`, `unexpected character '$'`, ...) are reported when the
//! parser reaches them.
//!
//! After an error the parser skips to the end of the item: past the next `.`, or up to
//! the next directive (`.decl`, any `.name` starting a line, `#include`), an annotation
//! starting a line, or the `}` closing the enclosing `.fixpoint` block. Only the first
//! error of each item is reported, and parsing stops after [`MAX_ERRORS`] errors.

use std::path::{Component, Path, PathBuf};

use super::ast::*;
use super::lexer::{lex, Token, TokenKind};
use super::SyntaxError;
use crate::diag::{Diagnostic, Diagnostics, FileId, SourceMap, Span};

/// Parsing stops after this many errors.
pub const MAX_ERRORS: usize = 20;

/// How deeply expressions and aggregates may nest before the parser gives up (keeps
/// the recursive descent within the stack on adversarial input).
const MAX_NESTING: usize = 100;

/// How many binary operators one clause may hold. Expressions are trees as deep as
/// their operator chains are long, and every later stage walks them recursively; this
/// bound (with [`MAX_NESTING`]) keeps that recursion well inside a thread's stack.
pub const MAX_OPERATORS: usize = 4096;

/// The largest file an `#include` (or a top-level program file) may be.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// How deeply `#include`s may nest.
const MAX_INCLUDE_DEPTH: usize = 64;

/// Soufflé relation qualifiers accepted (and ignored) after a declaration.
const QUALIFIERS: &[&str] = &[
    "brie",
    "btree",
    "btree_delete",
    "eqrel",
    "inline",
    "no_inline",
    "magic",
    "no_magic",
    "overridable",
];

/// Where `#include`d files come from.
pub trait Loader {
    /// Loads `path` as written in an `#include` line of the file named
    /// `including_file` (`""` for a top-level file). Returns the resolved name of the
    /// file (used in diagnostics and to detect include cycles) and its text, or an error
    /// message.
    fn load(&self, path: &str, including_file: &str) -> Result<(String, String), String>;
}

/// Loads files from the file system: a relative path is resolved against the directory
/// of the including file (against the working directory for top-level files), an
/// absolute path is used as is. Resolved names are normalised lexically (`.` and `..`
/// components removed) so that include cycles are recognised.
pub struct FsLoader;

impl Loader for FsLoader {
    fn load(&self, path: &str, including_file: &str) -> Result<(String, String), String> {
        let p = Path::new(path);
        let full = match Path::new(including_file).parent() {
            Some(dir) if !p.is_absolute() => dir.join(p),
            _ => p.to_path_buf(),
        };
        let full = normalize(&full);
        let text = read_program_file(&full)?;
        Ok((full.to_string_lossy().into_owned(), text))
    }
}

/// Reads a program file: a regular file (not a device, pipe or directory, which may
/// never end) of at most [`MAX_FILE_BYTES`] bytes of UTF-8 text.
fn read_program_file(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        };
        return Err(format!("{what}; programs are read from regular files"));
    }
    let too_big = || format!("larger than {} MiB", MAX_FILE_BYTES >> 20);
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big());
    }
    String::from_utf8(bytes).map_err(|_| "stream did not contain valid UTF-8".to_string())
}

/// Removes `.` components and folds `dir/..` pairs, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// Parses file `file` of `sources` (already added), resolving `#include`s through
/// `loader`; included files are added to `sources`. Returns the program, or every
/// error found (at least one, at most [`MAX_ERRORS`]).
pub fn parse(
    sources: &mut SourceMap,
    file: FileId,
    loader: &dyn Loader,
) -> Result<Program, Vec<Diagnostic>> {
    let name = sources.file(file).name.clone();
    let mut ctx = Ctx {
        sources,
        loader,
        stack: vec![name],
        errors: Vec::new(),
    };
    let items = parse_file(&mut ctx, file, false);
    if ctx.errors.is_empty() {
        Ok(Program { items })
    } else {
        Err(ctx.errors)
    }
}

/// Loads each of `paths` through `loader.load(path, "")`, parses it as by [`parse`] and
/// concatenates the items in order. A top-level file that cannot be loaded is reported
/// as `cannot read "<path>": <message>` at the start of an empty source named after
/// the path.
pub fn parse_files(
    sources: &mut SourceMap,
    paths: &[String],
    loader: &dyn Loader,
) -> Result<Program, Vec<Diagnostic>> {
    let mut items = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if errors.len() >= MAX_ERRORS {
            break;
        }
        match loader.load(path, "") {
            Ok((name, text)) => {
                let file = sources.add(name, text);
                match parse(sources, file, loader) {
                    Ok(program) => items.extend(program.items),
                    Err(errs) => errors.extend(errs),
                }
            }
            Err(msg) => {
                let file = sources.add(path.clone(), "");
                errors.push(Diagnostic::new(
                    Span::new(file, 0, 0),
                    format!("cannot read \"{path}\": {msg}"),
                ));
            }
        }
    }
    errors.truncate(MAX_ERRORS);
    if errors.is_empty() {
        Ok(Program { items })
    } else {
        Err(errors)
    }
}

/// Parses `text` as a file named `name`; `#include`s are resolved with [`FsLoader`]
/// relative to `name`. For tests and programs embedded in the binary.
pub fn parse_str(name: &str, text: &str) -> Result<(SourceMap, Program), SyntaxError> {
    let mut sources = SourceMap::new();
    let file = sources.add(name, text);
    match parse(&mut sources, file, &FsLoader) {
        Ok(program) => Ok((sources, program)),
        Err(list) => Err(SyntaxError::Invalid(Diagnostics { sources, list })),
    }
}

/// [`parse_files`] with a source map of its own: the program and the sources its spans
/// point into, or a [`SyntaxError`] that carries them.
pub fn parse_paths(
    paths: &[String],
    loader: &dyn Loader,
) -> Result<(SourceMap, Program), SyntaxError> {
    let mut sources = SourceMap::new();
    match parse_files(&mut sources, paths, loader) {
        Ok(program) => Ok((sources, program)),
        Err(list) => Err(SyntaxError::Invalid(Diagnostics { sources, list })),
    }
}

/// State shared by the parsers of a file and of the files it includes.
struct Ctx<'a> {
    sources: &'a mut SourceMap,
    loader: &'a dyn Loader,
    /// Resolved names of the files being parsed, outermost first.
    stack: Vec<String>,
    errors: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn full(&self) -> bool {
        self.errors.len() >= MAX_ERRORS
    }
    fn push(&mut self, d: Diagnostic) {
        if !self.full() {
            self.errors.push(d);
        }
    }
}

/// Lexes and parses one file of the source map.
fn parse_file(ctx: &mut Ctx<'_>, file: FileId, in_fixpoint: bool) -> Vec<Item> {
    let text = ctx.sources.file(file).text.clone();
    let toks = lex(file, &text);
    let mut parser = Parser {
        ctx,
        toks,
        pos: 0,
        file,
        text,
        in_fixpoint,
        block_depth: 0,
        agg_depth: 0,
        nesting: 0,
        operators: 0,
    };
    parser.items(false)
}

/// The error has been reported; the caller should give up on the current item.
#[derive(Debug)]
struct Failed;

type PResult<T> = Result<T, Failed>;

struct Parser<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    toks: Vec<Token>,
    pos: usize,
    file: FileId,
    /// The text of the file being parsed (for describing tokens).
    text: String,
    /// Inside a `.fixpoint` block, possibly of an including file.
    in_fixpoint: bool,
    /// Open `.fixpoint` blocks in this file.
    block_depth: usize,
    /// Open aggregate braces in the current item (for error recovery).
    agg_depth: usize,
    /// Current expression/aggregate nesting depth.
    nesting: usize,
    /// Binary operators read in the current item (see [`MAX_OPERATORS`]).
    operators: usize,
}

impl Parser<'_, '_> {
    // ----- token access -----

    fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> &Token {
        let i = (self.pos + n).min(self.toks.len() - 1);
        &self.toks[i]
    }

    fn advance(&mut self) -> Token {
        let tok = self.peek().clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        tok
    }

    fn at(&self, kind: &TokenKind) -> bool {
        &self.peek().kind == kind
    }

    // ----- errors -----

    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.ctx.push(Diagnostic::new(span, msg));
    }

    /// Reports `expected <what>, found <current token>` (or the lexical error the
    /// current token carries) at the current token.
    fn expected(&mut self, what: &str) -> Failed {
        let tok = self.peek().clone();
        let msg = match &tok.kind {
            TokenKind::Error(msg) => msg.clone(),
            _ => format!("expected {what}, found {}", tok.describe(&self.text)),
        };
        self.error(tok.span, msg);
        Failed
    }

    /// Consumes a token of kind `kind`, or reports `expected <what>`.
    fn expect(&mut self, kind: TokenKind, what: &str) -> PResult<Token> {
        if self.at(&kind) {
            Ok(self.advance())
        } else {
            Err(self.expected(what))
        }
    }

    fn expect_ident(&mut self, what: &str) -> PResult<Ident> {
        match &self.peek().kind {
            TokenKind::Ident(name) => {
                let ident = Ident {
                    name: name.clone(),
                    span: self.peek().span,
                };
                self.advance();
                Ok(ident)
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Range-checks a number token (not preceded by a minus sign).
    fn number(&mut self, tok: &Token) -> PResult<i32> {
        match tok.kind {
            TokenKind::Number(n) => match i32::try_from(n) {
                Ok(v) => Ok(v),
                Err(_) => {
                    self.error(tok.span, "number out of range for a 32-bit signed integer");
                    Err(Failed)
                }
            },
            _ => Err(Failed),
        }
    }

    /// Skips to the end of the current item after an error (see the module docs).
    /// `start` is the position where the item began; at least one token is skipped if
    /// the item consumed none.
    fn recover(&mut self, start: usize) {
        if self.pos == start {
            let tok = self.advance();
            match tok.kind {
                TokenKind::Dot => return,
                TokenKind::LBrace => self.agg_depth += 1,
                _ => {}
            }
        }
        loop {
            let tok = self.peek();
            match tok.kind {
                TokenKind::Eof | TokenKind::Directive(_) | TokenKind::Hash(_) => break,
                TokenKind::Annot(_) if tok.line_start => break,
                TokenKind::Dot => {
                    self.advance();
                    break;
                }
                TokenKind::LBrace => {
                    self.agg_depth += 1;
                    self.advance();
                }
                TokenKind::RBrace if self.agg_depth > 0 => {
                    self.agg_depth -= 1;
                    self.advance();
                }
                TokenKind::RBrace if self.block_depth > 0 => break,
                _ => {
                    self.advance();
                }
            }
        }
        self.agg_depth = 0;
    }

    /// Skips the rest of the current line (after an unknown directive).
    fn skip_line(&mut self) {
        loop {
            let tok = self.peek();
            let stop = tok.line_start
                || tok.kind == TokenKind::Eof
                || (tok.kind == TokenKind::RBrace && self.block_depth > 0);
            if stop {
                break;
            }
            self.advance();
        }
    }

    // ----- items -----

    /// Parses items up to the end of the file, or up to (not including) a `}` if
    /// `in_braces`.
    fn items(&mut self, in_braces: bool) -> Vec<Item> {
        let mut items = Vec::new();
        loop {
            if self.ctx.full() {
                break;
            }
            match self.peek().kind {
                TokenKind::Eof => break,
                TokenKind::RBrace if in_braces => break,
                _ => {}
            }
            let start = self.pos;
            self.agg_depth = 0;
            self.nesting = 0;
            self.operators = 0;
            if self.item(&mut items).is_err() {
                self.recover(start);
            }
        }
        items
    }

    /// Parses one item (or an `#include`, whose items are all spliced) into `out`.
    fn item(&mut self, out: &mut Vec<Item>) -> PResult<()> {
        let tok = self.peek().clone();
        match &tok.kind {
            TokenKind::Directive(name) => match name.as_str() {
                "decl" => self.decl(DeclKind::Relation, out),
                "view" => self.decl(DeclKind::View, out),
                "input" | "output" => self.io(out),
                "type" => self.type_alias(out),
                "fixpoint" => self.fixpoint(out),
                _ => {
                    self.error(tok.span, format!("unknown directive '.{name}'"));
                    self.advance();
                    self.skip_line();
                    Ok(())
                }
            },
            TokenKind::Dot => {
                let next = self.peek_at(1).clone();
                match &next.kind {
                    TokenKind::Ident(name) if next.span.start == tok.span.end => {
                        self.error(
                            tok.span.to(next.span),
                            format!("unknown directive '.{name}'"),
                        );
                        self.advance();
                        self.advance();
                        self.skip_line();
                        Ok(())
                    }
                    _ => Err(self.expected("a directive, fact or rule")),
                }
            }
            TokenKind::Hash(name) if name == "include" => self.include(out),
            TokenKind::Hash(name) => {
                self.error(tok.span, format!("unknown directive '#{name}'"));
                self.advance();
                self.skip_line();
                Ok(())
            }
            TokenKind::Annot(_) => self.annotated_rule(out),
            TokenKind::Ident(_) => self.rule_or_fact(Annotations::default(), None, out),
            _ => Err(self.expected("a directive, fact or rule")),
        }
    }

    /// `.decl name(a: t, ...) qualifiers` or the same with `.view`.
    fn decl(&mut self, kind: DeclKind, out: &mut Vec<Item>) -> PResult<()> {
        let kw = self.advance();
        let dir = if kind == DeclKind::View {
            "view"
        } else {
            "decl"
        };
        let name = self.expect_ident(&format!("a relation name after .{dir}"))?;
        self.expect(TokenKind::LParen, "'(' after the relation name")?;
        let mut params = Vec::new();
        let end = if self.at(&TokenKind::RParen) {
            self.advance().span
        } else {
            loop {
                let what = if params.is_empty() {
                    "a parameter name or ')'"
                } else {
                    "a parameter name"
                };
                let pname = self.expect_ident(what)?;
                self.expect(TokenKind::Colon, "':' after the parameter name")?;
                let ty = self.expect_ident("a type after ':'")?;
                params.push(Param { name: pname, ty });
                match self.peek().kind {
                    TokenKind::Comma => {
                        self.advance();
                    }
                    TokenKind::RParen => break self.advance().span,
                    _ => return Err(self.expected("',' or ')' in the parameter list")),
                }
            }
        };
        // Soufflé qualifiers (`brie`, `eqrel`, ...); a name followed by `(` starts the
        // next item instead.
        loop {
            let tok = self.peek().clone();
            match &tok.kind {
                TokenKind::Ident(q)
                    if QUALIFIERS.contains(&q.as_str())
                        && self.peek_at(1).kind != TokenKind::LParen =>
                {
                    if q == "eqrel" {
                        self.error(tok.span, "eqrel relations are not supported");
                    }
                    self.advance();
                }
                _ => break,
            }
        }
        out.push(Item::Decl(Decl {
            name,
            params,
            kind,
            span: kw.span.to(end),
        }));
        Ok(())
    }

    /// `.input a, b(IO=file, ...)` / `.output a`.
    fn io(&mut self, out: &mut Vec<Item>) -> PResult<()> {
        let kw = self.advance();
        let input = kw.kind == TokenKind::Directive("input".into());
        let what = if input {
            "a relation name after .input"
        } else {
            "a relation name after .output"
        };
        let mut names = Vec::new();
        loop {
            names.push(self.expect_ident(what)?);
            if self.at(&TokenKind::LParen) {
                self.skip_io_params()?;
            }
            if self.at(&TokenKind::Comma) {
                self.advance();
            } else {
                break;
            }
        }
        out.push(if input {
            Item::Input(names)
        } else {
            Item::Output(names)
        });
        Ok(())
    }

    /// Skips a balanced `( ... )` of IO parameters.
    fn skip_io_params(&mut self) -> PResult<()> {
        let mut depth = 0usize;
        loop {
            match self.peek().kind {
                TokenKind::LParen => depth += 1,
                TokenKind::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        self.advance();
                        return Ok(());
                    }
                }
                TokenKind::Eof
                | TokenKind::Error(_)
                | TokenKind::Directive(_)
                | TokenKind::Hash(_)
                | TokenKind::Dot => {
                    return Err(self.expected("')' to close the IO parameters"));
                }
                _ => {}
            }
            self.advance();
        }
    }

    /// `.type Name <: base` / `.type Name = base`.
    fn type_alias(&mut self, out: &mut Vec<Item>) -> PResult<()> {
        let kw = self.advance();
        let name = self.expect_ident("a type name after .type")?;
        let what = match self.peek().kind {
            TokenKind::Subtype => "a type after '<:'",
            TokenKind::Eq => "a type after '='",
            _ => return Err(self.expected("'<:' or '=' after the type name")),
        };
        self.advance();
        let base = self.expect_ident(what)?;
        let span = kw.span.to(base.span);
        out.push(Item::Type(TypeAlias { name, base, span }));
        Ok(())
    }

    /// `.fixpoint [key N] { items }`.
    fn fixpoint(&mut self, out: &mut Vec<Item>) -> PResult<()> {
        let kw = self.advance();
        let nested = self.in_fixpoint;
        if nested {
            self.error(kw.span, "nested .fixpoint blocks are not allowed");
        }
        let key = match &self.peek().kind {
            TokenKind::Ident(k) if k == "key" => {
                self.advance();
                let tok = self.peek().clone();
                if !matches!(tok.kind, TokenKind::Number(_)) {
                    return Err(self.expected("a column number after 'key'"));
                }
                self.advance();
                let n = self.number(&tok)?;
                Some((n as u32, tok.span))
            }
            _ => None,
        };
        let what = if key.is_some() {
            "'{' to open the .fixpoint block"
        } else {
            "'key' or '{' after .fixpoint"
        };
        let open = self.expect(TokenKind::LBrace, what)?;
        let outer = self.in_fixpoint;
        self.in_fixpoint = true;
        self.block_depth += 1;
        let items = self.items(true);
        self.block_depth -= 1;
        self.in_fixpoint = outer;
        let end = if self.at(&TokenKind::RBrace) {
            self.advance().span
        } else {
            let found = self.peek().describe(&self.text);
            self.error(
                open.span,
                format!("expected '}}' to close the .fixpoint block, found {found}"),
            );
            self.peek().span
        };
        if !nested {
            out.push(Item::Fixpoint(FixpointBlock {
                key,
                items,
                span: kw.span.to(end),
            }));
        }
        Ok(())
    }

    /// `#include "path"`: parses the file and appends its items.
    fn include(&mut self, out: &mut Vec<Item>) -> PResult<()> {
        self.advance();
        let tok = self.peek().clone();
        let TokenKind::Str(path) = &tok.kind else {
            return Err(self.expected("a file name string after #include"));
        };
        self.advance();
        if self.ctx.stack.len() >= MAX_INCLUDE_DEPTH {
            self.error(
                tok.span,
                format!(
                    "cannot include \"{path}\": includes nested more than {MAX_INCLUDE_DEPTH} deep"
                ),
            );
            return Ok(());
        }
        let including = self.ctx.sources.file(self.file).name.clone();
        match self.ctx.loader.load(path, &including) {
            Err(msg) => {
                self.error(tok.span, format!("cannot include \"{path}\": {msg}"));
            }
            Ok((name, _)) if self.ctx.stack.contains(&name) => {
                self.error(
                    tok.span,
                    format!("include cycle: \"{name}\" includes itself"),
                );
            }
            Ok((name, text)) => {
                let file = self.ctx.sources.add(name.clone(), text);
                self.ctx.stack.push(name);
                let items = parse_file(self.ctx, file, self.in_fixpoint);
                self.ctx.stack.pop();
                out.extend(items);
            }
        }
        Ok(())
    }

    // ----- rules -----

    /// Annotations, then a rule.
    fn annotated_rule(&mut self, out: &mut Vec<Item>) -> PResult<()> {
        let mut ann = Annotations::default();
        let mut first: Option<Span> = None;
        while let TokenKind::Annot(name) = &self.peek().kind {
            let name = name.clone();
            let at = self.advance();
            if !matches!(
                name.as_str(),
                "label" | "tier" | "explain" | "hint" | "ungated"
            ) {
                self.error(at.span, format!("unknown annotation '@{name}'"));
                return Err(Failed);
            }
            // `@ungated` takes no argument; the others one, in parentheses.
            let (arg, text, span) = if name == "ungated" {
                (None, String::new(), at.span)
            } else {
                self.annotation_arg(&name, at.span)?
            };
            first.get_or_insert(span);
            let previous = match name.as_str() {
                "label" => ann.label.as_ref().map(|l| l.1),
                "tier" => ann.tier.as_ref().map(|t| t.1),
                "hint" => ann.hint.as_ref().map(|h| h.1),
                "ungated" => ann.ungated,
                _ => ann.explain.as_ref().map(|e| e.1),
            };
            if let Some(prev) = previous {
                self.ctx.push(
                    Diagnostic::new(span, format!("annotation @{name} given twice"))
                        .with_note(prev, "first given here"),
                );
                continue;
            }
            match name.as_str() {
                "label" => ann.label = Some((text, span)),
                "tier" => {
                    let n = self.number(arg.as_ref().expect("@tier has an argument"))?;
                    ann.tier = Some((n as u32, span));
                }
                "hint" => ann.hint = Some((text, span)),
                "ungated" => ann.ungated = Some(span),
                _ => ann.explain = Some((text, span)),
            }
        }
        match (&self.peek().kind, first) {
            (TokenKind::Ident(_), _) => self.rule_or_fact(ann, first, out),
            (_, Some(span)) => {
                self.error(span, "annotations must precede a rule");
                Ok(())
            }
            (_, None) => Err(self.expected("an annotation")),
        }
    }

    /// An annotation's `(argument)`, after `@name` at `at`: the argument's token, its
    /// text (for labels and templates) and the span of the whole annotation.
    fn annotation_arg(&mut self, name: &str, at: Span) -> PResult<(Option<Token>, String, Span)> {
        self.expect(TokenKind::LParen, &format!("'(' after @{name}"))?;
        let arg = self.peek().clone();
        let text = match (&arg.kind, name) {
            (TokenKind::Ident(s), "label") | (TokenKind::Str(s), "label" | "explain" | "hint") => {
                s.clone()
            }
            (TokenKind::Number(_), "tier") => String::new(),
            (_, "label") => return Err(self.expected("a name or a string in @label(...)")),
            (_, "tier") => return Err(self.expected("a number in @tier(...)")),
            (_, "hint") => return Err(self.expected("a string in @hint(...)")),
            _ => return Err(self.expected("a string in @explain(...)")),
        };
        self.advance();
        let close = self.expect(TokenKind::RParen, "')' to close the annotation")?;
        Ok((Some(arg), text, at.to(close.span)))
    }

    /// `head.` or `head :- body.`; the current token is the head's relation name.
    fn rule_or_fact(
        &mut self,
        annotations: Annotations,
        annotated: Option<Span>,
        out: &mut Vec<Item>,
    ) -> PResult<()> {
        let head = self.atom()?;
        match self.peek().kind {
            TokenKind::Dot => {
                self.advance();
                if let Some(span) = annotated {
                    self.error(span, "annotations must precede a rule");
                }
                out.push(Item::Fact(head));
                Ok(())
            }
            TokenKind::ColonDash => {
                self.advance();
                let body = self.body(false)?;
                let dot = self.advance();
                let span = head.span.to(dot.span);
                out.push(Item::Rule(Rule {
                    annotations,
                    head,
                    body,
                    span,
                }));
                Ok(())
            }
            _ => Err(self.expected("':-' or '.' after the head")),
        }
    }

    /// Comma-separated literals, up to (not including) the closing `.` of a rule or
    /// `}` of an aggregate body.
    fn body(&mut self, in_braces: bool) -> PResult<Vec<Literal>> {
        let mut lits = Vec::new();
        loop {
            lits.push(self.literal()?);
            match self.peek().kind {
                TokenKind::Comma => {
                    self.advance();
                }
                TokenKind::Dot if !in_braces => return Ok(lits),
                TokenKind::RBrace if in_braces => return Ok(lits),
                _ if in_braces => return Err(self.expected("'}' at the end of an aggregate body")),
                _ => return Err(self.expected("'.' at the end of a rule")),
            }
        }
    }

    /// `rel(args)`, `!rel(args)`, `e1 op e2` or `x = agg ... : body`.
    fn literal(&mut self) -> PResult<Literal> {
        let tok = self.peek().clone();
        match tok.kind {
            TokenKind::Bang => {
                self.advance();
                if !matches!(self.peek().kind, TokenKind::Ident(_)) {
                    return Err(self.expected("a relation name after '!'"));
                }
                let atom = self.atom()?;
                let span = tok.span.to(atom.span);
                return Ok(Literal::Negated(atom, span));
            }
            TokenKind::Ident(_) if self.peek_at(1).kind == TokenKind::LParen => {
                return Ok(Literal::Atom(self.atom()?));
            }
            TokenKind::Ident(_)
            | TokenKind::Underscore
            | TokenKind::Number(_)
            | TokenKind::Str(_)
            | TokenKind::LParen
            | TokenKind::Minus => {}
            _ => return Err(self.expected("a body literal")),
        }
        let (lhs, lspan) = self.expr()?;
        let op = match self.peek().kind {
            TokenKind::Eq => CmpOp::Eq,
            TokenKind::Ne => CmpOp::Ne,
            TokenKind::Lt => CmpOp::Lt,
            TokenKind::Le => CmpOp::Le,
            TokenKind::Gt => CmpOp::Gt,
            TokenKind::Ge => CmpOp::Ge,
            _ if matches!(lhs, Expr::Var(_)) && lspan == lhs.span() => {
                return Err(self.expected("'(' or a comparison operator"));
            }
            _ => return Err(self.expected("a comparison operator")),
        };
        self.advance();
        if op == CmpOp::Eq && self.at_aggregate() {
            return self.aggregate(lhs, lspan);
        }
        let (rhs, rspan) = self.expr()?;
        Ok(Literal::Compare(lhs, op, rhs, lspan.to(rspan)))
    }

    /// Whether the tokens after `=` are an aggregate: `count`, `sum`, `min` or `max`
    /// followed by an expression-like run of tokens and a `:`. Elsewhere these names are
    /// ordinary identifiers.
    fn at_aggregate(&self) -> bool {
        match &self.peek().kind {
            TokenKind::Ident(f) if matches!(f.as_str(), "count" | "sum" | "min" | "max") => {}
            _ => return false,
        }
        let mut depth = 0usize;
        for tok in &self.toks[(self.pos + 1).min(self.toks.len())..] {
            match tok.kind {
                TokenKind::Colon if depth == 0 => return true,
                TokenKind::LParen => depth += 1,
                TokenKind::RParen if depth == 0 => return false,
                TokenKind::RParen => depth -= 1,
                TokenKind::Ident(_)
                | TokenKind::Underscore
                | TokenKind::Number(_)
                | TokenKind::Str(_)
                | TokenKind::Plus
                | TokenKind::Minus
                | TokenKind::Star
                | TokenKind::Slash
                | TokenKind::Percent => {}
                _ => return false,
            }
        }
        false
    }

    /// `func [target] : { body }` or `func [target] : atom`, after `result =`.
    fn aggregate(&mut self, result: Expr, rspan: Span) -> PResult<Literal> {
        let ftok = self.advance();
        let func = match &ftok.kind {
            TokenKind::Ident(f) if f == "count" => AggFunc::Count,
            TokenKind::Ident(f) if f == "sum" => AggFunc::Sum,
            TokenKind::Ident(f) if f == "min" => AggFunc::Min,
            _ => AggFunc::Max,
        };
        let target = if func == AggFunc::Count {
            None
        } else {
            if self.at(&TokenKind::Colon) {
                let name = ftok.describe(&self.text);
                let name = name.trim_start_matches("identifier ");
                return Err(self.expected(&format!("an expression after {name}")));
            }
            Some(self.expr()?.0)
        };
        let what = if func == AggFunc::Count {
            "':' after count"
        } else {
            "':' after the aggregated expression"
        };
        self.expect(TokenKind::Colon, what)?;
        let (body, end) = match self.peek().kind {
            TokenKind::LBrace => {
                self.enter()?;
                self.advance();
                self.agg_depth += 1;
                let body = self.body(true)?;
                self.agg_depth -= 1;
                self.nesting -= 1;
                (body, self.advance().span)
            }
            TokenKind::Ident(_) => {
                let atom = self.atom()?;
                let span = atom.span;
                (vec![Literal::Atom(atom)], span)
            }
            _ => return Err(self.expected("'{' or an atom after ':'")),
        };
        Ok(Literal::Aggregate(Aggregate {
            result,
            func,
            func_span: ftok.span,
            target,
            body,
            span: rspan.to(end),
        }))
    }

    /// `rel(e1, ..., en)`; the current token is an identifier.
    fn atom(&mut self) -> PResult<Atom> {
        let relation = self.expect_ident("a relation name")?;
        self.expect(TokenKind::LParen, "'(' after the relation name")?;
        let mut args = Vec::new();
        if self.at(&TokenKind::RParen) {
            let end = self.advance().span;
            return Ok(Atom {
                span: relation.span.to(end),
                relation,
                args,
            });
        }
        loop {
            args.push(self.expr()?.0);
            match self.peek().kind {
                TokenKind::Comma => {
                    self.advance();
                }
                TokenKind::RParen => {
                    let end = self.advance().span;
                    return Ok(Atom {
                        span: relation.span.to(end),
                        relation,
                        args,
                    });
                }
                _ => return Err(self.expected("',' or ')' in the argument list")),
            }
        }
    }

    // ----- expressions -----
    //
    // Each returns the expression and its full extent in the text (which includes any
    // parentheses, unlike `Expr::span` of a parenthesised expression).

    fn enter(&mut self) -> PResult<()> {
        if self.nesting >= MAX_NESTING {
            let span = self.peek().span;
            self.error(span, "expression nested too deeply");
            return Err(Failed);
        }
        self.nesting += 1;
        Ok(())
    }

    /// Counts one binary operator of the current item (the operator token is next).
    fn operator(&mut self) -> PResult<()> {
        self.operators += 1;
        if self.operators > MAX_OPERATORS {
            let span = self.peek().span;
            self.error(
                span,
                format!("clause too long: more than {MAX_OPERATORS} arithmetic operators"),
            );
            return Err(Failed);
        }
        Ok(())
    }

    /// `term (('+' | '-') term)*`
    fn expr(&mut self) -> PResult<(Expr, Span)> {
        let (mut lhs, mut lspan) = self.term()?;
        loop {
            let op = match self.peek().kind {
                TokenKind::Plus => BinOp::Add,
                TokenKind::Minus => BinOp::Sub,
                _ => return Ok((lhs, lspan)),
            };
            self.operator()?;
            self.advance();
            let (rhs, rspan) = self.term()?;
            let span = lspan.to(rspan);
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs), span);
            lspan = span;
        }
    }

    /// `unary (('*' | '/' | '%') unary)*`
    fn term(&mut self) -> PResult<(Expr, Span)> {
        let (mut lhs, mut lspan) = self.unary()?;
        loop {
            let op = match self.peek().kind {
                TokenKind::Star => BinOp::Mul,
                TokenKind::Slash => BinOp::Div,
                TokenKind::Percent => BinOp::Rem,
                _ => return Ok((lhs, lspan)),
            };
            self.operator()?;
            self.advance();
            let (rhs, rspan) = self.unary()?;
            let span = lspan.to(rspan);
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs), span);
            lspan = span;
        }
    }

    /// `'-' unary | primary`. A minus sign directly before a number literal is folded
    /// into it, which is how `-2147483648` is written.
    fn unary(&mut self) -> PResult<(Expr, Span)> {
        if !self.at(&TokenKind::Minus) {
            return self.primary();
        }
        let minus = self.advance();
        let next = self.peek().clone();
        if let TokenKind::Number(n) = next.kind {
            self.advance();
            let span = minus.span.to(next.span);
            return match i32::try_from(-i128::from(n)) {
                Ok(v) => Ok((Expr::Number(v, span), span)),
                Err(_) => {
                    self.error(next.span, "number out of range for a 32-bit signed integer");
                    Err(Failed)
                }
            };
        }
        self.enter()?;
        let (operand, ospan) = self.unary()?;
        self.nesting -= 1;
        let span = minus.span.to(ospan);
        Ok((Expr::Neg(Box::new(operand), span), span))
    }

    /// A variable, `_`, a number, a string or a parenthesised expression.
    fn primary(&mut self) -> PResult<(Expr, Span)> {
        let tok = self.peek().clone();
        let expr = match &tok.kind {
            TokenKind::Ident(name) => {
                if self.peek_at(1).kind == TokenKind::LParen {
                    self.error(tok.span, "function calls are not supported");
                    return Err(Failed);
                }
                Expr::Var(Ident {
                    name: name.clone(),
                    span: tok.span,
                })
            }
            TokenKind::Underscore => Expr::Wildcard(tok.span),
            TokenKind::Number(_) => Expr::Number(self.number(&tok)?, tok.span),
            TokenKind::Str(s) => Expr::Symbol(s.clone(), tok.span),
            TokenKind::LParen => {
                self.enter()?;
                self.advance();
                let (inner, _) = self.expr()?;
                let close = self.expect(TokenKind::RParen, "')'")?;
                self.nesting -= 1;
                return Ok((inner, tok.span.to(close.span)));
            }
            _ => return Err(self.expected("an expression")),
        };
        self.advance();
        Ok((expr, tok.span))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An in-memory [`Loader`]: file names are the paths as written.
    struct MapLoader(Vec<(&'static str, &'static str)>);

    impl Loader for MapLoader {
        fn load(&self, path: &str, _including: &str) -> Result<(String, String), String> {
            self.0
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(p, t)| (p.to_string(), t.to_string()))
                .ok_or_else(|| "no such file".to_string())
        }
    }

    fn run(
        text: &str,
        files: Vec<(&'static str, &'static str)>,
    ) -> (SourceMap, Result<Program, Vec<Diagnostic>>) {
        let mut sources = SourceMap::new();
        let file = sources.add("t.dl", text);
        let result = parse(&mut sources, file, &MapLoader(files));
        (sources, result)
    }

    fn render_all(sources: &SourceMap, errs: &[Diagnostic]) -> String {
        errs.iter().map(|d| d.render(sources)).collect()
    }

    /// Parses `text`, panicking with the rendered errors if it fails.
    fn ok(text: &str) -> Program {
        match run(text, vec![]) {
            (_, Ok(p)) => p,
            (sources, Err(errs)) => panic!("unexpected errors:\n{}", render_all(&sources, &errs)),
        }
    }

    /// All errors of `text`, rendered.
    fn errors(text: &str) -> String {
        match run(text, vec![]) {
            (_, Ok(p)) => panic!("expected errors, parsed {}", show(&p.items)),
            (sources, Err(errs)) => render_all(&sources, &errs),
        }
    }

    /// The first error of `text`, rendered.
    fn first_error(text: &str) -> String {
        match run(text, vec![]) {
            (_, Ok(p)) => panic!("expected errors, parsed {}", show(&p.items)),
            (sources, Err(errs)) => errs[0].render(&sources),
        }
    }

    // ----- a compact printer for AST shape checks -----

    fn show_expr(e: &Expr) -> String {
        match e {
            Expr::Var(i) => i.name.clone(),
            Expr::Wildcard(_) => "_".into(),
            Expr::Number(n, _) => n.to_string(),
            Expr::Symbol(s, _) => format!("{s:?}"),
            Expr::Binary(op, a, b, _) => {
                let op = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    BinOp::Div => "/",
                    BinOp::Rem => "%",
                };
                format!("({op} {} {})", show_expr(a), show_expr(b))
            }
            Expr::Neg(a, _) => format!("(neg {})", show_expr(a)),
        }
    }

    fn show_atom(a: &Atom) -> String {
        let args: Vec<String> = a.args.iter().map(show_expr).collect();
        format!("{}({})", a.relation.name, args.join(", "))
    }

    fn show_lits(lits: &[Literal]) -> String {
        lits.iter().map(show_lit).collect::<Vec<_>>().join(", ")
    }

    fn show_lit(l: &Literal) -> String {
        match l {
            Literal::Atom(a) => show_atom(a),
            Literal::Negated(a, _) => format!("!{}", show_atom(a)),
            Literal::Compare(a, op, b, _) => {
                let op = match op {
                    CmpOp::Eq => "=",
                    CmpOp::Ne => "!=",
                    CmpOp::Lt => "<",
                    CmpOp::Le => "<=",
                    CmpOp::Gt => ">",
                    CmpOp::Ge => ">=",
                };
                format!("({op} {} {})", show_expr(a), show_expr(b))
            }
            Literal::Aggregate(g) => {
                let f = match g.func {
                    AggFunc::Count => "count",
                    AggFunc::Sum => "sum",
                    AggFunc::Min => "min",
                    AggFunc::Max => "max",
                };
                let target = g
                    .target
                    .as_ref()
                    .map(|t| format!(" {}", show_expr(t)))
                    .unwrap_or_default();
                format!(
                    "{} = {f}{target} : {{{}}}",
                    show_expr(&g.result),
                    show_lits(&g.body)
                )
            }
        }
    }

    fn show_item(item: &Item) -> String {
        match item {
            Item::Decl(d) => {
                let kw = if d.kind == DeclKind::View {
                    "view"
                } else {
                    "decl"
                };
                let ps: Vec<String> = d
                    .params
                    .iter()
                    .map(|p| format!("{}: {}", p.name.name, p.ty.name))
                    .collect();
                format!(".{kw} {}({})", d.name.name, ps.join(", "))
            }
            Item::Input(ns) | Item::Output(ns) => {
                let kw = if matches!(item, Item::Input(_)) {
                    "input"
                } else {
                    "output"
                };
                let ns: Vec<&str> = ns.iter().map(|n| n.name.as_str()).collect();
                format!(".{kw} {}", ns.join(", "))
            }
            Item::Type(t) => format!(".type {} {}", t.name.name, t.base.name),
            Item::Fact(a) => format!("{}.", show_atom(a)),
            Item::Rule(r) => {
                let mut s = String::new();
                if let Some((l, _)) = &r.annotations.label {
                    s += &format!("@label({l:?}) ");
                }
                if let Some((t, _)) = &r.annotations.tier {
                    s += &format!("@tier({t}) ");
                }
                if r.annotations.ungated.is_some() {
                    s += "@ungated ";
                }
                if let Some((e, _)) = &r.annotations.explain {
                    s += &format!("@explain({e:?}) ");
                }
                if let Some((h, _)) = &r.annotations.hint {
                    s += &format!("@hint({h:?}) ");
                }
                format!("{s}{} :- {}.", show_atom(&r.head), show_lits(&r.body))
            }
            Item::Fixpoint(b) => {
                let key = b.key.map(|(k, _)| format!(" key {k}")).unwrap_or_default();
                format!(".fixpoint{key} {{ {} }}", show(&b.items))
            }
        }
    }

    fn show(items: &[Item]) -> String {
        items.iter().map(show_item).collect::<Vec<_>>().join(" ")
    }

    fn shape(text: &str) -> String {
        show(&ok(text).items)
    }

    // ----- syntax forms -----

    #[test]
    fn declarations() {
        assert_eq!(
            shape(".decl edge(a: number, b: symbol)\n.decl unit()\n.view v(x: Cell)"),
            ".decl edge(a: number, b: symbol) .decl unit() .view v(x: Cell)"
        );
        // Soufflé qualifiers are ignored; a qualifier-like name followed by `(` starts
        // the next item.
        assert_eq!(
            shape(".decl a(x: number) brie inline\n.decl b(x: number) btree magic no_magic overridable\nbrie(1)."),
            ".decl a(x: number) .decl b(x: number) brie(1)."
        );
        let p = ok("  .decl edge(a: number)");
        let Item::Decl(d) = &p.items[0] else { panic!() };
        assert_eq!((d.span.start, d.span.end), (2, 23));
        assert_eq!((d.name.span.start, d.name.span.end), (8, 12));
        assert_eq!(d.kind, DeclKind::Relation);
    }

    #[test]
    fn io_and_types() {
        assert_eq!(
            shape(".input a, b\n.output c\n.input edge(IO=file, filename=\"x.facts\", delimiter=\",\"), d\n"),
            ".input a, b .output c .input edge, d"
        );
        assert_eq!(
            shape(".type Cell <: number\n.type Name = symbol"),
            ".type Cell number .type Name symbol"
        );
        let p = ok(".type Cell <: number");
        let Item::Type(t) = &p.items[0] else { panic!() };
        assert_eq!((t.span.start, t.span.end), (0, 20));
    }

    #[test]
    fn facts_and_rules() {
        assert_eq!(
            shape("edge(1, 2). edge(-3, \"a\\\"b\\\\c\\n\\t\").nullary().a(1).b(2)."),
            "edge(1, 2). edge(-3, \"a\\\"b\\\\c\\n\\t\"). nullary(). a(1). b(2)."
        );
        assert_eq!(
            shape("path(x, z) :- edge(x, y), !blocked(y), path(y, z), y < 3, z = x + 1, x != _, x <= 2, x > 1, x >= 0."),
            "path(x, z) :- edge(x, y), !blocked(y), path(y, z), (< y 3), (= z (+ x 1)), (!= x _), (<= x 2), (> x 1), (>= x 0)."
        );
        let p = ok("h(x) :- a(x), !b(x), x < 3.");
        let Item::Rule(r) = &p.items[0] else { panic!() };
        assert_eq!((r.span.start, r.span.end), (0, 27));
        assert_eq!((r.head.span.start, r.head.span.end), (0, 4));
        let spans: Vec<(u32, u32)> = r
            .body
            .iter()
            .map(|l| (l.span().start, l.span().end))
            .collect();
        assert_eq!(spans, vec![(8, 12), (14, 19), (21, 26)]);
    }

    #[test]
    fn expressions() {
        assert_eq!(
            shape("h(x) :- a(x, y, z, w), r = x + y * z - w % 2 / y, s = -x, t = (x + y) * -(z), u = - - 1, v = 2 - -3."),
            "h(x) :- a(x, y, z, w), (= r (- (+ x (* y z)) (/ (% w 2) y))), (= s (neg x)), (= t (* (+ x y) (neg z))), (= u (neg -1)), (= v (- 2 -3))."
        );
        // The most negative i32 is written as a negated literal.
        assert_eq!(
            shape("a(-2147483648, 2147483647)."),
            "a(-2147483648, 2147483647)."
        );
        let p = ok("h(x) :- x = (a + b) * c.");
        let Item::Rule(r) = &p.items[0] else { panic!() };
        let Literal::Compare(_, _, rhs, span) = &r.body[0] else {
            panic!()
        };
        // The product's span includes the parentheses; the sum's does not.
        assert_eq!((rhs.span().start, rhs.span().end), (12, 23));
        assert_eq!((span.start, span.end), (8, 23));
        let Expr::Binary(_, lhs, _, _) = rhs else {
            panic!()
        };
        assert_eq!((lhs.span().start, lhs.span().end), (13, 18));
    }

    #[test]
    fn aggregates() {
        assert_eq!(
            shape(
                "h(n, s, lo, hi) :- n = count : { a(x), x > 1 }, s = sum x : { a(x) }, \
                 lo = min x + 1 : { a(x) }, hi = max (x) : a(x), c = count : a(_)."
            ),
            "h(n, s, lo, hi) :- n = count : {a(x), (> x 1)}, s = sum x : {a(x)}, \
             lo = min (+ x 1) : {a(x)}, hi = max x : {a(x)}, c = count : {a(_)}."
        );
        // Elsewhere the aggregate names are ordinary names.
        assert_eq!(
            shape("count(sum) :- min(sum), max = count + 1, count = sum, sum = min * max."),
            "count(sum) :- min(sum), (= max (+ count 1)), (= count sum), (= sum (* min max))."
        );
        // Nested aggregates.
        assert_eq!(
            shape("h(n) :- n = count : { a(x), m = max y : { b(x, y) } }."),
            "h(n) :- n = count : {a(x), m = max y : {b(x, y)}}."
        );
        let p = ok("h(n) :- n = count : { a(x) }.");
        let Item::Rule(r) = &p.items[0] else { panic!() };
        let Literal::Aggregate(g) = &r.body[0] else {
            panic!()
        };
        assert_eq!((g.span.start, g.span.end), (8, 28));
        assert_eq!((g.func_span.start, g.func_span.end), (12, 17));
    }

    #[test]
    fn annotations() {
        assert_eq!(
            shape("@label(r1) @tier(2) @explain(\"cell {c}\")\nh(x) :- a(x).\n@explain(\"e\") @label(\"two words\")\nh(x) :- b(x)."),
            "@label(\"r1\") @tier(2) @explain(\"cell {c}\") h(x) :- a(x). @label(\"two words\") @explain(\"e\") h(x) :- b(x)."
        );
        let p = ok("@tier(3) h(x) :- a(x).");
        let Item::Rule(r) = &p.items[0] else { panic!() };
        let (_, span) = r.annotations.tier.unwrap();
        assert_eq!((span.start, span.end), (0, 8));
        assert_eq!((r.span.start, r.span.end), (9, 22));
    }

    #[test]
    fn fixpoint_blocks() {
        assert_eq!(
            shape(".fixpoint key 0 {\n  .decl cand(c: number, v: number)\n  .view v(c: number)\n  cand(1, 2).\n  v(c) :- cand(c, _).\n}\n.fixpoint { a(1). }\n.fixpoint {}"),
            ".fixpoint key 0 { .decl cand(c: number, v: number) .view v(c: number) cand(1, 2). v(c) :- cand(c, _). } .fixpoint { a(1). } .fixpoint {  }"
        );
        let p = ok(".fixpoint key 3 { a(1). }");
        let Item::Fixpoint(b) = &p.items[0] else {
            panic!()
        };
        let (k, kspan) = b.key.unwrap();
        assert_eq!((k, kspan.start, kspan.end), (3, 14, 15));
        assert_eq!((b.span.start, b.span.end), (0, 25));
    }

    #[test]
    fn comments() {
        assert_eq!(
            shape("// line\n/* block\n .decl x() */ a(1). // trailing\n/**/b(/* inside */ 2)./* end */"),
            "a(1). b(2)."
        );
    }

    // ----- errors: exact messages and places -----

    #[test]
    fn error_missing_dot_at_end_of_rule() {
        assert_eq!(
            first_error("h(x) :- a(x)\n  b(x)."),
            "t.dl:2:3: error: expected '.' at the end of a rule, found identifier 'b'\n\
             2 |   b(x).\n  \
               |   ^\n"
        );
        // At the end of the file, the caret goes right after the last token.
        assert_eq!(
            first_error("h(x) :- a(x)\n"),
            "t.dl:1:13: error: expected '.' at the end of a rule, found end of file\n\
             1 | h(x) :- a(x)\n  \
               |             ^\n"
        );
    }

    #[test]
    fn error_head() {
        assert_eq!(
            first_error("a(x), b(x) :- c(x)."),
            "t.dl:1:5: error: expected ':-' or '.' after the head, found ','\n\
             1 | a(x), b(x) :- c(x).\n  \
               |     ^\n"
        );
        assert_eq!(
            first_error("a :- c(x)."),
            "t.dl:1:3: error: expected '(' after the relation name, found ':-'\n\
             1 | a :- c(x).\n  \
               |   ^^\n"
        );
        assert_eq!(
            first_error("a(x y)."),
            "t.dl:1:5: error: expected ',' or ')' in the argument list, found identifier 'y'\n\
             1 | a(x y).\n  \
               |     ^\n"
        );
    }

    #[test]
    fn error_decl() {
        assert_eq!(
            first_error(".decl a(x: number, y: )"),
            "t.dl:1:23: error: expected a type after ':', found ')'\n\
             1 | .decl a(x: number, y: )\n  \
               |                       ^\n"
        );
        assert_eq!(
            first_error(".decl a(x number)"),
            "t.dl:1:11: error: expected ':' after the parameter name, found identifier 'number'\n\
             1 | .decl a(x number)\n  \
               |           ^^^^^^\n"
        );
        assert_eq!(
            first_error(".decl (x: number)"),
            "t.dl:1:7: error: expected a relation name after .decl, found '('\n\
             1 | .decl (x: number)\n  \
               |       ^\n"
        );
        assert_eq!(
            first_error(".decl a(12: number)"),
            "t.dl:1:9: error: expected a parameter name or ')', found number 12\n\
             1 | .decl a(12: number)\n  \
               |         ^^\n"
        );
        assert_eq!(
            first_error(".decl a(x: number y: number)"),
            "t.dl:1:19: error: expected ',' or ')' in the parameter list, found identifier 'y'\n\
             1 | .decl a(x: number y: number)\n  \
               |                   ^\n"
        );
        assert_eq!(
            first_error(".decl e(x: number, y: number) eqrel"),
            "t.dl:1:31: error: eqrel relations are not supported\n\
             1 | .decl e(x: number, y: number) eqrel\n  \
               |                               ^^^^^\n"
        );
        assert_eq!(
            first_error(".view v(x: number"),
            "t.dl:1:18: error: expected ',' or ')' in the parameter list, found end of file\n\
             1 | .view v(x: number\n  \
               |                  ^\n"
        );
    }

    #[test]
    fn error_directives() {
        assert_eq!(
            first_error("a(1).\n.foo bar baz\n"),
            "t.dl:2:1: error: unknown directive '.foo'\n\
             2 | .foo bar baz\n  \
               | ^^^^\n"
        );
        // Mid-line too, at the start of an item.
        assert_eq!(
            first_error("a(1). .printsize a"),
            "t.dl:1:7: error: unknown directive '.printsize'\n\
             1 | a(1). .printsize a\n  \
               |       ^^^^^^^^^^\n"
        );
        assert_eq!(
            first_error("#define X 1\n"),
            "t.dl:1:1: error: unknown directive '#define'\n\
             1 | #define X 1\n  \
               | ^^^^^^^\n"
        );
        assert_eq!(
            first_error(".type T : number"),
            "t.dl:1:9: error: expected '<:' or '=' after the type name, found ':'\n\
             1 | .type T : number\n  \
               |         ^\n"
        );
        assert_eq!(
            first_error(".type T <: 1"),
            "t.dl:1:12: error: expected a type after '<:', found number 1\n\
             1 | .type T <: 1\n  \
               |            ^\n"
        );
        assert_eq!(
            first_error(".input a(IO=file"),
            "t.dl:1:17: error: expected ')' to close the IO parameters, found end of file\n\
             1 | .input a(IO=file\n  \
               |                 ^\n"
        );
        assert_eq!(
            first_error(".output 1"),
            "t.dl:1:9: error: expected a relation name after .output, found number 1\n\
             1 | .output 1\n  \
               |         ^\n"
        );
        assert_eq!(
            first_error("} a(1)."),
            "t.dl:1:1: error: expected a directive, fact or rule, found '}'\n\
             1 | } a(1).\n  \
               | ^\n"
        );
    }

    #[test]
    fn error_lexical() {
        assert_eq!(
            first_error("a(\"abc).\nb(1)."),
            "t.dl:1:3: error: unterminated string\n\
             1 | a(\"abc).\n  \
               |   ^^^^^^\n"
        );
        assert_eq!(
            first_error("a(\"a\\qb\")."),
            "t.dl:1:3: error: unknown escape sequence '\\q' in string\n\
             1 | a(\"a\\qb\").\n  \
               |   ^^^^^^\n"
        );
        assert_eq!(
            first_error("a(1).\n  /* never\nclosed"),
            "t.dl:2:3: error: unterminated comment\n\
             2 |   /* never\n  \
               |   ^^\n"
        );
        assert_eq!(
            first_error("a(2147483648)."),
            "t.dl:1:3: error: number out of range for a 32-bit signed integer\n\
             1 | a(2147483648).\n  \
               |   ^^^^^^^^^^\n"
        );
        assert_eq!(
            first_error("a(-2147483649)."),
            "t.dl:1:4: error: number out of range for a 32-bit signed integer\n\
             1 | a(-2147483649).\n  \
               |    ^^^^^^^^^^\n"
        );
        // Parentheses defeat the folding of the minus sign.
        assert_eq!(
            first_error("a(-(2147483648))."),
            "t.dl:1:5: error: number out of range for a 32-bit signed integer\n\
             1 | a(-(2147483648)).\n  \
               |     ^^^^^^^^^^\n"
        );
        assert_eq!(
            first_error("a(x) :- b(x), x = $y."),
            "t.dl:1:19: error: unexpected character '$'\n\
             1 | a(x) :- b(x), x = $y.\n  \
               |                   ^\n"
        );
        assert_eq!(
            first_error("a(\"é\", é)."),
            "t.dl:1:8: error: unexpected character 'é'\n\
             1 | a(\"é\", é).\n  \
               |        ^\n"
        );
    }

    #[test]
    fn error_body() {
        assert_eq!(
            first_error("h(x) :- ."),
            "t.dl:1:9: error: expected a body literal, found '.'\n\
             1 | h(x) :- .\n  \
               |         ^\n"
        );
        assert_eq!(
            first_error("h(x) :- a(x), b."),
            "t.dl:1:16: error: expected '(' or a comparison operator, found '.'\n\
             1 | h(x) :- a(x), b.\n  \
               |                ^\n"
        );
        assert_eq!(
            first_error("h(x) :- a(x), x + 1."),
            "t.dl:1:20: error: expected a comparison operator, found '.'\n\
             1 | h(x) :- a(x), x + 1.\n  \
               |                    ^\n"
        );
        assert_eq!(
            first_error("h(x) :- a(x), !x = 1."),
            "t.dl:1:18: error: expected '(' after the relation name, found '='\n\
             1 | h(x) :- a(x), !x = 1.\n  \
               |                  ^\n"
        );
        assert_eq!(
            first_error("h(x) :- a(x), !1."),
            "t.dl:1:16: error: expected a relation name after '!', found number 1\n\
             1 | h(x) :- a(x), !1.\n  \
               |                ^\n"
        );
        assert_eq!(
            first_error("h(x) :- x = (1 + 2."),
            "t.dl:1:19: error: expected ')', found '.'\n\
             1 | h(x) :- x = (1 + 2.\n  \
               |                   ^\n"
        );
        assert_eq!(
            first_error("h(x) :- x = 1 + ."),
            "t.dl:1:17: error: expected an expression, found '.'\n\
             1 | h(x) :- x = 1 + .\n  \
               |                 ^\n"
        );
        assert_eq!(
            first_error("h(x) :- a(y), x = cat(y, \"s\")."),
            "t.dl:1:19: error: function calls are not supported\n\
             1 | h(x) :- a(y), x = cat(y, \"s\").\n  \
               |                   ^^^\n"
        );
    }

    #[test]
    fn error_aggregates() {
        assert_eq!(
            first_error("h(n) :- n = count : { a(x) b(x) }."),
            "t.dl:1:28: error: expected '}' at the end of an aggregate body, found identifier 'b'\n\
             1 | h(n) :- n = count : { a(x) b(x) }.\n  \
               |                            ^\n"
        );
        assert_eq!(
            first_error("h(n) :- n = sum : { a(x) }."),
            "t.dl:1:17: error: expected an expression after 'sum', found ':'\n\
             1 | h(n) :- n = sum : { a(x) }.\n  \
               |                 ^\n"
        );
        assert_eq!(
            first_error("h(n) :- n = count x : { a(x) }."),
            "t.dl:1:19: error: expected ':' after count, found identifier 'x'\n\
             1 | h(n) :- n = count x : { a(x) }.\n  \
               |                   ^\n"
        );
        assert_eq!(
            first_error("h(n) :- n = max x : 3."),
            "t.dl:1:21: error: expected '{' or an atom after ':', found number 3\n\
             1 | h(n) :- n = max x : 3.\n  \
               |                     ^\n"
        );
    }

    #[test]
    fn error_annotations() {
        assert_eq!(
            errors("@tier(1) @label(a) @tier(2)\nh(x) :- a(x)."),
            "t.dl:1:20: error: annotation @tier given twice\n\
             1 | @tier(1) @label(a) @tier(2)\n  \
               |                    ^^^^^^^^\n\
             t.dl:1:1: note: first given here\n\
             1 | @tier(1) @label(a) @tier(2)\n  \
               | ^^^^^^^^\n"
        );
        assert_eq!(
            errors("@ungated @label(a) @ungated\nh(x) :- a(x)."),
            "t.dl:1:20: error: annotation @ungated given twice\n\
             1 | @ungated @label(a) @ungated\n  \
               |                    ^^^^^^^^\n\
             t.dl:1:1: note: first given here\n\
             1 | @ungated @label(a) @ungated\n  \
               | ^^^^^^^^\n"
        );
        assert_eq!(
            errors("@label(a) edge(1, 2)."),
            "t.dl:1:1: error: annotations must precede a rule\n\
             1 | @label(a) edge(1, 2).\n  \
               | ^^^^^^^^^\n"
        );
        assert_eq!(
            errors("@explain(\"x\")\n.decl a(x: number)"),
            "t.dl:1:1: error: annotations must precede a rule\n\
             1 | @explain(\"x\")\n  \
               | ^^^^^^^^^^^^^\n"
        );
        assert_eq!(
            first_error("@foo(1) h(x) :- a(x)."),
            "t.dl:1:1: error: unknown annotation '@foo'\n\
             1 | @foo(1) h(x) :- a(x).\n  \
               | ^^^^\n"
        );
        assert_eq!(
            first_error("@tier(x) h(x) :- a(x)."),
            "t.dl:1:7: error: expected a number in @tier(...), found identifier 'x'\n\
             1 | @tier(x) h(x) :- a(x).\n  \
               |       ^\n"
        );
        assert_eq!(
            first_error("@explain(x) h(x) :- a(x)."),
            "t.dl:1:10: error: expected a string in @explain(...), found identifier 'x'\n\
             1 | @explain(x) h(x) :- a(x).\n  \
               |          ^\n"
        );
        assert_eq!(
            first_error("@label(1) h(x) :- a(x)."),
            "t.dl:1:8: error: expected a name or a string in @label(...), found number 1\n\
             1 | @label(1) h(x) :- a(x).\n  \
               |        ^\n"
        );
        assert_eq!(
            first_error("@label h(x) :- a(x)."),
            "t.dl:1:8: error: expected '(' after @label, found identifier 'h'\n\
             1 | @label h(x) :- a(x).\n  \
               |        ^\n"
        );
        assert_eq!(
            first_error("@label(a b) h(x) :- a(x)."),
            "t.dl:1:10: error: expected ')' to close the annotation, found identifier 'b'\n\
             1 | @label(a b) h(x) :- a(x).\n  \
               |          ^\n"
        );
    }

    #[test]
    fn error_fixpoint() {
        assert_eq!(
            errors(".fixpoint {\n  .fixpoint key 1 { a(1). }\n}"),
            "t.dl:2:3: error: nested .fixpoint blocks are not allowed\n\
             2 |   .fixpoint key 1 { a(1). }\n  \
               |   ^^^^^^^^^\n"
        );
        assert_eq!(
            errors(".fixpoint key 0 {\n  a(1).\n"),
            "t.dl:1:17: error: expected '}' to close the .fixpoint block, found end of file\n\
             1 | .fixpoint key 0 {\n  \
               |                 ^\n"
        );
        assert_eq!(
            first_error(".fixpoint kee 0 {}"),
            "t.dl:1:11: error: expected 'key' or '{' after .fixpoint, found identifier 'kee'\n\
             1 | .fixpoint kee 0 {}\n  \
               |           ^^^\n"
        );
        assert_eq!(
            first_error(".fixpoint key x {}"),
            "t.dl:1:15: error: expected a column number after 'key', found identifier 'x'\n\
             1 | .fixpoint key x {}\n  \
               |               ^\n"
        );
        assert_eq!(
            first_error(".fixpoint key 0 a(1)."),
            "t.dl:1:17: error: expected '{' to open the .fixpoint block, found identifier 'a'\n\
             1 | .fixpoint key 0 a(1).\n  \
               |                 ^\n"
        );
    }

    #[test]
    fn error_recovery() {
        // One error per item; the parser resynchronises after the item's `.` or at the
        // next directive, and keeps the block structure.
        let text = "\
h(x) :- a(x) b(x).
ok(1).
.decl d(x: )
.decl e(x: number)
g(x) :- .
.fixpoint {
  k(x) :- x = count : { a(x) b }.
  k(1) k.
}
z(1 2).
";
        let errs = errors(text);
        let firsts: Vec<&str> = errs.lines().filter(|l| l.starts_with("t.dl")).collect();
        assert_eq!(
            firsts,
            vec![
                "t.dl:1:14: error: expected '.' at the end of a rule, found identifier 'b'",
                "t.dl:3:12: error: expected a type after ':', found ')'",
                "t.dl:5:9: error: expected a body literal, found '.'",
                "t.dl:7:30: error: expected '}' at the end of an aggregate body, found identifier 'b'",
                "t.dl:8:8: error: expected ':-' or '.' after the head, found identifier 'k'",
                "t.dl:10:5: error: expected ',' or ')' in the argument list, found number 2",
            ]
        );
    }

    #[test]
    fn error_limit() {
        let text = "a(1 2).\n".repeat(50);
        let (_, result) = run(&text, vec![]);
        assert_eq!(result.unwrap_err().len(), MAX_ERRORS);
    }

    // ----- includes -----

    #[test]
    fn includes_are_spliced() {
        let files = vec![
            ("lib.dl", ".decl e(x: number)\n#include \"facts.dl\"\n"),
            ("facts.dl", "e(1). e(2)."),
            ("rules.dl", "r(x) :- e(x)."),
        ];
        let (sources, result) = run(
            "a(0).\n#include \"lib.dl\"\n.fixpoint {\n#include \"rules.dl\"\n}\nz(9).",
            files,
        );
        let program = result.unwrap();
        assert_eq!(
            show(&program.items),
            "a(0). .decl e(x: number) e(1). e(2). .fixpoint { r(x) :- e(x). } z(9)."
        );
        // Spans of included items point into the included file.
        let Item::Fact(f) = &program.items[2] else {
            panic!()
        };
        assert_eq!(sources.location(f.span), "facts.dl:1:1");
    }

    #[test]
    fn include_errors() {
        let files = vec![
            ("bad.dl", "ok(1).\nh(x) :- a(x)"),
            ("nested.dl", ".fixpoint { }"),
        ];
        let (sources, result) = run(
            "#include \"missing.dl\"\n#include \"bad.dl\"\n",
            files.clone(),
        );
        assert_eq!(
            render_all(&sources, &result.unwrap_err()),
            "t.dl:1:10: error: cannot include \"missing.dl\": no such file\n\
             1 | #include \"missing.dl\"\n  \
               |          ^^^^^^^^^^^^\n\
             bad.dl:2:13: error: expected '.' at the end of a rule, found end of file\n\
             2 | h(x) :- a(x)\n  \
               |             ^\n"
        );
        let (sources, result) = run(".fixpoint { #include \"nested.dl\" }", files.clone());
        assert_eq!(
            render_all(&sources, &result.unwrap_err()),
            "nested.dl:1:1: error: nested .fixpoint blocks are not allowed\n\
             1 | .fixpoint { }\n  \
               | ^^^^^^^^^\n"
        );
        let (_, result) = run("#include x", files);
        assert_eq!(
            result.unwrap_err()[0].message,
            "expected a file name string after #include, found identifier 'x'"
        );
    }

    #[test]
    fn include_cycle() {
        let files = vec![
            ("a.dl", "a(1).\n#include \"b.dl\"\n"),
            ("b.dl", "#include \"a.dl\"\n"),
        ];
        let (sources, result) = run("#include \"a.dl\"", files);
        assert_eq!(
            render_all(&sources, &result.unwrap_err()),
            "b.dl:1:10: error: include cycle: \"a.dl\" includes itself\n\
             1 | #include \"a.dl\"\n  \
               |          ^^^^^^\n"
        );
        // A file including itself directly (the top-level file is on the stack too).
        let (_, result) = run("#include \"t.dl\"", vec![("t.dl", "")]);
        assert_eq!(
            result.unwrap_err()[0].message,
            "include cycle: \"t.dl\" includes itself"
        );
    }

    #[test]
    fn parse_files_concatenates() {
        let loader = MapLoader(vec![("one.dl", "a(1)."), ("two.dl", "b(2).")]);
        let mut sources = SourceMap::new();
        let paths = vec!["one.dl".to_string(), "two.dl".to_string()];
        let program = parse_files(&mut sources, &paths, &loader).unwrap();
        assert_eq!(show(&program.items), "a(1). b(2).");

        let mut sources = SourceMap::new();
        let paths = vec!["one.dl".to_string(), "nope.dl".to_string()];
        let errs = parse_files(&mut sources, &paths, &loader).unwrap_err();
        assert_eq!(
            render_all(&sources, &errs),
            "nope.dl:1:1: error: cannot read \"nope.dl\": no such file\n\
             1 | \n  \
               | ^\n"
        );
    }

    #[test]
    fn fs_loader_and_parse_str() {
        let dir = std::env::temp_dir().join(format!("sudolog-parser-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/lib.dl"), "#include \"../facts.dl\"\n").unwrap();
        std::fs::write(dir.join("facts.dl"), "f(1).\n").unwrap();
        std::fs::write(dir.join("loop.dl"), "#include \"./sub/../loop.dl\"\n").unwrap();
        let main = dir.join("main.dl");
        let main = main.to_str().unwrap();

        let (sources, program) = parse_str(main, "#include \"sub/lib.dl\"\ng(2).").unwrap();
        assert_eq!(show(&program.items), "f(1). g(2).");
        let Item::Fact(f) = &program.items[0] else {
            panic!()
        };
        assert_eq!(
            sources.location(f.span),
            format!("{}:1:1", dir.join("facts.dl").display())
        );

        let err = parse_str(main, "#include \"loop.dl\"").unwrap_err();
        assert_eq!(err.diagnostics().list.len(), 1);
        assert_eq!(
            err.diagnostics().list[0].message,
            format!(
                "include cycle: \"{}\" includes itself",
                dir.join("loop.dl").display()
            )
        );
        let err = parse_str(main, "#include \"nope.dl\"").unwrap_err();
        assert!(
            err.diagnostics().list[0]
                .message
                .starts_with("cannot include \"nope.dl\": "),
            "{}",
            err
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // ----- robustness -----

    const SAMPLE: &str = "\
// sample
.type Cell <: number
.decl edge(a: number, b: Cell) brie
.input edge(IO=file, filename=\"e.facts\")
.output path, count
edge(1, -2147483648). edge(2, 3).
path(x, y) :- edge(x, y).
@label(\"t\") @tier(2) @explain(\"{x}\")
path(x, z) :- path(x, y), !edge(y, z), z = (x + y) * -2 % 3, x != \"s\\n\".
n(c) :- c = count : { path(_, _) }, s = sum x : path(x, _), m = min -x : { edge(x, _), x >= 0 }.
.fixpoint key 0 {
  .view v(x: number)
  /* block */ v(x) :- path(x, _).
}
#include \"other.dl\"
";

    /// Parses `text` and renders every diagnostic: neither may panic.
    fn no_panic(text: &str) {
        let loader = MapLoader(vec![
            ("other.dl", "o(1).\n#include \"other.dl\""),
            ("e.dl", ""),
        ]);
        let mut sources = SourceMap::new();
        let file = sources.add("t.dl", text);
        if let Err(errs) = parse(&mut sources, file, &loader) {
            assert!(!errs.is_empty() && errs.len() <= MAX_ERRORS);
            for e in errs {
                e.render(&sources);
            }
        }
    }

    #[test]
    fn sample_parses() {
        let (_, result) = run(SAMPLE, vec![("other.dl", "o(1).")]);
        assert_eq!(result.unwrap().items.len(), 11);
    }

    #[test]
    fn no_panic_on_garbage() {
        // Every prefix of a program exercising all forms.
        for (i, _) in SAMPLE.char_indices() {
            no_panic(&SAMPLE[..i]);
        }
        // Random token soup and random bytes, from a fixed-seed xorshift generator.
        let pieces = [
            "(",
            ")",
            "{",
            "}",
            ",",
            ".",
            ":",
            ":-",
            "!",
            "=",
            "!=",
            "<",
            "<=",
            ">",
            ">=",
            "<:",
            "+",
            "-",
            "*",
            "/",
            "%",
            "_",
            "x",
            "count",
            "sum",
            "min",
            "max",
            "key",
            "eqrel",
            "1",
            "2147483648",
            "99999999999999999999999",
            "\"s\"",
            "\"",
            "\\",
            "/*",
            "*/",
            "//",
            "\n",
            " ",
            ".decl",
            ".view",
            ".input",
            ".output",
            ".type",
            ".fixpoint",
            ".foo",
            "#include",
            "#x",
            "\"other.dl\"",
            "\"e.dl\"",
            "@label",
            "@tier",
            "@ungated",
            "@explain",
            "@",
            "#",
            "$",
            "é",
            "\r",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3000 {
            let len = (next() % 40) as usize;
            let soup: String = (0..len)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            no_panic(&soup);
            let bytes: Vec<u8> = (0..len).map(|_| (next() % 256) as u8).collect();
            no_panic(&String::from_utf8_lossy(&bytes));
            let mut mutated = SAMPLE.as_bytes().to_vec();
            for _ in 0..3 {
                let at = (next() % mutated.len() as u64) as usize;
                mutated[at] = (next() % 128) as u8;
            }
            no_panic(&String::from_utf8_lossy(&mutated));
        }
        // Deep nesting is an error, not a stack overflow.
        for open in ["(", "-", "x = count : { "] {
            let text = format!("h(x) :- x = {}1.", open.repeat(100_000));
            no_panic(&text);
        }
    }
}
