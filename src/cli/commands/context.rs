//! `mneme-gate context`: the context block an agent receives for a task.

use crate::cache::Shown;
use crate::cli::output;
use crate::cli::settings::QuerySettings;
use crate::context::Entry;
use crate::error::{exit, Error};
use crate::retrieval::Query;

/// `context` is the editor hook, run once per prompt, so its latency is
/// process start to exit: it answers from the compiled index cache when the
/// cache holds this very memory file under this profile, and otherwise from
/// an index built for its one query (and writes the cache for the next run;
/// see `crate::cache`). Either way the same bytes come out.
pub(crate) fn execute(s: QuerySettings) -> Result<i32, Error> {
    let query = Query { task: &s.task, file: s.file.as_deref() };
    let answer = crate::cache::answer_sources(&s.memory.sources, &s.memory.profile, query, s.cache.as_deref())?;
    for w in &answer.warnings {
        output::note(&w.render(&s.memory.label()));
    }
    let block = crate::context::render_entries(answer.shown.iter().map(Entry::from));
    let profile = &s.memory.profile;
    if s.json {
        let shown: Vec<(&str, &str)> = answer.shown.iter().map(|d: &Shown| (d.id.as_str(), d.title.as_str())).collect();
        let doc = crate::report::context::json(profile, &s.task, s.file.as_deref(), &answer.retrieval, &shown, &block);
        output::json(&doc)?;
    } else {
        if let Some(note) = answer.retrieval.why_empty(profile) {
            output::note(&format!("no decision retrieved: {note}"));
        }
        // The block quotes the decisions as written; a control character in
        // one is shown escaped, and none of its lines can be a workflow command.
        output::text(&block, false)?;
    }
    answer.leak();
    Ok(exit::OK)
}
