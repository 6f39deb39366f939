//! `mneme-gate diff OLD NEW`: two saved reports compared the way `run`
//! compares a run with its baseline.

use crate::baseline::{self, BaselineSource};
use crate::cli::output;
use crate::cli::settings::{Destination, DiffSettings};
use crate::describe::defuse_lines;
use crate::error::{exit, Error};
use crate::gate::GateOutcome;
use crate::report::{self, display_path};

pub(crate) fn execute(s: DiffSettings) -> Result<i32, Error> {
    let old = baseline::load(&s.old)?;
    let new = baseline::load(&s.new)?;
    let differences = baseline::incompatibilities(&old, &new);
    if !differences.is_empty() && !s.allow_incompatible {
        return Err(Error::IncompatibleBaseline { path: display_path(&s.old), differences });
    }
    let source = BaselineSource { path: display_path(&s.old), revision: None, commit: None };
    let comparison = baseline::compare(&old, &new, &s.gate, source);
    let gate = GateOutcome::new(baseline::rules(&comparison, &s.gate));
    if let Some(destination) = &s.json {
        output::report(destination, &report::json::pretty(&comparison), output::Kind::Json)?;
    }
    let mut text = report::terminal::comparison(&comparison, Some(&new), s.colour);
    text.push('\n');
    text.push_str(&report::terminal::rules(&gate, s.colour));
    output::terminal(&defuse_lines(&text, s.colour), s.json == Some(Destination::Stdout))?;
    Ok(if gate.passed { exit::OK } else { exit::GATE_FAILED })
}
