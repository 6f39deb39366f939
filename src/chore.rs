/*!
Chores: tasks that are maintenance, not design (a typo fix, a dependency
bump, a formatting or changelog change, a documentation-only change), read
from the task's words alone.

No architectural decision governs a typo fix, and a retriever that injects
three decisions into one teaches the agent to ignore them. Profile
`default` retrieves nothing for a chore (`retrieval.skip_chores`,
docs/retrieval.md), and `draft` proposes chores as control scenarios that
expect nothing: both ask this module, so the suite's controls and the
retriever's silence follow one rule.

The rule is deliberately narrow, made of the conventions such changes are
written in rather than of any one repository's words:

- a Conventional Commits header of type `docs` or `style` (the
  specification's "documentation only" and "changes that do not affect the
  meaning of the code"), or of any type with the scope `deps` or a scope
  that names a chore (`fix(lint): …`, `chore(fmt): …`, `fix(typo): …`);
- a word that names a typo (`typo`, `typos`, `spelling`, `misspelled`, ...);
  a word is a run of letters, digits, `-` and `_`, so "typo-tolerant
  search" names none;
- a dependency bump as Dependabot and Renovate write it: `bump`, `bumps` or
  `bumped` with a version (`2.32.0`, `v4`) or a `from ... to ...`, or the
  word `dependabot` (not "bump the base image and deploy it", which a
  decision about images may well govern); or `update` or `upgrade` first
  and `to` and a version last, as Renovate titles its updates (`Update
  Terraform google to ~> 7.44.0`; not `Update EKS module to v18 and fix
  the turnup`);
- a word that names formatting (`whitespace`, `formatting`, `formatted`,
  `reformat`, `prettier`, `rustfmt`, `gofmt`, `indentation`), or `format`,
  `fmt` or `lint` as the task's first word (an imperative "Format the
  handlers", not "validate the format of the address");
- the word `changelog`;
- or, whatever the task says, an edit of one of the project's own papers:
  a changelog anywhere, the README, licence or list of authors at the
  repository's root, or one of GitHub's community health files
  (contributing guide, code of conduct, pull-request template, ...) where
  GitHub reads them ([`of_file`]).

A task that names a decision (`ADR-12`, `adr 12`) is never a chore: the
author said which decision governs it. Nor is a kind of chore that the team
decided about: when a decision's title names it (`Use Prettier for
formatting`, `Keep dependencies current with Dependabot`, `Keep a
changelog`, `One README per package`), tasks of that kind are retrieved
for as any other ([`named_by`]). The papers are their own kind: a decision
titled "Documentation" keeps `docs:` commits retrievable, not every edit
of the README.
*/

use serde::Serialize;

use crate::profile::Profile;
use crate::tokenize::normalise_path;

/// The kind of maintenance a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Chore {
    Typo,
    Dependency,
    Changelog,
    Formatting,
    Docs,
    /// An edit of the project's own papers (its README, licence, contributing
    /// guide, ...), whatever the task says.
    Papers,
}

impl Chore {
    /// The chore's bit in [`named_by`]'s set.
    pub fn bit(self) -> u8 {
        1 << self as u8
    }

    /// The chore in words: "a typo fix".
    pub fn word(self) -> &'static str {
        match self {
            Chore::Typo => "a typo fix",
            Chore::Dependency => "a dependency bump",
            Chore::Changelog => "a changelog edit",
            Chore::Formatting => "a formatting change",
            Chore::Docs => "a documentation-only change",
            Chore::Papers => "an edit of the project's own papers",
        }
    }
}

const TYPO: &[&str] = &["typo", "typos", "spelling", "misspelling", "misspellings", "misspelled", "misspelt"];
/// A bump is a chore with a version or a `from ... to ...` beside it.
const BUMP: &[&str] = &["bump", "bumps", "bumped"];
const DEPENDENCY: &[&str] = &["dependabot"];
/// The first words of a version update ([`renovate_update`]).
const UPDATE: &[&str] = &["update", "upgrade"];
const FORMATTING: &[&str] = &[
    "whitespace",
    "formatting",
    "formatted",
    "reformat",
    "reformats",
    "reformatted",
    "reformatting",
    "prettier",
    "rustfmt",
    "gofmt",
    "indentation",
];
/// Formatting only as the task's first word.
const FORMATTING_FIRST: &[&str] = &["format", "fmt", "lint"];
const CHANGELOG: &[&str] = &["changelog"];
/// Words of a title that decide about dependencies or documentation.
const DEPENDENCY_SUBJECT: &[&str] = &["dependency", "dependencies", "renovate"];
/// Words of a title that decide about formatting (not `format`, which
/// titles use for data: "the output format").
const FORMATTING_TITLE: &[&str] = &["lint", "linting", "linter", "linters", "fmt"];
const DOCS_SUBJECT: &[&str] = &["docs", "documentation", "readme", "readmes"];
/// The extensions of a document rather than of code or configuration.
const DOCUMENT: &[&str] = &["MD", "MARKDOWN", "TXT", "RST", "ADOC"];
/// Words of a title that decide about the project's own papers (a decision
/// titled "Documentation" is about documenting the system, not about the
/// README's links).
const PAPERS_SUBJECT: &[&str] =
    &["readme", "contributing", "contributors", "licence", "license", "licensing", "conduct"];
/// Words that, after `dependency`, name a design pattern rather than the
/// project's dependencies: "Usage of Dependency Injection" decides nothing
/// about bumping them.
const DEPENDENCY_PATTERN: &[&str] = &["injection", "injections", "inversion"];
/// GitHub's community health files (its documentation, "Creating a default
/// community health file"): papers about the project rather than parts of
/// the system, read at the repository's root, in `.github/` or in `docs/`.
const COMMUNITY_HEALTH: &[&str] =
    &["CODE_OF_CONDUCT", "CONTRIBUTING", "FUNDING", "GOVERNANCE", "SECURITY", "SUPPORT", "PULL_REQUEST_TEMPLATE"];

/// The chore a query is: its task's ([`of`]), else its edited file's
/// ([`of_file`], a path as the retriever normalises it); never when the
/// task names a decision.
pub fn of_query(task: &str, file: Option<&str>) -> Option<Chore> {
    let lower = task.to_lowercase();
    let words = words_of(&lower);
    if names_a_decision(&words) {
        return None;
    }
    of_words(&lower, &words).or_else(|| file.and_then(|f| of_file(f).or_else(|| docs_edit(&words, f))))
}

/// A documentation-only change told by the task and the file together: the
/// task names documentation (`docs`, `documentation`, `readme`, `readmes`)
/// and the edited file is a document (Markdown, text, reStructuredText or
/// AsciiDoc), wherever it is: "README update: add setup steps" on
/// `web/README.md`, "Fix path of abTests.ts in docs" on `docs/ab-testing.md`.
fn docs_edit(words: &[&str], path: &str) -> Option<Chore> {
    let name = path.rsplit_once(['/', '\\']).map_or(path, |(_, name)| name);
    let ext = name.rsplit_once('.')?.1.to_ascii_uppercase();
    (DOCUMENT.contains(&ext.as_str()) && words.iter().any(|w| DOCS_SUBJECT.contains(w))).then_some(Chore::Docs)
}

/// The chore a query is when `profile` skips chores (profile `default`
/// unless `retrieval.skip_chores: false`), of the kinds no decision decided
/// about (`decided`: the [`named_by`] bits of the pool's titles). A query
/// can be a chore of several kinds, by its task and by its edited file (as
/// the retriever normalises its path): "docs: fix the links" on the root
/// `README.md` is documentation and an edit of the project's papers, and a
/// decision titled "Documentation automation" decides the first kind but
/// not the second, so the query is still a chore (of the papers).
pub fn skipped_by(profile: &Profile, task: &str, file: Option<&str>, decided: u8) -> Option<Chore> {
    profile.bm25f.filter(|b| b.skip_chores)?;
    let lower = task.to_lowercase();
    let words = words_of(&lower);
    if names_a_decision(&words) {
        return None;
    }
    let file = file.map(normalise_path);
    let by_file = || {
        file.as_deref()
            .and_then(|f| of_file(f).into_iter().chain(docs_edit(&words, f)).find(|c| decided & c.bit() == 0))
    };
    of_words(&lower, &words).filter(|c| decided & c.bit() == 0).or_else(by_file)
}

/// The chore an edit of `path` is when the file is one of a project's
/// own papers: a changelog (`CHANGELOG*`, `CHANGES*`, `NEWS*`, `HISTORY*`)
/// wherever it is; the README, licence or list of authors at the
/// repository's root (a README deeper down documents a part of the system,
/// which decisions may govern); or one of GitHub's community health files
/// (contributing guide, code of conduct, security policy, pull-request and
/// issue templates, ...) where GitHub reads them: the root, `.github/` or
/// `docs/`.
pub fn of_file(path: &str) -> Option<Chore> {
    let (folder, name) = path.rsplit_once(['/', '\\']).unwrap_or(("", path));
    let name = name.to_ascii_uppercase();
    let stem = name.split('.').next().unwrap_or(&name);
    let folder = folder.to_ascii_lowercase();
    // A paper, not a source file that happens to be called `security.py`.
    let paper = name.rsplit_once('.').is_none_or(|(_, ext)| DOCUMENT.contains(&ext));
    let health_folder = paper && matches!(folder.as_str(), "" | ".github" | "docs");
    match stem {
        "CHANGELOG" | "CHANGES" | "NEWS" | "HISTORY" => Some(Chore::Changelog),
        "README" | "LICENSE" | "LICENCE" | "COPYING" | "AUTHORS" | "CONTRIBUTORS" | "MAINTAINERS"
            if folder.is_empty() =>
        {
            Some(Chore::Papers)
        }
        _ if health_folder && COMMUNITY_HEALTH.contains(&stem) => Some(Chore::Papers),
        // Issue and pull-request templates kept as folders of forms.
        _ if matches!(folder.as_str(), ".github/issue_template" | ".github/pull_request_template") => {
            Some(Chore::Papers)
        }
        _ => None,
    }
}

/// The words of a lower-cased text: runs of letters, digits, `-` and `_`,
/// without `-` and `_` at their ends ("typo-tolerant" is one word).
fn words_of(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .map(|w| w.trim_matches(['-', '_']))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The whitespace-separated pieces of a lower-cased task without the
/// punctuation around them (`(#123)` → `123`, `~>` → nothing), the empty
/// ones left out: where a version is looked for.
fn pieces(lower: &str) -> impl Iterator<Item = &str> {
    lower.split_whitespace().map(|p| p.trim_matches(|c: char| !c.is_alphanumeric())).filter(|p| !p.is_empty())
}

/// A version as a bump names it: `2.32.0`, `1.4`, `v4`, `v2.1`.
fn is_version(piece: &str) -> bool {
    let digits = piece.strip_prefix('v').unwrap_or(piece);
    !digits.is_empty()
        && digits.starts_with(|c: char| c.is_ascii_digit())
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && (piece.starts_with('v') || digits.contains('.'))
}

/// The chore `task` is, if it is one.
pub fn of(task: &str) -> Option<Chore> {
    of_query(task, None)
}

/// The chore of a task that names no decision, from its lower-cased text
/// and its [`words_of`].
fn of_words(lower: &str, words: &[&str]) -> Option<Chore> {
    if let Some(chore) = conventional_header(lower) {
        return Some(chore);
    }
    let has = |list: &[&str]| words.iter().any(|w| list.contains(w));
    if has(TYPO) {
        return Some(Chore::Typo);
    }
    if let Some(at) = words.iter().position(|w| BUMP.contains(w)) {
        let after = &words[at + 1..];
        let from_to = after.iter().position(|w| *w == "from").is_some_and(|f| after[f..].contains(&"to"));
        let version = pieces(lower).any(is_version);
        if from_to || version {
            return Some(Chore::Dependency);
        }
    }
    if has(DEPENDENCY) || renovate_update(lower, words) {
        return Some(Chore::Dependency);
    }
    if has(FORMATTING) || words.first().is_some_and(|w| FORMATTING_FIRST.contains(w)) {
        return Some(Chore::Formatting);
    }
    if has(CHANGELOG) {
        return Some(Chore::Changelog);
    }
    None
}

/// A version update as Renovate titles it, and as people write one: the
/// task begins with `update` or `upgrade` and ends with `to` and a version
/// (`Update Terraform google to ~> 7.44.0`, `Update dependency lodash to
/// v4.17.21`, `Upgrade actions/checkout to v4`), but for a reference
/// number (`(#123)`) or Renovate's `(major)` or `[SECURITY]` after it. A
/// task that goes on after the version says what else it does and stays a
/// task (`Update EKS module to v18 and fix cluster turnup blockers`), as
/// does one that names the version elsewhere (`Django 5.2 Upgrade`).
fn renovate_update(lower: &str, words: &[&str]) -> bool {
    if !words.first().is_some_and(|w| UPDATE.contains(w)) {
        return false;
    }
    let mut pieces: Vec<&str> = pieces(lower).collect();
    while pieces.last().is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()) || matches!(*p, "major" | "security")) {
        pieces.pop();
    }
    pieces.len() >= 4 && is_version(pieces[pieces.len() - 1]) && pieces[pieces.len() - 2] == "to"
}

/// The kinds of chore a decision's title names, as bits (`1 << kind`):
/// the words that make a task that chore, and for dependencies and
/// documentation the words that name the subject itself.
pub fn named_by(title: &str) -> u8 {
    let lower = title.to_lowercase();
    let mut bits = 0;
    let words = words_of(&lower);
    for (i, &w) in words.iter().enumerate() {
        let subject =
            DEPENDENCY_SUBJECT.contains(&w) && !words.get(i + 1).is_some_and(|next| DEPENDENCY_PATTERN.contains(next));
        let kinds = [
            (Chore::Typo, TYPO.contains(&w)),
            (Chore::Dependency, BUMP.contains(&w) || DEPENDENCY.contains(&w) || subject),
            (Chore::Changelog, CHANGELOG.contains(&w)),
            (Chore::Formatting, FORMATTING.contains(&w) || FORMATTING_TITLE.contains(&w)),
            (Chore::Docs, DOCS_SUBJECT.contains(&w)),
            (Chore::Papers, PAPERS_SUBJECT.contains(&w)),
        ];
        for (kind, named) in kinds {
            if named {
                bits |= kind.bit();
            }
        }
    }
    bits
}

/// `ADR-12`, `adr 12`, `ADR0012`, `adr_7`: the words of the task name a
/// decision.
fn names_a_decision(words: &[&str]) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    words.iter().enumerate().any(|(i, w)| {
        w.strip_prefix("adr").is_some_and(|rest| {
            let rest = rest.trim_start_matches(['-', '_']);
            digits(rest) || (rest.is_empty() && words.get(i + 1).is_some_and(|n| digits(n)))
        })
    })
}

/// A Conventional Commits header (`type(scope)!: subject`) that marks a
/// chore: type `docs` or `style`; or, of any type, the scope `deps`, or a
/// scope that is a word of a chore's kind (`fix(lint): …`, `chore(fmt): …`,
/// `fix(typo): …`, `chore(changelog): …`).
fn conventional_header(lower: &str) -> Option<Chore> {
    let (head, _) = lower.split_once(": ")?;
    let head = head.trim_start().strip_suffix('!').unwrap_or(head.trim_start());
    let (kind, scope) = match head.split_once('(') {
        Some((kind, rest)) => (kind, rest.strip_suffix(')')?),
        None => (head, ""),
    };
    if kind.is_empty() || !kind.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    if scope == "deps" || scope.starts_with("deps-") {
        return Some(Chore::Dependency);
    }
    // Not `format`, which names a part as often as a chore (`feat(format):`).
    if FORMATTING.contains(&scope) || matches!(scope, "fmt" | "lint") {
        return Some(Chore::Formatting);
    }
    if TYPO.contains(&scope) {
        return Some(Chore::Typo);
    }
    if CHANGELOG.contains(&scope) {
        return Some(Chore::Changelog);
    }
    match kind {
        "docs" => Some(Chore::Docs),
        "style" => Some(Chore::Formatting),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maintenance_tasks_are_chores() {
        let cases = [
            ("Fixed a typo (#650)", Some(Chore::Typo)),
            ("Spelling and formatting in football match stats", Some(Chore::Typo)),
            ("Bump requests from 2.31.0 to 2.32.0 in /terraform/lambda", Some(Chore::Dependency)),
            ("Bump actions/github-script from 8 to 9", Some(Chore::Dependency)),
            ("Bump serde to 1.0.200", Some(Chore::Dependency)),
            ("bumped checkout to v4", Some(Chore::Dependency)),
            ("Dependabot: weekly updates", Some(Chore::Dependency)),
            ("chore(deps): update kong/kong-mesh to 0.5.0", Some(Chore::Dependency)),
            ("Update Terraform google to ~> 7.44.0", Some(Chore::Dependency)),
            ("Update dependency lodash to v4.17.21 [SECURITY]", Some(Chore::Dependency)),
            ("Update module github.com/spf13/cobra to v1.8.1 (#2201)", Some(Chore::Dependency)),
            ("Update Helm release external-dns to v1.15.0 (major)", Some(Chore::Dependency)),
            ("Upgrade actions/checkout to v4", Some(Chore::Dependency)),
            ("build(deps-dev): update eslint", Some(Chore::Dependency)),
            ("whitespace changes", Some(Chore::Formatting)),
            ("Fix prettier issue (#16090)", Some(Chore::Formatting)),
            ("formatted model files for readability", Some(Chore::Formatting)),
            ("Format the payment handlers", Some(Chore::Formatting)),
            ("style: sort imports", Some(Chore::Formatting)),
            ("Initial changelog 1.4.0 (#511)", Some(Chore::Changelog)),
            ("docs(README): refresh it (#15562)", Some(Chore::Docs)),
            ("docs!: drop the old guide", Some(Chore::Docs)),
            ("fix(lint): Remove deprecated `// +build` directives (#5475)", Some(Chore::Formatting)),
            ("chore(fmt): run gofmt", Some(Chore::Formatting)),
            ("fix(typo): in the handler", Some(Chore::Typo)),
            ("chore(changelog): v1.2", Some(Chore::Changelog)),
            // A scope that names the part of the system stays a task.
            ("fix(linter-config): load the rules from the repository", None),
            ("feat(format): read the TOML input format", None),
        ];
        for (task, want) in cases {
            assert_eq!(of(task), want, "{task}");
        }
    }

    #[test]
    fn a_query_is_a_chore_of_any_kind_no_decision_decided() {
        let p = Profile::of(crate::profile::Named::Default);
        let docs = named_by("Documentation Automation");
        assert_ne!(docs & Chore::Docs.bit(), 0);
        let task = "docs: fix incorrect developer documentation links (#4970)";
        assert_eq!(skipped_by(&p, task, Some("README.md"), 0), Some(Chore::Docs));
        // Documentation is decided, the project's papers are not.
        assert_eq!(skipped_by(&p, task, Some("README.md"), docs), Some(Chore::Papers));
        assert_eq!(skipped_by(&p, task, Some("./README.md"), docs), Some(Chore::Papers));
        assert_eq!(skipped_by(&p, "docs: improve the exception mappers", Some("ext/jersey/README.md"), docs), None);
        assert_eq!(skipped_by(&p, task, Some("README.md"), docs | named_by("One README per package")), None);
        // Neither kind, nor a task that names a decision, nor a profile that ranks chores.
        assert_eq!(skipped_by(&p, "Fix the ledger per ADR-7", Some("README.md"), 0), None);
        let classic = Profile::of(crate::profile::Named::Classic);
        assert_eq!(skipped_by(&classic, task, Some("README.md"), 0), None);
    }

    #[test]
    fn edits_of_a_project_s_own_papers_are_chores() {
        assert_eq!(of_query("Updated hack link", Some("README.md")), Some(Chore::Papers));
        assert_eq!(of_query("Update the guide", Some("Contributing.md")), Some(Chore::Papers));
        assert_eq!(of_query("Updated release cadence", Some("docs/operations/README.md")), None);
        assert_eq!(of_query("Release 1.4", Some("CHANGELOG.md")), Some(Chore::Changelog));
        assert_eq!(of_query("Release 1.4", Some("packages/ui/CHANGES.md")), Some(Chore::Changelog));
        assert_eq!(of_query("Consolidate README.md files per ADR-0004", Some("README.md")), None);
        assert_eq!(of_query("Store orders in Postgres", Some("services/orders/readme_parser.py")), None);
        assert_eq!(of_query("Store orders in Postgres", None), None);
        assert_eq!(of_query("Fix a typo", Some("src/app.py")), Some(Chore::Typo));
        assert_eq!(of_query("Fix indent", Some(".github/PULL_REQUEST_TEMPLATE.md")), Some(Chore::Papers));
    }

    #[test]
    fn a_task_about_documentation_on_a_document_is_a_docs_chore() {
        assert_eq!(of_query("README update: add setup steps", Some("web/README.md")), Some(Chore::Docs));
        assert_eq!(of_query("Fix path of abTests.ts in docs (#15495)", Some("web/docs/ab.md")), Some(Chore::Docs));
        assert_eq!(of_query("Update generated READMEs", Some("infra/vpc/README.rst")), Some(Chore::Docs));
        // Code, or a task that does not say it is about documentation.
        assert_eq!(of_query("Add docs and error checking", Some("src/Client.cs")), None);
        assert_eq!(of_query("Add WritingStories docs to Storybook", Some("src/WritingStories.mdx")), None);
        assert_eq!(of_query("Updated release cadence", Some("docs/operations/README.md")), None);
        assert_eq!(of_query("Document the ADR-0004 layout in docs", Some("docs/layout.md")), None);
        assert_eq!(of_query("Ask for a version", Some(".github/ISSUE_TEMPLATE/bug.yml")), Some(Chore::Papers));
        assert_eq!(of_query("Report privately", Some("docs/SECURITY.md")), Some(Chore::Papers));
        assert_eq!(of_query("Explain the review", Some(".github/CONTRIBUTING.md")), Some(Chore::Papers));
        assert_eq!(of_query("Check the signature", Some("src/security.rs")), None);
        assert_eq!(of_query("Check the signature", Some("security.py")), None);
        assert_eq!(of_query("Document the contributing flow", Some("docs/guide/CONTRIBUTING.md")), None);
        assert_eq!(of_query("Describe the workflow", Some(".github/README.md")), None);
    }

    #[test]
    fn titles_name_the_chores_a_team_decided_about() {
        assert_eq!(named_by("Use Prettier for code formatting"), Chore::Formatting.bit());
        assert_eq!(named_by("Keep dependencies current with Renovate"), Chore::Dependency.bit());
        assert_eq!(named_by("Keep a changelog; document in docs/"), Chore::Changelog.bit() | Chore::Docs.bit());
        assert_eq!(named_by("Documentation"), Chore::Docs.bit());
        assert_eq!(named_by("One README per package"), Chore::Docs.bit() | Chore::Papers.bit());
        assert_eq!(named_by("License headers in every file"), Chore::Papers.bit());
        assert_eq!(named_by("Store orders in Postgres"), 0);
        assert_eq!(named_by("SNI format improvements"), 0);
        assert_eq!(named_by("MeshTLS: mode, version, cipher"), 0);
        assert_eq!(named_by("Usage of Dependency Injection"), 0);
        assert_eq!(named_by("Dependency inversion between modules"), 0);
        assert_eq!(named_by("Pin dependencies, inject secrets at deploy"), Chore::Dependency.bit());
    }

    #[test]
    fn design_work_is_not_a_chore() {
        for task in [
            "feat(sni): added validation of format (#16625)",
            "Add docs + error checking for free trial users",
            "Consolidate README.md files in /src",
            "Store orders in Postgres",
            "feat: emit refund events through the outbox",
            "fix(payments): retry the ledger call",
            "Use a lint rule to forbid direct database access",
            "Reformat the ledger client per ADR-0005",
            "Bump the Go base image in the Dockerfile and deploy the new image",
            "Update EKS module to v18 and fix cluster turnup blockers.",
            "Django 5.2 Upgrade",
            "Upgrade to 5.2",
            "Update the refund flow to v2 of the ledger API",
            "Update the ledger client to 2",
            "Move the ledger client to v2",
            "Add typo-tolerant product search with facets",
            "Fix misspelled_field parsing",
            "Fix the spelling of PaymentId as adr 12 says",
            "docs",
            ": nothing",
            "",
        ] {
            assert_eq!(of(task), None, "{task}");
        }
    }
}
