/*!
mneme-gate: the CI governance gate and benchmark runner for decision
retrieval. The pipeline reads top to bottom, each stage taking plain data
from the one before it and importing only the stages before it: [`memory`] →
[`retrieval`] → [`context`] → [`scenarios`] → [`verdict`] → [`metrics`] →
[`run`] (the stages above, in parallel, per scenario) → [`gate`] →
[`report`] (the model of a run, the data of a comparison included, and its
writers) → [`baseline`] (comparing reports, and the rules that need a
baseline) → [`coverage`] (which decisions no scenario gates, which cannot
reach the agent, which retrievals are fragile) → [`draft`] (a suite drafted
from the git history, for review) → [`cli`], the only module that prints. [`error`] maps every
failure to a message and an exit code. Beside the pipeline: [`config`]
(`mneme-gate.yaml`), [`git`] (files at other revisions) and [`init`] (a
starter setup). The development commands (synthetic inputs, the benchmark
floor, the report's JSON Schema) live in the `mneme-gate-dev` crate
(`crates/mneme-gate-dev`), not in the shipped binary.
*/

mod atomic;
pub mod baseline;
pub mod cache;
pub mod cli;
pub mod config;
mod confine;
pub mod context;
pub mod coverage;
mod describe;
pub mod draft;
pub mod error;
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
pub mod tokenize;
pub mod verdict;
