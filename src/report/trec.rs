//! TREC run and qrels files (placeholder until the writer lands).

use super::Report;

pub fn run(_report: &Report) -> Result<String, String> {
    Err("not yet".into())
}

pub fn qrels(_report: &Report) -> Result<String, String> {
    Err("not yet".into())
}
