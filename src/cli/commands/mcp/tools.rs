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

use rmcp::handler::server::common::{schema_for_input, schema_for_output};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::cache::{Hot, Loaded};
use crate::context::render;
use crate::profile::{Milli, Profile};
use crate::report::explain::ExplainDocument;
use crate::retrieval::{Explanation, Query, Scratch};

pub(super) const SEARCH: &str = "memory_search";
pub(super) const CONTEXT: &str = "memory_context";
pub(super) const EXPLAIN: &str = "memory_explain";
pub(super) const HEALTH: &str = "memory_health";

/// The largest `k` a search may ask for (as `retrieval.k` in the configuration).
const MAX_K: u64 = 1_000_000;

/// The arguments of `memory_context` and `memory_explain`, as their input
/// schema declares them (read by [`Args::parse`]).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct QueryArgs {
    /// What the agent is doing, in words (the prompt or the step).
    task: String,
    /// The file being edited, relative to the repository root: its words join the query and it turns on the scope pre-filter.
    #[serde(default)]
    file: Option<String>,
}

/// The arguments of `memory_search`, a query and how many decisions, as its
/// input schema declares them (read by [`Args::parse`]).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct SearchArgs {
    /// What the agent is doing, in words (the prompt or the step).
    task: String,
    /// The file being edited, relative to the repository root: its words join the query and it turns on the scope pre-filter.
    #[serde(default)]
    file: Option<String>,
    /// How many decisions to retrieve (default: the profile's k).
    #[serde(default)]
    #[schemars(range(min = 1, max = 1_000_000))]
    k: Option<u64>,
}

/// `memory_health` takes no arguments.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

/// One decision `memory_search` retrieved.
#[derive(Debug, Serialize, JsonSchema)]
struct Hit<'a> {
    /// 1 for the best.
    #[schemars(range(min = 1))]
    rank: usize,
    id: &'a str,
    title: &'a str,
    score: Milli,
}

/// What `memory_search` answers.
#[derive(Debug, Serialize, JsonSchema)]
struct SearchOutput<'a> {
    /// The decisions that govern the task, best first.
    retrieved: Vec<Hit<'a>>,
    /// Why nothing was retrieved, when nothing was.
    note: Option<String>,
}

/// What `memory_context` answers.
#[derive(Debug, Serialize, JsonSchema)]
struct ContextOutput<'a> {
    /// The context block; empty when nothing is retrieved.
    context: String,
    /// The ids in the block, in rank order.
    retrieved: Vec<&'a str>,
    /// Why nothing was retrieved, when nothing was.
    note: Option<String>,
}

/// What `memory_health` answers.
#[derive(Debug, Serialize, JsonSchema)]
struct HealthOutput<'a> {
    /// The memory file served.
    memory: String,
    /// sha256: of the bytes indexed (null: none loaded yet).
    content_hash: Option<&'a str>,
    records: Option<usize>,
    pool: Option<usize>,
    excluded: Option<usize>,
    warnings: Vec<String>,
    /// Why the file as it is now is not served (the last good version is, when there is one).
    problem: Option<&'a str>,
    profile: &'a Profile,
    /// Reading, loading and indexing the served version took this long.
    load_ms: Option<f64>,
}

/// The input schema of `T`, as rmcp derives it (draft 2020-12, an object).
fn input<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    schema_for_input::<T>().expect("a tool's arguments are an object")
}

/// Every tool, as `tools/list` shows them.
pub(super) fn list() -> Vec<Tool> {
    let read_only = || ToolAnnotations::new().read_only(true).destructive(false).idempotent(true).open_world(false);
    let tool = |name: &'static str, title: &str, description: &'static str, input, output| {
        Tool::new(name, description, input)
            .with_title(title)
            .with_raw_output_schema(output)
            .with_annotations(read_only())
    };
    vec![
        tool(
            SEARCH,
            "Search the architectural decisions",
            "The decisions that govern a task, ranked as CI's gate ranks them: id, title and score, best first.",
            input::<SearchArgs>(),
            schema_for_output::<SearchOutput<'static>>(),
        ),
        tool(
            CONTEXT,
            "The decisions to follow",
            "The context block for a task (and the file being edited): the decisions that govern it, with their \
             constraints and anti-patterns, to follow while editing. Empty when none applies.",
            input::<QueryArgs>(),
            schema_for_output::<ContextOutput<'static>>(),
        ),
        tool(
            EXPLAIN,
            "Explain a ranking",
            "Why these decisions: every record of the memory with its matched tokens per field, its score, its rank, \
             and the one reason it is not retrieved.",
            input::<QueryArgs>(),
            schema_for_output::<ExplainDocument<Explanation>>(),
        ),
        tool(
            HEALTH,
            "Memory health",
            "The memory file served: its content hash, record counts, pool size, warnings, profile, load time, and \
             the problem of its current version when it does not load.",
            input::<NoArgs>(),
            schema_for_output::<HealthOutput<'static>>(),
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
    /// The arguments of a query tool, checked by hand so that a problem is
    /// told in the command line's words; the keys and types are those of
    /// [`SearchArgs`] and [`QueryArgs`], whose derived schemas the tools
    /// declare (a test keeps the two in step).
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

/// `doc` as the structured content of an answer.
fn structured(doc: &impl Serialize) -> Value {
    serde_json::to_value(doc).expect("a tool's answer serialises")
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
    let retrieved = retrieval
        .hits
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let d = index.decision(h.pool);
            Hit { rank: i + 1, id: &d.id, title: &d.title, score: h.score }
        })
        .collect();
    let doc = structured(&SearchOutput { retrieved, note: retrieval.why_empty(index.profile()) });
    let text = doc.to_string();
    answer(doc, text)
}

fn context(loaded: &Loaded, scratch: &mut Scratch, args: &Args) -> CallToolResult {
    let index = &loaded.index;
    let retrieval = index.retrieve_with(args.query(), index.profile().k, scratch);
    let block = render(retrieval.hits.iter().map(|h| index.decision(h.pool)));
    let retrieved = retrieval.hits.iter().map(|h| index.decision(h.pool).id.as_str()).collect();
    let doc =
        structured(&ContextOutput { context: block.clone(), retrieved, note: retrieval.why_empty(index.profile()) });
    answer(doc, block)
}

fn explain(loaded: &Loaded, args: &Args) -> CallToolResult {
    let text = crate::report::explain::json(&loaded.index.explain(args.query()));
    let doc: Value = serde_json::from_str(&text).expect("the explain document is JSON");
    answer(doc, text)
}

fn health(hot: &Hot) -> CallToolResult {
    let loaded = hot.loaded().ok();
    let doc = structured(&HealthOutput {
        memory: hot.path().display().to_string(),
        content_hash: loaded.map(|l| l.hash.as_str()),
        records: loaded.map(|l| l.records),
        pool: loaded.map(|l| l.index.decisions().len()),
        excluded: loaded.map(|l| l.index.excluded().len()),
        warnings: loaded.map(|l| l.warnings.clone()).unwrap_or_default(),
        problem: hot.problem(),
        profile: hot.profile(),
        load_ms: loaded.map(|l| l.load_time.as_secs_f64() * 1000.0),
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
    use serde_json::json;

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
    fn the_parser_accepts_what_the_input_schemas_declare() {
        for (with_k, schema) in [(true, input::<SearchArgs>()), (false, input::<QueryArgs>())] {
            let properties = schema["properties"].as_object().unwrap();
            let mut all = JsonObject::new();
            for (key, property) in properties {
                // A value of the property's first type.
                let value = match property["type"].as_array().map_or(&property["type"], |t| &t[0]).as_str() {
                    Some("string") => json!("x"),
                    Some("integer") => json!(property["minimum"].as_u64().unwrap_or(1)),
                    other => panic!("{key}: a type the parser does not read: {other:?}"),
                };
                all.insert(key.clone(), value);
            }
            assert!(Args::parse(Some(&all), with_k).is_ok(), "{all:?}");
            let required: Vec<&str> =
                schema["required"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
            assert_eq!(required, ["task"]);
            let mut without = all.clone();
            without.remove("task");
            assert!(Args::parse(Some(&without), with_k).is_err());
            all.insert("other".into(), json!(1));
            assert!(Args::parse(Some(&all), with_k).is_err(), "additionalProperties: false");
        }
    }

    #[test]
    fn every_answer_matches_its_declared_output_schema_properties() {
        // The derived schemas name exactly the fields the answers carry.
        let props = |schema: &JsonObject| {
            let mut keys: Vec<String> = schema["properties"].as_object().unwrap().keys().cloned().collect();
            keys.sort();
            keys
        };
        let tools = list();
        let search = tools.iter().find(|t| t.name == SEARCH).unwrap();
        assert_eq!(props(search.output_schema.as_ref().unwrap()), ["note", "retrieved"]);
        assert_eq!(props(&search.input_schema), ["file", "k", "task"]);
        let explain = tools.iter().find(|t| t.name == EXPLAIN).unwrap();
        let explain_props = props(explain.output_schema.as_ref().unwrap());
        for key in ["schema", "task", "file", "query_tokens", "profile", "retrieved", "note", "records"] {
            assert!(explain_props.iter().any(|k| k == key), "{key} in {explain_props:?}");
        }
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
