//! `mneme-gate coverage`: which decisions no scenario gates, which cannot
//! reach the agent, which retrievals hang by a thread, which come back for
//! scenarios that do not want them (docs/coverage.md).
//! An analysis, not a gate: it exits 0 whatever it finds (the coverage
//! rules of the gate are `run`'s).

use crate::cli::output;
use crate::cli::settings::{CoverageSettings, Destination};
use crate::cli::suite::load_for_analysis;
use crate::coverage::{self, Files, Options};
use crate::describe::defuse_lines;
use crate::error::{exit, Error};
use crate::git::Repo;
use crate::report::hex_sha256;
use crate::retrieval::Index;

pub(crate) fn execute(s: CoverageSettings) -> Result<i32, Error> {
    let settings = &s.suite;
    let (memory, pool, scenarios) = load_for_analysis(settings)?;
    let memory_sha256 = hex_sha256(memory.text().as_bytes());
    let index = Index::build(memory, settings.memory.profile.clone());
    let files = tracked_files(s.git)?;
    let (margin_below, threshold_from) = s
        .min_margin
        .clone()
        .unwrap_or_else(|| (coverage::default_margin_below(&index), "the heaviest field weight".to_string()));
    let options = Options {
        files,
        margin_below,
        threshold_from,
        memory_path: settings.memory.label(),
        memory_sha256,
        suite_roots: settings.roots.clone(),
        hub_share: s.hub_share,
    };
    let report = pool.install(|| coverage::analyse(&index, &scenarios, &options));
    if let Some(destination) = &s.json {
        output::report(destination, &crate::report::json::pretty(&report), output::Kind::Json)?;
    }
    if let Some(destination) = &s.markdown {
        output::report(destination, &coverage::markdown::render(&report), output::Kind::Markdown)?;
    }
    let text = coverage::terminal::render(&report, coverage::terminal::Style { width: s.width });
    let to_stdout = [&s.json, &s.markdown].iter().any(|d| matches!(d, Some(Destination::Stdout)));
    output::terminal(&defuse_lines(&text, false), to_stdout)?;
    Ok(exit::OK)
}

/// The files git tracks in the repository of the working folder, or why
/// the scope globs are not checked.
fn tracked_files(git: bool) -> Result<Files, Error> {
    if !git {
        return Ok(Files::NotChecked("git is off (MNEME_GATE_GIT=off)".into()));
    }
    let dir = std::env::current_dir().unwrap_or_else(|_| ".".into());
    match Repo::discover(&dir) {
        None => Ok(Files::NotChecked("not in a git repository".into())),
        Some(repo) => Ok(Files::Tracked(repo.tracked_files()?)),
    }
}
