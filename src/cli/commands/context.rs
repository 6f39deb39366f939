//! `mneme-gate context`: the context block an agent receives for a task.

use crate::cli::output;
use crate::cli::settings::QuerySettings;
use crate::cli::suite::load_memory;
use crate::error::{exit, Error};
use crate::retrieval::{Index, Query};

/// `context` is the editor hook, run once per prompt, so its latency is
/// process start to exit: the index is built for its one query
/// ([`Index::build_for_query`]) and never freed (the process exits right
/// after; freeing a 5,000-decision index costs milliseconds).
pub(crate) fn execute(s: QuerySettings) -> Result<i32, Error> {
    let query = Query { task: &s.task, file: s.file.as_deref() };
    let memory = load_memory(&s.memory)?;
    let index = &*Box::leak(Box::new(Index::build_for_query(memory, s.memory.profile.clone(), query)));
    let retrieval = index.retrieve(query);
    let block = crate::context::render(retrieval.hits.iter().map(|h| index.decision(h.pool)));
    if s.json {
        output::json(&crate::report::context::json(index, &s.task, s.file.as_deref(), &retrieval, &block))?;
    } else {
        if let Some(note) = retrieval.why_empty(index.profile()) {
            output::note(&format!("no decision retrieved: {note}"));
        }
        // The block quotes the decisions as written; a control character in
        // one is shown escaped, and none of its lines can be a workflow command.
        output::text(&block, false)?;
    }
    Ok(exit::OK)
}
