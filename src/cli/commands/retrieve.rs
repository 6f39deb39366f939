//! `mneme-gate retrieve`: JSONL queries in, JSONL rankings out, in input
//! order, retrieved in parallel.

use std::io::Read;
use std::path::PathBuf;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use crate::cli::output;
use crate::cli::settings::{Input, RetrieveSettings};
use crate::cli::suite::load_memory;
use crate::describe::{json_error, printable};
use crate::error::{exit, Error};
use crate::profile::Milli;
use crate::retrieval::{Index, Query, Scratch};

#[derive(Serialize)]
struct ScoredId<'a> {
    id: &'a str,
    score: Milli,
}

#[derive(Serialize)]
struct RetrieveLine<'a> {
    id: &'a str,
    retrieved: Vec<ScoredId<'a>>,
}

/// One parsed query of a JSONL batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchQuery {
    pub id: String,
    pub task: String,
    pub file: Option<String>,
}

/// The queries of a JSONL batch (`retrieve --queries`), or every bad line
/// (1-based) with what is wrong with it. Blank lines are skipped.
pub fn parse_queries(text: &str) -> Result<Vec<BatchQuery>, Vec<(usize, String)>> {
    let mut queries = Vec::new();
    let mut problems = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(line) {
            Ok(q) => queries.push(q),
            Err(message) => problems.push((n + 1, message)),
        }
    }
    if problems.is_empty() {
        Ok(queries)
    } else {
        Err(problems)
    }
}

pub(crate) fn execute(s: RetrieveSettings) -> Result<i32, Error> {
    let index = Index::build(load_memory(&s.memory)?, s.memory.profile.clone());
    let (path, text) = read(&s.queries)?;
    let queries = parse_queries(&text).map_err(|problems| Error::Input { path, problems })?;
    let k = index.profile().k;
    let lines: Vec<String> = queries
        .par_iter()
        .map_init(Scratch::default, |scratch, q| {
            let r = index.retrieve_with(Query { task: &q.task, file: q.file.as_deref() }, k, scratch);
            let retrieved =
                r.hits.iter().map(|h| ScoredId { id: &index.decision(h.pool).id, score: h.score }).collect();
            serde_json::to_string(&RetrieveLine { id: &q.id, retrieved }).expect("a ranking always serialises")
        })
        .collect();
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    output::json(&out)?;
    Ok(exit::OK)
}

/// The most bytes a query file may hold.
pub(crate) const MAX_QUERY_BYTES: u64 = 64 * 1024 * 1024;

/// The queries' text and the name errors give it.
fn read(source: &Input) -> Result<(PathBuf, String), Error> {
    match source {
        Input::Stdin => {
            let path = PathBuf::from("<stdin>");
            let mut text = String::new();
            std::io::stdin()
                .lock()
                .take(MAX_QUERY_BYTES + 1)
                .read_to_string(&mut text)
                .map_err(|source| Error::Read { path: path.clone(), source })?;
            if text.len() as u64 > MAX_QUERY_BYTES {
                return Err(Error::Usage(format!(
                    "the queries on standard input hold more than {MAX_QUERY_BYTES} bytes: split them"
                )));
            }
            Ok((path, text))
        }
        Input::File(path) => {
            // A regular file of at most MAX_QUERY_BYTES, opened without
            // blocking: a named pipe or a device is refused, never read.
            let read = |source| Error::Read { path: path.clone(), source };
            let bytes = crate::confine::read_regular(path, MAX_QUERY_BYTES).map_err(|r| read(r.into()))?;
            let text = String::from_utf8(bytes).map_err(|_| {
                read(std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"))
            })?;
            Ok((path.clone(), text))
        }
    }
}

fn parse_line(line: &str) -> Result<BatchQuery, String> {
    let v: Value =
        serde_json::from_str(line).map_err(|e| format!("column {}: not valid JSON: {}", e.column(), json_error(&e)))?;
    let Value::Object(map) = v else {
        return Err(format!("expected a JSON object {{\"id\": ..., \"task\": ...}}, found {v}"));
    };
    let string = |key: &str| match map.get(key) {
        Some(Value::String(s)) => Ok(Some(s.clone())),
        None | Some(Value::Null) => Ok(None),
        Some(other) => Err(other),
    };
    let id = match string("id") {
        Ok(Some(id)) => id,
        Ok(None) => return Err("missing `id` (a string)".into()),
        Err(other) => return Err(format!("`id` must be a string, found {other}")),
    };
    let shown = printable(&id).into_owned();
    let task = match string("task") {
        Ok(Some(task)) => task,
        Ok(None) => return Err(format!("query \"{shown}\": missing `task` (a string)")),
        Err(other) => return Err(format!("query \"{shown}\": `task` must be a string, found {other}")),
    };
    let file =
        string("file").map_err(|other| format!("query \"{shown}\": `file` must be a string or null, found {other}"))?;
    Ok(BatchQuery { id, task, file })
}

#[cfg(test)]
mod tests {
    use super::parse_line;

    #[test]
    fn each_bad_line_says_what_is_wrong() {
        let err = |line: &str| parse_line(line).err().unwrap();
        assert!(err("{\"id\": ").starts_with("column "), "{}", err("{\"id\": "));
        assert!(!err("{\"id\": ").contains(" at line "));
        assert_eq!(err("[1]"), "expected a JSON object {\"id\": ..., \"task\": ...}, found [1]");
        assert_eq!(err("{\"task\": \"t\"}"), "missing `id` (a string)");
        assert_eq!(err("{\"id\": 1, \"task\": \"t\"}"), "`id` must be a string, found 1");
        assert_eq!(err("{\"id\": \"q\"}"), "query \"q\": missing `task` (a string)");
        assert_eq!(
            err("{\"id\": \"q\", \"task\": \"t\", \"file\": [\"a\"]}"),
            "query \"q\": `file` must be a string or null, found [\"a\"]"
        );
        let q = parse_line("{\"id\": \"q\", \"task\": \"t\", \"file\": null}").unwrap();
        assert_eq!((q.id.as_str(), q.task.as_str(), q.file), ("q", "t", None));
    }
}
