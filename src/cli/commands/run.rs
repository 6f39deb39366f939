//! `mneme-gate run`: the suite, its reports, and the gate, compared with the
//! baseline when there is one.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::baseline::{self, AtRevision, Comparison};
use crate::cli::output;
use crate::cli::settings::{BaselinePlan, Destination, RunSettings};
use crate::cli::suite::{self, SuiteRun};
use crate::describe::{defuse_lines, printable};
use crate::error::{exit, Error};
use crate::gate::{self, GateOutcome, GateSettings, Rule, RuleMode};
use crate::git::{GitError, Repo};
use crate::memory::Memory;
use crate::report::partition::{self, Partial};
use crate::report::{self, display_path, Report};
use crate::retrieval::Index;

pub(crate) fn execute(s: RunSettings) -> Result<i32, Error> {
    let started = Instant::now();
    let SuiteRun { report, index, loaded, ran, partition } = suite::run(&s.suite, s.quiet)?;
    if let Some(partition) = partition {
        return write_partial(&s, partition.partial(report));
    }
    let code = conclude(&s, report, Some(&index), started, Some((loaded, ran)));
    // As the report (see `conclude`): the process ends with the command.
    std::mem::forget(index);
    code
}

/// What `run` and `merge` do once the report of the suite is built: the git
/// commit, the comparison with the baseline, the memory diff, the gate, the
/// reports, the step outputs and the terminal report. `index` is the
/// memory the suite ran on (needed for `--memory-ref` only); `phases` the
/// load and run durations, for `--timings`.
pub(crate) fn conclude(
    s: &RunSettings,
    mut report: Report,
    index: Option<&Index>,
    started: Instant,
    phases: Option<(Duration, Duration)>,
) -> Result<i32, Error> {
    // Why there is no repository matters only to the flags that need one.
    let found = match (s.git, std::env::current_dir()) {
        (true, Ok(dir)) => Some(Repo::require(&dir)),
        _ => None,
    };
    let (repo, missing) = match found {
        Some(Ok(repo)) => (Some(repo), None),
        Some(Err(e)) => (None, Some(e)),
        None => (None, None),
    };
    report.git = repo.as_ref().and_then(|r| r.info());
    let require = || require(repo.as_ref(), missing.as_ref());

    let mut rules = report.gate.rules.clone();
    let compared = match &s.baseline {
        Some(plan) => Some(compare(plan, &report, &s.suite.gate, &require, !s.suite.filter.is_empty())?),
        None => None,
    };
    if let Some(rev) = &s.memory_ref {
        let Some(path) = s.suite.memory.file() else {
            return Err(Error::Usage(format!(
                "--memory-ref compares one memory file with its version at {rev}; the memory here is read from sources ({}): import them at both revisions and compare the files",
                s.suite.memory.sources.label()
            )));
        };
        let old = match require()?.read_at(rev, path)? {
            Some(bytes) => {
                Memory::parse(path, String::from_utf8_lossy(&bytes).into_owned(), s.suite.memory.profile.family).pool
            }
            None => Vec::new(),
        };
        let index = index.ok_or_else(|| Error::Infrastructure("--memory-ref: the memory was not loaded".into()))?;
        report.memory_diff = Some(baseline::memory_diff(rev, &old, index.decisions(), index.excluded()));
    }
    let mut pinned_with = None;
    if let Some((mut comparison, baseline)) = compared {
        if let Some(diff) = &report.memory_diff {
            baseline::attribute(&mut comparison, diff, &baseline, &report);
        }
        rules.extend(baseline::rules(&comparison, &s.suite.gate));
        report.comparison = Some(comparison);
        pinned_with = Some(baseline.fingerprint.memory.sha256);
    }
    if s.suite.gate.mode(Rule::NoNewUngated) != RuleMode::Off && s.suite.filter.is_empty() {
        // `merge` refuses the coverage rules (a partition holds part of the
        // suite), so a run that gets here has loaded its memory.
        let index = index.ok_or_else(|| Error::Infrastructure("no_new_ungated: the memory was not loaded".into()))?;
        if let Some(added) = added_decisions(s, &report, index, pinned_with.as_deref(), &require)? {
            let expected: HashSet<&str> =
                report.scenarios.iter().flat_map(|sc| sc.expected.iter().map(String::as_str)).collect();
            rules.push(gate::no_new_ungated(&expected, &added.decisions, &added.against, &s.suite.gate));
        }
    }
    report.gate = GateOutcome::new(rules);

    if let (true, Some((loaded, ran))) = (s.timings, phases) {
        let ms = |d: std::time::Duration| (d.as_secs_f64() * 1e6).round() / 1e3;
        report.timings =
            Some(report::Timings { load_ms: ms(loaded), run_ms: ms(ran), total_ms: ms(started.elapsed()) });
    }

    write_reports(s, &report)?;
    if let Some(path) = &s.github_output {
        append_github_outputs(path, &report, s)?;
    }
    let mut text = String::new();
    if s.annotations {
        text.push_str(&report::annotations::github(&report, report::annotations::GITHUB_LIMIT));
    }
    let style = report::terminal::Style { colour: s.colour, quiet: s.quiet, width: s.width };
    // The annotations above are the only lines that may start with `::`.
    text.push_str(&defuse_lines(&report::terminal::render(&report, style), s.colour));
    text.push_str(&defuse_lines(&report::model::terminal(&report), false));
    output::terminal(&text, s.reports.to_stdout())?;
    let code = if report.gate.passed { exit::OK } else { exit::GATE_FAILED };
    // The process ends here: freeing a large report piece by piece would
    // only delay the exit (every scenario's strings, in the order they were
    // allocated).
    std::mem::forget(report);
    Ok(code)
}

/// `run --partition`: writes the partial report and says what it holds; the
/// gate is decided by `merge` (exit 0 once the partial report is written).
fn write_partial(s: &RunSettings, partial: Partial) -> Result<i32, Error> {
    let Some(destination) = &s.reports.json else {
        return Err(Error::Usage("--partition needs --json FILE".into()));
    };
    output::report(destination, &partition::render(&partial), output::Kind::Json)?;
    let m = &partial.report.summary;
    let written = destination.file().map_or("standard output".to_string(), display_path);
    let benign = m.benign.map_or(String::new(), |b| format!(", {} benign", b.total));
    let text = format!(
        "partition {}: {} of the suite's {} scenario(s) ({} PASS, {} FAIL, {} WEAK, {} WEAK_RETRIEVAL, {} MALFORMED{benign}), \
         partial report written to {}\nthe gate is decided by `mneme-gate merge` of every partition's partial report\n",
        partial.partition,
        partial.scenarios.len(),
        partial.suite.scenarios,
        m.pass,
        m.fail,
        m.weak,
        m.weak_retrieval,
        m.malformed,
        printable(&written)
    );
    output::terminal(&defuse_lines(&text, false), s.reports.to_stdout())?;
    Ok(exit::OK)
}

/// How many commits `no_new_ungated` looks back for the memory file a
/// baseline was pinned with.
const HISTORY_LIMIT: usize = 1000;

/// The decisions of the pool that are new for `no_new_ungated`.
struct Added {
    /// What they are new against, in words (a revision, or the memory the
    /// baseline was pinned with).
    against: String,
    /// Their ids and titles, by id.
    decisions: Vec<(String, String)>,
}

/// The decisions of the pool that are new for `no_new_ungated` (ids and
/// titles), and what they are new against, in words: against `--memory-ref`
/// when given, else the memory at `--baseline-ref`, else the memory the
/// baseline was pinned with (by its SHA-256: the working tree's file when
/// it is unchanged, else the newest version of it in HEAD's history).
/// `None` when there is nothing to compare with (no baseline).
fn added_decisions<'r>(
    s: &RunSettings,
    report: &Report,
    index: &Index,
    pinned_with: Option<&str>,
    require: &dyn Fn() -> Result<&'r Repo, Error>,
) -> Result<Option<Added>, Error> {
    if let Some(diff) = &report.memory_diff {
        let decisions = diff.added.iter().map(|d| (d.id.clone(), d.title.clone())).collect();
        return Ok(Some(Added { against: diff.revision.clone(), decisions }));
    }
    let Some(path) = s.suite.memory.file() else {
        return Err(Error::Usage(format!(
            "gate rule no_new_ungated compares the memory file with the version the baseline was pinned with; the memory here is read from sources ({}): import them into one memory file, or set the rule off",
            s.suite.memory.sources.label()
        )));
    };
    let family = s.suite.memory.profile.family;
    let old = if let Some(rev) = s.baseline.as_ref().and_then(|b| b.revision.as_ref()) {
        let bytes = require()?.read_at(rev, path)?;
        (rev.clone(), bytes)
    } else {
        let Some(sha) = pinned_with else { return Ok(None) };
        if sha == report.fingerprint.memory.sha256 {
            return Ok(Some(Added {
                against: "the memory the baseline was pinned with".into(),
                decisions: Vec::new(),
            }));
        }
        let found = match require() {
            Ok(repo) => repo.find_version(path, sha, HISTORY_LIMIT)?,
            Err(_) => None,
        };
        match found {
            Some((commit, bytes)) => {
                (format!("the memory the baseline was pinned with (commit {})", &commit[..12]), Some(bytes))
            }
            None => {
                return Err(Error::Usage(format!(
                    "gate rule no_new_ungated: the baseline was pinned with another version of {} (sha256 {sha}), \
                     and no commit among the last {HISTORY_LIMIT} of HEAD has it, so the decisions added since \
                     cannot be told; pass --memory-ref REV (the revision to compare with), or --baseline-ref REV",
                    display_path(path)
                )))
            }
        }
    };
    let (against, bytes) = old;
    let old_pool = match bytes {
        Some(bytes) => Memory::parse(path, String::from_utf8_lossy(&bytes).into_owned(), family).pool,
        None => Vec::new(),
    };
    let known: HashSet<&str> = old_pool.iter().map(|d| d.id.as_str()).collect();
    let mut added: Vec<(String, String)> = index
        .decisions()
        .iter()
        .filter(|d| !known.contains(d.id.as_str()))
        .map(|d| (d.id.clone(), d.title.clone()))
        .collect();
    added.sort();
    added.dedup_by(|a, b| a.0 == b.0);
    Ok(Some(Added { against, decisions: added }))
}

/// The repository, or why there is none (not a repository, or one git
/// refuses to open because another user owns it).
fn require<'r>(repo: Option<&'r Repo>, missing: Option<&GitError>) -> Result<&'r Repo, Error> {
    match (repo, missing) {
        (Some(repo), _) => Ok(repo),
        (None, Some(GitError::NotSafe { repo })) => Err(Error::Git(GitError::NotSafe { repo: repo.clone() })),
        (None, _) => {
            let dir = std::env::current_dir().unwrap_or_else(|_| ".".into());
            Err(Error::Git(GitError::NotARepository { dir }))
        }
    }
}

/// Reads the baseline (and, with a revision, the revision's copy), lets
/// [`baseline::select`] choose, and compares the run with the choice.
fn compare<'r>(
    plan: &BaselinePlan,
    current: &Report,
    settings: &GateSettings,
    require: &dyn Fn() -> Result<&'r Repo, Error>,
    filtered: bool,
) -> Result<(Comparison, Report), Error> {
    let shown = display_path(&plan.path);
    let working = match baseline::load(&plan.path) {
        Ok(r) => Some(r),
        Err(baseline::BaselineError::Missing { .. }) if plan.revision.is_some() => None,
        Err(e) => return Err(e.into()),
    };
    let at = match &plan.revision {
        None => None,
        Some(rev) => {
            let repo = require()?;
            let commit = repo.resolve(rev)?;
            let report = match repo.read_at(rev, &plan.path)? {
                Some(bytes) => Some(baseline::parse(&format!("{rev}:{shown}"), &String::from_utf8_lossy(&bytes))?),
                None => None,
            };
            Some(AtRevision { revision: rev.clone(), commit, report })
        }
    };
    let chosen =
        baseline::select(&plan.path, &shown, working, at, plan.accept_change, plan.accepted_by.as_deref(), settings)?;
    let differences = baseline::incompatibilities(&chosen.baseline, current);
    if !differences.is_empty() && !plan.allow_incompatible {
        return Err(Error::IncompatibleBaseline { path: chosen.source.path, differences });
    }
    let mut comparison = baseline::compare(&chosen.baseline, current, settings, chosen.source);
    comparison.filtered = filtered;
    comparison.baseline_change = chosen.change;
    Ok((comparison, chosen.baseline))
}

/// Writes each report asked for.
fn write_reports(s: &RunSettings, report: &Report) -> Result<(), Error> {
    type Render<'a> = &'a dyn Fn(&Report) -> Result<String, String>;
    let r = &s.reports;
    let markdown = |r: &Report| Ok(report::markdown::render_linked(r, &s.links));
    let formats: [(&Option<Destination>, Render, output::Kind); 5] = [
        (&r.json, &|r| Ok(report::json::render(r)), output::Kind::Json),
        (&r.junit, &|r| Ok(report::junit::render(r)), output::Kind::Text),
        (&r.markdown, &markdown, output::Kind::Markdown),
        (&r.trec_run, &report::trec::run, output::Kind::Text),
        (&r.trec_qrels, &report::trec::qrels, output::Kind::Text),
    ];
    for (destination, render, kind) in formats {
        let Some(destination) = destination else { continue };
        let text = render(report).map_err(|m| {
            let name = destination.file().map_or("standard output".to_string(), |p| p.display().to_string());
            Error::Usage(format!("cannot write {name}: {m}"))
        })?;
        output::report(destination, &text, kind)?;
    }
    Ok(())
}

/// Appends the step outputs of GitHub Actions: `key=value` lines, or, for a
/// value with a line break (a report path can have one), GitHub's multi-line
/// form `key<<DELIMITER` ... `DELIMITER`, so that a value can never add a
/// line, and an output, of its own.
fn append_github_outputs(path: &Path, report: &Report, s: &RunSettings) -> Result<(), Error> {
    use std::io::Write as _;
    let m = &report.summary;
    let file_of = |d: &Option<Destination>| {
        d.as_ref().and_then(Destination::file).map_or(String::new(), |p| p.display().to_string())
    };
    let outputs = [
        ("result", if report.gate.passed { "passed" } else { "failed" }.to_string()),
        ("pass-rate", m.pass_rate.map_or(String::new(), |v| v.to_string())),
        ("mean-recall-at-k", m.mean_recall_at_k.map_or(String::new(), |v| v.to_string())),
        ("weak-retrieval", m.weak_retrieval.to_string()),
        ("json-report", file_of(&s.reports.json)),
        ("junit-report", file_of(&s.reports.junit)),
    ];
    let text: String = outputs.iter().map(|(key, value)| github_output(key, value)).collect();
    let err = |source| Error::Write { path: Some(path.to_path_buf()), source };
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(err)?;
    file.write_all(text.as_bytes()).map_err(err)
}

/// One step output in the form GitHub reads back as exactly this key and
/// value. The delimiter of the multi-line form is chosen so that the value
/// does not contain it.
fn github_output(key: &str, value: &str) -> String {
    if !value.contains(['\n', '\r']) {
        return format!("{key}={value}\n");
    }
    let mut delimiter = String::from("MNEME_GATE_EOF");
    let mut n = 0;
    while value.contains(delimiter.as_str()) {
        n += 1;
        delimiter = format!("MNEME_GATE_EOF_{n}");
    }
    format!("{key}<<{delimiter}\n{value}\n{delimiter}\n")
}

#[cfg(test)]
mod tests {
    use super::github_output;

    #[test]
    fn a_value_with_a_line_break_is_written_in_the_multi_line_form() {
        assert_eq!(github_output("result", "passed"), "result=passed\n");
        assert_eq!(
            github_output("json-report", "a\nresult=passed"),
            "json-report<<MNEME_GATE_EOF\na\nresult=passed\nMNEME_GATE_EOF\n"
        );
        assert_eq!(
            github_output("k", "x\nMNEME_GATE_EOF\nMNEME_GATE_EOF_1"),
            "k<<MNEME_GATE_EOF_2\nx\nMNEME_GATE_EOF\nMNEME_GATE_EOF_1\nMNEME_GATE_EOF_2\n"
        );
        assert_eq!(github_output("k", "a\rb"), "k<<MNEME_GATE_EOF\na\rb\nMNEME_GATE_EOF\n");
    }
}
