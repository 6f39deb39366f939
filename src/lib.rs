/*!
mneme-gate: the CI governance gate and benchmark runner for decision
retrieval. The pipeline reads top to bottom, each stage taking plain data
from the one before it: [`memory`] → [`retrieval`] → [`context`] → (suites,
verdicts, metrics and reports in later stages) → [`cli`], the only module
that prints. [`error`] maps every failure to a message and an exit code.
*/

pub mod baseline;
pub mod cli;
pub mod config;
pub mod context;
pub mod error;
pub mod gate;
pub mod git;
pub mod init;
pub mod json;
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
