/*!
The `context --format json` document (`mneme-gate.context/v1`): the ranking an
agent's context block was built from, and the block itself.
*/

use serde::Serialize;

use crate::profile::{Milli, Profile};
use crate::retrieval::Retrieval;

#[derive(Serialize)]
struct RetrievedJson<'a> {
    rank: usize,
    id: &'a str,
    title: &'a str,
    score: Milli,
}

#[derive(Serialize)]
struct ContextJson<'a> {
    schema: &'static str,
    task: &'a str,
    file: Option<&'a str>,
    profile: &'a Profile,
    retrieved: Vec<RetrievedJson<'a>>,
    note: Option<String>,
    context: &'a str,
}

/// The document for one query, with a final newline; `shown` holds the id
/// and title of each retrieved decision, in rank order.
pub fn json(
    profile: &Profile,
    task: &str,
    file: Option<&str>,
    retrieval: &Retrieval,
    shown: &[(&str, &str)],
    block: &str,
) -> String {
    let retrieved = retrieval
        .hits
        .iter()
        .zip(shown)
        .enumerate()
        .map(|(i, (h, &(id, title)))| RetrievedJson { rank: i + 1, id, title, score: h.score })
        .collect();
    super::json::pretty(&ContextJson {
        schema: "mneme-gate.context/v1",
        task,
        file,
        profile,
        retrieved,
        note: retrieval.why_empty(profile),
        context: block,
    })
}
