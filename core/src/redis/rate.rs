//! Rate limits shared by the replicas (`rate_limit_store = "redis"`): the same token bucket as
//! `limits::RateLimiter`, kept in Redis and taken from by one Lua script (atomic, and timed by
//! Redis' own clock, so replicas whose clocks differ agree).

use super::{Lua, Redis};
use crate::limits::RateLimiter;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// KEYS[1] the bucket (a hash: tokens, at); ARGV rate (tokens per second), burst, need.
/// Returns the seconds to wait as a string: "0" when the tokens were taken. The bucket expires
/// once it would be full again (an idle caller costs no memory).
static BUCKET: Lua = Lua::new(
    r#"
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local need = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= need then
  tokens = tokens - need
elseif need > burst then
  wait = math.max(burst - tokens, 1) / rate
else
  wait = (need - tokens) / rate
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return tostring(wait)
"#,
);

/// After Redis failed, how long the replica counts locally before it asks Redis again (so a
/// Redis that hangs costs each request nothing, not a timeout).
const LOCAL_FOR: Duration = Duration::from_secs(1);

/// The HTTP transport's limiter when `rate_limit_store = "redis"`. Redis down never fails
/// closed: each replica falls back to its own buckets (`local`, the same limits), logs a
/// warning, and goes back to Redis when it answers again. So while Redis is down a caller may
/// get up to N times its rate over N replicas, and never less than one replica's.
pub(crate) struct SharedRateLimit {
    pub(super) redis: Redis,
    local: Arc<RateLimiter>,
    /// Milliseconds (since `epoch`) until which Redis is skipped.
    skip_until: AtomicU64,
    epoch: std::time::Instant,
}

impl SharedRateLimit {
    pub(crate) fn new(redis: Redis, local: Arc<RateLimiter>) -> Self {
        Self {
            redis,
            local,
            skip_until: AtomicU64::new(0),
            epoch: std::time::Instant::now(),
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// [`RateLimiter::check_keyed`], counted in Redis.
    pub(crate) async fn check_keyed(
        &self,
        bucket: &str,
        name: &str,
        n: u32,
    ) -> Result<(), Duration> {
        if self.now() < self.skip_until.load(Ordering::Relaxed) {
            return self.local.check_keyed(bucket, name, n);
        }
        let limit = self.local.limit_for(name);
        let key = self.redis.key(&format!("rate:{bucket}"));
        let args = vec![
            limit.rate.to_string(),
            limit.burst.to_string(),
            n.max(1).to_string(),
        ];
        match self.redis.eval::<String>(&BUCKET, vec![key], args).await {
            Ok(w) => match w.parse::<f64>() {
                Ok(w) if w > 0.0 => Err(Duration::from_secs_f64(w)),
                Ok(_) => Ok(()),
                Err(_) => self.local.check_keyed(bucket, name, n),
            },
            Err(e) => {
                let was = self
                    .skip_until
                    .swap(self.now() + LOCAL_FOR.as_millis() as u64, Ordering::Relaxed);
                if was == 0 || self.now() > was + 10_000 {
                    tracing::warn!(url = %self.redis.url(), error = %e, "redis: shared rate limits unavailable; counting per replica until it answers");
                }
                self.local.check_keyed(bucket, name, n)
            }
        }
    }
}
