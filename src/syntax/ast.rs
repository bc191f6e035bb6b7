//! The syntax tree of a rule program, as written.
//!
//! Nothing here is resolved or checked: names are strings, every node carries the
//! [`Span`] it was parsed from so later phases can point at it. The surface syntax
//! follows Soufflé (`.decl`, `.input`, `.output`, facts, rules, `!` negation,
//! comparisons, arithmetic, `count`/`sum`/`min`/`max` aggregates) plus three
//! extensions: `.fixpoint` blocks, rule annotations (`@label`, `@tier`, `@explain`),
//! and `.view` declarations inside fixpoint blocks.

use crate::diag::Span;

/// A name with the place it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A parsed program: its items in source order (includes already spliced in).
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug)]
pub enum Item {
    Decl(Decl),
    /// `.input a, b` (one entry per relation named)
    Input(Vec<Ident>),
    /// `.output a, b`
    Output(Vec<Ident>),
    /// `.type Name <: number` or `.type Name = symbol`: an alias of a primitive type.
    Type(TypeAlias),
    /// `edge(1, 2).`
    Fact(Atom),
    Rule(Rule),
    Fixpoint(FixpointBlock),
}

/// Whether a relation keeps its contents across the rounds of a fixpoint block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclKind {
    /// `.decl`: an ordinary relation; inside a fixpoint block, an accumulating one.
    Relation,
    /// `.view` (only inside a fixpoint block): recomputed each round from the block's
    /// accumulated relations; never accumulates.
    View,
}

/// `.decl name(a: number, b: symbol)`.
#[derive(Clone, Debug)]
pub struct Decl {
    pub name: Ident,
    pub params: Vec<Param>,
    pub kind: DeclKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: Ident,
    /// The type as written (`number`, `symbol`, or an alias declared with `.type`).
    pub ty: Ident,
}

/// `.type Name <: number` / `.type Name = symbol`.
#[derive(Clone, Debug)]
pub struct TypeAlias {
    pub name: Ident,
    pub base: Ident,
    pub span: Span,
}

/// `.fixpoint key K { items }`: relations declared inside accumulate over rounds
/// (inflationary semantics), negation and aggregation over them are allowed, and
/// rule tiers are gated per value of column `K` of the head.
#[derive(Clone, Debug)]
pub struct FixpointBlock {
    /// The column that names an instance, for tiers (`key 0`); `None` if not given.
    pub key: Option<(u32, Span)>,
    /// Declarations, rules and facts inside the block (no nested blocks).
    pub items: Vec<Item>,
    pub span: Span,
}

/// `rel(t1, ..., tn)`.
#[derive(Clone, Debug)]
pub struct Atom {
    pub relation: Ident,
    pub args: Vec<Expr>,
    pub span: Span,
}

/// Annotations written before a rule.
#[derive(Clone, Debug, Default)]
pub struct Annotations {
    /// `@label(name)` or `@label("name with spaces")`.
    pub label: Option<(String, Span)>,
    /// `@tier(N)`.
    pub tier: Option<(u32, Span)>,
    /// `@ungated`: the rule's facts are added in any round and hold back no tier.
    pub ungated: Option<Span>,
    /// `@explain("template {var} {var:format}")`.
    pub explain: Option<(String, Span)>,
    /// `@hint("template")`: a vaguer wording of the same deduction (a hint that
    /// names the technique and where to look, not what it finds).
    pub hint: Option<(String, Span)>,
}

/// `head :- body.`
#[derive(Clone, Debug)]
pub struct Rule {
    pub annotations: Annotations,
    pub head: Atom,
    pub body: Vec<Literal>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Literal {
    /// `rel(args)`
    Atom(Atom),
    /// `!rel(args)`
    Negated(Atom, Span),
    /// `a < b` and friends.
    Compare(Expr, CmpOp, Expr, Span),
    /// `result = func target : { body }` (`count` has no target).
    Aggregate(Aggregate),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggFunc {
    Count,
    Sum,
    Min,
    Max,
}

#[derive(Clone, Debug)]
pub struct Aggregate {
    /// The expression left of `=`: normally a variable.
    pub result: Expr,
    pub func: AggFunc,
    pub func_span: Span,
    /// `sum x`, `min x`, `max x`: the aggregated expression. `None` for `count`.
    pub target: Option<Expr>,
    pub body: Vec<Literal>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

#[derive(Clone, Debug)]
pub enum Expr {
    Var(Ident),
    /// `_`
    Wildcard(Span),
    /// An integer literal (already range-checked to i32).
    Number(i32, Span),
    /// A string literal, unescaped.
    Symbol(String, Span),
    Binary(BinOp, Box<Expr>, Box<Expr>, Span),
    /// Unary minus.
    Neg(Box<Expr>, Span),
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Var(i) => i.span,
            Expr::Wildcard(s) | Expr::Number(_, s) | Expr::Symbol(_, s) => *s,
            Expr::Binary(_, _, _, s) | Expr::Neg(_, s) => *s,
        }
    }
}

impl Literal {
    pub fn span(&self) -> Span {
        match self {
            Literal::Atom(a) => a.span,
            Literal::Negated(_, s) | Literal::Compare(_, _, _, s) => *s,
            Literal::Aggregate(a) => a.span,
        }
    }
}
