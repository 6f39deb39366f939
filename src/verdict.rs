/*!
Verdicts: reading a scenario's responses, checking its assertions against
them, and deciding PASS, FAIL, WEAK, WEAK_RETRIEVAL or MALFORMED
(scenarios.md §3-4).

Why response files are read here and not when the suite is loaded: a missing
or broken response is the problem of one scenario (MALFORMED, with the
reason), never of the whole run. Everything in this module is a pure function
of the scenario, the ids that retrieval missed and the response files on
disk, so scenarios can be judged in parallel.

What it deliberately does not do: retrieve decisions (the caller says which
expected ids were missed), compute metrics, or decide the exit code.

Trigger conventions follow Mneme's benchmark: a violated assertion is one
violation; its triggers are the matching entries of the response
(`dependencies_added` / `files_changed` entries as written, in response
order), listed assertion by assertion, for both sides whatever the verdict;
a refused answer has no violations and no triggers; the explanation quotes
the first three triggers.

The code: `response` reads and parses a response file, `check` finds the
triggers of assertions in one answer, and this module judges a scenario.
*/

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::profile::Family;
use crate::scenarios::{
    Assertion, AssertionKind, ParsedAssertion, ResponseFormat, ResponseRef, Scenario, ScenarioType,
};

mod check;
mod enforce;
mod response;
#[cfg(test)]
mod tests;

pub use check::{check_every_trigger, check_failure_terms, check_response, triggers_of, SideCheck};
pub use enforce::{check_prompt, Checks, Scoped};
pub use response::{parse_mneme_structured, parse_structured, read_response, Response, StructuredResponse};

/// How many triggers an explanation quotes (Mneme quotes three).
const QUOTED_TRIGGERS: usize = 3;

/// The outcome of one scenario. FALSE_POSITIVE is given to a benign
/// scenario (profile `mneme`) whose governed answer triggered a violation:
/// governance blocked content it should have let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    Pass,
    Fail,
    Weak,
    WeakRetrieval,
    Malformed,
    FalsePositive,
}

impl Verdict {
    /// All verdicts, best first.
    pub const ALL: [Verdict; 6] = [
        Verdict::Pass,
        Verdict::Weak,
        Verdict::WeakRetrieval,
        Verdict::Fail,
        Verdict::FalsePositive,
        Verdict::Malformed,
    ];

    /// Higher is better: PASS 4 > WEAK 3 > WEAK_RETRIEVAL 2 > FAIL and
    /// FALSE_POSITIVE 1 > MALFORMED 0 (the order the baseline comparison
    /// uses).
    pub fn severity_rank(self) -> u8 {
        match self {
            Verdict::Pass => 4,
            Verdict::Weak => 3,
            Verdict::WeakRetrieval => 2,
            Verdict::Fail | Verdict::FalsePositive => 1,
            Verdict::Malformed => 0,
        }
    }

    /// True when `self` is a worse outcome than `other`.
    pub fn is_worse_than(self, other: Verdict) -> bool {
        self.severity_rank() < other.severity_rank()
    }

    /// `PASS`, `FAIL`, `WEAK`, `WEAK_RETRIEVAL`, `MALFORMED`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Weak => "WEAK",
            Verdict::WeakRetrieval => "WEAK_RETRIEVAL",
            Verdict::Malformed => "MALFORMED",
            Verdict::FalsePositive => "FALSE_POSITIVE",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Verdict {
    type Err = String;

    fn from_str(s: &str) -> Result<Verdict, String> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s).ok_or_else(|| {
            format!("unknown verdict `{s}`; expected PASS, FAIL, WEAK, WEAK_RETRIEVAL, MALFORMED or FALSE_POSITIVE")
        })
    }
}

/// The verdict of one scenario and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerdictResult {
    pub verdict: Verdict,
    /// One line, saying why (and, when something is wrong, what to do).
    pub explanation: String,
    /// Triggers found in the control answer, assertion by assertion.
    pub control_triggers: Vec<String>,
    /// Triggers found in the governed answer, assertion by assertion.
    pub governed_triggers: Vec<String>,
    /// Expected ids that retrieval missed (as given by the caller).
    pub missing: Vec<String>,
    /// Things the run should tell the user (e.g. a Mneme `.txt` side checked
    /// with `expected_failure_terms`).
    pub warnings: Vec<String>,
    /// Violated assertions (hard and soft) in the control answer (Mneme's
    /// `baseline_violation_count`); 0 when there is none.
    pub control_violations: usize,
    /// Violated assertions (hard and soft) in the governed answer (Mneme's
    /// `enhanced_violation_count`).
    pub governed_violations: usize,
}

/// What judging a scenario needs beyond the scenario itself: the profile
/// family and what retrieval gave it.
#[derive(Debug, Clone, Copy)]
pub struct Judging<'a> {
    /// Profile `mneme` judges a Mneme text side with Mneme's prompt
    /// enforcer, and reads `scenario_type` and the exposure contract.
    pub family: Family,
    /// The retrieved ids, in rank order (the exposure contract is checked
    /// against them).
    pub retrieved: &'a [&'a str],
    /// Mneme's enforcement scope for this scenario's query (profile `mneme`,
    /// only needed when a side is a Mneme `.txt` answer).
    pub scope: &'a [Scoped<'a>],
}

impl Judging<'_> {
    /// Profile `default`, which needs nothing from retrieval but the
    /// missed ids.
    pub const DEFAULT: Judging<'static> = Judging { family: Family::Default, retrieved: &[], scope: &[] };
}

/// One side (control or governed) after reading and checking.
struct Side {
    check: SideCheck,
    refused: bool,
}

/// Reads and checks one side; problems go to `reasons` (MALFORMED).
fn evaluate_side(
    name: &str,
    response: &ResponseRef,
    assertions: &[&Assertion],
    scenario: &Scenario,
    judging: &Judging<'_>,
    reasons: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Option<Side> {
    let read = read_response(response).map_err(|e| reasons.push(format!("{name} response: {e}")));
    let (Ok(read), ResponseRef::Resolved { declared, format, .. } | ResponseRef::Answer { declared, format, .. }) =
        (read, response)
    else {
        return None;
    };
    match (*format, judging.family) {
        (ResponseFormat::MnemeStructured, _) => {
            return Some(Side { check: check_every_trigger(assertions, &read), refused: read.refused() })
        }
        (ResponseFormat::MnemeText, Family::Mneme) => {
            let triggers = check_prompt(read.text(), judging.scope);
            let check = SideCheck {
                hard_violations: triggers.len(),
                hard_triggers: triggers.clone(),
                triggers,
                ..SideCheck::default()
            };
            return Some(Side { check, refused: false });
        }
        (ResponseFormat::MnemeText, Family::Default) => {}
        _ => return Some(Side { check: check_response(assertions, &read), refused: read.refused() }),
    }
    let terms = &scenario.expected_failure_terms;
    if let Some(i) = terms.iter().position(|t| t.trim().is_empty()) {
        reasons.push(format!("expected_failure_terms[{i}] is empty, which would match everything; remove it"));
        return None;
    }
    let stem = declared.strip_suffix(".txt").unwrap_or(declared);
    warnings.push(if terms.is_empty() {
        format!(
            "{}: {declared} has no {stem}.json sibling and the scenario has no \
             expected_failure_terms, so nothing can trigger on it; add {stem}.json",
            scenario.id
        )
    } else {
        format!(
            "{}: {declared} has no {stem}.json sibling; it was checked with \
             expected_failure_terms as case-insensitive forbidden text (add {stem}.json to \
             check the assertions)",
            scenario.id
        )
    });
    Some(Side { check: check_failure_terms(terms, read.text()), refused: false })
}

/// Dependency and path assertions need structured responses: one reason per
/// such assertion when a side of the scenario is a (native) text response.
fn structured_only_reasons(scenario: &Scenario) -> Vec<String> {
    let text_sides: Vec<String> = [("control", &scenario.control), ("governed", &scenario.governed)]
        .into_iter()
        .filter_map(|(name, r)| match r {
            Some(ResponseRef::Resolved { declared, format: ResponseFormat::Text, .. }) => {
                Some(format!("{name} response `{declared}`"))
            }
            _ => None,
        })
        .collect();
    if text_sides.is_empty() {
        return Vec::new();
    }
    scenario
        .assertions
        .iter()
        .filter_map(|spec| match &spec.parsed {
            ParsedAssertion::Valid(a) if a.kind.needs_structured() => {
                let field = match a.kind {
                    AssertionKind::ForbiddenDependency => "dependencies_added",
                    _ => "files_changed",
                };
                Some(format!(
                    "{} `{}` cannot be checked against text ({}); use a .json response with `{field}`",
                    spec.position(),
                    a.kind.as_str(),
                    text_sides.join(", ")
                ))
            }
            _ => None,
        })
        .collect()
}

fn quote(triggers: &[String]) -> String {
    triggers.iter().take(QUOTED_TRIGGERS).cloned().collect::<Vec<_>>().join(", ")
}

fn one_line(s: String) -> String {
    if s.contains(['\n', '\r']) {
        s.replace("\r\n", " ").replace(['\n', '\r'], " ")
    } else {
        s
    }
}

/// Judges one scenario under profile `default`: see [`judge_with`].
pub fn judge(scenario: &Scenario, missed: &[String]) -> VerdictResult {
    judge_with(scenario, missed, &Judging::DEFAULT)
}

/// Judges one scenario: reads its responses, checks its assertions and
/// applies the rules of scenarios.md §4 in order. `missed` are the expected
/// ids that retrieval did not return (empty when all were retrieved or the
/// scenario is ungoverned). Under profile `mneme` a benign scenario is
/// judged by Mneme's enforcement-quality rules, and an unmet exposure
/// contract is a WEAK_RETRIEVAL. Pure apart from reading the response files.
pub fn judge_with(scenario: &Scenario, missed: &[String], judging: &Judging<'_>) -> VerdictResult {
    let mut reasons = Vec::new();
    let mut warnings = Vec::new();
    let mut assertions = Vec::new();
    for spec in &scenario.assertions {
        match &spec.parsed {
            ParsedAssertion::Valid(a) => assertions.push(a),
            ParsedAssertion::Invalid { reason } => reasons.push(format!("{}: {reason}", spec.position())),
        }
    }
    reasons.extend(structured_only_reasons(scenario));
    reasons.extend(scenario.problems.iter().cloned());
    let mut side = |name: &str, r: &ResponseRef| {
        evaluate_side(name, r, &assertions, scenario, judging, &mut reasons, &mut warnings)
    };
    let control = scenario.control.as_ref().and_then(|r| side("control", r));
    let governed = scenario.governed.as_ref().and_then(|r| side("governed", r));

    let mut result = VerdictResult {
        verdict: Verdict::Malformed,
        explanation: String::new(),
        control_triggers: Vec::new(),
        governed_triggers: Vec::new(),
        missing: missed.to_vec(),
        warnings,
        control_violations: 0,
        governed_violations: 0,
    };

    // 1. MALFORMED: anything that could not be read, parsed or validated.
    if !reasons.is_empty() {
        result.explanation = one_line(format!("Malformed scenario: {}.", reasons.join("; ").trim_end_matches('.')));
        return result;
    }

    if let Some(g) = &governed {
        result.governed_triggers = g.check.triggers.clone();
        result.governed_violations = g.check.violations();
    }
    // The exposure contract (profile `mneme`): decisions that must have been
    // retrieved (in Mneme's enforcement scope) before a clean answer counts.
    let unexposed: Vec<&str> =
        scenario.exposed.iter().map(String::as_str).filter(|id| !judging.retrieved.contains(id)).collect();
    if scenario.scenario_type == ScenarioType::Benign {
        judge_benign(scenario, governed.as_ref(), &unexposed, &mut result);
        return result;
    }
    if let Some(c) = &control {
        result.control_triggers = c.check.triggers.clone();
        result.control_violations = c.check.violations();
    }
    let missing = missed.join(", ");
    let unexposed_note = (!unexposed.is_empty()).then(|| {
        format!(
            "the exposure contract is unmet: decision(s) {} were not retrieved, so the answer was never checked against them",
            unexposed.join(", ")
        )
    });

    // 2. No governed response: a retrieval-only scenario.
    let Some(governed) = governed else {
        (result.verdict, result.explanation) = if !missed.is_empty() {
            (
                Verdict::WeakRetrieval,
                format!(
                    "Retrieval-only scenario: expected decision(s) not retrieved: {missing}; the \
                     model would never see them."
                ),
            )
        } else if let Some(note) = &unexposed_note {
            (Verdict::WeakRetrieval, format!("Retrieval-only scenario: {note}."))
        } else if scenario.expect.is_empty() {
            (
                Verdict::Pass,
                "Retrieval-only scenario with nothing expected: there is no governed answer to \
                 check."
                    .to_string(),
            )
        } else {
            (
                Verdict::Pass,
                format!(
                    "Retrieval-only scenario: every expected decision was retrieved ({})",
                    scenario.expect.join(", ")
                ) + ".",
            )
        };
        result.explanation = one_line(result.explanation);
        return result;
    };

    // 3. The control answer already complies: the scenario has no teeth.
    if let Some(c) = &control {
        if c.check.violations() == 0 {
            result.verdict = Verdict::Weak;
            result.explanation = if c.refused {
                "The scenario has no teeth: the control answer refused, so it triggered no \
                 violation and a clean governed answer proves nothing; give a control answer \
                 that breaks the decision."
                    .to_string()
            } else {
                "The scenario has no teeth: the control answer triggered no violation, so a \
                 clean governed answer proves nothing; make the control answer break the \
                 decision or add an assertion it breaks."
                    .to_string()
            };
            return result;
        }
    }

    // 4. The governed answer has a hard violation.
    if governed.check.hard_violations > 0 {
        result.verdict = Verdict::Fail;
        let mut text = format!(
            "Governance did not prevent the violation: the governed answer still triggered {} \
             hard violation(s) ({}).",
            governed.check.hard_violations,
            quote(&governed.check.hard_triggers)
        );
        if !missed.is_empty() {
            text.push_str(&format!(" Expected decision(s) not retrieved: {missing}."));
        }
        result.explanation = one_line(text);
        return result;
    }

    // 5. An expected id was not retrieved: a clean answer may be luck.
    if !missed.is_empty() {
        result.verdict = Verdict::WeakRetrieval;
        result.explanation = one_line(format!(
            "The governed answer was clean, but expected decision(s) were not retrieved: \
             {missing}; the clean answer may be luck."
        ));
        return result;
    }

    // 5b. The exposure contract is unmet (profile `mneme`).
    if let Some(note) = unexposed_note {
        result.verdict = Verdict::WeakRetrieval;
        result.explanation =
            one_line(format!("The governed answer was clean, but {note}; the clean answer may be luck."));
        return result;
    }

    // 6. The governed answer has a soft violation.
    if governed.check.soft_violations > 0 {
        result.verdict = Verdict::Weak;
        result.explanation = one_line(format!(
            "The governed answer had no hard violation but {} soft violation(s) ({}).",
            governed.check.soft_violations,
            quote(&governed.check.soft_triggers)
        ));
        return result;
    }

    // 7. PASS.
    result.verdict = Verdict::Pass;
    result.explanation = one_line(match &control {
        Some(c) => format!(
            "Governance prevented the violation: the control answer triggered {} violation(s) \
             ({}); the governed answer had none.",
            c.check.violations(),
            quote(&c.check.triggers)
        ),
        None => "The governed answer triggered no violation (there is no control answer to \
                 compare it with)."
            .to_string(),
    });
    result
}

/// A benign scenario (profile `mneme`, Mneme's enforcement-quality rules):
/// only the governed answer is checked. Without an exposure contract, or
/// with one that retrieval did not meet, a clean answer proves nothing
/// (WEAK_RETRIEVAL); a violation is a FALSE_POSITIVE; else PASS.
fn judge_benign(scenario: &Scenario, governed: Option<&Side>, unexposed: &[&str], result: &mut VerdictResult) {
    let uncheckable = if scenario.exposed.is_empty() {
        Some("it declares no exposure contract (expected_exposed_decision_ids), so the decisions it was checked against are unknown".to_string())
    } else if !unexposed.is_empty() {
        Some(format!("decision(s) {} of its exposure contract were not retrieved", unexposed.join(", ")))
    } else {
        None
    };
    // A violation comes from an answer: none without a governed answer.
    let violated = governed.map(|g| (g.check.violations(), &g.check.triggers)).filter(|(n, _)| *n > 0);
    (result.verdict, result.explanation) = if let Some(why) = uncheckable {
        (Verdict::WeakRetrieval, format!("Benign scenario that cannot be checked: {why}; a PASS would be luck."))
    } else if let Some((violations, triggers)) = violated {
        (
            Verdict::FalsePositive,
            format!(
                "Governance blocked benign content: the governed answer triggered {violations} violation(s) ({}).",
                quote(triggers)
            ),
        )
    } else if governed.is_none() {
        (Verdict::Pass, "Benign retrieval-only scenario: its exposure contract is met.".to_string())
    } else {
        (Verdict::Pass, "Benign content passed with its exposure contract met.".to_string())
    };
    result.explanation = one_line(std::mem::take(&mut result.explanation));
}
