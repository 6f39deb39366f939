//! A partial report (`mneme-gate.partial/v1`, what `run --partition K/N
//! --json` writes), read with `report::partition::parse`, then merged the
//! way `merge` merges it, and the merged report written in every format.
//!
//! Invariants checked beyond "never panics":
//!
//! - a parsed partial report written back with `partition::render` parses
//!   to the same partial report;
//! - the same partition given twice is refused, never merged;
//! - a partial report of partition 1/1 that merges gives a report whose
//!   scenarios are the partial report's, and whose JSON parses back.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mneme_gate::gate::GateSettings;
use mneme_gate::report::{self, partition, terminal::Style};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(partial) = partition::parse("part.json", &text) else { return };

    let rendered = partition::render(&partial);
    let again = partition::parse("rendered.json", &rendered).expect("a rendered partial report parses again");
    assert!(again == partial, "the partial report changed on a round trip through JSON");

    let settings = GateSettings::default();
    let twice = vec![("a.json".to_string(), partial.clone()), ("b.json".to_string(), partial.clone())];
    assert!(partition::merge(twice, &settings).is_err(), "a partition given twice was merged");

    let ids: Vec<String> = partial.report.scenarios.iter().map(|s| s.id.clone()).collect();
    let Ok(merged) = partition::merge(vec![("part.json".to_string(), partial)], &settings) else { return };
    assert_eq!(merged.scenarios.iter().map(|s| s.id.clone()).collect::<Vec<_>>(), ids);
    let json = report::json::render(&merged);
    report::json::parse(&json).expect("a merged report parses");
    let _ = report::junit::render(&merged);
    let _ = report::markdown::render(&merged);
    let _ = report::trec::run(&merged);
    let _ = report::trec::qrels(&merged);
    let _ = report::terminal::render(&merged, Style { colour: true, quiet: false, width: Some(40) });
});
