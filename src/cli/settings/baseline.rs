//! The settings of `baseline` (pinning the suite's report) and `diff`
//! (comparing two reports), and where the baseline is read from.

use std::path::{Path, PathBuf};

use super::super::args::{CompareArgs, DiffArgs, PinArgs};
use super::super::output::{text_width, Destination, Stream};
use super::suite::{suite, SuiteSettings};
use crate::config::Config;
use crate::error::Error;
use crate::evaluate::BaselinePlan;
use crate::gate::GateSettings;

/// The baseline path when neither a flag nor the configuration names one
/// (`baseline` writes there; `--baseline-ref` reads there).
pub(crate) const DEFAULT_BASELINE: &str = "reports/baseline.json";

#[derive(Debug)]
pub(crate) struct PinSettings {
    pub suite: SuiteSettings,
    pub out: PathBuf,
    pub allow_failing: bool,
    pub colour: bool,
    pub width: Option<usize>,
}

#[derive(Debug)]
pub(crate) struct DiffSettings {
    pub old: PathBuf,
    pub new: PathBuf,
    pub allow_incompatible: bool,
    pub json: Option<Destination>,
    pub gate: GateSettings,
    pub colour: bool,
    pub width: Option<usize>,
}

/// The configured baseline path, if any.
pub(super) fn baseline_path(config: &Config, flag: Option<&Path>) -> Option<PathBuf> {
    match (flag, &config.file.baseline) {
        (Some(p), _) => Some(p.to_path_buf()),
        (None, Some(p)) => Some(config.resolve_path(&p.value)),
        (None, None) => None,
    }
}

pub(super) fn baseline_plan(config: &Config, args: &CompareArgs) -> Option<BaselinePlan> {
    if args.no_baseline {
        return None;
    }
    let path = match baseline_path(config, args.baseline.as_deref()) {
        Some(p) => p,
        None if args.baseline_ref.is_some() => PathBuf::from(DEFAULT_BASELINE),
        None => return None,
    };
    Some(BaselinePlan {
        path,
        revision: args.baseline_ref.clone(),
        accept_change: args.accept_baseline_change,
        accepted_by: args.accepted_by.clone(),
        allow_incompatible: args.allow_incompatible_baseline,
    })
}

pub(super) fn pin(config: &Config, args: PinArgs, colour: bool) -> Result<PinSettings, Error> {
    let suite = suite(config, &args.suite, &[])?;
    let out = args.out.or_else(|| baseline_path(config, None)).unwrap_or_else(|| PathBuf::from(DEFAULT_BASELINE));
    Ok(PinSettings { suite, out, allow_failing: args.allow_failing, colour, width: text_width(Stream::Stdout) })
}

pub(super) fn diff(config: &Config, args: DiffArgs, colour: bool) -> Result<DiffSettings, Error> {
    let json = args.json.as_deref().map(Destination::of);
    let colour = colour && json != Some(Destination::Stdout);
    let width = text_width(if json == Some(Destination::Stdout) { Stream::Stderr } else { Stream::Stdout });
    Ok(DiffSettings {
        gate: config.gate_settings()?,
        old: args.old,
        new: args.new,
        allow_incompatible: args.allow_incompatible,
        json,
        colour,
        width,
    })
}
