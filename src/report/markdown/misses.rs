//! A missing expected decision of a scenario, in one line of the summary.

use super::escape::{code, inline};
use crate::report::why_not::sentence;
use crate::retrieval::Miss;

/// [`sentence`] with Markdown's escapes.
pub(super) fn why_not(m: &Miss) -> String {
    sentence(m, &|s| code(s), &|s| inline(s))
}
