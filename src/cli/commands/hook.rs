//! `mneme-gate hook AGENT`: an agent's command hook. It reads the hook's JSON
//! on standard input (`crate::hook`), retrieves for the prompt or the edit
//! exactly as `context` does (same retriever, same profile, same cache,
//! same block), and prints the agent's hook output with the block, or
//! nothing when nothing is retrieved.
//!
//! It fails open: an agent must never be blocked by its governance. Any
//! failure (input that is not a hook's JSON, a missing or broken memory
//! file or configuration, even a bug) prints one line on standard error,
//! nothing on standard output, and exits 0. (Claude Code reads exit 2 as
//! "block this tool call", so the hook never exits with the usual code of
//! an input error; flags it cannot parse are caught in `cli::run`.)

use std::io::Read;
use std::path::PathBuf;

use crate::cli::output;
use crate::cli::settings::{hook_memory, index_dir, sessions_dir, HookSettings};
use crate::context::Entry;
use crate::error::{exit, Error};
use crate::hook::{self, Kind};
use crate::retrieval::Query;

pub(crate) fn execute(s: HookSettings) -> Result<i32, Error> {
    // A panic is a bug; even so, one line and exit 0.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| answer(&s)));
    std::panic::set_hook(previous);
    let failure = match outcome {
        Ok(Ok(())) => return Ok(exit::OK),
        Ok(Err(e)) => e.to_string(),
        Err(panic) => {
            let what =
                panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned());
            format!("internal error: {}", what.unwrap_or_default())
        }
    };
    output::note(&format!("hook: no context added: {}", one_line(&failure)));
    Ok(exit::OK)
}

/// A message of several lines as one.
fn one_line(message: &str) -> String {
    message.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

fn answer(s: &HookSettings) -> Result<(), Error> {
    let request = hook::parse(s.agent, &read_input()?).map_err(|e| Error::Usage(e.to_string()))?;
    if request.kind == Kind::Ignored {
        return Ok(());
    }
    // The agent's working folder is the repository: the configuration, the
    // memory file and the edited file's path are all relative to it.
    if let Some(cwd) = &request.cwd {
        std::env::set_current_dir(cwd).map_err(|source| Error::Read { path: cwd.clone(), source })?;
    }
    let memory = hook_memory(s)?;
    let sessions = s.cache.as_deref().map(sessions_dir);
    let (task, file) = match request.kind {
        Kind::Prompt { prompt } => {
            if let (Some(dir), Some(session)) = (&sessions, &request.session) {
                // Only the next edits' task: not remembering it costs nothing else.
                let _ = hook::remember(dir, s.agent, session, &prompt);
            }
            (prompt, None)
        }
        Kind::Edit { file, task } => {
            let remembered = sessions.zip(request.session.as_deref()).and_then(|(d, id)| hook::recall(&d, s.agent, id));
            let root = request.cwd.clone().or_else(|| std::env::current_dir().ok()).unwrap_or_else(PathBuf::new);
            (remembered.unwrap_or(task), Some(hook::relative_file(&file, &root)))
        }
        Kind::Ignored => return Ok(()),
    };
    let query = Query { task: &task, file: file.as_deref() };
    let cache = s.cache.as_deref().map(index_dir);
    let answer = crate::cache::answer_sources(&memory.sources, &memory.profile, query, cache.as_deref())?;
    let block = crate::context::render_entries(answer.shown.iter().map(Entry::from));
    answer.leak();
    if let Some(out) = hook::output(s.agent, &request.event, &block) {
        output::json(&out)?;
    }
    Ok(())
}

/// The hook's input, at most [`hook::MAX_INPUT_BYTES`].
fn read_input() -> Result<Vec<u8>, Error> {
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .take(hook::MAX_INPUT_BYTES + 1)
        .read_to_end(&mut input)
        .map_err(|source| Error::Read { path: "<stdin>".into(), source })?;
    if input.len() as u64 > hook::MAX_INPUT_BYTES {
        return Err(Error::Usage(format!(
            "the hook input is larger than {}, the most the hook reads",
            crate::memory::size_in_words(hook::MAX_INPUT_BYTES)
        )));
    }
    Ok(input)
}
