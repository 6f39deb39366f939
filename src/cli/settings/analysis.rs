//! The settings of the commands that study the suite and the memory rather
//! than gate them: `suggest`, `tune`, `coverage` and `draft`.

use std::path::PathBuf;

use super::super::args::{CoverageArgs, DraftArgs, SuggestArgs, TuneArgs};
use super::super::environment::Environment;
use super::super::output::{text_width, Destination, Stream};
use super::memory;
use super::suite::{suite, SuiteSettings};
use super::MemorySettings;
use crate::config::Config;
use crate::error::Error;
use crate::profile::Milli;

#[derive(Debug)]
pub(crate) struct SuggestSettings {
    pub suite: SuiteSettings,
    pub json: bool,
    /// The misses examined, at most (`--max`).
    pub max: usize,
    pub width: Option<usize>,
}

#[derive(Debug)]
pub(crate) struct TuneSettings {
    pub suite: SuiteSettings,
    pub folds: usize,
    pub seed: u64,
    pub json: bool,
    pub width: Option<usize>,
}

#[derive(Debug)]
pub(crate) struct CoverageSettings {
    pub suite: SuiteSettings,
    pub json: Option<Destination>,
    pub markdown: Option<Destination>,
    /// The fragility threshold and where it comes from, in words; `None`:
    /// the profile's heaviest field weight.
    pub min_margin: Option<(Milli, String)>,
    /// The hub threshold, as a fraction of the scenarios (`--hub-share`).
    pub hub_share: f64,
    /// Check the scope globs against the files git tracks (off with
    /// `MNEME_GATE_GIT=off`).
    pub git: bool,
    pub width: Option<usize>,
}

#[derive(Debug)]
pub(crate) struct DraftSettings {
    pub memory: MemorySettings,
    pub window: crate::draft::Window,
    pub out: PathBuf,
    pub html: Option<PathBuf>,
}

pub(super) fn suggest(config: &Config, args: SuggestArgs) -> Result<SuggestSettings, Error> {
    Ok(SuggestSettings {
        suite: suite(config, &args.suite, &[])?,
        json: args.format.is_json(),
        max: args.max,
        width: text_width(Stream::Stdout),
    })
}

pub(super) fn tune(config: &Config, args: TuneArgs) -> Result<TuneSettings, Error> {
    if args.folds < 2 {
        return Err(Error::Usage(format!("--folds must be at least 2, found {}", args.folds)));
    }
    Ok(TuneSettings {
        suite: suite(config, &args.suite, &[])?,
        folds: args.folds,
        seed: args.seed,
        json: args.format.is_json(),
        width: text_width(Stream::Stdout),
    })
}

pub(super) fn coverage(config: &Config, args: CoverageArgs) -> Result<CoverageSettings, Error> {
    let suite = suite(config, &args.suite, &[])?;
    let of = |p: &Option<PathBuf>| p.as_deref().map(Destination::of);
    let (json, markdown) = (of(&args.json), of(&args.markdown));
    if json == Some(Destination::Stdout) && markdown == Some(Destination::Stdout) {
        return Err(Error::Usage("only one report can go to standard output (`-`)".into()));
    }
    let min_margin = match args.min_margin {
        Some(v) => {
            let m = Milli::from_f64(v).ok().filter(|m| m.0 >= 0).ok_or_else(|| {
                Error::Usage(format!("--min-margin {v}: give a score of at least 0 with at most three decimal places"))
            })?;
            Some((m, "--min-margin".to_string()))
        }
        None if suite.gate.mode(crate::gate::Rule::MinMargin) != crate::gate::RuleMode::Off => {
            Some((suite.gate.min_margin(), "gate.min_margin".to_string()))
        }
        None => None,
    };
    if !(0.0..=100.0).contains(&args.hub_share) {
        return Err(Error::Usage(format!("--hub-share {}: give a percentage from 0 to 100", args.hub_share)));
    }
    let to_stdout = json == Some(Destination::Stdout) || markdown == Some(Destination::Stdout);
    Ok(CoverageSettings {
        suite,
        json,
        markdown,
        min_margin,
        hub_share: args.hub_share / 100.0,
        git: !Environment::get().git_off(),
        width: text_width(if to_stdout { Stream::Stderr } else { Stream::Stdout }),
    })
}

pub(super) fn draft(config: &Config, args: DraftArgs) -> Result<DraftSettings, Error> {
    let max = args.max.unwrap_or(crate::draft::DEFAULT_MAX);
    if max == 0 || max > crate::draft::MAX_COMMITS {
        return Err(Error::Usage(format!(
            "--max {max}: give a number of commits from 1 to {}",
            crate::draft::MAX_COMMITS
        )));
    }
    if args.html.as_ref() == Some(&args.out) {
        return Err(Error::Usage("--out and --html name the same file: give the review page a name of its own".into()));
    }
    Ok(DraftSettings {
        memory: memory(config, &args.memory)?,
        window: crate::draft::Window { since: args.since, max },
        out: args.out,
        html: args.html,
    })
}
