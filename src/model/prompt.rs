//! The prompt of each arm, which scenarios the model stage answers, and how
//! a reply becomes the answer the verdict reads.
//!
//! The governed arm's system message is the context block, so the decisions
//! come before the task; the control arm has no system message at all. Both
//! arms send the same user message: the task, the file being edited when the
//! scenario names one, and, when the answer must be structured, the shape of
//! the answer (scenarios.md, Responses).

use crate::scenarios::{ParsedAssertion, ResponseFormat, Scenario};

use super::reply::Reply;
use super::Arm;

/// The name of the answer schema in `response_format`.
pub const ANSWER_SCHEMA_NAME: &str = "mneme_gate_answer";

/// What a structured answer must look like, said to the model in the user
/// message (a server without `response_format` support still gets it).
pub const STRUCTURED_INSTRUCTION: &str = "Answer with one JSON object and nothing else: \
{\"refused\": false, \"files_changed\": [\"path/of/each/file/you/change\"], \
\"dependencies_added\": [\"each package you add\"], \"text\": \"your answer: the change, with its code\"}. \
Set \"refused\" to true if you decline the task.";

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: &'static str,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Message {
        Message { role: "system", content: content.into() }
    }

    pub fn user(content: impl Into<String>) -> Message {
        Message { role: "user", content: content.into() }
    }
}

/// Whether the model stage answers this scenario: it has no recorded answer
/// on either side, and assertions to judge answers with, all of them valid
/// (an invalid one makes the scenario MALFORMED whatever the answers).
pub fn answered_by_model(scenario: &Scenario) -> bool {
    scenario.control.is_none()
        && scenario.governed.is_none()
        && !scenario.assertions.is_empty()
        && scenario.assertions.iter().all(|a| matches!(a.parsed, ParsedAssertion::Valid(_)))
}

/// Structured when an assertion reads `dependencies_added` or
/// `files_changed`, text otherwise.
pub fn answer_format(scenario: &Scenario) -> ResponseFormat {
    let structured =
        scenario.assertions.iter().any(|a| matches!(&a.parsed, ParsedAssertion::Valid(v) if v.kind.needs_structured()));
    if structured {
        ResponseFormat::Structured
    } else {
        ResponseFormat::Text
    }
}

/// The user message: the task, the file, and the answer's shape.
pub fn user_message(scenario: &Scenario, format: ResponseFormat) -> String {
    let mut text = scenario.task.trim().to_string();
    if let Some(file) = scenario.file.as_deref().filter(|f| !f.trim().is_empty()) {
        text.push_str("\n\nThe file being edited: ");
        text.push_str(file.trim());
    }
    if format == ResponseFormat::Structured {
        text.push_str("\n\n");
        text.push_str(STRUCTURED_INSTRUCTION);
    }
    text
}

/// The messages of one arm. An empty block (nothing retrieved) sends no
/// system message, so the two arms are then the same request.
pub fn messages(arm: Arm, block: &str, scenario: &Scenario, format: ResponseFormat) -> Vec<Message> {
    let mut out = Vec::with_capacity(2);
    if arm == Arm::Governed && !block.is_empty() {
        out.push(Message::system(block));
    }
    out.push(Message::user(user_message(scenario, format)));
    out
}

/// The answer the verdict reads from a reply: the message's content (or its
/// refusal: a structured answer then says `refused: true`), and for a
/// structured answer without the code fence a model may wrap JSON in.
pub fn answer_text(reply: &Reply, format: ResponseFormat) -> String {
    let content = match (&reply.content, &reply.refusal) {
        (Some(c), _) if !c.is_empty() => c.clone(),
        (_, Some(refusal)) if format == ResponseFormat::Structured => serde_json::json!({
            "refused": true, "files_changed": [], "dependencies_added": [], "text": refusal
        })
        .to_string(),
        (_, Some(refusal)) => refusal.clone(),
        (Some(c), None) => c.clone(),
        (None, None) => String::new(),
    };
    if format == ResponseFormat::Structured {
        unfence(&content).to_string()
    } else {
        content
    }
}

/// The inside of one ```` ``` ```` / ```` ```json ```` fence around the
/// whole text, or the text.
fn unfence(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(rest) = trimmed.strip_prefix("```") else { return text };
    let Some(body) = rest.strip_suffix("```") else { return text };
    match body.find('\n') {
        Some(i) if body[..i].trim().chars().all(|c| c.is_ascii_alphanumeric()) => &body[i + 1..],
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(content: Option<&str>, refusal: Option<&str>) -> Reply {
        Reply { content: content.map(Into::into), refusal: refusal.map(Into::into), ..Reply::default() }
    }

    #[test]
    fn a_fenced_structured_answer_is_unwrapped_and_a_refusal_is_an_answer() {
        let fenced = reply(Some("```json\n{\"refused\": false}\n```"), None);
        assert_eq!(answer_text(&fenced, ResponseFormat::Structured), "{\"refused\": false}\n");
        assert_eq!(answer_text(&fenced, ResponseFormat::Text), "```json\n{\"refused\": false}\n```");
        let plain = reply(Some("```\n{}\n```"), None);
        assert_eq!(answer_text(&plain, ResponseFormat::Structured), "{}\n");
        let odd = reply(Some("```not a fence"), None);
        assert_eq!(answer_text(&odd, ResponseFormat::Structured), "```not a fence");
        let refused = reply(None, Some("I can't help with that."));
        let answer = answer_text(&refused, ResponseFormat::Structured);
        let parsed: serde_json::Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(
            (parsed["refused"].as_bool(), parsed["text"].as_str()),
            (Some(true), Some("I can't help with that."))
        );
        assert_eq!(answer_text(&refused, ResponseFormat::Text), "I can't help with that.");
        assert_eq!(answer_text(&reply(None, None), ResponseFormat::Text), "");
    }
}
