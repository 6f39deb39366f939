/*!
Small helpers for the wording of messages: the allowed key that a typo most
likely meant, and a message folded onto one line.

A leaf: it knows nothing of suites, YAML or JSON, and it decides nothing
about what a message says.
*/

/// `s` with every run of whitespace, newlines included, as one space.
pub(super) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The allowed key closest to `key`, if it is close enough to be a typo
/// (one helper for every message, in [`crate::describe`]).
pub(super) use crate::describe::suggest;
