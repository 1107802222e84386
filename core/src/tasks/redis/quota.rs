//! [`RedisTaskQuota`]: how many tasks each caller holds, shared by the replicas, so a caller
//! cannot spread its tasks over them to hold more than `max_tasks_per_caller`.

use crate::handler::BoxFuture;
use crate::redis::{Lua, Redis};
use crate::tasks::quota::TaskQuota;
use crate::tasks::store::StoreError;
use sha2::{Digest, Sha256};

/// Count a task against a caller unless it holds `max` already; atomic in Redis. KEYS[1] the
/// caller's sorted set (member: task id, score: expiry in ms, `+inf` for none); ARGV[1] now,
/// ARGV[2] the id, ARGV[3] its expiry, ARGV[4] max. The set expires with its last task.
static TAKE: Lua = Lua::new(
    r#"
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local at = tonumber(last[2])
if at == math.huge then
  redis.call('PERSIST', KEYS[1])
else
  redis.call('PEXPIREAT', KEYS[1], math.ceil(at))
end
return 1
"#,
);

/// One sorted set per caller at `<prefix>taskq:<sha256 of the caller's key>`: a caller's key
/// (an issuer URL and a subject, a client address) never becomes part of a key as sent.
pub struct RedisTaskQuota {
    redis: Redis,
}

impl RedisTaskQuota {
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }
    fn key(&self, caller: &str) -> String {
        let h = Sha256::digest(caller.as_bytes());
        let hex: String = h.iter().map(|b| format!("{b:02x}")).collect();
        self.redis.key(&format!("taskq:{hex}"))
    }
}

fn err(e: crate::redis::RedisError) -> StoreError {
    StoreError(format!("redis: {e}"))
}

impl TaskQuota for RedisTaskQuota {
    fn take(
        &self,
        key: &str,
        id: &str,
        expires_at_ms: Option<u64>,
        max: usize,
        now_ms: u64,
    ) -> BoxFuture<Result<bool, StoreError>> {
        let (redis, key, id) = (self.redis.clone(), self.key(key), id.to_string());
        let score = expires_at_ms.map_or_else(|| "+inf".to_string(), |e| e.to_string());
        Box::pin(async move {
            let n: i64 = redis
                .eval(
                    &TAKE,
                    vec![key],
                    vec![now_ms.to_string(), id, score, max.to_string()],
                )
                .await
                .map_err(err)?;
            Ok(n == 1)
        })
    }

    fn release(&self, key: &str, id: &str) -> BoxFuture<Result<(), StoreError>> {
        let (redis, key, id) = (self.redis.clone(), self.key(key), id.to_string());
        Box::pin(async move {
            let mut cmd = ::redis::cmd("ZREM");
            cmd.arg(&key).arg(id);
            redis.query::<i64>(cmd).await.map(|_| ()).map_err(err)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redis::testing::RedisServer;
    use crate::tasks::record::now_ms;

    #[tokio::test]
    async fn two_replicas_count_one_callers_tasks_together() {
        let srv = RedisServer::start();
        let a = RedisTaskQuota::new(Redis::open(&srv.url(), "quota1:").unwrap());
        let b = RedisTaskQuota::new(Redis::open(&srv.url(), "quota1:").unwrap());
        let now = now_ms();
        assert!(a.take("alice", "1", Some(now + 300), 3, now).await.unwrap());
        assert!(b.take("alice", "2", None, 3, now).await.unwrap());
        assert!(a
            .take("alice", "3", Some(now + 60_000), 3, now)
            .await
            .unwrap());
        assert!(
            !b.take("alice", "4", None, 3, now).await.unwrap(),
            "at the cap, on either replica"
        );
        assert!(
            b.take("bob", "5", None, 3, now).await.unwrap(),
            "another caller"
        );
        // Task 1 expires; task 2 is released.
        let later = now + 300;
        assert!(b.take("alice", "4", None, 3, later).await.unwrap());
        assert!(!a.take("alice", "6", None, 3, later).await.unwrap());
        a.release("alice", "2").await.unwrap();
        assert!(a
            .take("alice", "6", Some(later + 60_000), 3, later)
            .await
            .unwrap());
        // The set carries no expiry while a task without one is in it.
        let mut ttl = ::redis::cmd("PTTL");
        ttl.arg(a.key("alice"));
        assert_eq!(a.redis.query::<i64>(ttl).await.unwrap(), -1);
    }
}
