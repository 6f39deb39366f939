//! The MCP server's tools: their input and output schemas, and each call
//! answered from the hot index, as plain functions of JSON (the server in
//! `mcp.rs` only carries them over the protocol).
//!
//! A tool's answer is the same as its command's: `memory_search` ranks as
//! `retrieve` does, `memory_context` gives the bytes of `context`,
//! `memory_explain` the document of `explain --format json`. A problem of the
//! arguments or of the memory file is a tool error (`isError`) whose text
//! is the command line's message; only an unknown tool is a protocol error.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};

use crate::cache::{Hot, Loaded};
use crate::context::render;
use crate::profile::Profile;
use crate::retrieval::{Query, Scratch};

pub(super) const SEARCH: &str = "memory_search";
pub(super) const CONTEXT: &str = "memory_context";
pub(super) const EXPLAIN: &str = "memory_explain";
pub(super) const HEALTH: &str = "memory_health";

/// The largest `k` a search may ask for (as `retrieval.k` in the configuration).
const MAX_K: u64 = 1_000_000;

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => unreachable!("a schema is an object"),
    }
}

fn query_schema(with_k: bool) -> Value {
    let mut properties = json!({
        "task": {"type": "string", "description": "What the agent is doing, in words (the prompt or the step)."},
        "file": {
            "type": ["string", "null"],
            "description": "The file being edited, relative to the repository root: its words join the query and it turns on the scope pre-filter."
        }
    });
    if with_k {
        properties["k"] = json!({
            "type": "integer", "minimum": 1, "maximum": MAX_K,
            "description": "How many decisions to retrieve (default: the profile's k)."
        });
    }
    json!({"type": "object", "properties": properties, "required": ["task"], "additionalProperties": false})
}

fn profile_schema() -> Value {
    let number = json!({"type": "number"});
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "weights": {
                "type": "object",
                "properties": {"title": number, "tags": number, "constraint": number, "anti_patterns": number, "content": number},
                "required": ["title", "tags", "constraint", "anti_patterns", "content"]
            },
            "tag_boost": number,
            "min_token_len": {"type": "integer"},
            "stem": {"type": "boolean"},
            "k": {"type": "integer"},
            "min_score": number
        },
        "required": ["name", "weights", "tag_boost", "min_token_len", "stem", "k", "min_score"]
    })
}

fn search_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "retrieved": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "rank": {"type": "integer", "minimum": 1},
                        "id": {"type": "string"},
                        "title": {"type": "string"},
                        "score": {"type": "number"}
                    },
                    "required": ["rank", "id", "title", "score"]
                }
            },
            "note": {"type": ["string", "null"], "description": "Why nothing was retrieved, when nothing was."}
        },
        "required": ["retrieved", "note"]
    })
}

fn context_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "context": {"type": "string", "description": "The context block; empty when nothing is retrieved."},
            "retrieved": {"type": "array", "items": {"type": "string"}, "description": "The ids in the block, in rank order."},
            "note": {"type": ["string", "null"]}
        },
        "required": ["context", "retrieved", "note"]
    })
}

fn explain_output() -> Value {
    let milli = json!({"type": "number"});
    let strings = json!({"type": "array", "items": {"type": "string"}});
    json!({
        "type": "object",
        "properties": {
            "schema": {"const": "mneme-gate.explain/v1"},
            "task": {"type": "string"},
            "file": {"type": ["string", "null"]},
            "query_tokens": strings,
            "profile": profile_schema(),
            "retrieved": strings,
            "note": {"type": ["string", "null"]},
            "records": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "title": {"type": "string"},
                        "pool_order": {"type": ["integer", "null"]},
                        "scope": {
                            "type": "object",
                            "properties": {
                                "result": {"enum": ["unscoped", "no_path", "matched", "out_of_scope", "not_in_pool"]},
                                "glob": {"type": "string"}
                            },
                            "required": ["result"]
                        },
                        "fields": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "field": {"enum": ["title", "tags", "constraint", "anti_patterns", "content"]},
                                    "tokens": strings,
                                    "count": {"type": "integer"},
                                    "weight": milli,
                                    "contribution": milli
                                },
                                "required": ["field", "tokens", "count", "weight", "contribution"]
                            }
                        },
                        "tag_hits": strings,
                        "tag_boost": milli,
                        "score": {"type": ["number", "null"]},
                        "rank": {"type": ["integer", "null"]},
                        "reason": {"type": ["string", "null"]},
                        "detail": {"type": ["string", "null"]}
                    },
                    "required": ["id", "title", "pool_order", "scope", "fields", "tag_hits", "tag_boost", "score", "rank", "reason", "detail"]
                }
            }
        },
        "required": ["schema", "task", "file", "query_tokens", "profile", "retrieved", "note", "records"]
    })
}

fn health_output() -> Value {
    let count = json!({"type": ["integer", "null"]});
    json!({
        "type": "object",
        "properties": {
            "memory": {"type": "string", "description": "The memory file served."},
            "content_hash": {"type": ["string", "null"], "description": "sha256: of the bytes indexed (null: none loaded yet)."},
            "records": count,
            "pool": count,
            "excluded": count,
            "warnings": {"type": "array", "items": {"type": "string"}},
            "problem": {
                "type": ["string", "null"],
                "description": "Why the file as it is now is not served (the last good version is, when there is one)."
            },
            "profile": profile_schema(),
            "load_ms": {"type": ["number", "null"], "description": "Reading, loading and indexing the served version took this long."}
        },
        "required": ["memory", "content_hash", "records", "pool", "excluded", "warnings", "problem", "profile", "load_ms"]
    })
}

/// Every tool, as `tools/list` shows them.
pub(super) fn list() -> Vec<Tool> {
    let read_only = || ToolAnnotations::new().read_only(true).destructive(false).idempotent(true).open_world(false);
    let tool = |name: &'static str, title: &str, description: &'static str, input: Value, output: Value| {
        Tool::new(name, description, object(input))
            .with_title(title)
            .with_raw_output_schema(object(output))
            .with_annotations(read_only())
    };
    vec![
        tool(
            SEARCH,
            "Search the architectural decisions",
            "The decisions that govern a task, ranked as CI's gate ranks them: id, title and score, best first.",
            query_schema(true),
            search_output(),
        ),
        tool(
            CONTEXT,
            "The decisions to follow",
            "The context block for a task (and the file being edited): the decisions that govern it, with their \
             constraints and anti-patterns, to follow while editing. Empty when none applies.",
            query_schema(false),
            context_output(),
        ),
        tool(
            EXPLAIN,
            "Explain a ranking",
            "Why these decisions: every record of the memory with its matched tokens per field, its score, its rank, \
             and the one reason it is not retrieved.",
            query_schema(false),
            explain_output(),
        ),
        tool(
            HEALTH,
            "Memory health",
            "The memory file served: its content hash, record counts, pool size, warnings, profile, load time, and \
             the problem of its current version when it does not load.",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            health_output(),
        ),
    ]
}

/// The arguments of a query tool.
#[derive(Debug, PartialEq, Eq)]
struct Args {
    task: String,
    file: Option<String>,
    k: Option<usize>,
}

impl Args {
    fn parse(arguments: Option<&JsonObject>, with_k: bool) -> Result<Args, String> {
        let empty = JsonObject::new();
        let map = arguments.unwrap_or(&empty);
        if let Some(key) = map.keys().find(|k| !(matches!(k.as_str(), "task" | "file") || with_k && *k == "k")) {
            return Err(format!("unknown argument `{key}`"));
        }
        let task = match map.get("task") {
            Some(Value::String(t)) => t.clone(),
            None | Some(Value::Null) => return Err("missing `task` (a string)".into()),
            Some(other) => return Err(format!("`task` must be a string, found {}", crate::describe::json_type(other))),
        };
        let file = match map.get("file") {
            Some(Value::String(f)) => Some(f.clone()),
            None | Some(Value::Null) => None,
            Some(other) => {
                return Err(format!("`file` must be a string or null, found {}", crate::describe::json_type(other)))
            }
        };
        let k = match map.get("k") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => match n.as_u64() {
                Some(k) if (1..=MAX_K).contains(&k) => Some(k as usize),
                _ => return Err(format!("`k` must be a whole number from 1 to {MAX_K}, found {n}")),
            },
            Some(other) => return Err(format!("`k` must be a number, found {}", crate::describe::json_type(other))),
        };
        Ok(Args { task, file, k })
    }

    fn query(&self) -> Query<'_> {
        Query { task: &self.task, file: self.file.as_deref() }
    }
}

/// A tool error whose text is `message`.
fn failure(message: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// A result with structured content and `text` as its text.
fn answer(structured: Value, text: String) -> CallToolResult {
    let mut result = CallToolResult::structured(structured);
    result.content = vec![ContentBlock::text(text)];
    result
}

fn profile_json(profile: &Profile) -> Value {
    serde_json::to_value(profile).expect("a profile serialises")
}

/// Answers a call of tool `name`, or `None` when there is no such tool.
pub(super) fn call(
    hot: &mut Hot,
    scratch: &mut Scratch,
    name: &str,
    arguments: Option<&JsonObject>,
) -> Option<CallToolResult> {
    let with_k = match name {
        SEARCH => true,
        CONTEXT | EXPLAIN => false,
        HEALTH => {
            hot.refresh();
            return Some(health(hot));
        }
        _ => return None,
    };
    let args = match Args::parse(arguments, with_k) {
        Ok(args) => args,
        Err(message) => return Some(failure(&message)),
    };
    hot.refresh();
    let loaded = match hot.loaded() {
        Ok(loaded) => loaded,
        Err(problem) => return Some(failure(problem)),
    };
    Some(match name {
        SEARCH => search(loaded, scratch, &args),
        CONTEXT => context(loaded, scratch, &args),
        _ => explain(loaded, &args),
    })
}

fn search(loaded: &Loaded, scratch: &mut Scratch, args: &Args) -> CallToolResult {
    let index = &loaded.index;
    let retrieval = index.retrieve_with(args.query(), args.k.unwrap_or(index.profile().k), scratch);
    let retrieved: Vec<Value> = retrieval
        .hits
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let d = index.decision(h.pool);
            json!({"rank": i + 1, "id": d.id, "title": d.title, "score": h.score})
        })
        .collect();
    let doc = json!({"retrieved": retrieved, "note": retrieval.why_empty(index.profile())});
    let text = doc.to_string();
    answer(doc, text)
}

fn context(loaded: &Loaded, scratch: &mut Scratch, args: &Args) -> CallToolResult {
    let index = &loaded.index;
    let retrieval = index.retrieve_with(args.query(), index.profile().k, scratch);
    let block = render(retrieval.hits.iter().map(|h| index.decision(h.pool)));
    let ids: Vec<&str> = retrieval.hits.iter().map(|h| index.decision(h.pool).id.as_str()).collect();
    let doc = json!({"context": block, "retrieved": ids, "note": retrieval.why_empty(index.profile())});
    answer(doc, block)
}

fn explain(loaded: &Loaded, args: &Args) -> CallToolResult {
    let text = crate::report::explain::json(&loaded.index.explain(args.query()));
    let doc: Value = serde_json::from_str(&text).expect("the explain document is JSON");
    answer(doc, text)
}

fn health(hot: &Hot) -> CallToolResult {
    let loaded = hot.loaded().ok();
    let doc = json!({
        "memory": hot.path().display().to_string(),
        "content_hash": loaded.map(|l| l.hash.as_str()),
        "records": loaded.map(|l| l.records),
        "pool": loaded.map(|l| l.index.decisions().len()),
        "excluded": loaded.map(|l| l.index.excluded().len()),
        "warnings": loaded.map(|l| l.warnings.clone()).unwrap_or_default(),
        "problem": hot.problem(),
        "profile": profile_json(hot.profile()),
        "load_ms": loaded.map(|l| l.load_time.as_secs_f64() * 1000.0),
    });
    let text = doc.to_string();
    answer(doc, text)
}

/// The name of a tool, for messages.
pub(super) fn unknown(name: &str) -> Cow<'static, str> {
    Cow::Owned(format!("unknown tool `{name}`: the tools are {SEARCH}, {CONTEXT}, {EXPLAIN} and {HEALTH}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(json: Value, with_k: bool) -> Result<Args, String> {
        Args::parse(json.as_object(), with_k)
    }

    #[test]
    fn arguments_are_checked_with_the_command_lines_words() {
        assert_eq!(
            args(json!({"task": "t", "file": null, "k": 5}), true),
            Ok(Args { task: "t".into(), file: None, k: Some(5) })
        );
        assert_eq!(args(json!({}), false), Err("missing `task` (a string)".into()));
        assert_eq!(args(json!({"task": 1}), false), Err("`task` must be a string, found a number".into()));
        assert_eq!(
            args(json!({"task": "t", "file": []}), false),
            Err("`file` must be a string or null, found a list".into())
        );
        assert_eq!(args(json!({"task": "t", "k": 3}), false), Err("unknown argument `k`".into()));
        assert_eq!(
            args(json!({"task": "t", "k": 0}), true),
            Err("`k` must be a whole number from 1 to 1000000, found 0".into())
        );
        assert_eq!(
            args(json!({"task": "t", "k": 1.5}), true),
            Err("`k` must be a whole number from 1 to 1000000, found 1.5".into())
        );
    }

    #[test]
    fn the_tools_and_their_schemas() {
        let tools = serde_json::to_value(list()).unwrap();
        insta::assert_json_snapshot!("mcp_tools", tools);
    }

    #[test]
    fn every_call_answers_and_a_missing_memory_is_a_tool_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        let mut hot = Hot::load(&path, Profile::of(crate::profile::Named::Classic));
        let mut scratch = Scratch::default();
        let q = json!({"task": "refund ledger"});
        let r = call(&mut hot, &mut scratch, SEARCH, q.as_object()).unwrap();
        assert_eq!(r.is_error, Some(true));
        let text = serde_json::to_value(&r.content).unwrap()[0]["text"].as_str().unwrap().to_string();
        assert!(text.starts_with("cannot read the memory file "), "{text}");
        assert!(call(&mut hot, &mut scratch, "nope", None).is_none());
        let health = call(&mut hot, &mut scratch, HEALTH, None).unwrap();
        assert_eq!(health.is_error, Some(false));
        assert_eq!(health.structured_content.as_ref().unwrap()["content_hash"], Value::Null);

        std::fs::write(
            &path,
            r#"{"decisions": [{"id": "A", "decision": "Refunds post to the ledger", "scope": ["payments"]}]}"#,
        )
        .unwrap();
        let r = call(&mut hot, &mut scratch, SEARCH, q.as_object()).unwrap();
        assert_eq!(
            r.structured_content.unwrap(),
            json!({"retrieved": [{"rank": 1, "id": "A", "title": "Refunds post to the ledger", "score": 3.0}], "note": null})
        );
        let r = call(&mut hot, &mut scratch, CONTEXT, q.as_object()).unwrap();
        let block = "## Project decisions\n\nThese architectural decisions govern this task. Follow them; do not work around them.\n\n1. [A] Refunds post to the ledger\n   Tags: payments\n";
        assert_eq!(r.structured_content.unwrap()["context"], block);
        let r = call(&mut hot, &mut scratch, EXPLAIN, q.as_object()).unwrap();
        assert_eq!(r.structured_content.unwrap()["retrieved"], json!(["A"]));
        let r = call(&mut hot, &mut scratch, SEARCH, json!({"task": 3}).as_object()).unwrap();
        assert_eq!(r.is_error, Some(true));
    }
}
