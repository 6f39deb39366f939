/*!
Reading suite files: their text, which must be UTF-8 (a bad byte is
reported at its line and column), and native YAML, read into a located
[`Node`] tree within [`YamlLimits`] sized to the file.

serde-saphyr guards against hostile YAML with a fixed budget (250,000 nodes,
64 MiB of text, ...), which refused an honest suite of about 20,000
scenarios in one file and blamed the file. Here nothing a file writes out is
limited: its nodes and text are bounded by its size already. What is limited
is what aliases (`*name`) add by repeating an anchor (`&name`), which is how
a small file becomes billions of nodes ("billion laughs"):

- nodes: aliases may add at most [`YamlLimits::alias_factor`] times the
  nodes the file writes itself, or [`YamlLimits::min_alias_nodes`] if that
  is more;
- text: the values of a file of `B` bytes may hold at most
  `B + max(alias_factor × B, min_alias_bytes)` bytes, aliases included;
- nesting: at most [`YamlLimits::max_depth`] levels of lists and mappings.

The first limit needs the number of nodes the file writes. A first read
allows aliases only `min_alias_nodes` replayed events, which is all an
honest file needs almost always, so a suite is read once. Only when aliases
go past that is the file counted: a streaming pass of the parser that
expands no alias, yet measures what each would replay (the size of an
anchored value is known when it ends). A bomb is refused from that count,
however far it would expand, with its first alias named; any other file is
read again with its allowance.

Every error of the reader is reworded here into what happened and what to
do, at its `line:column`: serde-saphyr's own messages name its API and its
counters (`budget breached: Nodes { nodes: 250001 }`, `use
from_str_multiple`, `set DuplicateKeyPolicy in Options`), which mean nothing
to a user.

Every file is read through `root`: inside the canonical suite root, a
regular file, within [`SuiteLimits`] ([`SuiteRoot`] carries them while a
root loads, and checks responses without opening them).

It validates nothing: what a suite may hold is `native`'s business.
*/

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_saphyr::budget::BudgetBreach;
use serde_saphyr::granit_parser::{Event, Options as ParserOptions, Parser};
use serde_saphyr::{Budget, Error as YamlError, Location, Options, Spanned};

use super::assertions::Patterns;
use super::error::SuiteError;
use super::node::Node;
use super::root::{check_inside, read_inside, read_regular, Cap, Folder, Folders, Probe, Refusal};
use super::scenario::{ReadDigest, ResponseFolder, ResponseFormat, ResponseRef};
use super::text::one_line;
use crate::profile::Family;

/// Limits on what a suite may make the loader read: the size of each file
/// (suite files, Mneme files, responses) and what YAML aliases may add.
/// The defaults suit every honest suite; `mneme-gate.yaml` may raise them.
///
/// ```
/// use mneme_gate::scenarios::{Suite, SuiteLimits};
///
/// // Responses of up to 4 MiB.
/// let limits = SuiteLimits { max_response_bytes: 4 << 20, ..SuiteLimits::default() };
/// # let dir = tempfile::tempdir().unwrap();
/// # std::fs::write(dir.path().join("s.yaml"), "scenarios:\n  - id: a\n    task: t\n").unwrap();
/// # let roots = [dir.path()];
/// let suite = Suite::load_with(&roots, &limits);
/// # assert!(suite.is_ok());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteLimits {
    /// What YAML aliases may add, and nesting.
    pub yaml: YamlLimits,
    /// The largest suite file (`*.yaml`, `*.yml`), Mneme `scenario.json`
    /// or `query.txt`, in bytes. Default 64 MiB (a suite of 100,000
    /// scenarios in one file is about 25 MB).
    pub max_suite_file_bytes: u64,
    /// The largest response file, in bytes; a larger one makes its scenario
    /// MALFORMED. Default 1 MiB.
    pub max_response_bytes: u64,
}

impl SuiteLimits {
    /// Default [`SuiteLimits::max_suite_file_bytes`]: 64 MiB.
    pub const MAX_SUITE_FILE_BYTES: u64 = 64 << 20;
    /// Default [`SuiteLimits::max_response_bytes`]: 1 MiB.
    pub const MAX_RESPONSE_BYTES: u64 = 1 << 20;
}

impl Default for SuiteLimits {
    fn default() -> Self {
        SuiteLimits {
            yaml: YamlLimits::default(),
            max_suite_file_bytes: SuiteLimits::MAX_SUITE_FILE_BYTES,
            max_response_bytes: SuiteLimits::MAX_RESPONSE_BYTES,
        }
    }
}

impl From<YamlLimits> for SuiteLimits {
    /// These YAML limits, and the default sizes.
    fn from(yaml: YamlLimits) -> Self {
        SuiteLimits { yaml, ..SuiteLimits::default() }
    }
}

/// What the threads reading one suite root share, so that each is worked
/// out once: the folders of its responses, and the regexes of its
/// assertions.
#[derive(Debug, Default)]
pub(super) struct Shared {
    pub folders: Folders,
    pub patterns: Patterns,
}

/// One suite root while it loads: where its files may be read from, and
/// within which limits.
#[derive(Debug, Clone, Copy)]
pub(super) struct SuiteRoot<'a> {
    /// The root as given (the folder holding a file root): scenarios name
    /// it, and response paths are joined to it.
    pub path: &'a Path,
    /// Its canonical form: every file read must resolve inside it.
    pub canonical: &'a Path,
    pub limits: &'a SuiteLimits,
    /// What the threads reading the root work out once and share.
    pub shared: &'a Shared,
    /// The profile the suite is run with: profile `mneme` reads Mneme's
    /// benchmark folders exactly as Mneme 0.10.0 does (`mneme`).
    pub family: Family,
}

impl SuiteRoot<'_> {
    /// The text of a suite file, `scenario.json` or `query.txt` (UTF-8),
    /// read inside the root within `max_suite_file_bytes`. A file the user
    /// gave as the root itself (`named`) may be a symlink anywhere, as a
    /// root folder may; it must still be a regular file within the cap.
    pub(super) fn read_text(&self, path: &Path, named: bool) -> Result<String, Unreadable> {
        let cap = self.limits.max_suite_file_bytes;
        let bytes = if named { read_regular(path, cap) } else { read_inside(self.canonical, path, cap) };
        utf8(bytes.map_err(Unreadable::from)?)
    }

    /// [`SuiteRoot::read_text`] of the file `name` in the folder `dir`
    /// (not named by the user), read through `folder`, `dir` resolved once,
    /// when it can vouch for the file; by its path otherwise.
    pub(super) fn read_text_in(&self, folder: Option<&Folder>, dir: &Path, name: &str) -> Result<String, Unreadable> {
        match folder.and_then(|f| f.read(name, self.limits.max_suite_file_bytes)) {
            Some(bytes) => utf8(bytes),
            None => self.read_text(&dir.join(name), false),
        }
    }

    /// The response at `path`, already known to be a regular file inside
    /// the root within `max_response_bytes` ([`Folder::probe`] found it
    /// usable), or absent; `folder`, its folder resolved, when the caller
    /// has it: the verdict reads the file through it.
    pub(super) fn usable_response(
        &self,
        declared: String,
        path: PathBuf,
        format: ResponseFormat,
        folder: Option<Arc<Folder>>,
    ) -> ResponseRef {
        ResponseRef::Resolved {
            declared,
            path,
            format,
            canonical_root: self.canonical.to_path_buf(),
            max_bytes: self.limits.max_response_bytes,
            digest: ReadDigest::default(),
            folder: folder.map(ResponseFolder::of).unwrap_or_default(),
        }
    }

    /// The response at `path` (declared as `declared`), checked without
    /// being opened: a symlink that leads outside the root, a file that is
    /// not regular or larger than `max_response_bytes` is unusable (its
    /// scenario is MALFORMED, and nothing later reads it). A file that does
    /// not exist, or cannot be resolved, is found out when it is read.
    pub(super) fn response(&self, declared: String, path: PathBuf, format: ResponseFormat) -> ResponseRef {
        let max_bytes = self.limits.max_response_bytes;
        // Through its folder, resolved once for every response it holds: a
        // regular file within the cap, or nothing, at the name is found with
        // one `lstat`, and the verdict opens it through the folder. Anything
        // else is checked by its path, which words the refusal.
        if let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) {
            if let Some(folder) = self.shared.folders.get(self.canonical, dir) {
                if let Probe::Usable | Probe::Absent = folder.probe(name, max_bytes) {
                    return self.usable_response(declared, path, format, Some(folder));
                }
            }
        }
        match check_inside(self.canonical, &path, max_bytes) {
            Ok(_) | Err(Refusal::Io(_)) => self.usable_response(declared, path, format, None),
            Err(refusal) => {
                ResponseRef::Unusable { reason: refusal.reason(&format!("`{declared}`"), Cap::Response), declared }
            }
        }
    }
}

/// Limits on what a YAML suite file may expand to when it is read, for
/// unusual files; the defaults suit every honest suite. Nothing here limits
/// the size of a file or the number of scenarios in it: only what aliases
/// (`*name`) add by repeating an anchor (`&name`), and nesting.
///
/// ```
/// use mneme_gate::scenarios::{Suite, SuiteLimits, YamlLimits};
///
/// // A suite that uses anchors heavily, in a few small files.
/// let limits = YamlLimits { alias_factor: 16, min_alias_nodes: 100_000, ..YamlLimits::default() };
/// # let dir = tempfile::tempdir().unwrap();
/// # std::fs::write(dir.path().join("s.yaml"), "scenarios:\n  - id: a\n    task: t\n").unwrap();
/// # let roots = [dir.path()];
/// let suite = Suite::load_with(&roots, &SuiteLimits::from(limits));
/// # assert!(suite.is_ok());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlLimits {
    /// Nodes (mappings, lists, values) that aliases may add to a file, as a
    /// multiple of the nodes the file writes out itself; also the bytes of
    /// text they may add, as a multiple of the file's size. Default 4.
    pub alias_factor: usize,
    /// Nodes that aliases may add to any file, however small (a floor under
    /// `alias_factor`). Default 10,000.
    pub min_alias_nodes: usize,
    /// Bytes of text that aliases may add to any file, however small.
    /// Default 16 MiB.
    pub min_alias_bytes: usize,
    /// Deepest nesting of lists and mappings (a suite needs about six).
    /// Default 64. Reading is recursive: far higher values can exhaust the
    /// stack of a thread.
    pub max_depth: usize,
}

impl Default for YamlLimits {
    fn default() -> Self {
        YamlLimits { alias_factor: 4, min_alias_nodes: 10_000, min_alias_bytes: 16 << 20, max_depth: 64 }
    }
}

impl YamlLimits {
    /// The nodes aliases may add to a file that writes `written` nodes.
    pub fn alias_nodes(&self, written: usize) -> usize {
        self.alias_factor.saturating_mul(written).max(self.min_alias_nodes)
    }

    /// The bytes of text, aliases included, that the values of a file of
    /// `size` bytes may hold.
    pub fn text_bytes(&self, size: usize) -> usize {
        size.saturating_add(self.alias_factor.saturating_mul(size).max(self.min_alias_bytes))
    }
}

#[cfg(test)]
impl SuiteRoot<'static> {
    /// A root for tests that parse text: `path` as given, a canonical root
    /// that does not exist (a response is never found there, so it stays
    /// resolved), the default limits.
    pub(super) fn for_tests(path: &'static str) -> Self {
        SuiteRoot {
            path: Path::new(path),
            canonical: Path::new("/nonexistent-suite-root"),
            limits: Box::leak(Box::default()),
            shared: Box::leak(Box::default()),
            family: Family::Default,
        }
    }
}

/// Why a file's text could not be had.
#[derive(Debug)]
pub(super) enum Unreadable {
    Io(io::Error),
    /// Outside the suite root, not a regular file, or too large.
    Refused(Refusal),
    /// Not UTF-8: the first bad byte, at a 1-based line and column
    /// (counted in characters, as YAML positions are).
    NotUtf8 {
        line: usize,
        column: usize,
        byte: u8,
    },
}

impl Unreadable {
    /// The error for `path`; `what` names the file in an I/O message
    /// ("the suite file", "scenario.json").
    pub(super) fn into_error(self, path: &Path, what: &str) -> SuiteError {
        match self {
            Unreadable::Io(e) => {
                SuiteError::Io { path: path.to_path_buf(), message: format!("cannot read {what}: {e}") }
            }
            Unreadable::Refused(refusal) => {
                SuiteError::Refused { path: path.to_path_buf(), message: refusal.reason(what, Cap::SuiteFile) }
            }
            Unreadable::NotUtf8 { line, column, byte } => {
                SuiteError::NotUtf8 { path: path.to_path_buf(), line, column, byte }
            }
        }
    }
}

impl From<Refusal> for Unreadable {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Io(e) => Unreadable::Io(e),
            other => Unreadable::Refused(other),
        }
    }
}

/// The bytes of a file as text, which must be UTF-8.
pub(super) fn utf8(bytes: Vec<u8>) -> Result<String, Unreadable> {
    crate::confine::utf8_text(bytes).map_err(|crate::confine::NotUtf8 { line, column, byte }| Unreadable::NotUtf8 {
        line,
        column,
        byte,
    })
}

/// Reads a YAML document into a located tree within `limits`. `path` is
/// only used in the error.
pub(super) fn read_yaml(text: &str, path: &Path, limits: &YamlLimits) -> Result<Spanned<Node>, SuiteError> {
    let mut census = None;
    let mut error =
        match serde_saphyr::from_str_with_options(text, options(text.len(), limits, Allowance::first(limits))) {
            Ok(doc) => return Ok(doc),
            Err(e) => e,
        };
    if matches!(alias_limit(&error), Some(AliasLimit::Nodes | AliasLimit::Recorded)) {
        // Past the first allowance: count what the file writes and what its
        // aliases replay. A bomb is reported from the count; other files
        // are read again with an allowance in proportion.
        let c = Census::of(text, limits);
        if !c.beyond(limits) {
            let allowance = Allowance::counted(limits, c.nodes);
            match serde_saphyr::from_str_with_options(text, options(text.len(), limits, allowance)) {
                Ok(doc) => return Ok(doc),
                Err(e) => error = e,
            }
        }
        census = Some(c);
    }
    Err(translate(&error, text, path, limits, census))
}

/// A piece of a suite file (see `split`), read as the file would be but one
/// level shallower (the piece is the file's list, without the mapping that
/// holds it); `None` on any error, which reading the whole file reports.
pub(super) fn read_yaml_piece(text: &str, limits: &YamlLimits) -> Option<Spanned<Node>> {
    let piece = YamlLimits { max_depth: limits.max_depth.checked_sub(1)?, ..limits.clone() };
    serde_saphyr::from_str_with_options(text, options(text.len(), &piece, Allowance::first(&piece))).ok()
}

/// What aliases may replay in one read: the nodes of the whole file,
/// aliases included, and the events aliases replay.
#[derive(Debug, Clone, Copy)]
struct Allowance {
    max_nodes: usize,
    replayed_events: usize,
}

impl Allowance {
    /// Before the file is counted: aliases may replay `min_alias_nodes`
    /// events (so at most as many nodes), and nodes are not counted.
    fn first(limits: &YamlLimits) -> Allowance {
        Allowance { max_nodes: usize::MAX, replayed_events: limits.min_alias_nodes }
    }

    /// Once the file is counted, `written` nodes: the nodes decide (a node
    /// is one or two events, a start and an end; the event count is only a
    /// backstop).
    fn counted(limits: &YamlLimits, written: usize) -> Allowance {
        let added = limits.alias_nodes(written);
        Allowance {
            max_nodes: written.saturating_add(added),
            replayed_events: added.saturating_mul(2).saturating_add(2),
        }
    }

    /// Event copies that anchors may keep: every event of the file, twice
    /// (an anchor on the whole suite copies each once), and twice what
    /// aliases replay into anchors. Anchors nested in anchors copy an event
    /// once per level.
    fn recorded_events(self, size: usize) -> usize {
        size.saturating_mul(2).saturating_add(self.replayed_events.saturating_mul(2))
    }
}

/// serde-saphyr's options for a file of `size` bytes.
fn options(size: usize, limits: &YamlLimits, allowance: Allowance) -> Options {
    let text = limits.text_bytes(size);
    let mut budget = Budget::default();
    // What a file writes is bounded by its size: only what aliases replay,
    // what anchors copy, text and nesting are limited.
    budget.max_events = usize::MAX;
    budget.max_nodes = allowance.max_nodes;
    budget.max_aliases = usize::MAX;
    budget.max_anchors = usize::MAX;
    budget.max_merge_keys = usize::MAX;
    budget.enforce_alias_anchor_ratio = false;
    budget.max_total_scalar_bytes = text;
    budget.max_recorded_anchor_bytes = text;
    budget.max_recorded_anchor_events = allowance.recorded_events(size);
    budget.max_depth = limits.max_depth;
    let mut options = Options::default();
    options.budget = Some(budget);
    options.alias_limits.max_total_replayed_events = allowance.replayed_events;
    options.alias_limits.max_alias_expansions_per_anchor = usize::MAX;
    options.with_snippet = false;
    options
}

/// What a streaming pass of the parser finds in a file, aliases not
/// expanded: the nodes it writes, the nodes its aliases would replay, and
/// its first alias.
///
/// The replayed nodes are counted without replaying anything: an anchored
/// value's size, aliases inside it included, is known when it ends, and an
/// alias adds the size of the value it names. So a bomb is measured in one
/// pass over its text, however far it would expand.
#[derive(Debug, Default)]
struct Census {
    /// Nodes the file writes out.
    nodes: usize,
    /// Nodes its aliases replay (saturating).
    replayed: usize,
    /// Whether the whole file was counted (no syntax error ended the count).
    complete: bool,
    /// `*name`, line, column (1-based).
    first_alias: Option<(String, usize, usize)>,
}

impl Census {
    fn of(text: &str, limits: &YamlLimits) -> Census {
        // The parser as serde-saphyr sets it up for these limits.
        let mut options = ParserOptions::default();
        options.block_nesting_limit = options.block_nesting_limit.max(limits.max_depth.saturating_add(1));
        options.emit_comments = false;
        let mut census = Census::default();
        // Nodes so far, aliases expanded; the size of each anchored value
        // (by anchor id), once it has ended; and for each open collection,
        // its anchor id and the expanded count when it started.
        let mut expanded = 0usize;
        let mut sizes: Vec<Option<usize>> = Vec::new();
        let mut open: Vec<(usize, usize)> = Vec::new();
        let set_size = |sizes: &mut Vec<Option<usize>>, id: usize, size: usize| {
            if id != 0 {
                if sizes.len() <= id {
                    sizes.resize(id + 1, None);
                }
                sizes[id] = Some(size);
            }
        };
        // A syntax error ends the count; the second read reports it.
        for item in Parser::new_from_str_with_options(text, options) {
            let Ok((event, span)) = item else {
                return census;
            };
            match event {
                Event::Scalar(_, _, anchor, _) => {
                    census.nodes += 1;
                    expanded = expanded.saturating_add(1);
                    set_size(&mut sizes, anchor, 1);
                }
                Event::SequenceStart(_, anchor, _) | Event::MappingStart(_, anchor, _) => {
                    census.nodes += 1;
                    open.push((anchor, expanded));
                    expanded = expanded.saturating_add(1);
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    if let Some((anchor, start)) = open.pop() {
                        set_size(&mut sizes, anchor, expanded - start);
                    }
                }
                Event::Alias(id) => {
                    // An alias inside its own anchor replays a placeholder
                    // (and is an error of its own).
                    let size = sizes.get(id).copied().flatten().unwrap_or(1);
                    census.replayed = census.replayed.saturating_add(size);
                    expanded = expanded.saturating_add(size);
                    if census.first_alias.is_none() {
                        let (line, column) = (span.start.line(), span.start.col() + 1);
                        let token = match (span.start.byte_offset(), span.end.byte_offset()) {
                            (Some(a), Some(b)) if a < b => text.get(a..b).map(str::to_string),
                            _ => None,
                        };
                        let token = token.unwrap_or_else(|| token_at(text, line, column));
                        census.first_alias = Some((token, line, column));
                    }
                }
                Event::StreamEnd => census.complete = true,
                _ => {}
            }
        }
        census
    }

    /// Whether the file's aliases replay more than `limits` allow it.
    fn beyond(&self, limits: &YamlLimits) -> bool {
        self.replayed > limits.alias_nodes(self.nodes)
    }
}

/// Which limit on aliases and anchors an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AliasLimit {
    /// Aliases replayed too many nodes (or events).
    Nodes,
    /// Aliases replayed too much text.
    Text,
    /// Anchors copied too many events (anchors nested in anchors).
    Recorded,
    /// Aliases nested in replayed aliases too deep.
    Nesting,
}

/// The error inside serde-saphyr's wrapper that adds an alias's place.
fn inner(e: &YamlError) -> &YamlError {
    match e.without_snippet() {
        YamlError::AliasError { error, .. } => inner(error),
        other => other,
    }
}

fn alias_limit(e: &YamlError) -> Option<AliasLimit> {
    let replaying = matches!(e.without_snippet(), YamlError::AliasError { .. });
    match inner(e) {
        YamlError::AliasReplayLimitExceeded { .. }
        | YamlError::AliasExpansionLimitExceeded { .. }
        | YamlError::AliasReplayCounterOverflow { .. } => Some(AliasLimit::Nodes),
        YamlError::AliasReplayStackDepthExceeded { .. } => Some(AliasLimit::Nesting),
        YamlError::Budget { breach, .. } => match breach {
            // Nodes are limited only while aliases replay.
            BudgetBreach::Nodes { .. } => Some(AliasLimit::Nodes),
            BudgetBreach::ScalarBytes { .. } if replaying => Some(AliasLimit::Text),
            BudgetBreach::RecordedAnchorEvents { .. } | BudgetBreach::RecordedAnchorBytes { .. } => {
                Some(AliasLimit::Recorded)
            }
            _ => None,
        },
        _ => None,
    }
}

/// 1-based line and column of a location, if known.
fn place(l: Location) -> Option<(usize, usize)> {
    (l.line() > 0).then(|| (l.line() as usize, (l.column() as usize).max(1)))
}

/// The token of the text at a 1-based line and column (in characters):
/// from there to the next space or flow indicator.
fn token_at(text: &str, line: usize, column: usize) -> String {
    let Some(row) = text.split('\n').nth(line.saturating_sub(1)) else {
        return String::new();
    };
    row.chars()
        .skip(column.saturating_sub(1))
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | '[' | ']' | '{' | '}'))
        .collect()
}

/// `*name` at a place, or `None` when the text there is not an alias.
fn alias_at(text: &str, at: (usize, usize)) -> Option<String> {
    let token = token_at(text, at.0, at.1);
    (token.len() > 1 && token.starts_with('*')).then_some(token)
}

/// What to do about an alias limit, ending every such message.
const RAISE_ALIAS_LIMITS: &str = "write the repeated content out, or raise `limits.yaml.alias_factor` / \
                                  `min_alias_nodes` in mneme-gate.yaml if this expansion is intended \
                                  (docs/scenarios.md, Limits)";

/// The error a user reads for what serde-saphyr returned: what happened
/// and what to do, at its place.
fn translate(error: &YamlError, text: &str, path: &Path, limits: &YamlLimits, census: Option<Census>) -> SuiteError {
    let at = error.location().and_then(place).unwrap_or((1, 1));
    let limit = |(line, column): (usize, usize), message: String| SuiteError::Limit {
        path: path.to_path_buf(),
        line,
        column,
        message,
    };
    let syntax = |(line, column): (usize, usize), message: String| SuiteError::Syntax {
        path: path.to_path_buf(),
        line,
        column,
        message,
    };
    // A file whose count shows a bomb is reported as one, whatever limit
    // the first read met first.
    let kind = match &census {
        Some(c) if c.beyond(limits) => Some(AliasLimit::Nodes),
        _ => alias_limit(error),
    };
    if let Some(kind) = kind {
        let census = census.unwrap_or_else(|| Census::of(text, limits));
        // Named at the file's first alias, where the repetition starts.
        let (first, alias_place) = match &census.first_alias {
            Some((token, line, column)) => (token.clone(), (*line, *column)),
            None => (alias_at(text, at).unwrap_or_else(|| "*".to_string()), at),
        };
        return match kind {
            AliasLimit::Nodes => {
                let total = census.nodes.saturating_add(census.replayed);
                let written_out = if census.complete && census.beyond(limits) && total < usize::MAX {
                    format!("written out, it would hold {total} nodes; ")
                } else {
                    String::new()
                };
                limit(
                    alias_place,
                    format!(
                        "aliases expand this file beyond {} nodes; YAML anchors cannot be used to multiply content \
                         ({written_out}`{first}` here is the file's first alias): {RAISE_ALIAS_LIMITS}",
                        census.nodes.saturating_add(limits.alias_nodes(census.nodes)),
                    ),
                )
            }
            AliasLimit::Text => limit(
                alias_place,
                format!(
                    "aliases expand the text of this file beyond {} bytes; YAML anchors cannot be used to \
                     multiply content (`{first}` here is the file's first alias): write the repeated text out, \
                     or raise `limits.yaml.alias_factor` / `min_alias_bytes` in mneme-gate.yaml if this \
                     expansion is intended (docs/scenarios.md, Limits)",
                    limits.text_bytes(text.len()),
                ),
            ),
            AliasLimit::Recorded => limit(
                at,
                format!(
                    "anchors nested in anchors copy this file beyond {} events; YAML anchors cannot be used to \
                     multiply content: remove the anchors (`&name`) that enclose other anchors",
                    Allowance::counted(limits, census.nodes).recorded_events(text.len()),
                ),
            ),
            AliasLimit::Nesting => limit(
                at,
                "aliases nest in the values of other aliases too deeply here; YAML anchors cannot be used to \
                 multiply content: write the value out"
                    .to_string(),
            ),
        };
    }
    let alias_here = || alias_at(text, at).unwrap_or_else(|| "*".to_string());
    match inner(error) {
        YamlError::Budget { breach: BudgetBreach::Depth { .. }, .. } => limit(
            at,
            format!(
                "lists and mappings nest more than {} levels deep here; a suite needs about six: flatten the \
                 file, or raise the `max_depth` limit if this nesting is intended (docs/scenarios.md, Limits)",
                limits.max_depth
            ),
        ),
        YamlError::Budget { breach: BudgetBreach::ScalarBytes { .. }, .. } => limit(
            at,
            format!(
                "the values and tags of this file add up to more than {} bytes of text, more than its size \
                 allows; a `%TAG` prefix repeated on many values multiplies text: write the tags out",
                limits.text_bytes(text.len())
            ),
        ),
        YamlError::Budget { breach: BudgetBreach::Documents { .. }, .. } | YamlError::MultipleDocuments { .. } => {
            syntax(
                at,
                "a second YAML document starts here; a suite file is one document: remove the `---` line, or \
                 move what follows into a suite file of its own"
                    .to_string(),
            )
        }
        YamlError::Budget { .. } => syntax(
            at,
            "the file goes beyond what the YAML reader allows here; simplify this part of the file".to_string(),
        ),
        YamlError::DuplicateMappingKey { key, .. } => syntax(
            at,
            match key {
                Some(k) => format!("the key `{k}` appears twice in this mapping; keep one of them"),
                None => "a key appears twice in this mapping; keep one of them".to_string(),
            },
        ),
        YamlError::UnknownAnchor { .. } => {
            let alias = alias_here();
            let name = alias.trim_start_matches('*');
            syntax(
                at,
                format!(
                    "the alias `{alias}` refers to no anchor defined before it; define `&{name}` on an earlier \
                     value, or quote the value if `*` is text"
                ),
            )
        }
        YamlError::RecursiveReferencesRequireWeakTypes { .. } => {
            let alias = alias_here();
            let name = alias.trim_start_matches('*');
            syntax(
                at,
                format!(
                    "the alias `{alias}` is inside the value of its own anchor `&{name}`, a loop with no end; \
                     write the value out"
                ),
            )
        }
        YamlError::NullIntoString { .. } | YamlError::Unexpected { expected: "string scalar", .. } => syntax(
            at,
            "a key must be a name, and this one is empty, a list or a mapping: write `name: value`".to_string(),
        ),
        YamlError::NonFiniteFloat { value, .. } => {
            syntax(at, format!("`{value}` is not a finite number; quote it to make it a string"))
        }
        other => {
            let (at, message) = syntax_place(text, at, &strip_location_suffix(&other.to_string()));
            syntax(at, message)
        }
    }
}

/// The place of a YAML syntax error as a user looks for it, and its
/// message. The reader reports some errors where it noticed them, not
/// where the mistake is: a tab in an indentation at the start of the plain
/// scalar before it (a line early), and a `[` or `{` that is never closed
/// where the next key stops the flow collection (a line or more late).
/// Those are moved to the tab and to the opening bracket.
pub fn syntax_place(text: &str, at: (usize, usize), message: &str) -> ((usize, usize), String) {
    if message.contains("found a tab") {
        // The first line after the reported one whose indentation holds a tab.
        let tab = text.split('\n').enumerate().skip(at.0).find_map(|(i, row)| {
            let indent: String = row.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
            indent.find('\t').map(|col| (i + 1, indent[..col].chars().count() + 1))
        });
        if let Some(place) = tab {
            return (place, "a tab in the indentation; YAML indents with spaces only: replace the tab".to_string());
        }
    }
    if let Some((line, column, open)) = unclosed_flow(text, at) {
        if line < at.0 {
            let close = if open == '[' { ']' } else { '}' };
            return (
                (line, column),
                format!(
                    "this `{open}` is never closed (the YAML reader stopped at {}:{}: {message}): close it with \
                     `{close}`, or quote the value if `{open}` is text",
                    at.0, at.1
                ),
            );
        }
    }
    (at, message.to_string())
}

/// The innermost `[` or `{` still open at 1-based `at` (line, column in
/// characters), with its place: a flow collection opens at the start of a
/// value (after a space, a line start, `:`, `-`, `,` or another opener) or
/// anywhere inside one; quoted text and comments are skipped.
fn unclosed_flow(text: &str, at: (usize, usize)) -> Option<(usize, usize, char)> {
    let mut open: Vec<(usize, usize, char)> = Vec::new();
    for (i, row) in text.split('\n').enumerate().take(at.0) {
        let line = i + 1;
        let chars: Vec<char> = row.chars().collect();
        let end = if line == at.0 { at.1.saturating_sub(1).min(chars.len()) } else { chars.len() };
        let mut quote: Option<char> = None;
        let mut j = 0;
        while j < end {
            let c = chars[j];
            let before = if j == 0 { ' ' } else { chars[j - 1] };
            let starts_value = before.is_whitespace() || matches!(before, ':' | '-' | ',' | '[' | '{');
            match (quote, c) {
                (Some('\''), '\'') if chars.get(j + 1) == Some(&'\'') => j += 1,
                (Some('"'), '\\') => j += 1,
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '#') if before.is_whitespace() => break,
                (None, '\'' | '"') if starts_value || !open.is_empty() => quote = Some(c),
                (None, '[' | '{') if starts_value || !open.is_empty() => open.push((line, j + 1, c)),
                (None, ']' | '}') if !open.is_empty() => {
                    open.pop();
                }
                _ => {}
            }
            j += 1;
        }
    }
    open.pop()
}

/// A serde-saphyr message on one line, without the location it may end
/// with: the error prints it in front instead. (`describe::json_error` does
/// this for serde_json, whose messages are one line and end only with
/// " at line L column C".)
fn strip_location_suffix(message: &str) -> String {
    let m = one_line(message);
    for marker in [" at line ", " at position "] {
        if let Some(i) = m.rfind(marker) {
            return m[..i].to_string();
        }
    }
    m
}

#[cfg(test)]
mod tests;
