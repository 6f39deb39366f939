/*!
The gate's plan of `run` and `merge`: the baselines and the memory at other
revisions, read from the working tree and from git into the plain values
[`crate::evaluate`] decides from. Reading is this module's; choosing and
judging are the stage's.
*/

use std::path::Path;

use super::settings::{ConcludeSettings, MemorySettings};
use crate::baseline::{self, AtRevision};
use crate::error::Error;
use crate::evaluate::{BaselineInput, MemoryNow, OldMemory, Plan, Since};
use crate::gate::GateSettings;
use crate::git::{GitError, GitInfo, Repo};
use crate::memory::{Decision, Memory};
use crate::profile::Family;
use crate::report::{display_path, Report};
use crate::retrieval::Index;

/// How many commits `no_new_ungated` looks back for the memory file a
/// baseline was pinned with.
const HISTORY_LIMIT: usize = 1000;

/// The git repository the command runs in, or why there is none: found
/// once, and required only by the flags that need one.
pub(crate) struct Repository {
    repo: Option<Repo>,
    missing: Option<GitError>,
}

impl Repository {
    /// The repository of the working folder, when `git` (else none, and no
    /// reason).
    pub(crate) fn find(git: bool) -> Repository {
        let found = match (git, std::env::current_dir()) {
            (true, Ok(dir)) => Some(Repo::require(&dir)),
            _ => None,
        };
        match found {
            Some(Ok(repo)) => Repository { repo: Some(repo), missing: None },
            Some(Err(e)) => Repository { repo: None, missing: Some(e) },
            None => Repository { repo: None, missing: None },
        }
    }

    /// The commit of the run, for the reports.
    pub(crate) fn info(&self) -> Option<GitInfo> {
        self.repo.as_ref().and_then(Repo::info)
    }

    /// The repository, or why there is none (not a repository, or one git
    /// refuses to open because another user owns it).
    fn require(&self) -> Result<&Repo, Error> {
        match (&self.repo, &self.missing) {
            (Some(repo), _) => Ok(repo),
            (None, Some(GitError::NotSafe { repo })) => Err(Error::Git(GitError::NotSafe { repo: repo.clone() })),
            (None, _) => {
                let dir = std::env::current_dir().unwrap_or_else(|_| ".".into());
                Err(Error::Git(GitError::NotARepository { dir }))
            }
        }
    }
}

/// What the suite ran on and how it was cut, besides the report.
pub(crate) struct Ran<'a> {
    pub gate: &'a GateSettings,
    /// The run holds part of the suite (`--filter`).
    pub filtered: bool,
    /// The decision sources and profile the suite ran under.
    pub memory: &'a MemorySettings,
    /// The memory, loaded (`merge` loads it only for `--memory-ref`).
    pub index: Option<&'a Index>,
}

/// Reads what the plan of `s` needs for `report`: the baseline (and its
/// copy at the base revision), the memory at `--memory-ref`, and what
/// `no_new_ungated` compares the pool with.
pub(crate) fn read<'a>(
    s: &ConcludeSettings,
    ran: Ran<'a>,
    report: &Report,
    repo: &Repository,
) -> Result<Plan<'a>, Error> {
    let baseline = match &s.baseline {
        Some(plan) => {
            let shown = display_path(&plan.path);
            let working = match baseline::load(&plan.path) {
                Ok(r) => Some(r),
                Err(baseline::BaselineError::Missing { .. }) if plan.revision.is_some() => None,
                Err(e) => return Err(e.into()),
            };
            let at = match &plan.revision {
                None => None,
                Some(rev) => {
                    let repo = repo.require()?;
                    let commit = repo.resolve(rev)?;
                    let report = match repo.read_at(rev, &plan.path)? {
                        Some(bytes) => {
                            Some(baseline::parse(&format!("{rev}:{shown}"), &String::from_utf8_lossy(&bytes))?)
                        }
                        None => None,
                    };
                    Some(AtRevision { revision: rev.clone(), commit, report })
                }
            };
            Some(BaselineInput { plan: plan.clone(), shown, working, at })
        }
        None => None,
    };
    let family = ran.memory.profile.family;
    let memory_ref = match &s.memory_ref {
        Some(rev) => {
            let Some(path) = ran.memory.file() else {
                return Err(Error::Usage(format!(
                    "--memory-ref compares one memory file with its version at {rev}; the memory here is read from sources ({}): import them at both revisions and compare the files",
                    ran.memory.sources.label()
                )));
            };
            let pool = pool_of(path, repo.require()?.read_at(rev, path)?, family);
            Some(OldMemory { against: rev.clone(), pool })
        }
        None => None,
    };
    let since = if memory_ref.is_none() && Plan::judges_new_decisions(ran.gate, ran.filtered) {
        since(ran.memory, baseline.as_ref(), report, repo)?
    } else {
        None
    };
    let memory = ran.index.map(|index| MemoryNow { pool: index.decisions(), excluded: index.excluded() });
    Ok(Plan { gate: ran.gate, filtered: ran.filtered, baseline, memory, memory_ref, since })
}

/// What `no_new_ungated` compares the pool with, without `--memory-ref`:
/// the memory at `--baseline-ref`, else the memory the baseline was pinned
/// with (by its SHA-256: the working tree's file when it is unchanged, else
/// the newest version of it in HEAD's history). `None` when there is no
/// baseline.
fn since(
    memory: &MemorySettings,
    baseline: Option<&BaselineInput>,
    report: &Report,
    repo: &Repository,
) -> Result<Option<Since>, Error> {
    let Some(path) = memory.file() else {
        return Err(Error::Usage(format!(
            "gate rule no_new_ungated compares the memory file with the version the baseline was pinned with; the memory here is read from sources ({}): import them into one memory file, or set the rule off",
            memory.sources.label()
        )));
    };
    let family = memory.profile.family;
    let Some(baseline) = baseline else { return Ok(None) };
    if let Some(rev) = &baseline.plan.revision {
        let pool = pool_of(path, repo.require()?.read_at(rev, path)?, family);
        return Ok(Some(Since::Memory(OldMemory { against: rev.clone(), pool })));
    }
    // Without a revision the baseline compared with is the working tree's.
    let Some(sha) = baseline.working.as_ref().map(|b| b.fingerprint.memory.sha256.as_str()) else {
        return Ok(None);
    };
    if sha == report.fingerprint.memory.sha256 {
        return Ok(Some(Since::Unchanged { against: "the memory the baseline was pinned with".into() }));
    }
    let found = match repo.require() {
        Ok(repo) => repo.find_version(path, sha, HISTORY_LIMIT)?,
        Err(_) => None,
    };
    match found {
        Some((commit, bytes)) => Ok(Some(Since::Memory(OldMemory {
            against: format!("the memory the baseline was pinned with (commit {})", &commit[..12]),
            pool: pool_of(path, Some(bytes), family),
        }))),
        None => Err(Error::Usage(format!(
            "gate rule no_new_ungated: the baseline was pinned with another version of {} (sha256 {sha}), \
             and no commit among the last {HISTORY_LIMIT} of HEAD has it, so the decisions added since \
             cannot be told; pass --memory-ref REV (the revision to compare with), or --baseline-ref REV",
            display_path(path)
        ))),
    }
}

/// The retrieval pool of a memory file's bytes at another revision (none
/// when the file did not exist there).
fn pool_of(path: &Path, bytes: Option<Vec<u8>>, family: Family) -> Vec<Decision> {
    match bytes {
        Some(bytes) => Memory::parse(path, String::from_utf8_lossy(&bytes).into_owned(), family).pool,
        None => Vec::new(),
    }
}
