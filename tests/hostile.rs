//! Hostile inputs: a suite, a memory file and their file names come from a
//! pull request and run in CI next to secrets. The real binary runs every
//! command on `tests/fixtures/hostile/` (ids, titles, tasks, globs and paths
//! holding `\n::add-mask::…`, `\r::error file=…::…`, ESC, BEL, NUL, `##[…]`,
//! `<script>`, `<!--`, `</details>`, `|`, and a `(?s).*` assertion over a
//! large answer), and the outputs are read the way GitHub Actions reads them.

mod common;

use common::{copy_tree, Run, Test};

use std::path::Path;

/// One run of the binary in `dir`; `github` sets `GITHUB_ACTIONS=true` (so
/// annotations are on by default).
fn mneme(dir: &Path, args: &[&str], github: bool, stdin: Option<&str>) -> Run {
    let mut run = Test::new().dir(dir).args(args);
    if github {
        run = run.env("GITHUB_ACTIONS", "true");
    }
    if let Some(text) = stdin {
        run = run.stdin(text);
    }
    run.run()
}

/// Runs and checks the exit code.
#[track_caller]
fn expect(dir: &Path, args: &[&str], github: bool, code: i32) -> Run {
    mneme(dir, args, github, None).code(code)
}

/// The first 200 characters of the large answer: hostile, like the rest.
const BIG_HEAD: &str =
    "psycopg2.connect(dsn)\n::add-mask::SECRET-RESPONSE\r::error file=x::y\u{1b}[31m\u{7}\0 ##[add-mask]LEGACY <script>alert(1)</script></details><!--|`\n";

/// A copy of the hostile fixture in a fresh folder, with the large answer
/// (≥ 50 KB) that the `(?s).*` assertion matches whole.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile"), dir.path());
    let mut big = String::from(BIG_HEAD);
    for i in 0..2_000 {
        big.push_str(&format!("filler line {i:05} of a long answer that the regex matches whole\n"));
    }
    assert!(big.len() >= 50_000);
    std::fs::create_dir_all(dir.path().join("scenarios/responses")).unwrap();
    std::fs::write(dir.path().join("scenarios/responses/big.md"), big).unwrap();
    dir
}

/// A line of filler far beyond the first 200 characters of the answer.
const DEEP_FILLER: &str = "filler line 00020";

const RUN: [&str; 6] = ["run", "--memory", "memory.json", "--scenarios", "scenarios", "--no-baseline"];

fn with<'a>(base: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(more).copied().collect()
}

/// The data of a workflow command, as the runner unescapes it.
fn unescape_data(s: &str) -> String {
    s.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
}

/// Checks a text the way GitHub Actions reads a step's output: no byte that
/// a terminal or the log would act on, no legacy `##[` command anywhere, and
/// no line that the runner would take for a workflow command (it trims
/// leading blanks, then looks for `::`), except, when `annotations`, the
/// tool's own `::error` / `::warning` / `::notice` lines, whose properties
/// and message are escaped so that the message shows no line of its own that
/// looks like a command.
fn assert_no_injection(what: &str, text: &str, annotations: bool) {
    for (i, c) in text.char_indices() {
        let bad = (c.is_control() && c != '\n') || matches!(c, '\u{2028}' | '\u{2029}');
        assert!(!bad, "{what}: raw control character {c:?} at byte {i}: …{}…", context(text, i));
    }
    if let Some(i) = text.find("##[") {
        panic!("{what}: a legacy workflow command `##[` at byte {i}: …{}…", context(text, i));
    }
    for line in text.lines() {
        if !line.trim_start().starts_with("::") {
            continue;
        }
        assert!(annotations, "{what}: a line that GitHub runs as a workflow command:\n{line}");
        let Some(rest) = ["::error ", "::warning ", "::notice "].iter().find_map(|p| line.strip_prefix(p)) else {
            panic!("{what}: a workflow command the tool did not write:\n{line}");
        };
        let (properties, data) = rest.split_once("::").unwrap_or_else(|| panic!("{what}: no message: {line}"));
        for property in properties.split(',') {
            let (key, _) = property.split_once('=').unwrap_or_else(|| panic!("{what}: bad property {property:?}"));
            assert!(
                ["file", "line", "col", "endLine", "endColumn", "title"].contains(&key),
                "{what}: an injected property {key:?} in\n{line}"
            );
        }
        let message = unescape_data(data);
        for shown in message.split(['\n', '\r']) {
            assert!(!shown.trim_start().starts_with("::"), "{what}: the annotation shows a command line:\n{line}");
        }
    }
}

fn context(text: &str, i: usize) -> String {
    let mut start = i.saturating_sub(60);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (i + 60).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    format!("{:?}", &text[start..end])
}

fn assert_out(what: &str, out: &Run, annotations_on: Stream) {
    assert_no_injection(&format!("{what}: stdout"), &out.stdout, annotations_on == Stream::Stdout);
    assert_no_injection(&format!("{what}: stderr"), &out.stderr, annotations_on == Stream::Stderr);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    Stdout,
    Stderr,
    Neither,
}

// Item 6: workflow commands and terminal escapes through `run`.
#[test]
fn run_output_cannot_inject_workflow_commands() {
    let dir = fixture();
    let d = dir.path();
    for github in [true, false] {
        let out = expect(d, &RUN, github, 1);
        assert_out("run", &out, if github { Stream::Stdout } else { Stream::Neither });
        assert!(
            out.stdout.contains("fail\\n::add-mask::SECRET-SCEN\\r::error file=x::y\\u{1b}[31m\\u{7}\\0"),
            "{}",
            out.stdout
        );
        let out = expect(d, &with(&RUN, &["--quiet"]), github, 1);
        assert_out("run --quiet", &out, if github { Stream::Stdout } else { Stream::Neither });
        assert!(out.stdout.contains("weak\\n::add-mask::SECRET-WEAK"), "{}", out.stdout);
    }
    let out = expect(
        d,
        &with(&RUN, &["--annotations", "github", "--json", "r.json", "--junit", "r.xml", "--markdown", "r.md"]),
        false,
        1,
    );
    assert_out("run --annotations github", &out, Stream::Stdout);
    let annotations: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("::")).collect();
    // MALFORMED, FAIL, WEAK_RETRIEVAL, and the pass_rate rule.
    assert_eq!(annotations.len(), 4, "{annotations:#?}");
    assert!(
        annotations.iter().any(|l| l.starts_with(
            "::error file=scenarios/hostile.yaml,line=2,col=5,title=fail\\n%3A%3Aadd-mask%3A%3ASECRET-SCEN\\r%3A%3Aerror file=x%3A%3Ay\\u{1b}[31m\\u{7}\\0"
        )),
        "{annotations:#?}"
    );
    // The reports go to standard output: the terminal report (and the
    // annotations) to standard error.
    let out = expect(d, &with(&RUN, &["--json", "-"]), true, 1);
    assert_out("run --json -", &out, Stream::Stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).expect("still a JSON document");
    assert_eq!(report["scenarios"][0]["id"], "##[add-mask]LEGACY-ID", "the value is unchanged");
    for format in ["--markdown", "--junit", "--trec-qrels"] {
        let out = mneme(d, &with(&RUN, &[format, "-"]), true, None);
        assert_out(&format!("run {format} -"), &out, Stream::Stderr);
    }
    // An id the TREC format cannot hold is refused by name (and, in
    // GitHub Actions, with an `::error` annotation on standard error).
    let out = expect(d, &with(&RUN, &["--trec-run", "t.txt"]), true, 2);
    assert_out("run --trec-run", &out, Stream::Stderr);
    assert!(out.stderr.contains("contains whitespace, which the TREC format cannot hold"), "{}", out.stderr);
}

// Item 6: the other commands.
#[test]
fn other_commands_cannot_inject_workflow_commands() {
    let dir = fixture();
    let d = dir.path();
    let runs: [(&[&str], i32); 10] = [
        (&["validate", "--memory", "memory.json"], 0),
        (&["validate", "--memory", "memory.json", "--format", "json"], 0),
        (&["validate", "--memory", "broken.json"], 2),
        (&["validate", "--memory", "broken.json", "--format", "json"], 2),
        (&["run", "--memory", "broken.json", "--scenarios", "scenarios", "--no-baseline"], 2),
        (&["context", "--memory", "memory.json", "--task", "refund ledger reversal"], 0),
        (&["context", "--memory", "memory.json", "--task", "refund ledger reversal", "--format", "json"], 0),
        (&["explain", "--memory", "memory.json", "--task", "refund ledger reversal", "--file", "web/a\n::error::x"], 0),
        (&["explain", "--memory", "memory.json", "--task", "refund ledger reversal", "--format", "json"], 0),
        (&["retrieve", "--memory", "memory.json", "--queries", "queries.jsonl"], 0),
    ];
    for (args, code) in runs {
        let out = expect(d, args, true, code);
        // An error (exit 2) is also an `::error` annotation on standard error.
        assert_out(&args.join(" "), &out, if code == 2 { Stream::Stderr } else { Stream::Neither });
    }
    let out = expect(d, &["run", "--memory", "broken.json", "--scenarios", "scenarios", "--no-baseline"], true, 2);
    assert!(out.stderr.contains("\n::error title=mneme-gate::the memory file broken.json has "), "{}", out.stderr);
    let out = expect(d, &["validate", "--memory", "memory.json"], true, 0);
    assert!(out.stdout.contains("`FORBID\\n::add-mask::SECRET-RULE\\r::error file=x::y`"), "{}", out.stdout);
    let out = expect(d, &["retrieve", "--memory", "memory.json", "--queries", "bad-queries.jsonl"], true, 2);
    assert_out("retrieve (a bad line)", &out, Stream::Stderr);
    assert!(out.stderr.contains("query \"q-bad\\n::add-mask::SECRET-BADQUERY\\u{1b}[31m\\u{7}\""), "{}", out.stderr);
}

/// The fixture changed so that every part of a comparison has something to
/// show: a decision's title and constraints edited (a context-block diff), a
/// scenario that now misses its decision (a regression), one removed and
/// one added.
fn change(d: &Path) {
    let edit = |path: &str, from: &str, to: &str| {
        let p = d.join(path);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{path} has {from:?}");
        std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
    };
    edit(
        "memory.json",
        "Refund ledger reversal title\\n::warning::INJECTED-TITLE",
        "Refund ledger reversal title, edited\\n::warning::INJECTED-EDIT\\r::error file=x::y\\u001b[32m",
    );
    edit(
        "memory.json",
        "post refunds with LedgerClient\\n::add-mask::SECRET-CONSTRAINT",
        "post refunds with LedgerClient, edited\\n  ::add-mask::SECRET-CONSTRAINT-EDIT </details>",
    );
    edit(
        "scenarios/hostile.yaml",
        "task: Record the refund reversal in the ledger",
        "task: Storefront pages for the web",
    );
    edit(
        "scenarios/hostile.yaml",
        "\"##[add-mask]LEGACY-ID\"",
        "\"##[add-mask]LEGACY-ID-RENAMED\\n::add-mask::SECRET-ADDED\"",
    );
}

// Item 6: the comparison with a baseline, in `baseline`, `run` and `diff`.
#[test]
fn comparisons_cannot_inject_workflow_commands() {
    let dir = fixture();
    let d = dir.path();
    let pin = ["baseline", "--memory", "memory.json", "--scenarios", "scenarios", "--out"];
    let out = expect(d, &with(&pin, &["b.json"]), true, 1);
    assert_out("baseline (not pinned)", &out, Stream::Neither);
    let out = expect(d, &with(&pin, &["b.json", "--allow-failing"]), true, 0);
    assert_out("baseline", &out, Stream::Neither);
    change(d);
    let out = expect(d, &with(&pin, &["b2.json", "--allow-failing"]), true, 0);
    assert_out("baseline (first pin)", &out, Stream::Neither);
    std::fs::copy(d.join("b.json"), d.join("b2.json")).unwrap();
    let out = expect(d, &with(&pin, &["b2.json", "--allow-failing"]), true, 0);
    assert_out("baseline (re-pin)", &out, Stream::Neither);
    assert!(out.stdout.contains("changes against the baseline it replaces"), "{}", out.stdout);

    let run = ["run", "--memory", "memory.json", "--scenarios", "scenarios", "--baseline", "b.json"];
    for quiet in [&[][..], &["--quiet"][..]] {
        let out = expect(d, &with(&with(&run, quiet), &["--json", "r2.json", "--markdown", "r2.md"]), true, 1);
        assert_out("run against the baseline", &out, Stream::Stdout);
        assert!(out.stdout.contains("Compared with the baseline b.json"), "{}", out.stdout);
        // --quiet names the changed scenarios in a line; the details are
        // in the full report.
        if quiet.is_empty() {
            assert!(out.stdout.contains("(REGRESSED)"), "{}", out.stdout);
            assert!(out.stdout.contains("context block:"), "{}", out.stdout);
        } else {
            assert!(out.stdout.contains(" regressed: "), "{}", out.stdout);
        }
        assert!(out
            .stdout
            .contains("new scenarios (1): ##\\u{5b}add-mask]LEGACY-ID-RENAMED\\n::add-mask::SECRET-ADDED"));
    }
    let md = std::fs::read_to_string(d.join("r2.md")).unwrap();
    assert_markdown_safe(&md);
    assert!(md.contains("### Compared with the baseline"), "{md}");
    assert!(md.contains("<pre>"), "the diff holds `<`: {md}");

    let out = expect(d, &["diff", "b.json", "r2.json"], true, 1);
    assert_out("diff", &out, Stream::Neither);
    assert!(out.stdout.contains("(REGRESSED)"), "{}", out.stdout);
    let out = expect(d, &["diff", "b.json", "r2.json", "--json", "-"], true, 1);
    assert_out("diff --json -", &out, Stream::Neither);
    serde_json::from_str::<serde_json::Value>(&out.stdout).expect("still a JSON document");
}

/// Markdown in which no string from the inputs opens a tag or a comment,
/// closes the `<details>` it sits in, or adds a column to a table.
fn assert_markdown_safe(md: &str) {
    assert_no_injection("markdown", md, false);
    assert!(!md.contains("<script"), "{md}");
    assert!(!md.contains("<!--"), "{md}");
    let opened = md.matches("<details>").count();
    assert_eq!(md.matches("</details>").count(), opened, "{md}");
    assert_eq!(md.lines().filter(|l| *l == "</details>").count(), opened, "only the tool's own `</details>` lines");
    let mut columns = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            columns = None;
            continue;
        }
        // Cells are split at pipes that are not escaped.
        let pipes = line.char_indices().filter(|&(i, c)| c == '|' && !line[..i].ends_with('\\')).count();
        match columns {
            None => columns = Some(pipes),
            Some(n) => assert_eq!(pipes, n, "a row with a column of its own:\n{line}"),
        }
    }
}

// Item 7: every Markdown section escapes what it quotes.
#[test]
fn markdown_escapes_every_string_from_the_inputs() {
    let dir = fixture();
    let d = dir.path();
    expect(d, &with(&RUN, &["--markdown", "r.md"]), true, 1);
    let md = std::fs::read_to_string(d.join("r.md")).unwrap();
    assert_markdown_safe(&md);
    assert!(
        md.contains("| cat&lt;script&gt;alert(1)&lt;/script&gt;\\|&lt;!--&lt;/details&gt; ::add-mask::SECRET-CAT"),
        "{md}"
    );
    assert!(md.contains("#### FAIL <code>fail ::add-mask::SECRET-SCEN ::error file=x::y&#92;u{1b}"), "{md}");
}

// Item 7: the 1 MiB cap holds for the whole summary, the comparison included.
#[test]
fn markdown_with_a_huge_comparison_stays_under_one_mib() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let memory = |edited: bool| {
        let decisions: Vec<serde_json::Value> = (0..300)
            .map(|i| {
                let constraints: Vec<String> = (0..4)
                    .map(|c| {
                        format!(
                            "constraint {c} of decision {i:04}{}: a long sentence that every context block quotes whole, \
                             so that a changed word shows up in the diff of every scenario that retrieves it",
                            if edited { " (edited)" } else { "" }
                        )
                    })
                    .collect();
                serde_json::json!({
                    "id": format!("D-{i:04}"),
                    "decision": format!("Decision {i:04} about widget{i:04} handling"),
                    "scope": [format!("widget{i:04}")],
                    "constraints": constraints,
                })
            })
            .collect();
        serde_json::to_string_pretty(&serde_json::json!({ "decisions": decisions })).unwrap()
    };
    std::fs::write(d.join("memory.json"), memory(false)).unwrap();
    let mut suite = String::from("scenarios:\n");
    for n in 0..2_000 {
        let i = n % 300;
        suite.push_str(&format!(
            "  - id: scenario-{n:05}\n    task: Change the widget{i:04} handling of part {n}\n    expect: [D-{i:04}]\n"
        ));
    }
    std::fs::create_dir_all(d.join("scenarios")).unwrap();
    std::fs::write(d.join("scenarios/suite.yaml"), suite).unwrap();
    let suite = ["--memory", "memory.json", "--scenarios", "scenarios"];
    expect(d, &with(&["baseline", "--out", "b.json"], &suite), false, 0);
    std::fs::write(d.join("memory.json"), memory(true)).unwrap();
    let out = expect(d, &with(&["run", "--baseline", "b.json", "--markdown", "r.md"], &suite), false, 0);
    assert!(out.stdout.len() > 2 << 20, "the comparison is large: {} bytes", out.stdout.len());
    let md = std::fs::read_to_string(d.join("r.md")).unwrap();
    assert!(md.len() <= 1 << 20, "{} bytes", md.len());
    let shown = md.matches("<details>").count();
    assert!(shown > 10 && shown < 2_000, "{shown}");
    assert!(
        md.ends_with(&format!(
            "> **This summary was cut short** to stay under GitHub's 1 MiB step-summary limit. Left out: {} changed \
             scenario(s) of the comparison with the baseline. The JSON report (`--json`) has everything.\n",
            2_000 - shown
        )),
        "{}",
        &md[md.len().saturating_sub(500)..]
    );
    assert_markdown_safe(&md);
}

/// A trigger as reports may show it: at most 200 characters and an ellipsis.
fn assert_excerpt(what: &str, trigger: &str) {
    let n = trigger.chars().count();
    assert!(n <= 200 || (n == 201 && trigger.ends_with('…')), "{what}: a trigger of {n} characters");
}

// Item 3: a trigger is an excerpt in every format.
#[test]
fn triggers_are_short_excerpts_in_every_format() {
    let dir = fixture();
    let d = dir.path();
    let out = expect(
        d,
        &with(&RUN, &["--json", "r.json", "--junit", "r.xml", "--markdown", "r.md", "--annotations", "github"]),
        false,
        1,
    );
    for (what, text) in [
        ("stdout", out.stdout.clone()),
        ("json", std::fs::read_to_string(d.join("r.json")).unwrap()),
        ("junit", std::fs::read_to_string(d.join("r.xml")).unwrap()),
        ("markdown", std::fs::read_to_string(d.join("r.md")).unwrap()),
    ] {
        assert!(!text.contains(DEEP_FILLER), "{what} quotes the answer beyond the excerpt");
        assert!(text.len() < 40_000, "{what}: {} bytes", text.len());
    }
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    let failing = report["scenarios"].as_array().unwrap().iter().find(|s| s["verdict"] == "FAIL").unwrap();
    let mut seen = 0;
    for side in ["control", "governed"] {
        for t in failing["triggers"][side].as_array().unwrap() {
            let t = t.as_str().unwrap();
            assert_excerpt("json", t);
            assert!(t.starts_with("psycopg2.connect(dsn)\n::add-mask::SECRET-RESPONSE"), "{t:?}");
            assert!(t.ends_with('…'), "{t:?}");
            seen += 1;
        }
    }
    assert_eq!(seen, 2);
    let explanation = failing["explanation"].as_str().unwrap();
    assert!(explanation.len() < 600 && explanation.contains("…)."), "{explanation}");
    // The Markdown lists them as code; JUnit in the failure's body.
    let md = std::fs::read_to_string(d.join("r.md")).unwrap();
    let line = md.lines().find(|l| l.starts_with("- triggers: ")).expect("a triggers line");
    for part in line.trim_start_matches("- triggers: control ").split("; governed ") {
        assert!(part.chars().count() < 400, "{part}");
        assert!(part.contains('…'), "{part}");
    }
    let xml = std::fs::read_to_string(d.join("r.xml")).unwrap();
    let report = quick_junit::Report::deserialize_from_str(&xml).expect("well-formed JUnit XML");
    let bodies: Vec<String> = report
        .test_suites
        .iter()
        .flat_map(|s| &s.test_cases)
        .filter_map(|c| match &c.status {
            quick_junit::TestCaseStatus::NonSuccess { description: Some(d), .. } => Some(d.to_string()),
            _ => None,
        })
        .collect();
    let line = bodies.iter().flat_map(|b| b.lines()).find(|l| l.starts_with("governed triggers: ")).expect("triggers");
    assert!(line.chars().count() < 400 && line.ends_with('…'), "{line}");
}

// Items 3 and 6: the JUnit file is well-formed XML 1.0 and shows escapes.
#[test]
fn junit_is_well_formed_xml() {
    let dir = fixture();
    let d = dir.path();
    expect(d, &with(&RUN, &["--junit", "r.xml"]), false, 1);
    let xml = std::fs::read_to_string(d.join("r.xml")).unwrap();
    for c in xml.chars() {
        let allowed = matches!(c, '\t' | '\n' | '\r') || !(c.is_control() || matches!(c, '\u{fffe}' | '\u{ffff}'));
        assert!(allowed, "a character XML 1.0 forbids or a terminal acts on: {c:?}");
    }
    let report = quick_junit::Report::deserialize_from_str(&xml).expect("well-formed JUnit XML");
    let names: Vec<String> =
        report.test_suites.iter().flat_map(|s| s.test_cases.iter().map(|c| c.name.to_string())).collect();
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("fail\\n::add-mask::SECRET-SCEN\\r::error file=x::y\\u{1b}[31m\\u{7}\\0<script>")),
        "{names:?}"
    );
}

/// Step outputs the way GitHub reads `$GITHUB_OUTPUT`: `key=value` lines and
/// `key<<DELIMITER` blocks closed by a line that is exactly the delimiter;
/// then the lines GitHub would refuse (it fails the step on the first).
fn github_outputs(text: &str) -> (Vec<(String, String)>, Vec<String>) {
    let lines: Vec<&str> = text.split('\n').collect();
    let (mut out, mut refused) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.is_empty() {
            continue;
        }
        let (equals, heredoc) = (line.find('='), line.find("<<"));
        match (equals, heredoc) {
            (Some(e), h) if h.is_none_or(|h| e < h) => out.push((line[..e].to_string(), line[e + 1..].to_string())),
            (_, Some(h)) => {
                let (key, delimiter) = (&line[..h], &line[h + 2..]);
                let Some(end) = lines[i..].iter().position(|l| *l == delimiter) else {
                    refused.push(format!("{line} (no closing delimiter)"));
                    break;
                };
                out.push((key.to_string(), lines[i..i + end].join("\n")));
                i += end + 1;
            }
            _ => refused.push(line.to_string()),
        }
    }
    (out, refused)
}

// Item 8: a report path with a line break cannot add a step output.
#[test]
fn github_output_has_exactly_one_result() {
    let dir = fixture();
    let d = dir.path();
    std::fs::write(d.join("github_output"), "earlier=kept\n").unwrap();
    let json = "r.json\nresult=passed";
    let junit = "j\nMNEME_GATE_EOF\nresult=passed.xml";
    let out = expect(
        d,
        &with(&RUN, &["--json", json, "--junit", junit, "--github-output", "github_output", "--quiet"]),
        true,
        1,
    );
    let (outputs, refused) = github_outputs(&std::fs::read_to_string(d.join("github_output")).unwrap());
    let values = |key: &str| outputs.iter().filter(|(k, _)| k == key).map(|(_, v)| v.as_str()).collect::<Vec<_>>();
    assert_eq!(values("result"), ["failed"], "{outputs:?}");
    assert!(refused.is_empty(), "{refused:?}");
    assert_eq!(values("json-report"), [json], "{outputs:?}");
    assert_eq!(values("junit-report"), [junit], "{outputs:?}");
    assert_eq!(values("earlier"), ["kept"]);
    let keys: Vec<&str> = outputs.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        ["earlier", "result", "pass-rate", "mean-recall-at-k", "weak-retrieval", "json-report", "junit-report"]
    );
    assert!(d.join(json).is_file());
    assert_out("run --github-output", &out, Stream::Stdout);
}
