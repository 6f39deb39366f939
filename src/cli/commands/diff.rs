//! `mneme-gate diff OLD NEW`: two saved reports compared the way `run`
//! compares a run with its baseline.
//!
//! Neither file is a baseline here and there is no run: every message names
//! each file by its role, the old report and the new report, and suggests
//! only what `diff` accepts (`--allow-incompatible`, not `run`'s flags).

use std::path::Path;

use crate::baseline::{self, BaselineError, BaselineSource};
use crate::cli::output;
use crate::cli::settings::{Destination, DiffSettings};
use crate::describe::defuse_lines;
use crate::error::{exit, Error};
use crate::gate::GateOutcome;
use crate::report::{self, display_path, Report};

pub(crate) fn execute(s: DiffSettings) -> Result<i32, Error> {
    let old = load(&s.old, Role::Old)?;
    let new = load(&s.new, Role::New)?;
    let differences = baseline::incompatibilities(&old, &new);
    let (old_path, new_path) = (display_path(&s.old), display_path(&s.new));
    if !differences.is_empty() && !s.allow_incompatible {
        return Err(Error::Usage(incomparable(&old_path, &new_path, &differences)));
    }
    let source = BaselineSource { path: old_path, revision: None, commit: None };
    let mut comparison = baseline::compare(&old, &new, &s.gate, source);
    comparison.incompatible = comparison.incompatible.iter().map(|d| by_role(d)).collect();
    let gate = GateOutcome::new(baseline::rules(&comparison, &s.gate));
    if let Some(destination) = &s.json {
        output::report(destination, &report::json::pretty(&comparison), output::Kind::Json)?;
    }
    let style = report::terminal::Style { colour: s.colour, quiet: false, width: s.width };
    let mut text = report::terminal::reports_comparison(&comparison, &new_path, &new, style);
    text.push('\n');
    text.push_str(&report::terminal::rules(&gate, style));
    output::terminal(&defuse_lines(&text, s.colour), s.json == Some(Destination::Stdout))?;
    Ok(if gate.passed { exit::OK } else { exit::GATE_FAILED })
}

/// Which of the two files a message is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Old,
    New,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Old => "the old report",
            Role::New => "the new report",
        }
    }
}

/// What `diff` tells the user to give it instead.
const WRITE_ONE: &str = "give a report that `mneme-gate run --json FILE` or `mneme-gate baseline` wrote";

/// Reads one of the two reports; a file that cannot be used is an input
/// error (exit 2) naming the file by its role.
fn load(path: &Path, role: Role) -> Result<Report, Error> {
    baseline::load(path).map_err(|e| Error::Usage(unusable(&e, role)))
}

/// Why a saved report cannot be used, in `diff`'s words.
fn unusable(e: &BaselineError, role: Role) -> String {
    let what = role.name();
    match e {
        BaselineError::Read { path, source } => format!("cannot read {what} {}: {source}", path.display()),
        BaselineError::Missing { path } => format!("{what} {} does not exist: {WRITE_ONE}", path.display()),
        BaselineError::NotAFile { path, kind } => {
            format!("{what} {} is {kind}, not a regular file: {WRITE_ONE}", path.display())
        }
        BaselineError::TooLarge { path, limit } => format!(
            "{what} {} is larger than {}, the most mneme-gate reads: it is not a report mneme-gate wrote; check the path",
            path.display(),
            crate::memory::size_in_words(*limit)
        ),
        BaselineError::Parse { path, line, column, message } => {
            format!("{path}:{line}:{column}: {what} is not a mneme-gate report: {message}; {WRITE_ONE}")
        }
        BaselineError::Schema { path, found } => format!(
            "{path}: {what} has schema `{found}`, this mneme-gate reads `{}`; write it again with this version (`mneme-gate run --json FILE`)",
            report::REPORT_SCHEMA
        ),
        BaselineError::Inconsistent { path, message } => {
            format!("{path}: {what} is not a mneme-gate report: {message}; {WRITE_ONE}")
        }
    }
}

/// The refusal of two reports made with other settings.
fn incomparable(old: &str, new: &str, differences: &[String]) -> String {
    let mut out = format!("the old report {old} and the new report {new} are not comparable:");
    for d in differences {
        out.push_str("\n  ");
        out.push_str(&crate::describe::printable(&by_role(d)));
    }
    out.push_str(
        "\nthey were made with another k, profile or metric definitions; compare them anyway with --allow-incompatible",
    );
    out
}

/// A difference worded for a run and its baseline ("the baseline has 3,
/// this run 2"), worded for two reports.
fn by_role(difference: &str) -> String {
    difference
        .replacen("the baseline has ", "the old report has ", 1)
        .replacen("the baseline used ", "the old report used ", 1)
        .replacen(", this run ", ", the new report ", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled() -> Report {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json");
        baseline::load(&path).unwrap()
    }

    #[test]
    fn every_difference_names_the_old_and_the_new_report() {
        let old = bundled();
        let mut new = old.clone();
        new.fingerprint.k += 1;
        new.fingerprint.metrics_version.push('x');
        let p = &mut new.fingerprint.profile;
        p.name = "mneme".into();
        p.weights.title += 1.0;
        p.weights.tags += 1.0;
        p.weights.constraint += 1.0;
        p.weights.anti_patterns += 1.0;
        p.weights.content += 1.0;
        p.tag_boost += 1.0;
        p.min_score += 1.0;
        p.min_token_len += 1;
        p.stem = !p.stem;
        let differences = baseline::incompatibilities(&old, &new);
        assert_eq!(differences.len(), 12, "{differences:?}");
        for d in &differences {
            let worded = by_role(d);
            assert!(!worded.contains("baseline") && !worded.contains("this run"), "{worded}");
            assert!(worded.contains("the old report") && worded.contains("the new report"), "{worded}");
        }
        let message = incomparable("a.json", "b.json", &differences);
        assert!(message.starts_with("the old report a.json and the new report b.json are not comparable:"));
        assert!(message.ends_with("compare them anyway with --allow-incompatible"), "{message}");
    }

    #[test]
    fn a_file_that_cannot_be_used_is_named_by_its_role_with_diff_s_own_remedy() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("missing.json", None),
            ("folder", Some("")),
            ("not-json.json", Some("not json")),
            ("other-schema.json", Some(r#"{"schema": "mneme-gate.report/v9"}"#)),
        ];
        for (name, content) in cases {
            let path = dir.path().join(name);
            match content {
                Some("") => std::fs::create_dir(&path).unwrap(),
                Some(text) => std::fs::write(&path, text).unwrap(),
                None => {}
            }
            for role in [Role::Old, Role::New] {
                let Err(Error::Usage(m)) = load(&path, role) else { panic!("{name} loads") };
                assert!(m.contains(role.name()), "{m}");
                assert!(!m.contains("baseline` ") || m.contains("mneme-gate baseline` wrote"), "{m}");
                assert!(!m.contains("--no-baseline") && !m.contains("re-pin"), "{m}");
            }
        }
    }
}
