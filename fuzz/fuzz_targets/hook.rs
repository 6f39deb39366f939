//! What an agent's hook writes on standard input (`hook::parse`), for both
//! agents, then what the command does with a request: the file made
//! relative to the agent's `cwd`, and the hook's output for a block.
//!
//! Invariants checked beyond "never panics":
//!
//! - a request names a non-empty event; an edit names a non-empty file and
//!   its task is at most `MAX_EDIT_TASK_BYTES`;
//! - the file made relative to the root is never empty and uses `/`;
//! - the output for a non-empty block is one line of JSON whose
//!   `hookSpecificOutput` holds the event and the block unchanged, and
//!   there is no output for an empty block (nothing is injected);
//! - an error has a message.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mneme_gate::hook::{output, parse, relative_file, Agent, Kind, MAX_EDIT_TASK_BYTES};

fuzz_target!(|data: &[u8]| {
    for agent in [Agent::Claude, Agent::Gemini] {
        match parse(agent, data) {
            Ok(request) => {
                let block = match &request.kind {
                    Kind::Prompt { prompt } => prompt.clone(),
                    Kind::Edit { file, task } => {
                        assert!(!file.is_empty(), "an edit of no file");
                        assert!(task.len() <= MAX_EDIT_TASK_BYTES, "a task of {} bytes", task.len());
                        let root = request.cwd.clone().unwrap_or_else(|| Path::new("/repo").to_path_buf());
                        let relative = relative_file(file, &root);
                        assert!(!relative.is_empty(), "{file:?} under {root:?} became empty");
                        format!("{relative}\n{task}")
                    }
                    Kind::Ignored => String::new(),
                };
                match output(agent, &request.event, &block) {
                    None => assert!(block.is_empty(), "no output for a block"),
                    Some(out) => {
                        assert!(!block.is_empty(), "output for an empty block");
                        assert!(out.ends_with('\n') && !out[..out.len() - 1].contains('\n'), "not one line: {out:?}");
                        let doc: serde_json::Value = serde_json::from_str(&out).expect("the output is JSON");
                        let inner = &doc["hookSpecificOutput"];
                        assert_eq!(inner["hookEventName"].as_str(), Some(request.event.as_str()));
                        assert_eq!(inner["additionalContext"].as_str(), Some(block.as_str()));
                    }
                }
            }
            // The command prints the message on one line, escaped.
            Err(e) => drop(e.to_string()),
        }
    }
});
