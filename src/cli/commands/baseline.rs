//! `mneme-gate baseline`: run the suite and pin the result, atomically.

use std::fmt::Write as _;

use crate::baseline::{self, BaselineError, BaselineSource};
use crate::cli::output;
use crate::cli::settings::PinSettings;
use crate::cli::suite;
use crate::describe::printable;
use crate::error::{exit, Error};
use crate::report::{self, display_path};

pub(crate) fn execute(s: PinSettings) -> Result<i32, Error> {
    let run = suite::run(&s.suite, false)?;
    let out = printable(&display_path(&s.out)).into_owned();
    let mut text = String::new();
    if !run.report.gate.passed && !s.allow_failing {
        let style = report::terminal::Style { colour: s.colour, quiet: true, width: s.width };
        text.push_str(&report::terminal::render(&run.report, style));
        let _ = writeln!(
            text,
            "not pinned: the run fails the gate's absolute rules, and a failing baseline would let failures through; \
             fix the suite or pin anyway with --allow-failing ({out} is unchanged)"
        );
        output::text(&text, s.colour)?;
        return Ok(exit::GATE_FAILED);
    }
    let new = baseline::pinned(&run.report);
    match baseline::load(&s.out) {
        Ok(old) => {
            let differences = baseline::incompatibilities(&old, &new);
            if differences.is_empty() {
                let source = BaselineSource { path: out.clone(), revision: None, commit: None };
                let comparison = baseline::compare(&old, &new, &s.suite.gate, source);
                let _ = writeln!(text, "changes against the baseline it replaces ({out}):");
                text.push_str(&report::terminal::comparison(
                    &comparison,
                    Some(&new),
                    report::terminal::Style { width: s.width, ..Default::default() },
                ));
            } else {
                let _ = writeln!(
                    text,
                    "replaces a baseline made with other settings ({out}): {}",
                    printable(&differences.join("; "))
                );
            }
        }
        Err(BaselineError::Missing { .. }) => {
            let _ = writeln!(text, "no baseline at {out} yet: this is the first pin");
        }
        Err(e) => {
            let _ = writeln!(text, "replaces an unreadable baseline: {}", printable(&e.to_string()));
        }
    }
    output::baseline(&s.out, &report::json::render(&new))?;
    let m = &new.summary;
    // Two lines, each fitted to the terminal (80 columns in a file or a pipe).
    let width = Some(s.width.unwrap_or(80));
    let pinned = [
        format!("pinned {} scenario(s) to {out}", m.total),
        format!(
            "  {} PASS, {} FAIL, {} WEAK, {} WEAK_RETRIEVAL, {} MALFORMED; profile {}, k {}",
            m.pass,
            m.fail,
            m.weak,
            m.weak_retrieval,
            m.malformed,
            printable(&new.fingerprint.profile.name),
            new.fingerprint.k
        ),
    ];
    for line in pinned {
        for piece in report::layout::wrap(&line, width, 2) {
            let _ = writeln!(text, "{piece}");
        }
    }
    output::text(&text, s.colour)?;
    Ok(exit::OK)
}
