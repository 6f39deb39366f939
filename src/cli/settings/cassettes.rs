//! The settings of `cassettes prune`.

use super::super::args::PruneArgs;
use super::suite::{model_flags, suite, SuiteSettings};
use crate::config::Config;
use crate::error::Error;

/// `cassettes prune`, resolved.
#[derive(Debug)]
pub(crate) struct PruneSettings {
    pub suite: SuiteSettings,
    pub model: crate::model::Settings,
    pub delete: bool,
}

/// Resolves `cassettes prune`: the suite, and the model (required).
pub(crate) fn prune_settings(config: &Config, args: PruneArgs) -> Result<PruneSettings, Error> {
    let suite = suite(config, &args.suite, &[])?;
    let model = config.model_settings(&model_flags(&args.model))?.ok_or_else(|| {
        Error::Usage(
            "no model is configured, so no request can be planned: add a `model:` section to mneme-gate.yaml, or pass --model-base-url and --model (docs/models.md)".into(),
        )
    })?;
    Ok(PruneSettings { suite, model, delete: args.delete })
}
