//! Plan -> differential dataflow.
//!
//! [`render`] builds, inside one timely worker's dataflow, the operators a [`Plan`]
//! describes, over one row type (a fixed-width array, 2, 4, 6 or [`row::WIDTH`] values
//! wide as the plan needs: see [`render::width`]): interpreting plans over one row
//! type keeps compile times flat and lets any program run without generating code. What flows in: one input collection per relation (facts inserted
//! and retracted by the session). What flows out: for every observed relation its
//! changes tagged with the round a fact first appeared, and explain events; both are
//! handed to the session by each worker's [`Dataflow::take_changes`] (routed to worker 0 first
//! when several processes run). [`time`] holds the two renderings: incremental
//! (product-ordered rounds) and batch (totally ordered rounds).
//!
//! [`Plan`]: crate::plan::Plan

mod aggregate;
mod block;
mod pipeline;
pub mod profile;
pub mod render;
pub mod row;
pub mod sorted;
mod tagged;
mod tail;
pub mod time;

pub use render::{render, Dataflow, Outputs};
pub use row::Row;
