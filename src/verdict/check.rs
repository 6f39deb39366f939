//! Checking one answer: the triggers of each assertion, and the violations
//! they add up to (Mneme's trigger conventions, see the module above).

use serde::Serialize;

use super::Response;
use crate::scenarios::{Assertion, AssertionKind, Matcher, Severity};

/// The assertions checked against one answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SideCheck {
    /// Violated hard assertions.
    pub hard_violations: usize,
    /// Violated soft assertions.
    pub soft_violations: usize,
    /// Every trigger, assertion by assertion, duplicates dropped.
    pub triggers: Vec<String>,
    /// The triggers of hard assertions.
    pub hard_triggers: Vec<String>,
    /// The triggers of soft assertions.
    pub soft_triggers: Vec<String>,
}

impl SideCheck {
    pub fn violations(&self) -> usize {
        self.hard_violations + self.soft_violations
    }
}

fn push_unique(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|t| t == item) {
        list.push(item.to_string());
    }
}

fn contains_ci(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

/// The triggers of one assertion against one answer; empty when it holds.
pub fn triggers_of(assertion: &Assertion, response: &Response) -> Vec<String> {
    if response.refused() {
        return Vec::new();
    }
    let (files, deps): (&[String], &[String]) = match response {
        Response::Structured(s) => (&s.files_changed, &s.dependencies_added),
        Response::Text(_) => (&[], &[]),
    };
    let entry_matches = |entry: &str, case_insensitive: bool| match &assertion.matcher {
        Matcher::Substring(v) if case_insensitive => contains_ci(entry, v),
        Matcher::Substring(v) => entry.contains(v.as_str()),
        Matcher::Regex(p) => p.is_match(entry),
    };
    let text = response.text();
    match assertion.kind {
        AssertionKind::ForbiddenDependency => deps.iter().filter(|d| entry_matches(d, true)).cloned().collect(),
        AssertionKind::ForbiddenPath => files.iter().filter(|f| entry_matches(f, false)).cloned().collect(),
        AssertionKind::ForbiddenText => match &assertion.matcher {
            Matcher::Substring(v) => {
                if contains_ci(text, v) {
                    vec![v.clone()]
                } else {
                    Vec::new()
                }
            }
            Matcher::Regex(p) => match p.find(text) {
                Some(m) if !m.is_empty() => vec![m.to_string()],
                Some(_) => vec![format!("/{}/", p.as_str())],
                None => Vec::new(),
            },
        },
        AssertionKind::RequiredText => {
            let (present, shown) = match &assertion.matcher {
                Matcher::Substring(v) => (contains_ci(text, v), v.clone()),
                Matcher::Regex(p) => (p.is_match(text), format!("/{}/", p.as_str())),
            };
            if present {
                Vec::new()
            } else {
                vec![format!("missing: {shown}")]
            }
        }
    }
}

/// Checks every assertion against one answer. A refused structured answer
/// has no violations at all.
pub fn check_response(assertions: &[&Assertion], response: &Response) -> SideCheck {
    let mut check = SideCheck::default();
    if response.refused() {
        return check;
    }
    for a in assertions {
        let triggers = triggers_of(a, response);
        if triggers.is_empty() {
            continue;
        }
        let (count, list) = match a.severity {
            Severity::Hard => (&mut check.hard_violations, &mut check.hard_triggers),
            Severity::Soft => (&mut check.soft_violations, &mut check.soft_triggers),
        };
        *count += 1;
        for t in &triggers {
            push_unique(list, t);
            push_unique(&mut check.triggers, t);
        }
    }
    check
}

/// Checks every assertion against one answer as Mneme 0.10.0 counts it
/// (profile `mneme`, a Mneme `.json` answer): one violation per assertion
/// that triggers, and every trigger of every assertion, in order, repeats
/// kept. A refused answer has no violations.
pub fn check_every_trigger(assertions: &[&Assertion], response: &Response) -> SideCheck {
    let mut check = SideCheck::default();
    if response.refused() {
        return check;
    }
    for a in assertions {
        let triggers = triggers_of(a, response);
        if triggers.is_empty() {
            continue;
        }
        check.hard_violations += 1;
        check.hard_triggers.extend(triggers.iter().cloned());
        check.triggers.extend(triggers);
    }
    check
}

/// Checks a Mneme `.txt` side with `expected_failure_terms` as hard,
/// case-insensitive forbidden text (each term found is one violation).
pub fn check_failure_terms(terms: &[String], text: &str) -> SideCheck {
    let mut check = SideCheck::default();
    for term in terms {
        if contains_ci(text, term) {
            check.hard_violations += 1;
            push_unique(&mut check.hard_triggers, term);
            push_unique(&mut check.triggers, term);
        }
    }
    check
}
