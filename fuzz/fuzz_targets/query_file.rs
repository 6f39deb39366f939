//! A `retrieve --queries` file (JSON lines of `{"id", "task", "file"}`),
//! parsed with `cli::parse_queries`.
//!
//! Invariants checked beyond "never panics":
//!
//! - every problem is on a line of the text (1-based), in order;
//! - a file that parses gives one query per non-blank line, and parses the
//!   same again.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mneme_gate::cli::parse_queries;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = text.lines().count();
    match parse_queries(&text) {
        Ok(queries) => {
            let non_blank = text.lines().filter(|l| !l.trim().is_empty()).count();
            assert_eq!(queries.len(), non_blank, "one query per non-blank line");
            assert_eq!(parse_queries(&text).unwrap(), queries, "the same text parses the same");
        }
        Err(problems) => {
            assert!(!problems.is_empty());
            assert!(problems.windows(2).all(|w| w[0].0 < w[1].0), "problems in line order");
            assert!(problems.iter().all(|(n, _)| *n >= 1 && *n <= lines), "a problem off the text: {problems:?}");
        }
    }
});
