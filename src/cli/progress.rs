//! Progress on long runs, on stderr, only when stderr is a terminal (a pipe, a file
//! or a test sees nothing of it). Built on indicatif.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

fn target() -> ProgressDrawTarget {
    if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

/// A spinner with a message and the time so far, ticking on its own (so that one
/// long evaluation shows as progress, not as a hang).
pub fn spinner(msg: impl Into<String>) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, target());
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_message(msg.into());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// A count of items done (`len` when known), with the rate.
pub fn counter(len: Option<u64>, unit: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(len, target());
    let template = if len.is_some() {
        format!("{{spinner}} {{bar:30}} {{pos}}/{{len}} {unit} ({{per_sec}}, {{elapsed}})")
    } else {
        format!("{{spinner}} {{pos}} {unit} ({{per_sec}}, {{elapsed}})")
    };
    bar.set_style(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}
