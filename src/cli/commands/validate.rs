//! `mneme-gate validate`: every problem of a memory file at once.

use crate::cli::output;
use crate::cli::settings::ValidateSettings;
use crate::error::{exit, Error};
use crate::memory::{Diagnostic, Memory, Severity};
use crate::report::validate::{self, Findings};

pub(crate) fn execute(s: ValidateSettings) -> Result<i32, Error> {
    let profile = &s.memory.profile;
    let path = &s.memory.label();
    let mut memory = Memory::read_sources(&s.memory.sources, profile.family)?;
    if !memory.has_errors() {
        for (offset, id) in crate::retrieval::silent_decisions(&memory.pool, profile) {
            let at = memory.pool.iter().find(|d| d.id == id && d.offset == offset);
            let (file, (line, column)) = match at.and_then(|d| d.origin()) {
                Some(o) => (Some(o.file.clone()), (o.line, 1)),
                None => (None, memory.line_col(offset)),
            };
            memory.diagnostics.push(Diagnostic {
                severity: Severity::Warning,
                file,
                line,
                column,
                record_id: Some(id),
                message: "no field yields a token under this profile: no query can retrieve this decision".into(),
            });
        }
    }
    memory.sort_diagnostics();
    // The configured suite, when it loads: how many of its scenarios wait
    // for review, when any does (its problems are `run`'s to report).
    let review = match s.suites.as_slice() {
        [] => None,
        roots => crate::scenarios::Suite::load(roots).ok().and_then(|suite| {
            let pending = suite.scenarios.iter().filter(|s| s.review.is_pending()).count();
            (pending > 0).then_some((pending, suite.scenarios.len()))
        }),
    };
    let findings = Findings { path, profile: profile.name, memory: &memory, review };
    // A validator's findings are its output: they go to standard output.
    if s.json {
        output::json(&validate::json(&findings))?;
    } else {
        output::text(&validate::text(&findings), false)?;
    }
    // A failure goes through the one error path (an `error:` line, and an
    // annotation in GitHub Actions), after the findings.
    let (errors, warnings) = (findings.errors(), findings.warnings());
    if errors > 0 || (s.strict && warnings > 0) {
        return Err(Error::Invalid { path: path.clone(), errors, warnings, strict: s.strict });
    }
    Ok(exit::OK)
}
