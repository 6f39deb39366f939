//! The agent's loop on the real binary: `hook claude` (and `gemini`) on the
//! bundled example, failing open on every kind of bad input; `init --hook
//! claude`; `context` from the cache giving the bytes it gives without; and
//! `mcp` speaking the protocol (the PyPI client's checks are in
//! `tests/reference/mcp_client.py`, run by `.ci/run`).

use std::path::{Path, PathBuf};
use std::process::Stdio;

mod common;

use common::{Run, Session, Test};

use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary, in `dir`, with a cache folder of its own.
fn bin(dir: &Path, cache: &Path) -> Test {
    Test::new().dir(dir).env_remove("MNEME_GATE_CACHE").env("MNEME_GATE_CACHE_DIR", cache)
}

/// A hook of the bundled example: its cwd is the repository root.
fn hook(agent: &str, cache: &Path, input: &Value) -> Run {
    bin(&root(), cache).args(["hook", agent]).stdin(input.to_string()).run()
}

/// What `context` prints for a task and a file in the bundled example.
fn context(cache: &Path, task: &str, file: Option<&str>) -> String {
    let mut c = bin(&root(), cache).args(["context", "--task", task]);
    if let Some(f) = file {
        c = c.args(["--file", f]);
    }
    let out = c.run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

fn edit(session: &str, tool: &str, file: &str, text: &str) -> Value {
    let abs = root().join(file);
    let key = if tool == "NotebookEdit" { "notebook_path" } else { "file_path" };
    let text_key = match tool {
        "Write" => "content",
        "NotebookEdit" => "new_source",
        _ => "new_string",
    };
    json!({
        "session_id": session,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": root(),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {key: abs, "old_string": "x", text_key: text},
        "tool_use_id": "toolu_1"
    })
}

fn prompt(session: &str, prompt: &str) -> Value {
    json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": root(), "permission_mode": "default",
           "hook_event_name": "UserPromptSubmit", "prompt": prompt})
}

/// The additional context of a hook's output, checked to be the whole of
/// Claude Code's shape for `event`.
fn added(out: &Run, event: &str) -> String {
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "stdout: {}", out.stdout);
    assert!(out.stdout.ends_with('\n') && out.stdout.lines().count() == 1, "one JSON line: {:?}", out.stdout);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let specific = v["hookSpecificOutput"].as_object().unwrap();
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
    assert_eq!(specific.len(), 2, "{v}");
    assert_eq!(specific["hookEventName"], event);
    specific["additionalContext"].as_str().unwrap().to_string()
}

#[test]
fn an_edit_under_payments_gets_the_context_block_of_context() {
    let cache = tempfile::tempdir().unwrap();
    let text = "def refund(charge):\n    ledger.post_reversal(charge.id, charge.amount_minor, 'refund')";
    let out = hook("claude", cache.path(), &edit("s-pay", "Edit", "services/payments/refunds.py", text));
    let block = added(&out, "PreToolUse");
    assert!(block.starts_with("## Project decisions\n"), "{block}");
    assert!(block.contains("[PAY-"), "{block}");
    assert_eq!(block, context(cache.path(), text, Some("services/payments/refunds.py")));
    insta::assert_snapshot!("hook_claude_edit_payments", out.stdout);
    // The second run answers from the cache: the same bytes.
    let again = hook("claude", cache.path(), &edit("s-pay", "Edit", "services/payments/refunds.py", text));
    assert_eq!(again.stdout, out.stdout);
}

#[test]
fn an_edit_is_queried_with_the_sessions_prompt() {
    let cache = tempfile::tempdir().unwrap();
    let task = "Add a refund endpoint that writes the reversal to the ledger";
    let on_prompt = hook("claude", cache.path(), &prompt("s-1", task));
    assert_eq!(added(&on_prompt, "UserPromptSubmit"), context(cache.path(), task, None));
    for tool in ["Edit", "Write", "MultiEdit", "NotebookEdit"] {
        let out = hook("claude", cache.path(), &edit("s-1", tool, "services/payments/refunds.py", "x = 1"));
        assert_eq!(
            added(&out, "PreToolUse"),
            context(cache.path(), task, Some("services/payments/refunds.py")),
            "{tool}"
        );
    }
    // Another session has no prompt: its edit is queried with the text written.
    let other = hook("claude", cache.path(), &edit("s-2", "Edit", "services/payments/refunds.py", "ledger reversal"));
    assert_eq!(
        added(&other, "PreToolUse"),
        context(cache.path(), "ledger reversal", Some("services/payments/refunds.py"))
    );
}

#[test]
fn an_ungoverned_chore_gets_nothing() {
    let cache = tempfile::tempdir().unwrap();
    for input in [
        prompt("s-chore", "Add a trailing newline at the end of the Makefile"),
        edit("s-typo", "Edit", "README.md", "Fix a typo in the README"),
    ] {
        let out = hook("claude", cache.path(), &input);
        assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "", ""), "{input}");
    }
    // With the session's prompt the README edit is still out of every scope.
    hook("claude", cache.path(), &prompt("s-readme", "Fix a typo in the README"));
    let out = hook("claude", cache.path(), &edit("s-readme", "Edit", "README.md", "teh → the"));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    assert_eq!(context(cache.path(), "Fix a typo in the README", Some("README.md")), "");
}

#[test]
fn events_and_tools_the_hook_does_not_answer_are_silent() {
    let cache = tempfile::tempdir().unwrap();
    let bash =
        json!({"hook_event_name": "PreToolUse", "cwd": root(), "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let post = json!({"hook_event_name": "PostToolUse", "cwd": root(), "tool_name": "Edit", "tool_input": {}});
    let stop = json!({"hook_event_name": "Stop", "cwd": root()});
    for input in [bash, post, stop] {
        let out = hook("claude", cache.path(), &input);
        assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "", ""), "{input}");
    }
}

#[test]
fn gemini_cli_gets_the_block_before_the_agent_plans() {
    let cache = tempfile::tempdir().unwrap();
    let task = "Add a refund endpoint that writes the reversal to the ledger";
    let input = json!({"session_id": "g", "transcript_path": "/tmp/t.json", "cwd": root(), "hook_event_name": "BeforeAgent",
                       "timestamp": "2026-11-23T10:00:00Z", "prompt": task});
    let out = hook("gemini", cache.path(), &input);
    assert_eq!(added(&out, "BeforeAgent"), context(cache.path(), task, None));
}

/// Every failure: exit 0, nothing on standard output, one line on standard error.
#[track_caller]
fn fails_open(out: &Run, says: &str) {
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.stdout, "", "nothing is added");
    assert_eq!(out.stderr.lines().count(), 1, "one line: {:?}", out.stderr);
    assert!(out.stderr.starts_with("mneme-gate: hook: no context added: "), "{:?}", out.stderr);
    assert!(out.stderr.contains(says), "{:?} does not say {says:?}", out.stderr);
}

#[test]
fn the_hook_fails_open_on_anything_wrong() {
    let cache = tempfile::tempdir().unwrap();
    let hook_bytes =
        |dir: &Path, args: &[&str], stdin: &[u8]| bin(dir, cache.path()).arg("hook").args(args).stdin(stdin).run();
    let r = root();
    fails_open(&hook_bytes(&r, &["claude"], b"garbage"), "the hook input is not JSON");
    fails_open(&hook_bytes(&r, &["claude"], b""), "the hook input is not JSON");
    fails_open(&hook_bytes(&r, &["claude"], b"\xff\xfe{"), "the hook input is not JSON");
    fails_open(&hook_bytes(&r, &["claude"], b"[1, 2]"), "the hook input is a list, not a JSON object");
    fails_open(&hook_bytes(&r, &["claude"], b"{\"prompt\": \"x\"}"), "no `hook_event_name`");
    fails_open(&hook_bytes(&r, &["claude"], b"{\"hook_event_name\": \"UserPromptSubmit\"}"), "has no `prompt`");
    fails_open(&hook_bytes(&r, &["claude", "--bogus"], b"{}"), "unexpected argument '--bogus'");
    fails_open(&hook_bytes(&r, &["codex"], b"{}"), "invalid value 'codex'");
    fails_open(&hook_bytes(&r, &[], b"{}"), "required");

    let tmp = tempfile::tempdir().unwrap();
    let input = |dir: &Path| {
        prompt("s", "Add a refund endpoint").to_string().replace(&*root().to_string_lossy(), &dir.to_string_lossy())
    };
    // No memory file where the agent works.
    fails_open(&hook_bytes(tmp.path(), &["claude"], input(tmp.path()).as_bytes()), "no memory file");
    // A memory file that is not JSON, and one that is not a file.
    std::fs::write(tmp.path().join("project_memory.json"), "{\"decisions\": [").unwrap();
    fails_open(
        &hook_bytes(tmp.path(), &["claude"], input(tmp.path()).as_bytes()),
        "the memory file project_memory.json has 2 error(s)",
    );
    std::fs::remove_file(tmp.path().join("project_memory.json")).unwrap();
    std::fs::create_dir(tmp.path().join("project_memory.json")).unwrap();
    std::fs::write(tmp.path().join("mneme-gate.yaml"), "memory: project_memory.json\n").unwrap();
    fails_open(&hook_bytes(tmp.path(), &["claude"], input(tmp.path()).as_bytes()), "is a folder, not a regular file");
    // A configuration with an unknown key.
    std::fs::write(tmp.path().join("mneme-gate.yaml"), "memroy: x.json\n").unwrap();
    fails_open(&hook_bytes(tmp.path(), &["claude"], input(tmp.path()).as_bytes()), "memroy");
    // A working folder that does not exist.
    let gone = tmp.path().join("gone");
    fails_open(&hook_bytes(tmp.path(), &["claude"], input(&gone).as_bytes()), "cannot read");
    // Input past the cap is refused without being parsed.
    let huge = vec![b' '; 16 * 1024 * 1024 + 1];
    fails_open(&hook_bytes(&r, &["claude"], &huge), "larger than 16 MiB");
}

#[test]
fn a_file_outside_the_repository_is_queried_as_given() {
    let cache = tempfile::tempdir().unwrap();
    let mut input = edit("s-out", "Edit", "services/payments/refunds.py", "ledger reversal");
    input["tool_input"]["file_path"] = json!("/elsewhere/services/payments/refunds.py");
    let out = hook("claude", cache.path(), &input);
    let expected = context(cache.path(), "ledger reversal", Some("/elsewhere/services/payments/refunds.py"));
    if expected.is_empty() {
        assert_eq!((out.code, out.stdout.as_str()), (0, ""));
    } else {
        assert_eq!(added(&out, "PreToolUse"), expected);
    }
}

#[test]
fn context_gives_the_same_bytes_from_the_cache_and_without_it() {
    let cache = tempfile::tempdir().unwrap();
    let queries: [(&str, Option<&str>); 4] = [
        ("Add a refund endpoint that writes the reversal to the ledger", Some("services/payments/refunds.py")),
        ("Apply a percentage discount code to the basket total", None),
        ("the of and", None),
        ("Fix a typo in the README", Some("README.md")),
    ];
    for (task, file) in queries {
        for json_flag in [false, true] {
            let ctx = |off: bool| {
                let mut c = bin(&root(), cache.path()).args(["context", "--task", task]);
                if let Some(f) = file {
                    c = c.args(["--file", f]);
                }
                if json_flag {
                    c = c.args(["--format", "json"]);
                }
                if off {
                    c = c.env("MNEME_GATE_CACHE", "off");
                }
                let out = c.run();
                assert_eq!(out.code, 0, "{}", out.stderr);
                (out.stdout, out.stderr)
            };
            let uncached = ctx(true);
            assert_eq!(ctx(false), uncached, "first run, {task} {file:?} json={json_flag}");
            assert_eq!(ctx(false), uncached, "from the cache, {task} {file:?} json={json_flag}");
        }
    }
    // A damaged cache file is ignored and rewritten.
    let index = cache.path().join("index");
    for entry in std::fs::read_dir(&index).unwrap() {
        let path = entry.unwrap().path();
        let mut bytes = std::fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x10;
        std::fs::write(&path, bytes).unwrap();
    }
    let (task, file) = queries[0];
    assert_eq!(context(cache.path(), task, file), {
        let c = bin(&root(), cache.path());
        c.args(["context", "--task", task, "--file", file.unwrap()]).env("MNEME_GATE_CACHE", "off").run().stdout
    });
}

#[test]
fn init_installs_the_claude_code_hook_once_keeping_the_settings() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    std::fs::copy(root().join("fixtures/project_memory.json"), dir.path().join("project_memory.json")).unwrap();
    std::fs::create_dir(dir.path().join(".claude")).unwrap();
    let settings = dir.path().join(".claude/settings.json");
    std::fs::write(&settings, "{\"permissions\": {\"allow\": [\"Bash(npm test)\"]}}\n").unwrap();
    let init = |args: &[&str]| bin(dir.path(), cache.path()).arg("init").args(args).run();
    let out = init(&["--hook", "claude"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("updated     .claude/settings.json (the Claude Code hook: `mneme-gate hook claude`)"),
        "{}",
        out.stdout
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(written["permissions"]["allow"][0], "Bash(npm test)");
    assert_eq!(written["hooks"]["PreToolUse"][0]["matcher"], "Edit|Write|MultiEdit|NotebookEdit");
    assert_eq!(written["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"], "mneme-gate hook claude");
    let before = std::fs::read(&settings).unwrap();
    let again = init(&["--hook", "claude"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stdout.contains("left alone  .claude/settings.json (the Claude Code hook is there)"),
        "{}",
        again.stdout
    );
    assert_eq!(std::fs::read(&settings).unwrap(), before);

    // A settings file init cannot edit stops init before it writes anything.
    let other = tempfile::tempdir().unwrap();
    std::fs::copy(root().join("fixtures/project_memory.json"), other.path().join("project_memory.json")).unwrap();
    std::fs::create_dir(other.path().join(".claude")).unwrap();
    std::fs::write(other.path().join(".claude/settings.json"), "{\"hooks\": [] }").unwrap();
    let refused = bin(other.path(), cache.path()).args(["init", "--hook", "claude"]).run();
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains(".claude/settings.json has `hooks` as a list, not an object"),
        "{}",
        refused.stderr
    );
    assert!(!other.path().join("mneme-gate.yaml").exists(), "nothing written");
    // Gemini CLI's settings are documented, not written.
    assert_eq!(bin(other.path(), cache.path()).args(["init", "--hook", "gemini"]).run().code, 2);
}

/// A line-delimited JSON-RPC exchange with `mneme-gate mcp`.
struct Mcp {
    session: Session,
}

impl Mcp {
    fn start(cache: &Path, memory: &Path) -> Mcp {
        let session = bin(&root(), cache).args(["mcp", "--memory"]).arg(memory).stderr_to(Stdio::null()).session();
        Mcp { session }
    }

    fn send(&mut self, message: Value) {
        self.session.send(&message.to_string());
    }

    fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.session.line().expect("the server closed its output");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == json!(id) {
                return v;
            }
        }
    }
}

#[test]
fn the_mcp_server_speaks_the_protocol_and_answers_as_the_commands_do() {
    let cache = tempfile::tempdir().unwrap();
    let memory = root().join("fixtures/project_memory.json");
    let mut mcp = Mcp::start(cache.path(), &memory);
    let init = mcp.call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests/agent.rs", "version": "0"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "mneme-gate");
    mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(mcp.call(2, "ping", json!({}))["result"], json!({}));
    let tools = mcp.call(3, "tools/list", json!({}));
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["memory_search", "memory_context", "memory_explain", "memory_health"]);

    let task = "Add a refund endpoint that writes the reversal to the ledger";
    let file = "services/payments/refunds.py";
    let ctx = mcp.call(4, "tools/call", json!({"name": "memory_context", "arguments": {"task": task, "file": file}}));
    assert_eq!(ctx["result"]["content"][0]["text"], context(cache.path(), task, Some(file)));
    assert_eq!(ctx["result"]["isError"], false);
    let search =
        mcp.call(5, "tools/call", json!({"name": "memory_search", "arguments": {"task": task, "file": file, "k": 5}}));
    assert_eq!(search["result"]["structuredContent"]["retrieved"].as_array().unwrap().len(), 5, "{search}");
    let bad = mcp.call(6, "tools/call", json!({"name": "memory_search", "arguments": {"file": file}}));
    assert_eq!(
        (bad["result"]["isError"].clone(), bad["result"]["content"][0]["text"].clone()),
        (json!(true), json!("missing `task` (a string)"))
    );
    let unknown = mcp.call(7, "tools/call", json!({"name": "memory_delete", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let health = mcp.call(8, "tools/call", json!({"name": "memory_health", "arguments": {}}));
    assert!(health["result"]["structuredContent"]["content_hash"].as_str().unwrap().starts_with("sha256:"));
    assert!(mcp.session.end().status.success(), "the server exits 0 when the client closes");
}

#[test]
fn the_mcp_server_reports_a_missing_memory_per_call_and_never_crashes() {
    let cache = tempfile::tempdir().unwrap();
    let missing = cache.path().join("nowhere.json");
    let mut mcp = Mcp::start(cache.path(), &missing);
    mcp.call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    );
    mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let r = mcp.call(2, "tools/call", json!({"name": "memory_context", "arguments": {"task": "x"}}));
    assert_eq!(r["result"]["isError"], true);
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("cannot read the memory file ") && text.contains("nowhere.json"), "{text}");
    // Another session of the same command line says the same.
    let cli = bin(&root(), cache.path()).args(["context", "--task", "x", "--memory"]).arg(&missing).run();
    assert_eq!(cli.stderr.trim_end(), format!("mneme-gate: error: {text}"));
    let health = mcp.call(3, "tools/call", json!({"name": "memory_health", "arguments": {}}));
    assert_eq!(health["result"]["structuredContent"]["problem"], text);
    assert!(mcp.session.end().status.success());
}
