/*!
The command line: flags are parsed once, resolved against `mneme-gate.yaml`
into settings, and each command runs the library stages in order. This is
the only module that prints or chooses exit codes.
*/

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};
use rayon::prelude::*;
use serde::Serialize;

use crate::config::{Config, OneOrMany};
use crate::context;
use crate::error::{exit, Error};
use crate::memory::{Memory, Severity};
use crate::profile::{Milli, Profile};
use crate::retrieval::{Explanation, Index, Query, ScopeCheck, Scratch};

#[derive(Debug, Parser)]
#[command(
    name = "mneme-gate",
    version,
    about = "CI governance gate and benchmark runner for decision retrieval",
    long_about = "Retrieves the architectural decisions that govern a task from project_memory.json, \
deterministically, and gates CI on whether the right ones come out.\n\n\
Exit codes: 0 gate passed / command succeeded, 1 gate failed, 2 usage, configuration or input error, \
3 infrastructure error."
)]
pub struct Cli {
    /// The configuration file (default: ./mneme-gate.yaml when it exists).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the context block an agent receives for a task (editor hook).
    Context(QueryArgs),
    /// Explain a ranking: every record, its matches, its score and why it is or is not retrieved.
    Explain(QueryArgs),
    /// Batch retrieval: JSONL queries in, JSONL rankings out, in input order.
    Retrieve(RetrieveArgs),
    /// Check a memory file and report every problem at once.
    Validate(ValidateArgs),
    /// Run the suite: retrieval and verdicts for every scenario, metrics, reports, and the gate.
    Run(Box<RunArgs>),
    /// Run the suite and pin the result as the baseline (atomically).
    Baseline(PinArgs),
    /// Compare two saved JSON reports the way `run` compares with its baseline.
    Diff(DiffArgs),
    /// Set up a repository that has a memory file: configuration, a starter suite, a pinned baseline and a
    /// GitHub Actions workflow.
    Init(InitArgs),
}

#[derive(Debug, Args)]
struct MemoryArgs {
    /// The memory file (default: `memory` from the configuration, else ./project_memory.json).
    #[arg(long, value_name = "FILE")]
    memory: Option<PathBuf>,
    /// The scoring profile: `default` or `mneme` (as published; ignores the configuration's overrides).
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// How many decisions to retrieve (default: the profile's, 3).
    #[arg(long, value_name = "N")]
    k: Option<usize>,
}

#[derive(Debug, Args)]
struct QueryArgs {
    #[command(flatten)]
    memory: MemoryArgs,
    /// The task text.
    #[arg(long, value_name = "TEXT")]
    task: String,
    /// The file being edited (turns on the scope pre-filter).
    #[arg(long, value_name = "PATH")]
    file: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct RetrieveArgs {
    #[command(flatten)]
    memory: MemoryArgs,
    /// JSONL file of queries `{"id": ..., "task": ..., "file": ...}`; `-` for standard input.
    #[arg(long, value_name = "FILE")]
    queries: PathBuf,
}

/// What a suite run needs: the memory, the suite and the settings.
#[derive(Debug, Args)]
struct SuiteArgs {
    #[command(flatten)]
    memory: MemoryArgs,
    /// A suite root: a folder of YAML suite files and/or Mneme benchmark folders, or one file (repeatable;
    /// default: `scenarios` from the configuration).
    #[arg(long, value_name = "PATH")]
    scenarios: Vec<PathBuf>,
    /// Worker threads (default: one per core). Reports are identical for every value.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
}

#[derive(Debug, Args)]
struct RunArgs {
    #[command(flatten)]
    suite: SuiteArgs,
    /// Only scenarios whose id matches this glob (`*` matches anything; repeatable: any match).
    #[arg(long, value_name = "GLOB")]
    filter: Vec<String>,
    /// Write the JSON report (schema mneme-gate.report/v1); `-` for standard output.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write JUnit XML.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write the Markdown summary (for a pull request or $GITHUB_STEP_SUMMARY).
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Write the ranking as a TREC run file (`qid Q0 docid rank score mneme-gate`).
    #[arg(long, value_name = "FILE")]
    trec_run: Option<PathBuf>,
    /// Write the expected ids as TREC qrels (`qid 0 docid 1`).
    #[arg(long, value_name = "FILE")]
    trec_qrels: Option<PathBuf>,
    /// Print only the summary and the gate, not the scenario table.
    #[arg(long)]
    quiet: bool,
    /// Put wall-clock timings in the JSON report (which then differs from run to run).
    #[arg(long)]
    timings: bool,
    /// Annotations for CI: `github` prints ::error/::warning workflow commands pointing at each failing
    /// scenario's line (default when GITHUB_ACTIONS=true), `off` prints none.
    #[arg(long, value_name = "KIND")]
    annotations: Option<String>,
    /// Append GitHub Actions step outputs (result, pass-rate, mean-recall-at-k, weak-retrieval, json-report,
    /// junit-report) to this file (pass "$GITHUB_OUTPUT").
    #[arg(long, value_name = "FILE")]
    github_output: Option<PathBuf>,
    #[command(flatten)]
    baseline: BaselineArgs,
}

/// How `run` finds and treats the baseline.
#[derive(Debug, Args)]
struct BaselineArgs {
    /// The pinned baseline (default: `baseline` from the configuration).
    #[arg(long, value_name = "FILE", conflicts_with = "no_baseline")]
    baseline: Option<PathBuf>,
    /// Do not compare with a baseline: only the absolute rules apply.
    #[arg(long)]
    no_baseline: bool,
    /// Read the baseline as it is at this git revision (for example the pull request's base) instead of the
    /// working tree; a working-tree baseline that differs fails the gate unless --accept-baseline-change.
    #[arg(long, value_name = "REV", conflicts_with = "no_baseline")]
    baseline_ref: Option<String>,
    /// Accept that this change re-pins the baseline: compare with the working tree's baseline.
    #[arg(long, requires = "baseline_ref")]
    accept_baseline_change: bool,
    /// Compare with a baseline made with another k, profile or metric definitions anyway.
    #[arg(long)]
    allow_incompatible_baseline: bool,
    /// Add a field-by-field diff of the decision corpus between this git revision and the working tree.
    #[arg(long, value_name = "REV")]
    memory_ref: Option<String>,
}

#[derive(Debug, Args)]
struct PinArgs {
    #[command(flatten)]
    suite: SuiteArgs,
    /// Where to write the baseline (default: `baseline` from the configuration, else reports/baseline.json).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Pin even when the run fails the absolute rules.
    #[arg(long)]
    allow_failing: bool,
}

#[derive(Debug, Args)]
struct InitArgs {
    /// The memory file (default: ./project_memory.json, else ./.mneme/project_memory.json).
    #[arg(long, value_name = "FILE")]
    memory: Option<PathBuf>,
    /// Overwrite files that already exist.
    #[arg(long)]
    force: bool,
}

#[derive(Debug, Args)]
struct DiffArgs {
    /// The older report (for example the baseline).
    old: PathBuf,
    /// The newer report.
    new: PathBuf,
    /// Compare reports made with another k, profile or metric definitions anyway.
    #[arg(long)]
    allow_incompatible: bool,
    /// Write the comparison as JSON to this file (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct ValidateArgs {
    /// The memory file (default: `memory` from the configuration, else ./project_memory.json).
    #[arg(long, value_name = "FILE")]
    memory: Option<PathBuf>,
    /// The profile whose pool rules apply (`default` or `mneme`).
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// Warnings fail too (exit 2).
    #[arg(long)]
    strict: bool,
    /// Print the findings as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs the command line and returns the process exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { exit::INPUT } else { exit::OK };
            let _ = e.print();
            return code;
        }
    };
    match execute(cli) {
        Ok(code) => code,
        Err(Error::Write { source, .. }) if source.kind() == io::ErrorKind::BrokenPipe => exit::OK,
        Err(e) => {
            eprintln!("mneme-gate: error: {e}");
            e.exit_code()
        }
    }
}

fn execute(cli: Cli) -> Result<i32, Error> {
    let config = Config::discover(cli.config.as_deref())?;
    match cli.command {
        Command::Context(args) => context_cmd(&config, args),
        Command::Explain(args) => explain_cmd(&config, args),
        Command::Retrieve(args) => retrieve_cmd(&config, args),
        Command::Validate(args) => validate_cmd(&config, args),
        Command::Run(args) => run_cmd(&config, *args),
        Command::Baseline(args) => baseline_cmd(&config, args),
        Command::Diff(args) => diff_cmd(&config, args),
        Command::Init(args) => init_cmd(args),
    }
}

/// The memory path: the flag, else the configuration, else the usual names.
fn memory_path(config: &Config, flag: Option<&Path>) -> Result<PathBuf, Error> {
    if let Some(p) = flag {
        return Ok(p.to_path_buf());
    }
    if let Some(p) = &config.file.memory {
        return Ok(config.resolve_path(p));
    }
    for candidate in ["project_memory.json", ".mneme/project_memory.json"] {
        if Path::new(candidate).is_file() {
            return Ok(PathBuf::from(candidate));
        }
    }
    Err(Error::Usage(
        "no memory file: pass --memory FILE, or set `memory:` in mneme-gate.yaml (looked for ./project_memory.json and ./.mneme/project_memory.json)".into(),
    ))
}

/// Loads the memory under the effective profile and builds the index;
/// warnings go to standard error.
fn load_index(config: &Config, args: &MemoryArgs) -> Result<Index, Error> {
    load_index_with(config, args, Index::build)
}

fn load_index_with(
    config: &Config,
    args: &MemoryArgs,
    build: impl FnOnce(Memory, Profile) -> Index,
) -> Result<Index, Error> {
    let profile = config.profile(args.profile.as_deref(), args.k)?;
    let path = memory_path(config, args.memory.as_deref())?;
    let memory = Memory::load(&path, profile.family)?;
    for w in memory.warnings() {
        eprintln!("mneme-gate: {}", w.render(&memory.path));
    }
    Ok(build(memory, profile))
}

fn stdout_write(bytes: &[u8]) -> Result<(), Error> {
    let mut out = io::stdout().lock();
    out.write_all(bytes).and_then(|_| out.flush()).map_err(|source| Error::Write { path: None, source })
}

#[derive(Serialize)]
struct RetrievedJson<'a> {
    rank: usize,
    id: &'a str,
    title: &'a str,
    score: Milli,
}

#[derive(Serialize)]
struct ContextJson<'a> {
    schema: &'static str,
    task: &'a str,
    file: Option<&'a str>,
    profile: &'a Profile,
    retrieved: Vec<RetrievedJson<'a>>,
    note: Option<String>,
    context: String,
}

/// `context` is the editor hook, run once per prompt, so its latency is
/// process start to exit: the index is built for its one query
/// ([`Index::build_for_query`]) and never freed (the process exits right
/// after; freeing a 5,000-decision index costs milliseconds).
fn context_cmd(config: &Config, args: QueryArgs) -> Result<i32, Error> {
    let query = Query { task: &args.task, file: args.file.as_deref() };
    let index =
        load_index_with(config, &args.memory, |memory, profile| Index::build_for_query(memory, profile, query))?;
    let index = &*Box::leak(Box::new(index));
    let retrieval = index.retrieve(query);
    let block = context::render(retrieval.hits.iter().map(|h| index.decision(h.pool)));
    let note = retrieval.why_empty(index.profile());
    if args.json {
        let doc = ContextJson {
            schema: "mneme-gate.context/v1",
            task: &args.task,
            file: args.file.as_deref(),
            profile: index.profile(),
            retrieved: retrieval
                .hits
                .iter()
                .enumerate()
                .map(|(i, h)| {
                    let d = index.decision(h.pool);
                    RetrievedJson { rank: i + 1, id: &d.id, title: &d.title, score: h.score }
                })
                .collect(),
            note,
            context: block,
        };
        let mut text = serde_json::to_string_pretty(&doc).expect("serialisable");
        text.push('\n');
        stdout_write(text.as_bytes())?;
    } else {
        if let Some(note) = note {
            eprintln!("mneme-gate: no decision retrieved: {note}");
        }
        stdout_write(block.as_bytes())?;
    }
    Ok(exit::OK)
}

fn explain_cmd(config: &Config, args: QueryArgs) -> Result<i32, Error> {
    let index = load_index(config, &args.memory)?;
    let explanation = index.explain(Query { task: &args.task, file: args.file.as_deref() });
    let text = if args.json {
        #[derive(Serialize)]
        struct Doc<'a> {
            schema: &'static str,
            #[serde(flatten)]
            explanation: &'a Explanation,
        }
        let mut t = serde_json::to_string_pretty(&Doc { schema: "mneme-gate.explain/v1", explanation: &explanation })
            .expect("serialisable");
        t.push('\n');
        t
    } else {
        render_explanation(&explanation)
    };
    stdout_write(text.as_bytes())?;
    Ok(exit::OK)
}

/// The readable explain report: a header, then one row per record, most
/// relevant first (retrieved by rank, then by score and pool order, then the
/// records kept out of the pool).
pub fn render_explanation(e: &Explanation) -> String {
    let p = &e.profile;
    let mut out = String::new();
    out.push_str(&format!("task:    {}\n", e.task.trim()));
    out.push_str(&format!("file:    {}\n", e.file.as_deref().unwrap_or("(none: scope globs are not checked)")));
    out.push_str(&format!(
        "tokens:  {}\n",
        if e.query_tokens.is_empty() { "(none)".to_string() } else { e.query_tokens.join(" ") }
    ));
    out.push_str(&format!("profile: {}\n", p.describe()));
    let w = &p.weights;
    out.push_str(&format!(
        "         weights title {} tags {} constraint {} anti_patterns {} content {}; tag_boost {}; min_score {}; k {}; min_token_len {}; stem {}\n",
        w.title, w.tags, w.constraint, w.anti_patterns, w.content, p.tag_boost, p.min_score, p.k, p.min_token_len, p.stem
    ));
    out.push_str(&format!(
        "retrieved: {}\n",
        if e.retrieved.is_empty() {
            format!("nothing ({})", e.note.as_deref().unwrap_or(""))
        } else {
            e.retrieved.join(", ")
        }
    ));
    out.push('\n');

    let mut order: Vec<usize> = (0..e.records.len()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (&e.records[a], &e.records[b]);
        let key = |r: &crate::retrieval::ExplainedRecord| {
            (
                r.pool_order.is_none(),
                r.rank.unwrap_or(usize::MAX),
                std::cmp::Reverse(r.score.unwrap_or(Milli(i64::MIN))),
                r.pool_order,
            )
        };
        key(ra).cmp(&key(rb)).then(a.cmp(&b))
    });
    let mut table = Table::new();
    table.load_preset(presets::ASCII_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Disabled);
    table.set_header(vec!["rank", "id", "pool", "score", "scope", "matches", "outcome"]);
    for i in order {
        let r = &e.records[i];
        let scope = match &r.scope {
            ScopeCheck::Unscoped => "-".to_string(),
            ScopeCheck::NoPath => "not checked".to_string(),
            ScopeCheck::Matched { glob } => format!("matched {glob}"),
            ScopeCheck::OutOfScope => "out of scope".to_string(),
            ScopeCheck::NotInPool => "".to_string(),
        };
        let mut matches: Vec<String> = r
            .fields
            .iter()
            .map(|f| {
                format!("{} {}×{} = {}: {}", f.field.name(), f.count, f.weight, f.contribution, f.tokens.join(" "))
            })
            .collect();
        if !r.tag_hits.is_empty() {
            matches.push(format!("tag hits {} = {}: {}", r.tag_hits.len(), r.tag_boost, r.tag_hits.join(", ")));
        }
        let outcome = match (&r.rank, &r.reason, &r.detail) {
            (Some(_), _, _) => "retrieved".to_string(),
            (None, Some(reason), Some(detail)) => format!("{reason}\n{detail}"),
            (None, Some(reason), None) => reason.clone(),
            (None, None, _) => String::new(),
        };
        table.add_row(vec![
            Cell::new(r.rank.map(|x| x.to_string()).unwrap_or_default()).set_alignment(CellAlignment::Right),
            Cell::new(&r.id),
            Cell::new(r.pool_order.map(|x| x.to_string()).unwrap_or_else(|| "-".into()))
                .set_alignment(CellAlignment::Right),
            Cell::new(r.score.map(|s| s.to_string()).unwrap_or_default()).set_alignment(CellAlignment::Right),
            Cell::new(scope),
            Cell::new(if matches.is_empty() { "-".to_string() } else { matches.join("\n") }),
            Cell::new(outcome),
        ]);
    }
    for line in table.to_string().lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[derive(Serialize)]
struct ScoredId<'a> {
    id: &'a str,
    score: Milli,
}

#[derive(Serialize)]
struct RetrieveLine<'a> {
    id: &'a str,
    retrieved: Vec<ScoredId<'a>>,
}

/// One parsed query of a JSONL batch.
struct BatchQuery {
    id: String,
    task: String,
    file: Option<String>,
}

fn parse_query_line(line: &str) -> Result<BatchQuery, String> {
    use serde_json::Value;
    let v: Value = serde_json::from_str(line).map_err(|e| {
        let msg = e.to_string();
        let msg = msg.rsplit_once(" at line ").map_or(msg.as_str(), |(m, _)| m).to_string();
        format!("column {}: not valid JSON: {msg}", e.column())
    })?;
    let Value::Object(map) = v else {
        return Err(format!("expected a JSON object {{\"id\": ..., \"task\": ...}}, found {v}"));
    };
    let id = match map.get("id") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => return Err("missing `id` (a string)".into()),
        Some(other) => return Err(format!("`id` must be a string, found {other}")),
    };
    let task = match map.get("task") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => return Err(format!("query \"{id}\": missing `task` (a string)")),
        Some(other) => return Err(format!("query \"{id}\": `task` must be a string, found {other}")),
    };
    let file = match map.get("file") {
        Some(Value::String(s)) => Some(s.clone()),
        None | Some(Value::Null) => None,
        Some(other) => return Err(format!("query \"{id}\": `file` must be a string or null, found {other}")),
    };
    Ok(BatchQuery { id, task, file })
}

fn retrieve_cmd(config: &Config, args: RetrieveArgs) -> Result<i32, Error> {
    let index = load_index(config, &args.memory)?;
    let (path, text) = if args.queries.as_os_str() == "-" {
        let mut text = String::new();
        for line in io::stdin().lock().lines() {
            let line = line.map_err(|source| Error::Read { path: "<stdin>".into(), source })?;
            text.push_str(&line);
            text.push('\n');
        }
        (PathBuf::from("<stdin>"), text)
    } else {
        let text = std::fs::read_to_string(&args.queries)
            .map_err(|source| Error::Read { path: args.queries.clone(), source })?;
        (args.queries.clone(), text)
    };
    let mut queries = Vec::new();
    let mut problems = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_query_line(line) {
            Ok(q) => queries.push(q),
            Err(message) => problems.push((n + 1, message)),
        }
    }
    if !problems.is_empty() {
        return Err(Error::Input { path, problems });
    }
    let k = index.profile().k;
    let lines: Vec<String> = queries
        .par_iter()
        .map_init(Scratch::default, |scratch, q| {
            let r = index.retrieve_with(Query { task: &q.task, file: q.file.as_deref() }, k, scratch);
            let retrieved =
                r.hits.iter().map(|h| ScoredId { id: &index.decision(h.pool).id, score: h.score }).collect();
            serde_json::to_string(&RetrieveLine { id: &q.id, retrieved }).expect("serialisable")
        })
        .collect();
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    stdout_write(out.as_bytes())?;
    Ok(exit::OK)
}

#[derive(Serialize)]
struct ValidateJson<'a> {
    schema: &'static str,
    memory: String,
    profile: &'static str,
    records: usize,
    pool: usize,
    errors: usize,
    warnings: usize,
    diagnostics: &'a [crate::memory::Diagnostic],
    excluded: &'a [crate::memory::Excluded],
}

fn validate_cmd(config: &Config, args: ValidateArgs) -> Result<i32, Error> {
    let profile = config.profile(args.profile.as_deref(), None)?;
    let path = memory_path(config, args.memory.as_deref())?;
    let mut memory = Memory::read(&path, profile.family)?;
    let silent = if memory.has_errors() { Vec::new() } else { silent_decisions(&memory, &profile) };
    for (offset, id) in silent {
        let (line, column) = memory.line_col(offset);
        memory.diagnostics.push(crate::memory::Diagnostic {
            severity: Severity::Warning,
            line,
            column,
            record_id: Some(id),
            message: "no field yields a token under this profile: no query can retrieve this decision".into(),
        });
    }
    memory.diagnostics.sort_by_key(|d| (d.severity, d.line, d.column));
    let errors = memory.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = memory.diagnostics.len() - errors;
    let text = if args.json {
        let doc = ValidateJson {
            schema: "mneme-gate.validate/v1",
            memory: path.display().to_string(),
            profile: profile.name,
            records: memory.records,
            pool: memory.pool.len(),
            errors,
            warnings,
            diagnostics: &memory.diagnostics,
            excluded: &memory.excluded,
        };
        let mut t = serde_json::to_string_pretty(&doc).expect("serialisable");
        t.push('\n');
        t
    } else {
        let mut t = String::new();
        for d in &memory.diagnostics {
            t.push_str(&d.render(&path));
            t.push('\n');
        }
        for ex in &memory.excluded {
            t.push_str(&format!(
                "{}:{}:{}: note: \"{}\" ({}) is kept out of the pool: {}\n",
                path.display(),
                ex.line,
                ex.column,
                ex.id,
                ex.kind,
                ex.reason
            ));
        }
        t.push_str(&format!(
            "{}: {} record(s), {} in the retrieval pool (profile {}), {} kept out; {} error(s), {} warning(s)\n",
            path.display(),
            memory.records,
            memory.pool.len(),
            profile.name,
            memory.excluded.len(),
            errors,
            warnings
        ));
        t
    };
    // A validator's findings are its output: they go to standard output.
    stdout_write(text.as_bytes())?;
    let failed = errors > 0 || (args.strict && warnings > 0);
    Ok(if failed { exit::INPUT } else { exit::OK })
}

/// Pool decisions whose every field tokenises to nothing.
fn silent_decisions(memory: &Memory, profile: &Profile) -> Vec<(usize, String)> {
    let tokenizer = crate::tokenize::Tokenizer::new(profile.family, profile.min_token_len, profile.stem);
    memory
        .pool
        .iter()
        .filter(|d| {
            crate::profile::Field::ALL.iter().all(|&f| {
                crate::retrieval::field_texts(d, f).iter().all(|t| {
                    let mut any = false;
                    tokenizer.each_token(t, &mut |_| any = true);
                    !any
                })
            })
        })
        .map(|d| (d.offset, d.id.clone()))
        .collect()
}

/// The suite paths from the configuration, resolved (used by later stages).
pub fn configured_suites(config: &Config) -> Vec<PathBuf> {
    match &config.file.scenarios {
        None => Vec::new(),
        Some(OneOrMany::One(p)) => vec![config.resolve_path(p)],
        Some(OneOrMany::Many(ps)) => ps.iter().map(|p| config.resolve_path(p)).collect(),
    }
}

/// Whether colour may be used on standard output.
pub fn colour_stdout() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && io::stdout().is_terminal()
}

/// A suite, run and reported (the gate holds only the absolute rules yet).
struct SuiteRun {
    report: crate::report::Report,
    index: Index,
    memory_path: PathBuf,
    profile: Profile,
    filtered: bool,
    loaded: std::time::Duration,
    ran: std::time::Duration,
}

/// Loads the memory and the suite, runs every scenario (those matching
/// `filter`, when given), and builds the report with the absolute rules.
fn run_suite(
    config: &Config,
    args: &SuiteArgs,
    filter: &[String],
    quiet: bool,
    settings: &crate::gate::GateSettings,
) -> Result<SuiteRun, Error> {
    use crate::gate::{absolute_rules, GateOutcome};
    use crate::report::{Report, ReportInputs};

    let started = std::time::Instant::now();
    let profile = config.profile(args.memory.profile.as_deref(), args.memory.k)?;
    let memory_path = memory_path(config, args.memory.memory.as_deref())?;
    let memory = Memory::load(&memory_path, profile.family)?;
    let memory_bytes =
        std::fs::read(&memory_path).map_err(|source| Error::Read { path: memory_path.clone(), source })?;
    for w in memory.warnings() {
        eprintln!("mneme-gate: {}", w.render(&memory.path));
    }

    let roots = if args.scenarios.is_empty() { configured_suites(config) } else { args.scenarios.clone() };
    if roots.is_empty() {
        return Err(Error::Usage("no suite: pass --scenarios PATH, or set `scenarios:` in mneme-gate.yaml".into()));
    }
    let suite = load_suite(&roots, args.jobs)?;
    for w in &suite.warnings {
        eprintln!("mneme-gate: warning: {w}");
    }
    let mut scenarios = suite.scenarios;
    if !filter.is_empty() {
        let mut matchers = Vec::new();
        for pattern in filter {
            let glob = globset::Glob::new(pattern)
                .map_err(|e| Error::Usage(format!("--filter `{pattern}` is not a valid glob: {}", e.kind())))?;
            matchers.push(glob.compile_matcher());
        }
        scenarios.retain(|s| matchers.iter().any(|m| m.is_match(&s.id)));
        if scenarios.is_empty() {
            return Err(Error::Usage(format!(
                "no scenario id matches --filter {}; `mneme-gate run --json -` lists the ids",
                filter.join(" --filter ")
            )));
        }
    }

    let index = Index::build(memory, profile.clone());
    let loaded = started.elapsed();
    let bar = progress_bar(scenarios.len(), quiet);
    let tick = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let run = crate::run::run(
        &index,
        scenarios,
        crate::run::RunOptions { jobs: args.jobs, progress: bar.as_ref().map(|_| &tick as &(dyn Fn() + Sync)) },
    )
    .map_err(|e| Error::Usage(e.to_string()))?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let ran = started.elapsed() - loaded;

    let gate = GateOutcome::new(absolute_rules(&run, settings));
    let report = Report::build(
        run,
        gate,
        ReportInputs {
            index: &index,
            memory_path: &memory_path,
            memory_bytes: &memory_bytes,
            suite_roots: &roots,
            profile: &profile,
            warnings: suite.warnings,
        },
    );
    Ok(SuiteRun { report, index, memory_path, profile, filtered: !filter.is_empty(), loaded, ran })
}

/// Loads the suite, parsing its files on `jobs` threads (default: one per core).
fn load_suite(roots: &[PathBuf], jobs: Option<usize>) -> Result<crate::scenarios::Suite, Error> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(jobs) = jobs {
        builder = builder.num_threads(jobs.max(1));
    }
    let pool = builder.build().map_err(|e| Error::Usage(format!("cannot start the worker threads: {e}")))?;
    pool.install(|| crate::scenarios::Suite::load(roots)).map_err(Error::Suite)
}

/// The repository the run is in, unless `MNEME_GATE_GIT=off`.
fn git_repo() -> Option<crate::git::Repo> {
    if std::env::var("MNEME_GATE_GIT").is_ok_and(|v| v == "off") {
        return None;
    }
    std::env::current_dir().ok().and_then(|d| crate::git::Repo::discover(&d))
}

fn require_repo(repo: Option<&crate::git::Repo>) -> Result<&crate::git::Repo, Error> {
    match repo {
        Some(r) => Ok(r),
        None => Err(Error::Git(crate::git::GitError::NotARepository {
            dir: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        })),
    }
}

/// The configured baseline path, if any.
fn baseline_path(config: &Config, flag: Option<&Path>) -> Option<PathBuf> {
    match (flag, &config.file.baseline) {
        (Some(p), _) => Some(p.to_path_buf()),
        (None, Some(p)) => Some(config.resolve_path(p)),
        (None, None) => None,
    }
}

/// The baseline to compare with and the comparison, per the flags; `None`
/// when the run has no baseline.
fn compare_with_baseline(
    config: &Config,
    args: &BaselineArgs,
    current: &crate::report::Report,
    settings: &crate::gate::GateSettings,
    repo: Option<&crate::git::Repo>,
    filtered: bool,
) -> Result<Option<(crate::baseline::Comparison, crate::report::Report)>, Error> {
    use crate::baseline::{self, BaselineChange, BaselineError, BaselineSource};
    use crate::report::display_path;

    if args.no_baseline {
        return Ok(None);
    }
    let path = match baseline_path(config, args.baseline.as_deref()) {
        Some(p) => p,
        None if args.baseline_ref.is_some() => PathBuf::from("reports/baseline.json"),
        None => return Ok(None),
    };
    let working = match baseline::load(&path) {
        Ok(r) => Some(r),
        Err(BaselineError::Missing { .. }) if args.baseline_ref.is_some() => None,
        Err(e) => return Err(Error::Baseline(e)),
    };
    let (baseline, source, change) = match &args.baseline_ref {
        None => {
            let source = BaselineSource { path: display_path(&path), revision: None, commit: None };
            (working.expect("loaded or returned"), source, None)
        }
        Some(rev) => {
            let repo = require_repo(repo)?;
            let commit = repo.resolve(rev).map_err(Error::Git)?;
            let label = format!("{rev}:{}", display_path(&path));
            let at_rev = match repo.read_at(rev, &path).map_err(Error::Git)? {
                Some(bytes) => {
                    Some(baseline::parse(&label, &String::from_utf8_lossy(&bytes)).map_err(Error::Baseline)?)
                }
                None => None,
            };
            let differs = match (&at_rev, &working) {
                (Some(a), Some(w)) => baseline::pinned(a) != baseline::pinned(w),
                (None, None) => return Err(Error::Baseline(BaselineError::Missing { path })),
                _ => true,
            };
            let change = differs.then(|| {
                let (scenarios, added, removed) = match (&at_rev, &working) {
                    (Some(a), Some(w)) => {
                        let c = baseline::compare(
                            a,
                            w,
                            settings,
                            BaselineSource { path: label.clone(), revision: None, commit: None },
                        );
                        (c.scenarios.into_iter().map(|s| s.id).collect(), c.added, c.removed)
                    }
                    (None, Some(w)) => (Vec::new(), w.scenarios.iter().map(|s| s.id.clone()).collect(), Vec::new()),
                    (Some(a), None) => (Vec::new(), Vec::new(), a.scenarios.iter().map(|s| s.id.clone()).collect()),
                    (None, None) => unreachable!("handled above"),
                };
                BaselineChange {
                    revision: rev.clone(),
                    first_pin: at_rev.is_none(),
                    scenarios,
                    added,
                    removed,
                    accepted: args.accept_baseline_change,
                }
            });
            let use_working = working.is_some() && (at_rev.is_none() || (differs && args.accept_baseline_change));
            let (baseline, source) = if use_working {
                (working.expect("checked"), BaselineSource { path: display_path(&path), revision: None, commit: None })
            } else {
                (
                    at_rev.expect("present when the working tree's is not used"),
                    BaselineSource { path: display_path(&path), revision: Some(rev.clone()), commit: Some(commit) },
                )
            };
            (baseline, source, change)
        }
    };
    let differences = baseline::incompatibilities(&baseline, current);
    if !differences.is_empty() && !args.allow_incompatible_baseline {
        return Err(Error::IncompatibleBaseline { path: source.path.clone(), differences });
    }
    let mut comparison = baseline::compare(&baseline, current, settings, source);
    comparison.filtered = filtered;
    comparison.baseline_change = change;
    Ok(Some((comparison, baseline)))
}

fn run_cmd(config: &Config, args: RunArgs) -> Result<i32, Error> {
    use crate::gate::GateOutcome;
    use crate::report::{self, Report};

    let settings = config.gate_settings()?;
    let started = std::time::Instant::now();
    let SuiteRun { mut report, index, memory_path, profile, filtered, loaded, ran } =
        run_suite(config, &args.suite, &args.filter, args.quiet, &settings)?;
    let repo = git_repo();
    report.git = repo.as_ref().and_then(|r| r.info());

    let mut rules = report.gate.rules.clone();
    let compared = compare_with_baseline(config, &args.baseline, &report, &settings, repo.as_ref(), filtered)?;
    if let Some(rev) = &args.baseline.memory_ref {
        let repo = require_repo(repo.as_ref())?;
        let diff = match repo.read_at(rev, &memory_path).map_err(Error::Git)? {
            Some(bytes) => {
                let old = Memory::parse(&memory_path, String::from_utf8_lossy(&bytes).into_owned(), profile.family);
                crate::baseline::memory_diff(rev, &old.pool, index.decisions(), index.excluded())
            }
            None => crate::baseline::memory_diff(rev, &[], index.decisions(), index.excluded()),
        };
        report.memory_diff = Some(diff);
    }
    if let Some((mut comparison, baseline)) = compared {
        if let Some(diff) = &report.memory_diff {
            crate::baseline::attribute(&mut comparison, diff, &baseline, &report);
        }
        rules.extend(crate::baseline::rules(&comparison, &settings));
        report.comparison = Some(comparison);
    }
    report.gate = GateOutcome::new(rules);

    if args.timings {
        let ms = |d: std::time::Duration| (d.as_secs_f64() * 1e6).round() / 1e3;
        report.timings =
            Some(report::Timings { load_ms: ms(loaded), run_ms: ms(ran), total_ms: ms(started.elapsed()) });
    }

    let outputs: [(&Option<PathBuf>, Writer<Report>); 5] = [
        (&args.json, |r| Ok(report::json::render(r))),
        (&args.junit, |r| Ok(report::junit::render(r))),
        (&args.markdown, |r| Ok(report::markdown::render(r))),
        (&args.trec_run, report::trec::run),
        (&args.trec_qrels, report::trec::qrels),
    ];
    let annotations = match args.annotations.as_deref() {
        Some("github") => true,
        Some("off") => false,
        Some(other) => {
            return Err(Error::Usage(format!("--annotations `{other}` is not a kind: use `github` or `off`")))
        }
        None => std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true"),
    };
    let to_stdout = write_outputs(&report, &outputs)?;
    if let Some(path) = &args.github_output {
        append_github_outputs(path, &report, args.json.as_deref(), args.junit.as_deref())?;
    }
    let style = report::terminal::Style { colour: !to_stdout && colour_stdout(), quiet: args.quiet };
    let mut table = String::new();
    if annotations {
        table.push_str(&report::annotations::github(&report, report::annotations::GITHUB_LIMIT));
    }
    table.push_str(&report::terminal::render(&report, style));
    if to_stdout {
        eprint!("{table}");
    } else {
        stdout_write(table.as_bytes())?;
    }
    Ok(if report.gate.passed { exit::OK } else { exit::GATE_FAILED })
}

/// Appends the step outputs of GitHub Actions (`key=value` lines).
fn append_github_outputs(
    path: &Path,
    report: &crate::report::Report,
    json: Option<&Path>,
    junit: Option<&Path>,
) -> Result<(), Error> {
    use std::io::Write as _;
    let m = &report.summary;
    let file_of = |p: Option<&Path>| match p {
        Some(p) if p.as_os_str() != "-" => p.display().to_string(),
        _ => String::new(),
    };
    let text = format!(
        "result={}\npass-rate={}\nmean-recall-at-k={}\nweak-retrieval={}\njson-report={}\njunit-report={}\n",
        if report.gate.passed { "passed" } else { "failed" },
        m.pass_rate,
        m.mean_recall_at_k.map_or(String::new(), |v| v.to_string()),
        m.weak_retrieval,
        file_of(json),
        file_of(junit)
    );
    let err = |source| Error::Write { path: Some(path.to_path_buf()), source };
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(err)?;
    file.write_all(text.as_bytes()).map_err(err)
}

/// Renders one report format.
type Writer<T> = fn(&T) -> Result<String, String>;

/// Writes each report asked for; true when one went to standard output.
fn write_outputs<T>(report: &T, outputs: &[(&Option<PathBuf>, Writer<T>)]) -> Result<bool, Error> {
    let mut to_stdout = false;
    for (path, render) in outputs {
        let Some(path) = path else { continue };
        let text = render(report).map_err(|m| Error::Usage(format!("cannot write {}: {m}", path.display())))?;
        if path.as_os_str() == "-" {
            if to_stdout {
                return Err(Error::Usage("only one report can go to standard output (`-`)".into()));
            }
            to_stdout = true;
            stdout_write(text.as_bytes())?;
        } else {
            write_output(path, &text)?;
        }
    }
    Ok(to_stdout)
}

fn baseline_cmd(config: &Config, args: PinArgs) -> Result<i32, Error> {
    use crate::baseline::{self, BaselineError, BaselineSource};
    use crate::report::{self, display_path};

    let settings = config.gate_settings()?;
    let run = run_suite(config, &args.suite, &[], false, &settings)?;
    let out = args
        .out
        .clone()
        .or_else(|| baseline_path(config, None))
        .unwrap_or_else(|| PathBuf::from("reports/baseline.json"));
    let mut text = String::new();
    if !run.report.gate.passed && !args.allow_failing {
        let style = report::terminal::Style { colour: colour_stdout(), quiet: true };
        text.push_str(&report::terminal::render(&run.report, style));
        text.push_str(&format!(
            "not pinned: the run fails the gate's absolute rules, and a failing baseline would let failures through; \
             fix the suite or pin anyway with --allow-failing ({} is unchanged)\n",
            display_path(&out)
        ));
        stdout_write(text.as_bytes())?;
        return Ok(exit::GATE_FAILED);
    }
    let new = baseline::pinned(&run.report);
    match baseline::load(&out) {
        Ok(old) => {
            let differences = baseline::incompatibilities(&old, &new);
            if differences.is_empty() {
                let source = BaselineSource { path: display_path(&out), revision: None, commit: None };
                let comparison = baseline::compare(&old, &new, &settings, source);
                text.push_str(&format!("changes against the baseline it replaces ({}):\n", display_path(&out)));
                text.push_str(&report::terminal::comparison(&comparison, Some(&new), false));
            } else {
                text.push_str(&format!(
                    "replaces a baseline made with other settings ({}): {}\n",
                    display_path(&out),
                    differences.join("; ")
                ));
            }
        }
        Err(BaselineError::Missing { .. }) => {
            text.push_str(&format!("no baseline at {} yet: this is the first pin\n", display_path(&out)));
        }
        Err(e) => text.push_str(&format!("replaces an unreadable baseline: {e}\n")),
    }
    baseline::write_atomically(&out, &report::json::render(&new))
        .map_err(|source| Error::Write { path: Some(out.clone()), source })?;
    let m = &new.summary;
    text.push_str(&format!(
        "pinned {} scenario(s) to {} ({} PASS, {} FAIL, {} WEAK, {} WEAK_RETRIEVAL, {} MALFORMED; profile {}, k {})\n",
        m.total,
        display_path(&out),
        m.pass,
        m.fail,
        m.weak,
        m.weak_retrieval,
        m.malformed,
        new.fingerprint.profile.name,
        new.fingerprint.k
    ));
    stdout_write(text.as_bytes())?;
    Ok(exit::OK)
}

fn diff_cmd(config: &Config, args: DiffArgs) -> Result<i32, Error> {
    use crate::baseline::{self, BaselineSource};
    use crate::report::{self, display_path};

    let settings = config.gate_settings()?;
    let old = baseline::load(&args.old).map_err(Error::Baseline)?;
    let new = baseline::load(&args.new).map_err(Error::Baseline)?;
    let differences = baseline::incompatibilities(&old, &new);
    if !differences.is_empty() && !args.allow_incompatible {
        return Err(Error::IncompatibleBaseline { path: display_path(&args.old), differences });
    }
    let source = BaselineSource { path: display_path(&args.old), revision: None, commit: None };
    let comparison = baseline::compare(&old, &new, &settings, source);
    let rules = baseline::rules(&comparison, &settings);
    let gate = crate::gate::GateOutcome::new(rules);
    let outputs: [(&Option<PathBuf>, Writer<crate::baseline::Comparison>); 1] =
        [(&args.json, |c| Ok(format!("{}\n", serde_json::to_string_pretty(c).expect("serialisable"))))];
    let to_stdout = write_outputs(&comparison, &outputs)?;
    let mut text = report::terminal::comparison(&comparison, Some(&new), colour_stdout() && !to_stdout);
    text.push('\n');
    text.push_str(&report::terminal::rules(&gate, colour_stdout() && !to_stdout));
    if to_stdout {
        eprint!("{text}");
    } else {
        stdout_write(text.as_bytes())?;
    }
    Ok(if gate.passed { exit::OK } else { exit::GATE_FAILED })
}

/// Writes a report file, creating its folder.
fn write_output(path: &Path, text: &str) -> Result<(), Error> {
    let err = |source| Error::Write { path: Some(path.to_path_buf()), source };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    std::fs::write(path, text).map_err(err)
}

/// A progress bar on standard error, only when it is a terminal and the
/// suite is large enough to wait for.
fn progress_bar(scenarios: usize, quiet: bool) -> Option<indicatif::ProgressBar> {
    const WORTH_A_BAR: usize = 2_000;
    if quiet || scenarios < WORTH_A_BAR || !io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(scenarios as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} scenarios {elapsed}") {
        bar.set_style(style);
    }
    Some(bar)
}

fn init_cmd(args: InitArgs) -> Result<i32, Error> {
    use crate::report::display_path;

    let memory_file = memory_path(&Config::default(), args.memory.as_deref()).map_err(|_| {
        Error::Usage(
            "init needs a memory file: pass --memory FILE, or run it where project_memory.json (or .mneme/project_memory.json) is"
                .into(),
        )
    })?;
    let memory_shown = display_path(&memory_file);
    let profile = Profile::named(crate::profile::Family::Default);
    let memory = Memory::load(&memory_file, profile.family)?;
    let index = Index::build(memory, profile);
    let (suite, active, parked) = crate::init::starter_suite(&index, &memory_shown);

    let files: [(&str, String); 3] = [
        ("mneme-gate.yaml", crate::init::config_text(&memory_shown)),
        ("scenarios/starter.yaml", suite),
        (".github/workflows/mneme-gate.yml", crate::init::WORKFLOW.to_string()),
    ];
    let mut text = String::new();
    let mut wrote = 0;
    for (path, content) in &files {
        let path = Path::new(path);
        if path.exists() && !args.force {
            text.push_str(&format!("left alone  {} (it exists; --force overwrites it)\n", path.display()));
            continue;
        }
        write_output(path, content)?;
        wrote += 1;
        text.push_str(&format!("wrote       {}\n", path.display()));
    }
    std::fs::create_dir_all("reports").map_err(|source| Error::Write { path: Some("reports".into()), source })?;
    let baseline = Path::new("reports/baseline.json");
    if baseline.exists() && !args.force {
        text.push_str("left alone  reports/baseline.json (it exists; --force re-pins it)\n");
    } else {
        let config = Config::discover(Some(Path::new("mneme-gate.yaml")))?;
        let settings = config.gate_settings()?;
        let suite_args = SuiteArgs {
            memory: MemoryArgs { memory: None, profile: None, k: None },
            scenarios: Vec::new(),
            jobs: None,
        };
        let run = run_suite(&config, &suite_args, &[], true, &settings)?;
        let pinned = crate::baseline::pinned(&run.report);
        crate::baseline::write_atomically(baseline, &crate::report::json::render(&pinned))
            .map_err(|source| Error::Write { path: Some(baseline.to_path_buf()), source })?;
        wrote += 1;
        text.push_str(&format!(
            "pinned      reports/baseline.json ({} scenario(s), gate {})\n",
            pinned.summary.total,
            if pinned.gate.passed { "passed" } else { "FAILED: see `mneme-gate run`" }
        ));
    }
    if wrote == 0 {
        text.push_str("\nNothing written: every file exists. `mneme-gate init --force` regenerates them.\n");
        stdout_write(text.as_bytes())?;
        return Ok(exit::OK);
    }
    text.push_str(&format!(
        "\nThe starter suite has {active} scenario(s) from the decisions of {memory_shown}{}.\n\
         Next:\n\
         1. Review scenarios/starter.yaml: every scenario is marked TODO(review).\n\
         2. Run `mneme-gate run` and read the table.\n\
         3. Re-pin with `mneme-gate baseline` after each reviewed change, and commit mneme-gate.yaml,\n   \
         scenarios/, reports/baseline.json and .github/workflows/mneme-gate.yml.\n",
        if parked > 0 {
            format!(" ({parked} more commented out: their decision is not retrieved for its title)")
        } else {
            String::new()
        }
    ));
    stdout_write(text.as_bytes())?;
    Ok(exit::OK)
}
