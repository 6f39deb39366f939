//! When to try a request again, and how long to wait first: on 429, 5xx,
//! timeouts and connection errors; the server's `Retry-After` when it gives
//! one (seconds or an HTTP date), else exponential backoff with jitter.
//!
//! Waiting goes through [`Sleep`], so tests see the delays asked for
//! without waiting them. The jitter is drawn from the request's key and the
//! attempt number: requests in flight together spread out, and a run is
//! repeatable.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Waits.
pub trait Sleep: Sync {
    fn sleep(&self, duration: Duration);
}

/// The real clock.
pub struct ThreadSleep;

impl Sleep for ThreadSleep {
    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

/// The backoff: attempt `n` (0 for the first retry) waits between half
/// and all of `base × 2ⁿ`, at most `cap`; a `Retry-After` is honoured up to
/// `cap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub base: Duration,
    pub cap: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff { base: Duration::from_millis(500), cap: Duration::from_secs(60) }
    }
}

impl Backoff {
    /// The wait before retry `attempt` (0-based) of the request `key`,
    /// given the server's `Retry-After`, if any.
    pub fn delay(&self, key: &str, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.cap);
        }
        let ceiling = self.base.saturating_mul(1u32.checked_shl(attempt.min(20)).unwrap_or(u32::MAX)).min(self.cap);
        let half = ceiling / 2;
        let fraction = (jitter(key, attempt) % 1_000_001) as f64 / 1_000_000.0;
        half + (ceiling - half).mul_f64(fraction)
    }
}

/// A number drawn from the key and the attempt (SplitMix64 over FNV-1a).
fn jitter(key: &str, attempt: u32) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes().chain(attempt.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let mut z = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Whether a status is worth another attempt: 429 and 5xx.
pub fn retryable(status: u16) -> bool {
    status == 429 || (500..600).contains(&status)
}

/// A `Retry-After` value: delta-seconds (`120`, and `1.5` as some servers
/// send) or an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`, from `now`).
/// Anything else is ignored.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)));
    }
    let at = http_date(value)?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Seconds since the epoch of an HTTP date (RFC 9110 §5.6.7: the
/// IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient
/// must accept), read by `httpdate`.
fn http_date(value: &str) -> Option<u64> {
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(UNIX_EPOCH).ok()?.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_its_jitter_and_honours_retry_after_up_to_the_cap() {
        let b = Backoff::default();
        for attempt in 0..6 {
            let ceiling = (Duration::from_millis(500) * 2u32.pow(attempt)).min(b.cap);
            let d = b.delay("k", attempt, None);
            assert!(d >= ceiling / 2 && d <= ceiling, "attempt {attempt}: {d:?}");
            assert_eq!(b.delay("k", attempt, None), d, "repeatable");
        }
        assert_ne!(b.delay("k", 3, None), b.delay("other", 3, None), "another key, another jitter");
        assert_eq!(b.delay("k", 40, None).max(b.cap), b.cap);
        assert_eq!(b.delay("k", 0, Some(Duration::from_secs(2))), Duration::from_secs(2));
        assert_eq!(b.delay("k", 0, Some(Duration::from_secs(3600))), b.cap);
    }

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now = UNIX_EPOCH + Duration::from_secs(1_445_412_470); // Wed, 21 Oct 2015 07:27:50 GMT
        assert_eq!(parse_retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after(" 1.5 ", now), Some(Duration::from_millis(1500)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now), Some(Duration::from_secs(10)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now), Some(Duration::ZERO));
        // The obsolete forms RFC 9110 asks a recipient to accept.
        assert_eq!(parse_retry_after("Wednesday, 21-Oct-15 07:28:00 GMT", now), Some(Duration::from_secs(10)));
        assert_eq!(parse_retry_after("Wed Oct 21 07:28:00 2015", now), Some(Duration::from_secs(10)));
        for bad in ["-1", "soon", "Wed, 21 Foo 2015 07:28:00 GMT", "NaN", "inf"] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad}");
        }
        assert!(retryable(429) && retryable(500) && retryable(503));
        assert!(!retryable(400) && !retryable(401) && !retryable(404) && !retryable(200));
    }
}
