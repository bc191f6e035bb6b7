//! Syntax tree -> checked program.
//!
//! The checker resolves relation and variable names, infers and verifies types,
//! checks arities and that every variable is bound, rewrites expressions out of
//! atoms, and computes the strata (evaluation order). It reports every problem as a
//! [`Diagnostic`] pointing at the source, in the spirit of Soufflé's semantic checks:
//! nothing that passes here may fail later for a reason the user could have fixed.
//!
//! Stratification: relations form a dependency graph (body relation -> head
//! relation); each `.fixpoint` block is collapsed into one node. A strongly connected
//! component through a negation or an aggregate is rejected unless it lies inside a
//! block. Other recursive components become implicit blocks: for monotone rules the
//! inflationary rounds of a block compute the least fixpoint.

pub(crate) mod firing;
pub mod ir;
pub mod split;
mod stratify;

use std::collections::HashMap;

use crate::diag::{Diagnostic, Diagnostics, SourceMap, Span};
use crate::syntax::{ast, Loader, SyntaxError};
use ir::*;

/// Why a program was rejected. Displays as the located diagnostics, each with its
/// source line and caret line, exactly as they are rendered one by one.
#[derive(Clone, Debug, thiserror::Error)]
pub enum CheckError {
    /// The text did not parse (from [`check_str`] and [`check_files`]).
    #[error(transparent)]
    Syntax(#[from] SyntaxError),
    /// Names, types, arities, groundedness, placement and annotations.
    #[error("{0}")]
    Invalid(Diagnostics),
    /// Negation or aggregation through recursion outside a `.fixpoint` block.
    #[error("{0}")]
    Unstratifiable(Diagnostics),
}

impl CheckError {
    /// The diagnostics, with the sources they point into.
    pub fn diagnostics(&self) -> &Diagnostics {
        match self {
            CheckError::Syntax(e) => e.diagnostics(),
            CheckError::Invalid(d) | CheckError::Unstratifiable(d) => d,
        }
    }
}

/// Checks a parsed program.
pub fn check(sources: SourceMap, program: &ast::Program) -> Result<Program, CheckError> {
    let mut checker = Checker {
        types: HashMap::new(),
        relations: Vec::new(),
        by_name: HashMap::new(),
        rel_spans: Vec::new(),
        facts: Vec::new(),
        rules: Vec::new(),
        rule_spans: Vec::new(),
        blocks: Vec::new(),
        symbols: Symbols::default(),
        errors: Vec::new(),
        sources: &sources,
    };
    checker.declare_all(&program.items, None);
    checker.directives(&program.items);
    checker.clauses(&program.items, None);
    if !checker.errors.is_empty() {
        return Err(CheckError::Invalid(Diagnostics {
            list: checker.errors,
            sources,
        }));
    }
    let Checker {
        relations,
        facts,
        mut rules,
        mut blocks,
        symbols,
        ..
    } = checker;
    let strata = match stratify::stratify(&relations, &mut rules, &mut blocks) {
        Ok(s) => s,
        Err(list) => return Err(CheckError::Unstratifiable(Diagnostics { list, sources })),
    };
    Ok(Program {
        sources,
        relations,
        facts,
        rules,
        blocks,
        strata,
        symbols,
    })
}

/// Parses and checks program text (no includes resolved beyond the file system).
pub fn check_str(name: &str, text: &str) -> Result<Program, CheckError> {
    let (sources, ast) = crate::syntax::parse_str(name, text)?;
    check(sources, &ast)
}

/// Parses program files (concatenated, as [`crate::syntax::parse_files`] does) and
/// checks the result.
pub fn check_files(paths: &[String], loader: &dyn Loader) -> Result<Program, CheckError> {
    let (sources, ast) = crate::syntax::parse_paths(paths, loader)?;
    check(sources, &ast)
}

struct Checker<'a> {
    types: HashMap<String, Type>,
    relations: Vec<Relation>,
    by_name: HashMap<String, RelId>,
    rel_spans: Vec<Span>,
    facts: Vec<(RelId, Vec<Value>)>,
    rules: Vec<Rule>,
    rule_spans: Vec<Span>,
    blocks: Vec<Block>,
    symbols: Symbols,
    errors: Vec<Diagnostic>,
    sources: &'a SourceMap,
}

fn quote(s: &str) -> String {
    format!("'{s}'")
}

impl Checker<'_> {
    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.errors.push(Diagnostic::new(span, msg));
    }

    /// An `@explain` or `@hint` template, split into pieces; every variable it names
    /// must be bound by the body. `Err` after reporting the error.
    fn template(
        &mut self,
        ann: Option<&(String, Span)>,
        vars: &[(String, Type)],
        bound: &[bool],
        what: &str,
    ) -> Result<Option<Vec<Piece>>, ()> {
        let Some((text, span)) = ann else {
            return Ok(None);
        };
        let pieces = match parse_template(text, vars, what) {
            Ok(p) => p,
            Err(msg) => {
                self.error(*span, msg);
                return Err(());
            }
        };
        let unbound = pieces.iter().find_map(|p| match p {
            Piece::Var { var, .. } if !bound[*var] => Some(*var),
            _ => None,
        });
        if let Some(v) = unbound {
            self.error(
                *span,
                format!(
                    "ungrounded variable {} in the {what} template",
                    quote(&vars[v].0)
                ),
            );
            return Err(());
        }
        Ok(Some(pieces))
    }

    fn resolve_type(&mut self, ty: &ast::Ident) -> Option<Type> {
        match ty.name.as_str() {
            "number" => Some(Type::Number),
            "symbol" => Some(Type::Symbol),
            name => {
                if let Some(t) = self.types.get(name) {
                    Some(*t)
                } else {
                    self.error(ty.span, format!("unknown type {}", quote(name)));
                    None
                }
            }
        }
    }

    /// First pass: type aliases, declarations and blocks.
    fn declare_all(&mut self, items: &[ast::Item], block: Option<BlockId>) {
        for item in items {
            match item {
                ast::Item::Type(alias) => {
                    if let Some(t) = self.resolve_type(&alias.base) {
                        if self.types.insert(alias.name.name.clone(), t).is_some()
                            || alias.name.name == "number"
                            || alias.name.name == "symbol"
                        {
                            self.error(
                                alias.name.span,
                                format!("type {} is declared twice", quote(&alias.name.name)),
                            );
                        }
                    }
                }
                ast::Item::Decl(decl) => self.declare(decl, block),
                ast::Item::Fixpoint(fb) => {
                    if block.is_some() {
                        self.error(fb.span, "nested .fixpoint blocks are not allowed");
                        continue;
                    }
                    let id = self.blocks.len();
                    self.blocks.push(Block {
                        key: fb.key.map(|(k, _)| k as usize),
                        state: Vec::new(),
                        views: Vec::new(),
                        explicit: true,
                        span: fb.span,
                    });
                    self.declare_all(&fb.items, Some(id));
                    if let Some((k, span)) = fb.key {
                        let bad: Vec<String> = self.blocks[id]
                            .state
                            .iter()
                            .filter(|&&r| self.relations[r].arity() <= k as usize)
                            .map(|&r| self.relations[r].name.clone())
                            .collect();
                        if !bad.is_empty() {
                            self.error(
                                span,
                                format!(
                                    "key column {k} is beyond the columns of {}",
                                    bad.join(", ")
                                ),
                            );
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn declare(&mut self, decl: &ast::Decl, block: Option<BlockId>) {
        let name = &decl.name.name;
        if let Some(&prev) = self.by_name.get(name) {
            let d = Diagnostic::new(
                decl.name.span,
                format!("relation {} is declared twice", quote(name)),
            )
            .with_note(self.rel_spans[prev], "first declared here");
            self.errors.push(d);
            return;
        }
        let kind = match (decl.kind, block) {
            (ast::DeclKind::View, None) => {
                self.error(decl.span, ".view is only allowed inside a .fixpoint block");
                return;
            }
            (ast::DeclKind::View, Some(_)) => RelKind::View,
            (ast::DeclKind::Relation, Some(_)) => RelKind::Accumulating,
            (ast::DeclKind::Relation, None) => RelKind::Plain,
        };
        let mut columns = Vec::new();
        for p in &decl.params {
            if columns
                .iter()
                .any(|(n, _): &(String, Type)| *n == p.name.name)
            {
                self.error(
                    p.name.span,
                    format!("column {} is declared twice", quote(&p.name.name)),
                );
            }
            let ty = self.resolve_type(&p.ty).unwrap_or(Type::Number);
            columns.push((p.name.name.clone(), ty));
        }
        if columns.len() > crate::MAX_ARITY {
            self.error(
                decl.name.span,
                format!(
                    "relation {} has {} columns; at most {} are supported",
                    quote(name),
                    columns.len(),
                    crate::MAX_ARITY
                ),
            );
        }
        let id = self.relations.len();
        self.relations.push(Relation {
            name: name.clone(),
            columns,
            kind,
            block,
            input: false,
            output: false,
            enters_at_round: false,
            span: decl.name.span,
        });
        self.rel_spans.push(decl.name.span);
        self.by_name.insert(name.clone(), id);
        if let Some(b) = block {
            match kind {
                RelKind::View => self.blocks[b].views.push(id),
                _ => self.blocks[b].state.push(id),
            }
        }
    }

    fn lookup(&mut self, ident: &ast::Ident) -> Option<RelId> {
        match self.by_name.get(&ident.name) {
            Some(&r) => Some(r),
            None => {
                self.error(
                    ident.span,
                    format!("relation {} is not declared", quote(&ident.name)),
                );
                None
            }
        }
    }

    fn directives(&mut self, items: &[ast::Item]) {
        for item in items {
            match item {
                ast::Item::Input(names) => {
                    for n in names {
                        if let Some(r) = self.lookup(n) {
                            if self.relations[r].kind == RelKind::View {
                                self.error(
                                    n.span,
                                    format!("view {} cannot be an input", quote(&n.name)),
                                );
                            }
                            self.relations[r].input = true;
                        }
                    }
                }
                ast::Item::Output(names) => {
                    for n in names {
                        if let Some(r) = self.lookup(n) {
                            self.relations[r].output = true;
                        }
                    }
                }
                ast::Item::Fixpoint(fb) => self.directives(&fb.items),
                _ => {}
            }
        }
    }

    fn clauses(&mut self, items: &[ast::Item], block: Option<BlockId>) {
        for item in items {
            match item {
                ast::Item::Fact(atom) => self.fact(atom, block),
                ast::Item::Rule(rule) => self.rule(rule, block),
                ast::Item::Fixpoint(fb) if block.is_none() => {
                    let id = self
                        .blocks
                        .iter()
                        .position(|b| b.span == fb.span)
                        .expect("declared");
                    self.clauses(&fb.items, Some(id));
                }
                _ => {}
            }
        }
    }

    /// Checks that a clause with head `rel` is written where `rel` lives.
    fn placement(&mut self, rel: RelId, span: Span, block: Option<BlockId>) -> bool {
        let home = self.relations[rel].block;
        if home == block {
            return true;
        }
        let name = quote(&self.relations[rel].name);
        match home {
            Some(_) => self.error(span, format!("clauses for {name} must be written inside its .fixpoint block")),
            None => self.error(
                span,
                format!("{name} is not declared in this .fixpoint block; clauses inside a block must define its relations"),
            ),
        }
        false
    }

    fn fact(&mut self, atom: &ast::Atom, block: Option<BlockId>) {
        let Some(rel) = self.lookup(&atom.relation) else {
            return;
        };
        if !self.placement(rel, atom.span, block) || !self.arity(rel, atom) {
            return;
        }
        let mut row = Vec::new();
        for (i, arg) in atom.args.iter().enumerate() {
            let ty = self.relations[rel].columns[i].1;
            match const_value(arg) {
                Some(ConstVal::Num(n)) if ty == Type::Number => row.push(n),
                Some(ConstVal::Sym(ref s)) if ty == Type::Symbol => {
                    row.push(self.symbols.intern(s))
                }
                Some(c) => {
                    let found = if matches!(c, ConstVal::Num(_)) {
                        "number"
                    } else {
                        "symbol"
                    };
                    self.error(
                        arg.span(),
                        format!(
                            "type mismatch: column {} of {} is a {}, found a {}",
                            quote(&self.relations[rel].columns[i].0),
                            quote(&self.relations[rel].name),
                            ty.name(),
                            found
                        ),
                    );
                    return;
                }
                None => {
                    self.error(arg.span(), "a fact's arguments must be constants");
                    return;
                }
            }
        }
        self.facts.push((rel, row));
    }

    fn arity(&mut self, rel: RelId, atom: &ast::Atom) -> bool {
        let n = self.relations[rel].arity();
        if atom.args.len() != n {
            self.error(
                atom.span,
                format!(
                    "relation {} has {} column{} but is used with {} argument{}",
                    quote(&atom.relation.name),
                    n,
                    if n == 1 { "" } else { "s" },
                    atom.args.len(),
                    if atom.args.len() == 1 { "" } else { "s" }
                ),
            );
            return false;
        }
        true
    }

    /// A rule, checked and lowered into `self.rules` (or its errors reported): its
    /// literals and head, every variable grounded, its annotations allowed where
    /// they are.
    fn rule(&mut self, rule: &ast::Rule, block: Option<BlockId>) {
        let Some(head) = self.lookup(&rule.head.relation) else {
            return;
        };
        if !self.placement(head, rule.head.span, block) {
            return;
        }
        let Some(mut lowered) = self.lower_rule(rule, head) else {
            return;
        };
        let Some(bound) = self.grounded(rule, &mut lowered) else {
            return;
        };
        let Lowered {
            body,
            head_args,
            vars,
            ..
        } = lowered;
        let ann = &rule.annotations;
        let Some(tier) = self.tier(ann, head, block) else {
            return;
        };
        if !self.ungated_allowed(ann, head, block) {
            return;
        }
        let Ok(explain) = self.template(ann.explain.as_ref(), &vars, &bound, "@explain") else {
            return;
        };
        let Ok(hint) = self.template(ann.hint.as_ref(), &vars, &bound, "@hint") else {
            return;
        };
        if self.relations[head].kind == RelKind::View && explain.is_some() {
            self.error(
                ann.explain.as_ref().unwrap().1,
                "@explain applies to derivations that accumulate; views are recomputed each round",
            );
            return;
        }
        if let (Some((_, span)), None) = (&ann.hint, &explain) {
            self.error(
                *span,
                "@hint words an explained deduction vaguely; add an @explain",
            );
            return;
        }
        let label = match &ann.label {
            Some((l, _)) => l.clone(),
            None => {
                let (line, _) = self
                    .sources
                    .file(rule.span.file)
                    .line_col(rule.span.start as usize);
                format!("{}@{}", self.relations[head].name, line)
            }
        };
        self.rules.push(Rule {
            head,
            head_args,
            body,
            vars,
            label,
            explain,
            hint,
            tier,
            ungated: ann.ungated.is_some(),
            block,
            span: rule.span,
        });
        self.rule_spans.push(rule.span);
    }

    /// A rule's body literals (with the comparisons that expressions inside atoms
    /// became) and head terms, lowered; `None` after reporting an error.
    fn lower_rule(&mut self, rule: &ast::Rule, head: RelId) -> Option<Lowered> {
        let errors_before = self.errors.len();
        let mut rc = RuleChecker {
            c: self,
            vars: Vec::new(),
            names: HashMap::new(),
            extra: Vec::new(),
            occ: Vec::new(),
        };
        let mut body = Vec::new();
        let mut spans = Vec::new();
        for lit in &rule.body {
            if let Some(l) = rc.literal(lit, false) {
                body.push(l);
                spans.push(lit.span());
            }
            for (l, s) in rc.extra.drain(..) {
                body.push(l);
                spans.push(s);
            }
        }
        let mut head_args = Vec::new();
        if rc.c.arity(head, &rule.head) {
            for (i, arg) in rule.head.args.iter().enumerate() {
                let ty = rc.c.relations[head].columns[i].1;
                match arg {
                    ast::Expr::Wildcard(span) => {
                        rc.c.error(*span, "'_' is not allowed in a rule head")
                    }
                    _ => {
                        if let Some(t) = rc.term(arg, ty, head, i, false) {
                            head_args.push(t);
                        }
                    }
                }
            }
            for (l, s) in rc.extra.drain(..) {
                body.push(l);
                spans.push(s);
            }
        }
        let vars = std::mem::take(&mut rc.vars);
        let occ = std::mem::take(&mut rc.occ);
        (self.errors.len() == errors_before).then_some(Lowered {
            body,
            spans,
            head_args,
            vars,
            occ,
        })
    }

    /// Binding analysis: aggregates' groups set, then every variable of the body and
    /// the head bound by some literal. Out: which variables are bound; `None` after
    /// reporting the first ungrounded one.
    fn grounded(&mut self, rule: &ast::Rule, l: &mut Lowered) -> Option<Vec<bool>> {
        let outside: Vec<VarId> = l
            .head_args
            .iter()
            .filter_map(|t| match t {
                Term::Var(v) => Some(*v),
                _ => None,
            })
            .collect();
        set_groups(&mut l.body, &outside, &mut l.vars, &mut l.occ);
        let mut bound = vec![false; l.vars.len()];
        if let Err((lit, what, v)) = check_bound(&l.body, &mut bound) {
            let within = l.spans[lit];
            let span = l.occ[v]
                .iter()
                .copied()
                .find(|s| s.start >= within.start && s.end <= within.end);
            let span = span.or_else(|| l.occ[v].first().copied()).unwrap_or(within);
            let msg = format!("ungrounded variable {} in {}", quote(&l.vars[v].0), what);
            self.error(span, msg);
            return None;
        }
        for (arg, a) in l.head_args.iter().zip(&rule.head.args) {
            if let Term::Var(v) = arg {
                if !bound[*v] {
                    let msg = format!("ungrounded variable {} in the head", quote(&l.vars[*v].0));
                    self.error(a.span(), msg);
                    return None;
                }
            }
        }
        Some(bound)
    }

    /// The rule's tier (0 without `@tier`); `None` after reporting a `@tier` outside
    /// a block or on a view.
    fn tier(&mut self, ann: &ast::Annotations, head: RelId, block: Option<BlockId>) -> Option<u32> {
        match ann.tier {
            Some((_, span)) if block.is_none() => {
                self.error(
                    span,
                    "@tier is only allowed on rules inside a .fixpoint block",
                );
                None
            }
            Some((_, span)) if self.relations[head].kind == RelKind::View => {
                let msg = format!(
                    "@tier applies to accumulating relations; {} is a view",
                    quote(&self.relations[head].name)
                );
                self.error(span, msg);
                None
            }
            Some((t, _)) => Some(t),
            None => Some(0),
        }
    }

    /// Whether the rule's `@ungated` (if any) is allowed: inside a block, on an
    /// accumulating relation, without `@tier` or `@explain`. Reports it if not.
    fn ungated_allowed(
        &mut self,
        ann: &ast::Annotations,
        head: RelId,
        block: Option<BlockId>,
    ) -> bool {
        let Some(span) = ann.ungated else {
            return true;
        };
        let why = if block.is_none() {
            Some("@ungated is only allowed on rules inside a .fixpoint block".to_string())
        } else if self.relations[head].kind == RelKind::View {
            Some(format!(
                "@ungated applies to accumulating relations; {} is a view",
                quote(&self.relations[head].name)
            ))
        } else if ann.tier.is_some() {
            Some("an @ungated rule has no tier: it holds back none and none holds it back".into())
        } else if ann.explain.is_some() {
            Some("@ungated derivations are bookkeeping and are not explained; drop @explain or @ungated".into())
        } else {
            None
        };
        match why {
            Some(why) => {
                self.error(span, why);
                false
            }
            None => true,
        }
    }
}

/// A rule as lowered, before binding analysis: its body literals with their spans,
/// its head terms, its variables (name, type) and where each is written.
struct Lowered {
    body: Vec<Literal>,
    spans: Vec<Span>,
    head_args: Vec<Term>,
    vars: Vec<(String, Type)>,
    occ: Vec<Vec<Span>>,
}

enum ConstVal {
    Num(i32),
    Sym(String),
}

fn const_value(e: &ast::Expr) -> Option<ConstVal> {
    match e {
        ast::Expr::Number(n, _) => Some(ConstVal::Num(*n)),
        ast::Expr::Symbol(s, _) => Some(ConstVal::Sym(s.clone())),
        ast::Expr::Neg(inner, _) => match const_value(inner)? {
            ConstVal::Num(n) => Some(ConstVal::Num(n.wrapping_neg())),
            ConstVal::Sym(_) => None,
        },
        ast::Expr::Binary(op, a, b, _) => match (const_value(a)?, const_value(b)?) {
            (ConstVal::Num(x), ConstVal::Num(y)) => lower_binop(*op).eval(x, y).map(ConstVal::Num),
            _ => None,
        },
        _ => None,
    }
}

fn lower_binop(op: ast::BinOp) -> BinOp {
    match op {
        ast::BinOp::Add => BinOp::Add,
        ast::BinOp::Sub => BinOp::Sub,
        ast::BinOp::Mul => BinOp::Mul,
        ast::BinOp::Div => BinOp::Div,
        ast::BinOp::Rem => BinOp::Rem,
    }
}

fn lower_cmp(op: ast::CmpOp) -> CmpOp {
    match op {
        ast::CmpOp::Eq => CmpOp::Eq,
        ast::CmpOp::Ne => CmpOp::Ne,
        ast::CmpOp::Lt => CmpOp::Lt,
        ast::CmpOp::Le => CmpOp::Le,
        ast::CmpOp::Gt => CmpOp::Gt,
        ast::CmpOp::Ge => CmpOp::Ge,
    }
}

/// Per-rule state: the variable table and literals produced by rewriting.
struct RuleChecker<'c, 'a> {
    c: &'c mut Checker<'a>,
    vars: Vec<(String, Type)>,
    names: HashMap<String, VarId>,
    /// `fresh = expr` comparisons made from expressions inside atoms, with their spans.
    extra: Vec<(Literal, Span)>,
    /// Where each variable is written, for diagnostics.
    occ: Vec<Vec<Span>>,
}

impl RuleChecker<'_, '_> {
    fn fresh(&mut self, ty: Type) -> VarId {
        let id = self.vars.len();
        self.vars.push((format!("_{id}"), ty));
        self.occ.push(Vec::new());
        id
    }

    /// The variable for a name, checking its type against `ty`.
    fn var(&mut self, ident: &ast::Ident, ty: Option<Type>) -> Option<VarId> {
        match self.names.get(&ident.name) {
            Some(&v) => {
                self.occ[v].push(ident.span);
                if let Some(ty) = ty {
                    let have = self.vars[v].1;
                    if have != ty {
                        self.c.error(
                            ident.span,
                            format!(
                                "type mismatch: variable {} is a {} here but a {} elsewhere in the rule",
                                quote(&ident.name),
                                ty.name(),
                                have.name()
                            ),
                        );
                        return None;
                    }
                }
                Some(v)
            }
            None => {
                let v = self.vars.len();
                self.vars
                    .push((ident.name.clone(), ty.unwrap_or(Type::Number)));
                self.occ.push(vec![ident.span]);
                self.names.insert(ident.name.clone(), v);
                Some(v)
            }
        }
    }

    /// An argument of an atom at column `col` of `rel` (type `ty`).
    fn term(
        &mut self,
        arg: &ast::Expr,
        ty: Type,
        rel: RelId,
        col: usize,
        in_agg: bool,
    ) -> Option<Term> {
        match arg {
            ast::Expr::Var(id) => self.var(id, Some(ty)).map(Term::Var),
            ast::Expr::Wildcard(_) => {
                if in_agg {
                    Some(Term::Var(self.fresh(ty)))
                } else {
                    Some(Term::Wild)
                }
            }
            _ => {
                if let Some(c) = const_value(arg) {
                    return match (c, ty) {
                        (ConstVal::Num(n), Type::Number) => Some(Term::Const(n)),
                        (ConstVal::Sym(s), Type::Symbol) => {
                            Some(Term::Const(self.c.symbols.intern(&s)))
                        }
                        (c, ty) => {
                            let found = if matches!(c, ConstVal::Num(_)) {
                                "number"
                            } else {
                                "symbol"
                            };
                            let (cname, rname) = (
                                self.c.relations[rel].columns[col].0.clone(),
                                self.c.relations[rel].name.clone(),
                            );
                            self.c.error(
                                arg.span(),
                                format!(
                                    "type mismatch: column {} of {} is a {}, found a {}",
                                    quote(&cname),
                                    quote(&rname),
                                    ty.name(),
                                    found
                                ),
                            );
                            None
                        }
                    };
                }
                let (e, ety) = self.expr(arg)?;
                if ety != ty {
                    self.c.error(
                        arg.span(),
                        format!(
                            "type mismatch: expected a {}, found a {}",
                            ty.name(),
                            ety.name()
                        ),
                    );
                    return None;
                }
                let v = self.fresh(ty);
                self.extra.push((
                    Literal::Cmp {
                        lhs: Expr::Var(v),
                        op: CmpOp::Eq,
                        rhs: e,
                        text: false,
                    },
                    arg.span(),
                ));
                Some(Term::Var(v))
            }
        }
    }

    fn expr(&mut self, e: &ast::Expr) -> Option<(Expr, Type)> {
        match e {
            ast::Expr::Var(id) => {
                let v = self.var(id, None)?;
                Some((Expr::Var(v), self.vars[v].1))
            }
            ast::Expr::Wildcard(span) => {
                self.c
                    .error(*span, "'_' is only allowed as an argument of an atom");
                None
            }
            ast::Expr::Number(n, _) => Some((Expr::Const(*n), Type::Number)),
            ast::Expr::Symbol(s, _) => Some((Expr::Const(self.c.symbols.intern(s)), Type::Symbol)),
            ast::Expr::Neg(inner, span) => {
                let (x, t) = self.expr(inner)?;
                if t != Type::Number {
                    self.c.error(*span, "arithmetic on a symbol");
                    return None;
                }
                Some((Expr::Neg(Box::new(x)), Type::Number))
            }
            ast::Expr::Binary(op, a, b, span) => {
                let (x, tx) = self.expr(a)?;
                let (y, ty) = self.expr(b)?;
                if tx != Type::Number || ty != Type::Number {
                    self.c.error(*span, "arithmetic on a symbol");
                    return None;
                }
                Some((
                    Expr::Binary(lower_binop(*op), Box::new(x), Box::new(y)),
                    Type::Number,
                ))
            }
        }
    }

    fn atom_terms(&mut self, atom: &ast::Atom, in_agg: bool) -> Option<(RelId, Vec<Term>)> {
        let rel = self.c.lookup(&atom.relation)?;
        if !self.c.arity(rel, atom) {
            return None;
        }
        let mut args = Vec::new();
        for (i, a) in atom.args.iter().enumerate() {
            let ty = self.c.relations[rel].columns[i].1;
            args.push(self.term(a, ty, rel, i, in_agg)?);
        }
        Some((rel, args))
    }

    /// A body literal (`in_agg`: inside an aggregate's body), lowered; `None` after
    /// reporting an error.
    fn literal(&mut self, lit: &ast::Literal, in_agg: bool) -> Option<Literal> {
        match lit {
            ast::Literal::Atom(atom) => {
                let (rel, args) = self.atom_terms(atom, in_agg)?;
                Some(Literal::Atom { rel, args })
            }
            ast::Literal::Negated(atom, _) => {
                let rel = self.c.lookup(&atom.relation)?;
                if !self.c.arity(rel, atom) {
                    return None;
                }
                let mut args = Vec::new();
                for (i, a) in atom.args.iter().enumerate() {
                    let ty = self.c.relations[rel].columns[i].1;
                    // Wildcards stay wildcards in a negation, even inside an aggregate.
                    args.push(self.term(a, ty, rel, i, false)?);
                }
                Some(Literal::Neg { rel, args })
            }
            ast::Literal::Compare(a, op, b, span) => self.compare(a, *op, b, *span),
            ast::Literal::Aggregate(agg) => self.aggregate(agg),
        }
    }

    /// A comparison: both sides of one type (a bare variable not seen before takes
    /// the other side's); symbols ordered by their text.
    fn compare(
        &mut self,
        a: &ast::Expr,
        op: ast::CmpOp,
        b: &ast::Expr,
        span: Span,
    ) -> Option<Literal> {
        let (lhs, lt, rhs, rt) = match (a, b) {
            (ast::Expr::Var(v), other) if !self.names.contains_key(&v.name) => {
                let (r, rt) = self.expr(other)?;
                let l = self.var(v, Some(rt))?;
                (Expr::Var(l), rt, r, rt)
            }
            (other, ast::Expr::Var(v)) if !self.names.contains_key(&v.name) => {
                let (l, lt) = self.expr(other)?;
                let r = self.var(v, Some(lt))?;
                (l, lt, Expr::Var(r), lt)
            }
            _ => {
                let (l, lt) = self.expr(a)?;
                let (r, rt) = self.expr(b)?;
                (l, lt, r, rt)
            }
        };
        if lt != rt {
            let msg = format!(
                "type mismatch: comparing a {} with a {}",
                lt.name(),
                rt.name()
            );
            self.c.error(span, msg);
            return None;
        }
        let op = lower_cmp(op);
        let text = lt == Type::Symbol && !matches!(op, CmpOp::Eq | CmpOp::Ne);
        Some(Literal::Cmp { lhs, op, rhs, text })
    }

    /// An aggregate: its body lowered on its own (the comparisons its atoms'
    /// expressions become stay inside it), its target and result numbers; a result
    /// that is an expression becomes a fresh variable equated to it after it.
    fn aggregate(&mut self, agg: &ast::Aggregate) -> Option<Literal> {
        let saved = std::mem::take(&mut self.extra);
        let mut body = Vec::new();
        for l in &agg.body {
            body.push(self.literal(l, true)?);
        }
        body.extend(self.extra.drain(..).map(|(l, _)| l));
        self.extra = saved;
        let func = match agg.func {
            ast::AggFunc::Count => AggFunc::Count,
            ast::AggFunc::Sum => AggFunc::Sum,
            ast::AggFunc::Min => AggFunc::Min,
            ast::AggFunc::Max => AggFunc::Max,
        };
        let target = match &agg.target {
            Some(t) => {
                let (e, ty) = self.expr(t)?;
                if ty != Type::Number {
                    self.c.error(t.span(), "only numbers can be aggregated");
                    return None;
                }
                Some(e)
            }
            None => None,
        };
        let result = match &agg.result {
            ast::Expr::Var(id) => self.var(id, Some(Type::Number))?,
            other => {
                let (e, ty) = self.expr(other)?;
                if ty != Type::Number {
                    self.c.error(
                        other.span(),
                        "type mismatch: an aggregate's result is a number",
                    );
                    return None;
                }
                let v = self.fresh(Type::Number);
                let equal = Literal::Cmp {
                    lhs: e,
                    op: CmpOp::Eq,
                    rhs: Expr::Var(v),
                    text: false,
                };
                self.extra.push((equal, agg.span));
                v
            }
        };
        Some(Literal::Agg {
            result,
            func,
            target,
            body,
            group: Vec::new(),
        })
    }
}

/// Variables a literal shares with the rest of its rule: for an aggregate only its
/// result (its target and body are its own scope).
fn outer_vars(l: &Literal, out: &mut Vec<VarId>) {
    match l {
        Literal::Agg { result, .. } => {
            if !out.contains(result) {
                out.push(*result);
            }
        }
        _ => l.vars(out),
    }
}

/// Fills in each aggregate's `group`: the variables of its body (and target) that also
/// occur outside it: in `outside` (the head), in the other literals, or as another
/// aggregate's result. As in Souffle, every other variable of an aggregate is local to
/// it, even when another aggregate of the rule uses the same name: each aggregate's
/// locals are renamed to fresh variables (appended to `vars` and `occ`), so that
/// `t = sum p : { sale(s, _, p) }, m = max p : { sale(s, _, p) }` aggregates two
/// different `p`s.
fn set_groups(
    body: &mut [Literal],
    outside: &[VarId],
    vars: &mut Vec<(String, Type)>,
    occ: &mut Vec<Vec<Span>>,
) {
    for i in 0..body.len() {
        if !matches!(body[i], Literal::Agg { .. }) {
            continue;
        }
        let mut others: Vec<VarId> = outside.to_vec();
        for (j, l) in body.iter().enumerate() {
            if j != i {
                outer_vars(l, &mut others);
            }
        }
        if let Literal::Agg {
            target,
            body: inner,
            group,
            ..
        } = &mut body[i]
        {
            let mut mine = Vec::new();
            if let Some(t) = target {
                t.vars(&mut mine);
            }
            inner.iter().for_each(|l| l.vars(&mut mine));
            let (shared, local): (Vec<VarId>, Vec<VarId>) =
                mine.into_iter().partition(|v| others.contains(v));
            *group = shared;
            let renamed: HashMap<VarId, VarId> = local
                .into_iter()
                .map(|v| {
                    vars.push(vars[v].clone());
                    occ.push(occ[v].clone());
                    (v, vars.len() - 1)
                })
                .collect();
            let rename = |v: &mut VarId| {
                if let Some(n) = renamed.get(v) {
                    *v = *n;
                }
            };
            if let Some(t) = target {
                rename_expr(t, &rename);
            }
            inner.iter_mut().for_each(|l| rename_literal(l, &rename));
            // Nested aggregates: their groups are relative to the aggregate body.
            let mut inner_outside = group.clone();
            if let Some(t) = target {
                t.vars(&mut inner_outside);
            }
            set_groups(inner, &inner_outside, vars, occ);
        }
    }
}

/// Applies `f` to every variable of an expression.
fn rename_expr(e: &mut Expr, f: &dyn Fn(&mut VarId)) {
    match e {
        Expr::Var(v) => f(v),
        Expr::Const(_) => {}
        Expr::Binary(_, a, b) => {
            rename_expr(a, f);
            rename_expr(b, f);
        }
        Expr::Neg(a) => rename_expr(a, f),
    }
}

/// Applies `f` to every variable of a literal, aggregates' insides included.
fn rename_literal(l: &mut Literal, f: &dyn Fn(&mut VarId)) {
    match l {
        Literal::Atom { args, .. } | Literal::Neg { args, .. } => {
            for t in args {
                if let Term::Var(v) = t {
                    f(v);
                }
            }
        }
        Literal::Cmp { lhs, rhs, .. } => {
            rename_expr(lhs, f);
            rename_expr(rhs, f);
        }
        Literal::Agg {
            result,
            target,
            body,
            group,
            ..
        } => {
            f(result);
            if let Some(t) = target {
                rename_expr(t, f);
            }
            for v in group.iter_mut() {
                f(v);
            }
            body.iter_mut().for_each(|l| rename_literal(l, f));
        }
    }
}

/// The lone variable of an expression, if it is just a variable.
fn lone_var(e: &Expr) -> Option<VarId> {
    match e {
        Expr::Var(v) => Some(*v),
        _ => None,
    }
}

fn all_bound(e: &Expr, bound: &[bool]) -> bool {
    let mut vs = Vec::new();
    e.vars(&mut vs);
    vs.iter().all(|v| bound[*v])
}

/// Whether a literal can be evaluated with the variables in `bound`, and if so the
/// variable it binds (positive atoms bind all theirs; see [`literal_binds`]).
pub(crate) fn ready(l: &Literal, bound: &[bool]) -> bool {
    match l {
        Literal::Atom { .. } => true,
        Literal::Neg { args, .. } => args
            .iter()
            .all(|t| !matches!(t, Term::Var(v) if !bound[*v])),
        Literal::Cmp { lhs, op, rhs, .. } => {
            (all_bound(lhs, bound) && all_bound(rhs, bound))
                || (*op == CmpOp::Eq
                    && ((lone_var(lhs).is_some_and(|v| !bound[v]) && all_bound(rhs, bound))
                        || (lone_var(rhs).is_some_and(|v| !bound[v]) && all_bound(lhs, bound))))
        }
        Literal::Agg { group, .. } => group.iter().all(|v| bound[*v]),
    }
}

/// Marks the variables a ready literal binds.
pub(crate) fn literal_binds(l: &Literal, bound: &mut [bool]) {
    match l {
        Literal::Atom { args, .. } => {
            for t in args {
                if let Term::Var(v) = t {
                    bound[*v] = true;
                }
            }
        }
        Literal::Neg { .. } => {}
        Literal::Cmp { lhs, rhs, .. } => {
            for e in [lhs, rhs] {
                if let Some(v) = lone_var(e) {
                    bound[v] = true;
                }
            }
        }
        Literal::Agg { result, .. } => bound[*result] = true,
    }
}

/// Checks that the literals can be evaluated in some order with every variable bound
/// where it is needed. On failure returns (index of the first literal that cannot
/// run, what kind of place, the unbound variable).
fn check_bound(body: &[Literal], bound: &mut [bool]) -> Result<(), (usize, &'static str, VarId)> {
    let mut done = vec![false; body.len()];
    loop {
        let mut progress = false;
        for (i, l) in body.iter().enumerate() {
            if !done[i] && ready(l, bound) {
                if let Literal::Agg {
                    body: inner,
                    group,
                    target,
                    ..
                } = l
                {
                    let mut inner_bound = vec![false; bound.len()];
                    for v in group {
                        inner_bound[*v] = true;
                    }
                    check_bound(inner, &mut inner_bound).map_err(|(_, what, v)| (i, what, v))?;
                    // The target is evaluated over the body's bindings.
                    let mut tv = Vec::new();
                    if let Some(t) = target {
                        t.vars(&mut tv);
                    }
                    if let Some(v) = tv.into_iter().find(|v| !inner_bound[*v]) {
                        return Err((i, "an aggregate's target", v));
                    }
                }
                literal_binds(l, bound);
                done[i] = true;
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    let Some(i) = done.iter().position(|d| !d) else {
        return Ok(());
    };
    let unbound = |vs: Vec<VarId>, bound: &[bool]| vs.into_iter().find(|v| !bound[*v]);
    let mut vs = Vec::new();
    match &body[i] {
        Literal::Neg { .. } => {
            body[i].vars(&mut vs);
            Err((i, "a negation", unbound(vs, bound).unwrap_or(0)))
        }
        Literal::Cmp { lhs, rhs, .. } => {
            for e in [lhs, rhs] {
                let mut ev = Vec::new();
                e.vars(&mut ev);
                if let Some(v) = unbound(ev, bound) {
                    let what = if lone_var(e).is_some() {
                        "a comparison"
                    } else {
                        "an arithmetic expression"
                    };
                    return Err((i, what, v));
                }
            }
            Err((i, "a comparison", 0))
        }
        Literal::Agg { group, .. } => Err((
            i,
            "an aggregate",
            unbound(group.clone(), bound).unwrap_or(0),
        )),
        Literal::Atom { .. } => unreachable!("positive atoms are always ready"),
    }
}

/// Splits an `@explain` (or `@hint`: `what`) template into text and `{var}` /
/// `{var:format}` pieces. `{{` and `}}` stand for literal braces.
fn parse_template(text: &str, vars: &[(String, Type)], what: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut lit = String::new();
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                lit.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                lit.push('}');
            }
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => name.push(c),
                        None => return Err(format!("unclosed '{{' in {what} template")),
                    }
                }
                let (var, format) = match name.split_once(':') {
                    Some((v, f)) => (v.trim().to_string(), Some(f.trim().to_string())),
                    None => (name.trim().to_string(), None),
                };
                let Some(id) = vars.iter().position(|(n, _)| *n == var) else {
                    return Err(format!(
                        "unknown variable {} in {what} template",
                        quote(&var)
                    ));
                };
                if !lit.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut lit)));
                }
                pieces.push(Piece::Var { var: id, format });
            }
            '}' => return Err(format!("unmatched '}}' in {what} template")),
            c => lit.push(c),
        }
    }
    if !lit.is_empty() {
        pieces.push(Piece::Text(lit));
    }
    Ok(pieces)
}
