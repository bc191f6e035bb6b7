//! Shared test support: a reference evaluator ([`naive`]), random program, fact and
//! update generators ([`gen`]), running and comparing the engine against the reference
//! ([`engine`]), plus small glue between names and `RelId`s.
//!
//! Every integration test that says `mod common;` compiles all of this; not every test
//! uses every function.
#![allow(dead_code)]

pub mod engine;
pub mod gen;
pub mod naive;

use std::collections::{BTreeMap, BTreeSet};

use sudolog::check::ir::{Program, RelId, Value};

/// Two ports the system says are free now, for tests that start two processes (a
/// fixed range can collide with other tests' ephemeral ports). Both listeners are
/// held until both ports are known, so the two differ.
pub fn free_ports() -> (u16, u16) {
    let (l0, l1) = (
        std::net::TcpListener::bind("127.0.0.1:0").unwrap(),
        std::net::TcpListener::bind("127.0.0.1:0").unwrap(),
    );
    let port = |l: &std::net::TcpListener| l.local_addr().unwrap().port();
    (port(&l0), port(&l1))
}

/// The `.input` relations of a checked program with their arities, in declaration
/// order: what [`gen::random_facts`] wants.
pub fn input_decls(p: &Program) -> Vec<(String, usize)> {
    p.relations
        .iter()
        .filter(|r| r.input)
        .map(|r| (r.name.clone(), r.arity()))
        .collect()
}

/// Every relation of a checked program with its arity.
pub fn all_decls(p: &Program) -> Vec<(String, usize)> {
    p.relations
        .iter()
        .map(|r| (r.name.clone(), r.arity()))
        .collect()
}

/// Named facts -> `(RelId, tuple)`, as [`naive::evaluate`] takes them. Panics on an
/// unknown relation name.
pub fn resolve(p: &Program, facts: &[(String, Vec<i32>)]) -> Vec<(RelId, Vec<Value>)> {
    facts
        .iter()
        .map(|(name, t)| {
            let rel = p
                .relation(name)
                .unwrap_or_else(|| panic!("no relation named {name}"));
            (rel, t.clone())
        })
        .collect()
}

/// `pool` without the facts the program itself states. (Program facts are permanent
/// both in the naive evaluator and in a session, where retracting one does nothing;
/// `tests/suite/engine_incremental.rs` deliberately keeps them in its pools to check that.)
pub fn without_program_facts(p: &Program, pool: &[(String, Vec<i32>)]) -> Vec<(String, Vec<i32>)> {
    pool.iter()
        .filter(|(name, t)| {
            let rel = p.relation(name);
            !p.facts.iter().any(|(r, u)| Some(*r) == rel && u == t)
        })
        .cloned()
        .collect()
}

/// The evaluator's result keyed by relation name.
pub fn by_name(p: &Program, n: &naive::Naive) -> BTreeMap<String, BTreeSet<Vec<Value>>> {
    p.relations
        .iter()
        .zip(&n.relations)
        .map(|(r, facts)| (r.name.clone(), facts.clone()))
        .collect()
}

/// A readable dump of a result, for assertion messages: one `rel(1, 2) @round` line per
/// fact, then one line per event.
pub fn render(p: &Program, n: &naive::Naive) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for (r, rel) in p.relations.iter().enumerate() {
        for fact in &n.relations[r] {
            let args: Vec<String> = rel
                .columns
                .iter()
                .zip(fact)
                .map(|((_, ty), v)| p.format_value(*ty, *v))
                .collect();
            let round = n.rounds[r].get(fact).copied().unwrap_or(0);
            let _ = writeln!(out, "{}({}) @{}", rel.name, args.join(", "), round);
        }
    }
    for (rule, round, head, bindings) in &n.events {
        let r = &p.rules[*rule];
        let _ = writeln!(
            out,
            "event {} ({}) round {}: {}{:?} {:?}",
            rule, r.label, round, p.relations[r.head].name, head, bindings
        );
    }
    out
}
