//! `mneme-gate tune`: which one retrieval setting to change, if any,
//! chosen by k-fold cross-validation over the suite.

use crate::cli::output;
use crate::cli::settings::TuneSettings;
use crate::cli::suite::load_for_analysis;
use crate::describe::defuse_lines;
use crate::error::{exit, Error};
use crate::profile::Family;
use crate::report::tune as render;
use crate::retrieval::Index;
use crate::tune::{self, Refused};

pub(crate) fn execute(s: TuneSettings) -> Result<i32, Error> {
    let settings = &s.suite;
    if settings.memory.profile.family == Family::Mneme {
        return Err(Error::Usage(Refused::Pinned.message()));
    }
    let (memory, pool, scenarios) = load_for_analysis(settings)?;
    let index = Index::build(memory, settings.memory.profile.clone());
    let progress = output::Progress::new(Some(tune::candidates(index.profile()).len()), "candidates");
    let tuning = pool
        .install(|| tune::tune(&index, &scenarios, s.folds, s.seed, &|| progress.tick()))
        .map_err(|r| Error::Usage(r.message()));
    progress.finish();
    let tuning = tuning?;
    if s.json {
        output::json(&render::json(&tuning))?;
    } else {
        output::text(&defuse_lines(&render::text(&tuning, s.width), false), false)?;
    }
    Ok(exit::OK)
}
