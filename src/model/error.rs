//! What can go wrong in the model stage, each in one line that names the
//! endpoint or the file and says what to do. A request without a cassette
//! in `replay`, and a broken cassette, are input errors (exit 2); anything
//! the server or the network does is an infrastructure error (exit 3).
//! Strings that came from the network are escaped where they are put in.

use std::fmt;
use std::path::PathBuf;

use crate::describe::printable;

use super::Arm;

/// A scenario and the arms it lacks a cassette for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    pub scenario: String,
    pub arms: Vec<Arm>,
    /// A cassette exists for this scenario, but not for this request: the
    /// context block, the task or the settings changed since it was made.
    pub stale: bool,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let arms: Vec<&str> = self.arms.iter().map(|a| a.as_str()).collect();
        write!(f, "{} ({}): ", printable(&self.scenario), arms.join(", "))?;
        f.write_str(if self.stale {
            "stale: its cassette was recorded for another request (a decision, the task or the model settings changed)"
        } else {
            "never recorded"
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// `replay` and some request has no cassette.
    #[error(
        "{} scenario(s) have no cassette for their request in {}; run with --responses record to record them:{}",
        missing.len(),
        folder.display(),
        Lines(missing)
    )]
    MissingCassettes { folder: PathBuf, missing: Vec<Missing> },
    /// A cassette file cannot be used.
    #[error("cassette {}: {reason}; delete it and run with --responses record", path.display())]
    Cassette { path: PathBuf, reason: String },
    /// The cassette folder is refused (it leads outside the repository).
    #[error("the cassette folder {} does not resolve inside the repository: {reason}", path.display())]
    CassetteFolder { path: PathBuf, reason: String },
    /// A cassette could not be written.
    #[error("cannot write the cassette {}: {source}", path.display())]
    WriteCassette {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The key may not be sent to this endpoint.
    #[error("{endpoint}: the API key of {var} is not sent there: {reason}")]
    UntrustedEndpoint { endpoint: String, var: String, reason: String },
    /// The key's variable is not set.
    #[error("{endpoint}: the API key variable {var} is not set (or is empty): export it, or remove `model.api_key_env` for a server that needs no key")]
    MissingKey { endpoint: String, var: String },
    /// No connection, or no reply in time, after every retry.
    #[error("{endpoint}: unreachable after {attempts} attempt(s) ({last}): check that the server is running and that `model.base_url` is right, or raise `model.timeout_s`")]
    Unreachable { endpoint: String, attempts: u32, last: String },
    /// 429 or 5xx after every retry.
    #[error("{endpoint}: HTTP {status} after {attempts} attempt(s){detail}: the server is rate-limiting or failing; try again later, lower `model.concurrency` or raise `model.retries`")]
    Unavailable { endpoint: String, status: u16, attempts: u32, detail: String },
    /// A status that retrying cannot change (401, 403, 404, 400, ...).
    #[error("{endpoint}: HTTP {status}{detail}: {advice}")]
    Refused { endpoint: String, status: u16, detail: String, advice: String },
    /// The server answered 2xx with something that is not a completion.
    #[error("{endpoint}: the reply is not an OpenAI chat completion ({reason}): check that `model.base_url` is an OpenAI-compatible /v1 endpoint")]
    NotACompletion { endpoint: String, reason: String },
}

impl ModelError {
    /// Input errors (exit 2): a missing or broken cassette. The rest are
    /// infrastructure errors (exit 3).
    pub fn is_input(&self) -> bool {
        match self {
            ModelError::MissingCassettes { .. }
            | ModelError::Cassette { .. }
            | ModelError::CassetteFolder { .. }
            | ModelError::UntrustedEndpoint { .. } => true,
            // Refused by the confinement rule (a linked cassette folder).
            ModelError::WriteCassette { source, .. } => source.kind() == std::io::ErrorKind::InvalidInput,
            _ => false,
        }
    }

    /// What a refused status means, and what to do.
    pub(crate) fn refused(
        endpoint: &str,
        status: u16,
        server_says: Option<&str>,
        model: &str,
        key_var: Option<&str>,
    ) -> ModelError {
        let advice = match status {
            401 | 403 => match key_var {
                Some(var) => format!("the server refused the API key: check that {var} holds a valid key for this server"),
                None => "the server wants an API key: set `model.api_key_env` to the variable that holds it".into(),
            },
            404 => format!(
                "no such endpoint or model: check that `model.base_url` ends in /v1 and that the server serves `{}`",
                printable(model)
            ),
            400 | 422 => "the server refused the request: if it does not support `response_format` json_schema, set `model.structured: false`".into(),
            _ => "the server refused the request; see its message".into(),
        };
        ModelError::Refused { endpoint: endpoint.to_string(), status, detail: detail(server_says), advice }
    }
}

/// ` (the server says: "...")`, cut and escaped, or nothing.
pub(crate) fn detail(server_says: Option<&str>) -> String {
    const SHOWN: usize = 200;
    match server_says.map(str::trim).filter(|s| !s.is_empty()) {
        None => String::new(),
        Some(s) => {
            let cut: String = s.chars().take(SHOWN).collect();
            let more = if s.chars().count() > SHOWN { "…" } else { "" };
            format!(" (the server says: \"{}{more}\")", printable(&cut))
        }
    }
}

/// One item per indented line.
struct Lines<'a, T>(&'a [T]);

impl<T: fmt::Display> fmt::Display for Lines<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|item| write!(f, "\n  {item}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_cassettes_are_listed_one_per_line_stale_ones_said_so() {
        let e = ModelError::MissingCassettes {
            folder: "cassettes".into(),
            missing: vec![
                Missing { scenario: "a\nb".into(), arms: vec![Arm::Governed], stale: true },
                Missing { scenario: "c".into(), arms: vec![Arm::Governed, Arm::Control], stale: false },
            ],
        };
        assert_eq!(
            e.to_string(),
            "2 scenario(s) have no cassette for their request in cassettes; run with --responses record to record them:\n  \
             a\\nb (governed): stale: its cassette was recorded for another request (a decision, the task or the model settings changed)\n  \
             c (governed, control): never recorded"
        );
        assert!(e.is_input());
    }

    #[test]
    fn a_refusal_says_what_to_do_and_quotes_the_server_escaped() {
        let e = ModelError::refused(
            "http://h/v1/chat/completions",
            401,
            Some("bad key\u{1b}[2J"),
            "m",
            Some("OPENAI_API_KEY"),
        );
        assert_eq!(
            e.to_string(),
            "http://h/v1/chat/completions: HTTP 401 (the server says: \"bad key\\u{1b}[2J\"): the server refused the API key: check that OPENAI_API_KEY holds a valid key for this server"
        );
        assert!(!e.is_input());
        let e = ModelError::refused("u", 404, None, "gpt-x", None);
        assert!(
            e.to_string().ends_with("check that `model.base_url` ends in /v1 and that the server serves `gpt-x`"),
            "{e}"
        );
        assert!(detail(Some(&"x".repeat(300))).ends_with("…\")"));
    }
}
