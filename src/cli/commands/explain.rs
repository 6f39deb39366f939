//! `mneme-gate explain`: every record, its matches, its score, and why it is
//! or is not retrieved.

use crate::cli::output;
use crate::cli::settings::QuerySettings;
use crate::cli::suite::load_memory;
use crate::error::{exit, Error};
use crate::report::explain;
use crate::retrieval::{Index, Query};

pub(crate) fn execute(s: QuerySettings) -> Result<i32, Error> {
    let index = Index::build(load_memory(&s.memory)?, s.memory.profile.clone());
    let explanation = index.explain(Query { task: &s.task, file: s.file.as_deref() });
    if s.json {
        output::json(&explain::json(&explanation))?;
    } else {
        output::text(&explain::text(&explanation, s.width), false)?;
    }
    Ok(exit::OK)
}
