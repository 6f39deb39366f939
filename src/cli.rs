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
    /// Generate a seeded synthetic corpus and suite (for benchmarks).
    #[command(hide = true)]
    Synth(SynthArgs),
}

#[derive(Debug, Args)]
struct SynthArgs {
    /// Retrievable decisions in the corpus.
    #[arg(long, default_value_t = 500)]
    decisions: usize,
    /// Scenarios in the suite (0: corpus only).
    #[arg(long, default_value_t = 0)]
    scenarios: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// `native` (YAML files) or `mneme` (benchmark folders).
    #[arg(long, default_value = "native")]
    layout: String,
    /// Output folder: writes project_memory.json and, with --scenarios, scenarios/.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
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
        Command::Synth(args) => synth_cmd(args),
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

fn synth_cmd(args: SynthArgs) -> Result<i32, Error> {
    use crate::synth;
    let layout = match args.layout.as_str() {
        "native" => synth::SuiteLayout::Native,
        "mneme" => synth::SuiteLayout::MnemeFolders,
        other => return Err(Error::Usage(format!("unknown --layout `{other}`: use `native` or `mneme`"))),
    };
    let write_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Write { path: Some(path), source }
    };
    std::fs::create_dir_all(&args.out).map_err(write_err(&args.out))?;
    let corpus = synth::corpus(&synth::CorpusSpec::new(args.decisions, args.seed));
    let memory = args.out.join("project_memory.json");
    std::fs::write(&memory, corpus.to_json()).map_err(write_err(&memory))?;
    if args.scenarios > 0 {
        let mut spec = synth::SuiteSpec::new(args.scenarios, args.seed);
        spec.mneme_pool = matches!(layout, synth::SuiteLayout::MnemeFolders);
        let dir = args.out.join("scenarios");
        synth::write_suite(&dir, &corpus, &spec, layout).map_err(write_err(&dir))?;
    }
    eprintln!(
        "mneme-gate: wrote {} ({} decisions, {} scenarios, seed {})",
        args.out.display(),
        args.decisions,
        args.scenarios,
        args.seed
    );
    Ok(exit::OK)
}
