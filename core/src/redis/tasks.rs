//! [`RedisTaskStore`]: task records every replica reads, so `tasks/get`, `tasks/update` and
//! `tasks/cancel` may land on any replica (a round-robin balancer sends each poll elsewhere).

use super::{Lua, Redis};
use crate::handler::BoxFuture;
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

/// One JSON string per task at `<prefix>task:<id>`, expiring by itself at the task's TTL
/// (`PXAT`), so `purge_expired` has nothing to do. `replace` is one Lua script (read, compare
/// the version, write), atomic in Redis.
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
}

fn err(e: super::RedisError) -> StoreError {
    StoreError(format!("redis: {e}"))
}

fn encode(rec: &TaskRecord) -> Result<String, StoreError> {
    serde_json::to_string(rec).map_err(|e| StoreError(format!("encoding a task: {e}")))
}

impl TaskStore for RedisTaskStore {
    fn insert(&self, rec: TaskRecord) -> BoxFuture<Result<(), StoreError>> {
        let (redis, key) = (self.redis.clone(), self.key(&rec.id));
        Box::pin(async move {
            let json = encode(&rec)?;
            let mut cmd = ::redis::cmd("SET");
            cmd.arg(&key).arg(json).arg("NX");
            if let Some(at) = rec.expires_at_ms() {
                // Already past (a zero TTL): keep it a moment so the creator's answer is true.
                cmd.arg("PXAT").arg(at.max(now_ms() + 1));
            }
            let set: Option<String> = redis.query(cmd).await.map_err(err)?;
            match set {
                Some(_) => Ok(()),
                None => Err(StoreError("duplicate task id".into())),
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
        let (redis, key) = (self.redis.clone(), self.key(id));
        Box::pin(async move {
            let mut cmd = ::redis::cmd("DEL");
            cmd.arg(&key);
            redis.query::<i64>(cmd).await.map(|_| ()).map_err(err)
        })
    }

    fn purge_expired(&self, _now_ms: u64) -> BoxFuture<Result<usize, StoreError>> {
        // Redis expires the keys itself (PXAT at insert).
        Box::pin(async { Ok(0) })
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
