/*!
mneme-gate: the CI governance gate and benchmark runner for decision
retrieval.

# The map

Every module, in data-flow order: a module imports only the modules above
it (`.ci/layers.py` checks it on every CI run; `docs/architecture.md` says
more). First the leaves beside the pipeline, which import nothing from the
crate:

- `describe`: how messages name JSON types, suggest the key a typo meant,
  and make strings from the inputs safe to print.
- [`digest`]: SHA-256 in lower-case hex, written once.
- `atomic`: atomic file writes (the old file whole or the new one whole).
- `confine`: the one rule for every path read, written or deleted on the
  repository's behalf (inside its root, never through its symbolic links).
- [`profile`]: the scoring profiles (`default`, `mneme`) and their overrides.
- [`tokenize`]: text in, a set of tokens out, per profile.
- [`chore`]: which tasks are maintenance (a typo fix, a dependency bump),
  for which profile `default` retrieves nothing.
- [`git`]: the commit of a run, and files at another revision (libgit2).

Then the pipeline, each stage taking plain data from the ones before it:

- [`memory`]: decision sources (`project_memory.json`, ADRs, agents' rule
  files) read into canonical decisions, every problem located.
- [`retrieval`]: the index and the ranking of both profiles, `explain`.
- [`context`]: the context block an agent receives.
- [`cache`]: the compiled index that `context` and `hook` answer one query
  from, and the memory kept hot for `mcp`.
- [`hook`]: an agent's hook input read into a task and a file, and its output.
- [`scenarios`]: native YAML suites and Mneme benchmark folders.
- [`model`]: Layer 2's language model: the answers a scenario lacks, asked
  of an OpenAI-compatible endpoint and kept as cassettes, replayed in CI.
- [`verdict`]: one scenario's answers judged (PASS, FAIL, WEAK, ...).
- [`metrics`]: per-scenario and suite figures.
- [`run`]: the stages above for every scenario, in parallel, in suite order.
- [`suggest`]: for each expected decision a scenario misses, the one-word
  edit to it that fixes the scenario without breaking another, verified.
- [`tune`]: which one retrieval setting to change, if any, chosen by k-fold
  cross-validation over the suite and recommended only above its noise.
- [`gate`]: the rules (typed, [`gate::Rule`]) and the absolute ones decided.
- [`report`]: the model of a run, partial reports and their merge, and the
  writers (JSON, JUnit, Markdown, TREC, annotations, terminal).
- [`baseline`]: a pinned report read and compared, and the rules that need it.
- [`evaluate`]: the gate's policy as one stage: a report and a plan (the
  gate, the baseline and the memory at other revisions, already read) in,
  the gated report out.
- [`coverage`]: what a green gate does not say (ungated decisions, fragile
  retrievals).
- [`draft`]: a suite drafted from the git history, for review.

Then what gathers the stages, and the command line:

- [`config`]: the configuration file, `mneme-gate.yaml`.
- [`init`]: a starter setup from the decisions a team already has.
- [`error`]: every failure as one typed error, its message and exit code.
- [`cli`]: flags to settings to commands; the only module that prints.

The development commands (synthetic inputs, the benchmark floor, the
report's JSON Schema) live in the `mneme-gate-dev` crate
(`crates/mneme-gate-dev`), not in the shipped binary.
*/

mod atomic;
pub mod baseline;
pub mod cache;
pub mod chore;
pub mod cli;
pub mod config;
mod confine;
pub mod context;
pub mod coverage;
mod describe;
pub mod digest;
pub mod draft;
pub mod error;
pub mod evaluate;
pub mod gate;
pub mod git;
pub mod hook;
pub mod init;
pub mod memory;
pub mod metrics;
pub mod model;
pub mod profile;
pub mod report;
pub mod retrieval;
pub mod run;
pub mod scenarios;
pub mod suggest;
pub mod tokenize;
pub mod tune;
pub mod verdict;
