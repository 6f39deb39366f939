//! Decision sources on real files from public repositories
//! (`fixtures/sources/*/SOURCE.md` says where each set comes from): every
//! decision file is one record (or one per top-level section) with the
//! title, status, scope and constraint counts written out below, counted by
//! hand from the files, not by this code. Then the command line: `run` on a
//! repository with only `docs/adr/` and `.cursor/rules/` and a three-line
//! configuration, `validate` at the line of a broken front matter, `import`
//! as a fixed point, and the limits a hostile repository meets.

use std::path::{Path, PathBuf};
use std::process::Command;

// Its git helper, and the real binary for the error path of `validate`
// (the other tests run the binary with their own settings).
mod common;

use common::{copy_tree, expect, Out, Test};

use mneme_gate::memory::sources::{self, IdFrom, Proposed};
use mneme_gate::memory::{DecisionSource, Memory, SourceKind, Sources};
use mneme_gate::profile::Family;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(kind: SourceKind, path: &str) -> Sources {
    Sources { list: vec![DecisionSource::new(kind, root().join("fixtures/sources").join(path))], root: root() }
}

/// One expected record: id, title, status, scope globs, constraints,
/// anti-patterns.
type Want<'a> = (&'a str, &'a str, Option<&'a str>, &'a [&'a str], usize, usize);

/// A record as compared: [`Want`] with owned strings.
type Got = (String, String, Option<String>, Vec<String>, usize, usize);

/// Every record read from `sources` (in the pool or not), as [`Want`]s,
/// against `want`.
fn check(sources: &Sources, want: &[Want<'_>]) -> Memory {
    let read = sources::read(sources, Family::Default).unwrap();
    assert!(!read.memory.has_errors(), "{:#?}", read.memory.diagnostics);
    let got: Vec<Got> = read
        .records
        .iter()
        .map(|(_, d)| {
            (
                d.id.clone(),
                d.title.clone(),
                d.status().map(str::to_string),
                d.paths.clone(),
                d.constraint.len(),
                d.anti_patterns.len(),
            )
        })
        .collect();
    let want: Vec<Got> = want
        .iter()
        .map(|(id, title, status, scope, c, a)| {
            (
                id.to_string(),
                title.to_string(),
                status.map(str::to_string),
                scope.iter().map(|s| s.to_string()).collect(),
                *c,
                *a,
            )
        })
        .collect();
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
    assert_eq!(got.len(), want.len(), "{got:#?}");
    read.memory
}

fn ids(memory: &Memory) -> (Vec<&str>, Vec<&str>) {
    (memory.pool.iter().map(|d| d.id.as_str()).collect(), memory.excluded.iter().map(|d| d.id.as_str()).collect())
}

/// Nygard / adr-tools ADRs of GOV.UK's AWS platform: `Superseded by`,
/// `Partly superseded`, `Pending`, `Proposed`, `Approved`, `Amended by`.
#[test]
fn nygard_adrs_of_govuk_aws() {
    let sources = fixture(SourceKind::Adr, "govuk-aws/docs/architecture/decisions");
    let none: &[&str] = &[];
    let memory = check(
        &sources,
        &[
            ("ADR-0001", "Record architecture decisions", Some("accepted"), none, 0, 0),
            ("ADR-0003", "Networking Outline", Some("partly superseded"), none, 3, 0),
            ("ADR-0004", "DNS definitions for hosts and services", Some("superseded"), none, 0, 0),
            ("ADR-0005", "Terraform Module Location", Some("accepted"), none, 0, 0),
            ("ADR-0006", "Puppet architecture", Some("proposed"), none, 0, 0),
            ("ADR-0010", "Terraform directory structure", Some("accepted"), none, 7, 0),
            ("ADR-0015", "DNS infrastructure", Some("accepted"), none, 0, 0),
            ("ADR-0017", "Terraform Data Structure", Some("accepted"), none, 8, 0),
            ("ADR-0018", "Use RDS instead of provisioned EC2 databases", Some("accepted"), none, 0, 0),
            ("ADR-0036", "Performance-Platform-And-BackDrop-Architecture", Some("proposed"), none, 0, 0),
            ("ADR-0038", "Mongo Replacement by DocumentDB", Some("accepted"), none, 2, 0),
            ("ADR-0039", "Non-GOV.UK domain policy", Some("accepted"), none, 0, 0),
        ],
    );
    let (pool, out) = ids(&memory);
    assert_eq!(pool.len(), 11);
    assert_eq!(out, ["ADR-0004"]);
    let ex = &memory.excluded[0];
    assert_eq!(ex.reason.to_string(), "status `superseded` is inactive (superseded by ADR-0015)");
    assert!(ex.file.as_deref().unwrap().ends_with("decisions/0004-dns-definitions-for-hosts-and-services.md"));
    assert_eq!(ex.line, 1);
    let adr10 = memory.pool.iter().find(|d| d.id == "ADR-0010").unwrap();
    assert_eq!(adr10.constraint[0], "The data directory contains a subdirectory per Terraform project, to store variable values that can be customised per environment.");
    assert_eq!(
        adr10.constraint[5],
        "Those to deploy common infrastructure will have a `govuk` prefix (e.g. networking, DNS zones)"
    );
    assert!(adr10
        .content
        .starts_with("We should have a consistent directory structure for Terraform from the beginning."));

    // `proposed: inactive` keeps Pending and Proposed ADRs out.
    let mut strict = sources.clone();
    strict.list[0].proposed = Proposed::Inactive;
    let m = Memory::read_sources(&strict, Family::Default).unwrap();
    assert_eq!(ids(&m).1, ["ADR-0004", "ADR-0006", "ADR-0036"]);
    // Profile mneme ignores status, as Mneme does.
    let m = Memory::read_sources(&sources, Family::Mneme).unwrap();
    assert_eq!((m.pool.len(), m.excluded.len()), (12, 0));
}

/// Decision records kept as folders of their own (`<date>-<slug>/README.md`,
/// each beside its images), as the Eclipse Dataspace Components keep them:
/// the folder names the decision, the source's own README (an index) is
/// skipped.
#[test]
fn decision_folders_of_the_eclipse_dataspace_connector() {
    let sources = fixture(SourceKind::Adr, "edc-connector/docs/developer/decision-records");
    let none: &[&str] = &[];
    let memory = check(
        &sources,
        &[
            ("ADR-2022-02-03-integration-testing", "Integration testing", None, none, 3, 0),
            ("ADR-2022-03-15-policy-scopes", "Policy Scopes", None, none, 2, 0),
            ("ADR-2022-06-03-event-framework", "Event framework", None, none, 0, 0),
            ("ADR-2022-06-09-shared-clock", "Shared clock", None, none, 0, 0),
        ],
    );
    let (pool, out) = ids(&memory);
    assert_eq!(pool.len(), 4);
    assert!(out.is_empty());
    let clock = memory.pool.iter().find(|d| d.id == "ADR-2022-06-09-shared-clock").unwrap();
    assert!(clock.origin().unwrap().file.ends_with("2022-06-09-shared-clock/README.md"));
    assert!(clock.tags.is_empty(), "the decision's own folder is not a tag: {:?}", clock.tags);
    // Dated names are no sequence numbers: no warning that four share `2022`.
    assert!(memory.diagnostics.is_empty(), "{:#?}", memory.diagnostics);
}

/// ADRs named `adr-NNN-title.md`, as Hermes (and the Cosmos SDK and CometBFT)
/// name them: numbered by the digits after `adr-`, beside the folder's index,
/// an overview that is no ADR, and a template named `adr-template.md`.
#[test]
fn adr_prefixed_names_of_hermes() {
    let sources = fixture(SourceKind::Adr, "hermes/docs/architecture");
    let none: &[&str] = &[];
    let memory = check(
        &sources,
        &[
            ("ADR-001", "Repository Structure", Some("proposed"), none, 3, 0),
            ("ADR-007", "Error Management", Some("accepted"), none, 0, 0),
            ("ADR-011", "Light client crates extraction", Some("proposed"), none, 0, 0),
        ],
    );
    let w = warnings(&memory);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(w[0].contains("architecture.md") && w[0].contains("not read as an ADR"), "{}", w[0]);

    // Two files of one number take their stems, without the `adr-` before it.
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&root().join("fixtures/sources/hermes/docs/architecture"), dir.path());
    std::fs::copy(dir.path().join("adr-007-error.md"), dir.path().join("adr-007-errors-again.md")).unwrap();
    let shared = Sources {
        list: vec![DecisionSource::new(SourceKind::Adr, dir.path().to_path_buf())],
        root: dir.path().to_path_buf(),
    };
    let read = sources::read(&shared, Family::Default).unwrap();
    let ids: Vec<&str> = read.records.iter().map(|(_, d)| d.id.as_str()).collect();
    assert_eq!(ids, ["ADR-001", "ADR-007-error", "ADR-007-errors-again", "ADR-011"]);
}

/// Sylius dates its ADRs with underscores (`YYYY_MM_DD_topic.md`): a date is
/// no sequence number, so the ids are the names and no warning says that
/// three files share the number 2022; `_readme.md` and `_template.md` are
/// skipped as a README and a template are.
#[test]
fn underscore_dated_adrs_of_sylius() {
    let sources = fixture(SourceKind::Adr, "sylius/adr");
    let none: &[&str] = &[];
    let memory = check(
        &sources,
        &[
            ("ADR-2020_03_03_api_translations", "API - Translations", Some("accepted"), none, 0, 0),
            (
                "ADR-2021_07_05_api_providing_locales_available_in_active_channel",
                "Using data provider for getting available locales in active channel for shop user",
                Some("rejected"),
                none,
                0,
                0,
            ),
            (
                "ADR-2022_02_09_catalog_promotions_validation",
                "Catalog promotions validation",
                Some("accepted"),
                none,
                4,
                0,
            ),
            ("ADR-2022_03_24_remove_flush_from_handlers", "Remove flush from handlers", Some("accepted"), none, 0, 0),
        ],
    );
    assert_eq!(ids(&memory).1, ["ADR-2021_07_05_api_providing_locales_available_in_active_channel"]);
    assert!(warnings(&memory).is_empty(), "{:#?}", memory.diagnostics);
}

/// MADR 2 as log4brains writes it (`- Status:` bullets, date-numbered files
/// whose ids are their names), with its README, index and template skipped.
#[test]
fn madr_2_adrs_of_log4brains() {
    let none: &[&str] = &[];
    let memory = check(
        &fixture(SourceKind::Adr, "log4brains/docs/adr"),
        &[
            (
                "ADR-20200924-use-markdown-architectural-decision-records",
                "Use Markdown Architectural Decision Records",
                Some("accepted"),
                none,
                9,
                0,
            ),
            (
                "ADR-20200925-multi-packages-architecture-in-a-monorepo-with-yarn-and-lerna",
                "Multi-packages architecture in a monorepo with Yarn and Lerna",
                Some("accepted"),
                none,
                2,
                0,
            ),
            (
                "ADR-20200925-use-prettier-eslint-airbnb-for-the-code-style",
                "Use Prettier-ESLint Airbnb for the code style",
                Some("accepted"),
                none,
                2,
                0,
            ),
            (
                "ADR-20200926-use-the-adr-number-as-its-unique-id",
                "Use the ADR number as its unique ID",
                Some("superseded"),
                none,
                3,
                0,
            ),
            ("ADR-20200927-avoid-default-exports", "Avoid default exports", Some("accepted"), none, 0, 0),
            (
                "ADR-20201016-use-the-adr-slug-as-its-unique-id",
                "Use the ADR slug as its unique ID",
                Some("accepted"),
                none,
                4,
                0,
            ),
            (
                "ADR-20201026-the-core-api-is-responsible-for-enhancing-the-adr-markdown-body-with-mdx",
                "The core API is responsible for enhancing the ADR markdown body with MDX",
                Some("accepted"),
                none,
                0,
                0,
            ),
            ("ADR-20201103-use-lunr-for-search", "Use Lunr for search", Some("accepted"), none, 0, 0),
            (
                "ADR-20210113-distribute-log4brains-as-a-global-npm-package",
                "Distribute Log4brains as a global NPM package",
                Some("accepted"),
                none,
                2,
                0,
            ),
        ],
    );
    assert_eq!(ids(&memory).1, ["ADR-20200926-use-the-adr-number-as-its-unique-id"]);
    assert_eq!(
        memory.excluded[0].reason.to_string(),
        "status `superseded` is inactive (superseded by ADR-20201016-use-the-adr-slug-as-its-unique-id)"
    );
    // "Avoid default exports" is a title, not a heading over what to avoid.
    let d = memory.pool.iter().find(|d| d.id == "ADR-20200927-avoid-default-exports").unwrap();
    assert_eq!(d.content, "We will avoid default exports in all our codebase, and use named exports instead.");
}

/// MADR 3 and 4 of the MADR project itself: front matter without status
/// (active), `Chosen option` paragraphs, nested bullets, code blocks whose
/// `## Decision Outcome` lines are not headings; `adr-template.md` and
/// `index.md` skipped.
#[test]
fn madr_4_adrs_of_the_madr_project() {
    let none: &[&str] = &[];
    let memory = check(
        &fixture(SourceKind::Adr, "madr/docs/decisions"),
        &[
            ("ADR-0000", "Use Markdown Architectural Decision Records", None, none, 5, 0),
            ("ADR-0001", "Dual License the Work", None, none, 0, 0),
            ("ADR-0002", "Do Not Use Numbers in Headings", None, none, 3, 0),
            ("ADR-0005", "Use Dashes in Filenames", None, none, 6, 0),
            ("ADR-0007", "Do Not Emphasize Line Headings", None, none, 0, 0),
            ("ADR-0011", "Use Asterisk as List Marker", None, none, 0, 0),
            ("ADR-0013", "Use YAML front matter for metadata", None, none, 0, 0),
            ("ADR-0016", "Outcome before Detailed Pros and Cons", None, none, 0, 0),
        ],
    );
    assert_eq!(memory.pool.len(), 8);
    // The title heading is after the front matter: its line is the record's.
    let origin = memory.pool[0].origin().unwrap();
    assert_eq!(origin.line, 5);
    assert!(origin.file.ends_with("madr/docs/decisions/0000-use-markdown-architectural-decision-records.md"));
}

/// Cursor `.mdc` rules of a public collection: unquoted `**/*.go`, comma
/// lists, flow lists, `alwaysApply: true`, an empty body, `## Forbidden`.
#[test]
fn cursor_rules_of_awesome_cursorrules() {
    let none: &[&str] = &[];
    let memory = check(
        &fixture(SourceKind::Cursor, "awesome-cursorrules"),
        &[
            (
                "cursor/anti-overengineering",
                "Prevent AI over-engineering by keeping changes scoped, simple, and directly tied to the user's request",
                None,
                none,
                0,
                0,
            ),
            ("cursor/codequality", "Code Quality Guidelines", None, none, 0, 0),
            (
                "cursor/database",
                "Database best practices focusing on Prisma and Supabase integration",
                None,
                &["prisma/**/*", "src/db/**/*", "**/*.prisma", "supabase/**/*"],
                60,
                0,
            ),
            (
                "cursor/docker",
                "Docker production rules. Pinned versions, multi-stage builds, non-root user, minimal attack surface.",
                None,
                &["**/Dockerfile", "**/Dockerfile.*", "**/docker-compose*.yml", "**/docker-compose*.yaml", "**/.dockerignore"],
                16,
                5,
            ),
            (
                "cursor/fastapi",
                "FastAPI best practices and patterns for building modern Python web APIs",
                None,
                &["**/*.py", "app/**/*.py", "api/**/*.py"],
                60,
                0,
            ),
            (
                "cursor/flutter-development-guidelines-cursorrules-prompt-file",
                "Cursor rules for Flutter development with MVVM architecture, Riverpod state management, Material widgets, and Dart style guidelines.",
                None,
                &["**/*.dart"],
                27,
                1,
            ),
            (
                "cursor/gamemaker-gml",
                "GameMaker Language (GML) rules for scripts, objects, events, rooms, data structures, and performance-minded game code",
                None,
                &["**/*.gml", "**/*.yy", "**/*.yyp"],
                23,
                5,
            ),
            (
                "cursor/go-temporal-dsl-prompt-file",
                "Cursor rules for Go development with Temporal DSL integration.",
                None,
                none,
                0,
                0,
            ),
            (
                "cursor/go",
                "Idiomatic Go rules. Explicit error handling, interface-based design, context-first concurrency.",
                None,
                &["**/*.go"],
                17,
                5,
            ),
            (
                "cursor/security-devsecops-ssdls-appsec",
                "Cursor rules for secure coding, secret handling, dependency hygiene, authentication, authorization, security testing, and compliance documentation.",
                None,
                none,
                22,
                4,
            ),
        ],
    );
    let go = memory.pool.iter().find(|d| d.id == "cursor/go").unwrap();
    assert_eq!(go.constraint[0], "Always handle errors — never assign to _");
    assert_eq!(
        go.anti_patterns,
        [
            "No _ to ignore errors",
            "No init() for business logic",
            "No global mutable state",
            "No interface{} where generics work",
            "No goroutines without termination condition"
        ]
    );
}

/// Copilot `*.instructions.md` (`applyTo` quoted, comma-separated, `**`,
/// `*`, brace globs) and `copilot-instructions.md`, one record per section.
#[test]
fn copilot_instructions_of_awesome_copilot() {
    let none: &[&str] = &[];
    check(
        &fixture(SourceKind::Copilot, "awesome-copilot/.github"),
        &[
            ("copilot", "copilot-instructions", None, none, 0, 0),
            ("copilot/readme-updates", "README updates", None, none, 1, 0),
            ("copilot/prompt-file-guide", "Prompt file guide", None, none, 8, 0),
            ("copilot/instruction-file-guide", "Instruction file guide", None, none, 5, 0),
            ("copilot/agent-file-guide", "Agent file guide", None, none, 7, 0),
            ("copilot/agent-skills-guide", "Agent Skills guide", None, none, 11, 0),
            ("copilot/plugin-guide", "Plugin guide", None, none, 10, 0),
            (
                "copilot/azure-functions-typescript",
                "TypeScript patterns for Azure Functions",
                None,
                &["**/*.ts", "**/*.js", "**/*.json"],
                8,
                0,
            ),
            (
                "copilot/cmake-vcpkg",
                "C++ project configuration and package management",
                None,
                &["**/*.cmake", "**/CMakeLists.txt", "**/*.cpp", "**/*.h", "**/*.hpp"],
                0,
                0,
            ),
            ("copilot/coldfusion-cfm", "ColdFusion cfm files and application patterns", None, &["**/*.cfm"], 15, 2),
            ("copilot/genaiscript", "AI-powered script generation guidelines", None, &["**/*.genai.*"], 6, 0),
            (
                "copilot/joyride-workspace-automation",
                "Expert assistance for Joyride Workspace automation - REPL-driven and user space ClojureScript automation within specific VS Code workspaces",
                None,
                &["**/.joyride/**"],
                4,
                0,
            ),
            ("copilot/localization", "Guidelines for localizing markdown documents", None, &["**/*.md"], 17, 1),
            (
                "copilot/mongo-dba",
                "Instructions for customizing GitHub Copilot behavior for MONGODB DBA chat mode.",
                None,
                none,
                10,
                0,
            ),
            (
                "copilot/nodejs-javascript-vitest",
                "Guidelines for writing Node.js and JavaScript code with Vitest testing",
                None,
                &["**/*.js", "**/*.mjs", "**/*.cjs"],
                13,
                3,
            ),
            (
                "copilot/pcf-tooling",
                "Get Microsoft Power Platform CLI tooling for Power Apps Component Framework",
                None,
                &["**/*.{ts,tsx,js,json,xml,pcfproj,csproj}"],
                2,
                0,
            ),
            (
                "copilot/quarkus-mcp-server-sse",
                "Quarkus and MCP Server with HTTP SSE transport development standards and instructions",
                None,
                none,
                17,
                4,
            ),
        ],
    );
}

/// Claude Code's `CLAUDE.md` and `.claude/rules/*.md` of a public project:
/// one record per top-level section, the text before the first section
/// under the file's title, `What NOT to do` as anti-patterns.
#[test]
fn claude_memory_and_rules_of_2anki() {
    let none: &[&str] = &[];
    let memory = check(
        &fixture(SourceKind::Claude, "2anki"),
        &[
            ("claude", "CLAUDE.md", None, none, 0, 0),
            ("claude/goal", "Goal", None, none, 0, 0),
            ("claude/tech-stack", "Tech stack", None, none, 5, 0),
            ("claude/entry-points", "Entry points", None, none, 6, 0),
            ("claude/run-it", "Run it", None, none, 7, 0),
            ("claude/rules-loaded-from-claude-rules", "Rules (loaded from .claude/rules/)", None, none, 0, 0),
            ("claude/git", "Git", None, none, 11, 0),
            ("claude/working-speed", "Working speed", None, none, 5, 0),
            ("claude/process", "Process", None, none, 6, 0),
            ("claude/gotchas", "Gotchas", None, none, 6, 1),
            ("claude/the-trio", "The trio", None, none, 3, 0),
            ("claude/trio-review-policy", "Trio review policy", None, none, 13, 0),
            ("claude/spec-lifecycle", "Spec lifecycle", None, none, 3, 0),
            ("claude/changelog", "Changelog", None, none, 8, 0),
            (
                "claude/slash-commands-claude-commands-and-claude-skills",
                "Slash commands (`.claude/commands/` and `.claude/skills/`)",
                None,
                none,
                4,
                0,
            ),
            ("claude/rules/code-quality", "Code-quality rules", None, none, 0, 0),
            ("claude/rules/dependencies", "Dependency rules", None, none, 0, 0),
            ("claude/rules/dependencies/update-rhythm", "Update rhythm", None, none, 3, 0),
            ("claude/rules/email-templates", "Email template rules", None, none, 0, 0),
            ("claude/rules/email-templates/required-in-every-template", "Required in every template", None, none, 0, 0),
            ("claude/rules/email-templates/color-palette", "Color palette", None, none, 0, 0),
            ("claude/rules/email-templates/copy-rules-per-voice-md", "Copy rules (per VOICE.md)", None, none, 5, 0),
            ("claude/rules/email-templates/what-not-to-do", "What NOT to do", None, none, 0, 4),
            ("claude/rules/parallel-pr-coordination", "Parallel PR coordination", None, none, 0, 0),
            (
                "claude/rules/parallel-pr-coordination/wave-coordination-playbook",
                "Wave coordination playbook",
                None,
                none,
                5,
                0,
            ),
            ("claude/rules/security", "Security rules", None, none, 0, 0),
            ("claude/rules/sonar", "SonarCloud quality gate", None, none, 0, 0),
            (
                "claude/rules/sonar/run-sonar-locally-before-pushing-required-for-non-trivial-code-c",
                "Run Sonar locally before pushing — required for non-trivial code changes",
                None,
                none,
                0,
                0,
            ),
            ("claude/rules/sonar/what-triggers-a-security-issue", "What triggers a security issue", None, none, 4, 0),
            ("claude/rules/sonar/handling-false-positives", "Handling false positives", None, none, 2, 0),
            (
                "claude/rules/sonar/existing-rule-waivers-in-sonar-project-properties",
                "Existing rule waivers (in `sonar-project.properties`)",
                None,
                none,
                0,
                0,
            ),
            ("claude/rules/testing", "Testing rules", None, none, 0, 0),
            ("claude/rules/testing/conventions", "Conventions", None, none, 4, 0),
        ],
    );
    // A table row is content: the security rules are retrievable by it.
    let security = memory.pool.iter().find(|d| d.id == "claude/rules/security").unwrap();
    assert!(security.content.contains("Never use `knex.raw()` with string concatenation"), "{}", security.content);
    let git = memory.pool.iter().find(|d| d.id == "claude/git").unwrap();
    assert_eq!(git.origin().unwrap().line, 49);
}

/// `paths:` of Claude Code rules (a list, a string, unquoted globs) and the
/// ids that stay put when other files change.
#[test]
fn claude_rule_paths_and_stable_ids() {
    let text = "---\npaths:\n  - src/api/**/*.ts\n  - *.sql\n---\n# API rules\n\n- Validate every input\n- Never build SQL by concatenation\n";
    let (decisions, problems) = sources::parse_file(SourceKind::Claude, "api.md", text, Family::Default);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(decisions.len(), 1);
    let d = &decisions[0];
    assert_eq!((d.id.as_str(), d.title.as_str()), ("claude/rules/api", "API rules"));
    assert_eq!(d.paths, ["src/api/**/*.ts", "**/*.sql"]);
    assert_eq!((d.constraint.len(), d.anti_patterns.len()), (1, 1));
    // The same section, with another before it: the same id.
    let moved = "# Notes\n\n## Style\n\n- short lines\n\n## Build\n\n- make\n";
    let (a, _) = sources::parse_file(SourceKind::Claude, "CLAUDE.md", moved, Family::Default);
    let inserted = "# Notes\n\n## Added\n\n- new\n\n## Style\n\n- short lines\n\n## Build\n\n- make\n";
    let (b, _) = sources::parse_file(SourceKind::Claude, "CLAUDE.md", inserted, Family::Default);
    let ids = |v: &[mneme_gate::memory::Decision]| v.iter().map(|d| d.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&a), ["claude/style", "claude/build"]);
    assert_eq!(ids(&b), ["claude/added", "claude/style", "claude/build"]);
    // Under profile mneme the globs are ignored, as Mneme ignores them.
    let (m, _) = sources::parse_file(SourceKind::Claude, "api.md", text, Family::Mneme);
    assert!(m[0].paths.is_empty() && m[0].globs.is_empty());
}

/// A front matter that cannot be read is an error at its line; the rest of
/// the file and the other files still load.
#[test]
fn a_broken_front_matter_is_an_error_at_its_line() {
    let text = "---\ndescription: Go rules\nglobs: [**/*.go\nalwaysApply: false\n---\n# Go\n\n- wrap errors\n";
    let (decisions, problems) = sources::parse_file(SourceKind::Cursor, "go.mdc", text, Family::Default);
    assert_eq!(problems.len(), 1, "{problems:?}");
    let p = &problems[0];
    assert!((3..=5).contains(&p.line), "{p:?}");
    assert!(p.message.starts_with("the front matter is not valid YAML"), "{p:?}");
    assert_eq!(decisions[0].constraint, ["wrap errors"]);
    let (_, problems) = sources::parse_file(
        SourceKind::Cursor,
        "x.mdc",
        "---\nglobs:\n  a: 1\nalwaysApply: maybe\n---\n",
        Family::Default,
    );
    let lines: Vec<(usize, &str)> = problems.iter().map(|p| (p.line, p.message.as_str())).collect();
    assert_eq!(
        lines,
        [
            (4, "`alwaysApply` must be true or false, found a string"),
            (3, "`globs` must be a string, a comma-separated string or a list of strings, found a mapping"),
        ]
    );
}

// ---------------------------------------------------------------------------
// The command line.

/// The binary in `dir`, git info and the cache off.
fn run(dir: &Path, args: &[&str]) -> Out {
    let out = Test::new().dir(dir).args(args).env("MNEME_GATE_CACHE", "off").run();
    Out { code: Some(out.code), stdout: out.stdout, stderr: out.stderr }
}

/// A repository whose only decisions are `docs/adr/` and `.cursor/rules/`.
fn adr_and_cursor_repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let f = root().join("fixtures/sources");
    copy_tree(&f.join("govuk-aws/docs/architecture/decisions"), &dir.path().join("docs/adr"));
    copy_tree(&f.join("awesome-cursorrules/.cursor/rules"), &dir.path().join(".cursor/rules"));
    std::fs::write(
        dir.path().join("mneme-gate.yaml"),
        "# decisions: the ADRs and the Cursor rules, in pool order\nmemory: [adr: docs/adr/, cursor: .cursor/rules/]\nscenarios: scenarios/\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("scenarios")).unwrap();
    std::fs::write(
        dir.path().join("scenarios/suite.yaml"),
        r#"scenarios:
  - id: terraform-tfvars-layout
    task: Add the tfvars data files of a new Terraform project for each environment and stack
    expect: [ADR-0017]
    acceptable: [ADR-0010, ADR-0005]
  - id: internal-dns-records
    task: Add internal DNS records so instances resolve the puppet service
    expect: [ADR-0015]
    acceptable: [ADR-0006, ADR-0010, ADR-0003]
  - id: go-error-wrapping
    task: Wrap the errors returned by the repository with context
    file: services/orders/repository.go
    expect: [cursor/go]
    acceptable: [cursor/security-devsecops-ssdls-appsec, cursor/codequality]
  - id: dockerfile-user
    task: Run the container as a non-root user with pinned base image versions
    file: services/orders/Dockerfile
    expect: [cursor/docker]
    acceptable: [cursor/security-devsecops-ssdls-appsec, cursor/codequality]
"#,
    )
    .unwrap();
    dir
}

/// The issue's "done when": `run` works on a repository whose only
/// decisions are an ADR folder and Cursor rules, with a three-line
/// configuration; the superseded ADR stays out of the pool; the reports
/// say where each retrieved decision is written.
#[test]
fn run_on_adrs_and_cursor_rules_with_a_three_line_configuration() {
    let dir = adr_and_cursor_repository();
    let out = expect(run(dir.path(), &["run", "--json", "report.json"]), 0, "run");
    assert!(out.stdout.contains("PASS"), "{}", out.stdout);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap();
    assert_eq!(report["fingerprint"]["memory"]["path"], "adr:docs/adr, cursor:.cursor/rules");
    assert_eq!(report["decisions"]["cursor/go"]["source"], ".cursor/rules/go.mdc:1");
    assert_eq!(report["decisions"]["ADR-0015"]["source"], "docs/adr/0015-dns-infrastructure.md:1");
    let retrieved: Vec<String> = report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["retrieved"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()))
        .collect();
    assert!(!retrieved.iter().any(|id| id == "ADR-0004"), "the superseded ADR is never retrieved: {retrieved:?}");

    // A scenario that expects the superseded ADR is told where it is and why.
    std::fs::write(
        dir.path().join("scenarios/superseded.yaml"),
        "scenarios:\n  - id: old-dns\n    task: DNS definitions for hosts and services\n    expect: [ADR-0004]\n",
    )
    .unwrap();
    let out = run(dir.path(), &["run"]);
    assert!(
        format!("{}{}", out.stdout, out.stderr).contains(
            "old-dns expects `ADR-0004`, which is kept out of the retrieval pool (docs/adr/0004-dns-definitions-for-hosts-and-services.md:1: status `superseded` is inactive (superseded by ADR-0015))"
        ),
        "{}\n{}",
        out.stdout,
        out.stderr
    );

    // explain points at the Markdown source of every record.
    let out =
        expect(run(dir.path(), &["explain", "--task", "dns records for puppet", "--format", "json"]), 0, "explain");
    let e: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let record = |id: &str| e["records"].as_array().unwrap().iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(record("ADR-0015")["source"], "docs/adr/0015-dns-infrastructure.md:1");
    assert_eq!(
        record("ADR-0004")["detail"],
        "docs/adr/0004-dns-definitions-for-hosts-and-services.md:1: status `superseded` is inactive (superseded by ADR-0015)"
    );
}

/// `context`, `hook` and `retrieve` give one answer on sources (no cache
/// file is involved for them).
#[test]
fn context_and_retrieve_agree_on_sources() {
    let dir = adr_and_cursor_repository();
    let task = "Wrap the errors returned by the repository with context";
    let file = "services/orders/repository.go";
    let out = expect(run(dir.path(), &["context", "--task", task, "--file", file, "--format", "json"]), 0, "context");
    let c: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let context_ids: Vec<&str> = c["retrieved"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
    std::fs::write(
        dir.path().join("q.jsonl"),
        format!("{{\"id\": \"q\", \"task\": \"{task}\", \"file\": \"{file}\"}}\n"),
    )
    .unwrap();
    let out = expect(run(dir.path(), &["retrieve", "--queries", "q.jsonl"]), 0, "retrieve");
    let r: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    let retrieve_ids: Vec<&str> =
        r["retrieved"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(context_ids, retrieve_ids);
    assert_eq!(context_ids[0], "cursor/go");
}

/// `validate` reports a broken front matter at its line, with the file, and
/// reads every other file.
#[test]
fn validate_reports_a_broken_front_matter_at_its_line() {
    let dir = adr_and_cursor_repository();
    std::fs::write(
        dir.path().join(".cursor/rules/broken.mdc"),
        "---\ndescription: \"Broken\nglobs: **/*.ts\n---\n# Broken\n\n- a rule\n",
    )
    .unwrap();
    let out = expect(run(dir.path(), &["validate"]), 2, "validate");
    // The quoted string that never closes ends at line 3, where YAML sees
    // the mistake; the rest of the file (its bullets) is still read.
    assert_eq!(
        out.stdout.lines().next().unwrap(),
        ".cursor/rules/broken.mdc:3:1: error: the front matter is not valid YAML: invalid indentation in multiline quoted scalar (record \"cursor/broken\")",
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.ends_with(
            "adr:docs/adr, cursor:.cursor/rules: 23 record(s), 22 in the retrieval pool (profile default), 1 kept out; 1 error(s), 0 warning(s)\n"
        ),
        "{}",
        out.stdout
    );
    // The commands that retrieve refuse the sources, saying where.
    let out = expect(run(dir.path(), &["run"]), 2, "run refuses");
    assert!(
        out.stderr.contains("the decision sources (adr:docs/adr, cursor:.cursor/rules) have 1 error(s):"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains(".cursor/rules/broken.mdc:3:1: error:"), "{}", out.stderr);
}

/// `import` writes the Mneme file (the same bytes every time), and loading
/// it gives the pool the sources give.
#[test]
fn import_writes_a_memory_that_loads_into_the_same_pool() {
    let dir = adr_and_cursor_repository();
    expect(run(dir.path(), &["import", "--out", "project_memory.json"]), 0, "import");
    let first = std::fs::read(dir.path().join("project_memory.json")).unwrap();
    let out = expect(
        run(dir.path(), &["import", "adr:docs/adr/", "cursor:.cursor/rules/", "--out", "project_memory.json"]),
        0,
        "import again",
    );
    assert_eq!(std::fs::read(dir.path().join("project_memory.json")).unwrap(), first, "same bytes");
    assert_eq!(
        out.stdout,
        "wrote project_memory.json: 22 record(s) from adr:docs/adr, cursor:.cursor/rules, 21 in the retrieval pool (profile default)\n"
    );
    let json: serde_json::Value = serde_json::from_slice(&first).unwrap();
    assert_eq!(json["meta"]["name"], "decisions");
    let adr4 = &json["decisions"][2];
    assert_eq!(adr4["id"], "ADR-0004");
    assert_eq!(adr4["status"], "superseded");
    assert_eq!(adr4["superseded_by"], "ADR-0015");
    assert_eq!(adr4["source"]["type"], "adr");
    assert_eq!(adr4["source"]["path"], "docs/adr/0004-dns-definitions-for-hosts-and-services.md");
    for family in [Family::Default, Family::Mneme] {
        let direct = Memory::load_sources(
            &Sources {
                list: vec![
                    DecisionSource::new(SourceKind::Adr, dir.path().join("docs/adr")),
                    DecisionSource::new(SourceKind::Cursor, dir.path().join(".cursor/rules")),
                ],
                root: dir.path().to_path_buf(),
            },
            family,
        )
        .unwrap();
        let imported = Memory::load(&dir.path().join("project_memory.json"), family).unwrap();
        assert_eq!(pool(&direct), pool(&imported), "{family:?}");
    }
}

/// What two pools must share to rank alike: every canonical field, in
/// order.
fn pool(m: &Memory) -> Vec<String> {
    m.pool
        .iter()
        .map(|d| {
            format!(
                "{}|{}|{:?}|{:?}|{:?}|{}|{:?}|{:?}|{:?}",
                d.id,
                d.title,
                d.tags,
                d.constraint,
                d.anti_patterns,
                d.content,
                d.paths,
                d.kind,
                d.sections()
            )
        })
        .collect()
}

mod property {
    use proptest::prelude::*;

    use super::*;

    /// A line of generated Markdown text: words, sometimes with markup.
    fn words() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("ledger"),
                Just("refund"),
                Just("never"),
                Just("avoid"),
                Just("`code`"),
                Just("**bold**"),
                Just("[link](0002-x.md)"),
                Just("é"),
                Just("Don't"),
                Just("payments"),
            ],
            1..6,
        )
        .prop_map(|w| w.join(" "))
    }

    fn adr() -> impl Strategy<Value = String> {
        (
            words(),
            prop_oneof![
                Just("Accepted"),
                Just("Proposed"),
                Just("Superseded by [2. X](0002-x.md)"),
                Just("Deprecated"),
                Just("Weird")
            ],
            proptest::collection::vec(words(), 0..4),
            proptest::collection::vec(words(), 0..3),
            any::<bool>(),
            (any::<bool>(), proptest::option::of(words())),
        )
            .prop_map(|(title, status, bullets, avoid, front, (own_id, more))| {
                let mut t = String::new();
                if front {
                    t.push_str(&format!("---\nstatus: {status}\ntags: [a, b]\nsummary: {title}\n"));
                    if own_id {
                        t.push_str("id: the-same-id\n");
                    }
                    t.push_str("---\n");
                }
                t.push_str(&format!(
                    "# 1. {title}\n\n## Status\n\n{status}\n\n## Context\n\n{title}\n\n## Decision\n\n"
                ));
                for b in &bullets {
                    t.push_str(&format!("- {b}\n"));
                }
                // The rest of an ADR: a subsection of the decision, the
                // options, the consequences.
                if let Some(more) = &more {
                    t.push_str(&format!(
                        "\n### Details\n\n{more}\n\n## Considered Options\n\n- {more}\n\n## Consequences\n\n{more}\n"
                    ));
                }
                if !avoid.is_empty() {
                    t.push_str("\n## Don'ts\n\n");
                    for b in &avoid {
                        t.push_str(&format!("* {b}\n"));
                    }
                }
                t
            })
    }

    fn rule() -> impl Strategy<Value = String> {
        (
            words(),
            prop_oneof![Just("**/*.ts"), Just("src/**, *.md"), Just("[\"a/*.rs\", \"b/**\"]"), Just("**")],
            any::<bool>(),
            proptest::collection::vec((words(), any::<bool>()), 0..5),
        )
            .prop_map(|(description, globs, always, bullets)| {
                let mut t =
                    format!("---\ndescription: {description}\nglobs: {globs}\nalwaysApply: {always}\n---\n# Rule\n\n");
                for (b, sub) in &bullets {
                    if *sub {
                        t.push_str(&format!("\n## {b}\n\n"));
                    }
                    t.push_str(&format!("- {b}\n"));
                }
                t
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// import → JSON → load gives the same pool as loading the sources.
        #[test]
        fn import_then_load_is_the_same_pool(
            adrs in proptest::collection::vec(adr(), 0..5),
            rules in proptest::collection::vec(rule(), 0..5),
            order in any::<bool>(),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let adr_dir = dir.path().join("docs/adr");
            let rules_dir = dir.path().join(".cursor/rules");
            std::fs::create_dir_all(&adr_dir).unwrap();
            std::fs::create_dir_all(&rules_dir).unwrap();
            for (i, text) in adrs.iter().enumerate() {
                // Two files may share a number: a duplicate id.
                std::fs::write(adr_dir.join(format!("{:04}-adr-{i}.md", i % 3)), text).unwrap();
            }
            for (i, text) in rules.iter().enumerate() {
                std::fs::write(rules_dir.join(format!("rule-{i}.mdc")), text).unwrap();
            }
            let mut list = vec![DecisionSource::new(SourceKind::Adr, &adr_dir), DecisionSource::new(SourceKind::Cursor, &rules_dir)];
            if order {
                list.reverse();
            }
            let sources = Sources { list, root: dir.path().to_path_buf() };
            for family in [Family::Default, Family::Mneme] {
                let read = sources::read(&sources, family).unwrap();
                prop_assert!(!read.memory.has_errors(), "{:?}", read.memory.diagnostics);
                let text = sources::export::mneme_json(&read.records, &sources.label(), dir.path());
                let json = dir.path().join("m.json");
                std::fs::write(&json, &text).unwrap();
                let imported = Memory::load(&json, family).unwrap();
                prop_assert_eq!(pool(&read.memory), pool(&imported));
                let excluded = |m: &Memory| m.excluded.iter().map(|e| (e.id.clone(), e.reason.code())).collect::<Vec<_>>();
                prop_assert_eq!(excluded(&read.memory), excluded(&imported));
                // The same sources, the same bytes.
                let again = sources::read(&sources, family).unwrap();
                prop_assert_eq!(text, sources::export::mneme_json(&again.records, &sources.label(), dir.path()));
            }
        }
    }
}

// ---------------------------------------------------------------------------
// A repository a pull request controls.

#[cfg(unix)]
#[test]
fn links_out_of_a_source_special_files_and_large_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let adr = dir.path().join("docs/adr");
    std::fs::create_dir_all(&adr).unwrap();
    std::fs::write(adr.join("0001-ok.md"), "# 1. Fine\n\n## Decision\n\n- keep it\n").unwrap();
    std::fs::write(outside.path().join("secret.md"), "# 2. Secret\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), adr.join("0002-link.md")).unwrap();
    std::os::unix::fs::symlink(outside.path(), adr.join("linked-folder")).unwrap();
    let fifo = adr.join("0003-pipe.md");
    let made = Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    std::fs::write(adr.join("0004-large.md"), "x".repeat(1024 * 1024 + 1)).unwrap();
    let out = expect(run(dir.path(), &["validate", "--memory", "adr:docs/adr"]), 2, "validate");
    let text = out.stdout;
    assert!(
        text.contains("docs/adr/0002-link.md:1:1: error: a symbolic link that leads out of the source folder"),
        "{text}"
    );
    assert!(
        text.contains("docs/adr/linked-folder:1:1: warning: a symbolic link to a folder is not followed: skipped"),
        "{text}"
    );
    if made {
        assert!(
            text.contains("docs/adr/0003-pipe.md:1:1: warning: a named pipe (FIFO), not a regular file: skipped"),
            "{text}"
        );
    }
    assert!(text.contains("docs/adr/0004-large.md:1:1: error: the file is larger than 1 MiB"), "{text}");
    assert!(!text.contains("Secret"), "{text}");
    assert!(text.contains("1 record(s), 1 in the retrieval pool"), "{text}");

    // A source folder that is itself a link out of the repository.
    std::os::unix::fs::symlink(outside.path(), dir.path().join("rules")).unwrap();
    let out = expect(run(dir.path(), &["validate", "--memory", "claude:rules"]), 2, "a linked source");
    assert!(
        out.stderr.contains(
            "cannot read the decision source claude:rules: rules leads out of the repository through a symbolic link"
        ),
        "{}",
        out.stderr
    );
    // A source that holds nothing of its kind is a warning (a misspelt path).
    let out = expect(run(dir.path(), &["validate", "--memory", "claude:docs", "--strict"]), 2, "an empty source");
    assert!(out.stdout.starts_with("docs:1:1: warning: holds no Claude Code memory"), "{}", out.stdout);
    let out = expect(run(dir.path(), &["validate", "--memory", "adr:missing"]), 2, "a missing source");
    assert!(out.stderr.contains("cannot read the decision source adr:missing: cannot read missing:"), "{}", out.stderr);
}

/// `init` finds the ADR folder and the Cursor rules and proposes them.
#[test]
fn init_proposes_the_sources_it_finds() {
    let dir = adr_and_cursor_repository();
    std::fs::remove_file(dir.path().join("mneme-gate.yaml")).unwrap();
    std::fs::remove_dir_all(dir.path().join("scenarios")).unwrap();
    let out = expect(run(dir.path(), &["init"]), 0, "init");
    // (The line is fitted to 80 columns: it may break anywhere.)
    assert!(
        out.stdout.replace('\n', " ").contains("from the decisions of adr:docs/adr, cursor:.cursor/rules"),
        "{}",
        out.stdout
    );
    let config = std::fs::read_to_string(dir.path().join("mneme-gate.yaml")).unwrap();
    assert!(config.contains("memory:             # decision sources, in pool order (docs/sources.md)\n  - adr: \"docs/adr/\"\n  - cursor: \".cursor/rules/\"\n"), "{config}");
    expect(run(dir.path(), &["run"]), 0, "the generated suite passes");
}

/// `init` finds decision records kept as folders of their own, deep in a
/// repository (`docs/developer/decision-records/<date>-<slug>/README.md`).
#[test]
fn init_finds_decision_folders() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(&root().join("fixtures/sources/edc-connector"), dir.path());
    common::git(dir.path(), &["init", "-q"]);
    let out = expect(run(dir.path(), &["init"]), 0, "init");
    assert!(out.stdout.replace('\n', " ").contains("adr:docs/developer/decision-records"), "{}", out.stdout);
    let config = std::fs::read_to_string(dir.path().join("mneme-gate.yaml")).unwrap();
    assert!(config.contains("  - adr: \"docs/developer/decision-records/\"\n"), "{config}");
    let out = expect(run(dir.path(), &["validate"]), 0, "validate");
    assert!(out.stdout.contains("4 record"), "{}", out.stdout);
}

/// Cursor's legacy `.cursorrules`: one record per top-level section, or one
/// for a file without sections; it has no scope.
#[test]
fn legacy_cursorrules() {
    let (d, p) = sources::parse_file(
        SourceKind::Cursor,
        ".cursorrules",
        "You are an expert in Go.\n\n## Errors\n\n- Wrap errors.\n\n## Never\n\n- panic in a handler\n",
        Family::Default,
    );
    assert!(p.is_empty(), "{p:?}");
    let view: Vec<(&str, &str, usize, usize, usize)> = d
        .iter()
        .map(|d| (d.id.as_str(), d.title.as_str(), d.constraint.len(), d.anti_patterns.len(), d.origin().unwrap().line))
        .collect();
    assert_eq!(
        view,
        [
            ("cursor/cursorrules", "cursorrules", 0, 0, 1),
            ("cursor/cursorrules/errors", "Errors", 1, 0, 3),
            ("cursor/cursorrules/never", "Never", 0, 1, 7),
        ]
    );
    let (d, _) =
        sources::parse_file(SourceKind::Cursor, ".cursorrules", "- be brief\n- avoid jargon\n", Family::Default);
    assert_eq!(d.len(), 1);
    assert_eq!((d[0].id.as_str(), d[0].constraint.len(), d[0].anti_patterns.len()), ("cursor/cursorrules", 1, 1));
}

// ---------------------------------------------------------------------------
// Real repositories, read right: every decision file of four more
// public repositories reaches the pool once, with its own id.

/// One expected decision: id, title, status.
type Decision3<'a> = (&'a str, &'a str, Option<&'a str>);

/// Every record of `sources` as (id, title, status), against `want`
/// (counted by hand from the files); no record is dropped as a duplicate,
/// and no two share an id.
fn every_decision(sources: &Sources, want: &[Decision3<'_>]) -> Memory {
    let read = sources::read(sources, Family::Default).unwrap();
    assert!(!read.memory.has_errors(), "{:#?}", read.memory.diagnostics);
    let got: Vec<(String, String, Option<String>)> =
        read.records.iter().map(|(_, d)| (d.id.clone(), d.title.clone(), d.status().map(str::to_string))).collect();
    let want: Vec<(String, String, Option<String>)> =
        want.iter().map(|(i, t, s)| (i.to_string(), t.to_string(), s.map(str::to_string))).collect();
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
    assert_eq!(got.len(), want.len(), "{got:#?}");
    let mut ids: Vec<&str> = got.iter().map(|(id, _, _)| id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), got.len(), "two records share an id");
    for e in &read.memory.excluded {
        assert_eq!(e.reason.code(), "inactive_status", "{} is dropped: {:?}", e.id, e.reason);
    }
    assert_eq!(read.memory.pool.len() + read.memory.excluded.len(), got.len());
    read.memory
}

/// The messages of a memory's warnings, as `file: message`.
fn warnings(m: &Memory) -> Vec<String> {
    m.diagnostics
        .iter()
        .filter(|d| d.severity == mneme_gate::memory::Severity::Warning)
        .map(|d| format!("{}: {}", d.file.as_deref().unwrap_or(""), d.message))
        .collect()
}

/// Kuma's MADRs under `docs/madr/decisions/`: 13 Markdown files, of which
/// `000-template.md` is the template: 12 decisions. Two numbers are shared
/// (096, 100): those four files take their stems, and `validate` says so
/// once per number; three MADRs are a title and a link.
#[test]
fn madr_of_kuma_under_docs_madr_decisions() {
    let sources = fixture(SourceKind::Adr, "kuma/docs/madr/decisions");
    let memory = every_decision(
        &sources,
        &[
            ("ADR-001", "Adopt MADR", Some("accepted")),
            ("ADR-036", "Internal listeners naming convention", Some("superseded")),
            ("ADR-042", "Introduce Warnings for Resource API", Some("accepted")),
            (
                "ADR-067",
                "MeshTLS policy - being able to selectively modify TLS properties (mode, version, cipher)",
                Some("accepted"),
            ),
            ("ADR-069", "Inbound policies", Some("accepted")),
            ("ADR-092", "Workload Identifier", Some("accepted")),
            ("ADR-096-ingress-address-sync", "Syncing Zone Ingress Address Across Zones", Some("accepted")),
            ("ADR-096-observability-dashboards", "Observability dashboards redesign", Some("accepted")),
            ("ADR-099", "Allow Multiple Meshes per Kubernetes Namespace", Some("accepted")),
            // Its `### Status` (about a feature) is deep in the body: the
            // `* Status: accepted` line wins.
            ("ADR-100-otel-env-bootstrap-runtime", "OTEL env-var bootstrap and runtime resolution", Some("accepted")),
            (
                "ADR-100-zone-egress-endpoint-storage",
                "Zone Egress Address Storage for Endpoint Generation",
                Some("accepted"),
            ),
            ("ADR-102", "Standardize Computed Labels for Mesh-Scoped Zone Proxy Listeners", Some("accepted")),
        ],
    );
    assert_eq!(memory.excluded.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ["ADR-036"]);
    let w = warnings(&memory);
    let shared: Vec<&String> = w.iter().filter(|m| m.contains("share the number")).collect();
    assert_eq!(shared.len(), 2, "once per shared number: {w:#?}");
    assert!(
        shared[0].contains("2 files share the number 96, so none of them is \"ADR-096\": ")
            && shared[0].contains("096-observability-dashboards.md → ADR-096-observability-dashboards"),
        "{}",
        shared[0]
    );
    let thin: Vec<&String> = w.iter().filter(|m| m.contains("almost no text of its own")).collect();
    assert_eq!(thin.len(), 3, "{w:#?}");
    for (m, file) in thin.iter().zip(["067-meshtls.md", "069-inbound-policies.md", "092-workload-identifier.md"]) {
        assert!(m.contains(file), "{m}");
    }
    // The whole MADR is read, by part.
    let otel = memory.pool.iter().find(|d| d.id == "ADR-100-otel-env-bootstrap-runtime").unwrap();
    assert!(otel.sections().context.contains("Status should be built in"), "the deep Status section is text");
    assert!(otel.sections().options.contains("control plane"), "{:?}", otel.sections().options);
    let adopt = memory.pool.iter().find(|d| d.id == "ADR-001").unwrap();
    assert!(
        !adopt.sections().options.is_empty() && !adopt.sections().consequences.is_empty(),
        "{:#?}",
        adopt.sections()
    );
    // The words of a subsection's heading are scored in its part; a
    // heading that is only a part's name is not.
    let ingress = memory.pool.iter().find(|d| d.id == "ADR-096-ingress-address-sync").unwrap();
    let options = &ingress.sections().options;
    assert!(options.contains("Option 2: Validate and reject multiple addresses/ports"), "{options:?}");
    assert!(options.contains("Option 1: Create new MeshZoneAddress resource"), "{options:?}");
    assert!(!options.lines().any(|l| l == "Pros and Cons"), "{options:?}");
    assert!(ingress.sections().context.contains("Rollback"), "{:?}", ingress.sections().context);
}

/// Brighter's ADRs: 11 files, five of them `0037-*` and three `0038-*`.
/// Each has front matter `id:` (the team made the file slug the identity),
/// which is the id; none is dropped.
#[test]
fn colliding_adr_numbers_of_brighter_keep_every_decision() {
    let sources = fixture(SourceKind::Adr, "brighter/docs/adr");
    let memory = every_decision(
        &sources,
        &[
            ("0001-record-architecture-decisions", "Record architecture decisions", Some("accepted")),
            ("0018-support-a-command-oriented-interface", "Support A Command Oriented Interface", Some("accepted")),
            ("0037-add-messaging-gateway-generated-test", "Add Messaging Gateway Generated Tests", Some("accepted")),
            ("0037-aws-test-resource-cleanup", "AWS Test Resource Cleanup", Some("accepted")),
            ("0037-provide-roslyn-analyzers-for-brighter", "Provide Roslyn Analyzers for Brighter", Some("proposed")),
            ("0037-reject-message-on-error-handler", "Reject Message On Error Handler", Some("accepted")),
            ("0037-universal-scheduler-delay", "Universal Scheduler Delay Support", Some("accepted")),
            (
                "0038-aws-sqs-dlq-direct-send",
                "AWS SQS DLQ: Replace ChangeMessageVisibility with Direct Send",
                Some("accepted"),
            ),
            ("0038-dont-ack-action", "Don't Ack Action", Some("accepted")),
            ("0038-remove-clear-service-bus", "Remove ClearServiceBus", Some("accepted")),
            ("0065-add-frontmatter-to-adrs", "Add Frontmatter to ADRs", Some("proposed")),
        ],
    );
    let w = warnings(&memory);
    assert_eq!(w.len(), 2, "{w:#?}");
    assert!(w[0].contains("5 files share the number 37"), "{}", w[0]);
    assert!(w[1].contains("3 files share the number 38"), "{}", w[1]);
    let reject = memory.pool.iter().find(|d| d.id == "0037-reject-message-on-error-handler").unwrap();
    assert!(
        reject.sections().summary.starts_with("Introduces RejectMessageOnErrorAttribute"),
        "{:?}",
        reject.sections()
    );
    // `id_from: number` ignores the front matter: the shared numbers give
    // way to the stems; `stem` takes the stems everywhere.
    let mut by_number = fixture(SourceKind::Adr, "brighter/docs/adr");
    by_number.list[0].id_from = IdFrom::Number;
    let read = sources::read(&by_number, Family::Default).unwrap();
    let ids: Vec<&str> = read.records.iter().map(|(_, d)| d.id.as_str()).collect();
    assert_eq!(ids[..3], ["ADR-0001", "ADR-0018", "ADR-0037-add-messaging-gateway-generated-test"]);
    by_number.list[0].id_from = IdFrom::Stem;
    let read = sources::read(&by_number, Family::Default).unwrap();
    assert_eq!(read.records[0].1.id, "ADR-0001-record-architecture-decisions");
}

/// Brighter's `AGENTS.md` links six rule files of `.agent_instructions/`:
/// each is read as decisions of its own (one per top-level section), the
/// file it does not link (`adr_frontmatter.md`) is not, nor the ADRs.
#[test]
fn agents_md_of_brighter_and_the_rule_files_it_links() {
    let sources = fixture(SourceKind::Agents, "brighter");
    let read = sources::read(&sources, Family::Default).unwrap();
    assert!(!read.memory.has_errors(), "{:#?}", read.memory.diagnostics);
    let files: Vec<&str> = {
        let mut f: Vec<&str> = read.records.iter().map(|(_, d)| d.origin().unwrap().file.as_str()).collect();
        f.dedup();
        f
    };
    let base = root().join("fixtures/sources/brighter");
    let shown = |p: &str| format!("{}/{p}", base.display());
    assert_eq!(
        files,
        [
            "AGENTS.md",
            ".agent_instructions/build_and_development.md",
            ".agent_instructions/project_structure.md",
            ".agent_instructions/code_style.md",
            ".agent_instructions/testing.md",
            ".agent_instructions/documentation.md",
            ".agent_instructions/dependency_management.md",
        ]
        .map(shown)
    );
    let ids: Vec<&str> = read.records.iter().map(|(_, d)| d.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "agents",
            "agents/how-to-use-this-file",
            "agents/detailed-instructions",
            "agents/@.agent_instructions/build_and_development/building-the-solution",
            "agents/@.agent_instructions/build_and_development/running-tests",
            "agents/@.agent_instructions/build_and_development/docker-development-environment",
            "agents/@.agent_instructions/project_structure",
            "agents/@.agent_instructions/project_structure/testing-framework",
            "agents/@.agent_instructions/project_structure/package-management",
            "agents/@.agent_instructions/code_style",
            "agents/@.agent_instructions/testing",
            "agents/@.agent_instructions/testing/tdd-style",
            "agents/@.agent_instructions/testing/test-scope-and-isolation",
            "agents/@.agent_instructions/testing/no-internalsvisibleto",
            "agents/@.agent_instructions/testing/exploratory-tests-for-implementation-details",
            "agents/@.agent_instructions/testing/test-doubles",
            "agents/@.agent_instructions/testing/testing-middleware-with-docker",
            "agents/@.agent_instructions/documentation",
            "agents/@.agent_instructions/documentation/architecture-decision-records",
            "agents/@.agent_instructions/documentation/writing-tone-for-design-documents",
            "agents/@.agent_instructions/documentation/licensing",
            "agents/@.agent_instructions/dependency_management",
        ]
    );
    // A section that holds only a code block is a record of that code.
    let build = &read.records[3].1;
    assert_eq!(build.title, "Building the Solution");
    assert!(build.content.contains("dotnet"), "{:?}", build.content);
    assert_eq!(read.memory.pool.len(), ids.len());
}

/// GOV.UK's dotcom-rendering: 17 Markdown files under
/// `docs/architecture/`, in three sub-folders. `historic-adrs/` holds
/// deprecated ADRs whose number the team removed on purpose, and one file
/// that is not an ADR (`dotenv.md`); `proposed-adrs/` a proposal; the
/// third-party reviews are numbered 000 to 004, as the main folder is: 16
/// decisions.
#[test]
fn unnumbered_proposed_and_sub_folder_adrs_of_dotcom_rendering() {
    let sources = fixture(SourceKind::Adr, "dotcom-rendering/dotcom-rendering/docs/architecture");
    let memory = every_decision(
        &sources,
        &[
            (
                "ADR-000-architecture-decision-records",
                "Lightweight Architectural Design Decision Format",
                Some("accepted"),
            ),
            ("ADR-001-dotcom-rendering", "Frontend rendering layer as a service", Some("accepted")),
            ("ADR-017", "Remove monorepo", Some("accepted")),
            ("ADR-028", "React Context API", Some("accepted")),
            ("ADR-029", "Scaling", None),
            ("ADR-000-technical-review-records", "3rd-Party Technical Review Format", Some("accepted")),
            ("ADR-001-modi-poc", "MoDI Proof of Concept", None),
            ("ADR-002", "Ipsos Mori tagging", None),
            ("ADR-003", "Gracenote Tag", None),
            ("ADR-004", "urlbox.io subscription", None),
            ("ADR-000-structure-for-initial-milestone-amp", "AMP structure for initial milestone", Some("accepted")),
            ("ADR-016", "React Context API", Some("superseded")),
            ("ADR-multiple-sites", "Multiple sites", Some("superseded")),
            ("ADR-signing-image-urls", "DCR now signs image urls", Some("complete")),
            (
                "ADR-use-percy-for-e2e-visual-regression-testing",
                "Use Percy/Cypress for integration-style visual regression testing",
                Some("deprecated"),
            ),
            (
                "ADR-rendering-type",
                "Using 'renderingType' to support different props / data requirements",
                Some("proposed"),
            ),
        ],
    );
    let w = warnings(&memory);
    assert_eq!(w.len(), 3, "{w:#?}");
    assert!(w.iter().any(|m| m.contains("3 files share the number 0")), "{w:#?}");
    assert!(w.iter().any(|m| m.contains("2 files share the number 1,")), "{w:#?}");
    assert!(w.iter().any(|m| m.ends_with("docs/architecture/historic-adrs/dotenv.md: not read as an ADR: it has no number, no status and no Context or Decision heading; number it (`NNNN-title.md`) or add a `Status:` line to make it a decision")), "{w:#?}");
    // `Superseded by` a link resolves to the file's id.
    let old = memory.excluded.iter().find(|e| e.id == "ADR-016").unwrap();
    assert!(format!("{:?}", old.reason).contains("ADR-028"), "{:?}", old.reason);
}

/// katana-openapi-client, a monorepo with an ADR folder per package (24
/// ADRs; four READMEs and a template are not decisions): the sources `init`
/// proposes give each folder its prefix, so that the two `0001`, `0002`
/// and `0003` are six decisions.
#[test]
fn monorepo_adr_folders_of_katana() {
    let base = root().join("fixtures/sources/katana");
    let list: Vec<DecisionSource> = mneme_gate::init::detect_sources(&base, None)
        .into_iter()
        .map(|mut s| {
            s.path = base.join(&s.path);
            s
        })
        .collect();
    let prefixes: Vec<Option<&str>> = list.iter().map(|s| s.id_prefix.as_deref()).collect();
    assert_eq!(
        prefixes,
        [
            None,
            Some("katana_mcp_server/ADR-"),
            Some("katana_public_api_client/ADR-"),
            Some("packages/katana-client/ADR-")
        ]
    );
    // Written by hand without prefixes, the folders share one id space:
    // the numbers two folders share give way to the stems, and nothing is
    // dropped.
    let plain: Vec<DecisionSource> = list.iter().map(|s| DecisionSource::new(SourceKind::Adr, &s.path)).collect();
    let read = sources::read(&Sources { list: plain, root: base.clone() }, Family::Default).unwrap();
    let ids: Vec<&str> = read.records.iter().map(|(_, d)| d.id.as_str()).collect();
    assert_eq!(ids.len(), 24);
    assert_eq!(
        ids[11..14],
        ["ADR-0001-transport-layer-resilience", "ADR-0002-openapi-code-generation", "ADR-0003-transparent-pagination"]
    );
    assert_eq!(ids[21], "ADR-0001-composable-fetch-wrappers");
    assert!(read.memory.excluded.iter().all(|e| e.reason.code() == "inactive_status"), "{:?}", read.memory.excluded);
    assert_eq!(warnings(&read.memory).iter().filter(|w| w.contains("share the number")).count(), 3);
    let sources = Sources { list, root: base.clone() };
    every_decision(
        &sources,
        &[
            ("ADR-0009", "Migrate from Poetry to uv Package Manager", Some("accepted")),
            ("ADR-0013", "Module-Local Documentation Structure", Some("accepted")),
            ("ADR-0014", "GitHub Copilot Custom Agents with Three-Tier Architecture", Some("superseded")),
            ("ADR-0015", "Confirmation Pattern for Write Tools (preview→apply, agent re-issued)", Some("superseded")),
            ("katana_mcp_server/ADR-0010", "Katana MCP Server for Claude Code Integration", Some("accepted")),
            ("katana_mcp_server/ADR-0016", "Tool Interface Pattern", Some("accepted")),
            ("katana_mcp_server/ADR-0017", "Automated Tool Documentation", Some("accepted")),
            (
                "katana_mcp_server/ADR-0018",
                "SQLModel-backed typed cache for transactional list tools",
                Some("accepted"),
            ),
            ("katana_mcp_server/ADR-0019", "MCP tool description and batch-field conventions", Some("accepted")),
            (
                "katana_mcp_server/ADR-0020",
                "Consistent tool surface across entity types + cache unification",
                Some("proposed"),
            ),
            ("katana_mcp_server/ADR-0021", "Unified Direct-Apply Rail for Preview→Apply Cards", Some("accepted")),
            ("katana_public_api_client/ADR-0001", "Use Transport-Layer Resilience Pattern", Some("accepted")),
            ("katana_public_api_client/ADR-0002", "Generate Client from OpenAPI Specification", Some("accepted")),
            ("katana_public_api_client/ADR-0003", "Transparent Automatic Pagination", Some("accepted")),
            ("katana_public_api_client/ADR-0004", "Defer Observability to httpx", Some("accepted")),
            ("katana_public_api_client/ADR-0005", "Provide Both Sync and Async APIs", Some("accepted")),
            ("katana_public_api_client/ADR-0006", "Use Utility Functions for Response Unwrapping", Some("accepted")),
            ("katana_public_api_client/ADR-0007", "Generate Domain Helper Classes", Some("accepted")),
            ("katana_public_api_client/ADR-0008", "Avoid Traditional Builder Pattern", Some("proposed")),
            ("katana_public_api_client/ADR-0011", "Auto-Generated Pydantic Models from OpenAPI", Some("accepted")),
            ("katana_public_api_client/ADR-0012", "Validation Tiers for Agent Workflows", Some("accepted")),
            ("packages/katana-client/ADR-0001", "ADR-TS-001: Composable Fetch Wrappers", Some("accepted")),
            ("packages/katana-client/ADR-0002", "ADR-TS-002: Hey API Code Generation", Some("accepted")),
            ("packages/katana-client/ADR-0003", "ADR-TS-003: Biome for Linting and Formatting", Some("accepted")),
        ],
    );
}

/// `init` in a throw-away git repository of each fixture lists every
/// decision folder (and `AGENTS.md`), and `validate` on what it wrote
/// drops nothing.
#[test]
fn init_lists_every_decision_folder_of_the_real_repositories() {
    let cases: [(&str, &[&str]); 4] = [
        ("kuma", &["  - adr: \"docs/madr/decisions/\"\n"]),
        ("brighter", &["  - adr: \"docs/adr/\"\n", "  - agents: \".\"\n"]),
        ("dotcom-rendering", &["  - adr: \"dotcom-rendering/docs/architecture/\"\n"]),
        (
            "katana",
            &[
                "  - adr: \"docs/adr/\"\n",
                "  - adr: \"katana_mcp_server/docs/adr/\"\n    id_prefix: \"katana_mcp_server/ADR-\"",
                "  - adr: \"katana_public_api_client/docs/adr/\"\n    id_prefix: \"katana_public_api_client/ADR-\"",
                "  - adr: \"packages/katana-client/docs/adr/\"\n    id_prefix: \"packages/katana-client/ADR-\"",
            ],
        ),
    ];
    for (name, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&root().join("fixtures/sources").join(name), dir.path());
        common::git(dir.path(), &["init", "-q"]);
        common::git(dir.path(), &["add", "-A"]);
        common::git(dir.path(), &["commit", "-qm", "fixture"]);
        let out = expect(run(dir.path(), &["init"]), 0, name);
        // `init` loads the memory twice (its starter suite, then the
        // baseline it pins): each warning is said once.
        let said: Vec<&str> = out.stderr.lines().filter(|l| l.contains("warning")).collect();
        if name != "katana" {
            assert!(!said.is_empty(), "{name}: the fixture has warnings to say: {}", out.stderr);
        }
        for line in &said {
            assert_eq!(
                said.iter().filter(|l| *l == line).count(),
                1,
                "{name}: said more than once: {line}\n{}",
                out.stderr
            );
        }
        let config = std::fs::read_to_string(dir.path().join("mneme-gate.yaml")).unwrap();
        let adr_lines = config.lines().filter(|l| l.starts_with("  - adr:")).count();
        assert_eq!(adr_lines, want.iter().filter(|w| w.starts_with("  - adr:")).count(), "{name}: {config}");
        for w in want {
            assert!(config.contains(w), "{name}: {w:?} in\n{config}");
        }
        let out = expect(run(dir.path(), &["validate"]), 0, name);
        assert!(
            !out.stdout.contains("duplicate id") && !out.stderr.contains("duplicate id"),
            "{name}: {}{}",
            out.stdout,
            out.stderr
        );
    }
}

/// What `CLAUDE.md` and `AGENTS.md` import or link is read once, inside the
/// repository only, at most five imports deep; a nested `AGENTS.md` applies
/// to its folder.
#[cfg(unix)]
#[test]
fn imports_stay_in_the_repository_without_cycles() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "# Secret\n\n- never read\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let w = |p: &str, t: &str| {
        let p = repo.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    w("CLAUDE.md", "# Claude\n\n@AGENTS.md\n@rules/a.md\n@../outside.md\n@~/.claude/mine.md\n@rules/link.md\n\n```\n@rules/in-code.md\n```\n");
    w("AGENTS.md", "# Agents\n\n- Use the [style guide](docs/style.md) and [site](https://example.com/x.md).\n");
    w("docs/style.md", "# Style\n\n- Short lines.\n\nSee [more](more.md).\n");
    w("docs/more.md", "# More\n\n- a link of a link is not followed\n");
    w("rules/a.md", "# A\n\n- rule a\n\n@b.md\n");
    w("rules/b.md", "# B\n\n- rule b\n\n@a.md\n@c.md\n");
    w("rules/c.md", "# C\n\n- rule c\n\n@d.md\n");
    w("rules/d.md", "# D\n\n- rule d\n\n@e.md\n");
    w("rules/e.md", "# E\n\n- rule e\n\n@f.md\n");
    w("rules/f.md", "# F\n\n- rule f\n\n@g.md\n");
    w("rules/g.md", "# G\n\n- too deep\n");
    w("rules/in-code.md", "# In code\n\n- not an import\n");
    w("pkg/AGENTS.md", "# Package\n\n## Errors\n\n- Wrap errors.\n");
    std::os::unix::fs::symlink(outside.path().join("secret.md"), repo.join("rules/link.md")).unwrap();
    let sources = Sources {
        list: vec![DecisionSource::new(SourceKind::Agents, &repo), DecisionSource::new(SourceKind::Claude, &repo)],
        root: repo.clone(),
    };
    let read = sources::read(&sources, Family::Default).unwrap();
    let ids: Vec<&str> = read.records.iter().map(|(_, d)| d.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "agents",
            "agents/pkg/errors",
            "agents/@docs/style",
            "claude",
            "claude/@rules/a",
            "claude/@rules/b",
            "claude/@rules/c",
            "claude/@rules/d",
            "claude/@rules/e",
        ],
        "the walked files, then what they bring in; AGENTS.md is read once (by its source), the cycle a → b → a ends, f and g are deeper than five imports"
    );
    let scoped = read.records.iter().find(|(_, d)| d.id == "agents/pkg/errors").unwrap();
    assert_eq!(scoped.1.paths, ["pkg/**"]);
    let messages: Vec<String> = read.memory.diagnostics.iter().map(|d| d.message.clone()).collect();
    for want in [
        "imports `../outside.md`, which cannot be read",
        "imports `~/.claude/mine.md` is outside the repository",
        "imports `rules/link.md`, which is outside the repository once links are resolved: not read",
    ] {
        assert!(messages.iter().any(|m| m.starts_with(want)), "{want}: {messages:#?}");
    }
    assert!(read.records.iter().all(|(_, d)| !d.constraint.iter().any(|c| c.contains("never read"))));
}

/// A second file with a number already used does not take over the first
/// one's id, nor leave it: neither is that number's id any more, so a
/// scenario or baseline that named it fails loudly (its id is in no pool)
/// instead of silently meaning the other file; a file added with a new
/// number changes no other id.
#[test]
fn adding_a_file_never_silently_changes_what_an_id_means() {
    let dir = tempfile::tempdir().unwrap();
    let adr = dir.path().join("docs/adr");
    std::fs::create_dir_all(&adr).unwrap();
    let body = |t: &str| {
        format!("# {t}\n\n## Status\n\nAccepted\n\n## Decision\n\nWe {t}, for every service we run, because the team knows it well and it is cheap to operate.\n")
    };
    std::fs::write(adr.join("0003-use-postgres.md"), body("use Postgres")).unwrap();
    let sources = Sources { list: vec![DecisionSource::new(SourceKind::Adr, &adr)], root: dir.path().to_path_buf() };
    let ids = |s: &Sources| {
        let read = sources::read(s, Family::Default).unwrap();
        let ids: Vec<String> = read.records.iter().map(|(_, d)| d.id.clone()).collect();
        (ids, read.memory)
    };
    assert_eq!(ids(&sources).0, ["ADR-0003"]);
    std::fs::write(adr.join("0004-use-redis.md"), body("use Redis")).unwrap();
    assert_eq!(ids(&sources).0, ["ADR-0003", "ADR-0004"], "a new number changes no other id");
    std::fs::write(adr.join("0003-add-a-cache.md"), body("add a cache")).unwrap();
    let (now, memory) = ids(&sources);
    assert_eq!(now, ["ADR-0003-add-a-cache", "ADR-0003-use-postgres", "ADR-0004"]);
    let w = warnings(&memory);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(w[0].contains("so none of them is \"ADR-0003\""), "{}", w[0]);
    assert!(w[0].contains("0003-use-postgres.md → ADR-0003-use-postgres"), "{}", w[0]);
}

/// `import --out` to a file outside the repository writes each
/// `source.path` relative to the written file's folder, as documented, so
/// that the file still points at the decisions it was read from.
#[test]
fn import_out_elsewhere_keeps_source_paths_relative_to_the_written_file() {
    let dir = adr_and_cursor_repository();
    let elsewhere = tempfile::tempdir().unwrap();
    let out_file = elsewhere.path().join("deep/memory.json");
    std::fs::create_dir_all(out_file.parent().unwrap()).unwrap();
    expect(run(dir.path(), &["import", "adr:docs/adr/", "--out", out_file.to_str().unwrap()]), 0, "import");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    let path = json["decisions"][0]["source"]["path"].as_str().unwrap();
    let resolved = out_file.parent().unwrap().join(path);
    assert!(resolved.is_file(), "{path} from {} names no file", out_file.display());
    assert!(path.starts_with("../"), "{path}");
    assert_eq!(
        std::fs::canonicalize(resolved).unwrap(),
        std::fs::canonicalize(dir.path().join("docs/adr/0001-record-architecture-decisions.md")).unwrap()
    );
}

/// `validate`'s exit 2 goes through the one error path: its findings on
/// standard output, then an `error:` line (and an annotation in GitHub
/// Actions) like every other failure.
#[test]
fn validate_fails_through_the_error_path_with_an_annotation() {
    use common::OFF;
    let root = root();
    let warnings = "tests/fixtures/memory/warnings.json";
    let out = common::expect(common::run(&root, &["validate", "--memory", warnings], OFF), 0, "warnings alone");
    assert!(!out.stderr.contains("error:"), "{}", out.stderr);

    let out = common::expect(common::run(&root, &["validate", "--memory", warnings, "--strict"], OFF), 2, "strict");
    assert!(out.stdout.contains("2 warning(s)"), "{}", out.stdout);
    assert_eq!(
        out.stderr,
        format!("mneme-gate: error: {warnings} is not valid: 0 errors and 2 warnings (--strict counts warnings)\n")
    );
    let ci = [("MNEME_GATE_GIT", "off"), ("GITHUB_ACTIONS", "true")];
    let out =
        common::expect(common::run(&root, &["validate", "--memory", warnings, "--strict"], &ci), 2, "strict in CI");
    assert!(
        out.stderr.contains(&format!(
            "\n::error title=mneme-gate::{warnings} is not valid: 0 errors and 2 warnings (--strict counts warnings)\n"
        )),
        "{}",
        out.stderr
    );

    let broken = "tests/fixtures/memory/broken.json";
    let out =
        common::expect(common::run(&root, &["validate", "--memory", broken, "--format", "json"], OFF), 2, "errors");
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["errors"].as_u64(), Some(3));
    assert_eq!(out.stderr, format!("mneme-gate: error: {broken} is not valid: 3 errors\n"));
}

/// The environment of the tests below: git and the cache off.
const QUIET: &[(&str, &str)] = &[("MNEME_GATE_GIT", "off"), ("MNEME_GATE_CACHE", "off")];

/// Writes `files` (path, text) under `dir`.
fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// With the sources in the documented order, `claude` before `agents`,
/// the `AGENTS.md` that `CLAUDE.md` imports is read once, by the `agents`
/// source that walks it, not also as `claude/@AGENTS`.
#[test]
fn agents_md_imported_by_claude_md_listed_first_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("CLAUDE.md", "# Claude\n\nRead @AGENTS.md first.\n\n## Style\n\n- Short lines.\n"),
            ("AGENTS.md", "# Agents\n\n## Testing\n\n- Run the tests before every commit.\n"),
        ],
    );
    let sources = Sources {
        list: vec![
            DecisionSource::new(SourceKind::Claude, dir.path()),
            DecisionSource::new(SourceKind::Agents, dir.path()),
        ],
        root: dir.path().to_path_buf(),
    };
    let read = sources::read(&sources, Family::Default).unwrap();
    let ids: Vec<&str> = read.records.iter().map(|(_, d)| d.id.as_str()).collect();
    assert_eq!(ids, ["claude", "claude/style", "agents/testing"]);
    // The same through the binary, with the configuration the docs show.
    std::fs::write(dir.path().join("mneme-gate.yaml"), "memory: [claude: ., agents: .]\n").unwrap();
    let out = common::expect(common::run(dir.path(), &["import"], QUIET), 0, "import");
    assert!(!out.stdout.contains("\"id\": \"claude/@AGENTS"), "{}", out.stdout);
    assert_eq!(out.stdout.matches("\"id\": \"agents/testing\"").count(), 1, "{}", out.stdout);
}

/// Two agent rule files whose records would share an id (a root
/// `AGENTS.md`'s `## Testing` and `testing/AGENTS.md`; a `## Testing` of
/// `copilot-instructions.md` and `instructions/testing.instructions.md`)
/// keep both records, each under its file's path, and `validate` says so
/// once per id.
#[test]
fn rule_files_that_would_share_an_id_keep_every_record() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("AGENTS.md", "# Agents\n\n## Testing\n\n- Run the whole suite before a release.\n"),
            ("testing/AGENTS.md", "# Test helpers\n\n- Fixtures live in testing/fixtures.\n"),
            ("src/AGENTS.md", "# Source\n\n## Errors\n\n- Wrap every error.\n"),
            (".github/copilot-instructions.md", "# Copilot\n\n## Testing\n\n- Use pytest, never unittest.\n"),
            (
                ".github/instructions/testing.instructions.md",
                "---\napplyTo: \"tests/**\"\n---\n- Name tests after the behaviour.\n",
            ),
            ("mneme-gate.yaml", "memory: [agents: ., copilot: .github/]\n"),
        ],
    );
    let sources = Sources {
        list: vec![
            DecisionSource::new(SourceKind::Agents, dir.path()),
            DecisionSource::new(SourceKind::Copilot, dir.path().join(".github")),
        ],
        root: dir.path().to_path_buf(),
    };
    let read = sources::read(&sources, Family::Default).unwrap();
    let mut ids: Vec<&str> = read.records.iter().map(|(_, d)| d.id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "agents/src/errors",
            "agents/testing@AGENTS.md",
            "agents/testing@testing/AGENTS.md",
            "copilot/testing@.github/copilot-instructions.md",
            "copilot/testing@.github/instructions/testing.instructions.md",
        ]
    );
    assert_eq!(read.memory.pool.len(), 5, "{:?}", read.memory.excluded);
    let out = common::expect(common::run(dir.path(), &["validate"], QUIET), 0, "validate");
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(!all.contains("duplicate id"), "{all}");
    for (id, pairs) in [
        ("agents/testing", ["AGENTS.md → agents/testing@AGENTS.md", "testing/AGENTS.md → agents/testing@testing/AGENTS.md"]),
        (
            "copilot/testing",
            [
                ".github/copilot-instructions.md → copilot/testing@.github/copilot-instructions.md",
                ".github/instructions/testing.instructions.md → copilot/testing@.github/instructions/testing.instructions.md",
            ],
        ),
    ] {
        let said: Vec<&str> = all.lines().filter(|l| l.contains(&format!("would share the id \"{id}\""))).collect();
        assert_eq!(said.len(), 1, "once per id: {all}");
        for pair in pairs {
            assert!(said[0].contains(pair), "{pair}: {}", said[0]);
        }
    }
}

/// A nested `AGENTS.md` of a source that is not the repository root is
/// scoped from the repository root, as every scope glob: `context` for a
/// file of its folder retrieves it.
#[test]
fn a_nested_agents_md_below_a_source_folder_is_scoped_from_the_repository_root() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "services/pay/AGENTS.md",
                "# Payments\n\n## Refunds\n\n- Refunds are idempotent: key them by the order id.\n",
            ),
            ("mneme-gate.yaml", "memory: [agents: services/]\n"),
        ],
    );
    let out = common::expect(
        common::run(
            dir.path(),
            &["context", "--task", "make refunds idempotent", "--file", "services/pay/api.py", "--format", "json"],
            QUIET,
        ),
        0,
        "context",
    );
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(json.to_string().contains("\"id\":\"agents/pay/refunds\""), "{}{}", out.stdout, out.stderr);
    let sources = Sources {
        list: vec![DecisionSource::new(SourceKind::Agents, dir.path().join("services"))],
        root: dir.path().to_path_buf(),
    };
    let read = sources::read(&sources, Family::Default).unwrap();
    assert_eq!(read.records[0].1.paths, ["services/pay/**"]);
}

/// `id_from` is read from the configuration; a wrong value says where it
/// is documented.
#[test]
fn id_from_stem_in_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let adr = "# 1. Use Postgres\n\n## Status\n\nAccepted\n\n## Decision\n\nOrders live in Postgres, one database per service.\n";
    write_files(
        dir.path(),
        &[
            ("docs/adr/0001-use-postgres.md", adr),
            ("mneme-gate.yaml", "memory:\n  - adr: docs/adr/\n    id_from: stem\n"),
        ],
    );
    let out = common::expect(common::run(dir.path(), &["import"], QUIET), 0, "import");
    assert!(out.stdout.contains("\"id\": \"ADR-0001-use-postgres\""), "{}", out.stdout);
    std::fs::write(dir.path().join("mneme-gate.yaml"), "memory:\n  - adr: docs/adr/\n    id_from: slug\n").unwrap();
    let out = common::run(dir.path(), &["validate"], QUIET);
    assert_eq!(out.code, Some(2), "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("`id_from` is `slug`") && out.stderr.contains("docs/sources.md"), "{}", out.stderr);
    assert!(!out.stderr.contains("docs/reference.md: Configuration"), "{}", out.stderr);
}
