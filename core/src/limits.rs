//! Per-caller rate limits: a token bucket per caller name (anonymous callers share one), and
//! the size caps the transports share. [`TokenBucket`] and [`SlidingWindow`] are the two
//! single-key limits on a clock the caller reads (a host framework's monotonic clock), for the
//! compatibility layers whose framework keeps one limiter per key of its own choosing.

use std::collections::{HashMap, VecDeque};
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

/// Tokens after `elapsed` seconds of refill at `rate`, capped at `capacity`. A negative
/// `elapsed` (a clock stepped back) refills nothing.
fn refilled(tokens: f64, elapsed: f64, rate: f64, capacity: f64) -> f64 {
    (tokens + elapsed.max(0.0) * rate).min(capacity)
}

/// One token bucket on a clock the caller reads (seconds, monotonic). Unlike [`RateLimit`] it
/// takes any `capacity` and `rate` as given: a capacity below 1 admits nothing, a rate of 0
/// never refills (a bucket that only spends its burst).
#[derive(Clone, Debug, PartialEq)]
pub struct TokenBucket {
    pub capacity: f64,
    /// Tokens per second.
    pub rate: f64,
    pub tokens: f64,
    /// The clock reading of the last refill.
    pub at: f64,
}

impl TokenBucket {
    /// A full bucket at `now`.
    pub fn new(capacity: f64, rate: f64, now: f64) -> Self {
        Self {
            capacity,
            rate,
            tokens: capacity,
            at: now,
        }
    }

    /// Take `n` tokens at `now`, all or none. The refill time advances on a refusal too, so a
    /// caller retrying while refused cannot count the same elapsed time twice.
    pub fn take(&mut self, n: f64, now: f64) -> bool {
        self.tokens = refilled(self.tokens, now - self.at, self.rate, self.capacity);
        self.at = now;
        if self.tokens >= n {
            self.tokens -= n;
            true
        } else {
            false
        }
    }
}

/// At most `max` requests in any `window` seconds, on a clock the caller reads: the times of
/// the admitted requests still inside the window are kept (at most `max` of them).
#[derive(Clone, Debug, PartialEq)]
pub struct SlidingWindow {
    pub max: u64,
    /// Seconds.
    pub window: f64,
    hits: VecDeque<f64>,
}

impl SlidingWindow {
    pub fn new(max: u64, window: f64) -> Self {
        Self {
            max,
            window,
            hits: VecDeque::new(),
        }
    }

    /// Admit one request at `now`, or refuse it (a refused request is not counted).
    pub fn allow(&mut self, now: f64) -> bool {
        let cutoff = now - self.window;
        while self.hits.front().is_some_and(|&t| t < cutoff) {
            self.hits.pop_front();
        }
        if (self.hits.len() as u64) < self.max {
            self.hits.push_back(now);
            true
        } else {
            false
        }
    }

    /// The admitted requests counted in the window (as of the last [`Self::allow`]).
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }
}

struct Bucket {
    tokens: f64,
    at: Instant,
    /// The limit this bucket refills under (for pruning without knowing its caller's name).
    rate: f64,
    burst: f64,
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

    /// The limit of the caller named `name` (its own, or the default).
    pub fn limit_for(&self, name: &str) -> RateLimit {
        self.per_caller.get(name).copied().unwrap_or(self.limit)
    }

    /// Take one token for `caller`; `Err(retry_after)` when the bucket is empty.
    pub fn check(&self, caller: &str) -> Result<(), Duration> {
        self.check_keyed(caller, caller, 1)
    }

    /// Take `n` tokens from the bucket `bucket`, under the limit configured for the caller named
    /// `name` (the two differ for JWT callers: the bucket is keyed by issuer and subject, the
    /// per-caller limit by name). All or nothing: `Err(retry_after)` when fewer than `n` are
    /// left (a batch of `n` calls costs `n`).
    pub fn check_keyed(&self, bucket: &str, name: &str, n: u32) -> Result<(), Duration> {
        let limit = self.limit_for(name);
        let need = f64::from(n.max(1));
        let now = Instant::now();
        let mut b = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if b.len() >= MAX_BUCKETS && !b.contains_key(bucket) {
            // Drop buckets that have refilled completely: forgetting them changes nothing.
            b.retain(|_, x| x.tokens + now.duration_since(x.at).as_secs_f64() * x.rate < x.burst);
        }
        let entry = b.entry(bucket.to_string()).or_insert(Bucket {
            tokens: f64::from(limit.burst),
            at: now,
            rate: limit.rate,
            burst: f64::from(limit.burst),
        });
        entry.tokens = refilled(
            entry.tokens,
            now.duration_since(entry.at).as_secs_f64(),
            limit.rate,
            f64::from(limit.burst),
        );
        entry.at = now;
        if entry.tokens >= need {
            entry.tokens -= need;
            Ok(())
        } else if need > f64::from(limit.burst) {
            // Never affordable at once: wait for a full bucket (then a smaller request fits).
            Err(Duration::from_secs_f64(
                (f64::from(limit.burst) - entry.tokens).max(1.0) / limit.rate,
            ))
        } else {
            Err(Duration::from_secs_f64((need - entry.tokens) / limit.rate))
        }
    }
}

/// Failed authentications allowed per client address by default: bursts of 10, then one every
/// 6 s (10 a minute). Enough for a client whose token expired to notice; far too slow to guess a
/// token.
pub const DEFAULT_AUTH_FAILURES: RateLimit = RateLimit {
    rate: 1.0 / 6.0,
    burst: 10,
};

/// Most client addresses [`AuthFailureLimiter`] tracks at once.
pub const MAX_AUTH_FAILURE_ADDRS: usize = 4096;

/// The key a client address is counted under: IPv4 as it is (an IPv4-mapped IPv6 address as
/// its IPv4 one), IPv6 by its /64, which one client usually owns whole.
pub(crate) fn client_key(ip: std::net::IpAddr) -> std::net::IpAddr {
    match ip.to_canonical() {
        std::net::IpAddr::V6(v6) => {
            let s = v6.segments();
            std::net::IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
        v4 => v4,
    }
}

/// Failed authentications per client address: a token bucket per address (IPv6 by its /64, which
/// one client usually owns whole), spent by each refused token. While an address's bucket is
/// empty, its requests are refused before their token is even checked (429 + `Retry-After`), so
/// a guess gets no answer. The table holds at most [`MAX_AUTH_FAILURE_ADDRS`] addresses: when
/// full, addresses whose bucket has refilled are forgotten, then the least recently seen one.
pub struct AuthFailureLimiter {
    limit: RateLimit,
    buckets: Mutex<HashMap<std::net::IpAddr, Bucket>>,
}

impl std::fmt::Debug for AuthFailureLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthFailureLimiter")
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl AuthFailureLimiter {
    pub fn new(limit: RateLimit) -> Self {
        Self {
            limit,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    fn refill(&self, b: &mut Bucket, now: Instant) {
        b.tokens = refilled(
            b.tokens,
            now.duration_since(b.at).as_secs_f64(),
            self.limit.rate,
            f64::from(self.limit.burst),
        );
        b.at = now;
    }

    /// `Err(retry_after)` while `ip` has no failures left.
    pub fn check(&self, ip: std::net::IpAddr) -> Result<(), Duration> {
        let now = Instant::now();
        let mut t = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let Some(b) = t.get_mut(&client_key(ip)) else {
            return Ok(());
        };
        self.refill(b, now);
        if b.tokens >= 1.0 {
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - b.tokens) / self.limit.rate))
        }
    }

    /// Spend one failure for `ip`.
    pub fn failed(&self, ip: std::net::IpAddr) {
        let key = client_key(ip);
        let now = Instant::now();
        let mut t = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if t.len() >= MAX_AUTH_FAILURE_ADDRS && !t.contains_key(&key) {
            let (rate, burst) = (self.limit.rate, f64::from(self.limit.burst));
            t.retain(|_, b| b.tokens + now.duration_since(b.at).as_secs_f64() * rate < burst);
            if t.len() >= MAX_AUTH_FAILURE_ADDRS {
                if let Some(oldest) = t.iter().min_by_key(|(_, b)| b.at).map(|(k, _)| *k) {
                    t.remove(&oldest);
                }
            }
        }
        let b = t.entry(key).or_insert(Bucket {
            tokens: f64::from(self.limit.burst),
            at: now,
            rate: self.limit.rate,
            burst: f64::from(self.limit.burst),
        });
        self.refill(b, now);
        b.tokens = (b.tokens - 1.0).max(0.0);
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

    #[test]
    fn n_tokens_at_once_or_none() {
        let r = RateLimiter::new(RateLimit::per_second(1.0, 3));
        assert!(r.check_keyed("a", "a", 20).is_err(), "over the burst");
        assert!(
            r.check_keyed("a", "a", 3).is_ok(),
            "nothing was taken by the refusal"
        );
        assert!(r.check_keyed("a", "a", 1).is_err());
        let r = RateLimiter::new(RateLimit::per_second(1.0, 1))
            .caller("carol", RateLimit::per_second(1.0, 5));
        // Two buckets (two issuers' carol), both under carol's limit.
        assert!(r.check_keyed("iss1 carol", "carol", 5).is_ok());
        assert!(r.check_keyed("iss2 carol", "carol", 5).is_ok());
        assert!(r.check_keyed("iss1 carol", "carol", 1).is_err());
    }

    #[test]
    fn token_bucket_on_a_given_clock() {
        let mut b = TokenBucket::new(10.0, 10.0, 0.0);
        assert!(b.take(10.0, 0.0));
        assert!(!b.take(1.0, 0.0));
        assert!(b.take(2.0, 0.25), "2.5 tokens refilled in 0.25 s");
        // Refused retries advance the refill time: 20 of them over 0.2 s refill 2 tokens, not more.
        let mut b = TokenBucket::new(10.0, 10.0, 0.0);
        assert!(b.take(10.0, 0.0));
        let mut now = 0.0;
        for _ in 0..20 {
            b.take(1.0, now);
            now += 0.01;
        }
        assert!(!b.take(5.0, now));
        // A clock stepped back refills nothing and takes nothing away.
        let mut b = TokenBucket::new(5.0, 1.0, 100.0);
        assert!(b.take(1.0, 50.0));
        assert_eq!(b.tokens, 4.0);
        // Capacity 0 admits nothing; rate 0 never refills.
        assert!(!TokenBucket::new(0.0, 10.0, 0.0).take(1.0, 5.0));
        let mut b = TokenBucket::new(1.0, 0.0, 0.0);
        assert!(b.take(1.0, 0.0) && !b.take(1.0, 1e9));
    }

    #[test]
    fn sliding_window_on_a_given_clock() {
        let mut w = SlidingWindow::new(2, 1.0);
        assert!(w.allow(0.0) && w.allow(0.5));
        assert!(!w.allow(0.9), "two in the last second");
        assert_eq!(w.len(), 2, "a refusal is not counted");
        assert!(w.allow(1.1), "the first left the window");
        assert!(!SlidingWindow::new(0, 60.0).allow(0.0));
    }

    #[test]
    fn auth_failures_per_address_in_a_bounded_table() {
        use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
        let l = AuthFailureLimiter::new(RateLimit::per_second(0.001, 3));
        let a = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        for _ in 0..3 {
            assert!(l.check(a).is_ok());
            l.failed(a);
        }
        assert!(l.check(a).unwrap_err() > Duration::from_secs(100));
        assert!(l.check(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2))).is_ok());
        // One /64 is one client.
        let v6 = |last| IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 1, 0, 0, 0, last));
        for i in 0..3 {
            l.failed(v6(i));
        }
        assert!(l.check(v6(99)).is_err());
        // Bounded: a flood of addresses never grows the table past the cap.
        for i in 0..(MAX_AUTH_FAILURE_ADDRS as u32 + 500) {
            l.failed(IpAddr::V4(Ipv4Addr::from(0x0b00_0000 + i)));
        }
        assert!(l.buckets.lock().unwrap().len() <= MAX_AUTH_FAILURE_ADDRS);
    }
}
