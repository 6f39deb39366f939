/*!
The history `draft` mines: the first-parent commits of HEAD, newest first,
each with its subject, the first line of its body and the files it changed
against its first parent, read with libgit2 (no `git` executable, the
working tree never touched).

Every loop is bounded: at most `max` commits are visited (the walk stops
there, whatever the history's length), a message is read up to
[`MAX_MESSAGE`] bytes and a commit's changed files up to [`MAX_FILES`].
*/

use git2::{DiffOptions, Oid, Repository, Sort};

use crate::git::GitError;

/// The most bytes of a commit message read.
pub const MAX_MESSAGE: usize = 64 * 1024;
/// The most changed files kept of one commit (the rest are counted).
pub const MAX_FILES: usize = 1000;
/// The most characters kept of a subject or a body line.
pub const MAX_LINE: usize = 300;

/// What a commit did to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Added,
    Modified,
    Deleted,
    /// Moved whole, or copied (the new path is kept): the same blob at a
    /// new path.
    Renamed,
}

impl Status {
    /// One word, for the review page.
    pub fn word(self) -> &'static str {
        match self {
            Status::Added => "added",
            Status::Modified => "modified",
            Status::Deleted => "deleted",
            Status::Renamed => "renamed",
        }
    }
}

/// One changed file of a commit, its path relative to the repository root
/// with `/` separators.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Changed {
    pub path: String,
    pub status: Status,
}

/// One first-parent commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// The full hash.
    pub hash: String,
    /// The first line of the message, trimmed (at most [`MAX_LINE`] characters).
    pub subject: String,
    /// The first non-blank line of the body, when there is one.
    pub body: Option<String>,
    /// The commit has more than one parent (a merge: its diff is against
    /// the first parent, so it holds the whole merged branch).
    pub merge: bool,
    /// The files changed against the first parent, sorted by path, at most
    /// [`MAX_FILES`].
    pub files: Vec<Changed>,
    /// Changed files beyond [`MAX_FILES`], not listed.
    pub more_files: usize,
}

/// The window of history: the first-parent commits of HEAD, newest first,
/// down to `since` (excluded) and at most `max` of them.
#[derive(Debug, Clone)]
pub struct Window {
    pub since: Option<String>,
    pub max: usize,
}

/// The commits of a window.
#[derive(Debug, Clone)]
pub struct History {
    /// HEAD's full hash.
    pub head: String,
    pub commits: Vec<Commit>,
    /// The walk stopped at `max` with older commits left.
    pub stopped_at_max: bool,
    /// The walk reached `since`.
    pub reached_since: bool,
}

fn internal(action: impl Into<String>) -> impl FnOnce(git2::Error) -> GitError {
    let action = action.into();
    move |source| GitError::Internal { action, source }
}

/// The repository holding `dir` (a work tree, not a bare repository).
pub fn open(dir: &std::path::Path) -> Result<Repository, GitError> {
    match Repository::discover(dir) {
        Ok(repo) if !repo.is_bare() => Ok(repo),
        Ok(_) => Err(GitError::NotARepository { dir: dir.to_path_buf() }),
        Err(e) if e.code() == git2::ErrorCode::Owner => Err(GitError::NotSafe { repo: dir.to_path_buf() }),
        Err(_) => Err(GitError::NotARepository { dir: dir.to_path_buf() }),
    }
}

/// The first-parent commits of the window; `None` when HEAD has no commit
/// (a repository just created).
pub fn read(repo: &Repository, window: &Window) -> Result<Option<History>, GitError> {
    let Ok(head) = repo.head().and_then(|h| h.peel_to_commit()) else {
        return Ok(None);
    };
    let since = match &window.since {
        Some(rev) => Some(resolve(repo, rev)?),
        None => None,
    };
    let mut walk = repo.revwalk().map_err(internal("cannot walk the history"))?;
    walk.set_sorting(Sort::NONE).map_err(internal("cannot walk the history"))?;
    walk.simplify_first_parent().map_err(internal("cannot walk the history"))?;
    walk.push(head.id()).map_err(internal("cannot walk the history"))?;
    let mut history =
        History { head: head.id().to_string(), commits: Vec::new(), stopped_at_max: false, reached_since: false };
    for oid in walk {
        let oid = oid.map_err(internal("cannot walk the history"))?;
        if Some(oid) == since {
            history.reached_since = true;
            break;
        }
        if history.commits.len() >= window.max {
            history.stopped_at_max = true;
            break;
        }
        history.commits.push(commit(repo, oid)?);
    }
    Ok(Some(history))
}

/// The commit a revision names (`--since`).
fn resolve(repo: &Repository, revision: &str) -> Result<Oid, GitError> {
    let object = repo.revparse_single(revision).map_err(|e| GitError::UnknownRevision {
        revision: revision.to_string(),
        shallow: repo.is_shallow(),
        message: e.message().to_string(),
    })?;
    let kind = object.kind();
    object.peel_to_commit().map(|c| c.id()).map_err(|_| GitError::NotACommit {
        revision: revision.to_string(),
        kind: match kind {
            Some(git2::ObjectType::Blob) => "blob (a file)",
            Some(git2::ObjectType::Tree) => "tree (a folder)",
            _ => "object that is not a commit",
        },
    })
}

fn commit(repo: &Repository, oid: Oid) -> Result<Commit, GitError> {
    let action = || format!("cannot read commit {oid}");
    let c = repo.find_commit(oid).map_err(internal(action()))?;
    let bytes = c.message_bytes();
    let message = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_MESSAGE)]);
    let mut lines = message.lines();
    let subject = cap(lines.next().unwrap_or("").trim());
    let body = lines.map(str::trim).find(|l| !l.is_empty()).map(cap);
    let tree = c.tree().map_err(internal(action()))?;
    let parent =
        if c.parent_count() > 0 { Some(c.parent(0).and_then(|p| p.tree()).map_err(internal(action()))?) } else { None };
    let mut options = DiffOptions::new();
    options.skip_binary_check(true);
    let mut diff = repo
        .diff_tree_to_tree(parent.as_ref(), Some(&tree), Some(&mut options))
        .map_err(internal(format!("cannot diff commit {oid} with its first parent")))?;
    // A file moved whole (the same blob deleted and added) is one rename:
    // found by blob id only, so the cost stays linear in the changes.
    let mut find = git2::DiffFindOptions::new();
    find.renames(true).exact_match_only(true);
    diff.find_similar(Some(&mut find)).map_err(internal(format!("cannot find the moved files of commit {oid}")))?;
    let total = diff.deltas().len();
    let mut files: Vec<Changed> = diff
        .deltas()
        .take(MAX_FILES)
        .filter_map(|d| {
            let (file, status) = match d.status() {
                git2::Delta::Added => (d.new_file(), Status::Added),
                git2::Delta::Deleted => (d.old_file(), Status::Deleted),
                git2::Delta::Renamed | git2::Delta::Copied => (d.new_file(), Status::Renamed),
                _ => (d.new_file(), Status::Modified),
            };
            let path = String::from_utf8_lossy(file.path_bytes()?).into_owned();
            Some(Changed { path, status })
        })
        .collect();
    files.sort();
    Ok(Commit {
        hash: oid.to_string(),
        subject,
        body,
        merge: c.parent_count() > 1,
        more_files: total.saturating_sub(files.len()),
        files,
    })
}

/// A line cut to [`MAX_LINE`] characters.
fn cap(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_string(),
    }
}
