/*!
Git awareness: which commit a run was made in, and files as they were at
another revision (the pull request's base), read with libgit2 so that no
`git` executable is needed and the working tree is never touched.
*/

use std::fmt;
use std::path::{Path, PathBuf};

use git2::{Repository, StatusOptions};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where in git a run was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GitInfo {
    /// The full commit id of HEAD.
    pub commit: String,
    /// The branch HEAD is on; absent when HEAD is detached.
    pub branch: Option<String>,
    /// Tracked files differ from HEAD (untracked files do not count).
    pub dirty: bool,
}

#[derive(Debug)]
pub enum GitError {
    /// A revision was asked for outside a git repository.
    NotARepository {
        dir: PathBuf,
    },
    /// The revision is not in this clone.
    UnknownRevision {
        revision: String,
        shallow: bool,
        message: String,
    },
    /// The file is not inside the repository's working tree.
    OutsideRepository {
        path: PathBuf,
        workdir: PathBuf,
    },
    Other(String),
}

impl fmt::Display for GitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GitError::NotARepository { dir } => write!(
                f,
                "{} is not in a git repository, so --baseline-ref and --memory-ref cannot be used; run from a clone",
                dir.display()
            ),
            GitError::UnknownRevision { revision, shallow: true, .. } => write!(
                f,
                "revision `{revision}` is not in this clone, which is shallow: fetch it (`git fetch --deepen=50 origin`, \
                 or `git fetch origin {revision}`; in GitHub Actions use actions/checkout with `fetch-depth: 0`)"
            ),
            GitError::UnknownRevision { revision, shallow: false, message } => write!(
                f,
                "revision `{revision}` is not in this repository ({message}); fetch it (`git fetch origin`) or check the name"
            ),
            GitError::OutsideRepository { path, workdir } => write!(
                f,
                "{} is outside the git working tree {}, so it cannot be read at another revision",
                path.display(),
                workdir.display()
            ),
            GitError::Other(m) => write!(f, "git: {m}"),
        }
    }
}

impl std::error::Error for GitError {}

fn other(e: git2::Error) -> GitError {
    GitError::Other(e.message().to_string())
}

/// The repository holding a folder.
pub struct Repo {
    repo: Repository,
}

impl Repo {
    /// The repository that holds `dir`, if any.
    pub fn discover(dir: &Path) -> Option<Repo> {
        Repository::discover(dir).ok().filter(|r| !r.is_bare()).map(|repo| Repo { repo })
    }

    /// Like [`Repo::discover`], but an error when there is none.
    pub fn require(dir: &Path) -> Result<Repo, GitError> {
        Repo::discover(dir).ok_or_else(|| GitError::NotARepository { dir: dir.to_path_buf() })
    }

    /// HEAD's commit, branch and whether tracked files differ from it;
    /// `None` in a repository with no commit yet.
    pub fn info(&self) -> Option<GitInfo> {
        let head = self.repo.head().ok()?;
        let commit = head.peel_to_commit().ok()?.id().to_string();
        let branch = if head.is_branch() { head.shorthand().map(str::to_string) } else { None };
        let mut options = StatusOptions::new();
        options.include_untracked(false).include_ignored(false);
        let dirty = self.repo.statuses(Some(&mut options)).map(|s| !s.is_empty()).unwrap_or(false);
        Some(GitInfo { commit, branch, dirty })
    }

    /// The full commit id a revision names.
    pub fn resolve(&self, revision: &str) -> Result<String, GitError> {
        let object = self.repo.revparse_single(revision).map_err(|e| GitError::UnknownRevision {
            revision: revision.to_string(),
            shallow: self.repo.is_shallow(),
            message: e.message().to_string(),
        })?;
        let commit = object.peel_to_commit().map_err(other)?;
        Ok(commit.id().to_string())
    }

    /// A file's bytes at a revision; `Ok(None)` when the revision does not
    /// have it. `path` is a path on disk (relative to the working folder
    /// or absolute) inside the working tree.
    pub fn read_at(&self, revision: &str, path: &Path) -> Result<Option<Vec<u8>>, GitError> {
        let relative = self.relative(path)?;
        let commit_id = self.resolve(revision)?;
        let oid = git2::Oid::from_str(&commit_id).map_err(other)?;
        let tree = self.repo.find_commit(oid).and_then(|c| c.tree()).map_err(other)?;
        let entry = match tree.get_path(&relative) {
            Ok(e) => e,
            Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(other(e)),
        };
        let blob = entry.to_object(&self.repo).and_then(|o| o.peel_to_blob()).map_err(other)?;
        Ok(Some(blob.content().to_vec()))
    }

    /// `path` relative to the root of the working tree.
    fn relative(&self, path: &Path) -> Result<PathBuf, GitError> {
        let workdir =
            self.repo.workdir().ok_or_else(|| GitError::Other("the repository has no working tree".into()))?;
        let workdir = workdir.canonicalize().unwrap_or_else(|_| workdir.to_path_buf());
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir().map_err(|e| GitError::Other(e.to_string()))?.join(path)
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
