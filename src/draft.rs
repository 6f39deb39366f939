/*!
`mneme-gate draft`: a suite drafted from the repository's own history, for a
person to review (docs/draft.md).

Each first-parent commit of a window ([`history`]) is matched against the
decisions of the retrieval pool; a commit that a decision plausibly governs
becomes a scenario, its task the commit's subject and its expected ids the
decisions the evidence points at:

- the commit added or edited the decision's own file (strong evidence);
- its message names the decision (`ADR-0012`, `adr 12`, its id, its title);
- it changed files inside the decision's scope globs;
- its message or a changed path has a word of the decision's title that
  no other decision's title has (the weakest).

The retriever's current top k is kept beside the proposal, never in it, so
that the suite does not measure the retriever against itself. A few
changes no decision governs (typo fixes, dependency bumps, changelog and
formatting edits) are drafted as controls that expect nothing. Every
drafted scenario is marked `review: pending` and keeps its commit.

The files follow the seams: `history` reads git, this file weighs the
evidence, `yaml` writes the suite (and merges it into an existing one,
keeping every reviewed scenario), `html` writes the review page.
*/

pub mod history;
pub mod html;
mod names;
pub mod yaml;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::memory::Decision;
use crate::profile::Milli;
use crate::retrieval::{Index, Query};

pub use history::{Changed, Commit, History, Status, Window};
use names::Names;

/// The default number of first-parent commits examined (`--max`).
pub const DEFAULT_MAX: usize = 2000;
/// The most commits `--max` may ask for.
pub const MAX_COMMITS: usize = 1_000_000;
/// The most scenarios one draft holds (newest first).
pub const MAX_SCENARIOS: usize = 500;
/// The most control scenarios one draft holds.
pub const MAX_CONTROLS: usize = 5;
/// A commit that edits more decision files than this is a bulk edit
/// (renumbering, a status sweep): its edits are not proposed.
pub const MAX_EDITED_DECISIONS: usize = 3;
/// A commit whose files fall in the scope of more decisions than this is
/// too broad for its scope evidence to propose anything.
pub const MAX_SCOPE_DECISIONS: usize = 3;

/// Why a decision is proposed for a commit.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Evidence {
    /// The commit added (`added`) or edited the decision's own file.
    Edits { file: String, added: bool },
    /// The commit's message names the decision: the words that matched.
    Names { mention: String },
    /// A changed file is inside the decision's scope glob.
    Scope { file: String, glob: String },
    /// A word of the decision's title that no other decision's title has
    /// is in the message (`file` `None`) or in a changed file's path.
    Topic { word: String, file: Option<String> },
}

impl Evidence {
    /// 0 for strong evidence, then names, scope, title words in the
    /// message and title words in a changed path.
    pub fn rank(&self) -> u8 {
        match self {
            Evidence::Edits { .. } => 0,
            Evidence::Names { .. } => 1,
            Evidence::Scope { .. } => 2,
            Evidence::Topic { file: None, .. } => 3,
            Evidence::Topic { file: Some(_), .. } => 4,
        }
    }

    /// Strong evidence: the decision changed in the same commit.
    pub fn is_strong(&self) -> bool {
        matches!(self, Evidence::Edits { .. })
    }

    /// The evidence in words (strings from the repository as they are:
    /// each writer escapes them).
    pub fn words(&self) -> String {
        match self {
            Evidence::Edits { file, added: true } => format!("the commit adds its file {file} (strong)"),
            Evidence::Edits { file, added: false } => format!("the commit edits its file {file} (strong)"),
            Evidence::Names { mention } => format!("the message names it (\"{mention}\")"),
            Evidence::Scope { file, glob } => format!("{file} is in its scope {glob}"),
            Evidence::Topic { word, file: None } => {
                format!("the message has \"{word}\", a word of its title no other title has")
            }
            Evidence::Topic { word, file: Some(file) } => {
                format!("{file} has \"{word}\", a word of its title no other title has")
            }
        }
    }
}

/// A decision proposed as expected, with the evidence that proposed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposed {
    pub id: String,
    pub title: String,
    pub evidence: Vec<Evidence>,
}

impl Proposed {
    pub fn is_strong(&self) -> bool {
        self.evidence.iter().any(Evidence::is_strong)
    }
}

/// One retrieved decision of the retriever's current top k.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    pub id: String,
    pub title: String,
    pub score: Milli,
}

/// The kind of change a control scenario is: a chore, as the retriever
/// reads one ([`crate::chore`]).
pub use crate::chore::Chore as Control;

/// One drafted scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drafted {
    /// `draft-` and the first 12 digits of the commit's hash.
    pub id: String,
    pub commit: Commit,
    pub task: String,
    /// The changed file the first proposed decision is most about.
    pub file: Option<String>,
    /// Empty for a control scenario.
    pub expect: Vec<Proposed>,
    /// What was seen but not proposed (a bulk edit of decisions, scopes too
    /// broad), in words.
    pub notes: Vec<String>,
    /// The retriever's current top k for the task and file.
    pub top: Vec<Ranked>,
    pub control: Option<Control>,
}

/// A draft: the scenarios of a window of history, newest first.
#[derive(Debug, Clone)]
pub struct Draft {
    pub head: String,
    /// First-parent commits examined.
    pub examined: usize,
    pub stopped_at_max: bool,
    pub reached_since: bool,
    pub scenarios: Vec<Drafted>,
    /// Commits with evidence left out beyond [`MAX_SCENARIOS`].
    pub left_out: usize,
    pub k: usize,
}

/// The id of the scenario drafted from a commit.
pub fn scenario_id(hash: &str) -> String {
    format!("draft-{}", &hash[..hash.len().min(12)])
}

/// Drafts from the history of the repository holding `dir`; `None` when
/// HEAD has no commit yet. `sources_root` is the folder the decisions'
/// file names (`origin`) are relative to, the working folder for the
/// command line (their files are found in the history by that path).
pub fn draft_repository(
    dir: &Path,
    sources_root: &Path,
    index: &Index,
    window: &Window,
) -> Result<Option<Draft>, crate::git::GitError> {
    let repo = history::open(dir)?;
    let Some(workdir) = repo.workdir().map(Path::to_path_buf) else {
        return Ok(None);
    };
    let Some(history) = history::read(&repo, window)? else {
        return Ok(None);
    };
    let files = decision_files(index, &workdir, sources_root);
    Ok(Some(draft(&history, index, &files)))
}

/// Each decision file's path relative to the repository root, and the pool
/// decisions read from it. `dir` is the folder the sources' paths are
/// relative to.
pub fn decision_files(index: &Index, workdir: &Path, dir: &Path) -> BTreeMap<String, Vec<usize>> {
    let root = workdir.canonicalize().unwrap_or_else(|_| workdir.to_path_buf());
    let base = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut out: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (pool, d) in index.decisions().iter().enumerate() {
        let Some(origin) = d.origin() else { continue };
        let path = base.join(&origin.file);
        let path = path.canonicalize().unwrap_or(path);
        let Ok(rel) = path.strip_prefix(&root) else { continue };
        let rel: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        out.entry(rel.join("/")).or_default().push(pool);
    }
    out
}

/// The scenarios of a history: pure, so the same history and decisions
/// give the same draft.
pub fn draft(history: &History, index: &Index, files: &BTreeMap<String, Vec<usize>>) -> Draft {
    let mut names = Names::of(index);
    names.drop_common(&history.commits);
    let files = Files::of(files);
    let mut candidates = Vec::new();
    let mut controls = Vec::new();
    for (at, commit) in history.commits.iter().enumerate() {
        let found = weigh(commit, index, &files, &names);
        if !found.expect.is_empty() {
            // Title words count alike here, in the message or in a path.
            let best = found.expect.iter().flat_map(|p| p.evidence.iter()).map(|e| e.rank().min(3)).min().unwrap_or(3);
            candidates.push((best, at, found));
        } else if found.untouched && controls.len() < MAX_CONTROLS {
            if let Some(kind) = control_kind(commit) {
                let mut s = scenario(commit, Vec::new(), Vec::new(), index);
                s.control = Some(kind);
                controls.push(s);
            }
        }
    }
    // Beyond the cap, the strongest evidence first, then the newest; the
    // scenarios kept stay newest first.
    candidates.sort_by_key(|(best, at, _)| (*best, *at));
    let left_out = candidates.len().saturating_sub(MAX_SCENARIOS);
    candidates.truncate(MAX_SCENARIOS);
    candidates.sort_by_key(|(_, at, _)| *at);
    let mut scenarios: Vec<Drafted> = candidates
        .into_iter()
        .map(|(_, at, found)| scenario(&history.commits[at], found.expect, found.notes, index))
        .collect();
    scenarios.extend(controls);
    Draft {
        head: history.head.clone(),
        examined: history.commits.len(),
        stopped_at_max: history.stopped_at_max,
        reached_since: history.reached_since,
        scenarios,
        left_out,
        k: index.profile().k,
    }
}

/// The decisions' files: by their path now, and by their file name for a
/// file of a folder named for decisions that has since moved (a decision
/// folder renamed keeps its files' names).
struct Files<'a> {
    now: &'a BTreeMap<String, Vec<usize>>,
    by_name: BTreeMap<&'a str, Vec<usize>>,
}

impl<'a> Files<'a> {
    fn of(now: &'a BTreeMap<String, Vec<usize>>) -> Files<'a> {
        let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (path, pools) in now {
            by_name.entry(path.rsplit('/').next().unwrap_or(path)).or_default().extend(pools);
        }
        Files { now, by_name }
    }

    /// The pool decisions read from the file at `path` (now, or before its
    /// folder moved).
    fn pools(&self, path: &str) -> Option<&[usize]> {
        if let Some(p) = self.now.get(path) {
            return Some(p);
        }
        if !is_decision_like(path) {
            return None;
        }
        self.by_name.get(path.rsplit('/').next().unwrap_or(path)).map(Vec::as_slice)
    }
}

/// The evidence of one commit.
struct Found {
    expect: Vec<Proposed>,
    notes: Vec<String>,
    /// No decision file, mention or scope at all: a control candidate.
    untouched: bool,
}

fn weigh(commit: &Commit, index: &Index, files: &Files, names: &Names) -> Found {
    let decisions = index.decisions();
    let mut by_pool: BTreeMap<usize, Vec<Evidence>> = BTreeMap::new();
    let mut notes = Vec::new();
    // A decision file moved whole, or added where the commit deletes a file
    // of the same name, is moved (to an archive folder, a new layout):
    // housekeeping, not a change the decision governs.
    let name = |path: &str| path.rsplit('/').next().unwrap_or(path).to_string();
    let deleted: std::collections::BTreeSet<String> =
        commit.files.iter().filter(|f| f.status == Status::Deleted).map(|f| name(&f.path)).collect();
    let moved =
        |f: &Changed| f.status == Status::Renamed || (f.status == Status::Added && deleted.contains(&name(&f.path)));
    let edited: Vec<&Changed> = commit
        .files
        .iter()
        .filter(|f| f.status != Status::Deleted && files.pools(&f.path).is_some() && !moved(f))
        .collect();
    let moves = commit.files.iter().filter(|f| files.pools(&f.path).is_some() && moved(f)).count();
    if moves > 0 {
        notes.push(format!(
            "the commit moves {moves} decision file(s) (deleted and added under the same name): a move is not proposed"
        ));
    }
    let touched_decisions = commit.files.iter().any(|f| files.pools(&f.path).is_some());
    let others: Vec<&Changed> = commit.files.iter().filter(|f| files.pools(&f.path).is_none()).collect();
    if edited.len() + moves > MAX_EDITED_DECISIONS {
        notes.push(format!(
            "the commit edits or moves {} decision files at once (a bulk edit): none is proposed from it",
            edited.len() + moves
        ));
    } else {
        for f in &edited {
            for &pool in files.pools(&f.path).unwrap_or_default() {
                by_pool
                    .entry(pool)
                    .or_default()
                    .push(Evidence::Edits { file: f.path.clone(), added: f.status == Status::Added });
            }
        }
    }
    let message = match &commit.body {
        Some(b) => format!("{}\n{b}", commit.subject),
        None => commit.subject.clone(),
    };
    let mentioned = names.mentioned(&message);
    let any_mention = !mentioned.is_empty();
    for (pool, mention) in mentioned {
        by_pool.entry(pool).or_default().push(Evidence::Names { mention });
    }
    let mut scoped: BTreeMap<usize, Evidence> = BTreeMap::new();
    let mut globs = Vec::new();
    for f in others.iter().filter(|f| f.status != Status::Deleted) {
        index.matching_scope_globs(&f.path, &mut globs);
        for &g in &globs {
            let (glob, owners) = index.scope_glob(g);
            for &pool in owners {
                scoped
                    .entry(pool as usize)
                    .or_insert_with(|| Evidence::Scope { file: f.path.clone(), glob: glob.glob().to_string() });
            }
        }
    }
    let distinct_scoped: BTreeSet<&str> = scoped.keys().map(|&p| decisions[p].id.as_str()).collect();
    let any_scope = !scoped.is_empty();
    if distinct_scoped.len() > MAX_SCOPE_DECISIONS {
        notes.push(format!(
            "the changed files are in the scope of {} decisions: too broad to propose any from scope alone",
            distinct_scoped.len()
        ));
    } else {
        for (pool, e) in scoped {
            by_pool.entry(pool).or_default().push(e);
        }
    }
    let topics = names.topics(&message, others.iter().filter(|f| f.status != Status::Deleted).map(|f| f.path.as_str()));
    let any_topic = !topics.is_empty();
    let distinct_topics: BTreeSet<&str> = topics.iter().map(|(p, _)| decisions[*p].id.as_str()).collect();
    if distinct_topics.len() > MAX_SCOPE_DECISIONS {
        notes.push(format!(
            "the message and paths share title words with {} decisions: too many to propose any from them alone",
            distinct_topics.len()
        ));
    } else {
        for (pool, e) in topics {
            by_pool.entry(pool).or_default().push(e);
        }
    }
    let untouched = !touched_decisions && !any_mention && !any_scope && !any_topic;
    // A change to the decisions alone gives an agent nothing to do.
    if others.is_empty() {
        return Found { expect: Vec::new(), notes, untouched };
    }
    // Strong first, then named, then in scope; pool order within each; one
    // entry per id.
    let mut ranked: Vec<(u8, usize, Vec<Evidence>)> = by_pool
        .into_iter()
        .map(|(pool, mut evidence)| {
            evidence.sort();
            evidence.dedup();
            let rank = evidence.first().map_or(4, Evidence::rank);
            (rank, pool, evidence)
        })
        .collect();
    ranked.sort_by_key(|(rank, pool, _)| (*rank, *pool));
    let mut expect: Vec<Proposed> = Vec::new();
    for (_, pool, evidence) in ranked {
        let d = &decisions[pool];
        match expect.iter_mut().find(|p| p.id == d.id) {
            Some(p) => p.evidence.extend(evidence),
            None => expect.push(Proposed { id: d.id.clone(), title: d.title.clone(), evidence }),
        }
    }
    Found { expect, notes, untouched }
}

fn scenario(commit: &Commit, expect: Vec<Proposed>, notes: Vec<String>, index: &Index) -> Drafted {
    let task = task_of(commit);
    let file = expect
        .first()
        .and_then(|p| index.decisions().iter().find(|d| d.id == p.id))
        .and_then(|d| file_for(commit, d, index))
        .or_else(|| first_source_file(commit));
    let retrieval = index.retrieve(Query { task: &task, file: file.as_deref() });
    let top = retrieval
        .hits
        .iter()
        .map(|h| {
            let d = index.decision(h.pool);
            Ranked { id: d.id.clone(), title: d.title.clone(), score: h.score }
        })
        .collect();
    Drafted { id: scenario_id(&commit.hash), commit: commit.clone(), task, file, expect, notes, top, control: None }
}

/// The task: the subject (a merge of a pull request: its title, the body's
/// first line), with the body's first line added when the subject is
/// cryptic (fewer than four words once a `type(scope):` prefix is dropped).
pub fn task_of(commit: &Commit) -> String {
    let subject = commit.subject.trim();
    if is_merge_subject(subject) {
        if let Some(body) = &commit.body {
            return body.clone();
        }
    }
    let words = strip_prefix(subject).split_whitespace().count();
    match &commit.body {
        Some(body) if words < 4 && !subject.is_empty() => format!("{subject}: {body}"),
        Some(body) if subject.is_empty() => body.clone(),
        _ if subject.is_empty() => format!("the change of commit {}", &commit.hash[..commit.hash.len().min(12)]),
        _ => subject.to_string(),
    }
}

fn is_merge_subject(subject: &str) -> bool {
    subject.starts_with("Merge pull request ")
        || subject.starts_with("Merge branch ")
        || subject.starts_with("Merge remote-tracking branch ")
}

/// A subject without its conventional-commit prefix (`feat(api): `).
fn strip_prefix(subject: &str) -> &str {
    match subject.split_once(": ") {
        Some((head, rest)) if head.len() <= 24 && !head.contains(' ') => rest,
        _ => subject,
    }
}

/// The changed file (not a decision file, not deleted) the decision is most
/// about: one inside its scope, else the one whose path shares the most
/// words with its title and tags; source files before documents, then by
/// path.
fn file_for(commit: &Commit, d: &Decision, index: &Index) -> Option<String> {
    let words: BTreeSet<String> = d
        .title
        .split(|c: char| !c.is_alphanumeric())
        .chain(d.tags.iter().map(String::as_str))
        .filter(|w| w.len() >= 3)
        .map(str::to_lowercase)
        .collect();
    let origin = d.origin().map(|o| o.file.as_str());
    let mut globs = Vec::new();
    let mut best: Option<(i64, &str)> = None;
    for f in commit.files.iter().filter(|f| f.status != Status::Deleted) {
        if origin.is_some_and(|o| f.path.ends_with(o.trim_start_matches("./"))) || is_decision_like(&f.path) {
            continue;
        }
        index.matching_scope_globs(&f.path, &mut globs);
        let in_scope =
            globs.iter().any(|&g| index.scope_glob(g).1.iter().any(|&p| index.decision(p as usize).id == d.id));
        let shared =
            f.path.split(|c: char| !c.is_alphanumeric()).filter(|w| words.contains(&w.to_lowercase())).count() as i64;
        let score = if in_scope { 1000 } else { 0 } + shared * 10 - if is_document(&f.path) { 5 } else { 0 };
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, &f.path));
        }
    }
    best.map(|(_, p)| p.to_string())
}

fn first_source_file(commit: &Commit) -> Option<String> {
    let live = || commit.files.iter().filter(|f| f.status != Status::Deleted);
    live().find(|f| !is_document(&f.path)).or_else(|| live().next()).map(|f| f.path.clone())
}

fn is_document(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".markdown", ".rst", ".txt", ".adoc"].iter().any(|e| lower.ends_with(e))
}

/// A numbered ADR file in a folder named for decisions (one of another
/// source than the pool's, or one since renamed): never the file a task
/// is about.
fn is_decision_like(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let (folder, name) = lower.rsplit_once('/').unwrap_or(("", &lower));
    let numbered = crate::memory::sources::walk::adr_file(name);
    let own_folder = crate::memory::sources::walk::folder_adr(std::path::Path::new(folder), name);
    (numbered || own_folder) && (folder.contains("adr") || folder.contains("decision"))
}

/// What kind of control a commit no decision touches is, if any.
fn control_kind(commit: &Commit) -> Option<Control> {
    let names = |f: &Changed| f.path.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
    let all = |pred: &dyn Fn(&str) -> bool| !commit.files.is_empty() && commit.files.iter().all(|f| pred(&names(f)));
    let lockfile = |n: &str| {
        [
            "cargo.lock",
            "package-lock.json",
            "yarn.lock",
            "pnpm-lock.yaml",
            "go.sum",
            "poetry.lock",
            "gemfile.lock",
            "uv.lock",
        ]
        .contains(&n)
    };
    if commit.files.len() > 20 || commit.merge {
        return None;
    }
    if all(&|n: &str| n.starts_with("changelog") || n.starts_with("changes.") || n == "news.md") {
        return Some(Control::Changelog);
    }
    if let Some(chore) = crate::chore::of(&commit.subject) {
        return Some(chore);
    }
    if all(&|n: &str| lockfile(n) || n == "cargo.toml" || n == "package.json") {
        return Some(Control::Dependency);
    }
    None
}

#[cfg(test)]
mod tests;
