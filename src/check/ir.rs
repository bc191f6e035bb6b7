//! The checked program: names resolved to indices, types and arities verified,
//! every variable bound, strata computed. This is what the planner (and the test
//! suite's reference evaluator) consume; nothing downstream looks at the syntax tree.

use crate::diag::{SourceMap, Span};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

pub type RelId = usize;
pub type VarId = usize;
pub type BlockId = usize;

/// A value in a tuple: numbers as themselves, symbols as their index in [`Symbols`].
pub type Value = i32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Number,
    Symbol,
}

impl Type {
    pub fn name(self) -> &'static str {
        match self {
            Type::Number => "number",
            Type::Symbol => "symbol",
        }
    }
}

/// How a relation gets its contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelKind {
    /// Defined by facts, inputs and rules, evaluated to its least fixpoint.
    Plain,
    /// Declared with `.decl` inside a fixpoint block: only ever grows from round to round.
    Accumulating,
    /// Declared with `.view` inside a fixpoint block: recomputed each round.
    View,
}

#[derive(Clone, Debug)]
pub struct Relation {
    pub name: String,
    pub columns: Vec<(String, Type)>,
    pub kind: RelKind,
    /// The fixpoint block the relation was declared in.
    pub block: Option<BlockId>,
    pub input: bool,
    pub output: bool,
    /// A host's input whose facts enter the blocks that read them at the round
    /// their last column gives, not at round 0 (a split's `R__stepped`, see
    /// [`crate::check::split`]): what a host hands over after a block's round N
    /// comes in as if derived in that round.
    pub enters_at_round: bool,
    pub span: Span,
}

impl Relation {
    pub fn arity(&self) -> usize {
        self.columns.len()
    }
}

/// A term in an atom.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    Var(VarId),
    Const(Value),
    /// `_`: any value (in a negation: there is no tuple with any value here).
    Wild,
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

impl CmpOp {
    /// Compares two numbers (or two symbols for `=` and `!=`).
    pub fn eval(self, a: Value, b: Value) -> bool {
        self.holds(a.cmp(&b))
    }
    /// Whether the comparison holds for operands that compare as `ord`.
    pub fn holds(self, ord: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            CmpOp::Eq => ord == Equal,
            CmpOp::Ne => ord != Equal,
            CmpOp::Lt => ord == Less,
            CmpOp::Le => ord != Greater,
            CmpOp::Gt => ord == Greater,
            CmpOp::Ge => ord != Less,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinOp {
    /// Wrapping 32-bit arithmetic; division or remainder by zero has no value
    /// (the binding that needs it derives nothing).
    pub fn eval(self, a: Value, b: Value) -> Option<Value> {
        match self {
            BinOp::Add => Some(a.wrapping_add(b)),
            BinOp::Sub => Some(a.wrapping_sub(b)),
            BinOp::Mul => Some(a.wrapping_mul(b)),
            BinOp::Div => (b != 0).then(|| a.wrapping_div(b)),
            BinOp::Rem => (b != 0).then(|| a.wrapping_rem(b)),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Var(VarId),
    Const(Value),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
}

impl Expr {
    /// Evaluates with `lookup` giving each variable's value; `None` on division by zero.
    pub fn eval(&self, lookup: &dyn Fn(VarId) -> Value) -> Option<Value> {
        match self {
            Expr::Var(v) => Some(lookup(*v)),
            Expr::Const(c) => Some(*c),
            Expr::Binary(op, a, b) => op.eval(a.eval(lookup)?, b.eval(lookup)?),
            Expr::Neg(a) => Some(a.eval(lookup)?.wrapping_neg()),
        }
    }
    pub fn vars(&self, out: &mut Vec<VarId>) {
        match self {
            Expr::Var(v) => {
                if !out.contains(v) {
                    out.push(*v)
                }
            }
            Expr::Const(_) => {}
            Expr::Binary(_, a, b) => {
                a.vars(out);
                b.vars(out);
            }
            Expr::Neg(a) => a.vars(out),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggFunc {
    Count,
    Sum,
    Min,
    Max,
}

/// A body literal. Expressions inside atoms have been rewritten by the checker into
/// fresh variables plus an `Eq` comparison, so atoms hold only variables, constants
/// and wildcards.
#[derive(Clone, Debug)]
pub enum Literal {
    Atom {
        rel: RelId,
        args: Vec<Term>,
    },
    Neg {
        rel: RelId,
        args: Vec<Term>,
    },
    /// A filter, or, for `x = e` / `e = x` with `x` not yet bound, an assignment.
    Cmp {
        lhs: Expr,
        op: CmpOp,
        rhs: Expr,
        /// Symbols ordered by their text (`<`, `<=`, `>`, `>=` on symbols, as Soufflé
        /// orders them); otherwise the values are compared as numbers (symbols are
        /// equal exactly when their indices are).
        text: bool,
    },
    /// `result = func target : { body }`. `group` lists the body's variables that are
    /// bound outside the aggregate (they must be, by the rest of the rule); every other
    /// variable of the body is local to it. Wildcards in the body's atoms were turned
    /// into local variables, so a count counts distinct matching tuples.
    Agg {
        result: VarId,
        func: AggFunc,
        target: Option<Expr>,
        body: Vec<Literal>,
        group: Vec<VarId>,
    },
}

impl Literal {
    /// Appends the variables the literal mentions that `out` does not hold yet (for an
    /// aggregate: its result, target and body, whose variables include its group).
    pub fn vars(&self, out: &mut Vec<VarId>) {
        let push = |v: &VarId, out: &mut Vec<VarId>| {
            if !out.contains(v) {
                out.push(*v)
            }
        };
        match self {
            Literal::Atom { args, .. } | Literal::Neg { args, .. } => {
                for t in args {
                    if let Term::Var(v) = t {
                        push(v, out);
                    }
                }
            }
            Literal::Cmp { lhs, rhs, .. } => {
                lhs.vars(out);
                rhs.vars(out);
            }
            Literal::Agg {
                result,
                target,
                body,
                ..
            } => {
                push(result, out);
                if let Some(t) = target {
                    t.vars(out);
                }
                body.iter().for_each(|l| l.vars(out));
            }
        }
    }
}

/// Every atom of `body`, aggregates' bodies included: (negated, relation, args).
/// An atom inside an aggregate counts as negated: its values reach the aggregate.
pub(crate) fn atoms_of<'a>(
    body: &'a [Literal],
    inside: bool,
    out: &mut Vec<(bool, RelId, &'a [Term])>,
) {
    for l in body {
        match l {
            Literal::Atom { rel, args } => out.push((inside, *rel, args)),
            Literal::Neg { rel, args } => out.push((true, *rel, args)),
            Literal::Agg { body, .. } => atoms_of(body, true, out),
            Literal::Cmp { .. } => {}
        }
    }
}

/// `@explain` template, split into text and variable references.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    /// `{var}` or `{var:format}`; the format name is interpreted by the client.
    Var {
        var: VarId,
        format: Option<String>,
    },
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub head: RelId,
    /// Head terms: variables or constants (head expressions became assignments).
    pub head_args: Vec<Term>,
    pub body: Vec<Literal>,
    /// Variable names and types; fresh variables made by the checker are named `_N`.
    pub vars: Vec<(String, Type)>,
    /// `@label`, or `<relation>@<line>` when not given.
    pub label: String,
    pub explain: Option<Vec<Piece>>,
    /// `@hint`: a vaguer wording; its variables follow the explanation's in an
    /// event's bindings (see [`Rule::template_vars`]).
    pub hint: Option<Vec<Piece>>,
    pub tier: u32,
    /// `@ungated`: the rule's new facts are added in every round and hold back no
    /// tier (bookkeeping whose consequences the block's views already reflect).
    pub ungated: bool,
    pub block: Option<BlockId>,
    pub span: Span,
}

impl Rule {
    /// The `@explain` template's variables, in the order they first appear: the
    /// first bindings of an explain event. Two events of one fact that differ only
    /// after these read the same. Empty for a rule without `@explain`.
    pub fn explain_vars(&self) -> Vec<VarId> {
        let mut vs = Vec::new();
        push_new_vars(self.explain.iter().flatten(), &mut vs);
        vs
    }

    /// The variables an explain event carries, in order: the `@explain` template's,
    /// then the `@hint` template's that are new. Empty for a rule without `@explain`.
    pub fn template_vars(&self) -> Vec<VarId> {
        let mut vs = self.explain_vars();
        if self.explain.is_some() {
            push_new_vars(self.hint.iter().flatten(), &mut vs);
        }
        vs
    }
}

/// Appends the variables the pieces name that `vs` does not hold yet, in order.
fn push_new_vars<'a>(pieces: impl Iterator<Item = &'a Piece>, vs: &mut Vec<VarId>) {
    for p in pieces {
        if let Piece::Var { var, .. } = p {
            if !vs.contains(var) {
                vs.push(*var);
            }
        }
    }
}

/// A `.fixpoint` block, or a recursive component outside any block (which is
/// evaluated the same way: for monotone rules inflationary and least fixpoint agree).
#[derive(Clone, Debug)]
pub struct Block {
    /// Column holding the instance, for tiers.
    pub key: Option<usize>,
    /// Accumulating relations of the block, in declaration order.
    pub state: Vec<RelId>,
    /// View relations of the block, in an order where each view only uses earlier ones.
    pub views: Vec<RelId>,
    /// True for a `.fixpoint` block written by the user.
    pub explicit: bool,
    pub span: Span,
}

/// One step of the evaluation order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stratum {
    /// A relation defined without recursion (from facts, inputs and lower strata).
    Flat(RelId),
    /// A block (explicit or a recursive component), evaluated by rounds.
    Block(BlockId),
}

/// Interned strings. Symbol values are indices into this table.
///
/// Clones share one table: a session interns the symbols of its facts into the
/// program's table, and the worker threads that order symbols by their text (`<` on
/// symbols, as Soufflé compares them) read the names from it. A name is interned
/// before any row carries its symbol, so every symbol a worker sees has its name here.
#[derive(Clone, Debug, Default)]
pub struct Symbols(Arc<RwLock<SymbolTable>>);

#[derive(Debug, Default)]
struct SymbolTable {
    names: Vec<Arc<str>>,
    index: HashMap<Arc<str>, Value>,
}

impl Symbols {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, SymbolTable> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }
    pub fn intern(&mut self, s: &str) -> Value {
        if let Some(v) = self.lookup(s) {
            return v;
        }
        let mut t = self.0.write().unwrap_or_else(|e| e.into_inner());
        if let Some(&v) = t.index.get(s) {
            return v;
        }
        let v = t.names.len() as Value;
        let name: Arc<str> = s.into();
        t.names.push(name.clone());
        t.index.insert(name, v);
        v
    }
    pub fn lookup(&self, s: &str) -> Option<Value> {
        self.read().index.get(s).copied()
    }
    pub fn name(&self, v: Value) -> Arc<str> {
        self.read()
            .names
            .get(v as usize)
            .cloned()
            .unwrap_or_else(|| "<unknown symbol>".into())
    }
    /// Orders two symbols by their text (byte-wise, as Soufflé's `<` on symbols).
    pub fn compare(&self, a: Value, b: Value) -> std::cmp::Ordering {
        if a == b {
            return std::cmp::Ordering::Equal;
        }
        let t = self.read();
        let name = |v: Value| t.names.get(v as usize).map_or("", |s| &**s);
        name(a).cmp(name(b))
    }
    pub fn len(&self) -> usize {
        self.read().names.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A checked program.
#[derive(Clone, Debug)]
pub struct Program {
    pub sources: SourceMap,
    pub relations: Vec<Relation>,
    /// Facts written in the program text.
    pub facts: Vec<(RelId, Vec<Value>)>,
    pub rules: Vec<Rule>,
    pub blocks: Vec<Block>,
    /// Evaluation order: every stratum only reads relations of earlier strata and its own.
    pub strata: Vec<Stratum>,
    pub symbols: Symbols,
}

impl Program {
    /// Whether any rule is `@ungated`.
    pub fn has_ungated(&self) -> bool {
        self.rules.iter().any(|r| r.ungated)
    }

    /// The program with its `@ungated` rules gated as tier 0. For sessions that show
    /// the state round by round (stepping, `dump --rounds`): there a round must be
    /// one step, placements in one round and the eliminations they cause in the next,
    /// and an ungated rule would let the next tier fire in the same round.
    pub fn gated(&self) -> Program {
        let mut p = self.clone();
        for r in &mut p.rules {
            r.ungated = false;
        }
        p
    }

    pub fn relation(&self, name: &str) -> Option<RelId> {
        self.relations.iter().position(|r| r.name == name)
    }

    /// The constants of every atom of the rules that reads `rel` (negated ones and
    /// aggregates' bodies too), each as (column, value) pairs: a fact of `rel` that
    /// matches none of them is read by no rule, so adding or removing it changes
    /// nothing the rules derive. None when some atom reads every fact (has no
    /// constant); no patterns at all when no rule reads `rel`.
    pub fn read_patterns(&self, rel: RelId) -> Option<Vec<Vec<(usize, Value)>>> {
        let mut atoms = Vec::new();
        for r in &self.rules {
            atoms_of(&r.body, false, &mut atoms);
        }
        (atoms.into_iter().filter(|(_, r, _)| *r == rel))
            .map(|(_, _, args)| {
                let consts: Vec<(usize, Value)> = (args.iter().enumerate())
                    .filter_map(|(i, t)| match t {
                        Term::Const(v) => Some((i, *v)),
                        _ => None,
                    })
                    .collect();
                (!consts.is_empty()).then_some(consts)
            })
            .collect()
    }
    /// Renders a tuple of a relation the way `.output` files show it.
    pub fn format_value(&self, ty: Type, v: Value) -> String {
        match ty {
            Type::Number => v.to_string(),
            Type::Symbol => self.symbols.name(v).to_string(),
        }
    }
}
