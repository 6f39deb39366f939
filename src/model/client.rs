//! Calling the model: the HTTP transport behind a small trait, and the
//! client that retries.
//!
//! [`Transport`] posts bytes and returns a status, a `Retry-After` and a
//! body read up to [`MAX_REPLY_BYTES`]; [`HttpTransport`] does it with ureq
//! (blocking, rustls), and tests put a fake in its place. [`Client::call`]
//! sends one request with the API key, retries what is worth retrying
//! ([`retry`](super::retry)), and turns the rest into a [`ModelError`] that
//! names the endpoint. The key is sent in the `Authorization` header only,
//! and removed from anything the server says before it is kept or shown.

use std::time::{Duration, Instant, SystemTime};

use super::error::{detail, ModelError};
use super::reply::{error_message, parse_completion, Reply, Usage};
use super::request::{ChatRequest, Endpoint};
use super::retry::{parse_retry_after, retryable, Backoff, Sleep};

/// The largest reply body read (8 MiB): a chat completion of a few thousand
/// tokens is a few kilobytes; a server that sends more is not answering.
pub const MAX_REPLY_BYTES: u64 = 8 * 1024 * 1024;

/// What a server answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpReply {
    pub status: u16,
    /// The `Retry-After` header, as sent.
    pub retry_after: Option<String>,
    pub body: Vec<u8>,
}

/// Why no answer came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    /// No complete reply within the timeout.
    Timeout,
    /// No connection (refused, reset, no such host), or a broken exchange.
    Network(String),
    /// The body was larger than [`MAX_REPLY_BYTES`].
    TooLarge,
}

/// Posts a JSON body.
pub trait Transport: Sync {
    fn post(&self, url: &str, api_key: Option<&str>, body: &[u8]) -> Result<HttpReply, TransportError>;
}

/// ureq 3, blocking, with rustls and the WebPKI roots; proxies from the
/// usual environment variables; no redirects followed.
pub struct HttpTransport {
    agent: ureq::Agent,
}

impl HttpTransport {
    /// `timeout` bounds one attempt, from connecting to the last byte.
    pub fn new(timeout: Duration) -> HttpTransport {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .max_redirects(0)
            .user_agent(concat!("mneme-gate/", env!("CARGO_PKG_VERSION")))
            .build();
        HttpTransport { agent: ureq::Agent::new_with_config(config) }
    }
}

impl Transport for HttpTransport {
    fn post(&self, url: &str, api_key: Option<&str>, body: &[u8]) -> Result<HttpReply, TransportError> {
        let mut request =
            self.agent.post(url).header("content-type", "application/json").header("accept", "application/json");
        if let Some(key) = api_key {
            request = request.header("authorization", format!("Bearer {key}"));
        }
        let mut response = request.send(body).map_err(transport_error)?;
        let status = response.status().as_u16();
        let retry_after = response.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
        let body = response.body_mut().with_config().limit(MAX_REPLY_BYTES).read_to_vec().map_err(transport_error)?;
        Ok(HttpReply { status, retry_after, body })
    }
}

fn transport_error(e: ureq::Error) -> TransportError {
    match e {
        ureq::Error::Timeout(_) => TransportError::Timeout,
        ureq::Error::BodyExceedsLimit(_) => TransportError::TooLarge,
        ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => TransportError::Timeout,
        other => TransportError::Network(other.to_string()),
    }
}

/// One exchange: the reply, what it cost, and how long the answering
/// attempt took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    pub reply: Reply,
    pub usage: Usage,
    pub latency_ms: u64,
}

/// Sends requests to one endpoint, retrying.
pub struct Client<'a> {
    pub transport: &'a dyn Transport,
    pub endpoint: &'a Endpoint,
    /// The key itself (never shown), and the variable it came from.
    pub api_key: Option<String>,
    pub key_var: Option<String>,
    pub retries: u32,
    pub backoff: Backoff,
    pub sleep: &'a dyn Sleep,
}

/// Why the last attempt failed.
enum Failure {
    Status { status: u16, says: Option<String> },
    Network(String),
}

impl Client<'_> {
    /// Sends `request`; `on_retry` is called before each new attempt.
    pub fn call(&self, request: &ChatRequest, on_retry: &dyn Fn()) -> Result<Exchange, ModelError> {
        let endpoint = &self.endpoint.url;
        let body = request.body_bytes();
        let key = request.key();
        let attempts = self.retries.saturating_add(1);
        let mut last = Failure::Network(String::new());
        for attempt in 0..attempts {
            let started = Instant::now();
            let mut retry_after = None;
            match self.transport.post(endpoint, self.api_key.as_deref(), &body) {
                Ok(r) if (200..300).contains(&r.status) => {
                    let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                    let (mut reply, usage) = parse_completion(&r.body).map_err(|reason| {
                        ModelError::NotACompletion { endpoint: endpoint.clone(), reason: self.redact(&reason) }
                    })?;
                    let fields =
                        [&mut reply.content, &mut reply.refusal, &mut reply.model, &mut reply.system_fingerprint];
                    for text in fields.into_iter().flatten() {
                        *text = self.redact(text);
                    }
                    return Ok(Exchange { reply, usage, latency_ms });
                }
                Ok(r) if retryable(r.status) => {
                    retry_after = r.retry_after.as_deref().and_then(|v| parse_retry_after(v, SystemTime::now()));
                    last = Failure::Status { status: r.status, says: self.server_says(&r.body) };
                }
                Ok(r) => {
                    let says = self.server_says(&r.body);
                    return Err(ModelError::refused(
                        endpoint,
                        r.status,
                        says.as_deref(),
                        request.model(),
                        self.key_var.as_deref(),
                    ));
                }
                Err(TransportError::TooLarge) => {
                    return Err(ModelError::NotACompletion {
                        endpoint: endpoint.clone(),
                        reason: format!("it is larger than {} MiB", MAX_REPLY_BYTES / (1024 * 1024)),
                    })
                }
                Err(TransportError::Timeout) => last = Failure::Network("no reply within the timeout".into()),
                Err(TransportError::Network(e)) => last = Failure::Network(self.redact(&e)),
            }
            if attempt + 1 < attempts {
                on_retry();
                self.sleep.sleep(self.backoff.delay(&key, attempt, retry_after));
            }
        }
        Err(match last {
            Failure::Status { status, says } => ModelError::Unavailable {
                endpoint: endpoint.clone(),
                status,
                attempts,
                detail: detail(says.as_deref()),
            },
            Failure::Network(last) => ModelError::Unreachable {
                endpoint: endpoint.clone(),
                attempts,
                last: crate::describe::printable(&last).into_owned(),
            },
        })
    }

    /// The server's error message, or the start of its body, without the key.
    fn server_says(&self, body: &[u8]) -> Option<String> {
        let text = match error_message(body) {
            Some(message) => message,
            // JSON without a message says nothing worth quoting.
            None if serde_json::from_slice::<serde_json::Value>(body).is_ok() => return None,
            None => String::from_utf8_lossy(&body[..body.len().min(400)]).into_owned(),
        };
        Some(self.redact(&text)).filter(|s| !s.trim().is_empty())
    }

    /// `text` with every occurrence of the key replaced.
    pub fn redact(&self, text: &str) -> String {
        match self.api_key.as_deref().filter(|k| !k.is_empty()) {
            Some(key) if text.contains(key) => text.replace(key, "[redacted]"),
            _ => text.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::model::prompt::Message;
    use crate::model::request::tests::settings;

    /// Scripted replies, and what it was sent.
    struct Fake {
        replies: Mutex<Vec<Result<HttpReply, TransportError>>>,
        seen: Mutex<Vec<(String, Option<String>)>>,
    }

    impl Fake {
        fn new(replies: Vec<Result<HttpReply, TransportError>>) -> Fake {
            Fake { replies: Mutex::new(replies), seen: Mutex::new(Vec::new()) }
        }
    }

    impl Transport for Fake {
        fn post(&self, url: &str, api_key: Option<&str>, _body: &[u8]) -> Result<HttpReply, TransportError> {
            self.seen.lock().unwrap().push((url.to_string(), api_key.map(str::to_string)));
            self.replies.lock().unwrap().remove(0)
        }
    }

    struct Recorded(Mutex<Vec<Duration>>);

    impl Sleep for Recorded {
        fn sleep(&self, d: Duration) {
            self.0.lock().unwrap().push(d);
        }
    }

    fn status(status: u16, retry_after: Option<&str>, body: &str) -> Result<HttpReply, TransportError> {
        Ok(HttpReply { status, retry_after: retry_after.map(Into::into), body: body.as_bytes().to_vec() })
    }

    const OK: &str = r#"{"model":"m-1","choices":[{"message":{"content":"the key is sk-live-123"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#;

    fn call(
        replies: Vec<Result<HttpReply, TransportError>>,
        retries: u32,
    ) -> (Result<Exchange, ModelError>, Vec<Duration>, usize) {
        let fake = Fake::new(replies);
        let slept = Recorded(Mutex::new(Vec::new()));
        let endpoint = Endpoint::parse("http://127.0.0.1:9/v1").unwrap();
        let client = Client {
            transport: &fake,
            endpoint: &endpoint,
            api_key: Some("sk-live-123".into()),
            key_var: Some("OPENAI_API_KEY".into()),
            retries,
            backoff: Backoff::default(),
            sleep: &slept,
        };
        let request = ChatRequest::new(&settings(), &endpoint.path, &[Message::user("t")], false, 0);
        let retried = std::sync::atomic::AtomicUsize::new(0);
        let result = client.call(&request, &|| {
            retried.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        let seen = fake.seen.lock().unwrap();
        assert!(
            seen.iter()
                .all(|(url, key)| url == "http://127.0.0.1:9/v1/chat/completions"
                    && key.as_deref() == Some("sk-live-123"))
        );
        let slept = slept.0.into_inner().unwrap();
        assert_eq!(retried.into_inner(), slept.len());
        (result, slept, seen.len())
    }

    #[test]
    fn retries_429_and_5xx_honouring_retry_after_then_answers_without_the_key() {
        let (result, slept, sent) = call(
            vec![
                status(429, Some("2"), "{}"),
                status(503, None, ""),
                Err(TransportError::Timeout),
                status(200, None, OK),
            ],
            4,
        );
        let exchange = result.unwrap();
        assert_eq!(exchange.reply.content.as_deref(), Some("the key is [redacted]"));
        assert_eq!(exchange.usage, Usage { prompt_tokens: Some(5), completion_tokens: Some(2) });
        assert_eq!(sent, 4);
        assert_eq!(slept[0], Duration::from_secs(2), "Retry-After");
        assert!(slept[1] >= Duration::from_millis(500) && slept[1] <= Duration::from_secs(1), "{slept:?}");
        assert!(slept[2] >= Duration::from_secs(1) && slept[2] <= Duration::from_secs(2), "{slept:?}");
    }

    #[test]
    fn gives_up_after_the_retries_naming_the_endpoint() {
        let (result, slept, sent) = call(
            vec![
                status(500, None, r#"{"error":{"message":"boom sk-live-123"}}"#),
                status(500, None, r#"{"error":{"message":"boom sk-live-123"}}"#),
            ],
            1,
        );
        let e = result.unwrap_err().to_string();
        assert_eq!(
            e,
            "http://127.0.0.1:9/v1/chat/completions: HTTP 500 after 2 attempt(s) (the server says: \"boom [redacted]\"): the server is rate-limiting or failing; try again later, lower `model.concurrency` or raise `model.retries`"
        );
        assert_eq!((slept.len(), sent), (1, 2));
        let (result, _, sent) = call(vec![Err(TransportError::Network("Connection refused".into()))], 0);
        let e = result.unwrap_err().to_string();
        assert!(
            e.starts_with(
                "http://127.0.0.1:9/v1/chat/completions: unreachable after 1 attempt(s) (Connection refused)"
            ),
            "{e}"
        );
        assert_eq!(sent, 1);
    }

    #[test]
    fn refusals_and_non_completions_are_not_retried() {
        for (reply, expected) in [
            (status(401, None, r#"{"error":{"message":"Incorrect API key provided: sk-live-123"}}"#), "HTTP 401 (the server says: \"Incorrect API key provided: [redacted]\"): the server refused the API key: check that OPENAI_API_KEY holds a valid key"),
            (status(404, None, "not found"), "HTTP 404 (the server says: \"not found\"): no such endpoint or model"),
            (status(302, None, ""), "HTTP 302: the server refused the request"),
            (status(200, None, "{\"choices\": [1,"), "the reply is not an OpenAI chat completion (invalid JSON at line 1"),
            (Err(TransportError::TooLarge), "the reply is not an OpenAI chat completion (it is larger than 8 MiB)"),
        ] {
            let (result, slept, sent) = call(vec![reply], 3);
            let e = result.unwrap_err().to_string();
            assert!(e.contains(expected), "{e}");
            assert!(!e.contains("sk-live-123"), "{e}");
            assert_eq!((slept.len(), sent), (0, 1), "{e}");
        }
    }
}
