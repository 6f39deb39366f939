/*!
How a figure is written for a reader, so that rounding never hides a
failure.

A pass rate of 8789 PASS out of 8790 is 0.99989: at three decimals it reads
`1.000`, the passing threshold, and a reviewer skimming the report sees a
pass. Every rounded figure of the terminal report, JUnit and the
annotations goes through [`rate`], [`ratio`] or [`delta`], which keep three
decimals unless they would print a value equal to a *landmark* (the
threshold the figure is judged against, 1 and 0) that the exact figure is
not: then they add decimals, up to [`MAX_DECIMALS`], and past that round
away from the landmark (`0.999999` for 0.9999999) or, for a ratio of counts,
show the fraction (`8789/8790`).

Negative zero is never written: `-0.000` for a figure that rounds to zero
from below, or `-0` for a negative zero read from a hand-edited baseline,
would read as a movement where there is none. Figures that are only ever
printed in full (the JSON documents) keep full precision but lose the sign
of zero too ([`to_json_pretty`]).

This module only formats; what a threshold is belongs to the gate.
*/

use std::io;

use serde_json::ser::{Formatter, PrettyFormatter};

/// The decimals of a figure when nothing is hidden by them.
pub(crate) const DECIMALS: usize = 3;

/// The most decimals [`rate`] adds before it rounds away from the landmark.
pub(crate) const MAX_DECIMALS: usize = 6;

/// A figure between 0 and 1 (a rate, a mean, a recall) with three decimals,
/// or as many more (up to [`MAX_DECIMALS`]) as it takes not to look equal to
/// `threshold`, 1 or 0 when it is not. `rate(0.99989, Some(1.0))` is
/// `0.9999`; `rate(0.5, None)` is `0.500`.
pub(crate) fn rate(x: f64, threshold: Option<f64>) -> String {
    shown(x, &landmarks(threshold), false).unwrap_or_else(|| away(x, &landmarks(threshold), false))
}

/// `num / den` like [`rate`], but past [`MAX_DECIMALS`] the fraction itself
/// (`8789/8790`): exact, whatever the counts. A ratio over nothing is `0/0`.
pub(crate) fn ratio(num: usize, den: usize, threshold: Option<f64>) -> String {
    if den == 0 {
        return "0/0".into();
    }
    let x = num as f64 / den as f64;
    shown(x, &landmarks(threshold), false).unwrap_or_else(|| format!("{num}/{den}"))
}

/// A signed change with three decimals (`+0.047`, `-0.500`), more when a
/// change that is not zero would otherwise print as `+0.000` or `-0.000`;
/// `+0.000` only for no change at all.
pub(crate) fn delta(d: f64) -> String {
    shown(d, &[0.0], true).unwrap_or_else(|| away(d, &[0.0], true))
}

/// A number as written in full (a tolerance, a JUnit property): the
/// shortest decimal that reads back as the same `f64`, never `-0`.
pub(crate) fn exact(x: f64) -> String {
    positive_zero(x).to_string()
}

/// `-0.0` as `0.0`, anything else unchanged.
pub(crate) fn positive_zero(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x
    }
}

fn landmarks(threshold: Option<f64>) -> Vec<f64> {
    let mut out: Vec<f64> = threshold.into_iter().filter(|t| t.is_finite()).collect();
    for l in [1.0, 0.0] {
        if !out.contains(&l) {
            out.push(l);
        }
    }
    out
}

/// `x` at `decimals` decimals (with a sign when `signed`), never as a
/// negative zero: `-0.0001` at three decimals is `0.000`.
pub(crate) fn fixed(x: f64, decimals: usize, signed: bool) -> String {
    let x = positive_zero(x);
    let s = if signed { format!("{x:+.decimals$}") } else { format!("{x:.decimals$}") };
    // `-0.000`: a negative figure that rounds to zero. Callers only keep it
    // when the landmark test below allows, which it never does for zero;
    // written as zero in any case.
    match s.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => {
            if signed {
                format!("+{rest}")
            } else {
                rest.to_string()
            }
        }
        _ => s,
    }
}

/// The figure at the fewest decimals (from [`DECIMALS`] to
/// [`MAX_DECIMALS`]) at which it does not print like a landmark it is not.
fn shown(x: f64, landmarks: &[f64], signed: bool) -> Option<String> {
    if !x.is_finite() {
        return Some(x.to_string());
    }
    (DECIMALS..=MAX_DECIMALS).find_map(|d| {
        let s = fixed(x, d, signed);
        let hides = landmarks.iter().any(|&l| l != x && fixed(l, d, signed) == s);
        (!hides).then_some(s)
    })
}

/// [`MAX_DECIMALS`] decimals rounded away from the landmark the figure is
/// closest to, so the figure shows on the side of it where it is; the full
/// figure if even that prints like the landmark.
fn away(x: f64, landmarks: &[f64], signed: bool) -> String {
    let scale = 10f64.powi(MAX_DECIMALS as i32);
    let nearest = landmarks.iter().copied().min_by(|a, b| (a - x).abs().total_cmp(&(b - x).abs())).unwrap_or(0.0);
    let moved = if x < nearest { (x * scale).floor() / scale } else { (x * scale).ceil() / scale };
    let s = fixed(moved, MAX_DECIMALS, signed);
    if landmarks.iter().any(|&l| l != x && fixed(l, MAX_DECIMALS, signed) == s) {
        let full = exact(x);
        if signed && x > 0.0 {
            format!("+{full}")
        } else {
            full
        }
    } else {
        s
    }
}

/// Pretty JSON with a final newline, floats at full precision and negative
/// zero written as `0.0` (a baseline edited by hand can hold `-0.0`, and a
/// report must not echo it as a movement).
pub(crate) fn to_json_pretty<T: serde::Serialize + ?Sized>(doc: &T) -> serde_json::Result<String> {
    let mut bytes = Vec::with_capacity(4096);
    let mut ser = serde_json::Serializer::with_formatter(&mut bytes, NoNegativeZero(PrettyFormatter::new()));
    doc.serialize(&mut ser)?;
    bytes.push(b'\n');
    Ok(String::from_utf8(bytes).expect("serde_json writes UTF-8"))
}

/// A JSON formatter that writes `-0.0` as `0.0` and otherwise is the one it
/// wraps (every method the pretty formatter overrides is passed on).
struct NoNegativeZero<F>(F);

impl<F: Formatter> Formatter for NoNegativeZero<F> {
    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        self.0.write_f64(w, positive_zero(value))
    }
    fn write_f32<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f32) -> io::Result<()> {
        self.0.write_f32(w, if value == 0.0 { 0.0 } else { value })
    }
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn three_decimals_unless_they_hide_something() {
        assert_eq!(rate(0.5, None), "0.500");
        assert_eq!(rate(1.0 / 3.0, None), "0.333");
        assert_eq!(rate(1.0, Some(1.0)), "1.000");
        assert_eq!(rate(0.0, None), "0.000");
        assert_eq!(rate(8789.0 / 8790.0, Some(1.0)), "0.9999");
        assert_eq!(rate(0.9999999, None), "0.999999");
        assert_eq!(rate(1e-9, None), "0.000001");
        assert_eq!(rate(0.9496, Some(0.95)), "0.9496");
        assert_eq!(rate(0.951, Some(0.95)), "0.951");
        assert_eq!(ratio(8789, 8790, Some(1.0)), "0.9999");
        assert_eq!(ratio(9_999_999, 10_000_000, Some(1.0)), "9999999/10000000");
        assert_eq!(ratio(6, 7, Some(1.0)), "0.857");
        assert_eq!(ratio(2, 2, Some(1.0)), "1.000");
        assert_eq!(ratio(0, 0, Some(1.0)), "0/0");
    }

    #[test]
    fn deltas_are_signed_and_zero_only_when_nothing_moved() {
        assert_eq!(delta(0.047), "+0.047");
        assert_eq!(delta(-0.5), "-0.500");
        assert_eq!(delta(0.0), "+0.000");
        assert_eq!(delta(-0.0), "+0.000");
        assert_eq!(delta(-0.0001), "-0.0001");
        assert_eq!(delta(1e-12), "+0.000001");
        assert_eq!(delta(-1e-12), "-0.000001");
        assert_eq!(exact(-0.0), "0");
        assert_eq!(exact(0.01), "0.01");
    }

    #[test]
    fn json_never_holds_negative_zero() {
        let text = to_json_pretty(&serde_json::json!({"a": -0.0, "b": [-0.0, 0.5, -1.25], "c": {"d": 0.0}})).unwrap();
        assert!(!text.contains("-0"), "{text}");
        assert_eq!(
            text,
            format!(
                "{}\n",
                serde_json::to_string_pretty(&serde_json::json!({"a": 0.0, "b": [0.0, 0.5, -1.25], "c": {"d": 0.0}}))
                    .unwrap()
            )
        );
    }

    /// A string that reads as a zero with a minus sign.
    fn negative_zero(s: &str) -> bool {
        s.starts_with('-') && s[1..].bytes().all(|b| b == b'0' || b == b'.')
    }

    fn value() -> impl Strategy<Value = f64> {
        prop_oneof![
            Just(-0.0),
            Just(0.0),
            Just(1.0),
            -2.0..2.0f64,
            (0u32..1_000_000, 1u32..1_000_000).prop_map(|(a, b)| f64::from(a.min(b)) / f64::from(b)),
            (-1e-6..1e-6f64),
            (1.0 - 1e-6..1.0f64),
        ]
    }

    proptest! {
        #[test]
        fn no_figure_looks_like_a_landmark_it_is_not(x in value(), t in prop::option::of(0.0..=1.0f64)) {
            let s = rate(x, t);
            prop_assert!(!negative_zero(&s), "{x}: {s}");
            for l in landmarks(t) {
                if x != l {
                    prop_assert!(s != fixed(l, DECIMALS, false) && s.parse::<f64>().ok() != Some(l), "{x} vs {l}: {s}");
                }
            }
            let d = delta(x);
            prop_assert!(!negative_zero(&d) && !negative_zero(&d[1..]), "{x}: {d}");
            if x != 0.0 {
                prop_assert!(d.parse::<f64>().unwrap() != 0.0, "{x}: {d}");
                prop_assert_eq!(d.starts_with('-'), x < 0.0, "{} {}", x, d);
            }
            prop_assert!(!exact(x).starts_with("-0") || x < 0.0);
            let json = to_json_pretty(&[x]).unwrap();
            prop_assert!(!json.contains("-0\n") && !json.contains("-0.0\n"), "{json}");
        }

        #[test]
        fn a_ratio_is_never_shown_as_a_threshold_it_misses(den in 1usize..20_000_000, missed in 0usize..3) {
            let num = den.saturating_sub(missed);
            let s = ratio(num, den, Some(1.0));
            if num < den {
                prop_assert!(s != "1.000" && !s.starts_with("1.0"), "{num}/{den}: {s}");
            } else {
                prop_assert_eq!(s, "1.000");
            }
        }
    }
}
