//! Built-in sample puzzles, compiled into the binary from `inputs/`.
//!
//! In: nothing at run time (the texts are included at build time).
//! Out: [`SAMPLES`], `(cli name, Drools menu title, text)` in the order of Drools'
//! File > Samples menu followed by the extras, and [`sample`] to look one up by name.
//! The texts are the Drools "Open..." 9-line format, read by
//! [`crate::sudoku::puzzle::parse_text`].

/// `(cli name, menu title, puzzle text)`: Drools' menu (Simple .. !DELIBERATELY
/// BROKEN!) in its order, then `sdo` (the Sample.sdo resource), `javadoc` (the grid in
/// SudokuExample's Javadoc) and `6948` (the NScripter solver's puzzle #6948).
pub const SAMPLES: &[(&str, &str, &str)] = &[
    ("simple", "Simple", include_str!("../../inputs/simple.txt")),
    ("medium", "Medium", include_str!("../../inputs/medium.txt")),
    ("hard1", "Hard 1", include_str!("../../inputs/hard1.txt")),
    ("hard2", "Hard 2", include_str!("../../inputs/hard2.txt")),
    ("hard3", "Hard 3", include_str!("../../inputs/hard3.txt")),
    ("hard4", "Hard 4", include_str!("../../inputs/hard4.txt")),
    (
        "broken",
        "!DELIBERATELY BROKEN!",
        include_str!("../../inputs/deliberately_broken.txt"),
    ),
    (
        "sdo",
        "Sample.sdo",
        include_str!("../../inputs/sample_sdo.txt"),
    ),
    (
        "javadoc",
        "SudokuExample Javadoc",
        include_str!("../../inputs/javadoc_example.txt"),
    ),
    (
        "6948",
        "NScripter #6948",
        include_str!("../../inputs/nscripter_6948.txt"),
    ),
];

/// Number of leading entries of [`SAMPLES`] that are Drools' File > Samples menu.
pub const DROOLS_MENU: usize = 7;

/// The text of the sample called `name` (a cli name such as `hard1`; case-insensitive),
/// if there is one.
pub fn sample(name: &str) -> Option<&'static str> {
    SAMPLES
        .iter()
        .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, _, text)| text)
}

/// The cli names of all samples, in [`SAMPLES`] order.
pub fn names() -> impl Iterator<Item = &'static str> {
    SAMPLES.iter().map(|&(n, _, _)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn menu_order_and_lookup() {
        let titles: Vec<&str> = SAMPLES[..DROOLS_MENU].iter().map(|s| s.1).collect();
        assert_eq!(
            titles,
            [
                "Simple",
                "Medium",
                "Hard 1",
                "Hard 2",
                "Hard 3",
                "Hard 4",
                "!DELIBERATELY BROKEN!"
            ]
        );
        assert_eq!(names().count(), 10);
        assert_eq!(
            sample("hard2").map(|t| t.lines().next()),
            Some(Some("...6..1.."))
        );
        assert_eq!(sample("HARD2"), sample("hard2"));
        assert!(sample("6948").unwrap().starts_with("8..2...7.\n"));
        assert_eq!(sample("nope"), None);
        for (_, _, text) in SAMPLES {
            assert_eq!(text.lines().count(), 9);
            assert!(text.lines().all(|l| l.len() == 9));
        }
    }
}
