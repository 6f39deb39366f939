/*!
The flags, as clap types and nothing else: no defaults that need the
configuration file, no validation beyond what clap does. [`super::settings`]
turns them into plain settings.
*/

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "mneme-gate",
    version,
    about = "CI governance gate and benchmark runner for decision retrieval",
    long_about = "Retrieves the architectural decisions that govern a task from project_memory.json, \
deterministically, and gates CI on whether the right ones come out.\n\n\
Exit codes: 0 gate passed / command succeeded, 1 gate failed, 2 usage, configuration or input error, \
3 infrastructure error.",
    // COLUMNS, else the terminal's width, else 100 (subcommands inherit it).
    term_width = super::output::help_width()
)]
pub(crate) struct Cli {
    /// The configuration file (default: ./mneme-gate.yaml when it exists).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Print the context block an agent receives for a task (editor hook).
    Context(QueryArgs),
    /// Explain a ranking: every record, its matches, its score and why it is or is not retrieved (with
    /// --why-not ID: why one decision is not, in sentences).
    Explain(ExplainArgs),
    /// Batch retrieval: JSONL queries in, JSONL rankings out, in input order.
    Retrieve(RetrieveArgs),
    /// Check a memory file and report every problem at once.
    Validate(ValidateArgs),
    /// Write the decisions of any sources (ADRs, Cursor, Copilot and Claude rules, memory files) as one
    /// Mneme memory file.
    Import(ImportArgs),
    /// Run the suite: retrieval and verdicts for every scenario, metrics, reports, and the gate.
    Run(Box<RunArgs>),
    /// Merge the partial reports of `run --partition K/N` into the reports, gate and exit code of a single run.
    Merge(Box<MergeArgs>),
    /// Run the suite and pin the result as the baseline (atomically).
    Baseline(PinArgs),
    /// Compare two saved JSON reports the way `run` compares with its baseline.
    Diff(DiffArgs),
    /// For each expected decision a scenario misses, the one-word edit to that decision (a tag or a title
    /// word) that brings it into the top k without pushing another scenario's expected decision out,
    /// verified by retrieving the whole suite again.
    Suggest(SuggestArgs),
    /// Which one retrieval setting to change, if any: a fixed neighbourhood of the current profile searched with
    /// k-fold cross-validation over the suite's scenarios, recommended only when the held-out gain in
    /// recall@k is above the suite's noise (docs/tune.md).
    Tune(TuneArgs),
    /// What a green gate does not say: decisions no scenario expects, decisions that cannot reach the top k for
    /// their own words, fragile retrievals, overlapping decisions.
    Coverage(CoverageArgs),
    /// Set up a repository from its decisions (a memory file, ADRs, agent rules; a first ADR with --first-adr):
    /// configuration, a starter suite, a pinned baseline and a GitHub Actions workflow.
    Init(InitArgs),
    /// Draft scenarios from the git history for a person to review: first-parent commits that a decision
    /// plausibly governs, each with its evidence, and a few controls (docs/draft.md).
    Draft(DraftArgs),
    /// The model stage's cassettes (docs/models.md).
    #[command(subcommand)]
    Cassettes(CassettesCommand),
    /// An agent's hook: reads the hook's JSON on standard input and prints the context block as the hook's
    /// output (never blocks the agent: every failure is one line on standard error and exit 0).
    Hook(HookArgs),
    /// Serve the retriever to agents over MCP on standard input and output: memory_search, memory_context,
    /// memory_explain, memory_health.
    Mcp(McpArgs),
}

/// A scoring profile, as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProfileName {
    /// The default profile (BM25F: informative words, length-normalised fields, identifiers split, abstains on
    /// weak matches).
    Default,
    /// mneme-gate's first profile (weighted token overlap), unchanged.
    Classic,
    /// Mneme 0.10.0's scorer, as published.
    Mneme,
}

/// Which CI annotations to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AnnotationKind {
    /// GitHub Actions workflow commands (`::error file=...::`).
    Github,
    /// None.
    Off,
}

/// What a command prints on standard output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub(crate) enum Format {
    /// Text for a person to read.
    #[default]
    Text,
    /// JSON, for a program to read.
    Json,
}

impl Format {
    pub fn is_json(self) -> bool {
        self == Format::Json
    }
}

#[derive(Debug, Args)]
pub(crate) struct MemoryArgs {
    /// The memory file, or a decision source KIND:PATH (adr:, cursor:, copilot:, claude:, agents:; repeatable)
    /// (default: `memory` from the configuration, else ./project_memory.json).
    #[arg(long, value_name = "SOURCE")]
    pub memory: Vec<PathBuf>,
    /// The scoring profile, as published (ignores the configuration's overrides).
    #[arg(long, value_name = "NAME")]
    pub profile: Option<ProfileName>,
    /// How many decisions to retrieve (default: the profile's, 3).
    #[arg(long, value_name = "N")]
    pub k: Option<usize>,
}

#[derive(Debug, Args)]
pub(crate) struct QueryArgs {
    #[command(flatten)]
    pub memory: MemoryArgs,
    /// The task text.
    #[arg(long, value_name = "TEXT")]
    pub task: String,
    /// The file being edited (turns on the scope pre-filter).
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// Print text, or JSON.
    #[arg(long, value_name = "FORMAT", default_value_t = Format::Text, value_enum)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    #[command(flatten)]
    pub query: QueryArgs,
    /// Why the decision with this id is not retrieved: where it ranked, what the decisions retrieved ahead
    /// of it matched that it does not, and what became of each word of the query in it.
    #[arg(long, value_name = "ID")]
    pub why_not: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct RetrieveArgs {
    #[command(flatten)]
    pub memory: MemoryArgs,
    /// JSONL file of queries `{"id": ..., "task": ..., "file": ...}`; `-` for standard input.
    #[arg(long, value_name = "FILE")]
    pub queries: PathBuf,
}

/// What a suite run needs: the memory, the suite and the threads.
#[derive(Debug, Args)]
pub(crate) struct SuiteArgs {
    #[command(flatten)]
    pub memory: MemoryArgs,
    /// A suite root: a folder of YAML suite files and/or Mneme benchmark folders, or one file (repeatable;
    /// default: `scenarios` from the configuration).
    #[arg(long, value_name = "PATH")]
    pub scenarios: Vec<PathBuf>,
    /// Worker threads (default: one per core). Reports are identical for every value.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Only scenarios whose id matches this glob (`*` matches anything; repeatable: any match).
    #[arg(long, value_name = "GLOB")]
    pub filter: Vec<String>,
    /// Write the JSON report (schema mneme-gate.report/v1); `-` for standard output.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write JUnit XML.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the Markdown summary (for a pull request or $GITHUB_STEP_SUMMARY).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write the ranking as a TREC run file (`qid Q0 docid rank score mneme-gate`).
    #[arg(long, value_name = "FILE")]
    pub trec_run: Option<PathBuf>,
    /// Write the expected ids as TREC qrels (`qid 0 docid 1`).
    #[arg(long, value_name = "FILE")]
    pub trec_qrels: Option<PathBuf>,
    /// Print only the summary, a line on the comparison with the baseline, and the gate (the details are in
    /// the report files).
    #[arg(long)]
    pub quiet: bool,
    /// Put wall-clock timings in the JSON report (which then differs from run to run).
    #[arg(long)]
    pub timings: bool,
    /// Annotations for CI: `github` prints ::error/::warning workflow commands pointing at each failing
    /// scenario's line (default when GITHUB_ACTIONS=true), `off` prints none.
    #[arg(long, value_name = "KIND")]
    pub annotations: Option<AnnotationKind>,
    /// Append GitHub Actions step outputs (result, pass-rate, mean-recall-at-k, weak-retrieval, json-report,
    /// junit-report) to this file (pass "$GITHUB_OUTPUT").
    #[arg(long, value_name = "FILE")]
    pub github_output: Option<PathBuf>,
    /// Run only partition K of N (scenarios by a hash of their id) and write its partial report to --json;
    /// `mneme-gate merge` turns the N partial reports into the reports and gate of a single run.
    #[arg(long, value_name = "K/N")]
    pub partition: Option<String>,
    #[command(flatten)]
    pub baseline: CompareArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The partial reports of every partition of one run (`run --partition K/N --json FILE`), in any order.
    #[arg(value_name = "PART.json", required = true)]
    pub parts: Vec<PathBuf>,
    /// The memory file, for --memory-ref only (default: `memory` from the configuration, else the one the
    /// partitions ran on); it must be the file the partitions ran on.
    #[arg(long, value_name = "FILE")]
    pub memory: Option<PathBuf>,
    /// Write the JSON report (schema mneme-gate.report/v1); `-` for standard output.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write JUnit XML.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the Markdown summary (for a pull request or $GITHUB_STEP_SUMMARY).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write the ranking as a TREC run file (`qid Q0 docid rank score mneme-gate`).
    #[arg(long, value_name = "FILE")]
    pub trec_run: Option<PathBuf>,
    /// Write the expected ids as TREC qrels (`qid 0 docid 1`).
    #[arg(long, value_name = "FILE")]
    pub trec_qrels: Option<PathBuf>,
    /// Print only the summary, a line on the comparison with the baseline, and the gate.
    #[arg(long)]
    pub quiet: bool,
    /// Annotations for CI: `github` prints ::error/::warning workflow commands pointing at each failing
    /// scenario's line (default when GITHUB_ACTIONS=true), `off` prints none.
    #[arg(long, value_name = "KIND")]
    pub annotations: Option<AnnotationKind>,
    /// Append GitHub Actions step outputs (as `run` does) to this file (pass "$GITHUB_OUTPUT").
    #[arg(long, value_name = "FILE")]
    pub github_output: Option<PathBuf>,
    #[command(flatten)]
    pub baseline: CompareArgs,
}

/// How `run` finds and treats the baseline.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// The pinned baseline (default: `baseline` from the configuration).
    #[arg(long, value_name = "FILE", conflicts_with = "no_baseline")]
    pub baseline: Option<PathBuf>,
    /// Do not compare with a baseline: only the absolute rules apply.
    #[arg(long)]
    pub no_baseline: bool,
    /// Read the baseline as it is at this git revision (for example the pull request's base) instead of the
    /// working tree; a working-tree baseline that differs fails the gate unless --accept-baseline-change.
    #[arg(long, value_name = "REV", conflicts_with = "no_baseline")]
    pub baseline_ref: Option<String>,
    /// Accept that this change re-pins the baseline: compare with the working tree's baseline.
    #[arg(long, requires = "baseline_ref")]
    pub accept_baseline_change: bool,
    /// Who or what accepted the re-pin, shown in the reports (for example "the label `x` on pull request
    /// #7"); only with --accept-baseline-change.
    #[arg(long, value_name = "TEXT", requires = "accept_baseline_change")]
    pub accepted_by: Option<String>,
    /// Compare with a baseline made with another k, profile or metric definitions anyway.
    #[arg(long)]
    pub allow_incompatible_baseline: bool,
    /// Add a field-by-field diff of the decision corpus between this git revision and the working tree.
    #[arg(long, value_name = "REV")]
    pub memory_ref: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct CoverageArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Write the coverage report as JSON (schema mneme-gate.coverage/v1); `-` for standard output.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the Markdown summary (for a pull request or $GITHUB_STEP_SUMMARY); `-` for standard output.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// A governed scenario is fragile when its margin is below this score (default: `gate.min_margin` when
    /// it is on, else the profile's heaviest field weight).
    #[arg(long, value_name = "SCORE")]
    pub min_margin: Option<f64>,
    /// A decision that more than this percentage of the scenarios retrieve (at least 2), and fewer than half
    /// of them expect, is a hub.
    #[arg(long, value_name = "PERCENT", default_value_t = 25.0)]
    pub hub_share: f64,
}

#[derive(Debug, Args)]
pub(crate) struct PinArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Where to write the baseline (default: `baseline` from the configuration, else reports/baseline.json).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Pin even when the run fails the absolute rules.
    #[arg(long)]
    pub allow_failing: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SuggestArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Examine at most this many misses, the first in suite order (each retrieves the whole suite again up to
    /// 16 times).
    #[arg(long, value_name = "N", default_value_t = crate::suggest::DEFAULT_MAX)]
    pub max: usize,
    /// Print text, or JSON.
    #[arg(long, value_name = "FORMAT", default_value_t = Format::Text, value_enum)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub(crate) struct TuneArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Cross-validation folds (at least 2, at most the number of scenarios).
    #[arg(long, value_name = "N", default_value_t = crate::tune::FOLDS)]
    pub folds: usize,
    /// The seed that deals the scenarios into folds.
    #[arg(long, value_name = "S", default_value_t = crate::tune::SEED)]
    pub seed: u64,
    /// Print text, or JSON (schema mneme-gate.tune/v1).
    #[arg(long, value_name = "FORMAT", default_value_t = Format::Text, value_enum)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// A memory file, or a decision source KIND:PATH (adr:, cursor:, copilot:, claude:, agents:; repeatable)
    /// (default: `memory` of mneme-gate.yaml, else what init finds: ./project_memory.json, every ADR folder,
    /// .cursor/rules/, Copilot instructions, CLAUDE.md, AGENTS.md).
    #[arg(long, value_name = "SOURCE")]
    pub memory: Vec<PathBuf>,
    /// In a repository with no decisions yet: write a first ADR (docs/adr/0001-record-architecture-decisions.md)
    /// and start from it.
    #[arg(long, conflicts_with = "memory")]
    pub first_adr: bool,
    /// Overwrite files that already exist.
    #[arg(long)]
    pub force: bool,
    /// Also install the hook of this agent (`claude`: in .claude/settings.json, keeping what is there).
    #[arg(long, value_name = "AGENT")]
    pub hook: Option<HookAgent>,
}

#[derive(Debug, Args)]
pub(crate) struct DraftArgs {
    #[command(flatten)]
    pub memory: MemoryArgs,
    /// Stop at this revision (excluded): draft only the commits after it.
    #[arg(long, value_name = "REV")]
    pub since: Option<String>,
    /// Examine at most N first-parent commits, newest first (default 2000).
    #[arg(long, value_name = "N")]
    pub max: Option<usize>,
    /// The suite file to write; when it exists, reviewed scenarios in it are kept and pending ones redrafted.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Also write the review page: one self-contained HTML file.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// The agent whose hook input and output formats `hook` reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum HookAgent {
    /// Claude Code: UserPromptSubmit, and PreToolUse of Edit, Write, MultiEdit and NotebookEdit.
    Claude,
    /// Gemini CLI: BeforeAgent.
    Gemini,
}

#[derive(Debug, Args)]
pub(crate) struct HookArgs {
    /// The agent whose hook format is read and written.
    #[arg(value_name = "AGENT")]
    pub agent: HookAgent,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    #[command(flatten)]
    pub memory: MemoryArgs,
}

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The older report (for example the baseline).
    pub old: PathBuf,
    /// The newer report.
    pub new: PathBuf,
    /// Compare reports made with another k, profile or metric definitions anyway.
    #[arg(long)]
    pub allow_incompatible: bool,
    /// Write the comparison as JSON to this file (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// A decision source: KIND:PATH (adr:docs/adr/, cursor:.cursor/rules/, copilot:.github/, claude:., agents:.) or a
    /// memory file (default: `memory` from the configuration).
    #[arg(value_name = "SOURCE")]
    pub sources: Vec<PathBuf>,
    /// Where to write the memory file (default: standard output, `-`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The profile the sources are read under, as published.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<ProfileName>,
}

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// The memory file, or a decision source KIND:PATH (adr:, cursor:, copilot:, claude:, agents:; repeatable)
    /// (default: `memory` from the configuration, else ./project_memory.json).
    #[arg(long, value_name = "SOURCE")]
    pub memory: Vec<PathBuf>,
    /// The profile whose pool rules apply.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<ProfileName>,
    /// Warnings fail too (exit 2).
    #[arg(long)]
    pub strict: bool,
    /// Print the findings as text, or as JSON.
    #[arg(long, value_name = "FORMAT", default_value_t = Format::Text, value_enum)]
    pub format: Format,
}

/// Where the answers of scenarios without recorded answers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ResponsesMode {
    /// Cassettes only; no network (the default).
    Replay,
    /// Cassettes where they exist; the model for the rest, recorded as cassettes.
    Record,
    /// The model for every request; nothing written.
    Live,
}

/// The model stage's flags (docs/models.md).
#[derive(Debug, Default, Args)]
pub(crate) struct ModelArgs {
    /// Answers of scenarios without recorded answers: `replay` cassettes (no network; the default),
    /// `record` the missing ones, or ask the model `live` (needs `model:` in mneme-gate.yaml or
    /// --model-base-url and --model).
    #[arg(long, value_name = "MODE", help_heading = "Model")]
    pub responses: Option<ResponsesMode>,
    /// Ask each arm N times; the report gives pass^N and each scenario's verdicts.
    #[arg(long, value_name = "N", help_heading = "Model")]
    pub repeat: Option<usize>,
    /// The OpenAI-compatible base URL, ending in /v1 (`model.base_url`).
    #[arg(long, value_name = "URL", help_heading = "Model")]
    pub model_base_url: Option<String>,
    /// The model's name (`model.model`).
    #[arg(long, value_name = "NAME", help_heading = "Model")]
    pub model: Option<String>,
    /// The environment variable holding the API key (`model.api_key_env`).
    #[arg(long, value_name = "VAR", help_heading = "Model")]
    pub model_api_key_env: Option<String>,
    /// `model.temperature` (default 0).
    #[arg(long, value_name = "T", help_heading = "Model")]
    pub model_temperature: Option<f64>,
    /// `model.seed` (default: none sent).
    #[arg(long, value_name = "N", help_heading = "Model", allow_negative_numbers = true)]
    pub model_seed: Option<i64>,
    /// `model.max_tokens` (default 1024).
    #[arg(long, value_name = "N", help_heading = "Model")]
    pub model_max_tokens: Option<u64>,
    /// `model.timeout_s`: seconds one attempt may take (default 60).
    #[arg(long, value_name = "SECONDS", help_heading = "Model")]
    pub model_timeout: Option<f64>,
    /// `model.concurrency`: requests in flight at most (default 4).
    #[arg(long, value_name = "N", help_heading = "Model")]
    pub model_concurrency: Option<usize>,
    /// `model.retries` on 429, 5xx and timeouts (default 4).
    #[arg(long, value_name = "N", help_heading = "Model")]
    pub model_retries: Option<u32>,
    /// `model.structured`: ask for the structured answer schema (default true).
    #[arg(long, value_name = "BOOL", help_heading = "Model")]
    pub model_structured: Option<bool>,
    /// `model.cassettes`: the cassette folder (default: cassettes/ beside mneme-gate.yaml).
    #[arg(long, value_name = "DIR", help_heading = "Model")]
    pub cassettes: Option<PathBuf>,
    /// `model.prices.input_per_million`: price of a million input tokens, for the estimated cost.
    #[arg(long, value_name = "PRICE", help_heading = "Model")]
    pub model_price_input: Option<f64>,
    /// `model.prices.output_per_million`: price of a million output tokens.
    #[arg(long, value_name = "PRICE", help_heading = "Model")]
    pub model_price_output: Option<f64>,
}

/// `mneme-gate cassettes ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum CassettesCommand {
    /// List the cassettes no request of the suite uses any more (and broken files); --delete removes them.
    Prune(Box<PruneArgs>),
}

#[derive(Debug, Args)]
pub(crate) struct PruneArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Remove the cassettes listed.
    #[arg(long)]
    pub delete: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
