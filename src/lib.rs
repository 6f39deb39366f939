/*!
mneme-gate: the CI governance gate and benchmark runner for decision
retrieval. The pipeline reads top to bottom, each stage taking plain data
from the one before it: [`memory`] → [`retrieval`] → [`context`] →
[`scenarios`] → [`verdict`] → [`metrics`] → [`run`] (the stages above, in
parallel, per scenario) → [`gate`] → [`baseline`] → [`report`] → [`cli`],
the only module that prints. [`error`] maps every failure to a message and
an exit code. Beside the pipeline: [`config`] (`mneme-gate.yaml`),
[`git`] (files at other revisions), [`init`] (a starter setup) and
[`synth`] (seeded corpora and suites for benchmarks).
*/

pub mod baseline;
#[allow(clippy::print_stdout, clippy::print_stderr)] // until the command line prints through its own writers
pub mod cli;
pub mod config;
pub mod context;
#[allow(dead_code)] // its callers move onto it next
mod describe;
pub mod error;
pub mod gate;
pub mod git;
pub mod init;
pub mod memory;
pub mod metrics;
pub mod profile;
pub mod report;
pub mod retrieval;
pub mod run;
pub mod scenarios;
pub mod synth;
pub mod tokenize;
pub mod verdict;
