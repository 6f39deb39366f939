/*!
Which baseline a run is compared with: the policy behind `--baseline-ref`
and `--accept-baseline-change`, as a pure function of what was read.

The baseline in the working tree is the one this change proposes; the one at
the base revision (the pull request's base) is the one reviewers agreed on.
A change that edits the baseline moves the goalposts, so the base's baseline
is used and the edit is reported (`baseline_change`), unless the change is
accepted. A base without a baseline has no goalposts to move: the change pins
the first one, and the run is compared with it. Reading the files and
resolving the revision is the caller's work; this module only decides.
*/

use std::path::Path;

use super::{compare, pinned, BaselineError};
use crate::gate::GateSettings;
use crate::report::comparison::{BaselineChange, BaselineSource};
use crate::report::Report;

/// The baseline as it is at a git revision.
#[derive(Debug)]
pub struct AtRevision {
    /// The revision as the user gave it (`--baseline-ref`).
    pub revision: String,
    /// The commit it resolved to.
    pub commit: String,
    /// The baseline at that commit; `None` when the file did not exist there.
    pub report: Option<Report>,
}

/// The baseline chosen, where it came from, and how this change re-pins it.
#[derive(Debug)]
pub struct Selected {
    pub baseline: Report,
    pub source: BaselineSource,
    /// Set when the working tree's baseline differs from the revision's.
    pub change: Option<BaselineChange>,
}

/// Chooses the baseline. `path` is the baseline file, `shown` how reports
/// name it; `working` is the working tree's copy (`None` when absent) and
/// `at` the base revision's, when the run compares with one.
/// `accept_change` accepts a re-pin, and `accepted_by` says who or what
/// accepted it, for the reports.
pub fn select(
    path: &Path,
    shown: &str,
    working: Option<Report>,
    at: Option<AtRevision>,
    accept_change: bool,
    accepted_by: Option<&str>,
    settings: &GateSettings,
) -> Result<Selected, BaselineError> {
    let here =
        |revision: Option<String>, commit: Option<String>| BaselineSource { path: shown.to_string(), revision, commit };
    let Some(at) = at else {
        let baseline = working.ok_or_else(|| BaselineError::Missing { path: path.to_path_buf() })?;
        return Ok(Selected { baseline, source: here(None, None), change: None });
    };
    let differs = match (&at.report, &working) {
        (Some(a), Some(w)) => pinned(a) != pinned(w),
        (None, None) => return Err(BaselineError::Missing { path: path.to_path_buf() }),
        _ => true,
    };
    let change = differs.then(|| {
        let (scenarios, added, removed) = match (&at.report, &working) {
            (Some(a), Some(w)) => {
                let label = BaselineSource { path: format!("{}:{shown}", at.revision), revision: None, commit: None };
                let c = compare(a, w, settings, label);
                (c.scenarios.into_iter().map(|s| s.id).collect(), c.added, c.removed)
            }
            (None, Some(w)) => (Vec::new(), ids(w), Vec::new()),
            (Some(a), None) => (Vec::new(), Vec::new(), ids(a)),
            (None, None) => (Vec::new(), Vec::new(), Vec::new()),
        };
        BaselineChange {
            revision: at.revision.clone(),
            first_pin: at.report.is_none(),
            scenarios,
            added,
            removed,
            accepted: accept_change,
            accepted_by: accepted_by.filter(|_| accept_change).map(str::to_string),
        }
    });
    // A first pin has nothing to compare against but itself.
    let use_working = working.is_some() && (at.report.is_none() || (differs && accept_change));
    Ok(match (use_working, working, at.report) {
        (true, Some(w), _) => Selected { baseline: w, source: here(None, None), change },
        (_, _, Some(a)) => Selected { baseline: a, source: here(Some(at.revision), Some(at.commit)), change },
        // `use_working` is false only when the revision has a baseline.
        (_, _, None) => return Err(BaselineError::Missing { path: path.to_path_buf() }),
    })
}

fn ids(report: &Report) -> Vec<String> {
    report.scenarios.iter().map(|s| s.id.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ScenarioReport;

    /// A pinned report with the given scenario ids: read from the bundled
    /// baseline and cut down, so it is a real report.
    fn report(ids: &[&str]) -> Report {
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json")).unwrap();
        let mut r = crate::baseline::parse("baseline.json", &text).unwrap();
        let template: ScenarioReport = r.scenarios[0].clone();
        r.scenarios = ids
            .iter()
            .map(|id| {
                let mut s = template.clone();
                s.id = id.to_string();
                s
            })
            .collect();
        r
    }

    fn at(report: Option<Report>) -> Option<AtRevision> {
        Some(AtRevision { revision: "main".into(), commit: "c0ffee".into(), report })
    }

    fn choose(working: Option<Report>, base: Option<AtRevision>, accept: bool) -> Result<Selected, BaselineError> {
        select(
            Path::new("reports/baseline.json"),
            "reports/baseline.json",
            working,
            base,
            accept,
            None,
            &GateSettings::default(),
        )
    }

    #[test]
    fn without_a_revision_the_working_tree_baseline_is_used() {
        let s = choose(Some(report(&["a"])), None, false).unwrap();
        assert_eq!(s.source, BaselineSource { path: "reports/baseline.json".into(), revision: None, commit: None });
        assert!(s.change.is_none());
        assert!(matches!(choose(None, None, false), Err(BaselineError::Missing { .. })));
    }

    #[test]
    fn an_unchanged_baseline_is_read_at_the_revision() {
        let s = choose(Some(report(&["a"])), at(Some(report(&["a"]))), false).unwrap();
        assert_eq!(s.source.revision.as_deref(), Some("main"));
        assert_eq!(s.source.commit.as_deref(), Some("c0ffee"));
        assert!(s.change.is_none());
    }

    #[test]
    fn an_edited_baseline_is_reported_and_not_used_unless_accepted() {
        let s = choose(Some(report(&["a", "b"])), at(Some(report(&["a"]))), false).unwrap();
        assert_eq!(s.baseline.scenarios.len(), 1, "the revision's baseline wins");
        let change = s.change.unwrap();
        assert_eq!((change.added, change.first_pin, change.accepted), (vec!["b".to_string()], false, false));

        let s = choose(Some(report(&["a", "b"])), at(Some(report(&["a"]))), true).unwrap();
        assert_eq!(s.baseline.scenarios.len(), 2, "accepted: the working tree's baseline wins");
        assert_eq!(s.source.revision, None);
        assert!(s.change.unwrap().accepted);
    }

    #[test]
    fn a_first_pin_uses_the_working_tree_and_says_so() {
        let s = choose(Some(report(&["a"])), at(None), false).unwrap();
        assert_eq!(s.source.revision, None);
        let change = s.change.unwrap();
        assert!(change.first_pin);
        assert!(!change.accepted, "nothing had to be accepted");
        assert_eq!(change.added, ["a"]);
        // The first pin passes the gate without --accept-baseline-change.
        let mut comparison = compare(&s.baseline, &s.baseline, &GateSettings::default(), s.source);
        comparison.baseline_change = Some(change);
        let rule = crate::baseline::rules(&comparison, &GateSettings::default()).pop().unwrap();
        assert_eq!((rule.rule.name(), rule.violated), ("baseline_change", false), "{rule:?}");
        assert!(rule.details.is_empty(), "{rule:?}");
    }

    #[test]
    fn who_accepted_is_kept_only_when_the_change_is_accepted() {
        let by = Some("the label `accept` on pull request #7");
        let pick = |accept| {
            select(
                Path::new("b.json"),
                "b.json",
                Some(report(&["a", "b"])),
                at(Some(report(&["a"]))),
                accept,
                by,
                &GateSettings::default(),
            )
            .unwrap()
            .change
            .unwrap()
        };
        assert_eq!(pick(true).accepted_by.as_deref(), by);
        assert_eq!(pick(false).accepted_by, None);
    }

    #[test]
    fn a_baseline_deleted_by_the_change_is_still_read_at_the_revision() {
        let s = choose(None, at(Some(report(&["a"]))), false).unwrap();
        assert_eq!(s.source.revision.as_deref(), Some("main"));
        assert_eq!(s.change.unwrap().removed, ["a"]);
        assert!(matches!(choose(None, at(None), false), Err(BaselineError::Missing { .. })));
    }
}
