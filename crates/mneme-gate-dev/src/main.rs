//! `mneme-gate-dev`: the development commands that the shipped `mneme-gate`
//! binary does not carry. Errors and exit codes follow `mneme-gate`'s
//! (2: usage or input, 3: writing failed).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use mneme_gate::config::Config;
use mneme_gate::error::{exit, Error};
use mneme_gate::memory::Memory;
use mneme_gate::profile::Named;
use mneme_gate_dev::{render_md, synth};

#[derive(Debug, Parser)]
#[command(
    name = "mneme-gate-dev",
    version,
    about = "mneme-gate's development tools (not shipped): synthetic inputs, the benchmark floor, the report schema"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate a seeded synthetic corpus and suite (for benchmarks and tests).
    Synth(SynthArgs),
    /// Benchmark floor: only read and parse the memory file, the suite and its response files, then exit.
    Floor(FloorArgs),
    /// Print the JSON Schema of the JSON report (`mneme-gate.report/v1`), or of the coverage report with
    /// --coverage, or check a committed copy.
    Schema(SchemaArgs),
    /// Render a Markdown file to an HTML page as GitHub shows it (GFM, GitHub-like style), to look at a report.
    RenderMd(RenderMdArgs),
    /// The comparison statistics of given inputs, for tests/reference/stats_check.py: reads
    /// `{"paired": [[d, ...], ...], "mcnemar": [[lost, gained], ...], "wilson": [[passed, judged], ...],
    /// "seed": N, "resamples": N}` on standard input, prints each one's figures as JSON.
    Stats,
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
    /// The suite's layout.
    #[arg(long, value_enum, default_value_t = Layout::Native)]
    layout: Layout,
    /// Small records (title, a short content, one tag, scope), written on one line: for memory-scale
    /// benchmarks (a million records is about 200 MB).
    #[arg(long)]
    small: bool,
    /// Scenarios per YAML suite file in the native layout (0: the whole suite in one file).
    #[arg(long, value_name = "N", default_value_t = 100)]
    per_file: usize,
    /// Output folder: writes project_memory.json and, with --scenarios, scenarios/.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Layout {
    /// YAML suite files, responses under responses/.
    Native,
    /// One Mneme benchmark folder per scenario, expecting only records of the `mneme` profile's pool.
    Mneme,
}

/// The flags of `mneme-gate run` that say what to read.
#[derive(Debug, Args)]
struct FloorArgs {
    /// The configuration file (default: ./mneme-gate.yaml when it exists).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The memory file (default: `memory` from the configuration, else ./project_memory.json).
    #[arg(long, value_name = "FILE")]
    memory: Option<PathBuf>,
    /// The scoring profile: `default` or `mneme`.
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// How many decisions to retrieve (read only to resolve the profile, as `run` does).
    #[arg(long, value_name = "N")]
    k: Option<usize>,
    /// A suite root (repeatable; default: `scenarios` from the configuration).
    #[arg(long, value_name = "PATH")]
    scenarios: Vec<PathBuf>,
    /// Worker threads for parsing the suite (default: one per core).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
}

#[derive(Debug, Args)]
struct SchemaArgs {
    /// The schema of `mneme-gate coverage --json` (`mneme-gate.coverage/v1`) instead of the run report's.
    #[arg(long)]
    coverage: bool,
    /// Compare with this file instead of printing: exit 0 when it is up to date, 1 when it is stale.
    #[arg(long, value_name = "FILE")]
    check: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct RenderMdArgs {
    /// The Markdown file (`-`: standard input).
    #[arg(value_name = "IN.md")]
    input: PathBuf,
    /// The HTML page to write.
    #[arg(value_name = "OUT.html")]
    output: PathBuf,
    /// Mermaid's browser bundle (`mermaid.min.js`), to draw ```mermaid blocks as GitHub does.
    #[arg(long, value_name = "FILE")]
    mermaid: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Synth(args) => synth_cmd(args),
        Command::Floor(args) => floor_cmd(args),
        Command::Schema(args) => schema_cmd(args),
        Command::RenderMd(args) => render_md_cmd(args),
        Command::Stats => stats_cmd(),
    };
    let code = match result {
        Ok(code) => code,
        Err(Error::Write { path: None, source }) if source.kind() == io::ErrorKind::BrokenPipe => exit::OK,
        Err(e) => {
            let _ = writeln!(io::stderr(), "mneme-gate-dev: error: {e}");
            e.exit_code()
        }
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// What `stats` reads.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StatsInput {
    #[serde(default)]
    paired: Vec<Vec<f64>>,
    #[serde(default)]
    mcnemar: Vec<(usize, usize)>,
    #[serde(default)]
    wilson: Vec<(usize, usize)>,
    seed: Option<u64>,
    resamples: Option<usize>,
}

fn stats_cmd() -> Result<i32, Error> {
    use mneme_gate::metrics::stats;
    let input: StatsInput = serde_json::from_reader(io::stdin().lock())
        .map_err(|e| Error::Usage(format!("stats: standard input is not the expected JSON: {e}")))?;
    let seed = input.seed.unwrap_or(stats::SEED);
    let resamples = input.resamples.unwrap_or(stats::RESAMPLES);
    let paired: Vec<serde_json::Value> = input
        .paired
        .iter()
        .map(|d| {
            let w = stats::win_loss_tie(d);
            let p = stats::permutation_test(d, seed, resamples);
            let ci = stats::bootstrap_interval(d, seed, resamples);
            serde_json::json!({
                "wins": w.wins, "losses": w.losses, "ties": w.ties,
                "mean": stats::mean(d),
                "p_value": p.p_value, "exact": p.exact, "assignments": p.assignments,
                "ci": ci.map(|(lo, hi)| [lo, hi]),
                "scenarios_needed": stats::scenarios_needed(d),
                "minimum_detectable": stats::minimum_detectable(d.len()),
            })
        })
        .collect();
    let mcnemar: Vec<f64> = input.mcnemar.iter().map(|(b, c)| stats::mcnemar_exact(*b, *c)).collect();
    let wilson: Vec<Option<(f64, f64)>> = input.wilson.iter().map(|(x, n)| stats::wilson(*x, *n)).collect();
    let out = serde_json::json!({ "paired": paired, "mcnemar": mcnemar, "wilson": wilson });
    let mut text = serde_json::to_string(&out).map_err(|e| Error::Usage(format!("stats: {e}")))?;
    text.push('\n');
    stdout_write(text.as_bytes())?;
    Ok(exit::OK)
}

fn stdout_write(bytes: &[u8]) -> Result<(), Error> {
    let mut out = io::stdout().lock();
    out.write_all(bytes).and_then(|_| out.flush()).map_err(|source| Error::Write { path: None, source })
}

fn synth_cmd(args: SynthArgs) -> Result<i32, Error> {
    let write_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Write { path: Some(path), source }
    };
    std::fs::create_dir_all(&args.out).map_err(write_err(&args.out))?;
    let mut corpus = synth::corpus(&synth::CorpusSpec::new(args.decisions, args.seed));
    let memory = args.out.join("project_memory.json");
    let json = if args.small {
        corpus.shrink();
        corpus.to_json_compact()
    } else {
        corpus.to_json()
    };
    std::fs::write(&memory, json).map_err(write_err(&memory))?;
    if args.scenarios > 0 {
        let layout = match args.layout {
            Layout::Native => synth::SuiteLayout::Native,
            Layout::Mneme => synth::SuiteLayout::MnemeFolders,
        };
        let mut spec = synth::SuiteSpec::new(args.scenarios, args.seed);
        spec.mneme_pool = args.layout == Layout::Mneme;
        spec.scenarios_per_file = if args.per_file == 0 { args.scenarios.max(1) } else { args.per_file };
        let dir = args.out.join("scenarios");
        synth::write_suite(&dir, &corpus, &spec, layout).map_err(write_err(&dir))?;
    }
    let _ = writeln!(
        io::stderr(),
        "mneme-gate-dev: wrote {} ({} decisions, {} scenarios, seed {})",
        args.out.display(),
        args.decisions,
        args.scenarios,
        args.seed
    );
    Ok(exit::OK)
}

/// The parse-only floor of the benchmark: the reading and parsing that
/// `mneme-gate run` does (configuration, memory file, suite files and
/// response files, resolved the same way), nothing else.
fn floor_cmd(args: FloorArgs) -> Result<i32, Error> {
    let config = Config::discover(args.config.as_deref())?;
    let family =
        match args.profile.as_deref() {
            None => None,
            Some(name) => Some(Named::parse(name).ok_or_else(|| {
                Error::Usage(format!("unknown profile `{name}`: use `default`, `classic` or `mneme`"))
            })?),
        };
    let profile = config.profile(family, args.k)?;
    let memory_path = memory_path(&config, args.memory.as_deref())?;
    let memory = Memory::load(&memory_path, profile.family)?;
    let roots = if args.scenarios.is_empty() { config.suites() } else { args.scenarios };
    let suite = load_suite(&roots, args.jobs)?;
    let mut responses = 0usize;
    for s in &suite.scenarios {
        for r in [&s.control, &s.governed].into_iter().flatten() {
            if mneme_gate::verdict::read_response(r).is_ok() {
                responses += 1;
            }
        }
    }
    let line = format!(
        "floor: {} decisions, {} scenarios, {} responses read\n",
        memory.pool.len(),
        suite.scenarios.len(),
        responses
    );
    stdout_write(line.as_bytes())?;
    Ok(exit::OK)
}

/// The memory path as `mneme-gate` resolves it ([`Config::memory_path`]).
fn memory_path(config: &Config, flag: Option<&Path>) -> Result<PathBuf, Error> {
    config
        .memory_path(flag)
        .ok_or_else(|| Error::Usage("no memory file: pass --memory FILE, or set `memory:` in mneme-gate.yaml".into()))
}

/// Loads the suite, parsing its files on `jobs` threads, as `run` does.
fn load_suite(roots: &[PathBuf], jobs: Option<usize>) -> Result<mneme_gate::scenarios::Suite, Error> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(jobs) = jobs {
        builder = builder.num_threads(jobs.max(1));
    }
    let pool = builder.build().map_err(|e| Error::Usage(format!("cannot start the worker threads: {e}")))?;
    pool.install(|| mneme_gate::scenarios::Suite::load(roots)).map_err(Error::Suite)
}

fn schema_cmd(args: SchemaArgs) -> Result<i32, Error> {
    let schema = if args.coverage { mneme_gate::coverage::schema() } else { mneme_gate::report::json::schema() };
    let Some(path) = args.check else {
        stdout_write(schema.as_bytes())?;
        return Ok(exit::OK);
    };
    let committed = std::fs::read_to_string(&path).map_err(|source| Error::Read { path: path.clone(), source })?;
    if committed == schema {
        return Ok(exit::OK);
    }
    let _ = writeln!(
        io::stderr(),
        "mneme-gate-dev: {} is stale: regenerate it with `mneme-gate-dev schema{} > {}`",
        path.display(),
        if args.coverage { " --coverage" } else { "" },
        path.display()
    );
    Ok(exit::GATE_FAILED)
}

fn render_md_cmd(args: RenderMdArgs) -> Result<i32, Error> {
    let read = |path: &Path| -> Result<String, Error> {
        if path.as_os_str() == "-" {
            let mut text = String::new();
            io::Read::read_to_string(&mut io::stdin(), &mut text)
                .map_err(|source| Error::Read { path: path.to_path_buf(), source })?;
            return Ok(text);
        }
        std::fs::read_to_string(path).map_err(|source| Error::Read { path: path.to_path_buf(), source })
    };
    let markdown = read(&args.input)?;
    let mermaid = match &args.mermaid {
        None => None,
        Some(path) => {
            let path = path.canonicalize().map_err(|source| Error::Read { path: path.clone(), source })?;
            Some(file_url(&path))
        }
    };
    let title = args.input.file_name().map_or("-".into(), |n| n.to_string_lossy().into_owned());
    let page = render_md::page(&markdown, &title, mermaid.as_deref());
    std::fs::write(&args.output, page).map_err(|source| Error::Write { path: Some(args.output.clone()), source })?;
    Ok(exit::OK)
}

/// A `file://` URL of an absolute path, every byte but `/` and the
/// unreserved ones percent-encoded.
fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            url.push(char::from(b));
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}
