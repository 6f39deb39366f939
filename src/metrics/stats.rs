//! Statistics of a paired comparison: is a difference between two runs of
//! the same suite larger than the noise of a suite of that size?
//!
//! The keyword retriever is deterministic, so a change measured on the same
//! scenarios is exact; what these figures answer is whether it would
//! generalise to other scenarios like them (docs/metrics.md, "Comparisons
//! with statistics"). Everything here is a pure function of its inputs and a
//! seed:
//!
//! - [`permutation_test`]: the paired randomization (sign-flip) test of the
//!   mean change, two-sided; exact enumeration of every sign assignment when
//!   at most [`EXACT_MAX`] scenarios changed, otherwise [`RESAMPLES`] seeded
//!   random assignments and the p-value `(count + 1) / (resamples + 1)`.
//! - [`bootstrap_interval`]: the 95 % paired-bootstrap percentile interval of
//!   the mean change ([`RESAMPLES`] seeded resamples, percentiles by linear
//!   interpolation between order statistics, as NumPy's default).
//! - [`mcnemar_exact`]: McNemar's exact test (a two-sided binomial test of the
//!   discordant pairs at one half).
//! - [`wilson`]: the Wilson score interval of a proportion.
//!
//! # Determinism
//!
//! Only IEEE 754 additions, subtractions, multiplications, divisions and
//! square roots are used (each correctly rounded, so identical on every
//! platform), summed in a fixed order; no `exp`, `ln` or `pow` from the
//! platform's maths library. The random numbers come from SplitMix64
//! ([`SplitMix64`]), implemented here in a few lines (and again in
//! `tests/reference/stats_check.py`, which checks that both draw the same
//! resamples).

/// The seed of every resampling figure of a report.
pub const SEED: u64 = 29;

/// Random sign assignments or bootstrap resamples per figure.
pub const RESAMPLES: usize = 10_000;

/// At most this many non-zero differences: the permutation test enumerates
/// all `2^n` sign assignments (65,536 at most) instead of sampling them.
pub const EXACT_MAX: usize = 16;

/// The significance level every verdict of this module uses.
pub const ALPHA: f64 = 0.05;

/// `Φ⁻¹(0.975)`, the normal quantile of a two-sided 95 % interval (as
/// `scipy.stats.norm.isf(0.025)` gives it).
pub const Z_975: f64 = 1.959963984540054;

/// `Φ⁻¹(0.8)`: 80 % power, for [`scenarios_needed`].
pub const Z_80: f64 = 0.8416212335729143;

/// The fewest scenarios that must all move the same way by the same amount
/// for the two-sided sign-flip test to reach `p < 0.05`: with `m` of them,
/// the exact p-value is `2 / 2^m`, 0.0625 for 5 and 0.03125 for 6.
pub const FEWEST_SIGNIFICANT: usize = 6;

/// Differences at most this far from zero are ties: figures are exact
/// fractions, and the comparison treats a difference below 1e-12 as
/// floating-point noise too.
const TIE: f64 = 1e-12;

/// SplitMix64 (Steele, Lea and Flood 2014), the generator of every resample.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n > 0`), without modulo bias: draws
    /// below `2^64 mod n` are rejected.
    pub fn below(&mut self, n: u64) -> u64 {
        let n = n.max(1);
        let threshold = n.wrapping_neg() % n;
        loop {
            let x = self.next_u64();
            if x >= threshold {
                return x % n;
            }
        }
    }
}

/// Per-scenario outcomes of a paired figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WinLossTie {
    pub wins: usize,
    pub losses: usize,
    pub ties: usize,
}

/// Counts the differences above, below and within [`TIE`] of zero; like
/// every function here, it leaves out a difference that is not finite (only
/// a hand-edited report, with figures beyond ±8.9e307, can give one).
pub fn win_loss_tie(differences: &[f64]) -> WinLossTie {
    let mut out = WinLossTie::default();
    for d in differences.iter().filter(|d| d.is_finite()) {
        if *d > TIE {
            out.wins = out.wins.saturating_add(1);
        } else if *d < -TIE {
            out.losses = out.losses.saturating_add(1);
        } else {
            out.ties = out.ties.saturating_add(1);
        }
    }
    out
}

/// The finite `values`, and the power of two they were divided by so that
/// no sum of them can overflow (1 for every figure mneme-gate writes, which
/// lie between −1 and 1; a hand-edited report could hold `1e308`), and no
/// sum of their squares either. Dividing
/// by a power of two is exact, and every statistic here is either invariant
/// under it (p-values, the planning figure) or multiplied back (means).
fn scaled(values: &[f64]) -> (Vec<f64>, f64) {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    let n = v.len().max(1) as f64;
    let mut largest = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let mut factor = 1.0;
    while largest * n > pow2(500) {
        for x in &mut v {
            *x *= pow2(-64);
        }
        largest *= pow2(-64);
        factor *= pow2(64);
    }
    (v, factor)
}

/// The mean of the finite `values`, summed in their order; `None` for no
/// value.
pub fn mean(values: &[f64]) -> Option<f64> {
    let (v, factor) = scaled(values);
    if v.is_empty() {
        return None;
    }
    Some(v.iter().fold(0.0, |s, x| s + x) / v.len() as f64 * factor)
}

/// The result of [`permutation_test`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Permutation {
    /// Two-sided p-value.
    pub p_value: f64,
    /// Every sign assignment was enumerated (the p-value is exact).
    pub exact: bool,
    /// Sign assignments counted: `2^n` when exact, else [`RESAMPLES`].
    pub assignments: u64,
}

/// The paired randomization test of `H0: the mean change is 0`, two-sided.
///
/// Under `H0` each scenario's difference is as likely to have had the other
/// sign; the p-value is the share of sign assignments whose summed change is
/// at least as far from zero as the observed one (a tolerance of `1e-9`
/// times the summed magnitudes absorbs rounding, so equal sums count as
/// equal). Ties (zero differences) change no sum and are left out. With at
/// most [`EXACT_MAX`] non-zero differences every assignment is enumerated
/// (this equals `scipy.stats.permutation_test(..., permutation_type='samples')`
/// with exact enumeration, to rounding); otherwise `resamples` assignments
/// are drawn from `seed`, one bit per scenario in scenario order, from 64-bit
/// words drawn in turn, and the p-value is `(count + 1) / (resamples + 1)`.
pub fn permutation_test(differences: &[f64], seed: u64, resamples: usize) -> Permutation {
    let (d, factor) = scaled(differences);
    let d: Vec<f64> = d.into_iter().filter(|x| x.abs() * factor > TIE).collect();
    if d.is_empty() {
        return Permutation { p_value: 1.0, exact: true, assignments: 1 };
    }
    let observed = d.iter().fold(0.0, |s, v| s + v).abs();
    let magnitude = d.iter().fold(0.0, |s, v| s + v.abs());
    let bar = observed - 1e-9 * magnitude;
    let signed_sum = |negate: &dyn Fn(usize) -> bool| {
        d.iter().enumerate().fold(0.0, |s, (i, v)| if negate(i) { s - v } else { s + v })
    };
    if d.len() <= EXACT_MAX {
        let total: u64 = 1 << d.len();
        let mut count: u64 = 0;
        for mask in 0..total {
            if signed_sum(&|i| mask >> i & 1 == 1).abs() >= bar {
                count += 1;
            }
        }
        return Permutation { p_value: count as f64 / total as f64, exact: true, assignments: total };
    }
    let mut rng = SplitMix64::new(seed);
    let mut count: u64 = 0;
    let mut words = vec![0u64; d.len().div_ceil(64)];
    for _ in 0..resamples {
        for w in &mut words {
            *w = rng.next_u64();
        }
        if signed_sum(&|i| words[i / 64] >> (i % 64) & 1 == 1).abs() >= bar {
            count += 1;
        }
    }
    let resamples = resamples as u64;
    Permutation { p_value: (count as f64 + 1.0) / (resamples as f64 + 1.0), exact: false, assignments: resamples }
}

/// The 95 % paired-bootstrap percentile interval of the mean of
/// `differences` (every scenario, ties included): `resamples` resamples of
/// `n` scenarios drawn with replacement from `seed` ([`SplitMix64::below`],
/// scenario by scenario), each resample's mean summed in draw order, sorted,
/// and the 2.5th and 97.5th percentiles interpolated linearly between order
/// statistics (NumPy's default method). `None` without a difference or a
/// resample.
pub fn bootstrap_interval(differences: &[f64], seed: u64, resamples: usize) -> Option<(f64, f64)> {
    let (differences, factor) = scaled(differences);
    let n = differences.len();
    if n == 0 || resamples == 0 {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let mut means = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let mut s = 0.0;
        for _ in 0..n {
            // `below(n)` is less than n, which is a usize.
            s += differences[rng.below(n as u64) as usize];
        }
        means.push(s / n as f64);
    }
    means.sort_by(f64::total_cmp);
    Some((percentile(&means, 0.025) * factor, percentile(&means, 0.975) * factor))
}

/// The `q` quantile of sorted `values` (not empty) by linear interpolation
/// between order statistics (NumPy's `method='linear'`).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    let last = sorted.len().saturating_sub(1);
    let h = last as f64 * q;
    let lo = (h.floor() as usize).min(last);
    let hi = (lo + 1).min(last);
    let frac = h - lo as f64;
    let (a, b) = (sorted[lo], sorted[hi]);
    if frac == 0.0 {
        a
    } else {
        a + frac * (b - a)
    }
}

/// McNemar's exact test: `worse` scenarios went from passing to not passing,
/// `better` the other way. The two-sided p-value of the binomial test of
/// `min(worse, better)` successes in `worse + better` trials at one half
/// (`scipy.stats.binomtest(...).pvalue`), 1 when there is no discordant pair.
pub fn mcnemar_exact(worse: usize, better: usize) -> f64 {
    let n = worse.saturating_add(better);
    let m = worse.min(better);
    if n == 0 || m.saturating_mul(2) >= n {
        return 1.0;
    }
    (2.0 * binomial_cdf_half(m, n)).min(1.0)
}

/// `P(X ≤ m)` for `X ~ Binomial(n, 1/2)`, as `Σ C(n, i) / 2^n`, with the
/// running sum rescaled by exact powers of two so nothing overflows or
/// underflows before the end (each term is `C(n, i−1) · (n − i + 1) / i`).
pub fn binomial_cdf_half(m: usize, n: usize) -> f64 {
    const CHUNK: i64 = 600;
    let scale_down = pow2(-CHUNK);
    let m = m.min(n);
    let (mut term, mut sum, mut exponent) = (1.0f64, 1.0f64, 0i64);
    for i in 1..=m {
        term = term * (n - i + 1) as f64 / i as f64;
        sum += term;
        if term > pow2(CHUNK) {
            term *= scale_down;
            sum *= scale_down;
            exponent += CHUNK;
        }
    }
    let mut k = exponent - i64::try_from(n).unwrap_or(i64::MAX);
    let mut value = sum;
    while k < -CHUNK {
        value *= scale_down;
        k += CHUNK;
        if value == 0.0 {
            return 0.0;
        }
    }
    (value * pow2(k)).min(1.0)
}

/// `2^e` exactly, for `e` in `-1022..=1023`.
fn pow2(e: i64) -> f64 {
    let e = e.clamp(-1022, 1023);
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The Wilson score interval of `successes` out of `trials` at 95 %, in
/// the order of operations of statsmodels' `proportion_confint(method=
/// 'wilson')`; `None` when `trials` is 0.
pub fn wilson(successes: usize, trials: usize) -> Option<(f64, f64)> {
    if trials == 0 {
        return None;
    }
    let n = trials as f64;
    let q = successes.min(trials) as f64 / n;
    let crit2 = Z_975 * Z_975;
    let denom = 1.0 + crit2 / n;
    let center = (q + crit2 / (2.0 * n)) / denom;
    let dist = Z_975 * (q * (1.0 - q) / n + crit2 / (4.0 * (n * n))).sqrt() / denom;
    Some(((center - dist).max(0.0), (center + dist).min(1.0)))
}

/// The smallest mean change the suite could call significant when every
/// changed scenario moves by a full step (a recall from 0 to 1):
/// [`FEWEST_SIGNIFICANT`] scenarios out of `n`; `None` when the suite has
/// fewer scenarios than that (no change of its can be significant).
pub fn minimum_detectable(n: usize) -> Option<f64> {
    (n >= FEWEST_SIGNIFICANT).then(|| FEWEST_SIGNIFICANT as f64 / n as f64)
}

/// About how many scenarios a suite would need for a two-sided test at
/// [`ALPHA`] to detect the observed mean change with 80 % power, from the
/// differences' sample standard deviation (the normal approximation
/// `((z₀.₉₇₅ + z₀.₈) · sd / |mean|)²`, rounded up): a planning figure, not a
/// test. `None` with fewer than two differences, no change or no spread.
pub fn scenarios_needed(differences: &[f64]) -> Option<usize> {
    let (differences, factor) = scaled(differences);
    let n = differences.len();
    if n < 2 {
        return None;
    }
    let m = mean(&differences)?;
    if m.abs() * factor <= TIE {
        return None;
    }
    let ss = differences.iter().fold(0.0, |s, d| s + (d - m) * (d - m));
    let sd = (ss / (n - 1) as f64).sqrt();
    if sd * factor <= TIE {
        return None;
    }
    let root = (Z_975 + Z_80) * sd / m.abs();
    let needed = (root * root).ceil();
    // `as` saturates; the value is positive and finite here.
    Some(needed as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_published_reference_sequence() {
        // The first outputs for seed 1234567 (Vigna's splitmix64.c).
        let mut r = SplitMix64::new(1234567);
        let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(got, [6457827717110365317, 3203168211198807973, 9817491932198370423]);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = SplitMix64::new(7);
        let mut seen = [0usize; 5];
        for _ in 0..1000 {
            seen[r.below(5) as usize] += 1;
        }
        assert!(seen.iter().all(|c| *c > 150), "{seen:?}");
        assert_eq!(SplitMix64::new(3).below(1), 0);
        assert_eq!(SplitMix64::new(3).below(0), 0);
    }

    #[test]
    fn win_loss_tie_treats_rounding_as_a_tie() {
        let w = win_loss_tie(&[1.0, -0.5, 0.0, 1e-15, -1e-13, 0.2]);
        assert_eq!(w, WinLossTie { wins: 2, losses: 1, ties: 3 });
    }

    #[test]
    fn permutation_test_by_hand() {
        // Six equal wins: 2 of 64 assignments are as extreme.
        let p = permutation_test(&[1.0; 6], SEED, RESAMPLES);
        assert_eq!(p, Permutation { p_value: 2.0 / 64.0, exact: true, assignments: 64 });
        // Five: 2/32, not significant.
        assert_eq!(permutation_test(&[1.0; 5], SEED, RESAMPLES).p_value, 0.0625);
        // Ties are left out; nothing changed gives 1.
        assert_eq!(permutation_test(&[1.0, 0.0, 0.0, 1.0], SEED, RESAMPLES).p_value, 0.5);
        assert_eq!(permutation_test(&[0.0, 0.0], SEED, RESAMPLES).p_value, 1.0);
        assert_eq!(permutation_test(&[], SEED, RESAMPLES).p_value, 1.0);
        // [1, -1]: every assignment sums to 0 or ±2; observed 0 → p = 1.
        assert_eq!(permutation_test(&[1.0, -1.0], SEED, RESAMPLES).p_value, 1.0);
        // [1/3, 2/3, -1/3]: sums 2/3 observed; assignments with |sum| ≥ 2/3:
        // (+,+,-)=2/3, (-,-,+)=-2/3, (+,+,+)=4/3, (-,-,-)=-4/3, (-,+,+)=2/3? no: -1/3+2/3+1/3=2/3 yes,
        // (+,-,-)=-2/3 yes; (+,-,+)=0, (-,+,-)=0 → 6 of 8.
        assert_eq!(permutation_test(&[1.0 / 3.0, 2.0 / 3.0, -1.0 / 3.0], SEED, RESAMPLES).p_value, 0.75);
    }

    #[test]
    fn sampled_permutation_test_is_seeded_and_close_to_the_exact_one() {
        // 20 wins and 4 losses of a full step: exact p = 2·P(Binom(24, ½) ≤ 4).
        let mut d = vec![1.0; 20];
        d.extend([-1.0; 4]);
        let exact = 2.0 * binomial_cdf_half(4, 24);
        let a = permutation_test(&d, SEED, RESAMPLES);
        assert!(!a.exact);
        assert_eq!(a, permutation_test(&d, SEED, RESAMPLES));
        assert!((a.p_value - exact).abs() < 0.001 + 1.0 / 10_001.0, "{} vs {exact}", a.p_value);
        assert_ne!(a.p_value, permutation_test(&d, SEED + 1, 2000).p_value);
    }

    #[test]
    fn bootstrap_interval_contains_the_mean_and_is_degenerate_without_spread() {
        assert_eq!(bootstrap_interval(&[0.5; 10], SEED, 1000), Some((0.5, 0.5)));
        assert_eq!(bootstrap_interval(&[], SEED, 1000), None);
        let d = [1.0, 0.0, 0.0, 1.0, -1.0, 0.5, 0.0, 1.0];
        let (lo, hi) = bootstrap_interval(&d, SEED, RESAMPLES).unwrap();
        let m = mean(&d).unwrap();
        assert!(lo < m && m < hi && lo >= -1.0 && hi <= 1.0, "{lo} {m} {hi}");
        assert_eq!(Some((lo, hi)), bootstrap_interval(&d, SEED, RESAMPLES));
    }

    #[test]
    fn huge_or_non_finite_differences_from_a_hand_edited_report_give_sound_figures() {
        // Sums of these overflow f64; the figures are those of the same changes scaled down.
        let huge = [1e308, 1e308, -1e308, 1e308, 1e308, 1e308, 1e308];
        let small: Vec<f64> = huge.iter().map(|x| x / 1e308).collect();
        let (p, q) = (permutation_test(&huge, SEED, RESAMPLES), permutation_test(&small, SEED, RESAMPLES));
        assert_eq!(p, q);
        assert!(p.p_value > 0.0 && p.p_value < 1.0, "{p:?}");
        let m = mean(&huge).unwrap();
        assert!(m.is_finite() && (m / 1e308 - 5.0 / 7.0).abs() < 1e-12, "{m}");
        let (lo, hi) = bootstrap_interval(&huge, SEED, 1000).unwrap();
        assert!(lo.is_finite() && hi.is_finite() && lo <= m && m <= hi, "{lo} {hi}");
        assert_eq!(scenarios_needed(&huge), scenarios_needed(&small));
        // Not-a-number and infinities are left out.
        let odd = [f64::NAN, f64::INFINITY, 1.0, 1.0];
        assert_eq!(mean(&odd), Some(1.0));
        assert_eq!(permutation_test(&odd, SEED, RESAMPLES).assignments, 4);
        assert_eq!(mean(&[f64::NAN]), None);
        assert_eq!(win_loss_tie(&odd), WinLossTie { wins: 2, losses: 0, ties: 0 });
    }

    #[test]
    fn percentile_interpolates_as_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&v, 1.0), 4.0);
        assert_eq!(percentile(&v, 0.5), 2.5);
        assert!((percentile(&v, 0.025) - 1.075).abs() < 1e-15);
        assert_eq!(percentile(&[7.0], 0.975), 7.0);
    }

    #[test]
    fn binomial_by_hand_and_at_scale() {
        assert_eq!(binomial_cdf_half(0, 1), 0.5);
        assert_eq!(binomial_cdf_half(0, 10), 1.0 / 1024.0);
        assert_eq!(binomial_cdf_half(2, 4), 11.0 / 16.0);
        assert_eq!(binomial_cdf_half(10, 10), 1.0);
        // Far beyond 2^-1074 per term, the rescaling keeps the sum.
        let half = binomial_cdf_half(1000, 2000);
        assert!((half - 0.508_919_505_572_927_2).abs() < 1e-12, "{half}");
        assert_eq!(binomial_cdf_half(0, 5000), 0.0);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        assert_eq!(mcnemar_exact(0, 6), 2.0 / 64.0);
        assert_eq!(mcnemar_exact(6, 0), 2.0 / 64.0);
        assert_eq!(mcnemar_exact(1, 4), 2.0 * 6.0 / 32.0);
        assert_eq!(mcnemar_exact(usize::MAX, usize::MAX), 1.0);
    }

    #[test]
    fn wilson_by_hand() {
        assert_eq!(wilson(0, 0), None);
        let (lo, hi) = wilson(5, 10).unwrap();
        assert!((lo - 0.236_593_090_512_564).abs() < 1e-12 && (hi - 0.763_406_909_487_436).abs() < 1e-12);
        let (lo, hi) = wilson(10, 10).unwrap();
        assert!((hi - 1.0).abs() < 1e-15 && (lo - 0.722_467_200_137_110_7).abs() < 1e-15, "{lo}");
        assert!(wilson(0, 3).unwrap().0.abs() < 1e-15);
    }

    #[test]
    fn detectable_and_needed() {
        assert_eq!(minimum_detectable(5), None);
        assert_eq!(minimum_detectable(6), Some(1.0));
        assert_eq!(minimum_detectable(60), Some(0.1));
        assert_eq!(scenarios_needed(&[0.0, 0.0]), None);
        assert_eq!(scenarios_needed(&[1.0]), None);
        assert_eq!(scenarios_needed(&[1.0, 1.0]), None);
        // mean 0.1, sd ≈ 0.3162: (2.8016 · 3.162)² ≈ 78.5 → 79.
        let mut d = vec![0.0; 9];
        d.push(1.0);
        assert_eq!(scenarios_needed(&d), Some(79));
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        fn changes() -> impl Strategy<Value = Vec<f64>> {
            // Per-scenario changes as the figures give them: differences of fractions in [0, 1].
            prop::collection::vec((0u32..=6, 1u32..=6, 0u32..=6, 1u32..=6), 0..40).prop_map(|v| {
                v.into_iter().map(|(a, e, b, f)| (a.min(e) as f64 / e as f64) - (b.min(f) as f64 / f as f64)).collect()
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

            #[test]
            fn p_values_are_probabilities_and_do_not_care_for_the_direction(d in changes()) {
                let p = permutation_test(&d, SEED, 500);
                prop_assert!(p.p_value > 0.0 && p.p_value <= 1.0);
                let flipped: Vec<f64> = d.iter().map(|x| -x).collect();
                prop_assert_eq!(p, permutation_test(&flipped, SEED, 500));
                let w = win_loss_tie(&d);
                prop_assert_eq!(w.wins + w.losses + w.ties, d.len());
                if p.exact && w.wins + w.losses > 0 {
                    // At least the observed assignment and its mirror image count.
                    prop_assert!(p.p_value >= 2.0 / p.assignments as f64);
                }
            }

            #[test]
            fn the_bootstrap_interval_lies_within_the_changes(d in changes()) {
                match bootstrap_interval(&d, SEED, 300) {
                    None => prop_assert!(d.is_empty()),
                    Some((lo, hi)) => {
                        let min = d.iter().copied().fold(f64::INFINITY, f64::min);
                        let max = d.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                        prop_assert!(min - 1e-12 <= lo && lo <= hi && hi <= max + 1e-12, "{} {} {} {}", min, lo, hi, max);
                    }
                }
            }

            #[test]
            fn mcnemar_is_symmetric_and_a_probability(b in 0usize..3000, c in 0usize..3000) {
                let p = mcnemar_exact(b, c);
                prop_assert!(p > 0.0 && p <= 1.0 || (p == 0.0 && b.abs_diff(c) > 1000));
                prop_assert_eq!(p, mcnemar_exact(c, b));
            }

            #[test]
            fn wilson_contains_the_rate(x in 0usize..500, n in 1usize..500) {
                let x = x.min(n);
                let (lo, hi) = wilson(x, n).unwrap();
                let rate = x as f64 / n as f64;
                prop_assert!(0.0 <= lo && lo <= rate + 1e-12 && rate <= hi + 1e-12 && hi <= 1.0);
            }
        }
    }
}
