//! Plan -> differential dataflow.
//!
//! [`render`] builds, inside one timely worker's dataflow, the operators a [`Plan`]
//! describes, over a single row type ([`Row`], a fixed-width array): interpreting
//! plans over one row type keeps compile times flat and lets any program run without
//! generating code. What flows in: one input collection per relation (facts inserted
//! and retracted by the session). What flows out: for every observed relation its
//! changes tagged with the round a fact first appeared, and explain events; both are
//! routed to worker 0 and handed to the session through [`Sink`].
//!
//! [`Plan`]: crate::plan::Plan

mod block;
mod pipeline;
pub mod render;
pub mod row;

pub use render::{render, Dataflow, Outputs, Sink};
pub use row::Row;
