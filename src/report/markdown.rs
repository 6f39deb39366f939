//! placeholder

use super::Report;

pub fn render(_report: &Report) -> String {
    String::new()
}
