/*!
The agents' hooks: what a hook's JSON on standard input asks for, and the
JSON an agent reads back, for Claude Code and Gemini CLI.

Claude Code (<https://code.claude.com/docs/en/hooks>) runs a command hook
with a JSON object on stdin: `session_id`, `transcript_path`, `cwd`,
`permission_mode`, `hook_event_name`, and per event `prompt`
(`UserPromptSubmit`) or `tool_name`, `tool_input` and `tool_use_id`
(`PreToolUse`, whose file paths are absolute). A hook that exits 0 with
`{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}`
on stdout adds the text to what the model sees. Gemini CLI
(<https://geminicli.com/docs/hooks/reference>) sends `session_id`, `cwd`,
`hook_event_name` and, for `BeforeAgent`, `prompt`, and reads
`hookSpecificOutput.additionalContext` the same way; its tool hooks cannot
add context before a tool runs, so only `BeforeAgent` is answered.

An event the hook does not answer (another tool, another event) is
[`Kind::Ignored`], not an error. The prompt of a session is remembered
([`remember`], [`recall`]) so that an edit is queried with the task the user
gave, not only with the text being written.

It deliberately neither retrieves nor prints: the command line does both.
*/

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::describe::{json_error, json_type};

pub mod claude_settings;

/// The most hook input read (16 MiB): a `Write` carries the whole file.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// The most of the text being written that becomes a task, in bytes.
pub const MAX_EDIT_TASK_BYTES: usize = 4096;

/// The largest prompt remembered for a session (1 MiB); a longer one is
/// not remembered, and that session's edits are queried with their own text.
pub const MAX_REMEMBERED_BYTES: u64 = 1024 * 1024;

/// The agent whose hook format is read and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code: `UserPromptSubmit`, and `PreToolUse` for `Edit`, `Write`,
    /// `MultiEdit` and `NotebookEdit`.
    Claude,
    /// Gemini CLI: `BeforeAgent`.
    Gemini,
}

impl Agent {
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Gemini => "gemini",
        }
    }
}

/// The Claude Code tools that edit a file, and the key of their file.
const EDIT_TOOLS: [(&str, &str); 4] =
    [("Edit", "file_path"), ("Write", "file_path"), ("MultiEdit", "file_path"), ("NotebookEdit", "notebook_path")];

/// What a hook's input asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The event, as the output names it (`hookEventName`).
    pub event: String,
    /// The session, when the input names one.
    pub session: Option<String>,
    /// The agent's working folder (the repository root), when given.
    pub cwd: Option<PathBuf>,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A prompt: it is the task.
    Prompt { prompt: String },
    /// A file about to be edited, as the tool names it, and the task built
    /// from the tool's input (the text being written, at most
    /// [`MAX_EDIT_TASK_BYTES`]), for when the session's prompt is unknown.
    Edit { file: String, task: String },
    /// An event or a tool this hook does not answer.
    Ignored,
}

/// Why a hook's input cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    #[error("the hook input is not JSON: {0}")]
    NotJson(String),
    #[error("the hook input is {0}, not a JSON object")]
    NotAnObject(&'static str),
    #[error("the hook input has no `hook_event_name`")]
    NoEvent,
    #[error("`{key}` of the {event} hook input must be {expected}, found {found}")]
    Field { event: String, key: String, expected: &'static str, found: &'static str },
    #[error("the {event} hook input has no `{key}`")]
    Missing { event: String, key: String },
}

/// Reads a hook's JSON input.
pub fn parse(agent: Agent, input: &[u8]) -> Result<Request, HookError> {
    let value: Value = serde_json::from_slice(input).map_err(|e| HookError::NotJson(json_error(&e)))?;
    let Value::Object(map) = value else { return Err(HookError::NotAnObject(json_type(&value))) };
    let event = match map.get("hook_event_name") {
        Some(Value::String(e)) => e.clone(),
        Some(other) => {
            return Err(HookError::Field {
                event: "hook".into(),
                key: "hook_event_name".into(),
                expected: "a string",
                found: json_type(other),
            })
        }
        None => return Err(HookError::NoEvent),
    };
    let fields = Fields { map: &map, event: &event };
    let session = fields.optional_string("session_id")?;
    let cwd = fields.optional_string("cwd")?.filter(|c| !c.is_empty()).map(PathBuf::from);
    let kind = match (agent, event.as_str()) {
        (Agent::Claude, "UserPromptSubmit") | (Agent::Gemini, "BeforeAgent") => {
            Kind::Prompt { prompt: fields.string("prompt")? }
        }
        (Agent::Claude, "PreToolUse") => edit(&fields)?,
        _ => Kind::Ignored,
    };
    Ok(Request { event, session, cwd, kind })
}

/// A `PreToolUse` of a tool that edits a file, or [`Kind::Ignored`].
fn edit(fields: &Fields<'_>) -> Result<Kind, HookError> {
    let tool = fields.string("tool_name")?;
    let Some(&(_, file_key)) = EDIT_TOOLS.iter().find(|(name, _)| *name == tool) else {
        return Ok(Kind::Ignored);
    };
    let input = match fields.map.get("tool_input") {
        Some(Value::Object(input)) => input,
        Some(other) => return Err(fields.wrong("tool_input", "an object", other)),
        None => return Err(fields.missing("tool_input")),
    };
    let inner = Fields { map: input, event: fields.event };
    let file = match inner.optional_string(file_key)? {
        Some(f) if !f.is_empty() => f,
        _ => return Err(fields.missing(&format!("tool_input.{file_key}"))),
    };
    // The text being written: what the edit is about.
    let mut texts: Vec<String> = Vec::new();
    for key in ["new_string", "content", "new_source"] {
        texts.extend(inner.optional_string(key)?);
    }
    if let Some(Value::Array(edits)) = input.get("edits") {
        texts.extend(edits.iter().filter_map(|e| e.get("new_string")?.as_str().map(str::to_string)));
    }
    Ok(Kind::Edit { file, task: truncate(&texts.join("\n"), MAX_EDIT_TASK_BYTES).to_string() })
}

/// The fields of one JSON object of an event's input.
struct Fields<'a> {
    map: &'a Map<String, Value>,
    event: &'a str,
}

impl Fields<'_> {
    fn wrong(&self, key: &str, expected: &'static str, found: &Value) -> HookError {
        HookError::Field { event: self.event.into(), key: key.into(), expected, found: json_type(found) }
    }

    fn missing(&self, key: &str) -> HookError {
        HookError::Missing { event: self.event.into(), key: key.into() }
    }

    fn optional_string(&self, key: &str) -> Result<Option<String>, HookError> {
        match self.map.get(key) {
            Some(Value::String(s)) => Ok(Some(s.clone())),
            None | Some(Value::Null) => Ok(None),
            Some(other) => Err(self.wrong(key, "a string", other)),
        }
    }

    fn string(&self, key: &str) -> Result<String, HookError> {
        self.optional_string(key)?.ok_or_else(|| self.missing(key))
    }
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The hook's output for a context block: `None` when the block is empty,
/// so that nothing is added (below the threshold nothing is injected).
pub fn output(agent: Agent, event: &str, block: &str) -> Option<String> {
    if block.is_empty() {
        return None;
    }
    let _ = agent; // both agents read the same shape
    let doc = serde_json::json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": block}});
    Some(format!("{doc}\n"))
}

/// The file as a query names it: relative to `root` (the repository, the
/// agent's `cwd`) with `/` separators when it lies inside it, else as given.
pub fn relative_file(file: &str, root: &Path) -> String {
    let path = Path::new(file);
    if !path.is_absolute() {
        return file.to_string();
    }
    let inside = |root: &Path, path: &Path| -> Option<String> {
        let rest = path.strip_prefix(root).ok()?;
        let parts: Vec<String> = rest.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        (!parts.is_empty()).then(|| parts.join("/"))
    };
    if let Some(rel) = inside(root, path) {
        return rel;
    }
    // Symbolic links (a temporary folder, `/private` on macOS): the canonical
    // root, and the canonical folder of the file (which may not exist yet).
    let canonical_root = std::fs::canonicalize(root).ok();
    let canonical_file = path.parent().and_then(|p| std::fs::canonicalize(p).ok()).zip(path.file_name());
    if let (Some(root), Some((folder, name))) = (canonical_root, canonical_file) {
        if let Some(rel) = inside(&root, &folder.join(name)) {
            return rel;
        }
    }
    file.to_string()
}

/// The file a session's prompt is remembered in, under `dir`: named by the
/// SHA-256 of the agent and the session id, so that no id from the input
/// becomes part of a path.
pub fn session_file(dir: &Path, agent: Agent, session: &str) -> PathBuf {
    let mut h = crate::digest::Hasher::new();
    h.update(agent.name());
    h.update([0]);
    h.update(session);
    let hex = h.hex_prefix(16);
    dir.join(format!("{hex}.prompt"))
}

/// Remembers a session's prompt (atomically; a prompt over
/// [`MAX_REMEMBERED_BYTES`] forgets the previous one instead).
pub fn remember(dir: &Path, agent: Agent, session: &str, prompt: &str) -> std::io::Result<()> {
    let file = session_file(dir, agent, session);
    if prompt.len() as u64 > MAX_REMEMBERED_BYTES {
        return match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    }
    crate::atomic::write_atomically(&file, prompt.as_bytes())
}

/// The session's last prompt, when one is remembered and readable (a
/// regular file of UTF-8, at most [`MAX_REMEMBERED_BYTES`]).
pub fn recall(dir: &Path, agent: Agent, session: &str) -> Option<String> {
    let bytes = crate::memory::read_regular(&session_file(dir, agent, session), MAX_REMEMBERED_BYTES).ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claude(json: &str) -> Result<Request, HookError> {
        parse(Agent::Claude, json.as_bytes())
    }

    #[test]
    fn a_prompt_is_the_task() {
        let r = claude(r#"{"session_id": "s1", "cwd": "/repo", "hook_event_name": "UserPromptSubmit", "prompt": "Add a refund endpoint", "permission_mode": "default"}"#).unwrap();
        assert_eq!(
            r,
            Request {
                event: "UserPromptSubmit".into(),
                session: Some("s1".into()),
                cwd: Some("/repo".into()),
                kind: Kind::Prompt { prompt: "Add a refund endpoint".into() }
            }
        );
        let g =
            parse(Agent::Gemini, br#"{"hook_event_name": "BeforeAgent", "prompt": "p", "timestamp": "x"}"#).unwrap();
        assert_eq!((g.event.as_str(), g.kind), ("BeforeAgent", Kind::Prompt { prompt: "p".into() }));
    }

    #[test]
    fn an_edit_names_its_file_and_its_text() {
        let edit = |tool: &str, input: &str| {
            claude(&format!(r#"{{"hook_event_name": "PreToolUse", "tool_name": "{tool}", "tool_input": {input}}}"#))
                .unwrap()
                .kind
        };
        let e = |file: &str, task: &str| Kind::Edit { file: file.into(), task: task.into() };
        assert_eq!(
            edit("Edit", r#"{"file_path": "/r/a.py", "old_string": "x", "new_string": "ledger.post()"}"#),
            e("/r/a.py", "ledger.post()")
        );
        assert_eq!(
            edit("Write", r#"{"file_path": "/r/a.py", "content": "import psycopg2"}"#),
            e("/r/a.py", "import psycopg2")
        );
        assert_eq!(
            edit(
                "MultiEdit",
                r#"{"file_path": "/r/a.py", "edits": [{"old_string": "a", "new_string": "one"}, {"new_string": "two"}, 3]}"#
            ),
            e("/r/a.py", "one\ntwo")
        );
        assert_eq!(
            edit("NotebookEdit", r#"{"notebook_path": "/r/n.ipynb", "new_source": "df"}"#),
            e("/r/n.ipynb", "df")
        );
        let long = "é".repeat(MAX_EDIT_TASK_BYTES);
        match edit("Write", &format!(r#"{{"file_path": "f", "content": "{long}"}}"#)) {
            Kind::Edit { task, .. } => assert_eq!(task.len(), MAX_EDIT_TASK_BYTES, "cut at a character boundary"),
            other => panic!("{other:?}"),
        }
        assert_eq!(edit("Bash", r#"{"command": "ls"}"#), Kind::Ignored);
        assert_eq!(edit("Read", r#"{"file_path": "/r/a.py"}"#), Kind::Ignored);
        let post = claude(r#"{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": {}}"#).unwrap();
        assert_eq!(post.kind, Kind::Ignored);
        let gemini_tool = parse(Agent::Gemini, br#"{"hook_event_name": "BeforeTool", "tool_name": "write_file"}"#);
        assert_eq!(gemini_tool.unwrap().kind, Kind::Ignored);
    }

    #[test]
    fn bad_input_says_what_is_wrong() {
        let err = |json: &str| claude(json).unwrap_err().to_string();
        assert!(err("garbage").starts_with("the hook input is not JSON: expected value"), "{}", err("garbage"));
        assert_eq!(err("[1]"), "the hook input is a list, not a JSON object");
        assert_eq!(err("{}"), "the hook input has no `hook_event_name`");
        assert_eq!(
            err(r#"{"hook_event_name": "UserPromptSubmit"}"#),
            "the UserPromptSubmit hook input has no `prompt`"
        );
        assert_eq!(
            err(r#"{"hook_event_name": "UserPromptSubmit", "prompt": 3}"#),
            "`prompt` of the UserPromptSubmit hook input must be a string, found a number"
        );
        assert_eq!(
            err(r#"{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": {"new_string": "x"}}"#),
            "the PreToolUse hook input has no `tool_input.file_path`"
        );
        assert_eq!(
            err(r#"{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": "x"}"#),
            "`tool_input` of the PreToolUse hook input must be an object, found a string"
        );
    }

    #[test]
    fn the_output_adds_the_block_or_nothing() {
        assert_eq!(output(Agent::Claude, "PreToolUse", ""), None);
        let out = output(Agent::Claude, "PreToolUse", "## Project decisions\n\n1. [A] \"t\"\n").unwrap();
        assert_eq!(
            out,
            "{\"hookSpecificOutput\":{\"additionalContext\":\"## Project decisions\\n\\n1. [A] \\\"t\\\"\\n\",\"hookEventName\":\"PreToolUse\"}}\n"
        );
        let v: Value = serde_json::from_str(&output(Agent::Gemini, "BeforeAgent", "b").unwrap()).unwrap();
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "b");
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "BeforeAgent");
    }

    #[test]
    fn files_are_made_relative_to_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("services/payments")).unwrap();
        let abs = root.join("services/payments/new.py");
        assert_eq!(relative_file(abs.to_str().unwrap(), &root), "services/payments/new.py");
        assert_eq!(relative_file("services/x.py", &root), "services/x.py");
        assert_eq!(relative_file("/elsewhere/x.py", &root), "/elsewhere/x.py");
        #[cfg(unix)]
        {
            // The agent's cwd reached through a link, the file by the real path.
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&root, &link).unwrap();
            assert_eq!(relative_file(abs.to_str().unwrap(), &link), "services/payments/new.py");
        }
    }

    #[test]
    fn a_sessions_prompt_is_remembered_under_a_hashed_name() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(recall(dir.path(), Agent::Claude, "s/../../x"), None);
        remember(dir.path(), Agent::Claude, "s/../../x", "Add a refund endpoint").unwrap();
        assert_eq!(recall(dir.path(), Agent::Claude, "s/../../x").as_deref(), Some("Add a refund endpoint"));
        assert_eq!(recall(dir.path(), Agent::Gemini, "s/../../x"), None, "per agent");
        let file = session_file(dir.path(), Agent::Claude, "s/../../x");
        assert_eq!(file.parent(), Some(dir.path()));
        let too_long = "x".repeat(MAX_REMEMBERED_BYTES as usize + 1);
        remember(dir.path(), Agent::Claude, "s/../../x", &too_long).unwrap();
        assert_eq!(recall(dir.path(), Agent::Claude, "s/../../x"), None, "a prompt too long forgets the last one");
    }
}
