/*!
Git awareness: which commit a run was made in, and files as they were at
another revision (the pull request's base), read with libgit2 so that no
`git` executable is needed and the working tree is never touched.
*/

use std::fmt;
use std::path::{Path, PathBuf};

use git2::{ObjectType, Repository, StatusOptions};
use serde::{Deserialize, Serialize};

/// Where in git a run was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GitInfo {
    /// The full commit id of HEAD.
    pub commit: String,
    /// The branch HEAD is on; absent when HEAD is detached.
    pub branch: Option<String>,
    /// Tracked files differ from HEAD (untracked files do not count).
    pub dirty: bool,
}

/// Why a file could not be read at another revision. Most causes are the
/// user's to fix (no repository, a revision not fetched, a path outside the
/// tree); [`GitError::is_infrastructure`] tells apart the failures of git
/// itself (a damaged object database, an I/O error).
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// A revision was asked for outside a git repository.
    #[error(
        "{} is not in a git repository, so --baseline-ref and --memory-ref cannot be used; run from a clone",
        dir.display()
    )]
    NotARepository { dir: PathBuf },
    /// The repository belongs to another user, and git (libgit2 as the
    /// `git` command) refuses to open it unless it is declared safe.
    #[error(
        "the git repository at {} belongs to another user, so git refuses to open it (its `safe.directory` check); \
         if you trust it, run `git config --global --add safe.directory {}` (in CI, after the checkout), or run as its owner",
        repo.display(),
        repo.display()
    )]
    NotSafe { repo: PathBuf },
    /// The revision is not one git can read, or names several objects.
    #[error("revision `{revision}` {reason}")]
    InvalidRevision { revision: String, reason: &'static str },
    /// The revision is not in this clone.
    #[error(fmt = unknown_revision)]
    UnknownRevision { revision: String, shallow: bool, message: String },
    /// The revision names an object that is not a commit: a blob or a tree
    /// (`HEAD:README.md`, `HEAD^{tree}`), or a tag of one.
    #[error("revision `{revision}` names a {kind}, not a commit; give a branch, a tag or a commit id")]
    NotACommit { revision: String, kind: &'static str },
    /// At the revision, the path is a folder or a submodule, not a file.
    #[error("{} is a {kind} at revision `{revision}`, not a file", path.display())]
    NotAFile { path: PathBuf, revision: String, kind: &'static str },
    /// The file is not inside the repository's working tree.
    #[error(
        "{} is outside the git working tree {}, so it cannot be read at another revision",
        path.display(),
        workdir.display()
    )]
    OutsideRepository { path: PathBuf, workdir: PathBuf },
    /// libgit2 failed where the inputs were fine (a damaged or incomplete
    /// object database, an I/O error): infrastructure.
    #[error("git: {action}: {}", reason(source))]
    Internal {
        /// What was being done, in words ("cannot read the tree of commit …").
        action: String,
        #[source]
        source: git2::Error,
    },
    /// The working folder could not be read: infrastructure.
    #[error("git: {action}: {source}")]
    Io {
        action: String,
        #[source]
        source: std::io::Error,
    },
}

fn unknown_revision(revision: &String, shallow: &bool, message: &String, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if *shallow {
        write!(
            f,
            "revision `{revision}` is not in this clone, which is shallow: fetch it (`git fetch --deepen=50 origin`, \
             or `git fetch origin {revision}`; in GitHub Actions use actions/checkout with `fetch-depth: 0`)"
        )
    } else {
        write!(
            f,
            "revision `{revision}` is not in this repository ({message}); fetch it (`git fetch origin`) or check the name"
        )
    }
}

/// libgit2's reason for an infrastructure failure, or words saying it gave
/// none (libgit2 then reports "no error").
fn reason(e: &git2::Error) -> String {
    match e.message() {
        "" | "no error" => format!("libgit2 failed without saying why ({:?} error, code {})", e.class(), e.raw_code()),
        message => message.to_string(),
    }
}

/// Forgets the message libgit2 may have left in this thread.
///
/// Why: libgit2 keeps the last error message of a thread until the next
/// one replaces it, and sets some on the way of calls that succeed (looking
/// for a global `ignore` or `attributes` file under `$HOME`, a `.git/shallow`
/// file, a `~/.gitconfig`). A later failure that sets none of its own (a
/// revision such as `@{-1}` or `:/text` that matches nothing) is then
/// reported with the stale message and class: "the global/xdg file 'ignore'
/// doesn't exist", as an operating system error (exit 3). git2 reads and
/// clears that state in [`git2::Error::last_error`]; calling it before an
/// operation leaves the operation only its own messages.
fn forget_stale_error() {
    let _ = git2::Error::last_error(-1);
}

impl GitError {
    /// True when git itself failed, not the request: the command line
    /// reports it as an infrastructure error (exit 3), not an input error.
    pub fn is_infrastructure(&self) -> bool {
        matches!(self, GitError::Internal { .. } | GitError::Io { .. })
    }
}

/// A libgit2 failure of the machine rather than of the request: the
/// operating system, memory, compression or a damaged object database.
fn is_internal(e: &git2::Error) -> bool {
    use git2::ErrorClass::*;
    match e.class() {
        Os | NoMemory | Zlib | Filesystem | Thread => true,
        Odb => e.code() != git2::ErrorCode::NotFound,
        _ => false,
    }
}

fn internal(action: impl Into<String>) -> impl FnOnce(git2::Error) -> GitError {
    let action = action.into();
    move |source| GitError::Internal { action, source }
}

/// The object kinds of libgit2, in words.
fn kind_name(kind: Option<ObjectType>) -> &'static str {
    match kind {
        Some(ObjectType::Blob) => "blob (a file)",
        Some(ObjectType::Tree) => "tree (a folder)",
        Some(ObjectType::Tag) => "tag",
        Some(ObjectType::Commit) => "commit",
        _ => "object of unknown type",
    }
}

/// The repository holding a folder.
pub struct Repo {
    repo: Repository,
}

impl Repo {
    /// The repository that holds `dir`, if any (one git refuses to open,
    /// owned by another user, is none here: see [`Repo::require`]).
    pub fn discover(dir: &Path) -> Option<Repo> {
        Repo::require(dir).ok()
    }

    /// Like [`Repo::discover`], but an error saying why there is none: no
    /// repository, or one owned by another user ([`GitError::NotSafe`]).
    pub fn require(dir: &Path) -> Result<Repo, GitError> {
        forget_stale_error();
        match Repository::discover(dir) {
            Ok(repo) if !repo.is_bare() => Ok(Repo { repo }),
            Ok(_) => Err(GitError::NotARepository { dir: dir.to_path_buf() }),
            Err(e) if e.code() == git2::ErrorCode::Owner => {
                Err(GitError::NotSafe { repo: unsafe_repository(dir).unwrap_or_else(|| dir.to_path_buf()) })
            }
            Err(_) => Err(GitError::NotARepository { dir: dir.to_path_buf() }),
        }
    }

    /// HEAD's commit, branch and whether tracked files differ from it;
    /// `None` in a repository with no commit yet.
    pub fn info(&self) -> Option<GitInfo> {
        forget_stale_error();
        let head = self.repo.head().ok()?;
        let commit = head.peel_to_commit().ok()?.id().to_string();
        let branch = if head.is_branch() { head.shorthand().map(str::to_string) } else { None };
        let mut options = StatusOptions::new();
        options.include_untracked(false).include_ignored(false);
        // libgit2 would block on an index that is a named pipe: such a
        // repository is said to be dirty, its index never read.
        let dirty = self.special_index().is_some()
            || self.repo.statuses(Some(&mut options)).map(|s| !s.is_empty()).unwrap_or(false);
        Some(GitInfo { commit, branch, dirty })
    }

    /// The full commit id a revision names.
    pub fn resolve(&self, revision: &str) -> Result<String, GitError> {
        forget_stale_error();
        let object = self.repo.revparse_single(revision).map_err(|e| {
            use git2::ErrorCode::{Ambiguous, InvalidSpec, NotFound};
            let invalid = |reason| GitError::InvalidRevision { revision: revision.to_string(), reason };
            match e.code() {
                InvalidSpec => invalid(
                    "is not a revision git can read: give a branch, a tag, a commit id or an expression such as `HEAD~1`",
                ),
                Ambiguous => invalid(
                    "is too short to name one object, or the start of several object ids: give more of its characters, or check the name",
                ),
                // A revision that is not found is the user's to fix, whatever
                // class libgit2 gives it.
                code if code != NotFound && is_internal(&e) => {
                    internal(format!("cannot resolve revision `{revision}`"))(e)
                }
                _ => GitError::UnknownRevision {
                    revision: revision.to_string(),
                    shallow: self.repo.is_shallow(),
                    message: match e.class() {
                        git2::ErrorClass::Reference => "no branch or tag of that name".to_string(),
                        git2::ErrorClass::Odb | git2::ErrorClass::Object => "no commit with that id".to_string(),
                        _ => "git finds nothing it names".to_string(),
                    },
                },
            }
        })?;
        let commit = object.peel_to_commit().map_err(|e| {
            // A tag is named by what it points to.
            let kind = match object.kind() {
                Some(ObjectType::Tag) => object.peel(ObjectType::Any).ok().and_then(|o| o.kind()),
                kind => kind,
            };
            match kind {
                Some(ObjectType::Blob | ObjectType::Tree) if !is_internal(&e) => {
                    GitError::NotACommit { revision: revision.to_string(), kind: kind_name(kind) }
                }
                _ => internal(format!("cannot read revision `{revision}` as a commit"))(e),
            }
        })?;
        Ok(commit.id().to_string())
    }

    /// A file's bytes at a revision; `Ok(None)` when the revision does not
    /// have it. `path` is a path on disk (relative to the working folder
    /// or absolute) inside the working tree.
    pub fn read_at(&self, revision: &str, path: &Path) -> Result<Option<Vec<u8>>, GitError> {
        let relative = self.relative(path)?;
        let commit_id = self.resolve(revision)?;
        forget_stale_error();
        let oid = git2::Oid::from_str(&commit_id).map_err(internal(format!("cannot parse commit id {commit_id}")))?;
        let tree = self
            .repo
            .find_commit(oid)
            .and_then(|c| c.tree())
            .map_err(internal(format!("cannot read the tree of commit {commit_id}")))?;
        let entry = match tree.get_path(&relative) {
            Ok(e) => e,
            Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(internal(format!("cannot look up {} in commit {commit_id}", relative.display()))(e)),
        };
        let kind = match entry.kind() {
            Some(ObjectType::Blob) => None,
            Some(ObjectType::Tree) => Some("folder"),
            Some(ObjectType::Commit) => Some("submodule"),
            _ => Some("entry of unknown type"),
        };
        if let Some(kind) = kind {
            return Err(GitError::NotAFile { path: path.to_path_buf(), revision: revision.to_string(), kind });
        }
        let blob = entry
            .to_object(&self.repo)
            .and_then(|o| o.peel_to_blob())
            .map_err(internal(format!("cannot read {} in commit {commit_id}", relative.display())))?;
        Ok(Some(blob.content().to_vec()))
    }

    /// The newest version of a file whose bytes have this SHA-256 (lower-case
    /// hex), looked for in HEAD and its ancestors, newest first, at most
    /// `limit` commits: the commit id and the bytes; `Ok(None)` when none of
    /// them has it. Each distinct blob is hashed once.
    pub fn find_version(&self, path: &Path, sha256: &str, limit: usize) -> Result<Option<(String, Vec<u8>)>, GitError> {
        let relative = self.relative(path)?;
        forget_stale_error();
        let Ok(head) = self.repo.head().and_then(|h| h.peel_to_commit()) else { return Ok(None) };
        let mut walk = self.repo.revwalk().map_err(internal("cannot walk the history"))?;
        walk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::TIME).map_err(internal("cannot walk the history"))?;
        walk.push(head.id()).map_err(internal("cannot walk the history"))?;
        let mut seen = std::collections::HashSet::new();
        for oid in walk.take(limit) {
            let oid = oid.map_err(internal("cannot walk the history"))?;
            let commit = self.repo.find_commit(oid).map_err(internal(format!("cannot read commit {oid}")))?;
            let tree = commit.tree().map_err(internal(format!("cannot read the tree of commit {oid}")))?;
            let Ok(entry) = tree.get_path(&relative) else { continue };
            if entry.kind() != Some(ObjectType::Blob) || !seen.insert(entry.id()) {
                continue;
            }
            let blob =
                self.repo.find_blob(entry.id()).map_err(internal(format!("cannot read a file of commit {oid}")))?;
            let hash = crate::digest::sha256_hex(blob.content());
            if hash == sha256 {
                return Ok(Some((oid.to_string(), blob.content().to_vec())));
            }
        }
        Ok(None)
    }

    /// The files git tracks (its index, as `git ls-files` lists them), by
    /// their paths from the root of the working tree, `/`-separated, sorted;
    /// paths that are not UTF-8 are read lossily.
    pub fn tracked_files(&self) -> Result<Vec<String>, GitError> {
        forget_stale_error();
        if let Some(kind) = self.special_index() {
            return Err(GitError::Io {
                action: format!("cannot read the index {}", self.repo.path().join("index").display()),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("it is {kind}, not a regular file; remove it (`git reset` writes a new one)"),
                ),
            });
        }
        let index = self.repo.index().map_err(internal("cannot read the index"))?;
        let mut files: Vec<String> = index.iter().map(|e| String::from_utf8_lossy(&e.path).into_owned()).collect();
        files.sort_unstable();
        files.dedup();
        Ok(files)
    }

    /// What the index is when it exists and is not a regular file (a named
    /// pipe would block libgit2 forever).
    fn special_index(&self) -> Option<&'static str> {
        let meta = std::fs::symlink_metadata(self.repo.path().join("index")).ok()?;
        (!meta.is_file()).then(|| {
            if meta.file_type().is_symlink() {
                "a symbolic link"
            } else {
                crate::confine::kind(&meta)
            }
        })
    }

    /// `path` relative to the root of the working tree.
    fn relative(&self, path: &Path) -> Result<PathBuf, GitError> {
        // `discover` keeps no bare repository, so there is a working tree.
        let workdir =
            self.repo.workdir().ok_or_else(|| GitError::NotARepository { dir: self.repo.path().to_path_buf() })?;
        let workdir = workdir.canonicalize().unwrap_or_else(|_| workdir.to_path_buf());
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            let cwd = std::env::current_dir()
                .map_err(|source| GitError::Io { action: "cannot read the working folder".into(), source })?;
            cwd.join(path)
        };
        // The file may not exist in the working tree (it may exist only at
        // the revision): canonicalise its folder, not the file.
        let absolute = match (absolute.parent(), absolute.file_name()) {
            (Some(dir), Some(name)) => dir.canonicalize().map(|d| d.join(name)).unwrap_or(absolute.clone()),
            _ => absolute.clone(),
        };
        let absolute = normalise(&absolute);
        absolute
            .strip_prefix(&workdir)
            .map(Path::to_path_buf)
            .map_err(|_| GitError::OutsideRepository { path: path.to_path_buf(), workdir: workdir.clone() })
    }
}

/// The working tree that holds `dir` (the folder above its `.git`), found
/// by looking for `.git` upwards as git does, for a message about it.
fn unsafe_repository(dir: &Path) -> Option<PathBuf> {
    let dir = dir.canonicalize().ok()?;
    dir.ancestors().find(|d| d.join(".git").exists()).map(Path::to_path_buf)
}

/// Drops `.` and resolves `..` lexically.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository with one commit holding `a.txt` and `dir/b.txt`, and a
    /// tag `tree-tag` pointing at the commit's tree.
    fn repository() -> (tempfile::TempDir, Repo) {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        std::fs::create_dir(dir.path().join("dir")).unwrap();
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        std::fs::write(dir.path().join("dir/b.txt"), "b\n").unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("a.txt")).unwrap();
        index.add_path(Path::new("dir/b.txt")).unwrap();
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let me = git2::Signature::now("Test", "test@example.com").unwrap();
        repo.commit(Some("HEAD"), &me, &me, "one", &tree, &[]).unwrap();
        repo.tag("tree-tag", tree.as_object(), &me, "a tag of a tree", false).unwrap();
        drop(tree);
        (dir, Repo { repo })
    }

    #[test]
    fn files_are_read_at_a_revision() {
        let (dir, repo) = repository();
        assert_eq!(repo.read_at("HEAD", &dir.path().join("a.txt")).unwrap().unwrap(), b"a\n");
        assert_eq!(repo.read_at("HEAD", &dir.path().join("dir/./b.txt")).unwrap().unwrap(), b"b\n");
        assert_eq!(repo.read_at("HEAD", &dir.path().join("gone.txt")).unwrap(), None);
        let info = repo.info().unwrap();
        assert_eq!(info.commit, repo.resolve("HEAD").unwrap());
        assert!(!info.dirty);
    }

    #[test]
    fn versions_are_found_by_their_hash_and_files_listed() {
        let (dir, repo) = repository();
        let hash = |b: &[u8]| crate::digest::sha256_hex(b);
        let (commit, bytes) = repo.find_version(&dir.path().join("a.txt"), &hash(b"a\n"), 10).unwrap().unwrap();
        assert_eq!((commit, bytes), (repo.resolve("HEAD").unwrap(), b"a\n".to_vec()));
        assert_eq!(repo.find_version(&dir.path().join("a.txt"), &hash(b"other"), 10).unwrap(), None);
        assert_eq!(repo.find_version(&dir.path().join("gone.txt"), &hash(b"a\n"), 10).unwrap(), None);
        assert_eq!(repo.tracked_files().unwrap(), ["a.txt", "dir/b.txt"]);
    }

    #[test]
    fn what_the_user_asked_wrongly_is_said_in_their_words() {
        let (dir, repo) = repository();
        let e = repo.resolve("HEAD:a.txt").unwrap_err();
        assert_eq!(
            e.to_string(),
            "revision `HEAD:a.txt` names a blob (a file), not a commit; give a branch, a tag or a commit id"
        );
        assert!(!e.is_infrastructure());
        let e = repo.resolve("HEAD^{tree}").unwrap_err();
        assert!(e.to_string().contains("names a tree (a folder), not a commit"), "{e}");
        let e = repo.resolve("tree-tag").unwrap_err();
        assert!(e.to_string().contains("`tree-tag` names a tree (a folder), not a commit"), "{e}");
        assert!(!e.to_string().contains("git_object_t"), "{e}");

        let e = repo.read_at("HEAD", &dir.path().join("dir")).unwrap_err();
        assert!(e.to_string().ends_with("dir is a folder at revision `HEAD`, not a file"), "{e}");
        assert!(!e.is_infrastructure());

        let e = repo.resolve("no-such-branch").unwrap_err();
        assert!(e.to_string().starts_with("revision `no-such-branch` is not in this repository ("), "{e}");
        assert!(!e.is_infrastructure());

        let outside = tempfile::tempdir().unwrap();
        let e = repo.read_at("HEAD", &outside.path().join("x")).unwrap_err();
        assert!(matches!(e, GitError::OutsideRepository { .. }), "{e}");
        assert!(!e.is_infrastructure());
    }

    #[test]
    fn revisions_git_cannot_read_are_said_in_words() {
        let (_dir, repo) = repository();
        let e = repo.resolve("HEAD^{blob}").unwrap_err();
        assert_eq!(
            e.to_string(),
            "revision `HEAD^{blob}` is not a revision git can read: give a branch, a tag, a commit id or an expression such as `HEAD~1`"
        );
        assert!(!e.is_infrastructure());
        let e = repo.resolve("abc").unwrap_err();
        assert!(e.to_string().starts_with("revision `abc` is too short to name one object"), "{e}");
        for revision in [":/no such text", "@{-1}", "HEAD~5", "no-such-branch"] {
            let e = repo.resolve(revision).unwrap_err();
            assert!(!e.is_infrastructure(), "{e}");
            assert!(matches!(e, GitError::UnknownRevision { .. }), "{e}");
            let shown = e.to_string();
            assert!(!shown.contains("no error") && !shown.contains("revspec"), "{shown}");
        }
        let e = GitError::Internal { action: "cannot read x".into(), source: git2::Error::from_str("no error") };
        assert!(e.to_string().starts_with("git: cannot read x: libgit2 failed without saying why"), "{e}");
    }

    /// A repository owned by another user is refused by git; the message
    /// says so and what to do, not "not in a git repository".
    #[cfg(unix)]
    #[test]
    fn a_repository_owned_by_another_user_says_so() {
        let (dir, _repo) = repository();
        let inner = dir.path().join("dir");
        let mut chowned = true;
        for path in [dir.path().to_path_buf(), dir.path().join(".git")] {
            // Only root can give a file away; elsewhere the test has nothing to check.
            chowned &= std::os::unix::fs::chown(&path, Some(65534), Some(65534)).is_ok();
        }
        if !chowned {
            return;
        }
        let e = Repo::require(&inner).err().expect("git refuses the repository");
        let root = dir.path().canonicalize().unwrap();
        assert_eq!(
            e.to_string(),
            format!(
                "the git repository at {0} belongs to another user, so git refuses to open it (its `safe.directory` \
                 check); if you trust it, run `git config --global --add safe.directory {0}` (in CI, after the \
                 checkout), or run as its owner",
                root.display()
            )
        );
        assert!(!e.is_infrastructure());
        assert!(Repo::discover(&inner).is_none());
    }

    #[test]
    fn failures_of_git_itself_are_infrastructure() {
        let e = GitError::Internal {
            action: "cannot read the tree of commit 0123".into(),
            source: git2::Error::from_str("object not found - no match for id"),
        };
        assert!(e.is_infrastructure());
        assert_eq!(e.to_string(), "git: cannot read the tree of commit 0123: object not found - no match for id");
        assert!(std::error::Error::source(&e).is_some());
        let e = GitError::Io {
            action: "cannot read the working folder".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
        };
        assert!(e.is_infrastructure());
        assert!(!GitError::NotARepository { dir: PathBuf::from("/x") }.is_infrastructure());
    }
}
