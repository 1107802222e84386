//! Per-caller rate limits: a token bucket per caller name (anonymous callers share one), and
//! the size caps the transports share.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Longest JSON string (key or value) a transport accepts in a message, by default: 1 MiB. Big
/// enough for a base64 image argument, small enough that no handler is handed a string the size
/// of the whole body. `HttpConfig::max_string` / `StdioConfig::max_string` change it.
pub const DEFAULT_MAX_STRING: usize = 1024 * 1024;

/// `rate` requests per second on average, bursts of up to `burst`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLimit {
    pub rate: f64,
    pub burst: u32,
}

impl RateLimit {
    pub fn per_second(rate: f64, burst: u32) -> Self {
        Self {
            rate: rate.max(1e-6),
            burst: burst.max(1),
        }
    }
    pub fn per_minute(n: u32) -> Self {
        Self::per_second(f64::from(n) / 60.0, n)
    }
}

struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Token buckets keyed by caller. Idle buckets are dropped once the table grows large, so a
/// stream of distinct names cannot grow it without bound.
pub struct RateLimiter {
    limit: RateLimit,
    per_caller: HashMap<String, RateLimit>,
    buckets: Mutex<HashMap<String, Bucket>>,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

const MAX_BUCKETS: usize = 10_000;

impl RateLimiter {
    pub fn new(limit: RateLimit) -> Self {
        Self {
            limit,
            per_caller: HashMap::new(),
            buckets: Mutex::new(HashMap::new()),
        }
    }
    /// A different limit for one caller.
    pub fn caller(mut self, name: impl Into<String>, limit: RateLimit) -> Self {
        self.per_caller.insert(name.into(), limit);
        self
    }

    /// Take one token for `caller`; `Err(retry_after)` when the bucket is empty.
    pub fn check(&self, caller: &str) -> Result<(), Duration> {
        let limit = self.per_caller.get(caller).copied().unwrap_or(self.limit);
        let now = Instant::now();
        let mut b = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if b.len() >= MAX_BUCKETS && !b.contains_key(caller) {
            // Drop buckets that have refilled completely: forgetting them changes nothing.
            b.retain(|k, x| {
                let l = self.per_caller.get(k).copied().unwrap_or(self.limit);
                x.tokens + now.duration_since(x.at).as_secs_f64() * l.rate < f64::from(l.burst)
            });
        }
        let bucket = b.entry(caller.to_string()).or_insert(Bucket {
            tokens: f64::from(limit.burst),
            at: now,
        });
        bucket.tokens = (bucket.tokens + now.duration_since(bucket.at).as_secs_f64() * limit.rate)
            .min(f64::from(limit.burst));
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / limit.rate))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_refills() {
        let r = RateLimiter::new(RateLimit::per_second(10.0, 2))
            .caller("vip", RateLimit::per_second(1.0, 5));
        assert!(r.check("a").is_ok());
        assert!(r.check("a").is_ok());
        let wait = r.check("a").unwrap_err();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_millis(100),
            "{wait:?}"
        );
        assert!(r.check("b").is_ok(), "buckets are per caller");
        for _ in 0..5 {
            assert!(r.check("vip").is_ok());
        }
        assert!(r.check("vip").is_err());
        std::thread::sleep(Duration::from_millis(120));
        assert!(r.check("a").is_ok());
    }
}
