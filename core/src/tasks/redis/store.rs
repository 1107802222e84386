//! [`RedisTaskStore`]: task records every replica reads, so `tasks/get`, `tasks/update` and
//! `tasks/cancel` may land on any replica (a round-robin balancer sends each poll elsewhere).

use crate::handler::BoxFuture;
use crate::redis::{Lua, Redis};
use crate::tasks::record::{now_ms, TaskRecord};
use crate::tasks::store::{StoreError, TaskStore};

/// Compare-and-set on the record's `version`, keeping the key's expiry. KEYS[1] the record,
/// ARGV[1] the new JSON, ARGV[2] the expected version. 1: replaced; 0: gone or changed.
static REPLACE: Lua = Lua::new(
    r#"
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
if tonumber(cjson.decode(cur)['version']) ~= tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1
"#,
);

/// A new record and, when it has one, its lease, together. KEYS[1] the record, KEYS[2] its
/// lease; ARGV[1] the JSON, ARGV[2] the expiry (ms since the epoch, or empty), ARGV[3] the lease
/// (ms, or empty), ARGV[4] the replica holding it. 1: stored; 0: the id exists.
static INSERT: Lua = Lua::new(
    r#"
local ok
if ARGV[2] == '' then
  ok = redis.call('SET', KEYS[1], ARGV[1], 'NX')
else
  ok = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PXAT', ARGV[2])
end
if not ok then return 0 end
if ARGV[3] ~= '' then redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[3]) end
return 1
"#,
);

/// One JSON string per task at `<prefix>task:<id>`, expiring by itself at the task's TTL
/// (`PXAT`), so `purge_expired` has nothing to do. `replace` is one Lua script (read, compare
/// the version, write), atomic in Redis.
///
/// A running task's lease is a key of its own, `<prefix>task:<id>:lease` (the holding replica's
/// id, expiring after the lease), created with the record and renewed by `SET … PX`: renewing
/// never rewrites the record (which may hold a large result, and whose version is the
/// compare-and-set token of every real change).
pub struct RedisTaskStore {
    pub(super) redis: Redis,
}

impl RedisTaskStore {
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }
    fn key(&self, id: &str) -> String {
        self.redis.key(&format!("task:{id}"))
    }
    fn lease_key(&self, id: &str) -> String {
        self.redis.key(&format!("task:{id}:lease"))
    }
}

fn err(e: crate::redis::RedisError) -> StoreError {
    StoreError(format!("redis: {e}"))
}

fn encode(rec: &TaskRecord) -> Result<String, StoreError> {
    serde_json::to_string(rec).map_err(|e| StoreError(format!("encoding a task: {e}")))
}

impl TaskStore for RedisTaskStore {
    fn insert(&self, rec: TaskRecord) -> BoxFuture<Result<(), StoreError>> {
        let (redis, keys) = (
            self.redis.clone(),
            vec![self.key(&rec.id), self.lease_key(&rec.id)],
        );
        Box::pin(async move {
            let json = encode(&rec)?;
            // Already past (a zero TTL): keep it a moment so the creator's answer is true.
            let at = rec
                .expires_at_ms()
                .map(|at| at.max(now_ms() + 1).to_string())
                .unwrap_or_default();
            let lease = rec.lease_ms.map(|l| l.to_string()).unwrap_or_default();
            let replica = redis.replica().to_string();
            let n: i64 = redis
                .eval(&INSERT, keys, vec![json, at, lease, replica])
                .await
                .map_err(err)?;
            match n {
                1 => Ok(()),
                _ => Err(StoreError("duplicate task id".into())),
            }
        })
    }

    fn get(&self, id: &str) -> BoxFuture<Result<Option<TaskRecord>, StoreError>> {
        let (redis, key) = (self.redis.clone(), self.key(id));
        Box::pin(async move {
            let mut cmd = ::redis::cmd("GET");
            cmd.arg(&key);
            let json: Option<String> = redis.query(cmd).await.map_err(err)?;
            json.map(|j| {
                serde_json::from_str(&j).map_err(|e| StoreError(format!("a stored task: {e}")))
            })
            .transpose()
        })
    }

    fn replace(&self, rec: TaskRecord, expected: u64) -> BoxFuture<Result<bool, StoreError>> {
        let (redis, key) = (self.redis.clone(), self.key(&rec.id));
        Box::pin(async move {
            let json = encode(&rec)?;
            let n: i64 = redis
                .eval(&REPLACE, vec![key], vec![json, expected.to_string()])
                .await
                .map_err(err)?;
            Ok(n == 1)
        })
    }

    fn remove(&self, id: &str) -> BoxFuture<Result<(), StoreError>> {
        let (redis, keys) = (self.redis.clone(), [self.key(id), self.lease_key(id)]);
        Box::pin(async move {
            let mut cmd = ::redis::cmd("DEL");
            cmd.arg(&keys);
            redis.query::<i64>(cmd).await.map(|_| ()).map_err(err)
        })
    }

    fn purge_expired(&self, _now_ms: u64) -> BoxFuture<Result<usize, StoreError>> {
        // Redis expires the keys itself (PXAT at insert).
        Box::pin(async { Ok(0) })
    }

    fn renew_leases(
        &self,
        ids: Vec<String>,
        lease: std::time::Duration,
    ) -> BoxFuture<Result<(), StoreError>> {
        let redis = self.redis.clone();
        let keys: Vec<String> = ids.iter().map(|id| self.lease_key(id)).collect();
        Box::pin(async move {
            if keys.is_empty() {
                return Ok(());
            }
            let ms = lease.as_millis().max(1) as u64;
            let mut pipe = ::redis::pipe();
            for k in &keys {
                pipe.cmd("SET")
                    .arg(k)
                    .arg(redis.replica())
                    .arg("PX")
                    .arg(ms)
                    .ignore();
            }
            redis
                .run(move |mut c| Box::pin(async move { pipe.query_async::<()>(&mut c).await }))
                .await
                .map_err(err)
        })
    }

    fn lapsed(&self, ids: Vec<String>) -> BoxFuture<Result<Vec<String>, StoreError>> {
        let redis = self.redis.clone();
        let keys: Vec<String> = ids.iter().map(|id| self.lease_key(id)).collect();
        Box::pin(async move {
            if keys.is_empty() {
                return Ok(Vec::new());
            }
            let mut cmd = ::redis::cmd("MGET");
            cmd.arg(&keys);
            let held: Vec<Option<String>> = redis.query(cmd).await.map_err(err)?;
            Ok(ids
                .into_iter()
                .zip(held)
                .filter(|(_, h)| h.is_none())
                .map(|(id, _)| id)
                .collect())
        })
    }

    fn get_many(&self, ids: &[String]) -> BoxFuture<Result<Vec<Option<TaskRecord>>, StoreError>> {
        let redis = self.redis.clone();
        let keys: Vec<String> = ids.iter().map(|id| self.key(id)).collect();
        Box::pin(async move {
            if keys.is_empty() {
                return Ok(Vec::new());
            }
            let mut cmd = ::redis::cmd("MGET");
            cmd.arg(&keys);
            let found: Vec<Option<String>> = redis.query(cmd).await.map_err(err)?;
            found
                .into_iter()
                .map(|j| {
                    j.map(|j| {
                        serde_json::from_str(&j)
                            .map_err(|e| StoreError(format!("a stored task: {e}")))
                    })
                    .transpose()
                })
                .collect()
        })
    }
}
