//! The union of several collections, each of its rows tagged on the way in, as one
//! operator: what a tagging map per collection and a `concatenate` after them do,
//! with one operator where they had n + 1. Inside a block's loop every operator
//! costs progress tracking in every round, whether data moves through it or not.
//!
//! In: the collections to tag (`parts`), a function of (part index, row, time) to
//! the tagged row, and collections already tagged (`pass`). Out: their union.

use differential_dataflow::{AsCollection, VecCollection as Collection};
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::builder_rc::OperatorBuilder;
use timely::dataflow::operators::generic::OutputBuilder;
use timely::dataflow::Scope;
use timely::progress::operate::FrontierInterest;
use timely::progress::Timestamp;

/// The union of `parts`, each row `r` of part `k` at time `t` as `tag(k, r, &t)`,
/// and of `pass` as they are: one operator in `scope`.
pub(crate) fn tagged_union<'s, T, D, E>(
    scope: Scope<'s, T>,
    name: &str,
    parts: Vec<Collection<'s, T, D>>,
    pass: Vec<Collection<'s, T, E>>,
    tag: impl Fn(usize, D, &T) -> E + 'static,
) -> Collection<'s, T, E>
where
    T: Timestamp,
    D: Clone + 'static,
    E: Clone + 'static,
{
    let mut builder = OperatorBuilder::new(name.to_string(), scope);
    let mut tagged: Vec<_> = (parts.into_iter())
        .map(|c| builder.new_input(c.inner, Pipeline))
        .collect();
    let mut passed: Vec<_> = (pass.into_iter())
        .map(|c| builder.new_input(c.inner, Pipeline))
        .collect();
    for i in 0..tagged.len() + passed.len() {
        builder.set_notify_for(i, FrontierInterest::Never);
    }
    let (output, stream) = builder.new_output();
    let mut output = OutputBuilder::from(output);
    builder.build(move |_capability| {
        move |_frontier| {
            let mut out = output.activate();
            for (k, input) in tagged.iter_mut().enumerate() {
                input.for_each(|cap, data: &mut Vec<(D, T, isize)>| {
                    let mut session = out.session(&cap);
                    for (r, t, d) in data.drain(..) {
                        let e = tag(k, r, &t);
                        session.give((e, t, d));
                    }
                });
            }
            for input in passed.iter_mut() {
                input.for_each(|cap, data: &mut Vec<(E, T, isize)>| {
                    out.session(&cap).give_container(data);
                });
            }
        }
    });
    stream.as_collection()
}
