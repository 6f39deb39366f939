/*!
The model stage: for a scenario that has assertions but no recorded answers,
ask a model, twice: the *governed* arm (the context block of the retrieved
decisions as the system message, before the task) and the *control* arm
(the task alone). The answers go to the `verdict` stage as
[`ResponseRef::Answer`](crate::scenarios::ResponseRef::Answer)s, judged like
recorded ones.

Why a stage of its own: the gate measures what the decisions change in a
model's behaviour, and CI must stay deterministic and offline. So every
exchange is a *cassette* ([`cassette`]): one file per request, named by the
SHA-256 of the canonical request ([`request`]), holding the reply, the usage,
the model's `system_fingerprint` and the latency. `replay` (the default)
reads cassettes only and never opens a socket; `record` calls the model for
the requests that have none and writes them; `live` calls for every request
and writes nothing. A decision edit changes the context block, so the
governed request, so its key: [`stage::resolve`] names the scenarios whose
cassettes are stale.

The code: [`prompt`] builds the two arms' messages and says which scenarios
come here; [`request`] is the canonical request and its key; [`cassette`]
reads (bounded, inside the cassette folder) and writes (atomically) the
files; [`reply`] reads a chat completion; [`client`] is the HTTP transport
behind a trait (ureq with rustls, or a fake in tests) with its retries
([`retry`]); [`stage`] plans the requests of a suite and resolves them on a
bounded number of threads; [`error`] says what went wrong, and what to do.

What it deliberately does not do: judge an answer (the `verdict` stage
does), print (progress is reported through [`stage::Progress`]), or read
the configuration file (the settings arrive resolved).
*/

use std::path::PathBuf;
use std::time::Duration;

pub mod cassette;
pub mod client;
pub mod error;
pub mod prompt;
pub mod reply;
pub mod request;
pub mod retry;
pub mod stage;

pub use error::ModelError;

/// Where answers come from (`--responses`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Cassettes only; no network. A request without one is an error.
    #[default]
    Replay,
    /// Cassettes where they exist; the model for the rest, recorded.
    Record,
    /// The model for every request; nothing written.
    Live,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Replay => "replay",
            Mode::Record => "record",
            Mode::Live => "live",
        }
    }
}

/// The two arms of a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Arm {
    /// The context block first (system message), then the task.
    Governed,
    /// The task alone.
    Control,
}

impl Arm {
    pub const BOTH: [Arm; 2] = [Arm::Governed, Arm::Control];

    pub fn as_str(self) -> &'static str {
        match self {
            Arm::Governed => "governed",
            Arm::Control => "control",
        }
    }

    pub fn parse(s: &str) -> Option<Arm> {
        Arm::BOTH.into_iter().find(|a| a.as_str() == s)
    }
}

/// Prices per million tokens, for the estimated cost of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prices {
    pub input_per_million: f64,
    pub output_per_million: f64,
}

/// The model stage's settings, resolved from `model:` of `mneme-gate.yaml`
/// and the flags.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Where requests go (`base_url` + `/chat/completions`).
    pub endpoint: request::Endpoint,
    pub model: String,
    /// The environment variable holding the API key; `None`: no key sent.
    pub api_key_env: Option<String>,
    pub temperature: f64,
    pub seed: Option<i64>,
    pub max_tokens: u64,
    /// For one attempt, connection to the last byte.
    pub timeout: Duration,
    /// Requests in flight at most.
    pub concurrency: usize,
    /// Attempts after the first, on 429, 5xx, timeouts and connection errors.
    pub retries: u32,
    /// Ask for the structured schema (`response_format: json_schema`) when a
    /// scenario's answer must be structured.
    pub structured: bool,
    /// The cassette folder.
    pub cassettes: PathBuf,
    pub prices: Option<Prices>,
    pub mode: Mode,
    /// Each arm is asked this many times (`--repeat`).
    pub repeat: usize,
    /// Why the key of `api_key_env` may not be sent to `endpoint` (the
    /// endpoint came from the repository's configuration alone and no
    /// allowlist names it, or it is plain http to another machine), in a
    /// sentence saying what to do; `None`: it may.
    pub key_refused: Option<String>,
}

impl Settings {
    /// Defaults of the keys `model:` may leave out.
    pub const MAX_TOKENS: u64 = 1024;
    pub const TIMEOUT_S: u64 = 60;
    pub const CONCURRENCY: usize = 4;
    pub const RETRIES: u32 = 4;
    pub const CASSETTES: &'static str = "cassettes";
    /// The largest `--repeat`.
    pub const MAX_REPEAT: usize = 100;
    /// The largest `concurrency`.
    pub const MAX_CONCURRENCY: usize = 256;
    /// The most `retries`.
    pub const MAX_RETRIES: u32 = 20;
}

#[cfg(test)]
mod tests;
