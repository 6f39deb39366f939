//! `mneme-gate explain`: every record, its matches, its score, and why it is
//! or is not retrieved; with `--why-not ID`, why one decision is not.

use crate::cli::output;
use crate::cli::settings::ExplainSettings;
use crate::cli::suite::load_memory;
use crate::describe::printable;
use crate::error::{exit, Error};
use crate::report::{explain, why_not};
use crate::retrieval::{Index, Query};

pub(crate) fn execute(s: ExplainSettings) -> Result<i32, Error> {
    let q = &s.query;
    let index = Index::build(load_memory(&q.memory)?, q.memory.profile.clone());
    let query = Query { task: &q.task, file: q.file.as_deref() };
    let Some(id) = &s.why_not else {
        let explanation = index.explain(query);
        if q.json {
            output::json(&explain::json(&explanation))?;
        } else {
            output::text(&explain::text(&explanation, q.width), false)?;
        }
        return Ok(exit::OK);
    };
    let Some(answer) = index.why_not(query, id) else {
        return Err(Error::Usage(format!(
            "--why-not {}: no decision of the memory has this id (the ids are in `explain` without --why-not)",
            printable(id)
        )));
    };
    if q.json {
        output::json(&why_not::json(&answer))?;
    } else {
        output::text(&why_not::text(&answer, q.width), false)?;
    }
    Ok(exit::OK)
}
