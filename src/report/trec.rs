//! TREC run and qrels files (`--trec-run`, `--trec-qrels`), so that
//! trec_eval, ranx or ir_measures can recompute our figures independently.
//!
//! Run lines are `qid Q0 docid rank score mneme-gate`, one per retrieved
//! decision, scenarios in report order (by id). Qrels lines are
//! `qid 0 docid 1`, one per expected id of a governed scenario (acceptable
//! ids are not relevant: they only excuse an injection).
//!
//! Those tools ignore the rank column and re-sort by score (trec_eval breaks
//! ties by document id), while our ranking breaks score ties by pool order.
//! So the score column is made strictly decreasing within a query: the exact
//! score minus `n × 0.000001` for the n-th decision (from 0) of a run of
//! equal scores. Scores are multiples of 0.001, so for k < 1000 the offset
//! never reaches the next distinct score and the order is ours exactly.
//!
//! A scenario that retrieved nothing has no run line: run trec_eval with
//! `-c` (average over every query of the qrels) to count it as 0.
//! Ids with whitespace cannot be written in this format and are refused.

use std::fmt::Write as _;

use super::Report;

/// The run file.
pub fn run(report: &Report) -> Result<String, String> {
    let mut out = String::new();
    for s in &report.scenarios {
        check_id("scenario", &s.id)?;
        let mut tie = 0u32;
        let mut previous: Option<f64> = None;
        for r in &s.retrieved {
            check_id("decision", &r.id)?;
            tie = if previous == Some(r.score) { tie + 1 } else { 0 };
            previous = Some(r.score);
            let score = r.score - f64::from(tie) * 1e-6;
            writeln!(out, "{} Q0 {} {} {:.6} mneme-gate", s.id, r.id, r.rank, score).expect("a String");
        }
    }
    Ok(out)
}

/// The qrels file.
pub fn qrels(report: &Report) -> Result<String, String> {
    let mut out = String::new();
    for s in &report.scenarios {
        check_id("scenario", &s.id)?;
        for id in &s.expected {
            check_id("decision", id)?;
            writeln!(out, "{} 0 {id} 1", s.id).expect("a String");
        }
    }
    Ok(out)
}

fn check_id(what: &str, id: &str) -> Result<(), String> {
    if id.is_empty() || id.chars().any(char::is_whitespace) {
        Err(format!(
            "{what} id `{}` contains whitespace, which the TREC format cannot hold; rename it",
            crate::describe::printable(id)
        ))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::RetrievedEntry;

    fn bundled() -> Report {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/baseline.json");
        crate::report::json::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn ties_get_strictly_decreasing_scores_in_our_order() {
        let mut r = bundled();
        r.scenarios.truncate(1);
        r.scenarios[0].id = "q1".into();
        r.scenarios[0].retrieved = vec![
            RetrievedEntry { id: "B".into(), score: 7.5, rank: 1 },
            RetrievedEntry { id: "A".into(), score: 7.5, rank: 2 },
            RetrievedEntry { id: "C".into(), score: 7.5, rank: 3 },
            RetrievedEntry { id: "D".into(), score: 3.0, rank: 4 },
        ];
        r.scenarios[0].expected = vec!["A".into(), "Z".into()];
        assert_eq!(
            run(&r).unwrap(),
            "q1 Q0 B 1 7.500000 mneme-gate\nq1 Q0 A 2 7.499999 mneme-gate\nq1 Q0 C 3 7.499998 mneme-gate\nq1 Q0 D 4 3.000000 mneme-gate\n"
        );
        assert_eq!(qrels(&r).unwrap(), "q1 0 A 1\nq1 0 Z 1\n");
    }

    #[test]
    fn whitespace_in_ids_is_refused_by_name() {
        let mut r = bundled();
        r.scenarios[0].id = "has space".into();
        assert!(run(&r).unwrap_err().contains("scenario id `has space` contains whitespace"));
        assert!(qrels(&r).is_err());
    }

    #[test]
    fn ungoverned_scenarios_have_no_qrels() {
        let r = bundled();
        let qrels = qrels(&r).unwrap();
        let governed: std::collections::BTreeSet<&str> = qrels.lines().map(|l| l.split(' ').next().unwrap()).collect();
        assert_eq!(governed.len(), r.summary.governed);
        assert_eq!(run(&r).unwrap().lines().count(), r.scenarios.iter().map(|s| s.retrieved.len()).sum::<usize>());
    }
}
