//! Drafts from throw-away repositories made here with git2: every kind of
//! evidence, controls, determinism, bounded walks, merges that keep
//! reviewed scenarios, and the writers' escaping.

use std::path::Path;

use git2::{Repository, Signature, Time};

use super::yaml::{self, Entry};
use super::*;
use crate::memory::{DecisionSource, Memory, SourceKind, Sources};
use crate::profile::{Family, Profile};

pub(crate) struct Repo {
    pub dir: tempfile::TempDir,
    pub repo: Repository,
    tick: i64,
}

impl Repo {
    pub fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        Repo { dir, repo, tick: 0 }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes (`Some`) or deletes (`None`) files and commits them on HEAD.
    pub fn commit(&mut self, message: &str, files: &[(&str, Option<&str>)]) -> String {
        let mut index = self.repo.index().unwrap();
        for (path, text) in files {
            let full = self.dir.path().join(path);
            match text {
                Some(t) => {
                    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
                    std::fs::write(&full, t).unwrap();
                    index.add_path(Path::new(path)).unwrap();
                }
                None => {
                    std::fs::remove_file(&full).unwrap();
                    index.remove_path(Path::new(path)).unwrap();
                }
            }
        }
        index.write().unwrap();
        let tree = self.repo.find_tree(index.write_tree().unwrap()).unwrap();
        self.tick += 60;
        let who = Signature::new("T", "t@example.com", &Time::new(1_700_000_000 + self.tick, 0)).unwrap();
        let parent = self.repo.head().ok().and_then(|h| h.peel_to_commit().ok());
        let parents: Vec<&git2::Commit> = parent.iter().collect();
        self.repo.commit(Some("HEAD"), &who, &who, message, &tree, &parents).unwrap().to_string()
    }
}

const ORDERS: &str = "# 12. Store orders in Postgres\n\n## Status\n\nAccepted\n\n## Context\n\nOrders need transactions.\n\n## Decision\n\nThe orders service stores orders in Postgres, never in Redis.\n";
const QUEUE: &str = "# 3. Publish payment events through the outbox\n\n## Status\n\nAccepted\n\n## Decision\n\nPayment events go through the transactional outbox table.\n";
const RULE: &str = "---\ndescription: Web components use the design system\nglobs: \"web/**\"\nalwaysApply: false\n---\n# Web components use the design system\n\nEvery button comes from the design system package.\n";

/// The decisions of the repository as it is now.
fn index_of(repo: &Repo) -> Index {
    index_at(repo.path())
}

fn index_at(root: &Path) -> Index {
    let list = [(SourceKind::Adr, "docs/adr/"), (SourceKind::Cursor, ".cursor/rules/")]
        .into_iter()
        .filter(|(_, p)| root.join(p).is_dir())
        .map(|(kind, p)| DecisionSource::new(kind, root.join(p)))
        .collect();
    let sources = Sources { list, root: root.to_path_buf() };
    let memory = Memory::load_sources(&sources, Family::Default).unwrap();
    Index::build(memory, Profile::named(Family::Default))
}

fn draft_of(repo: &Repo, window: Window) -> Draft {
    let index = index_of(repo);
    draft_repository(repo.path(), repo.path(), &index, &window).unwrap().unwrap()
}

fn whole() -> Window {
    Window { since: None, max: DEFAULT_MAX }
}

/// A repository with the three decisions and one commit of each kind.
fn sample() -> (Repo, Vec<String>) {
    let mut r = Repo::new();
    let mut c = Vec::new();
    c.push(r.commit(
        "Add the decisions",
        &[
            ("docs/adr/0012-store-orders-in-postgres.md", Some(ORDERS)),
            ("docs/adr/0003-outbox.md", Some(QUEUE)),
            (".cursor/rules/web.mdc", Some(RULE)),
        ],
    ));
    // Strong: the decision edited in the same change as the code.
    c.push(r.commit(
        "Move order writes to a Postgres transaction",
        &[
            (
                "docs/adr/0012-store-orders-in-postgres.md",
                Some(&format!("{ORDERS}\nAmended: one transaction per order.\n")),
            ),
            ("services/orders/store.py", Some("def save(order):\n    pass\n")),
        ],
    ));
    // Named: the message names ADR 3.
    c.push(
        r.commit("Emit refund events (adr 3)", &[("services/payments/refunds.py", Some("def refund():\n    pass\n"))]),
    );
    // Named by its title.
    c.push(r.commit(
        "Follow store orders in Postgres for the archive job",
        &[("jobs/archive.py", Some("def archive():\n    pass\n"))],
    ));
    // Scope: a file inside the rule's globs.
    c.push(r.commit("Add a checkout button", &[("web/checkout/Button.tsx", Some("export const B = 1;\n"))]));
    // Controls, and a change nothing governs that is not one.
    c.push(r.commit("Fix a typo in the README", &[("README.md", Some("Hello\n"))]));
    c.push(r.commit("Bump serde to 1.0.200", &[("Cargo.lock", Some("lock\n"))]));
    c.push(r.commit("Add a health endpoint", &[("services/health.py", Some("ok\n"))]));
    // A decision alone: nothing for an agent to do.
    c.push(r.commit(
        "Clarify the outbox decision",
        &[("docs/adr/0003-outbox.md", Some(&format!("{QUEUE}\nClarified.\n")))],
    ));
    // Title words no other title has: in the message, in a path.
    c.push(r.commit("Retry the outbox relay", &[("services/relay.py", Some("retry = 3\n"))]));
    c.push(r.commit("Tune the connection pool", &[("db/payment/pool.py", Some("size = 5\n"))]));
    // A title word in many commits of the history points at nothing.
    c.push(r.commit("Tune the settings", &[("cfg/postgres.toml", Some("pool = 5\n"))]));
    (r, c)
}

fn find<'a>(d: &'a Draft, hash: &str) -> Option<&'a Drafted> {
    d.scenarios.iter().find(|s| s.commit.hash == hash)
}

fn ids(s: &Drafted) -> Vec<&str> {
    s.expect.iter().map(|p| p.id.as_str()).collect()
}

#[test]
fn every_kind_of_evidence_proposes_its_decision() {
    let (r, c) = sample();
    let d = draft_of(&r, whole());
    let index = index_of(&r);
    let id_of =
        |file: &str| index.decisions().iter().find(|d| d.origin().unwrap().file.ends_with(file)).unwrap().id.clone();
    let (orders, outbox, web) = (id_of("0012-store-orders-in-postgres.md"), id_of("0003-outbox.md"), id_of("web.mdc"));

    let strong = find(&d, &c[1]).expect("the commit that edits the decision and the code");
    assert_eq!(ids(strong), [orders.as_str()]);
    assert!(strong.expect[0].is_strong(), "{strong:?}");
    assert_eq!(strong.file.as_deref(), Some("services/orders/store.py"));
    assert_eq!(strong.task, "Move order writes to a Postgres transaction");
    assert_eq!(strong.commit.hash, c[1]);
    assert_eq!(strong.id, format!("draft-{}", &c[1][..12]));

    let named = find(&d, &c[2]).unwrap();
    assert_eq!(ids(named), [outbox.as_str()]);
    assert_eq!(named.expect[0].evidence[0], Evidence::Names { mention: "adr 3".into() });
    assert!(!named.expect[0].is_strong());

    let titled = find(&d, &c[3]).unwrap();
    assert_eq!(ids(titled), [orders.as_str()]);
    assert!(
        matches!(&titled.expect[0].evidence[0], Evidence::Names { mention } if mention == "store orders in postgres")
    );

    let scoped = find(&d, &c[4]).unwrap();
    assert_eq!(ids(scoped), [web.as_str()]);
    assert_eq!(
        scoped.expect[0].evidence,
        [
            Evidence::Scope { file: "web/checkout/Button.tsx".into(), glob: "web/**".into() },
            // A short title word no other title has, in the path.
            Evidence::Topic { word: "web".into(), file: Some("web/checkout/Button.tsx".into()) }
        ]
    );
    assert_eq!(scoped.file.as_deref(), Some("web/checkout/Button.tsx"));

    assert_eq!(find(&d, &c[5]).unwrap().control, Some(Control::Typo));
    assert_eq!(find(&d, &c[6]).unwrap().control, Some(Control::Dependency));
    assert!(find(&d, &c[5]).unwrap().expect.is_empty());
    assert!(find(&d, &c[7]).is_none(), "a change nothing governs that is no control is not drafted");
    assert!(find(&d, &c[8]).is_none(), "a change to a decision alone gives an agent nothing to do");
    assert!(find(&d, &c[0]).is_none());
    let topic = find(&d, &c[9]).unwrap();
    assert_eq!(ids(topic), [outbox.as_str()]);
    assert_eq!(topic.expect[0].evidence, [Evidence::Topic { word: "outbox".into(), file: None }]);
    let topic = find(&d, &c[10]).unwrap();
    assert_eq!(ids(topic), [outbox.as_str()]);
    assert_eq!(
        topic.expect[0].evidence,
        [Evidence::Topic { word: "payment".into(), file: Some("db/payment/pool.py".into()) }]
    );
    assert!(find(&d, &c[11]).is_none(), "`postgres` is in 5 of 12 commits");
    // Newest first, controls last.
    let order: Vec<&str> = d.scenarios.iter().map(|s| s.commit.hash.as_str()).collect();
    assert_eq!(order, [&c[10], &c[9], &c[4], &c[3], &c[2], &c[1], &c[6], &c[5]].map(String::as_str));
    assert_eq!(d.examined, 12);
    // The current top k is computed, and kept apart from the proposal.
    assert!(!strong.top.is_empty());
}

#[test]
fn a_bulk_edit_of_decisions_proposes_none_of_them() {
    let mut r = Repo::new();
    let adrs: Vec<(String, String)> = (1..=5)
        .map(|n| {
            (
                format!("docs/adr/{n:04}-rule-{n}.md"),
                format!("# {n}. Rule number {n} for widgets\n\n## Status\n\nAccepted\n"),
            )
        })
        .collect();
    let files: Vec<(&str, Option<&str>)> = adrs.iter().map(|(p, t)| (p.as_str(), Some(t.as_str()))).collect();
    r.commit("Add rules", &files);
    let mut edited: Vec<(String, String)> =
        adrs.iter().map(|(p, t)| (p.clone(), format!("{t}\nSuperseded.\n"))).collect();
    edited.push(("src/lib.rs".into(), "fn x() {}\n".into()));
    let files: Vec<(&str, Option<&str>)> = edited.iter().map(|(p, t)| (p.as_str(), Some(t.as_str()))).collect();
    let bulk = r.commit("Mark every rule superseded", &files);
    let d = draft_of(&r, whole());
    assert!(find(&d, &bulk).is_none(), "{:?}", d.scenarios);
}

#[test]
fn the_same_history_gives_the_same_bytes() {
    let (r, _) = sample();
    let a = draft_of(&r, whole());
    let b = draft_of(&r, whole());
    assert_eq!(yaml::render(&a), yaml::render(&b));
    assert_eq!(html::render(&a), html::render(&b));
    // A copy of the repository (other paths, same objects) drafts the same suite.
    let copy = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("git")
        .args(["clone", "-q", &r.path().to_string_lossy(), &copy.path().to_string_lossy()])
        .status();
    if let Ok(s) = status {
        assert!(s.success());
        let index = index_at(copy.path());
        let c = draft_repository(copy.path(), copy.path(), &index, &whole()).unwrap().unwrap();
        assert_eq!(yaml::render(&a), yaml::render(&c));
    }
}

#[test]
fn the_walk_stops_at_max_and_at_since() {
    let (r, c) = sample();
    let d = draft_of(&r, Window { since: None, max: 3 });
    assert_eq!(d.examined, 3);
    assert!(d.stopped_at_max);
    let d = draft_of(&r, Window { since: Some(c[4].clone()), max: 100 });
    assert_eq!(d.examined, 7);
    assert!(d.reached_since && !d.stopped_at_max);
    assert!(find(&d, &c[4]).is_none(), "--since is excluded");
    let index = index_of(&r);
    let err = draft_repository(r.path(), r.path(), &index, &Window { since: Some("nope".into()), max: 5 });
    assert!(matches!(err, Err(crate::git::GitError::UnknownRevision { .. })));
}

/// A long generated history (commits made straight in the object database):
/// the walk visits `max` commits whatever the length, and the scenarios
/// stay within their cap.
#[test]
fn a_long_history_is_read_only_up_to_max() {
    let mut r = Repo::new();
    r.commit("Add the decisions", &[("docs/adr/0012-store-orders-in-postgres.md", Some(ORDERS))]);
    let repo = &r.repo;
    let who = Signature::new("T", "t@example.com", &Time::new(1_700_000_000, 0)).unwrap();
    let mut parent = repo.head().unwrap().peel_to_commit().unwrap();
    let base = parent.tree().unwrap();
    let total = 10_000;
    for n in 0..total {
        let blob = repo.blob(format!("v{n}\n").as_bytes()).unwrap();
        let mut src = repo.treebuilder(None).unwrap();
        src.insert("store.py", blob, 0o100644).unwrap();
        let src = src.write().unwrap();
        let mut top = repo.treebuilder(Some(&base)).unwrap();
        top.insert("src", src, 0o040000).unwrap();
        let tree = repo.find_tree(top.write().unwrap()).unwrap();
        let message = format!("Change {n} per adr 12");
        let oid = repo.commit(None, &who, &who, &message, &tree, &[&parent]).unwrap();
        parent = repo.find_commit(oid).unwrap();
    }
    repo.reference("refs/heads/long", parent.id(), true, "long").unwrap();
    repo.set_head("refs/heads/long").unwrap();
    let d = draft_of(&r, Window { since: None, max: 700 });
    assert_eq!(d.examined, 700);
    assert!(d.stopped_at_max);
    assert_eq!(d.scenarios.len(), MAX_SCENARIOS);
    assert_eq!(d.left_out, 700 - MAX_SCENARIOS);
    assert_eq!(d.scenarios[0].commit.hash, parent.id().to_string(), "newest first");
}

#[test]
fn a_merge_of_a_pull_request_is_drafted_from_its_title() {
    let mut r = Repo::new();
    let base = r.commit("Add the decisions", &[("docs/adr/0003-outbox.md", Some(QUEUE))]);
    let side = r.commit("wip", &[("services/payments/events.py", Some("x\n"))]);
    // Back to the base, then a merge commit whose second parent is the branch.
    let repo = &r.repo;
    let base_c = repo.find_commit(git2::Oid::from_str(&base).unwrap()).unwrap();
    let side_c = repo.find_commit(git2::Oid::from_str(&side).unwrap()).unwrap();
    let who = Signature::new("T", "t@example.com", &Time::new(1_800_000_000, 0)).unwrap();
    let merge = repo
        .commit(
            None,
            &who,
            &who,
            "Merge pull request #7 from team/outbox\n\nSend payment events through the outbox (ADR-0003)\n",
            &side_c.tree().unwrap(),
            &[&base_c, &side_c],
        )
        .unwrap();
    repo.reference("refs/heads/main2", merge, true, "merge").unwrap();
    repo.set_head("refs/heads/main2").unwrap();
    let d = draft_of(&r, whole());
    assert_eq!(d.examined, 2, "first parents only: the merge and the base");
    let s = find(&d, &merge.to_string()).unwrap();
    assert!(s.commit.merge);
    assert_eq!(s.task, "Send payment events through the outbox (ADR-0003)");
    assert_eq!(ids(s).len(), 1);
    assert_eq!(s.file.as_deref(), Some("services/payments/events.py"));
}

#[test]
fn cryptic_subjects_get_the_first_line_of_the_body() {
    let c = |subject: &str, body: Option<&str>| Commit {
        hash: "a".repeat(40),
        subject: subject.into(),
        body: body.map(str::to_string),
        merge: false,
        files: vec![],
        more_files: 0,
    };
    assert_eq!(
        task_of(&c("fix: orders", Some("Orders are written in one transaction"))),
        "fix: orders: Orders are written in one transaction"
    );
    assert_eq!(
        task_of(&c("Write every order in one Postgres transaction", Some("Details"))),
        "Write every order in one Postgres transaction"
    );
    assert_eq!(task_of(&c("", None)), format!("the change of commit {}", "a".repeat(12)));
}

fn entries_of(text: &str) -> Vec<Entry> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("drafted.yaml");
    std::fs::write(&path, text).unwrap();
    let loaded = crate::scenarios::load_root(&path).unwrap();
    loaded.scenarios.iter().map(|s| Entry { id: s.id.clone(), line: s.line, pending: s.review.is_pending() }).collect()
}

#[test]
fn the_written_suite_loads_and_a_reviewed_scenario_is_never_overwritten() {
    let (r, c) = sample();
    let d = draft_of(&r, whole());
    let first = yaml::render(&d);
    let entries = entries_of(&first);
    assert_eq!(entries.len(), d.scenarios.len());
    assert!(entries.iter().all(|e| e.pending));
    assert!(first.contains(&format!("    commit: \"{}\"\n", c[1])), "{first}");
    assert!(first.contains("    # expect "), "{first}");
    assert!(first.contains("(strong)"), "{first}");
    assert!(first.contains("    # the retriever today (top 3, not copied into expect): "), "{first}");

    // A person reviews the strong scenario: fixes its task, removes the marker.
    let id = format!("draft-{}", &c[1][..12]);
    let start = first.find(&format!("  - id: \"{id}\"\n")).unwrap();
    let (head, rest) = first.split_at(start);
    let reviewed = rest.replacen("    review: pending\n", "", 1).replacen(
        "Move order writes to a Postgres transaction",
        "Write each order in one Postgres transaction",
        1,
    );
    let mut edited = format!("{head}{reviewed}");
    // And adds a scenario of their own at the end.
    edited.push_str("  - id: mine\n    task: Add an index on orders\n    expect: []\n");
    let entries = entries_of(&edited);
    let (merged, counts) = yaml::merge(&d, &edited, &entries).unwrap();
    assert!(merged.contains("Write each order in one Postgres transaction"), "{merged}");
    assert!(!merged.contains("Move order writes to a Postgres transaction"), "{merged}");
    assert!(merged.ends_with("  - id: mine\n    task: Add an index on orders\n    expect: []\n"), "{merged}");
    assert_eq!(counts.kept_reviewed, 1);
    assert_eq!(counts.kept_other, 1);
    assert_eq!(counts.replaced, d.scenarios.len() - 1);
    // Merging again changes nothing.
    let (again, _) = yaml::merge(&d, &merged, &entries_of(&merged)).unwrap();
    assert_eq!(again, merged);
    // A file laid out otherwise is refused, not rewritten.
    let odd = "scenarios:\n- id: mine\n  task: t\n";
    assert!(yaml::merge(&d, odd, &entries_of(odd)).is_err());
}

#[test]
fn strings_from_the_repository_are_escaped_in_both_writers() {
    let mut r = Repo::new();
    r.commit("Add", &[("docs/adr/0003-outbox.md", Some(QUEUE))]);
    let hostile = "adr 3 <script>alert(1)</script> \"q\" \u{1b}[31m\u{2028}next\u{85}";
    let hash = r.commit(hostile, &[("src/<b>&.py", Some("x\n"))]);
    let d = draft_of(&r, whole());
    let s = find(&d, &hash).unwrap();
    let text = yaml::render(&d);
    assert!(!text.contains('\u{1b}') && !text.contains('\u{2028}') && !text.contains('\u{85}'), "{text:?}");
    let entries = entries_of(&text);
    assert_eq!(entries.len(), 1);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("d.yaml"), &text).unwrap();
    let loaded = crate::scenarios::load_root(&dir.path().join("d.yaml")).unwrap();
    assert_eq!(loaded.scenarios[0].task, s.task.trim(), "the task reads back as it was");
    let page = html::render(&d);
    assert!(!page.contains("<script>") && page.contains("&lt;script&gt;"), "{page}");
    assert!(page.contains("src/&lt;b&gt;&amp;.py"));
    assert!(!page.contains('\u{1b}') && !page.contains("http://") && !page.contains("https://"));
}

#[test]
fn quoting_covers_what_yaml_does_not_print() {
    assert_eq!(yaml::quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
    assert_eq!(yaml::quote("\u{7f}\u{85}\u{feff}é"), "\"\\u007f\\u0085\\ufeffé\"");
}

#[test]
fn a_decision_edited_before_its_folder_moved_is_strong_evidence() {
    let mut r = Repo::new();
    let old = "doc/architecture/decisions/0001-use-widgets.md";
    let text = "# 1. Render every page with widgets\n\n## Status\n\nAccepted\n";
    r.commit("Add the decision", &[(old, Some(text)), ("src/page.py", Some("a = 1\n"))]);
    let edit = r.commit(
        "Render the footer",
        &[(old, Some(&format!("{text}\nThe footer too.\n"))), ("src/footer.py", Some("b = 1\n"))],
    );
    // The folder moves: the decision is read from its new path.
    r.commit("Move the decisions", &[(old, None), ("docs/adr/0001-use-widgets.md", Some(text))]);
    // A numbered file of the same name outside a decisions folder is no decision.
    let other =
        r.commit("Add notes", &[("notes/0001-use-widgets.md", Some("notes\n")), ("src/notes.py", Some("c = 1\n"))]);
    let d = draft_of(&r, whole());
    let s = find(&d, &edit).expect("the edit before the move");
    assert_eq!(s.expect.len(), 1, "{s:?}");
    assert_eq!(s.expect[0].evidence[0], Evidence::Edits { file: old.into(), added: false });
    assert_eq!(s.file.as_deref(), Some("src/footer.py"));
    assert!(find(&d, &other).is_none_or(|s| !s.expect.iter().any(Proposed::is_strong)), "{:?}", find(&d, &other));
}

#[test]
fn a_decision_file_moved_is_no_evidence_and_a_new_one_beside_it_is() {
    let mut r = Repo::new();
    let old = "docs/adr/0001-legacy-pages.md";
    let text = "# 1. Serve legacy pages from the old renderer\n\n## Status\n\nAccepted\n";
    let amp = "docs/adr/0003-amp-pages.md";
    let amp_text = "# 3. Amp pages get their own renderer\n\n## Status\n\nAccepted\n";
    r.commit("Add the decisions", &[(old, Some(text)), (amp, Some(amp_text)), ("src/page.py", Some("a = 1\n"))]);
    let new = "docs/adr/0002-remove-legacy-pages.md";
    let removal = r.commit(
        "Delete the old renderer",
        &[
            (old, None),
            ("docs/adr/historic/0001-legacy-pages.md", Some(&format!("{text}\nRetired.\n"))),
            // Moved whole under another name: a rename.
            (amp, None),
            ("docs/adr/historic/0003-amp-pages-retired.md", Some(amp_text)),
            (new, Some("# 2. Remove legacy pages\n\n## Status\n\nAccepted\n")),
            ("src/page.py", None),
            ("src/render.py", Some("b = 1\n")),
        ],
    );
    let d = draft_of(&r, whole());
    let s = find(&d, &removal).expect("the removal is drafted");
    let strong: Vec<&str> = s.expect.iter().filter(|p| p.is_strong()).map(|p| p.id.as_str()).collect();
    assert_eq!(strong, ["ADR-0002"], "{s:?}");
    assert!(
        s.expect[0].evidence.iter().any(|e| matches!(e, Evidence::Edits { file, added: true } if file == new)),
        "{s:?}"
    );
    assert!(s.notes.iter().any(|n| n.contains("moves 2 decision file")), "{:?}", s.notes);
}

#[test]
fn short_title_words_and_two_written_as_one_point_at_their_decision() {
    let mut r = Repo::new();
    r.commit(
        "Add the decisions",
        &[
            ("docs/adr/0001-epp.md", Some("# 1. Talk to the registry over EPP\n\n## Status\n\nAccepted\n")),
            ("docs/adr/0002-dev-containers.md", Some("# 2. Dev Containers\n\n## Status\n\nAccepted\n")),
            ("docs/adr/0003-maps.md", Some("# 3. Electricity Maps as the data source\n\n## Status\n\nAccepted\n")),
            ("docs/adr/0004-logs.md", Some("# 4. Logs are JSON lines\n\n## Status\n\nAccepted\n")),
        ],
    );
    // A file's extension says what kind of file it is, not what it is about.
    let extension = r.commit("Describe the settings", &[("config/settings.json", Some("{}\n"))]);
    let epp = r.commit("Fix timeouts", &[("src/epp/client.py", Some("t = 5\n"))]);
    let dev = r.commit("Set up the workspace", &[(".devcontainer/devcontainer.json", Some("{}\n"))]);
    let maps = r.commit("Handle the free tier", &[("src/ElectricityMapsFree/Client.cs", Some("class C {}\n"))]);
    // Short English words of a title point at nothing.
    let none = r.commit("Tidy up", &[("src/for/the/x.py", Some("x = 1\n"))]);
    let d = draft_of(&r, whole());
    let index = index_of(&r);
    let id_of =
        |file: &str| index.decisions().iter().find(|d| d.origin().unwrap().file.ends_with(file)).unwrap().id.clone();
    let s = find(&d, &epp).expect("epp");
    assert_eq!(ids(s), [id_of("0001-epp.md").as_str()]);
    assert_eq!(s.expect[0].evidence, [Evidence::Topic { word: "epp".into(), file: Some("src/epp/client.py".into()) }]);
    let s = find(&d, &dev).expect("devcontainer");
    assert_eq!(ids(s), [id_of("0002-dev-containers.md").as_str()]);
    assert!(matches!(&s.expect[0].evidence[0], Evidence::Topic { word, .. } if word == "devcontainer"));
    let s = find(&d, &maps).expect("ElectricityMapsFree");
    assert_eq!(ids(s), [id_of("0003-maps.md").as_str()]);
    assert!(matches!(&s.expect[0].evidence[0], Evidence::Topic { word, .. } if word == "electricitymaps"));
    assert!(find(&d, &none).is_none(), "{:?}", find(&d, &none));
    assert!(find(&d, &extension).is_none(), "{:?}", find(&d, &extension));
}

#[test]
fn a_title_word_is_found_in_its_other_forms() {
    let mut r = Repo::new();
    r.commit(
        "Add the decisions",
        &[
            ("docs/adr/0001-attachments.md", Some("# 1. Rendering file attachments\n\n## Status\n\nAccepted\n")),
            ("docs/adr/0002-history.md", Some("# 2. Modelling history\n\n## Status\n\nAccepted\n")),
        ],
    );
    let render = r.commit("Render an attachment inline", &[("app/views/show.rb", Some("x = 1\n"))]);
    let model = r.commit("Tidy the models", &[("app/models/history.rb", Some("x = 1\n"))]);
    let d = draft_of(&r, whole());
    let index = index_of(&r);
    let id_of =
        |file: &str| index.decisions().iter().find(|d| d.origin().unwrap().file.ends_with(file)).unwrap().id.clone();
    let s = find(&d, &render).expect("render an attachment");
    assert_eq!(ids(s), [id_of("0001-attachments.md").as_str()]);
    // The evidence names the word as the title writes it.
    assert!(matches!(&s.expect[0].evidence[0], Evidence::Topic { word, file: None } if word == "rendering"), "{s:?}");
    // A title word in the message ranks before one only in a path.
    let s = find(&d, &model).expect("models, history.rb");
    assert_eq!(ids(s), [id_of("0002-history.md").as_str()]);
    assert_eq!(s.expect[0].evidence[0].rank(), 3, "{s:?}");
}
