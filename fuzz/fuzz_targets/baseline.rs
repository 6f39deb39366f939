//! A pinned baseline or saved report (`mneme-gate.report/v1`), read with
//! `baseline::parse` (the text of `baseline::load`, or of a baseline read
//! from git, which `run` decodes lossily), then used the ways the command
//! line uses one:
//!
//! - `run`: compared with the current run (`baseline::compare` against a
//!   fixed report, `baseline::rules`), the comparison rendered in the
//!   terminal, Markdown, JUnit and JSON writers;
//! - `diff OLD NEW`: the same with the input as either side.
//!
//! Invariants checked beyond "never panics":
//!
//! - a parsed report written back with `report::json::render` parses to the
//!   same report;
//! - a report is comparable with itself and compares with no change.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mneme_gate::baseline::{self, BaselineSource};
use mneme_gate::gate::{GateOutcome, GateSettings};
use mneme_gate::report::{self, terminal::Style, Report};

/// The current run a baseline is compared with: one of the seeds.
fn current() -> &'static Report {
    static CURRENT: OnceLock<Report> = OnceLock::new();
    CURRENT.get_or_init(|| {
        baseline::parse("current.json", include_str!("../seeds/baseline/mneme-conformance.json"))
            .expect("the seed report parses")
    })
}

fn source() -> BaselineSource {
    BaselineSource { path: "reports/baseline.json".into(), revision: None, commit: None }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(report) = baseline::parse("reports/baseline.json", &text) else { return };

    let rendered = report::json::render(&report);
    let again = baseline::parse("rendered.json", &rendered).expect("a rendered report parses again");
    assert!(again == report, "the report changed on a round trip through JSON");

    let settings = GateSettings::default();
    assert_eq!(baseline::incompatibilities(&report, &report), Vec::<String>::new());
    let itself = baseline::compare(&report, &report, &settings, source());
    assert!(itself.added.is_empty() && itself.removed.is_empty(), "a report differs from itself: {itself:?}");
    assert!(itself.scenarios.is_empty(), "a report differs from itself: {:?}", itself.scenarios);

    // `run`: the input is the baseline of the current run.
    let current = current();
    let _ = baseline::incompatibilities(&report, current);
    let comparison = baseline::compare(&report, current, &settings, source());
    let gate = GateOutcome::new(baseline::rules(&comparison, &settings));
    // The terminal at the narrowest width it lays out to, in colour; and wide, quiet.
    let narrow = Style { colour: true, quiet: false, width: Some(40) };
    let quiet = Style { colour: false, quiet: true, width: None };
    let _ = report::terminal::rules(&gate, narrow);
    let _ = report::terminal::comparison(&comparison, Some(current), narrow);
    let _ = report::terminal::comparison(&comparison, Some(current), quiet);
    let mut run = current.clone();
    run.comparison = Some(comparison);
    let _ = report::markdown::render(&run);
    let _ = report::markdown::render_capped(&run, 4096);
    let _ = report::junit::render(&run);
    let _ = report::terminal::render(&run, Style { colour: false, quiet: false, width: None });
    let _ = report::terminal::render(&run, narrow);
    let _ = report::json::render(&run);

    // `diff OLD NEW`: the input as the new report.
    let comparison = baseline::compare(current, &report, &settings, source());
    let _ =
        report::terminal::comparison(&comparison, Some(&report), Style { colour: false, quiet: false, width: None });
    let _ = report::json::pretty(&comparison);
});
