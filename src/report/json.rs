//! The JSON report (`--json`): the [`Report`] itself, pretty-printed, and its
//! published JSON Schema.

use super::Report;

/// The report as pretty JSON with a final newline.
pub fn render(report: &Report) -> String {
    super::figures::to_json_pretty(report).expect("a report always serialises")
}

/// Reads a report written by [`render`] (a baseline, or `mneme-gate diff`).
pub fn parse(text: &str) -> Result<Report, serde_json::Error> {
    serde_json::from_str(text)
}

/// The JSON Schema of [`Report`], as committed in `schema/report.schema.json`
/// (only with the `schema` feature, which the development tool turns on).
#[cfg(feature = "schema")]
pub fn schema() -> String {
    let schema = schemars::schema_for!(Report);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema always serialises");
    text.push('\n');
    text
}

/// Any document of the command line (`context --format json`, `explain --format json`,
/// `validate --format json`, `diff --json`) as pretty JSON with a final newline.
pub fn pretty<T: serde::Serialize + ?Sized>(doc: &T) -> String {
    super::figures::to_json_pretty(doc).expect("the command line's documents always serialise")
}
