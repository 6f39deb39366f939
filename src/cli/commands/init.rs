//! `mneme-gate init`: a starter setup for a repository that has a memory
//! file: configuration, a starter suite, a GitHub Actions workflow, a pinned
//! baseline, and the generated reports in `.gitignore`. Never overwrites
//! without `--force`; `.gitignore` only ever gains the lines it lacks.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::cli::args::SuiteArgs;
use crate::cli::output;
use crate::cli::settings::{self, InitSettings, MemorySettings};
use crate::cli::suite::{self, load_memory_noting};
use crate::config::{Config, CONFIG_FILE};
use crate::error::{exit, Error};
use crate::memory::Sources;
use crate::profile::{Family, Profile};
use crate::report::display_path;
use crate::retrieval::Index;

const BASELINE: &str = settings::DEFAULT_BASELINE;
const GITIGNORE: &str = ".gitignore";
const CLAUDE_SETTINGS: &str = ".claude/settings.json";

pub(crate) fn execute(s: InitSettings) -> Result<i32, Error> {
    let mut text = String::new();
    let mut wrote = 0;
    if s.first_adr {
        let path = Path::new(crate::init::FIRST_ADR);
        for p in path.ancestors().filter(|p| !p.as_os_str().is_empty()) {
            refuse_link(p)?;
        }
        if path.exists() {
            let _ = writeln!(text, "left alone  {} (it exists)", crate::init::FIRST_ADR);
        } else {
            output::file(path, &crate::init::first_adr())?;
            wrote += 1;
            let _ = writeln!(text, "wrote       {} (review it)", crate::init::FIRST_ADR);
        }
    }
    let sources = match s.sources {
        Some(sources) => sources,
        None => {
            let found = crate::init::detect_sources(Path::new("."), s.memory.as_deref());
            if found.is_empty() {
                return Err(Error::Usage(fit(crate::init::NO_DECISIONS, s.width)));
            }
            Sources { list: found, root: PathBuf::from(".") }
        }
    };
    let memory_shown = match sources.single_json() {
        Some(p) => display_path(p),
        None => sources.label(),
    };
    let memory = MemorySettings { sources: sources.clone(), profile: Profile::named(Family::Default) };
    // The memory is loaded again to pin the baseline: each warning is said once.
    let mut noted = std::collections::HashSet::new();
    let index = Index::build(load_memory_noting(&memory, &mut noted)?, memory.profile);
    let (suite, active, parked) = crate::init::starter_suite(&index, &memory_shown);
    // Scenarios drafted from the git history when it has any, else the starters.
    let drafted = super::draft::for_init(&index);
    let (suite_file, suite) = match &drafted {
        Some((file, text, _)) => (*file, text.clone()),
        None => ("scenarios/starter.yaml", suite),
    };

    let files: [(&str, String); 3] = [
        (CONFIG_FILE, crate::init::config_text(&sources.list)),
        (suite_file, suite),
        (".github/workflows/mneme-gate.yml", crate::init::workflow()),
    ];
    for path in files.iter().map(|(p, _)| *p).chain([BASELINE, GITIGNORE, CLAUDE_SETTINGS]) {
        refuse_link(Path::new(path))?;
    }
    // Checked before anything is written: a settings file init cannot edit stops it.
    let hook = if s.hook { Some(claude_hook()?) } else { None };
    for (path, content) in &files {
        if Path::new(path).exists() && !s.force {
            let _ = writeln!(text, "left alone  {path} (it exists; --force overwrites it)");
            continue;
        }
        output::file(Path::new(path), content)?;
        wrote += 1;
        let _ = writeln!(text, "wrote       {path}");
    }
    let mut no_suite = false;
    if Path::new(BASELINE).exists() && !s.force {
        let _ = writeln!(text, "left alone  {BASELINE} (it exists; --force re-pins it)");
    } else {
        // The suite as the configuration just written describes it.
        let mut config = Config::discover(Some(Path::new(CONFIG_FILE)))?;
        // A configuration init left alone may name no suite yet: it gains
        // the starter suite's folder (every byte there is kept), or, when
        // that cannot be done safely, the next steps say to name it.
        if config.suites().is_empty() {
            if let Some(line) = name_the_suite(&config)? {
                wrote += 1;
                text.push_str(&line);
                config = Config::discover(Some(Path::new(CONFIG_FILE)))?;
            }
        }
        let scenarios = if config.suites().is_empty() { vec![PathBuf::from("scenarios/")] } else { Vec::new() };
        if !scenarios.is_empty() {
            no_suite = true;
        }
        let no_flags = SuiteArgs {
            memory: crate::cli::args::MemoryArgs { memory: Vec::new(), profile: None, k: None },
            scenarios,
            jobs: None,
        };
        let run = suite::run_noting(&settings::suite(&config, &no_flags, &[])?, true, &mut noted)?;
        let pinned = crate::baseline::pinned(&run.report);
        output::baseline(Path::new(BASELINE), &crate::report::json::render(&pinned))?;
        wrote += 1;
        let gate = if pinned.gate.passed { "passed" } else { "FAILED: see `mneme-gate run`" };
        let pending = pinned.scenarios.iter().filter(|s| s.review_pending).count();
        let pending = match pending {
            0 => String::new(),
            n if n == pinned.scenarios.len() => {
                format!("; all {n} wait for review, so this gate rests on no reviewed scenario yet")
            }
            n => format!("; {n} wait for review and are not counted"),
        };
        // Fitted to the terminal, continued under the path.
        let line = format!("pinned      {BASELINE} ({} scenario(s), gate {gate}{pending})", pinned.summary.total);
        for piece in crate::report::layout::wrap(&line, Some(s.width), 12) {
            text.push_str(&piece);
            text.push('\n');
        }
    }
    if let Some(line) = gitignore()? {
        wrote += 1;
        text.push_str(&line);
    }
    let hook_written = matches!(hook, Some(Some(_)));
    match hook {
        Some(Some((verb, settings))) => {
            output::file(Path::new(CLAUDE_SETTINGS), &settings)?;
            wrote += 1;
            let _ = writeln!(text, "{verb:<11} {CLAUDE_SETTINGS} (the Claude Code hook: `mneme-gate hook claude`)");
        }
        Some(None) => {
            let _ = writeln!(text, "left alone  {CLAUDE_SETTINGS} (the Claude Code hook is there)");
        }
        None => {}
    }
    if wrote == 0 {
        text.push_str("\nNothing written: every file exists. `mneme-gate init --force` regenerates them.\n");
        output::text(&text, false)?;
        return Ok(exit::OK);
    }
    let more = if parked > 0 {
        format!(" ({parked} more commented out: their decision is not retrieved for its title)")
    } else {
        String::new()
    };
    let (suite_line, review_line) = match &drafted {
        Some((file, _, n)) => (
            format!("The drafted suite has {n} scenario(s) from the git history and the decisions of {memory_shown}."),
            format!(
                "1. Review {file}: every scenario is marked `review: pending` (`mneme-gate draft --html` shows the \
                 evidence)."
            ),
        ),
        None => (
            format!(
                "The starter suite has {active} scenario(s) from the decisions of {memory_shown}{more}: each task is a \
                 decision's own title, marked `review: pending` (the git history has no change a decision governs to \
                 draft from)."
            ),
            "1. Review scenarios/starter.yaml: every scenario is marked TODO(review) and `review: pending`."
                .to_string(),
        ),
    };
    let mut next = vec![suite_line, "Next:".to_string()];
    if no_suite {
        next.push(format!("0. Add `scenarios: [scenarios/]` to {CONFIG_FILE}: it names no suite yet."));
    }
    next.extend([
        review_line,
        "2. Run `mneme-gate run` and read the table.".to_string(),
        "3. Re-pin with `mneme-gate baseline` after each reviewed change, and commit mneme-gate.yaml, \
         scenarios/, reports/baseline.json, .github/workflows/mneme-gate.yml and .gitignore."
            .to_string(),
    ]);
    if hook_written {
        next.push(format!(
            "4. Commit {CLAUDE_SETTINGS} too: Claude Code then adds the governing decisions to every prompt and \
             edit (mneme-gate must be on the PATH; see docs/agents.md)."
        ));
    }
    text.push('\n');
    text.push_str(&fit(&next.join("\n"), s.width));
    output::text(&text, false)?;
    Ok(exit::OK)
}

/// `text`, each line wrapped to `width` columns, a numbered step's
/// continuation lines under its text.
fn fit(text: &str, width: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let hang = if line.starts_with(|c: char| c.is_ascii_digit()) || line.starts_with("- ") {
            line.find(' ').map_or(0, |i| i + 1)
        } else {
            0
        };
        for piece in crate::report::layout::wrap(line, Some(width), hang) {
            out.push_str(&piece);
            out.push('\n');
        }
    }
    out
}

/// Adds `scenarios: [scenarios/]` to a configuration that names no suite
/// (one `init` left alone), keeping every byte already there; says what it
/// did, or `None` when the result would not read as that configuration plus
/// the suite (a flow mapping, a file without a mapping).
fn name_the_suite(config: &Config) -> Result<Option<String>, Error> {
    let path = Path::new(CONFIG_FILE);
    if config.path.as_deref() != Some(path) || config.file.scenarios.is_some() {
        return Ok(None);
    }
    let bytes = match crate::memory::read_regular(path, 1024 * 1024) {
        Ok(bytes) => bytes,
        Err(_) => return Ok(None),
    };
    let Ok(existing) = String::from_utf8(bytes) else { return Ok(None) };
    let mut text = existing.clone();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("scenarios: [scenarios/]   # the starter suite, added by `mneme-gate init`\n");
    match Config::parse(path, &text) {
        Ok(c) if c.suites() == [PathBuf::from("scenarios/")] => {}
        _ => return Ok(None),
    }
    output::file(path, &text)?;
    Ok(Some(format!("updated     {CONFIG_FILE} (scenarios: [scenarios/], the starter suite)\n")))
}

/// Adds the generated reports to `.gitignore` (creating it), keeping every
/// byte already there; says what it did, or nothing when every line is there.
fn gitignore() -> Result<Option<String>, Error> {
    let path = Path::new(GITIGNORE);
    let existing = match crate::memory::read_regular(path, crate::config::MAX_CONFIG_BYTES) {
        Ok(bytes) => Some(bytes),
        Err(crate::memory::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::Read { path: path.to_path_buf(), source: e.into() }),
    };
    let text = existing.as_deref().map(String::from_utf8_lossy).unwrap_or_default();
    let Some(added) = crate::init::gitignore_additions(&text) else {
        return Ok(None);
    };
    let mut bytes = existing.clone().unwrap_or_default();
    bytes.extend_from_slice(added.as_bytes());
    output::file_bytes(path, &bytes)?;
    let verb = if existing.is_some() { "updated" } else { "wrote" };
    Ok(Some(format!("{verb:<11} {GITIGNORE} (the generated reports; never the pinned baseline)\n")))
}

/// The Claude Code settings with the hook installed and what was done to
/// them (`wrote`, `updated`), or `None` when the hook is there already.
fn claude_hook() -> Result<Option<(&'static str, String)>, Error> {
    let path = Path::new(CLAUDE_SETTINGS);
    let existing = match crate::memory::read_regular(path, 1024 * 1024) {
        Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| {
            Error::Usage(format!("{CLAUDE_SETTINGS} is not UTF-8: init cannot add the hook to it"))
        })?),
        Err(crate::memory::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(_) => {
            return Err(Error::Usage(format!(
                "{CLAUDE_SETTINGS} cannot be read as a settings file (a regular file of at most 1 MiB): init cannot add the hook to it"
            )))
        }
    };
    let verb = if existing.is_some() { "updated" } else { "wrote" };
    let settings = crate::hook::claude_settings::install(existing.as_deref()).map_err(|e| {
        Error::Usage(format!("{CLAUDE_SETTINGS} {e}: fix it, or add the hook by hand (docs/agents.md)"))
    })?;
    Ok(settings.map(|text| (verb, text)))
}

/// `init` writes new files inside the repository: a symbolic link where one
/// of them goes (dangling or not) could send the write anywhere, so it is
/// refused before anything is written.
fn refuse_link(path: &Path) -> Result<(), Error> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            let target = std::fs::read_link(path).map(|t| t.display().to_string()).unwrap_or_default();
            Err(Error::Usage(format!(
                "{} is a symbolic link (to {target}); init writes only regular files inside the repository: \
                 remove the link and run init again",
                path.display()
            )))
        }
        // A link on the way (`scenarios/`, `.github/`, `.claude/`) too.
        _ => output::confined(path),
    }
}
