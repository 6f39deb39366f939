//! `mneme-gate run`: the suite, its reports, and the gate, compared with the
//! baseline when there is one ([`crate::evaluate`] decides it).

use std::path::Path;
use std::time::{Duration, Instant};

use crate::cli::output;
use crate::cli::plan::{self, Ran, Repository};
use crate::cli::settings::{ConcludeSettings, Destination, RunSettings};
use crate::cli::suite::{self, SuiteRun};
use crate::describe::{defuse_lines, printable};
use crate::error::{exit, Error};
use crate::evaluate::evaluate;
use crate::report::partition::{self, Partial};
use crate::report::{self, display_path, Report};

pub(crate) fn execute(s: RunSettings) -> Result<i32, Error> {
    let started = Instant::now();
    let SuiteRun { report, index, loaded, ran, partition } = suite::run(&s.suite, s.conclude.quiet)?;
    if let Some(partition) = partition {
        return write_partial(&s.conclude, partition.partial(report));
    }
    let ran_on =
        Ran { gate: &s.suite.gate, filtered: !s.suite.filter.is_empty(), memory: &s.suite.memory, index: Some(&index) };
    let code = conclude(&s.conclude, report, ran_on, started, Some((loaded, ran)));
    // As the report (see `conclude`): the process ends with the command.
    std::mem::forget(index);
    code
}

/// What `run` and `merge` do once the report of the suite is built: the git
/// commit, the gate's plan read ([`plan::read`]) and evaluated (the
/// baseline, the memory diff, the conclusion), the reports, the step
/// outputs and the terminal report. `ran` is what the suite ran on;
/// `phases` the load and run durations, for `--timings`.
pub(crate) fn conclude(
    s: &ConcludeSettings,
    mut report: Report,
    ran: Ran<'_>,
    started: Instant,
    phases: Option<(Duration, Duration)>,
) -> Result<i32, Error> {
    let repo = Repository::find(s.git);
    report.git = repo.info();
    let plan = plan::read(s, ran, &report, &repo)?;
    let mut report = evaluate(report, plan)?;

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
fn write_partial(s: &ConcludeSettings, partial: Partial) -> Result<i32, Error> {
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

/// Writes each report asked for.
fn write_reports(s: &ConcludeSettings, report: &Report) -> Result<(), Error> {
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
fn append_github_outputs(path: &Path, report: &Report, s: &ConcludeSettings) -> Result<(), Error> {
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
