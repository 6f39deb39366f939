//! The Markdown summary (`--markdown`), for a pull request comment or
//! `$GITHUB_STEP_SUMMARY`, written for how GitHub renders it: a headline
//! that says at a glance whether the gate passed and, if not, what failed
//! and how badly; what failed, each scenario linked to its file and line;
//! the suite figures against the baseline with arrows and a Mermaid chart;
//! the warnings, one list item each, repeated ones grouped; the comparison
//! with the baseline, each changed scenario folded in a `<details>` block;
//! then every scenario that did not pass. A passing run stays short.
//!
//! Markdown is not processed inside HTML blocks, so the `<summary>` lines
//! are plain HTML (`<b>`, `<code>`, `<a>`), never `**` or backticks.
//!
//! Links: with [`Links::github`] (the command line resolves it from the
//! GitHub Actions environment), a scenario's `path:line` links to the file at
//! the run's commit; without it, the same text is plain. The report holds no
//! link, so the JSON report does not depend on the environment.
//!
//! Every string from the inputs is escaped for where it lands: free text and
//! table cells with [`inline`] (line breaks as spaces, other control
//! characters shown escaped, `<`, `>`, `&` as entities, `|` as `\|`), ids and
//! paths with [`code`] (a code span, or a `<code>` element with entities when
//! the string holds `<`, `>` or `&`), text inside HTML with [`html`] after
//! [`printable`], URLs percent-encoded, and a context-block diff in a fence
//! longer than any backtick run in it (a `<pre>` block with entities when it
//! holds `<`, `>` or `&`). No string can open a tag, a comment or close the
//! `<details>` it sits in.
//!
//! GitHub refuses a step summary over 1 MiB, so the whole document is capped
//! at [`BUDGET`]: it is built piece by piece (a failed rule, a table row, a
//! warning, a changed scenario of the comparison, a scenario that did not
//! pass), and from the first piece that would not fit, everything after it
//! is left out and a closing note says what (counted by kind) and that the
//! JSON report has everything. Scenarios are listed worst first, so the least
//! severe go.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path};

use super::comparison::{Comparison, ComparisonStatistics, MetricChange, Movement, ScenarioChange};
use super::{figure, figures, score, statistics, Report, ScenarioReport, Source};
use crate::describe::{printable, printable_lines};
use crate::gate::{Rule, RuleMode, RuleOutcome};
use crate::verdict::Verdict;

/// Bytes a summary may take, the closing note included: under GitHub's
/// 1 MiB (1,048,576 bytes) step-summary limit.
pub const BUDGET: usize = 1_000_000;

/// Room kept under the budget for the closing note.
const NOTE_ROOM: usize = 600;

/// Details listed under a violated rule before "… and N more".
const RULE_DETAILS: usize = 10;

/// Scenarios named in one grouped warning before "… and N more".
const WARNING_SCENARIOS: usize = 10;

/// Where a scenario's `path:line` links: a file at the run's commit on
/// GitHub, or nowhere (the text stays plain). Plain data, resolved once by
/// the command line; the default links nowhere.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Links {
    /// `SERVER/OWNER/REPO/blob/SHA/`.
    base: Option<String>,
    /// The working directory inside the repository, one name per folder
    /// (report paths are relative to the working directory).
    dir: Vec<String>,
}

impl Links {
    /// Links into `repository` (`owner/name`) on `server` at commit `sha`
    /// (40 or 64 hex digits), for a run whose working directory is `dir`
    /// inside the repository (empty at its root). Any value that does not
    /// look like what GitHub sets gives no links rather than a wrong one.
    pub fn github(server: &str, repository: &str, sha: &str, dir: &Path) -> Links {
        let server = server.trim_end_matches('/');
        let server_ok =
            server.strip_prefix("https://").or_else(|| server.strip_prefix("http://")).is_some_and(|rest| {
                !rest.is_empty()
                    && !rest.starts_with('/')
                    && rest.chars().all(|c| c.is_ascii_alphanumeric() || "-._~:/".contains(c))
            });
        let name_ok = |s: &str| {
            !s.is_empty() && s != "." && s != ".." && s.chars().all(|c| c.is_ascii_alphanumeric() || "-._".contains(c))
        };
        let repository_ok = repository.split_once('/').is_some_and(|(owner, name)| name_ok(owner) && name_ok(name));
        let sha_ok = matches!(sha.len(), 40 | 64) && sha.chars().all(|c| c.is_ascii_hexdigit());
        if !(server_ok && repository_ok && sha_ok) {
            return Links::default();
        }
        let mut folders = Vec::new();
        for part in dir.components() {
            match part {
                Component::CurDir => {}
                Component::Normal(name) => match name.to_str() {
                    Some(name) => folders.push(name.to_string()),
                    None => return Links::default(),
                },
                _ => return Links::default(),
            }
        }
        Links { base: Some(format!("{server}/{repository}/blob/{sha}/")), dir: folders }
    }

    /// Whether file references become links.
    pub fn enabled(&self) -> bool {
        self.base.is_some()
    }

    /// The URL of `line` (from 1; 0: the file) of `path`, a path relative to
    /// the working directory with `/` separators as reports write it. `None`
    /// without links, or for a path outside the repository.
    pub fn to(&self, path: &str, line: usize) -> Option<String> {
        let base = self.base.as_ref()?;
        if path.starts_with('/') || path.split('/').next().is_some_and(|first| first.ends_with(':')) {
            return None; // absolute, or a Windows drive
        }
        let mut parts: Vec<&str> = self.dir.iter().map(String::as_str).collect();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop()?;
                }
                name => parts.push(name),
            }
        }
        if parts.is_empty() {
            return None;
        }
        let encoded: Vec<String> = parts.iter().map(|p| percent_encoded(p)).collect();
        let anchor = if line > 0 { format!("#L{line}") } else { String::new() };
        Some(format!("{base}{}{anchor}", encoded.join("/")))
    }
}

/// A path segment with every byte but the unreserved ones (`A-Z a-z 0-9 - .
/// _ ~`) percent-encoded: safe in a Markdown link and an HTML attribute.
fn percent_encoded(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The summary without links, within [`BUDGET`].
pub fn render(report: &Report) -> String {
    summary(report, &Links::default(), BUDGET)
}

/// The summary with file references linked as `links` says, within [`BUDGET`].
pub fn render_linked(report: &Report, links: &Links) -> String {
    summary(report, links, BUDGET)
}

/// The summary in at most `budget` bytes, without links (a budget too small
/// for even the headline and the note gives the note alone, which may
/// exceed it).
pub fn render_capped(report: &Report, budget: usize) -> String {
    summary(report, &Links::default(), budget)
}

fn summary(report: &Report, links: &Links, budget: usize) -> String {
    let mut doc = Doc { out: String::new(), budget, left: Vec::new() };
    let failed = !report.gate.passed;
    doc.item(Kind::Heading, &head(report));
    if failed {
        rules(report, links, &mut doc);
    }
    figures(report, &mut doc);
    if !failed {
        rules(report, links, &mut doc);
    }
    categories(report, &mut doc);
    warnings(report, &mut doc);
    if let Some(c) = &report.comparison {
        comparison(report, c, links, &mut doc);
    }
    let problems: Vec<&ScenarioReport> =
        report.failures_first().into_iter().filter(|s| s.verdict != Verdict::Pass).collect();
    if !problems.is_empty() {
        doc.push(&format!("### Scenarios that did not pass ({})\n\n", problems.len()));
        for s in problems {
            doc.item(Kind::Problem, &scenario(s, links));
        }
    }
    doc.finish()
}

/// What a piece of the summary is, to say what was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Heading,
    Rule,
    Figure,
    Chart,
    Category,
    Warning,
    List,
    Changed,
    Statistics,
    Problem,
}

impl Kind {
    fn words(self) -> &'static str {
        match self {
            Kind::Heading => "part(s) of the heading",
            Kind::Rule => "gate rule(s)",
            Kind::Figure => "row(s) of the suite figures",
            Kind::Chart => "chart(s) of the suite figures",
            Kind::Category => "row(s) of the verdicts by category",
            Kind::Warning => "warning(s)",
            Kind::List => "list(s) of new or removed scenarios",
            Kind::Changed => "changed scenario(s) of the comparison with the baseline",
            Kind::Statistics => "statistics of the comparison with the baseline",
            Kind::Problem => "scenario(s) that did not pass",
        }
    }
}

/// The summary being written, within its budget.
struct Doc {
    out: String,
    budget: usize,
    /// What was left out, by kind, in the order first met; once anything
    /// is, every later piece is too.
    left: Vec<(Kind, usize)>,
}

impl Doc {
    /// A piece of layout (a table header, a blank line): left out without
    /// being counted once the budget is spent.
    fn push(&mut self, piece: &str) {
        let piece = no_command_lines(piece);
        if self.fits(&piece) {
            self.out.push_str(&piece);
        }
    }

    /// A piece of content, counted when it is left out.
    fn item(&mut self, kind: Kind, piece: &str) {
        let piece = no_command_lines(piece);
        if self.fits(&piece) {
            self.out.push_str(&piece);
            return;
        }
        match self.left.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => self.left.push((kind, 1)),
        }
    }

    fn fits(&self, piece: &str) -> bool {
        self.left.is_empty() && self.out.len() + piece.len() + NOTE_ROOM <= self.budget
    }

    fn finish(mut self) -> String {
        if self.left.is_empty() {
            return self.out;
        }
        // A blank line ends any table or list the cut fell in.
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push_str(if self.out.ends_with('\n') { "\n" } else { "\n\n" });
        }
        let what: Vec<String> = self.left.iter().map(|(k, n)| format!("{n} {}", k.words())).collect();
        self.out.push_str(&format!(
            "> **This summary was cut short** to stay under GitHub's 1 MiB step-summary limit. Left out: {}. \
             The JSON report (`--json`) has everything.\n",
            what.join("; ")
        ));
        self.out
    }
}

/// `1 scenario`, `2 scenarios`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The headline (what the gate decided, what failed and how badly), then
/// the profile and the memory file.
fn head(report: &Report) -> String {
    let fp = &report.fingerprint;
    format!(
        "## {}\n\nProfile {}, k = {}, memory {} (sha256 {}).\n\n",
        headline(report),
        code(&fp.profile.name),
        fp.k,
        code(&fp.memory.path),
        code(&fp.memory.sha256.chars().take(12).collect::<String>())
    )
}

/// The first line: a status mark, the gate's decision, and in words what
/// failed (each failed rule once, the scenarios it concerns counted) and the
/// figure that shows how badly; for a passing run, how many scenarios pass.
fn headline(report: &Report) -> String {
    let m = &report.summary;
    let recall = recall_figure(report).map_or(String::new(), |r| format!(" ({r})"));
    if report.gate.passed {
        let mut text = if m.pass == m.total {
            format!("all {} pass{recall}", count(m.total, "scenario"))
        } else {
            let others: Vec<String> =
                [(m.weak, "WEAK"), (m.weak_retrieval, "WEAK_RETRIEVAL"), (m.fail, "FAIL"), (m.malformed, "MALFORMED")]
                    .iter()
                    .filter(|(n, _)| *n > 0)
                    .map(|(n, name)| format!("{n} {name}"))
                    .collect();
            format!("{} of {} pass, {}{recall}", m.pass, count(m.total, "scenario"), others.join(", "))
        };
        let advisory: Vec<String> = report
            .gate
            .rules
            .iter()
            .filter(|r| r.violated && r.mode == RuleMode::Advisory)
            .map(|r| code(r.rule.name()))
            .collect();
        if !advisory.is_empty() {
            text.push_str(&format!("; advisory: {} warns", advisory.join(", ")));
        }
        return format!("✅ mneme-gate: gate passed — {text}");
    }
    format!("❌ mneme-gate: gate FAILED — {}", failures(report, &recall).join("; "))
}

/// `recall@k` of the run, and of the baseline when it differs.
fn recall_figure(report: &Report) -> Option<String> {
    let k = report.fingerprint.k;
    let current = report.summary.mean_recall_at_k?;
    let before = report
        .comparison
        .as_ref()
        .and_then(|c| c.metrics.iter().find(|m| m.name == "mean_recall_at_k"))
        .and_then(|m| m.baseline)
        .filter(|b| figure(Some(*b)) != figure(Some(current)));
    Some(match before {
        Some(b) => format!("recall@{k} {} → {}", figure(Some(b)), figure(Some(current))),
        None => format!("recall@{k} {}", figure(Some(current))),
    })
}

/// What failed, in words, most severe first: one phrase per failed rule,
/// rules about the same scenarios said once.
fn failures(report: &Report, recall: &str) -> Vec<String> {
    let m = &report.summary;
    let failed: Vec<&RuleOutcome> = report.gate.rules.iter().filter(|r| r.fails()).collect();
    let fails = |rule: Rule| failed.iter().any(|r| r.rule == rule);
    let mut phrases: Vec<String> = Vec::new();
    // Scenarios a phrase has already counted.
    let mut named: BTreeSet<&str> = BTreeSet::new();
    let with_verdict = |v: Verdict| report.scenarios.iter().filter(move |s| s.verdict == v);
    if fails(Rule::Malformed) {
        named.extend(with_verdict(Verdict::Malformed).map(|s| s.id.as_str()));
        let n = m.malformed;
        phrases.push(format!("{} {} MALFORMED", count(n, "scenario"), if n == 1 { "is" } else { "are" }));
    }
    if fails(Rule::PassRate) {
        named.extend(with_verdict(Verdict::Fail).map(|s| s.id.as_str()));
        let n = m.fail;
        phrases.push(format!(
            "{} still {} a decision (pass rate {})",
            count(n, "governed answer"),
            if n == 1 { "breaks" } else { "break" },
            figures::ratio(m.pass, m.pass + m.fail, Some(1.0))
        ));
    }
    if fails(Rule::Recall) || fails(Rule::WeakRetrieval) {
        let missing: Vec<&ScenarioReport> = report
            .scenarios
            .iter()
            .filter(|s| s.verdict == Verdict::WeakRetrieval || s.metrics.recall_at_k.is_some_and(|r| r < 1.0))
            .collect();
        let lost = missing.iter().filter(|s| lost_an_expected_decision(report, s)).count();
        named.extend(missing.iter().map(|s| s.id.as_str()));
        let n = missing.len();
        phrases.push(if lost == n && n > 0 {
            format!("{} lost an expected decision{recall}", count(n, "scenario"))
        } else if lost > 0 {
            format!("{} {} an expected decision, {lost} lost since the baseline{recall}", count(n, "scenario"), miss(n))
        } else {
            format!("{} {} an expected decision{recall}", count(n, "scenario"), miss(n))
        });
    }
    if let (true, Some(c)) = (fails(Rule::VerdictRegression), &report.comparison) {
        let more: Vec<&ScenarioChange> =
            c.scenarios.iter().filter(|s| s.regressed && !named.contains(s.id.as_str())).collect();
        if !more.is_empty() {
            let also = if named.is_empty() { "" } else { "more " };
            phrases.push(format!(
                "{}{} regressed{}",
                also,
                count(more.len(), "scenario"),
                match more.as_slice() {
                    [one] => format!(" ({} → {})", one.baseline_verdict, one.current_verdict),
                    _ => String::new(),
                }
            ));
        }
    }
    for r in &failed {
        let n = r.details.len();
        match r.rule {
            Rule::Malformed | Rule::PassRate | Rule::Recall | Rule::WeakRetrieval | Rule::VerdictRegression => {}
            Rule::MissingScenarios => {
                let n = report.comparison.as_ref().map_or(n, |c| c.removed.len());
                phrases.push(format!("{} of the baseline missing from this run", count(n, "scenario")));
            }
            Rule::SuiteMeans => phrases.push(format!("{} worse than the baseline", count(n, "suite figure"))),
            Rule::BaselineChange => phrases.push("this change re-pins the baseline".to_string()),
            other => phrases.push(format!("rule {} violated", code(other.name()))),
        }
    }
    if phrases.is_empty() {
        phrases.push(format!("{} violated", count(failed.len(), "rule")));
    }
    phrases
}

fn miss(n: usize) -> &'static str {
    if n == 1 {
        "misses"
    } else {
        "miss"
    }
}

/// Whether one of the decisions a scenario misses was retrieved in the
/// baseline and left since.
fn lost_an_expected_decision(report: &Report, s: &ScenarioReport) -> bool {
    let Some(c) = &report.comparison else { return false };
    c.scenarios.binary_search_by(|change| change.id.as_str().cmp(&s.id)).ok().is_some_and(|i| {
        let change = &c.scenarios[i];
        change.left.iter().any(|d| s.missing.contains(&d.id))
    })
}

/// The suite figures: a table of the Layer 1 means and the pass rate, with
/// the baseline, the change and a mark when there is a baseline, and a chart
/// of the means when one of them moved.
fn figures(report: &Report, doc: &mut Doc) {
    let m = &report.summary;
    let k = report.fingerprint.k;
    let rows = [
        ("mean_recall_at_k", format!("mean recall@{k}"), format!("recall@{k}"), m.mean_recall_at_k),
        ("mean_recall_at_1", "mean recall@1".to_string(), "recall@1".to_string(), m.mean_recall_at_1),
        ("mean_precision_at_k", format!("mean precision@{k}"), format!("precision@{k}"), m.mean_precision_at_k),
        ("mrr", "MRR".to_string(), "MRR".to_string(), m.mrr),
        ("mean_ndcg_at_k", format!("mean nDCG@{k}"), format!("nDCG@{k}"), m.mean_ndcg_at_k),
        (
            "irrelevant_injection_rate",
            "irrelevant-injection rate".to_string(),
            "irrelevant".to_string(),
            m.irrelevant_injection_rate,
        ),
        (
            "ungoverned_injection_rate",
            "ungoverned-injection rate".to_string(),
            "ungoverned".to_string(),
            m.ungoverned_injection_rate,
        ),
    ];
    let pass_rate = m.layer2_evaluated.then_some(m.pass_rate);
    let Some(c) = &report.comparison else {
        doc.push("| suite figure | value |\n|---|---:|\n");
        for (_, name, _, value) in &rows {
            doc.item(Kind::Figure, &format!("| {name} | {} |\n", figure(*value)));
        }
        if pass_rate.is_some() {
            doc.item(
                Kind::Figure,
                &format!("| pass rate | {} |\n", figures::ratio(m.pass, m.pass + m.fail, Some(1.0))),
            );
        }
        doc.push("\n");
        return;
    };
    let change_of = |key: &str| c.metrics.iter().find(|mc| mc.name == key);
    doc.push("| suite figure | baseline | this run | change |\n|---|---:|---:|---|\n");
    let pass_row = ("pass_rate", "pass rate".to_string(), String::new(), pass_rate);
    for (key, name, _, value) in rows.iter().chain([&pass_row]) {
        let Some(mc) = change_of(key) else {
            if value.is_some() {
                doc.item(Kind::Figure, &format!("| {name} | — | {} | |\n", figure(*value)));
            }
            continue;
        };
        doc.item(
            Kind::Figure,
            &format!("| {name} | {} | {} | {} |\n", figure(mc.baseline), figure(mc.current), change(mc)),
        );
    }
    doc.push("\n");
    // Bars: this run; line: the baseline. Only figures both sides have.
    let both: Vec<(&str, f64, f64)> = rows
        .iter()
        .filter_map(|(key, _, short, _)| {
            let mc = change_of(key)?;
            Some((short.as_str(), mc.baseline?, mc.current?))
        })
        .collect();
    let moved = both.iter().any(|(_, b, c)| format!("{b:.3}") != format!("{c:.3}"));
    if moved {
        doc.item(Kind::Chart, &chart(&both));
    }
}

/// A figure's change against the baseline: an arrow for its direction, the
/// delta, and a mark for whether that is worse or better.
fn change(mc: &MetricChange) -> String {
    let Some(delta) = mc.delta else {
        return if mc.movement == Movement::NotComparable { "not comparable".into() } else { "—".into() };
    };
    let shown = figures::delta(delta);
    let arrow = if shown == "+0.000" {
        ""
    } else if delta > 0.0 {
        "▲ "
    } else {
        "▼ "
    };
    let mark = match mc.movement {
        Movement::Regressed => " 🔴 worse",
        Movement::WithinTolerance => " 🟡 worse, within tolerance",
        Movement::Improved => " 🟢 better",
        Movement::NotComparable => " not comparable",
        Movement::Unchanged | Movement::Changed => "",
    };
    if arrow.is_empty() && mark.is_empty() {
        return "unchanged".into();
    }
    format!("{arrow}{shown}{mark}")
}

/// The chart's size and colours (bars blue, the baseline's line dark grey),
/// as a Mermaid directive GitHub honours.
const CHART_STYLE: &str = "%%{init: {\"xyChart\": {\"width\": 640, \"height\": 280}, \
    \"themeVariables\": {\"xyChart\": {\"plotColorPalette\": \"#54aeff, #59636e\"}}}}%%";

/// A Mermaid bar chart of the suite means (GitHub draws it): bars for this
/// run, a line for the baseline. Labels are the tool's own, values figures.
fn chart(figures: &[(&str, f64, f64)]) -> String {
    let labels: Vec<String> = figures.iter().map(|(name, _, _)| format!("\"{name}\"")).collect();
    let values = |pick: fn(&(&str, f64, f64)) -> f64| -> String {
        figures.iter().map(|f| super::figures::fixed(pick(f), 3, false)).collect::<Vec<_>>().join(", ")
    };
    format!(
        "```mermaid\n{CHART_STYLE}\nxychart-beta\n    title \"Suite means: bars this run, line the baseline\"\n    \
         x-axis [{}]\n    y-axis 0 --> 1\n    bar [{}]\n    line [{}]\n```\n\n",
        labels.join(", "),
        values(|f| f.2),
        values(|f| f.1)
    )
}

/// The gate's rules. Each violated rule (`fail` first, then advisory) with
/// what it demands and what violated it, each scenario linked to its file
/// and line; then, on one line, the rules that hold.
fn rules(report: &Report, links: &Links, doc: &mut Doc) {
    let rules = &report.gate.rules;
    let violated: Vec<&RuleOutcome> = rules
        .iter()
        .filter(|r| r.fails())
        .chain(rules.iter().filter(|r| r.violated && r.mode == RuleMode::Advisory))
        .collect();
    if !violated.is_empty() {
        doc.push(if report.gate.passed { "### Advisory rules violated\n\n" } else { "### What failed\n\n" });
        for r in violated {
            doc.item(Kind::Rule, &rule(report, r, links));
        }
        doc.push("\n");
    }
    let hold: Vec<String> =
        rules.iter().filter(|r| r.mode != RuleMode::Off && !r.violated).map(|r| code(r.rule.name())).collect();
    let off: Vec<String> = rules.iter().filter(|r| r.mode == RuleMode::Off).map(|r| code(r.rule.name())).collect();
    let mut line = if hold.len() == rules.len() {
        format!("✅ All {} hold: {}.", count(hold.len(), "rule"), hold.join(", "))
    } else if hold.is_empty() {
        String::new()
    } else {
        format!("Rules that hold: {}.", hold.join(", "))
    };
    if !off.is_empty() {
        line.push_str(&format!("{}Off: {}.", if line.is_empty() { "" } else { " " }, off.join(", ")));
    }
    if !line.is_empty() {
        doc.item(Kind::Rule, &format!("{line}\n\n"));
    }
}

/// One violated rule as a list item, its details as a nested list.
fn rule(report: &Report, r: &RuleOutcome, links: &Links) -> String {
    let (mark, mode) = if r.fails() { ("❌", "") } else { ("⚠️", " (advisory)") };
    // What is wrong (the rule's message); what the rule demands when there is none.
    let said = r.message.as_deref().unwrap_or(&r.description);
    let mut out = format!("- {mark} {}{mode}: {}\n", code(r.rule.name()), inline(said));
    if r.rule == Rule::SuiteMeans && report.comparison.is_some() {
        // Each figure is a row of the table of suite figures, marked there.
        out.push_str(&format!(
            "  - {} worse than the baseline beyond the tolerance: 🔴 in the suite figures\n",
            count(r.details.len(), "figure")
        ));
        return out;
    }
    let mut linked = false;
    for d in r.details.iter().take(RULE_DETAILS) {
        let line = match detail_scenario(report, d) {
            Some((s, rest)) => {
                linked = true;
                format!("{} ({}){}", code(&s.id), place(&s.source, links), plain(rest))
            }
            None => plain(d),
        };
        out.push_str(&format!("  - {line}\n"));
    }
    if r.details.len() > RULE_DETAILS {
        out.push_str(&format!("  - … and {} more\n", r.details.len() - RULE_DETAILS));
    }
    // The pass rate names no scenario on a line of its own: list the failing ones.
    if r.rule == Rule::PassRate && !linked {
        let failing: Vec<&ScenarioReport> = report.scenarios.iter().filter(|s| s.verdict == Verdict::Fail).collect();
        for s in failing.iter().take(RULE_DETAILS) {
            out.push_str(&format!("  - {} ({}): FAIL\n", code(&s.id), place(&s.source, links)));
        }
        if failing.len() > RULE_DETAILS {
            out.push_str(&format!("  - … and {} more\n", failing.len() - RULE_DETAILS));
        }
    }
    out
}

/// The scenario a rule's detail line is about (it starts with the id and a
/// `:`), and the rest of the line from that `:`.
fn detail_scenario<'r, 'd>(report: &'r Report, detail: &'d str) -> Option<(&'r ScenarioReport, &'d str)> {
    detail.match_indices(':').find_map(|(i, _)| report.scenario(&detail[..i]).map(|s| (s, &detail[i..])))
}

/// Free text of a rule's detail: [`inline`], with backticks as `'` (a
/// detail quoting a path would open a code span).
fn plain(text: &str) -> String {
    inline(text).replace('`', "'")
}

/// A scenario's `path:line` in Markdown: a link to the line when there are
/// links, else a code span.
fn place(source: &Source, links: &Links) -> String {
    let text = code(&format!("{}:{}", source.path, source.line));
    match links.to(&source.path, source.line) {
        Some(url) => format!("[{text}]({url})"),
        None => text,
    }
}

/// A scenario's `path:line` inside HTML (a `<summary>`): an `<a>` element
/// when there are links, else text.
fn place_html(source: &Source, links: &Links) -> String {
    let text = html(&printable(&format!("{}:{}", source.path, source.line)));
    match links.to(&source.path, source.line) {
        Some(url) => format!("<a href=\"{}\">{text}</a>", html(&url)),
        None => text,
    }
}

/// The verdicts by category: a table, or, when every scenario passed, one
/// line.
fn categories(report: &Report, doc: &mut Doc) {
    let m = &report.summary;
    if let Some(b) = &m.benign {
        doc.item(
            Kind::Category,
            &format!(
                "Benign scenarios: {} ({} PASS, {} FALSE_POSITIVE, {} uncheckable); false-positive rate {}.\n\n",
                b.total,
                b.pass,
                b.false_positive,
                b.uncheckable,
                figure(b.false_positive_rate)
            ),
        );
    }
    let all = m.counts();
    if all.pass == all.total {
        let each: Vec<String> = m.by_category.iter().map(|(n, c)| format!("{} {}", inline(n), c.total)).collect();
        doc.item(
            Kind::Category,
            &format!(
                "Verdicts: all {} PASS{}.\n\n",
                all.total,
                if each.is_empty() { String::new() } else { format!(" ({})", each.join(", ")) }
            ),
        );
        return;
    }
    doc.push(
        "| category | total | PASS | FAIL | WEAK | WEAK_RETRIEVAL | MALFORMED |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    let categories = m.by_category.iter().map(|(n, c)| (inline(n), c));
    for (name, c) in categories.chain([("**all**".to_string(), &all)]) {
        doc.item(
            Kind::Category,
            &format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                name, c.total, c.pass, c.fail, c.weak, c.weak_retrieval, c.malformed
            ),
        );
    }
    doc.push("\n");
}

/// A run-level warning and the scenarios that share it.
struct WarningGroup<'r> {
    /// The warning as written, when no other scenario shares it.
    text: &'r str,
    /// The warning without its scenario's id (from the space or `:` after
    /// it), or, for an expected or acceptable id, from the id on.
    key: &'r str,
    /// Scenarios that expect (or share a warning of another kind).
    expecting: Vec<&'r str>,
    /// Scenarios that accept.
    accepting: Vec<&'r str>,
    /// Whether the warning is about an expected or acceptable id.
    about_an_id: bool,
}

/// The warnings, one list item each; a warning that several scenarios share
/// (seven scenarios that expect or accept the same missing id) is one item
/// naming them.
fn warnings(report: &Report, doc: &mut Doc) {
    if report.warnings.is_empty() {
        return;
    }
    // Which scenario wrote each warning that starts with its id.
    let mut owner: HashMap<&str, &str> = HashMap::new();
    for s in &report.scenarios {
        for w in &s.warnings {
            if w.starts_with(s.id.as_str()) && w[s.id.len()..].starts_with([' ', ':']) {
                owner.entry(w.as_str()).or_insert(s.id.as_str());
            }
        }
    }
    let mut groups: Vec<WarningGroup> = Vec::new();
    let mut index: HashMap<(bool, &str), usize> = HashMap::new();
    for w in &report.warnings {
        let Some(id) = owner.get(w.as_str()).copied() else {
            groups.push(WarningGroup {
                text: w,
                key: w,
                expecting: Vec::new(),
                accepting: Vec::new(),
                about_an_id: false,
            });
            continue;
        };
        let rest = &w[id.len()..];
        let (key, accepts, about_an_id) = match (rest.strip_prefix(" expects "), rest.strip_prefix(" accepts ")) {
            (Some(key), _) => (key, false, true),
            (_, Some(key)) => (key, true, true),
            _ => (rest, false, false),
        };
        let at = *index.entry((about_an_id, key)).or_insert_with(|| {
            groups.push(WarningGroup { text: w, key, expecting: Vec::new(), accepting: Vec::new(), about_an_id });
            groups.len() - 1
        });
        let group = &mut groups[at];
        if accepts {
            group.accepting.push(id);
        } else {
            group.expecting.push(id);
        }
    }
    doc.push(&format!("### ⚠️ Warnings ({})\n\n", groups.len()));
    for g in &groups {
        doc.item(Kind::Warning, &format!("- {}\n", warning(g)));
    }
    doc.push("\n");
}

fn warning(g: &WarningGroup) -> String {
    let n = g.expecting.len() + g.accepting.len();
    if n < 2 {
        return inline(g.text);
    }
    let names = |ids: &[&str]| {
        let mut shown: Vec<String> = ids.iter().take(WARNING_SCENARIOS).map(|id| code(id)).collect();
        if ids.len() > WARNING_SCENARIOS {
            shown.push(format!("… and {} more", ids.len() - WARNING_SCENARIOS));
        }
        shown.join(", ")
    };
    if !g.about_an_id {
        let rest = g.key.trim_start_matches([' ', ':']).trim_start();
        return format!("{} — {}: {}", inline(rest), count(n, "scenario"), names(&g.expecting));
    }
    let verb = match (g.expecting.is_empty(), g.accepting.is_empty()) {
        (false, false) => "expect or accept",
        (false, true) => "expect",
        _ => "accept",
    };
    let mut who = Vec::new();
    if !g.expecting.is_empty() {
        who.push(format!("expected by {}", names(&g.expecting)));
    }
    if !g.accepting.is_empty() {
        who.push(format!("accepted by {}", names(&g.accepting)));
    }
    format!("{} {verb} {}: {}", count(n, "scenario"), inline(g.key), who.join("; "))
}

fn comparison(report: &Report, c: &Comparison, links: &Links, doc: &mut Doc) {
    let regressed = c.scenarios.iter().filter(|s| s.regressed).count();
    let improved = c.scenarios.iter().filter(|s| !s.regressed && s.baseline_verdict != s.current_verdict).count();
    let changed = c.scenarios.len() - regressed - improved;
    let mut counted = Vec::new();
    if regressed > 0 {
        counted.push(format!("{regressed} regressed"));
    }
    if improved > 0 {
        counted.push(format!("{improved} improved"));
    }
    if changed > 0 {
        counted.push(format!("{changed} with the same verdict and another ranking or context block"));
    }
    let mut out = format!(
        "### Compared with the baseline {}{}\n\nMemory file {}, suite {}. {}.\n\n",
        code(&c.baseline.path),
        c.baseline.revision.as_ref().map_or(String::new(), |r| format!(" at {}", code(r))),
        if c.memory_changed { "changed" } else { "unchanged" },
        if c.suite_changed { "changed" } else { "unchanged" },
        if c.scenarios.is_empty() {
            "No scenario changed its verdict, ranking or context block".to_string()
        } else {
            format!("{} changed: {}", count(c.scenarios.len(), "scenario"), counted.join(", "))
        }
    );
    if let Some(change) = &c.baseline_change {
        let by = change.accepted_by.as_deref().map_or(String::new(), |by| format!(", by {}", inline(by)));
        out.push_str(&if change.first_pin {
            format!(
                "> **This change pins the first baseline**: {} has none, so there are no goalposts to move; \
                 the run is compared with the baseline it pins.\n\n",
                code(&change.revision)
            )
        } else {
            format!(
                "> **This change re-pins the baseline** of {}: {} change{}.{}\n\n",
                code(&change.revision),
                count(change.scenarios.len(), "scenario"),
                if change.scenarios.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", inline(&change.scenarios.join(", ")))
                },
                if change.accepted { format!(" Accepted with `--accept-baseline-change`{by}.") } else { String::new() }
            )
        });
    }
    doc.item(Kind::Heading, &out);
    if let Some(st) = c.statistics.as_ref().filter(|st| st.changed()) {
        doc.item(Kind::Statistics, &statistics_section(st));
    }
    if !c.added.is_empty() {
        doc.item(Kind::List, &format!("New scenarios: {}\n\n", inline(&c.added.join(", "))));
    }
    if !c.removed.is_empty() {
        doc.item(Kind::List, &format!("Baseline scenarios not in this run: {}\n\n", inline(&c.removed.join(", "))));
    }
    // Regressions first, then improvements, then the rest; by id within each.
    let mut order: Vec<&ScenarioChange> = c.scenarios.iter().collect();
    order.sort_by_key(|s| (!s.regressed, s.baseline_verdict == s.current_verdict));
    for s in order {
        doc.item(Kind::Changed, &changed_scenario(report, s, links));
    }
}

/// Whether the changes are larger than the noise of the suite (shown when
/// a retrieval figure or a verdict moved).
fn statistics_section(st: &ComparisonStatistics) -> String {
    let mut out = format!(
        "#### Is the change larger than the noise?\n\n{} in both runs, paired (seed {}).\n\n\
         | figure | wins | losses | ties | mean change | 95% CI | p | reading |\n\
         |---|--:|--:|--:|--:|---|--:|---|\n",
        count(st.paired, "scenario"),
        st.seed
    );
    for f in &st.figures {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {}{} |\n",
            code(&f.name),
            f.wins,
            f.losses,
            f.ties,
            statistics::mean_change(f),
            statistics::interval(f),
            statistics::p_value(f.p_value, f.exact),
            if f.too_small { "⚠️ " } else { "" },
            statistics::reading(f)
        ));
    }
    out.push('\n');
    out.push_str(&statistics::detectable(st));
    for line in [statistics::verdicts(st), statistics::pass_rates(st)].into_iter().flatten() {
        out.push(' ');
        out.push_str(&line);
    }
    out.push_str("\n\n");
    if let Some(w) = statistics::warning(st) {
        let mut w = w;
        w[..1].make_ascii_uppercase();
        out.push_str(&format!("⚠️ {w}\n\n"));
    }
    out
}

/// One changed scenario, folded: the `<summary>` (plain HTML: Markdown is
/// not processed there) says how its verdict moved and where it is written.
fn changed_scenario(report: &Report, s: &ScenarioChange, links: &Links) -> String {
    let verdict = if s.baseline_verdict == s.current_verdict {
        format!("{} (unchanged)", s.current_verdict)
    } else if s.regressed {
        format!("{} → <b>{}</b> (regressed)", s.baseline_verdict, s.current_verdict)
    } else {
        format!("{} → <b>{}</b> (improved)", s.baseline_verdict, s.current_verdict)
    };
    let mark = if s.baseline_verdict == s.current_verdict {
        ""
    } else if s.regressed {
        "❌ "
    } else {
        "✅ "
    };
    let current = report.scenario(&s.id);
    let place = current.map_or_else(|| html(&printable(&s.source)), |r| place_html(&r.source, links));
    let mut out =
        format!("<details><summary>{mark}<code>{}</code>: {verdict} · {place}</summary>\n\n", html(&printable(&s.id)));
    for d in &s.entered {
        out.push_str(&format!(
            "- entered: {} at rank {} (score {})\n",
            code(&d.id),
            d.current_rank.unwrap_or(0),
            d.current_score.map_or("—".into(), score)
        ));
    }
    for d in &s.left {
        let expected = current.is_some_and(|r| r.expected.contains(&d.id));
        out.push_str(&format!(
            "- left: {} (was rank {}, score {}){}\n",
            code(&d.id),
            d.baseline_rank.unwrap_or(0),
            d.baseline_score.map_or("—".into(), score),
            if expected { ", an expected decision" } else { "" }
        ));
    }
    for d in &s.moved {
        let (from, to) = (d.baseline_rank.unwrap_or(0), d.current_rank.unwrap_or(0));
        let rank = if from == to { format!("rank {to}") } else { format!("rank {from} → {to}") };
        let scores = (d.baseline_score.map(score), d.current_score.map(score));
        let scored = match scores {
            (Some(a), Some(b)) if a != b => format!("score {a} → {b}"),
            (_, Some(b)) => format!("score {b}"),
            (Some(a), None) => format!("score {a}"),
            (None, None) => String::new(),
        };
        let sep = if scored.is_empty() { "" } else { ", " };
        out.push_str(&format!("- moved: {} {rank}{sep}{scored}\n", code(&d.id)));
    }
    if !s.edited_decisions.is_empty() {
        out.push_str(&format!("- edited in this change: {}\n", inline(&s.edited_decisions.join(", "))));
    }
    if let Some(diff) = &s.context_diff {
        out.push_str(&format!("\n{}", diff_block(diff)));
    }
    out.push_str("\n</details>\n\n");
    out
}

fn scenario(s: &ScenarioReport, links: &Links) -> String {
    let mut out = format!("#### {} {}\n\n", s.verdict, code(&s.id));
    out.push_str(&format!("{}\n\n", inline(&s.explanation)));
    out.push_str(&format!("- source: {}\n", place(&s.source, links)));
    out.push_str(&format!("- task: {}\n", inline(&s.task)));
    if let Some(f) = &s.file {
        out.push_str(&format!("- file: {}\n", code(f)));
    }
    out.push_str(&format!("- expected: {}\n", ids(&s.expected)));
    let retrieved: Vec<String> = s.retrieved.iter().map(|r| format!("{} ({})", code(&r.id), score(r.score))).collect();
    out.push_str(&format!(
        "- retrieved: {}\n",
        if retrieved.is_empty() { "nothing".to_string() } else { retrieved.join(", ") }
    ));
    if !s.missing.is_empty() {
        out.push_str(&format!("- missing: {}\n", ids(&s.missing)));
    }
    if !s.triggers.control.is_empty() || !s.triggers.governed.is_empty() {
        out.push_str(&format!(
            "- triggers: control {}; governed {}\n",
            ids(&s.triggers.control),
            ids(&s.triggers.governed)
        ));
    }
    out.push('\n');
    out
}

fn ids(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.iter().map(|i| code(i)).collect::<Vec<_>>().join(", ")
    }
}

/// An id, a path or a name as inline code, on one line and safe in a table
/// cell: a code span (pipes escaped, backticks as `'`), or, when the string
/// holds `<`, `>` or `&` (which a code span would show as entities if they
/// were escaped, and which must be escaped), a `<code>` element whose every
/// HTML or Markdown special character is a numeric entity.
pub(crate) fn code(s: &str) -> String {
    let flat = s.replace(['\r', '\n'], " ");
    let flat = printable(&flat);
    if !flat.contains(['<', '>', '&']) {
        return format!("`{}`", flat.replace('|', "\\|").replace('`', "'"));
    }
    let mut out = String::from("<code>");
    for c in flat.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '|' | '`' | '\\' | '*' | '_' | '[' | ']' | '~' | '!' | '#' | '"' | '\'' => {
                out.push_str(&format!("&#{};", u32::from(c)))
            }
            c => out.push(c),
        }
    }
    out.push_str("</code>");
    out
}

/// Free text on one line (in a table cell or not): line breaks as spaces,
/// other control characters shown escaped, HTML specials as entities, `|`
/// escaped.
pub(crate) fn inline(s: &str) -> String {
    html(&printable(&s.replace(['\r', '\n'], " "))).replace('|', "\\|")
}

fn html(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Whether a line would be a workflow command if the summary were printed
/// in a CI log (the runner trims leading blanks, then looks for `::`).
fn command_line(line: &str) -> bool {
    line.trim_start().starts_with("::")
}

/// A piece of the summary in which no line starts with `::`: the first `:`
/// of such a line is written `&#58;`, which renders as `:`. (No string from
/// the inputs can start a line of the summary except in a context-block
/// diff, and [`diff_block`] never puts such a line in a fence, where the
/// entity would show.)
pub(crate) fn no_command_lines(piece: &str) -> std::borrow::Cow<'_, str> {
    if !piece.lines().any(command_line) {
        return std::borrow::Cow::Borrowed(piece);
    }
    let mut out = String::with_capacity(piece.len() + 16);
    for line in piece.split_inclusive('\n') {
        if command_line(line) {
            let blanks = line.len() - line.trim_start().len();
            out.push_str(&line[..blanks]);
            out.push_str("&#58;");
            out.push_str(&line[blanks + 1..]);
        } else {
            out.push_str(line);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A context-block diff: a `diff` fence longer than any backtick run inside
/// it, or, when it holds `<`, `>` or `&` or a line that starts with `::`, a
/// `<pre>` block with entities (in a fence they would be shown as written,
/// and the summary could not be checked for tags). Control characters other
/// than line breaks are shown escaped either way.
fn diff_block(body: &str) -> String {
    let body = printable_lines(body);
    if body.contains(['<', '>', '&']) || body.lines().any(command_line) {
        let body = html(&body);
        return format!("<pre>\n{}{}</pre>\n", body, if body.ends_with('\n') { "" } else { "\n" });
    }
    fenced("diff", &body)
}

/// A fenced block whose fence is longer than any backtick run inside it.
fn fenced(lang: &str, body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{lang}\n{}{}{fence}\n", body, if body.ends_with('\n') { "" } else { "\n" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled() -> Report {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json");
        crate::report::json::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn a_passing_run_is_short_and_says_so() {
        let text = render(&bundled());
        assert!(
            text.starts_with("## ✅ mneme-gate: gate passed — all 51 scenarios pass (recall@3 1.000)\n\n"),
            "{text}"
        );
        assert!(
            text.contains("\n✅ All 4 rules hold: `recall`, `weak_retrieval`, `malformed`, `pass_rate`.\n"),
            "{text}"
        );
        assert!(
            text.ends_with(
                "Verdicts: all 51 PASS (anti_pattern 4, architecture 11, control 8, scope 18, security 10).\n\n"
            ),
            "{text}"
        );
        assert!(text.lines().filter(|l| !l.is_empty()).count() <= 16, "{text}");
    }

    #[test]
    fn github_links_point_at_the_line_of_the_file_at_the_commit() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let links = Links::github("https://github.com/", "octo/repo", sha, Path::new(""));
        let base = format!("https://github.com/octo/repo/blob/{sha}/");
        assert_eq!(links.to("scenarios/payments.yaml", 26), Some(format!("{base}scenarios/payments.yaml#L26")));
        assert_eq!(links.to("./a/../b c/x#y?.yaml", 0), Some(format!("{base}b%20c/x%23y%3F.yaml")));
        assert_eq!(links.to("a/)](<x>\"\n.yaml", 1), Some(format!("{base}a/%29%5D%28%3Cx%3E%22%0A.yaml#L1")));
        assert_eq!(links.to("../outside.yaml", 1), None, "outside the repository");
        assert_eq!(links.to("/abs/a.yaml", 1), None);
        assert_eq!(links.to("C:/a.yaml", 1), None);
        // A run in a folder of the checkout: paths are relative to it.
        let nested = Links::github("https://ghe.example.com:8443", "o/r", sha, Path::new("sub/dir"));
        let base = format!("https://ghe.example.com:8443/o/r/blob/{sha}/");
        assert_eq!(nested.to("s.yaml", 3), Some(format!("{base}sub/dir/s.yaml#L3")));
        assert_eq!(nested.to("../../s.yaml", 3), Some(format!("{base}s.yaml#L3")));
        assert_eq!(nested.to("../../../s.yaml", 3), None);
        // Anything that does not look like GitHub's values: no links.
        for (server, repository, sha) in [
            ("github.com", "o/r", sha),
            ("javascript:alert(1)//", "o/r", sha),
            ("https://github.com\" onclick=\"x", "o/r", sha),
            ("https://github.com", "o/r/extra", sha),
            ("https://github.com", "o/..", sha),
            ("https://github.com", "o/r", "main"),
            ("https://github.com", "o/r", &sha[..39]),
        ] {
            assert!(!Links::github(server, repository, sha, Path::new("")).enabled(), "{server} {repository} {sha}");
        }
        assert!(!Links::github("https://github.com", "o/r", sha, Path::new("/abs")).enabled());
        assert_eq!(Links::default().to("a.yaml", 1), None);
    }

    #[test]
    fn a_failing_headline_names_what_failed_and_how_badly() {
        use crate::gate::GateOutcome;
        let mut r = bundled();
        let rule = |name: &str, details: Vec<String>| RuleOutcome {
            rule: Rule::named(name).unwrap(),
            description: String::new(),
            mode: RuleMode::Fail,
            violated: !details.is_empty(),
            message: None,
            details,
        };
        let id = r.scenarios[0].id.clone();
        r.scenarios[0].verdict = Verdict::WeakRetrieval;
        r.scenarios[0].missing = vec!["X-1".into()];
        r.summary.mean_recall_at_k = Some(0.98);
        r.gate = GateOutcome::new(vec![
            rule("recall", vec![format!("{id}: recall@3 0/1 (missing X-1)")]),
            rule("weak_retrieval", vec![format!("{id}: explanation")]),
            rule("malformed", Vec::new()),
        ]);
        assert_eq!(
            headline(&r),
            "❌ mneme-gate: gate FAILED — 1 scenario misses an expected decision (recall@3 0.980)"
        );
        let text = render(&r);
        assert!(
            text.contains(&format!(
                "\n  - `{id}` (`{}:{}`): recall@3 0/1 (missing X-1)\n",
                r.scenarios[0].source.path, r.scenarios[0].source.line
            )),
            "{text}"
        );
        r.gate = GateOutcome::new(vec![
            rule("pass_rate", vec!["pass rate 0.900".into()]),
            rule("min_margin", vec!["x".into()]),
        ]);
        r.summary.fail = 2;
        r.summary.pass = 18;
        r.summary.pass_rate = 0.9;
        assert_eq!(
            headline(&r),
            "❌ mneme-gate: gate FAILED — 2 governed answers still break a decision (pass rate 0.900); rule `min_margin` violated"
        );
    }

    #[test]
    fn repeated_warnings_are_one_item_naming_the_scenarios() {
        let mut r = bundled();
        let missing = "`GONE-1`, which is not in the memory file (a typo, or a decision that was removed?)";
        let mut all = vec!["suite root s was given twice; it is loaded once".to_string()];
        for (i, verb) in ["expects", "accepts", "accepts"].iter().enumerate() {
            let w = format!("{} {verb} {missing}", r.scenarios[i].id);
            let id = &r.scenarios[i].id;
            let mut own = vec![w.clone(), format!("{id}: warning {i} of its own")];
            if i < 2 {
                own.push(format!("{id}: with_mneme.txt has no sibling"));
            }
            r.scenarios[i].warnings = own;
            all.extend(r.scenarios[i].warnings.iter().cloned());
        }
        all.sort();
        r.warnings = all;
        let text = render(&r);
        let from = text.find("### ⚠️ Warnings (6)\n\n").expect("2 grouped + 3 of their own + 1 of the run");
        let list: Vec<&str> = text[from..].lines().skip(2).take_while(|l| l.starts_with("- ")).collect();
        assert_eq!(list.len(), 6, "{list:#?}");
        let grouped: Vec<&&str> = list.iter().filter(|l| l.contains("GONE-1")).collect();
        assert_eq!(grouped.len(), 1, "{list:#?}");
        let (a, b, c) = (&r.scenarios[0].id, &r.scenarios[1].id, &r.scenarios[2].id);
        assert_eq!(
            *grouped[0],
            format!("- 3 scenarios expect or accept {missing}: expected by `{a}`; accepted by `{b}`, `{c}`")
        );
        assert!(list.contains(&format!("- {a}: warning 0 of its own").as_str()), "{list:#?}");
        assert!(
            list.contains(&format!("- with_mneme.txt has no sibling — 2 scenarios: `{a}`, `{b}`").as_str()),
            "{list:#?}"
        );
        assert!(list.contains(&"- suite root s was given twice; it is loaded once"), "{list:#?}");
    }

    #[test]
    fn moved_decisions_show_the_rank_and_the_score_change() {
        use crate::report::comparison::{DecisionMove, ScenarioChange};
        let r = bundled();
        let moved = |id: &str, ranks: (usize, usize), scores: (f64, f64)| DecisionMove {
            id: id.into(),
            baseline_rank: Some(ranks.0),
            current_rank: Some(ranks.1),
            baseline_score: Some(scores.0),
            current_score: Some(scores.1),
        };
        let change = ScenarioChange {
            id: r.scenarios[0].id.clone(),
            source: "x".into(),
            baseline_verdict: Verdict::Pass,
            current_verdict: Verdict::Pass,
            regressed: false,
            entered: Vec::new(),
            left: Vec::new(),
            moved: vec![moved("A", (2, 3), (4.0, 3.5)), moved("B", (3, 2), (9.0, 9.0)), moved("C", (1, 1), (7.0, 7.5))],
            metrics: Vec::new(),
            context_diff: None,
            edited_decisions: Vec::new(),
        };
        let text = changed_scenario(&r, &change, &Links::default());
        assert!(text.contains("- moved: `A` rank 2 → 3, score 4.0 → 3.5\n"), "{text}");
        assert!(text.contains("- moved: `B` rank 3 → 2, score 9.0\n"), "{text}");
        assert!(text.contains("- moved: `C` rank 1, score 7.0 → 7.5\n"), "{text}");
    }

    #[test]
    fn a_figure_change_has_an_arrow_and_a_mark() {
        let mc = |delta: f64, movement| MetricChange {
            name: "mrr".into(),
            baseline: Some(0.5),
            current: Some(0.5 + delta),
            delta: Some(delta),
            movement,
            rule: Some(Rule::SuiteMeans),
        };
        assert_eq!(change(&mc(-0.035, Movement::Regressed)), "▼ -0.035 🔴 worse");
        assert_eq!(change(&mc(0.047, Movement::Regressed)), "▲ +0.047 🔴 worse");
        assert_eq!(change(&mc(0.1, Movement::Improved)), "▲ +0.100 🟢 better");
        assert_eq!(change(&mc(-0.01, Movement::WithinTolerance)), "▼ -0.010 🟡 worse, within tolerance");
        assert_eq!(change(&mc(0.0, Movement::Unchanged)), "unchanged");
    }

    #[test]
    fn special_characters_cannot_break_the_layout() {
        assert_eq!(code("a|b\nc`d"), "`a\\|b c'd`");
        assert_eq!(code("<script>|`x`\u{1b}"), "<code>&lt;script&gt;&#124;&#96;x&#96;&#92;u{1b}</code>");
        assert_eq!(inline("<script> & | x\ny\u{7}"), "&lt;script&gt; &amp; \\| x y\\u{7}");
        assert_eq!(fenced("diff", "has ``` inside"), "````diff\nhas ``` inside\n````\n");
        assert_eq!(diff_block("+ a\u{1b}\n- b\n"), "```diff\n+ a\\u{1b}\n- b\n```\n");
        assert_eq!(diff_block("+ </details><!--\n"), "<pre>\n+ &lt;/details&gt;&lt;!--\n</pre>\n");
        assert_eq!(diff_block(" ::add-mask::x\n"), "<pre>\n ::add-mask::x\n</pre>\n");
        assert_eq!(no_command_lines("<pre>\n ::add-mask::x\n</pre>\n"), "<pre>\n &#58;:add-mask::x\n</pre>\n");
        assert!(matches!(no_command_lines("| a | b::c |\n"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn a_huge_suite_is_capped_under_the_budget_with_a_note() {
        let mut r = bundled();
        let template = r.scenarios[0].clone();
        r.scenarios.clear();
        for i in 0..30_000 {
            let mut s = template.clone();
            s.id = format!("scenario-{i:05}");
            s.verdict = Verdict::Fail;
            s.explanation = "Governance did not prevent the violation: a fairly long explanation. ".repeat(3);
            r.scenarios.push(s);
        }
        let text = render(&r);
        assert!(text.len() <= BUDGET, "{} bytes", text.len());
        assert!(text.len() > BUDGET - 5_000, "the budget is used: {} bytes", text.len());
        let shown = text.matches("#### FAIL `scenario-").count();
        assert!(shown > 100 && shown < 30_000, "{shown}");
        assert!(
            text.ends_with(&format!(
                "Left out: {} scenario(s) that did not pass. The JSON report (`--json`) has everything.\n",
                30_000 - shown
            )),
            "the note counts them: {}",
            &text[text.len() - 400..]
        );
        // A small budget keeps the headline and the note.
        let small = render_capped(&r, 6_000);
        assert!(small.len() <= 6_000, "{}", small.len());
        assert!(small.starts_with("## ✅ mneme-gate: gate passed"), "{small}");
        assert!(small.contains("**This summary was cut short**"), "{small}");
    }

    #[test]
    fn the_comparison_counts_against_the_budget() {
        use crate::report::comparison::{BaselineSource, Comparison, ScenarioChange};
        let mut r = bundled();
        let diff = format!("@@ -1,3 +1,3 @@\n{}", "-  Constraints: a long line of a decision\n".repeat(400));
        let scenarios: Vec<ScenarioChange> = (0..2_000)
            .map(|i| ScenarioChange {
                id: format!("scenario-{i:05}"),
                source: "scenarios/a.yaml:1:5".into(),
                baseline_verdict: Verdict::Pass,
                current_verdict: Verdict::Fail,
                regressed: true,
                entered: Vec::new(),
                left: Vec::new(),
                moved: Vec::new(),
                metrics: Vec::new(),
                context_diff: Some(diff.clone()),
                edited_decisions: Vec::new(),
            })
            .collect();
        r.comparison = Some(Comparison {
            baseline: BaselineSource { path: "reports/baseline.json".into(), revision: None, commit: None },
            memory_changed: true,
            suite_changed: true,
            incompatible: Vec::new(),
            metrics: Vec::new(),
            scenarios,
            added: Vec::new(),
            removed: Vec::new(),
            filtered: false,
            baseline_change: None,
            statistics: None,
        });
        let text = render(&r);
        assert!(text.len() <= BUDGET, "{} bytes", text.len());
        let shown = text.matches("<details>").count();
        assert!(shown > 10 && shown < 2_000, "{shown}");
        assert_eq!(text.matches("</details>").count(), shown, "no block is cut in the middle");
        assert!(
            text.contains(&format!(
                "Left out: {} changed scenario(s) of the comparison with the baseline.",
                2_000 - shown
            )),
            "{}",
            &text[text.len() - 400..]
        );
    }
}
