//! The Markdown summary as a reviewer sees it: the real binary's summary,
//! rendered as GitHub renders a job summary (GitHub-flavoured Markdown, with
//! comrak), and checked on the HTML: no Markdown shown instead of rendered,
//! every table a table, one list item per distinct warning, a headline that
//! says what the gate decided, file links from the GitHub environment, the
//! chart of the suite means; and a passing summary that fits on one screen.

mod common;

use std::path::Path;

use common::{copy_tree, Test};

const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

/// GitHub's rendering of a job summary: CommonMark with the GFM extensions
/// (table, strikethrough, autolink, task list, tag filter), raw HTML kept
/// (GitHub keeps `<details>`, `<summary>`, `<b>`, `<code>`, `<a>`).
fn github_html(markdown: &str) -> String {
    let mut options = comrak::Options::default();
    options.extension.table = true;
    options.extension.strikethrough = true;
    options.extension.autolink = true;
    options.extension.tasklist = true;
    #[allow(deprecated)] // GitHub applies it; comrak 0.56 drops the option
    {
        options.extension.tagfilter = true;
    }
    options.render.r#unsafe = true;
    comrak::markdown_to_html(markdown, &options)
}

/// The text a reader sees, code included: tags removed, entities decoded.
fn all_text(html: &str) -> String {
    text(html, true)
}

/// The text a reader sees outside code (inline and blocks).
fn visible_text(html: &str) -> String {
    text(html, false)
}

fn text(html: &str, with_code: bool) -> String {
    let mut out = String::new();
    let mut rest = html;
    let mut code_depth = 0usize;
    while let Some(open) = rest.find('<') {
        if code_depth == 0 {
            out.push_str(&rest[..open]);
        }
        let close = rest[open..].find('>').map_or(rest.len(), |i| open + i + 1);
        let tag = &rest[open..close];
        let name: String =
            tag.trim_start_matches(['<', '/']).chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        if !with_code && (name == "code" || name == "pre") {
            if tag.starts_with("</") {
                code_depth = code_depth.saturating_sub(1);
            } else {
                code_depth += 1;
            }
        }
        rest = &rest[close..];
    }
    out.push_str(rest);
    out.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

/// The inner HTML of every outermost `<tag>` element (an element nested in
/// one of the same tag is part of it).
fn elements<'a>(html: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let is_open = |at: &str| at.starts_with(&open) && at[open.len()..].starts_with(['>', ' ']);
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut i = 0;
    while let Some(lt) = html[i..].find('<') {
        let at = i + lt;
        let rest = &html[at..];
        if is_open(rest) {
            let inner = at + rest.find('>').unwrap() + 1;
            if depth == 0 {
                start = inner;
            }
            depth += 1;
            i = inner;
        } else if rest.starts_with(&close) && depth > 0 {
            depth -= 1;
            if depth == 0 {
                found.push(&html[start..at]);
            }
            i = at + close.len();
        } else {
            i = at + 1;
        }
    }
    found
}

/// Checks every summary must pass, as rendered: no `**` or `|` shown as
/// text, every Markdown table rendered as a table, no table row left in a
/// paragraph, and returns the HTML.
fn assert_renders(markdown: &str) -> String {
    let html = github_html(markdown);
    let text = visible_text(&html);
    assert!(!text.contains("**"), "literal ** in the rendered summary:\n{text}");
    assert!(!text.contains('|'), "literal | in the rendered summary:\n{text}");
    let tables = markdown.lines().filter(|l| l.starts_with("|---")).count();
    assert_eq!(html.matches("<table>").count(), tables, "every Markdown table is a table:\n{html}");
    for p in elements(&html, "p") {
        assert!(!p.trim_start().starts_with('|'), "a table row in a paragraph: {p}");
    }
    for summary in elements(&html, "summary") {
        assert!(!summary.contains("**") && !summary.contains('`'), "Markdown in a <summary>: {summary}");
    }
    html
}

struct Run {
    code: i32,
    markdown: String,
    json: String,
}

/// `mneme-gate run --quiet --markdown --json` in `dir`, with `env` added to
/// a clean environment (no GitHub variables, git info off).
fn run(dir: &Path, env: &[(&str, &str)]) -> Run {
    let mut cmd = Test::new()
        .args(["run", "--quiet", "--annotations", "off", "--markdown", "out/summary.md", "--json", "out/report.json"])
        .dir(dir);
    for name in ["GITHUB_ACTIONS", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA", "GITHUB_WORKSPACE"] {
        cmd = cmd.env_remove(name);
    }
    let out = cmd.envs(env.iter().copied()).run();
    let read = |name: &str| std::fs::read_to_string(dir.join("out").join(name)).unwrap();
    Run { code: out.code, markdown: read("summary.md"), json: read("report.json") }
}

fn github_env(workspace: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("GITHUB_ACTIONS", "true".to_string()),
        ("GITHUB_SERVER_URL", "https://github.com".to_string()),
        ("GITHUB_REPOSITORY", "octo/tillpoint".to_string()),
        ("GITHUB_SHA", SHA.to_string()),
        ("GITHUB_WORKSPACE", workspace.to_str().unwrap().to_string()),
    ]
}

fn with_env<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'a str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// The bundled example (configuration, memory, suite, pinned baseline).
fn example() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["scenarios", "reports"] {
        copy_tree(&root.join(dir), &tmp.path().join(dir));
    }
    std::fs::create_dir_all(tmp.path().join("fixtures")).unwrap();
    std::fs::copy(root.join("fixtures/project_memory.json"), tmp.path().join("fixtures/project_memory.json")).unwrap();
    std::fs::copy(root.join("mneme-gate.yaml"), tmp.path().join("mneme-gate.yaml")).unwrap();
    tmp
}

/// The bundled example with decision PAY-003 removed from the memory file:
/// two scenarios lose an expected decision, seven expect or accept it.
fn example_without_pay_003() -> tempfile::TempDir {
    let dir = example();
    let path = dir.path().join("fixtures/project_memory.json");
    let mut memory: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let items = memory["items"].as_array_mut().unwrap();
    let before = items.len();
    items.retain(|d| d["id"] != "PAY-003");
    assert_eq!(items.len(), before - 1, "PAY-003 is an item of the bundled memory file");
    std::fs::write(&path, serde_json::to_string_pretty(&memory).unwrap()).unwrap();
    dir
}

fn headline(html: &str) -> String {
    all_text(elements(html, "h2").first().expect("the summary opens with a heading"))
}

#[test]
fn the_passing_summary_says_so_and_fits_on_one_screen() {
    let dir = example();
    let out = run(dir.path(), &[]);
    assert_eq!(out.code, 0, "{}", out.markdown);
    let html = assert_renders(&out.markdown);
    assert!(html.starts_with("<h2>"), "the first line is the headline:\n{html}");
    assert_eq!(headline(&html), "✅ mneme-gate: gate passed — all 51 scenarios pass (recall@3 1.000)");
    assert!(!html.contains("FAILED") && !html.contains("❌"), "{html}");
    // One screen: the headline, a line, the figures and a few lines.
    let lines = out.markdown.lines().filter(|l| !l.trim().is_empty()).count();
    assert!(lines <= 22, "{lines} lines:\n{}", out.markdown);
    assert_eq!(html.matches("<table>").count(), 1, "only the figures are a table:\n{html}");
    assert_eq!(elements(&html, "tr").len(), 9, "a header and eight figures:\n{html}");
    assert!(!html.contains("xychart-beta"), "no chart when nothing moved:\n{html}");
}

#[test]
fn the_summary_of_a_lost_decision_reads_as_github_shows_it() {
    let dir = example_without_pay_003();
    let env = github_env(dir.path());
    let out = run(dir.path(), &with_env(&env));
    assert_eq!(out.code, 1, "{}", out.markdown);
    let html = assert_renders(&out.markdown);

    // The headline names the failure and how badly.
    assert_eq!(
        headline(&html),
        "❌ mneme-gate: gate FAILED — 2 scenarios lost an expected decision (recall@3 1.000 → 0.965)"
    );

    // Each failing rule links its scenarios to their file and line at the commit.
    let blob = format!("https://github.com/octo/tillpoint/blob/{SHA}/");
    let merchant = format!("<a href=\"{blob}scenarios/payments.yaml#L26\">");
    let refund = format!("<a href=\"{blob}scenarios/payments.yaml#L5\">");
    let failed = &html[html.find("<h3>What failed</h3>").expect("a section says what failed")..];
    let failed = &failed[..failed.find("</ul>\n<p>").unwrap()];
    for rule in ["recall", "weak_retrieval", "verdict_regression"] {
        let item = elements(failed, "li")
            .into_iter()
            .find(|li| li.starts_with(&format!("❌ <code>{rule}</code>")))
            .unwrap_or_else(|| panic!("{rule} is listed as failed:\n{failed}"));
        assert!(item.contains(&merchant) && item.contains(&refund), "{rule} links both scenarios:\n{item}");
    }

    // Each regressed scenario's summary line: HTML, not Markdown, and a link.
    let summaries = elements(&html, "summary");
    let regressed: Vec<&&str> = summaries.iter().filter(|s| s.contains("(regressed)")).collect();
    assert_eq!(regressed.len(), 2, "{summaries:#?}");
    for s in &regressed {
        assert!(s.contains("PASS → <b>WEAK_RETRIEVAL</b> (regressed)"), "{s}");
        assert!(s.contains(&merchant) || s.contains(&refund), "{s}");
    }
    assert!(
        summaries.iter().position(|s| s.contains("(regressed)")) == Some(0),
        "regressions come first: {summaries:#?}"
    );

    // One warning for the seven scenarios that name the removed decision.
    let warnings = &html[html.find("<h3>⚠️ Warnings (1)</h3>").expect("one distinct warning")..];
    let list = elements(warnings, "ul")[0];
    let items = elements(list, "li");
    assert_eq!(items.len(), 1, "{list}");
    let item = all_text(items[0]);
    assert!(item.starts_with("7 scenarios expect or accept PAY-003, which is not in the memory file"), "{item}");
    for id in [
        "merchant-balance-read-through-ledger-client",
        "refund-posts-ledger-reversal",
        "capture-retry-reuses-idempotency-key",
        "daily-payouts-from-ledger-balances",
        "payments-retry-comment-typo",
        "staging-env-file-stays-out-of-git",
        "stripe-dispute-webhook-verifies-signature",
    ] {
        assert!(item.contains(id), "{id} is named: {item}");
    }

    // The figures against the baseline: arrows and marks, and the chart.
    let rows: Vec<String> = elements(&html, "tr").iter().map(|r| all_text(r)).collect();
    let recall = rows.iter().find(|r| r.contains("mean recall@3")).expect("a row for recall@3");
    assert!(recall.contains("1.000") && recall.contains("0.965") && recall.contains("▼ -0.035 🔴 worse"), "{recall}");
    let chart = elements(&html, "code")
        .into_iter()
        .find(|c| c.contains("xychart-beta"))
        .expect("a Mermaid chart of the suite means");
    assert!(html.contains("<code class=\"language-mermaid\">"), "drawn where GitHub draws Mermaid");
    assert!(chart.contains("bar [0.965, ") && chart.contains("line [1.000, "), "{chart}");

    // The scenarios that did not pass link their source too.
    let problems = &html[html.find("<h3>Scenarios that did not pass (2)</h3>").unwrap()..];
    assert!(problems.contains(&format!("{merchant}<code>scenarios/payments.yaml:26</code></a>")), "{problems}");

    // The JSON report is the same bytes with or without the GitHub environment.
    let plain = run(dir.path(), &[]);
    assert_eq!(plain.json, out.json, "the JSON report does not depend on the environment");
    assert!(!plain.markdown.contains("https://"), "no links outside GitHub Actions:\n{}", plain.markdown);
    assert!(plain.markdown.contains("(`scenarios/payments.yaml:26`)"), "plain file and line:\n{}", plain.markdown);
    assert_renders(&plain.markdown);
}

#[test]
fn a_run_in_a_folder_of_the_checkout_links_paths_from_the_repository_root() {
    let checkout = tempfile::tempdir().unwrap();
    let example = example_without_pay_003();
    copy_tree(example.path(), &checkout.path().join("gate"));
    let env = github_env(checkout.path());
    let out = run(&checkout.path().join("gate"), &with_env(&env));
    assert_eq!(out.code, 1);
    let link = format!("(https://github.com/octo/tillpoint/blob/{SHA}/gate/scenarios/payments.yaml#L26)");
    assert!(out.markdown.contains(&link), "{}", out.markdown);
}

#[test]
fn the_broken_suite_renders_and_each_warning_is_its_own_item() {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Test::new()
        .args(["run", "--no-baseline", "--quiet", "--annotations", "off", "--markdown"])
        .arg(tmp.path().join("s.md"))
        .args([
            "--memory",
            "tests/fixtures/suites/broken/project_memory.json",
            "--scenarios",
            "tests/fixtures/suites/broken",
        ])
        .dir(root)
        .run();
    assert_eq!(out.status.code(), Some(1));
    let markdown = std::fs::read_to_string(tmp.path().join("s.md")).unwrap();
    let html = assert_renders(&markdown);
    let title = headline(&html);
    assert!(title.starts_with("❌ mneme-gate: gate FAILED — 18 scenarios are MALFORMED; "), "{title}");
    let warnings = &html[html.find("<h3>⚠️ Warnings (2)</h3>").expect("two distinct warnings")..];
    let items = elements(elements(warnings, "ul")[0], "li");
    assert_eq!(items.len(), 2, "{warnings}");
    assert!(items.iter().all(|i| all_text(i).matches("mneme-txt-fallback").count() == 1), "{items:#?}");
    assert_eq!(html.matches("<table>").count(), 2, "the figures and the verdicts by category");
}

#[test]
fn the_checks_catch_what_a_reviewer_would_see() {
    // A `<summary>` with Markdown in it shows the asterisks.
    let html = github_html("<details><summary>PASS → **FAIL**</summary>\n\nx\n\n</details>\n");
    assert!(visible_text(&html).contains("**FAIL**"), "{html}");
    // Warnings on consecutive quoted lines are one paragraph.
    let html = github_html("> warning: a\n> warning: b\n");
    assert_eq!(elements(&html, "p").len(), 1, "{html}");
    // A table broken by a blank line leaves a row as text.
    let html = github_html("| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n");
    assert!(visible_text(&html).contains("| 3 | 4 |"), "{html}");
    // Code keeps its `|` and `**` without counting as shown Markdown.
    let html = github_html("`a | b` and `**`\n\n```\n| x |\n```\n");
    assert!(!visible_text(&html).contains('|') && !visible_text(&html).contains("**"), "{html}");
}

#[test]
fn the_shipped_binary_does_not_depend_on_the_renderer() {
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let section = |name: &str| {
        let start = manifest.find(&format!("\n[{name}]\n")).unwrap_or_else(|| panic!("[{name}] in Cargo.toml"));
        let body = &manifest[start + name.len() + 4..];
        body[..body.find("\n[").unwrap_or(body.len())].to_string()
    };
    assert!(!section("dependencies").contains("comrak"), "comrak is for tests and mneme-gate-dev only");
    assert!(section("dev-dependencies").contains("comrak"), "the tests render with comrak");
}
