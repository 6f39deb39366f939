//! The settings of `run` and `merge`: the reports, the baseline compared
//! against, the step outputs and the terminal, and the GitHub links of the
//! Markdown summary.

use std::path::{Path, PathBuf};

use super::super::args::{AnnotationKind, MergeArgs, RunArgs};
use super::super::environment::Environment;
use super::super::output::{text_width, Destination, Stream};
use super::baseline::baseline_plan;
use super::suite::{model_flags, suite, SuiteSettings};
use crate::config::Config;
use crate::error::Error;
use crate::evaluate::BaselinePlan;
use crate::gate::GateSettings;
use crate::report::markdown::Links;
use crate::report::partition::Slice;

/// The report files of `run`, each optional.
#[derive(Debug, Default)]
pub(crate) struct Reports {
    pub json: Option<Destination>,
    pub junit: Option<Destination>,
    pub markdown: Option<Destination>,
    pub trec_run: Option<Destination>,
    pub trec_qrels: Option<Destination>,
}

impl Reports {
    /// Whether one of them goes to standard output (then the terminal
    /// report goes to standard error).
    pub fn to_stdout(&self) -> bool {
        [&self.json, &self.junit, &self.markdown, &self.trec_run, &self.trec_qrels]
            .iter()
            .any(|d| matches!(d, Some(Destination::Stdout)))
    }
}

/// What `run` and `merge` share once the report is built: the baseline and
/// the memory revision the gate's plan is read from, the reports, the step
/// outputs and the terminal.
#[derive(Debug)]
pub(crate) struct ConcludeSettings {
    /// `None`: only the rules of the run apply.
    pub baseline: Option<BaselinePlan>,
    pub memory_ref: Option<String>,
    pub reports: Reports,
    pub quiet: bool,
    pub timings: bool,
    pub annotations: bool,
    pub github_output: Option<PathBuf>,
    /// Look for the git repository the run is in (off with `MNEME_GATE_GIT=off`).
    pub git: bool,
    pub colour: bool,
    /// Where the Markdown summary links files (see [`github_links`]).
    pub links: Links,
    /// The columns the terminal report is laid out to ([`text_width`]).
    pub width: Option<usize>,
}

impl ConcludeSettings {
    /// What `run` and `merge` conclude with alike: the reports, and the
    /// terminal, git and links as the environment gives them (no colour and
    /// the width of standard error when a report goes to standard output).
    /// The gate's inputs and the outputs asked for start empty.
    fn terminal(reports: Reports, colour: bool) -> ConcludeSettings {
        let to_stdout = reports.to_stdout();
        let env = Environment::get();
        ConcludeSettings {
            baseline: None,
            memory_ref: None,
            reports,
            quiet: false,
            timings: false,
            annotations: false,
            github_output: None,
            git: !env.git_off(),
            colour: colour && !to_stdout,
            links: github_links(env, std::env::current_dir().ok().as_deref()),
            width: text_width(if to_stdout { Stream::Stderr } else { Stream::Stdout }),
        }
    }
}

/// Whether `run` and `merge` print annotations: as `--annotations` says,
/// else in a GitHub Actions job.
pub(crate) fn annotations(flag: Option<AnnotationKind>) -> bool {
    match flag {
        Some(kind) => kind == AnnotationKind::Github,
        None => Environment::get().github_actions(),
    }
}

#[derive(Debug)]
pub(crate) struct RunSettings {
    pub suite: SuiteSettings,
    pub conclude: ConcludeSettings,
}

/// `merge`: the partial reports, the gate, and what `run` does once its
/// report is built. What the suite was (its memory, its filter) comes from
/// the partial reports.
#[derive(Debug)]
pub(crate) struct MergeSettings {
    pub parts: Vec<PathBuf>,
    /// `--memory`, else the configuration's (`None`: the one the partitions ran on).
    pub memory: Option<PathBuf>,
    pub gate: GateSettings,
    pub conclude: ConcludeSettings,
}

/// At most one report may go to standard output.
fn reports(args: &RunArgs) -> Result<Reports, Error> {
    reports_of([&args.json, &args.junit, &args.markdown, &args.trec_run, &args.trec_qrels])
}

/// The reports of `run` or `merge`: JSON, JUnit, Markdown, TREC run and qrels.
fn reports_of(paths: [&Option<PathBuf>; 5]) -> Result<Reports, Error> {
    let of = |p: &Option<PathBuf>| p.as_deref().map(Destination::of);
    let [json, junit, markdown, trec_run, trec_qrels] = paths;
    let reports = Reports {
        json: of(json),
        junit: of(junit),
        markdown: of(markdown),
        trec_run: of(trec_run),
        trec_qrels: of(trec_qrels),
    };
    let on_stdout = [&reports.json, &reports.junit, &reports.markdown, &reports.trec_run, &reports.trec_qrels]
        .iter()
        .filter(|d| matches!(d, Some(Destination::Stdout)))
        .count();
    if on_stdout > 1 {
        return Err(Error::Usage("only one report can go to standard output (`-`)".into()));
    }
    Ok(reports)
}

pub(super) fn run(config: &Config, args: RunArgs, colour: bool) -> Result<RunSettings, Error> {
    let mut suite = suite(config, &args.suite, &args.filter)?;
    suite.model = config.model_settings(&model_flags(&args.model))?;
    let reports = reports(&args)?;
    if let Some(text) = &args.partition {
        suite.partition = Some(Slice::parse(text).map_err(Error::Usage)?);
        partition_flags(&args)?;
        coverage_rules_off(&suite.gate, "--partition")?;
    }
    let whole = suite.partition.is_none();
    let conclude = ConcludeSettings {
        baseline: if whole { baseline_plan(config, &args.baseline) } else { None },
        memory_ref: args.baseline.memory_ref,
        quiet: args.quiet,
        timings: args.timings,
        annotations: annotations(args.annotations) && whole,
        github_output: args.github_output,
        ..ConcludeSettings::terminal(reports, colour)
    };
    Ok(RunSettings { suite, conclude })
}

/// `run --partition` writes the partial report (`--json`) and nothing that
/// needs the whole run: the other reports, the baseline comparison and the
/// step outputs are `merge`'s.
fn partition_flags(args: &RunArgs) -> Result<(), Error> {
    if args.json.is_none() {
        return Err(Error::Usage(
            "--partition writes the partition's partial report: pass --json FILE (then `mneme-gate merge` the partial reports)"
                .into(),
        ));
    }
    let b = &args.baseline;
    let whole_run = [
        ("--junit", args.junit.is_some()),
        ("--markdown", args.markdown.is_some()),
        ("--trec-run", args.trec_run.is_some()),
        ("--trec-qrels", args.trec_qrels.is_some()),
        ("--timings", args.timings),
        ("--annotations github", args.annotations == Some(AnnotationKind::Github)),
        ("--github-output", args.github_output.is_some()),
        ("--baseline", b.baseline.is_some()),
        ("--baseline-ref", b.baseline_ref.is_some()),
        ("--allow-incompatible-baseline", b.allow_incompatible_baseline),
        ("--memory-ref", b.memory_ref.is_some()),
    ];
    match whole_run.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(Error::Usage(format!(
            "{flag} is about the whole run, not one partition: give it to `mneme-gate merge`, which writes the reports and decides the gate"
        ))),
        None => Ok(()),
    }
}

/// The coverage rules of the gate judge the whole suite against the whole
/// pool (which decisions some scenario expects, which were added since the
/// baseline), which neither a partition nor `merge` holds: with a partition
/// they are refused rather than silently skipped.
fn coverage_rules_off(gate: &GateSettings, what: &str) -> Result<(), Error> {
    match crate::gate::COVERAGE_RULES.iter().find(|rule| gate.mode(**rule) != crate::gate::RuleMode::Off) {
        Some(rule) => Err(Error::Usage(format!(
            "gate rule {rule} is on, and {what} cannot judge it: it needs the whole suite and the whole memory in one run; leave it out of the configuration's gate: section for partitioned runs, and gate coverage with `mneme-gate run` or `mneme-gate coverage` on the whole suite"
        ))),
        None => Ok(()),
    }
}

/// `merge`: the reports and the gate as `run` has them; what the suite was
/// comes from the partial reports when they are read.
pub(super) fn merge(config: &Config, args: MergeArgs, colour: bool) -> Result<MergeSettings, Error> {
    let reports = reports_of([&args.json, &args.junit, &args.markdown, &args.trec_run, &args.trec_qrels])?;
    let gate = config.gate_settings()?;
    coverage_rules_off(&gate, "`merge` of partial reports")?;
    // Checked as for `run`, though the partial reports are already read.
    config.suite_limits()?;
    let conclude = ConcludeSettings {
        baseline: baseline_plan(config, &args.baseline),
        memory_ref: args.baseline.memory_ref,
        quiet: args.quiet,
        annotations: annotations(args.annotations),
        github_output: args.github_output,
        ..ConcludeSettings::terminal(reports, colour)
    };
    Ok(MergeSettings { parts: args.parts, memory: config.memory_path(args.memory.as_deref()), gate, conclude })
}

/// In a GitHub Actions job (`GITHUB_ACTIONS=true`), the Markdown summary
/// links each file to its line at the job's commit: `GITHUB_SERVER_URL`,
/// `GITHUB_REPOSITORY`, `GITHUB_SHA`, and where the working directory is in
/// the checkout (`GITHUB_WORKSPACE`). Anywhere else, or when a value is
/// missing or the working directory is outside the checkout, no links.
fn github_links(env: &Environment, cwd: Option<&Path>) -> Links {
    if !env.github_actions() {
        return Links::default();
    }
    let (Some(server), Some(repository), Some(sha)) =
        (env.text("GITHUB_SERVER_URL"), env.text("GITHUB_REPOSITORY"), env.text("GITHUB_SHA"))
    else {
        return Links::default();
    };
    let dir = match (env.text("GITHUB_WORKSPACE"), cwd) {
        (Some(workspace), Some(cwd)) => {
            let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
            match canonical(cwd).strip_prefix(canonical(Path::new(workspace))) {
                Ok(inside) => inside.to_path_buf(),
                Err(_) => return Links::default(),
            }
        }
        _ => PathBuf::new(),
    };
    Links::github(server, repository, sha, &dir)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::super::super::args::Cli;
    use super::super::{resolve, Settings, DEFAULT_BASELINE};
    use super::*;
    use crate::profile::Family;

    fn settings(args: &[&str], config: &str) -> Result<Settings, Error> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mneme-gate.yaml");
        std::fs::write(&path, config).unwrap();
        let mut argv = vec!["mneme-gate", "--config", path.to_str().unwrap()];
        argv.extend_from_slice(args);
        resolve(Cli::try_parse_from(argv).unwrap())
    }

    fn run_settings(args: &[&str], config: &str) -> RunSettings {
        match settings(args, config).unwrap() {
            Settings::Run(s) => *s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn paths_in_the_file_are_relative_to_it_and_flags_win() {
        let s = run_settings(&["run"], "memory: m.json\nscenarios: [a, b]\nbaseline: base.json\n");
        assert!(s.suite.memory.file().unwrap().ends_with("m.json"));
        assert_eq!(s.suite.roots.len(), 2);
        let dir = s.suite.memory.file().unwrap().parent().unwrap();
        assert!(dir.is_absolute(), "beside the configuration file, not the working folder: {dir:?}");
        assert_eq!(s.suite.roots, [dir.join("a"), dir.join("b")]);
        assert!(s.conclude.baseline.as_ref().unwrap().path.ends_with("base.json"));

        let s = run_settings(&["run", "--memory", "x.json", "--scenarios", "s", "--no-baseline"], "memory: m.json\n");
        assert_eq!(s.suite.memory.file(), Some(Path::new("x.json")));
        assert_eq!(s.suite.roots, [PathBuf::from("s")]);
        assert!(s.conclude.baseline.is_none());
    }

    #[test]
    fn a_revision_without_a_configured_baseline_reads_the_default_path() {
        let s = run_settings(&["run", "--memory", "m", "--scenarios", "s", "--baseline-ref", "main"], "");
        let plan = s.conclude.baseline.unwrap();
        assert_eq!((plan.path, plan.revision), (PathBuf::from(DEFAULT_BASELINE), Some("main".to_string())));
        let s = run_settings(&["run", "--memory", "m", "--scenarios", "s"], "");
        assert!(s.conclude.baseline.is_none(), "no flag, no configuration: no baseline");
    }

    #[test]
    fn a_named_profile_ignores_the_files_overrides_and_k_applies() {
        let config = "retrieval:\n  k: 5\n  min_score: 2.0\n";
        let s = run_settings(&["run", "--memory", "m", "--scenarios", "s"], config);
        assert_eq!(s.suite.memory.profile.k, 5);
        let s = run_settings(&["run", "--memory", "m", "--scenarios", "s", "--profile", "mneme", "--k", "4"], config);
        assert_eq!((s.suite.memory.profile.family, s.suite.memory.profile.k), (Family::Mneme, 4));
    }

    #[test]
    fn bad_values_are_refused_before_any_work() {
        let base = ["run", "--memory", "m", "--scenarios", "s"];
        let refused = |extra: &[&str]| {
            let args: Vec<&str> = base.iter().chain(extra).copied().collect();
            match settings(&args, "") {
                Err(Error::Usage(m)) => m,
                other => panic!("{extra:?}: {other:?}"),
            }
        };
        assert!(refused(&["--jobs", "0"]).contains("at least 1"));
        assert!(refused(&["--jobs", "1025"]).contains("at most 1024"));
        assert!(refused(&["--filter", "a[b"]).contains("not a valid glob"));
        assert!(refused(&["--json", "-", "--junit", "-"]).contains("only one report"));
        match settings(&["run", "--memory", "m"], "") {
            Err(Error::Usage(m)) => assert!(m.starts_with("no suite"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_report_on_standard_output_turns_colour_off() {
        let s = run_settings(&["run", "--memory", "m", "--scenarios", "s", "--json", "-"], "");
        assert!(!s.conclude.colour);
        assert_eq!(s.conclude.reports.json, Some(Destination::Stdout));
        assert!(s.conclude.reports.to_stdout());
    }

    #[test]
    fn github_links_come_from_the_actions_environment_once() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let actions = [
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_SERVER_URL", "https://github.com"),
            ("GITHUB_REPOSITORY", "octo/repo"),
            ("GITHUB_SHA", sha),
        ];
        let env = |pairs: &[(&str, &str)]| {
            Environment::from_lookup(|name| {
                pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| std::ffi::OsString::from(v))
            })
        };
        let url = |links: &Links| links.to("s.yaml", 2);
        let root = format!("https://github.com/octo/repo/blob/{sha}/");
        assert_eq!(url(&github_links(&env(&actions), None)), Some(format!("{root}s.yaml#L2")));
        assert_eq!(url(&github_links(&env(&actions[1..]), None)), None, "not in GitHub Actions");
        assert_eq!(url(&github_links(&env(&actions[..3]), None)), None, "no commit");

        let workspace = tempfile::tempdir().unwrap();
        let sub = workspace.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let ws = workspace.path().to_str().unwrap();
        let mut with_ws = actions.to_vec();
        with_ws.push(("GITHUB_WORKSPACE", ws));
        assert_eq!(url(&github_links(&env(&with_ws), Some(&sub))), Some(format!("{root}sub/s.yaml#L2")));
        assert_eq!(url(&github_links(&env(&with_ws), Some(workspace.path()))), Some(format!("{root}s.yaml#L2")));
        let elsewhere = tempfile::tempdir().unwrap();
        assert_eq!(url(&github_links(&env(&with_ws), Some(elsewhere.path()))), None, "outside the checkout");
    }
}
