/*!
A persisted `decision_index` (Mneme 0.10.0's canonical decision store, schema
`mneme.decision-index/v1`), read under profile `mneme` only.

When a memory file has a top-level `decision_index`, Mneme 0.10.0 takes its
decisions from it: it validates the section (every identity and digest
recomputed), projects the active decisions, and refuses the file unless
`decisions[]` holds exactly that projection (`decisions[]` is then a
compatibility snapshot). It no longer migrates `items[]`. This module does
the validation, the projection and the comparison, with Mneme's rules and in
Mneme's order, so that profile `mneme` refuses what Mneme refuses and
retrieves from what Mneme retrieves from.

Why a whole module for a section that retrieval never reads: once it has
been verified, `decisions[]` equals the projection field by field, so the
pool is simply the decision records of `decisions[]` (the tolerant loader
reads them as usual). What this module decides is whether the file is
acceptable at all, and it words the first problem, as Mneme stops at the
first. It does no I/O beyond resolving the paths an ADR source names (as
Mneme does), and knows nothing of pools, tokens or scores.

The identities are SHA-256 digests of Python's `json.dumps(..., sort_keys=True,
separators=(",", ":"), ensure_ascii=True)`; [`canonical`] writes that form.
*/

use std::path::Path;

use super::located_json::Node;

mod canonical;
mod paths;
mod project;
mod snapshot;
mod values;

use project::project;
use snapshot::verify_snapshot;

/// The schema a `decision_index` section declares.
pub(super) const SCHEMA: &str = "mneme.decision-index/v1";

const LIFECYCLES: [&str; 4] = ["active", "superseded", "deprecated", "inactive"];
const BINDING_AUTHORITIES: [&str; 3] = ["version", "protection", "legacy_unknown"];
const SOURCE_TYPES: [&str; 3] = ["adr", "runtime", "proposal"];
const COMMON_SOURCE_KEYS: [&str; 5] =
    ["source_type", "source_locator", "source_revision", "observed_at", "verification_status"];
const PROPOSAL_SOURCE_KEYS: [&str; 7] = [
    "proposal_id",
    "producer_key",
    "content_fingerprint",
    "origin_classification",
    "proposed_at",
    "source_reference",
    "accepted_decision_id",
];

/// The first problem found, at a byte offset of the memory text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct IndexError {
    pub(super) offset: usize,
    pub(super) message: String,
    /// The decision the problem is about, when it is a record of decisions[].
    pub(super) record: Option<String>,
}

type Checked<T> = Result<T, IndexError>;

fn fail<T>(node: &Node, message: String) -> Checked<T> {
    Err(IndexError { offset: node.offset, message: format!("{message} (Mneme 0.10.0 refuses the file)"), record: None })
}

/// A typed rule as Mneme's runtime holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RuntimeRule {
    kind: String,
    value: String,
    include: Option<Vec<String>>,
    exclude: Vec<String>,
}

/// One active decision, projected from the index the way Mneme projects it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Projected {
    id: String,
    decision: String,
    rationale: String,
    scope: Vec<String>,
    constraints: Vec<String>,
    anti_patterns: Vec<String>,
    created_at: String,
    updated_at: String,
    rules: Vec<RuntimeRule>,
    /// `{"selector": ..., "sha": ...}` entries, `sha` only when not empty.
    test_evidence: Vec<Vec<(String, String)>>,
    source_path: String,
}

/// Checks the file's `decision_index` section and its `decisions[]`
/// snapshot as Mneme 0.10.0 does when it loads the file: `Ok` when Mneme
/// would read it, else the first problem. `decisions` is the top-level
/// `decisions` member, if any; `memory_path` the file (ADR sources resolve
/// against its folder).
pub(super) fn check(section: &Node, decisions: Option<&Node>, memory_path: &Path) -> Checked<()> {
    let projected = project(section, memory_path)?;
    verify_snapshot(section, decisions, &projected, memory_path)
}

#[cfg(test)]
mod tests;
