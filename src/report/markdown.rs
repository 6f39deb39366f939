//! The Markdown summary (`--markdown`), for a pull request comment or
//! `$GITHUB_STEP_SUMMARY`: the headline, the metrics, the gate's rules, the
//! comparison with the baseline, then every scenario that did not pass.
//!
//! Every string from the inputs is escaped for where it lands: free text and
//! table cells with [`inline`] (line breaks as spaces, other control
//! characters shown escaped, `<`, `>`, `&` as entities, `|` as `\|`), ids and
//! paths with [`code`] (a code span, or a `<code>` element with entities when
//! the string holds `<`, `>` or `&`), and a context-block diff in a fence
//! longer than any backtick run in it (a `<pre>` block with entities when it
//! holds `<`, `>` or `&`). No string can open a tag, a comment or close the
//! `<details>` it sits in.
//!
//! GitHub refuses a step summary over 1 MiB, so the whole document is capped
//! at [`BUDGET`]: it is built piece by piece (a table row, a warning, a
//! changed scenario of the comparison, a scenario that did not pass), and
//! from the first piece that would not fit, everything after it is left out
//! and a closing note says what (counted by kind) and that the JSON report
//! has everything. Scenarios are listed worst first, so the least severe go.

use super::comparison::{Comparison, Movement};
use super::{figure, score, Report, ScenarioReport};
use crate::describe::{printable, printable_lines};
use crate::gate::RuleMode;
use crate::verdict::Verdict;

/// Bytes a summary may take, the closing note included: under GitHub's
/// 1 MiB (1,048,576 bytes) step-summary limit.
pub const BUDGET: usize = 1_000_000;

/// Room kept under the budget for the closing note.
const NOTE_ROOM: usize = 600;

pub fn render(report: &Report) -> String {
    render_capped(report, BUDGET)
}

/// The summary in at most `budget` bytes (a budget too small for even the
/// headline and the note gives the note alone, which may exceed it).
pub fn render_capped(report: &Report, budget: usize) -> String {
    let mut doc = Doc { out: String::new(), budget, left: Vec::new() };
    head(report, &mut doc);
    let problems: Vec<&ScenarioReport> =
        report.failures_first().into_iter().filter(|s| s.verdict != Verdict::Pass).collect();
    if problems.is_empty() {
        doc.push("Every scenario passed.\n");
        return doc.finish();
    }
    doc.push(&format!("### Scenarios that did not pass ({})\n\n", problems.len()));
    for s in problems {
        doc.item(Kind::Problem, &scenario(s));
    }
    doc.finish()
}

/// What a piece of the summary is, to say what was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Heading,
    Category,
    Rule,
    Warning,
    Figure,
    List,
    Changed,
    Problem,
}

impl Kind {
    fn words(self) -> &'static str {
        match self {
            Kind::Heading => "part(s) of the heading",
            Kind::Category => "row(s) of the verdicts by category",
            Kind::Rule => "gate rule(s)",
            Kind::Warning => "warning(s)",
            Kind::Figure => "figure(s) of the comparison with the baseline",
            Kind::List => "list(s) of new or removed scenarios",
            Kind::Changed => "changed scenario(s) of the comparison with the baseline",
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

fn head(report: &Report, doc: &mut Doc) {
    let m = &report.summary;
    let k = report.fingerprint.k;
    let mut out = String::from("## mneme-gate\n\n");
    if report.gate.passed {
        out.push_str(&format!("**Gate passed**: {} scenario(s), pass rate {:.3}.\n\n", m.total, m.pass_rate));
    } else {
        let n = report.gate.rules.iter().filter(|r| r.fails()).count();
        out.push_str(&format!(
            "**Gate FAILED**: {n} rule(s) violated; {} scenario(s), pass rate {:.3}.\n\n",
            m.total, m.pass_rate
        ));
    }
    let sha = &report.fingerprint.memory.sha256;
    out.push_str(&format!(
        "Profile {}, k = {}, memory {} (sha256 {}).\n\n",
        code(&report.fingerprint.profile.name),
        k,
        code(&report.fingerprint.memory.path),
        code(&sha.chars().take(12).collect::<String>())
    ));

    out.push_str("| Layer 1 (governed scenarios) | value |\n|---|---:|\n");
    let rows = [
        (format!("mean recall@{k}"), m.mean_recall_at_k),
        ("mean recall@1".to_string(), m.mean_recall_at_1),
        (format!("mean precision@{k}"), m.mean_precision_at_k),
        ("MRR".to_string(), m.mrr),
        (format!("mean nDCG@{k}"), m.mean_ndcg_at_k),
        ("irrelevant-injection rate".to_string(), m.irrelevant_injection_rate),
        ("ungoverned-injection rate".to_string(), m.ungoverned_injection_rate),
    ];
    for (name, value) in rows {
        out.push_str(&format!("| {name} | {} |\n", figure(value)));
    }
    out.push('\n');
    doc.item(Kind::Heading, &out);

    doc.push(
        "| category | total | PASS | FAIL | WEAK | WEAK_RETRIEVAL | MALFORMED |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    let all = m.counts();
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
    if let Some(b) = &m.benign {
        doc.push(&format!(
            "Benign scenarios: {} ({} PASS, {} FALSE_POSITIVE, {} uncheckable); false-positive rate {}.\n\n",
            b.total,
            b.pass,
            b.false_positive,
            b.uncheckable,
            figure(b.false_positive_rate)
        ));
    }

    doc.push("| rule | mode | outcome |\n|---|---|---|\n");
    for r in &report.gate.rules {
        let outcome = match (r.mode, r.violated) {
            (RuleMode::Off, _) => "off",
            (_, false) => "ok",
            (RuleMode::Fail, true) => "**FAILED**",
            (RuleMode::Advisory, true) => "warning",
        };
        let mode = match r.mode {
            RuleMode::Fail => "fail",
            RuleMode::Advisory => "advisory",
            RuleMode::Off => "off",
        };
        let mut details = String::new();
        if r.violated {
            // Backticks as `'`: a detail quoting a path would open a code span.
            let shown: Vec<String> = r.details.iter().take(5).map(|d| inline(d).replace('`', "'")).collect();
            details = format!(": {}", shown.join("<br>"));
            if r.details.len() > 5 {
                details.push_str(&format!("<br>… and {} more", r.details.len() - 5));
            }
        }
        doc.item(Kind::Rule, &format!("| {} | {mode} | {outcome}{details} |\n", code(&r.rule)));
    }
    doc.push("\n");
    for w in &report.warnings {
        doc.item(Kind::Warning, &format!("> warning: {}\n", inline(w)));
    }
    if !report.warnings.is_empty() {
        doc.push("\n");
    }
    if let Some(c) = &report.comparison {
        comparison(c, doc);
    }
}

fn comparison(c: &Comparison, doc: &mut Doc) {
    let mut out = format!(
        "### Compared with the baseline {}{}\n\nMemory file {}, suite {}.\n\n",
        code(&c.baseline.path),
        c.baseline.revision.as_ref().map_or(String::new(), |r| format!(" at {}", code(r))),
        if c.memory_changed { "changed" } else { "unchanged" },
        if c.suite_changed { "changed" } else { "unchanged" }
    );
    if let Some(change) = &c.baseline_change {
        out.push_str(&format!(
            "> **This change re-pins the baseline** of {}: {} scenario(s) change{}.{}\n\n",
            code(&change.revision),
            change.scenarios.len(),
            if change.scenarios.is_empty() {
                String::new()
            } else {
                format!(" ({})", inline(&change.scenarios.join(", ")))
            },
            if change.accepted { " Accepted with `--accept-baseline-change`." } else { "" }
        ));
    }
    doc.item(Kind::Heading, &out);
    doc.push("| figure | baseline | current | delta | |\n|---|---:|---:|---:|---|\n");
    for m in c.metrics.iter().filter(|m| m.rule.is_some()) {
        let mark = match m.movement {
            Movement::Regressed => "**regressed**",
            Movement::Improved => "improved",
            Movement::WithinTolerance => "worse (within tolerance)",
            Movement::NotComparable => "not comparable",
            _ => "",
        };
        doc.item(
            Kind::Figure,
            &format!(
                "| {} | {} | {} | {} | {mark} |\n",
                inline(&m.name),
                figure(m.baseline),
                figure(m.current),
                m.delta.map_or("—".into(), |d| format!("{d:+.3}"))
            ),
        );
    }
    doc.push("\n");
    if !c.added.is_empty() {
        doc.item(Kind::List, &format!("New scenarios: {}\n\n", inline(&c.added.join(", "))));
    }
    if !c.removed.is_empty() {
        doc.item(Kind::List, &format!("Baseline scenarios not in this run: {}\n\n", inline(&c.removed.join(", "))));
    }
    for s in &c.scenarios {
        let verdict = if s.baseline_verdict == s.current_verdict {
            format!("{} (unchanged)", s.current_verdict)
        } else if s.regressed {
            format!("{} → **{}** (regressed)", s.baseline_verdict, s.current_verdict)
        } else {
            format!("{} → {} (improved)", s.baseline_verdict, s.current_verdict)
        };
        let mut out = format!("<details><summary><code>{}</code>: {verdict}</summary>\n\n", html(&printable(&s.id)));
        for d in &s.entered {
            out.push_str(&format!(
                "- entered: {} at rank {} (score {})\n",
                code(&d.id),
                d.current_rank.unwrap_or(0),
                d.current_score.map_or("—".into(), score)
            ));
        }
        for d in &s.left {
            out.push_str(&format!(
                "- left: {} (was rank {}, score {})\n",
                code(&d.id),
                d.baseline_rank.unwrap_or(0),
                d.baseline_score.map_or("—".into(), score)
            ));
        }
        for d in &s.moved {
            out.push_str(&format!(
                "- moved: {} rank {} → {}\n",
                code(&d.id),
                d.baseline_rank.unwrap_or(0),
                d.current_rank.unwrap_or(0)
            ));
        }
        if !s.edited_decisions.is_empty() {
            out.push_str(&format!("- edited in this change: {}\n", inline(&s.edited_decisions.join(", "))));
        }
        if let Some(diff) = &s.context_diff {
            out.push_str(&format!("\n{}", diff_block(diff)));
        }
        out.push_str("\n</details>\n\n");
        doc.item(Kind::Changed, &out);
    }
}

fn scenario(s: &ScenarioReport) -> String {
    let mut out = format!("#### {} {}\n\n", s.verdict, code(&s.id));
    out.push_str(&format!("{}\n\n", inline(&s.explanation)));
    out.push_str(&format!("- source: {}\n", code(&s.source.to_string())));
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
fn code(s: &str) -> String {
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
fn inline(s: &str) -> String {
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
fn no_command_lines(piece: &str) -> std::borrow::Cow<'_, str> {
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
        assert!(text.starts_with("## mneme-gate\n\n**Gate passed**: 51 scenario(s), pass rate 1.000."), "{text}");
        assert!(text.ends_with("Every scenario passed.\n"), "{text}");
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
        assert!(small.starts_with("## mneme-gate\n\n**Gate passed**"), "{small}");
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
