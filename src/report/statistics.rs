//! The words of a comparison's statistics (docs/metrics.md, "Comparisons
//! with statistics"), shared by the terminal and Markdown writers so both
//! say the same thing.

use super::comparison::{ComparisonStatistics, FigureStatistics, PassRateInterval};
use super::figures;

/// A p-value with three decimals, `< 0.001` below that, and whether every
/// sign assignment was counted.
pub(crate) fn p_value(p: f64, exact: bool) -> String {
    let shown = if p < 0.001 { "< 0.001".to_string() } else { format!("{p:.3}") };
    if exact {
        format!("{shown} (exact)")
    } else {
        shown
    }
}

/// `[-0.050, +0.150]`, or `—` without an interval.
pub(crate) fn interval(f: &FigureStatistics) -> String {
    match (f.ci_low, f.ci_high) {
        (Some(lo), Some(hi)) => format!("[{}, {}]", figures::delta(lo), figures::delta(hi)),
        _ => "—".into(),
    }
}

/// The figure's mean change, signed, or `—`.
pub(crate) fn mean_change(f: &FigureStatistics) -> String {
    f.mean_change.map_or("—".into(), figures::delta)
}

/// What a reader should make of the figure: larger than the noise, too
/// small to tell from it, or unchanged.
pub(crate) fn reading(f: &FigureStatistics) -> &'static str {
    if f.significant {
        "larger than the noise"
    } else if f.too_small {
        "too small to tell from noise"
    } else {
        "unchanged"
    }
}

/// How much one scenario weighs and the smallest change the suite can call
/// significant.
pub(crate) fn detectable(s: &ComparisonStatistics) -> String {
    let Some(step) = s.one_scenario_step else {
        return "No scenario is governed in both runs: the retrieval figures have no pairs to compare.".into();
    };
    let one = format!(
        "One scenario moves a mean by {} ({} governed in both runs)",
        figures::rate(step, None),
        plural(s.governed, "scenario")
    );
    match s.minimum_detectable {
        Some(m) => format!(
            "{one}; the smallest change this suite can call significant at 5% is {} (6 scenarios moving a full \
             step the same way).",
            figures::rate(m, None)
        ),
        None => format!("{one}: no change can be significant at 5% under 6 scenarios."),
    }
}

/// The verdicts that moved into or out of PASS, when some did.
pub(crate) fn verdicts(s: &ComparisonStatistics) -> Option<String> {
    let v = &s.verdicts;
    (v.lost_pass > 0 || v.gained_pass > 0).then(|| {
        format!(
            "Verdicts: {} gained PASS, {} lost it; McNemar's exact test p = {}.",
            plural(v.gained_pass, "scenario"),
            v.lost_pass,
            p_value(v.p_value, true).trim_end_matches(" (exact)")
        )
    })
}

/// Both pass rates with their 95 % Wilson intervals, when Layer 2 judged
/// something.
pub(crate) fn pass_rates(s: &ComparisonStatistics) -> Option<String> {
    let side = |name: &str, r: &Option<PassRateInterval>| {
        r.as_ref().map(|r| {
            format!(
                "{name} {} [{}, {}] ({} of {}{})",
                figures::rate(r.rate, None),
                figures::rate(r.low, None),
                figures::rate(r.high, None),
                r.passed,
                r.judged,
                if r.trials { " trials" } else { "" }
            )
        })
    };
    let parts: Vec<String> = [side("baseline", &s.baseline_pass_rate), side("current", &s.current_pass_rate)]
        .into_iter()
        .flatten()
        .collect();
    (!parts.is_empty()).then(|| format!("Pass rate with its 95% Wilson interval: {}.", parts.join("; ")))
}

/// The warning for the figures that changed by less than the suite can
/// tell from noise, when some did: each with its change, interval and
/// p-value, and about how many scenarios would detect the largest-needed.
pub(crate) fn warning(s: &ComparisonStatistics) -> Option<String> {
    let small: Vec<&FigureStatistics> = s.figures.iter().filter(|f| f.too_small).collect();
    if small.is_empty() {
        return None;
    }
    let each: Vec<String> = small
        .iter()
        .map(|f| format!("{} {} (95% CI {}, p = {})", f.name, mean_change(f), interval(f), p_value(f.p_value, false)))
        .collect();
    let needed = small
        .iter()
        .filter_map(|f| f.scenarios_needed)
        .max()
        .map_or(String::new(), |n| format!("; about {} would detect changes this size", plural(n, "scenario")));
    Some(format!(
        "the suite is too small to tell {} from noise: {}{needed}.",
        if small.len() == 1 { "this change" } else { "these changes" },
        each.join("; ")
    ))
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
