//! [`RedisSessionStore`]: legacy sessions shared by the replicas of a deployment (feature
//! `redis`), on the server's [`Redis`] handle.
//!
//! Keys (under the prefix): `session:<id>`, a hash — `rec` (the record's fixed part as JSON:
//! version, client info and capabilities, owner key), `owner` (`=` and the owner key, absent for
//! a session anyone may use: what `touch` checks before it restarts the TTL), `level` (the
//! `logging/setLevel` level),
//! one `s:<uri>` field per subscription — and `session:<id>:cx`, a list of the last
//! [`MAX_CANCELLED`] cancelled request ids. Both expire together after the session's idle TTL,
//! restarted by every use (`touch`). Every operation is one Lua script, so a change never
//! recreates a session another replica has just deleted.
//!
//! HTTP+SSE streams: `sse:<id>`, a hash — `replica` (the holder), `owner` (as a session's),
//! `session` (once bound) — that expires with its lease unless the holder renews it.
//!
//! Signals go on the channel `sessions` as `{"from": replica, "sig": SessionSignal}`; a
//! replica skips its own.

use crate::handler::BoxFuture;
use crate::redis::{Incoming, Lua, Redis};
use crate::session::store::*;
use futures::stream::BoxStream;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

const CHANNEL: &str = "sessions";

static CREATE: Lua = Lua::new(
    r#"
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[1], 'rec', ARGV[1])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'owner', ARGV[3]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"#,
);

static TOUCH: Lua = Lua::new(
    r#"
local rec = redis.call('HGET', KEYS[1], 'rec')
if not rec then return false end
local owner = redis.call('HGET', KEYS[1], 'owner')
if (not owner) or owner == ARGV[2] then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[1])
end
local level = redis.call('HGET', KEYS[1], 'level') or ''
local subs = {}
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(f, 1, 2) == 's:' then subs[#subs + 1] = string.sub(f, 3) end
end
local cx = redis.call('LRANGE', KEYS[2], 0, -1)
return {rec, level, subs, cx}
"#,
);

static UPDATE: Lua = Lua::new(
    r#"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local op, v = ARGV[1], ARGV[2]
if op == 'level' then
  redis.call('HSET', KEYS[1], 'level', v)
elseif op == 'sub' then
  redis.call('HSET', KEYS[1], 's:' .. v, '1')
elseif op == 'unsub' then
  redis.call('HDEL', KEYS[1], 's:' .. v)
elseif op == 'cancel' then
  redis.call('RPUSH', KEYS[2], v)
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[3]), -1)
  redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1]))
end
return 1
"#,
);

static OPEN_STREAM: Lua = Lua::new(
    r#"
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'replica', ARGV[1])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'owner', ARGV[3]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"#,
);

static BIND_STREAM: Lua = Lua::new(
    r#"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'session', ARGV[1])
return 1
"#,
);

/// The fixed part of a record, as stored in `rec`.
#[derive(Serialize, Deserialize)]
struct Fixed {
    version: String,
    client_info: Option<serde_json::Value>,
    client_capabilities: serde_json::Value,
    owner: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct Wire {
    from: String,
    sig: SessionSignal,
}

/// Legacy sessions in Redis. See the module docs.
pub struct RedisSessionStore {
    redis: Redis,
}

impl RedisSessionStore {
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }
    fn keys(&self, id: &str) -> Vec<String> {
        vec![
            self.redis.key(&format!("session:{id}")),
            self.redis.key(&format!("session:{id}:cx")),
        ]
    }
    fn stream_key(&self, id: &str) -> String {
        self.redis.key(&format!("sse:{id}"))
    }
}

fn err(e: crate::redis::RedisError) -> SessionStoreError {
    SessionStoreError(format!("redis: {e}"))
}

/// The `owner` field for an owner key: `=` first, so that an empty key is still an owner.
fn owner_field(key: &str) -> String {
    format!("={key}")
}

fn ms(d: Duration) -> String {
    d.as_millis().max(1).to_string()
}

impl SessionStore for RedisSessionStore {
    fn create(
        &self,
        rec: SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<Result<(), SessionStoreError>> {
        let redis = self.redis.clone();
        let keys = self.keys(&rec.id);
        let owner = rec.owner.as_deref().map(owner_field).unwrap_or_default();
        let fixed = Fixed {
            version: rec.version,
            client_info: rec.client_info,
            client_capabilities: rec.client_capabilities,
            owner: rec.owner,
        };
        Box::pin(async move {
            let json =
                serde_json::to_string(&fixed).map_err(|e| SessionStoreError(e.to_string()))?;
            redis
                .eval::<i64>(&CREATE, keys, vec![json, ms(ttl), owner])
                .await
                .map(|_| ())
                .map_err(err)
        })
    }

    fn touch(
        &self,
        id: &str,
        ttl: Duration,
        user: Option<&str>,
    ) -> BoxFuture<Result<Option<SessionRecord>, SessionStoreError>> {
        let redis = self.redis.clone();
        let keys = self.keys(id);
        let id = id.to_string();
        // Never equal to a stored owner field when there is no user (those start with `=`).
        let user = user.map(owner_field).unwrap_or_default();
        Box::pin(async move {
            let got: Option<(String, String, Vec<String>, Vec<String>)> = redis
                .eval(&TOUCH, keys, vec![ms(ttl), user])
                .await
                .map_err(err)?;
            let Some((rec, level, subscriptions, cancelled)) = got else {
                return Ok(None);
            };
            let fixed: Fixed = serde_json::from_str(&rec)
                .map_err(|e| SessionStoreError(format!("a stored session is malformed: {e}")))?;
            Ok(Some(SessionRecord {
                id,
                version: fixed.version,
                client_info: fixed.client_info,
                client_capabilities: fixed.client_capabilities,
                owner: fixed.owner,
                log_level: crate::protocol::LogLevel::parse(&level),
                subscriptions,
                cancelled,
            }))
        })
    }

    fn update(
        &self,
        id: &str,
        change: SessionChange,
    ) -> BoxFuture<Result<bool, SessionStoreError>> {
        let redis = self.redis.clone();
        let keys = self.keys(id);
        let (op, v) = match change {
            SessionChange::LogLevel(l) => ("level", l.as_str().to_string()),
            SessionChange::Subscribe(u) => ("sub", u),
            SessionChange::Unsubscribe(u) => ("unsub", u),
            SessionChange::Cancelled(r) => ("cancel", r),
        };
        Box::pin(async move {
            let n: i64 = redis
                .eval(
                    &UPDATE,
                    keys,
                    vec![op.to_string(), v, MAX_CANCELLED.to_string()],
                )
                .await
                .map_err(err)?;
            Ok(n == 1)
        })
    }

    fn remove(&self, id: &str) -> BoxFuture<Result<bool, SessionStoreError>> {
        let redis = self.redis.clone();
        let keys = self.keys(id);
        Box::pin(async move {
            let mut cmd = ::redis::cmd("DEL");
            cmd.arg(&keys);
            let n: i64 = redis.query(cmd).await.map_err(err)?;
            Ok(n > 0)
        })
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn mark_ended(
        &self,
        id: &str,
        owner: Option<&str>,
        ttl: Duration,
    ) -> BoxFuture<Result<(), SessionStoreError>> {
        let redis = self.redis.clone();
        let key = self.redis.key(&format!("session:{id}:ended"));
        // The owner's key, or "" for a session without one (no auth).
        let owner = owner.unwrap_or_default().to_string();
        let ms = ttl.as_millis().max(1) as u64;
        Box::pin(async move {
            let mut cmd = ::redis::cmd("SET");
            cmd.arg(&key).arg(owner).arg("PX").arg(ms);
            redis.query::<()>(cmd).await.map_err(err)
        })
    }

    fn ended(&self, id: &str) -> BoxFuture<Result<Option<Option<String>>, SessionStoreError>> {
        let redis = self.redis.clone();
        let key = self.redis.key(&format!("session:{id}:ended"));
        Box::pin(async move {
            let mut cmd = ::redis::cmd("GET");
            cmd.arg(&key);
            let owner: Option<String> = redis.query(cmd).await.map_err(err)?;
            Ok(owner.map(|o| (!o.is_empty()).then_some(o)))
        })
    }

    fn open_stream(
        &self,
        id: &str,
        owner: Option<&str>,
        lease: Duration,
    ) -> BoxFuture<Result<(), SessionStoreError>> {
        let redis = self.redis.clone();
        let key = self.stream_key(id);
        let owner = owner.map(owner_field).unwrap_or_default();
        Box::pin(async move {
            let replica = redis.replica().to_string();
            redis
                .eval::<i64>(&OPEN_STREAM, vec![key], vec![replica, ms(lease), owner])
                .await
                .map(|_| ())
                .map_err(err)
        })
    }

    fn stream(&self, id: &str) -> BoxFuture<Result<Option<StreamRecord>, SessionStoreError>> {
        let redis = self.redis.clone();
        let key = self.stream_key(id);
        Box::pin(async move {
            let mut cmd = ::redis::cmd("HGETALL");
            cmd.arg(&key);
            let mut h: std::collections::HashMap<String, String> =
                redis.query(cmd).await.map_err(err)?;
            let Some(replica) = h.remove("replica") else {
                return Ok(None);
            };
            Ok(Some(StreamRecord {
                // Stored as `owner_field` writes it.
                owner: h
                    .remove("owner")
                    .map(|o| o.get(1..).unwrap_or_default().to_string()),
                replica,
                session: h.remove("session"),
            }))
        })
    }

    fn bind_stream(&self, id: &str, session: &str) -> BoxFuture<Result<bool, SessionStoreError>> {
        let redis = self.redis.clone();
        let key = self.stream_key(id);
        let session = session.to_string();
        Box::pin(async move {
            let n: i64 = redis
                .eval(&BIND_STREAM, vec![key], vec![session])
                .await
                .map_err(err)?;
            Ok(n == 1)
        })
    }

    fn renew_stream(
        &self,
        id: &str,
        lease: Duration,
    ) -> BoxFuture<Result<bool, SessionStoreError>> {
        let redis = self.redis.clone();
        let key = self.stream_key(id);
        Box::pin(async move {
            let mut cmd = ::redis::cmd("PEXPIRE");
            cmd.arg(&key).arg(ms(lease));
            let n: i64 = redis.query(cmd).await.map_err(err)?;
            Ok(n == 1)
        })
    }

    fn close_stream(&self, id: &str) -> BoxFuture<Result<(), SessionStoreError>> {
        let redis = self.redis.clone();
        let key = self.stream_key(id);
        Box::pin(async move {
            let mut cmd = ::redis::cmd("DEL");
            cmd.arg(&key);
            redis.query::<i64>(cmd).await.map(|_| ()).map_err(err)
        })
    }

    fn signal(&self, sig: SessionSignal) -> BoxFuture<Result<(), SessionStoreError>> {
        let redis = self.redis.clone();
        let wire = Wire {
            from: redis.replica().to_string(),
            sig,
        };
        Box::pin(async move {
            let payload =
                serde_json::to_vec(&wire).map_err(|e| SessionStoreError(e.to_string()))?;
            redis.publish(CHANNEL, payload).await.map_err(err)
        })
    }

    fn signals(&self) -> Option<BoxStream<'static, SessionSignal>> {
        let rx = self.redis.subscribe(CHANNEL);
        let me = self.redis.replica().to_string();
        let stream = futures::stream::unfold(rx, move |mut rx| {
            let me = me.clone();
            async move {
                loop {
                    match rx.recv().await {
                        Ok(Incoming::Message(p)) => match serde_json::from_slice::<Wire>(&p) {
                            Ok(w) if w.from != me => return Some((w.sig, rx)),
                            Ok(_) => {}
                            Err(e) => {
                                tracing::warn!(error = %e, "redis sessions: a malformed signal was ignored")
                            }
                        },
                        // Missed signals: every use of a session reloads its record anyway.
                        Ok(_) => {}
                        Err(RecvError::Lagged(n)) => {
                            tracing::warn!(skipped = n, "redis sessions: signals were skipped")
                        }
                        Err(RecvError::Closed) => return None,
                    }
                }
            }
        });
        Some(stream.boxed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::LogLevel;
    use crate::redis::testing::RedisServer;
    use crate::session::store::tests::rec;

    #[tokio::test]
    async fn two_replicas_share_records_and_signals() {
        let server = RedisServer::start();
        let a = RedisSessionStore::new(Redis::open(&server.url(), "t:").unwrap());
        let b = RedisSessionStore::new(Redis::open(&server.url(), "t:").unwrap());
        let mut heard = b.signals().unwrap();
        let mut own = a.signals().unwrap();
        let ttl = Duration::from_millis(400);
        a.create(rec("s1"), ttl).await.unwrap();
        let got = b
            .touch("s1", ttl, Some("alice"))
            .await
            .unwrap()
            .expect("B sees A's session");
        assert_eq!(got, rec("s1"));
        assert!(a
            .update("s1", SessionChange::LogLevel(LogLevel::Error))
            .await
            .unwrap());
        assert!(a
            .update("s1", SessionChange::Subscribe("file:///a b".into()))
            .await
            .unwrap());
        assert!(a
            .update("s1", SessionChange::Subscribe("file:///c".into()))
            .await
            .unwrap());
        assert!(b
            .update("s1", SessionChange::Unsubscribe("file:///c".into()))
            .await
            .unwrap());
        for i in 0..40 {
            assert!(b
                .update("s1", SessionChange::Cancelled(i.to_string()))
                .await
                .unwrap());
        }
        let got = b.touch("s1", ttl, Some("alice")).await.unwrap().unwrap();
        assert_eq!(got.log_level, Some(LogLevel::Error));
        assert_eq!(got.subscriptions, vec!["file:///a b".to_string()]);
        assert_eq!(got.cancelled.len(), MAX_CANCELLED);
        assert_eq!(got.cancelled.last().map(String::as_str), Some("39"));
        // Use keeps it alive past its TTL; disuse ends it.
        for _ in 0..3 {
            tokio::time::sleep(Duration::from_millis(250)).await;
            assert!(a.touch("s1", ttl, Some("alice")).await.unwrap().is_some());
        }
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(b.touch("s1", ttl, Some("alice")).await.unwrap(), None);
        assert!(
            !a.update("s1", SessionChange::Subscribe("x".into()))
                .await
                .unwrap(),
            "no resurrection"
        );
        assert_eq!(b.touch("s1", ttl, Some("alice")).await.unwrap(), None);
        // DELETE.
        a.create(rec("s2"), ttl).await.unwrap();
        assert!(b.remove("s2").await.unwrap());
        assert!(!a.remove("s2").await.unwrap());
        // Signals reach the other replica, never the sender's own stream.
        tokio::time::sleep(Duration::from_millis(200)).await; // subscribed
        let sig = SessionSignal::Ended {
            session: "s2".into(),
        };
        a.signal(sig.clone()).await.unwrap();
        let got = tokio::time::timeout(Duration::from_secs(5), heard.next())
            .await
            .unwrap();
        assert_eq!(got, Some(sig));
        assert!(tokio::time::timeout(Duration::from_millis(300), own.next())
            .await
            .is_err());
    }

    #[tokio::test]
    async fn a_stream_record_is_shared_bound_and_lapses_with_its_lease() {
        let server = RedisServer::start();
        let a = RedisSessionStore::new(Redis::open(&server.url(), "t:").unwrap());
        let b = RedisSessionStore::new(Redis::open(&server.url(), "t:").unwrap());
        let lease = Duration::from_millis(300);
        a.open_stream("st1", Some("alice"), lease).await.unwrap();
        a.open_stream("st2", None, lease).await.unwrap();
        let got = b.stream("st1").await.unwrap().expect("B sees A's stream");
        assert_eq!(got.owner.as_deref(), Some("alice"));
        assert_eq!(got.replica, a.redis.replica());
        assert_eq!(got.session, None);
        assert_eq!(b.stream("st2").await.unwrap().unwrap().owner, None);
        assert!(b.bind_stream("st1", "sess").await.unwrap());
        assert_eq!(
            a.stream("st1").await.unwrap().unwrap().session.as_deref(),
            Some("sess")
        );
        // Renewed, it outlives its lease; left alone, it lapses (its holder died).
        for _ in 0..3 {
            tokio::time::sleep(Duration::from_millis(150)).await;
            assert!(a.renew_stream("st1", lease).await.unwrap());
        }
        assert!(b.stream("st2").await.unwrap().is_none());
        assert!(!a.renew_stream("st2", lease).await.unwrap());
        assert!(!b.bind_stream("st2", "x").await.unwrap(), "no resurrection");
        assert!(b.stream("st2").await.unwrap().is_none());
        a.close_stream("st1").await.unwrap();
        assert!(b.stream("st1").await.unwrap().is_none());
    }

    #[tokio::test]
    async fn redis_down_is_an_error_not_a_missing_session() {
        let mut server = RedisServer::start();
        let a = RedisSessionStore::new(Redis::open(&server.url(), "t:").unwrap());
        a.create(rec("s1"), Duration::from_secs(60)).await.unwrap();
        server.stop();
        assert!(a
            .touch("s1", Duration::from_secs(60), Some("alice"))
            .await
            .is_err());
        assert!(a
            .signal(SessionSignal::Ended {
                session: "s1".into()
            })
            .await
            .is_err());
        let e: crate::error::McpError = a.remove("s1").await.unwrap_err().into();
        assert_eq!(e.code, crate::error::ErrorCode::SERVER_BUSY);
        assert_eq!(e.http_status(crate::protocol::Era::Legacy), 503);
    }
}
