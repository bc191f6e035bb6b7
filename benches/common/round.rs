//! One round of the hand-written Sudoku loops (`search_baseline`, and
//! `sudoku_baseline`'s side that does what `datalog/singles.dl` does): naked and
//! hidden singles counted beside markers, so that a cell without candidates or a value
//! without a place shows as a contradiction, and optionally intersections.

use differential_dataflow::operators::arrange::{Arranged, TraceAgent};
use differential_dataflow::operators::{CountTotal, ThresholdTotal};
use differential_dataflow::trace::implementations::{KeySpine, ValSpine};
use differential_dataflow::trace::wrappers::enter::TraceEnter;
use differential_dataflow::VecCollection;
use timely::dataflow::Scope;

use super::strikes::strikes;

/// A collection inside a loop over a `u32` epoch.
pub type Inner<'s, D> = VecCollection<'s, (u32, u32), D, isize>;
/// A static `u8 -> u8` arrangement (`peer`, `member`) entered into the loop.
pub type Entered<'s> =
    Arranged<'s, TraceEnter<TraceAgent<ValSpine<u8, u8, u32, isize>>, (u32, u32)>>;

/// Rows `(node, cell, value)` arranged by themselves, outside the loop.
pub type Rows<'s> = Arranged<'s, TraceAgent<KeySpine<(u32, u8, u8), u32, isize>>>;
/// The same entered into the loop.
pub type EnteredRows<'s> =
    Arranged<'s, TraceEnter<TraceAgent<KeySpine<(u32, u8, u8), u32, isize>>, (u32, u32)>>;

/// The candidates each node starts from, entered into the loop both as rows and
/// arranged (once, outside the loop): the antijoin that leaves the round's
/// candidates and the intersections' semijoin read the arrangement, as sudolog's
/// antijoin straight on a relation's scan reads that relation's own arrangement.
pub struct Open<'s> {
    pub rows: Inner<'s, (u32, u8, u8)>,
    pub arranged: EnteredRows<'s>,
}

impl<'s> Open<'s> {
    /// The rows and their arrangement, both made outside the loop, entered into it.
    pub fn enter(
        rows: VecCollection<'_, u32, (u32, u8, u8), isize>,
        arranged: Rows<'_>,
        inner: Scope<'s, (u32, u32)>,
    ) -> Open<'s> {
        Open {
            rows: rows.enter(inner),
            arranged: arranged.enter(inner),
        }
    }

    /// The rows less those in `gone` (a set): the matches, found through the
    /// arrangement from outside the loop, taken off the rows.
    pub fn minus(&self, gone: Inner<'s, (u32, u8, u8)>) -> Inner<'s, (u32, u8, u8)> {
        let matched = self
            .arranged
            .clone()
            .join_core(gone.arrange_by_self(), |&pcv, &(), &()| Some(pcv))
            .negate();
        self.rows.clone().concat(matched)
    }

    /// The rows of `rows` (a set) that are also open.
    pub fn within(&self, rows: Inner<'s, (u32, u8, u8)>) -> Inner<'s, (u32, u8, u8)> {
        rows.arrange_by_self()
            .join_core(self.arranged.clone(), |&pcv, &(), &()| Some(pcv))
    }
}

/// What one round of the loop yields.
pub struct Round<'s> {
    pub next: Inner<'s, (u32, u8, u8)>,
    /// The round's candidates (`search_baseline` chooses its cell from them).
    #[allow(dead_code)]
    pub cand: Inner<'s, (u32, u8, u8)>,
    pub broken: Inner<'s, u32>,
    /// With intersections: the eliminations they make this round
    /// (`search_baseline` only).
    #[allow(dead_code)]
    pub pointing: Option<Inner<'s, (u32, u8, u8)>>,
}

/// A place's weight in its (group, value) count, beside the 1 that counts it: five
/// 10-bit fields, each summed over the places (a sum stays below 1,024). Field 0 is
/// the cell (a count of 1 holds its cell). Fields 1-4 hold x, x², y and y²: in a box
/// x is the cell's row and y its column, in a line x is the box along the line (y
/// unused). n places share one x exactly when n·Σx² = (Σx)², so a count says whether
/// its value is confined to one line of a box or one box of a line: intersections
/// read the same count as hidden singles, with no join.
fn place_weight(g: u8, c: u8) -> isize {
    let (r, k) = (c as isize / 9, c as isize % 9);
    let (x, y) = match g {
        0..=8 => (k / 3, 0),
        9..=17 => (r / 3, 0),
        _ => (r, k),
    };
    [c as isize, x, x * x, y, y * y]
        .iter()
        .enumerate()
        .map(|(i, f)| f << (10 * i))
        .sum()
}

/// Field `i` of a sum of `place_weight`s.
fn field(w: isize, i: usize) -> isize {
    (w >> (10 * i)) & 1023
}

/// Intersections: the cells a (group, value) count of `n` places, with summed
/// weights `w`, strikes the value from. A box whose places lie in one line strikes
/// the rest of that line (pointing); a line whose places lie in one box strikes the
/// rest of that box (claiming). A count of one is a hidden single instead.
fn confined(g: u8, n: isize, w: isize) -> Vec<u8> {
    let same = |i: usize| n * field(w, i + 1) == field(w, i) * field(w, i);
    let cells = |f: &dyn Fn(u8, u8) -> bool| (0..81u8).filter(|&c| f(c / 9, c % 9)).collect();
    if n < 2 {
        return Vec::new();
    }
    match g {
        0..=8 if same(1) => {
            let b = (field(w, 1) / n) as u8;
            cells(&|r, k| r / 3 == g / 3 && k / 3 == b && r != g)
        }
        9..=17 if same(1) => {
            let (b, col) = ((field(w, 1) / n) as u8, g - 9);
            cells(&|r, k| r / 3 == b && k / 3 == col / 3 && k != col)
        }
        18.. => {
            let (br, bc) = ((g - 18) / 3, (g - 18) % 3);
            if same(1) {
                let row = (field(w, 1) / n) as u8;
                cells(&|r, k| r == row && k / 3 != bc)
            } else if same(3) {
                let col = (field(w, 3) / n) as u8;
                cells(&|r, k| k == col && r / 3 != br)
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

/// One round of naked and hidden singles, and intersections when `inter` is given.
/// In: the placements the singles made so far, the intersections' eliminations so
/// far, the givens, the candidates the givens leave, the markers, the geometry. Out:
/// the next round's placements, this round's candidates, the nodes in a
/// contradiction, and this round's intersection eliminations.
#[allow(clippy::too_many_arguments)]
pub fn singles<'s>(
    placed: Inner<'s, (u32, u8, u8)>,
    inter: Option<Inner<'s, (u32, u8, u8)>>,
    given: Inner<'s, (u32, u8, u8)>,
    open: Open<'s>,
    cell_marks: Inner<'s, (u32, u8)>,
    gv_marks: Inner<'s, (u32, u8, u8)>,
    peer: Entered<'s>,
    member: Entered<'s>,
) -> Round<'s> {
    let with_inter = inter.is_some();
    let elim = strikes(placed.clone(), peer, inter);
    let cand = open.minus(elim);
    // Each cell's candidates, plus its marker: 1 is an empty cell, 2 a cell with one
    // candidate. Each candidate's value is carried beside its weight (a pair of
    // weights, `count_total`), so a cell counted 2 holds its one value: no join back
    // to the candidates (sudolog's counts do the same for the rules that read their
    // singles).
    let counts = cand
        .clone()
        .explode(|(p, c, v)| Some(((p, c), (1isize, v as isize))))
        .concat(cell_marks.explode(|pc| Some((pc, (1isize, 0isize)))))
        .count_total();
    let naked = counts
        .clone()
        .flat_map(|((p, c), (n, v))| (n == 2).then_some((p, c, v as u8)));
    let empty = counts.filter(|(_, (n, _))| *n == 1).map(|((p, _), _)| p);
    // Each (group, value)'s places, plus its marker, each place's cell carried the
    // same way: 1 is a value without a place, 2 a value with one place left. With
    // intersections each place carries its `place_weight` instead, which holds the
    // cell too.
    let places = cand
        .clone()
        .map(|(p, c, v)| (c, (p, v)))
        .join_core(member, |&c, &(p, v), &g| Some(((p, g, v), c)))
        .explode(move |((p, g, v), c)| {
            let w = if with_inter {
                place_weight(g, c)
            } else {
                c as isize
            };
            Some(((p, g, v), (1isize, w)))
        })
        .concat(gv_marks.explode(|k| Some((k, (1isize, 0isize)))))
        .count_total();
    // Only where the value was a candidate when the node started (as `fast.dl`
    // does): a child starts from its parent's last candidates, so most of what its
    // intersections strike is gone already.
    let pointing = with_inter.then(|| {
        open.within(places.clone().flat_map(|((p, g, v), (n, w))| {
            confined(g, n - 1, w).into_iter().map(move |c| (p, c, v))
        }))
    });
    let no_place = places
        .clone()
        .filter(|(_, (n, _))| *n == 1)
        .map(|((p, _, _), _)| p);
    let hidden =
        places.flat_map(|((p, _g, v), (n, w))| (n == 2).then_some((p, field(w, 0) as u8, v)));
    // A node in a contradiction places nothing more (its search ends there).
    let broken = empty.concat(no_place).distinct_total();
    let singles = naked
        .concat(hidden)
        .map(|(p, c, v)| (p, (c, v)))
        .antijoin(broken.clone())
        .map(|(p, (c, v))| (p, c, v));
    // The loop's placements are those the singles make (a given's strikes are out
    // of `open` already), and they only accumulate, so a node's singles reach a
    // fixpoint even in a contradiction.
    let next = placed
        .concat(
            singles
                .map(|pcv| (pcv, ()))
                .antijoin(given)
                .map(|(pcv, ())| pcv),
        )
        .distinct_total();
    Round {
        next,
        cand,
        broken,
        pointing,
    }
}
