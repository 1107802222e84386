//! Where legacy sessions live (`Mcp-Session-Id`, the 2024-11-05 … 2025-11-25 era). A session's
//! *serialisable* part — what `initialize` negotiated, whose it is, its log level and
//! subscriptions — is a [`SessionRecord`] in a [`SessionStore`]; its *per-process* part (the
//! cancellation tokens of its running requests, the open GET stream, the close signal) stays in
//! this process's `LegacySession`, which is a cache of the record (`session/mod.rs`).
//!
//! The default store is this process's memory: one replica, today's behaviour. A shared store
//! (Redis, `session/redis.rs`) lets any replica serve any POST, GET or DELETE of a session: an
//! unknown id is loaded from the store, and what one replica changes reaches the others as a
//! [`SessionSignal`] (subscriptions, log level, cancellations, the end of the session, and the
//! client's answers to server→client requests sent by the replica running the handler).

use crate::handler::BoxFuture;
use crate::protocol::LogLevel;
use futures::stream::BoxStream;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A store failure (Redis unreachable, say). Legacy session operations answer it with HTTP 503
/// and JSON-RPC -31503: the session may well be fine, this replica cannot reach it right now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionStoreError(pub String);

impl std::fmt::Display for SessionStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "session store: {}", self.0)
    }
}
impl std::error::Error for SessionStoreError {}

/// The client's answer says only that sessions are unavailable: what failed (a Redis error kind,
/// a script digest, an OS error) is the operator's to read, in the log, not a caller's.
impl From<SessionStoreError> for crate::error::McpError {
    fn from(e: SessionStoreError) -> Self {
        tracing::warn!(error = %e, "legacy sessions are unavailable");
        crate::error::McpError::new(
            crate::error::ErrorCode::SERVER_BUSY,
            "Legacy sessions are unavailable right now; retry later",
        )
        .with_status(503)
    }
}

/// The serialisable part of one legacy session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    pub id: String,
    /// The negotiated protocol revision.
    pub version: String,
    pub client_info: Option<Value>,
    pub client_capabilities: Value,
    /// `Caller::key()` of the caller that created it (`None`: created without auth, anyone's).
    pub owner: Option<String>,
    /// `logging/setLevel` (`None`: everything).
    pub log_level: Option<LogLevel>,
    /// `resources/subscribe` URIs.
    pub subscriptions: Vec<String>,
    /// Request ids (their JSON text) the client cancelled, newest last, at most
    /// [`MAX_CANCELLED`]: a cancel that reached one replica before its request reached another
    /// still cancels it there (`session::Cancellable`'s early cancels, across replicas). Only a
    /// shared store keeps them.
    #[serde(default)]
    pub cancelled: Vec<String>,
}

/// How many cancelled request ids a shared store keeps per session.
pub const MAX_CANCELLED: usize = 32;

/// One change to a stored session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "k", content = "v", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SessionChange {
    LogLevel(LogLevel),
    Subscribe(String),
    Unsubscribe(String),
    /// `notifications/cancelled` for this request id (its JSON text).
    Cancelled(String),
}

/// What one replica tells the others about a session (a shared store only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SessionSignal {
    /// DELETE: drop the cached copy, close the GET stream.
    Ended { session: String },
    /// The session changed (a replica with it cached applies the change).
    Changed {
        session: String,
        change: SessionChange,
    },
    /// The client's JSON-RPC response to a server→client request, POSTed to another replica
    /// than the one waiting for it.
    Response { session: String, msg: Value },
    /// A server-initiated message (outside a request) for the session's GET stream, wherever
    /// that stream is open.
    Outbound { session: String, msg: Value },
    /// HTTP+SSE: an event (its wire text) for stream `stream`, from a replica that served a POST
    /// of it; the replica holding the stream sends it down.
    StreamEvent { stream: String, event: String },
    /// HTTP+SSE: `initialize`, POSTed to another replica, made legacy session `session` for
    /// stream `stream`: the replica holding the stream binds the session to it.
    StreamBound { stream: String, session: String },
}

impl SessionSignal {
    /// The session the signal is about (for a stream's signals: the stream).
    pub fn session(&self) -> &str {
        match self {
            Self::Ended { session }
            | Self::Changed { session, .. }
            | Self::Response { session, .. }
            | Self::Outbound { session, .. } => session,
            Self::StreamEvent { stream, .. } | Self::StreamBound { stream, .. } => stream,
        }
    }
}

/// An HTTP+SSE stream as a shared store holds it, so that a POST for it is served by whichever
/// replica it lands on: who opened it, the replica holding it, and the legacy session
/// `initialize` bound to it. It lives as long as its holder renews its lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamRecord {
    /// `Caller::key()` of who opened it (`None`: opened without auth).
    pub owner: Option<String>,
    /// The replica holding it.
    pub replica: String,
    pub session: Option<String>,
}

/// Legacy session records. Every method is at most one round trip on a remote store.
pub trait SessionStore: Send + Sync + 'static {
    /// Store a new session, alive for `ttl` unless used.
    fn create(&self, rec: SessionRecord, ttl: Duration)
        -> BoxFuture<Result<(), SessionStoreError>>;
    /// A use of the session by `user` (a caller's identity key; `None` without auth): its
    /// record, with its TTL restarted only when `user` may use it (the record's owner, or a
    /// session with no owner), decided from the stored owner before anything changes (the
    /// server then answers another caller as if there were no session); `None` when it is gone
    /// (deleted, expired, never existed).
    fn touch(
        &self,
        id: &str,
        ttl: Duration,
        user: Option<&str>,
    ) -> BoxFuture<Result<Option<SessionRecord>, SessionStoreError>>;
    /// [`touch`](Self::touch) by the owner, without reading the record back: `Ok(false)` when
    /// the session is gone. A store that is not shared has nothing newer than this process's
    /// own copy, so the server uses this for every request of a session it already holds, once
    /// its owner check passed (no record clone on the legacy hot path).
    fn keep_alive(&self, id: &str, ttl: Duration) -> BoxFuture<Result<bool, SessionStoreError>> {
        let touched = self.touch(id, ttl, None);
        Box::pin(async move { touched.await.map(|r| r.is_some()) })
    }
    /// Apply one change; `Ok(false)` when the session is gone.
    fn update(&self, id: &str, change: SessionChange)
        -> BoxFuture<Result<bool, SessionStoreError>>;
    /// End the session; `Ok(false)` when there was none.
    fn remove(&self, id: &str) -> BoxFuture<Result<bool, SessionStoreError>>;

    /// Whether other processes share this store (then the server sends and hears
    /// [`SessionSignal`]s, and keeps cancellations in the record).
    fn is_shared(&self) -> bool {
        false
    }
    /// Tell the other replicas (a store that is not shared has none).
    fn signal(&self, _s: SessionSignal) -> BoxFuture<Result<(), SessionStoreError>> {
        Box::pin(async { Ok(()) })
    }
    /// The other replicas' signals (never this process's own), for as long as the server runs.
    /// Called once, when the server is built; a store that is not shared returns `None`.
    fn signals(&self) -> Option<BoxStream<'static, SessionSignal>> {
        None
    }
    /// Remember for `ttl` that session `id` (of `owner`, a caller's identity key) was just ended,
    /// where every replica can read it: a DELETE a proxy re-sends to another replica then gets
    /// the first one's success. A store that is not shared keeps nothing (the process does).
    fn mark_ended(
        &self,
        _id: &str,
        _owner: Option<&str>,
        _ttl: Duration,
    ) -> BoxFuture<Result<(), SessionStoreError>> {
        Box::pin(async { Ok(()) })
    }
    /// What [`Self::mark_ended`] remembers of `id`: `Some(owner)` while it lasts.
    fn ended(&self, _id: &str) -> BoxFuture<Result<Option<Option<String>>, SessionStoreError>> {
        Box::pin(async { Ok(None) })
    }

    /// HTTP+SSE stream `id`, opened here by `owner`, for `lease` unless renewed
    /// ([`Self::renew_stream`]): a replica that dies stops renewing, and its streams are gone.
    /// A store that is not shared keeps nothing (the process holds its streams).
    fn open_stream(
        &self,
        _id: &str,
        _owner: Option<&str>,
        _lease: Duration,
    ) -> BoxFuture<Result<(), SessionStoreError>> {
        Box::pin(async { Ok(()) })
    }
    /// Stream `id`, held by another replica (or this one); `None` when it is gone.
    fn stream(&self, _id: &str) -> BoxFuture<Result<Option<StreamRecord>, SessionStoreError>> {
        Box::pin(async { Ok(None) })
    }
    /// Bind legacy session `session` to stream `id`; `Ok(false)` when the stream is gone.
    fn bind_stream(&self, _id: &str, _session: &str) -> BoxFuture<Result<bool, SessionStoreError>> {
        Box::pin(async { Ok(false) })
    }
    /// Renew stream `id`'s lease; `Ok(false)` when it is gone.
    fn renew_stream(
        &self,
        _id: &str,
        _lease: Duration,
    ) -> BoxFuture<Result<bool, SessionStoreError>> {
        Box::pin(async { Ok(false) })
    }
    /// Forget stream `id` (it closed).
    fn close_stream(&self, _id: &str) -> BoxFuture<Result<(), SessionStoreError>> {
        Box::pin(async { Ok(()) })
    }
}

/// The default: records in this process's memory (one replica; lost on restart).
#[derive(Default)]
pub struct InMemorySessionStore {
    map: Mutex<HashMap<String, (SessionRecord, Instant)>>,
    /// When `create` last dropped the expired records. That visits every record, so it runs at
    /// most once per TTL or second (a lookup checks the deadline itself): one `initialize` does
    /// not pay for all the sessions open.
    swept: Mutex<Option<Instant>>,
}

impl InMemorySessionStore {
    pub fn new() -> Self {
        Self::default()
    }
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, (SessionRecord, Instant)>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
    /// Live sessions held (expired ones are dropped as they are met).
    pub fn len(&self) -> usize {
        let now = Instant::now();
        let mut map = self.map();
        map.retain(|_, (_, deadline)| *deadline > now);
        map.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl SessionStore for InMemorySessionStore {
    fn create(
        &self,
        rec: SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<Result<(), SessionStoreError>> {
        let now = Instant::now();
        let mut map = self.map();
        {
            let mut swept = self.swept.lock().unwrap_or_else(|e| e.into_inner());
            if swept.is_none_or(|t| now.duration_since(t) >= ttl.min(Duration::from_secs(1))) {
                map.retain(|_, (_, deadline)| *deadline > now);
                *swept = Some(now);
            }
        }
        map.insert(rec.id.clone(), (rec, now + ttl));
        Box::pin(async { Ok(()) })
    }
    fn touch(
        &self,
        id: &str,
        ttl: Duration,
        user: Option<&str>,
    ) -> BoxFuture<Result<Option<SessionRecord>, SessionStoreError>> {
        let now = Instant::now();
        let mut map = self.map();
        let r = match map.get_mut(id) {
            Some((_, deadline)) if *deadline <= now => {
                map.remove(id);
                None
            }
            Some((rec, deadline)) => {
                if rec.usable_by(user) {
                    *deadline = now + ttl;
                }
                Some(rec.clone())
            }
            None => None,
        };
        Box::pin(async { Ok(r) })
    }
    fn keep_alive(&self, id: &str, ttl: Duration) -> BoxFuture<Result<bool, SessionStoreError>> {
        let now = Instant::now();
        let mut map = self.map();
        let alive = match map.get_mut(id) {
            Some((_, deadline)) if *deadline > now => {
                *deadline = now + ttl;
                true
            }
            Some(_) => {
                map.remove(id);
                false
            }
            None => false,
        };
        Box::pin(async move { Ok(alive) })
    }
    fn update(
        &self,
        id: &str,
        change: SessionChange,
    ) -> BoxFuture<Result<bool, SessionStoreError>> {
        let r = match self.map().get_mut(id) {
            Some((rec, _)) => {
                rec.apply(&change, false);
                true
            }
            None => false,
        };
        Box::pin(async move { Ok(r) })
    }
    fn remove(&self, id: &str) -> BoxFuture<Result<bool, SessionStoreError>> {
        let r = self.map().remove(id).is_some();
        Box::pin(async move { Ok(r) })
    }
}

impl SessionRecord {
    /// May the caller with identity key `user` use this session? Its owner only; a session
    /// created without a caller only requests without one.
    pub fn usable_by(&self, user: Option<&str>) -> bool {
        self.owner.as_deref() == user
    }

    /// Apply `change`; cancellations are kept only when `keep_cancels` (a shared store).
    pub fn apply(&mut self, change: &SessionChange, keep_cancels: bool) {
        match change {
            SessionChange::LogLevel(l) => self.log_level = Some(*l),
            SessionChange::Subscribe(u) => {
                if !self.subscriptions.contains(u) {
                    self.subscriptions.push(u.clone());
                }
            }
            SessionChange::Unsubscribe(u) => self.subscriptions.retain(|s| s != u),
            SessionChange::Cancelled(id) if keep_cancels => {
                if !self.cancelled.contains(id) {
                    if self.cancelled.len() >= MAX_CANCELLED {
                        self.cancelled.remove(0);
                    }
                    self.cancelled.push(id.clone());
                }
            }
            SessionChange::Cancelled(_) => {}
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// A session record for the stores' tests (this one's and the Redis store's).
    pub(crate) fn rec(id: &str) -> SessionRecord {
        SessionRecord {
            id: id.into(),
            version: "2025-06-18".into(),
            client_info: Some(json!({"name": "t", "version": "1"})),
            client_capabilities: json!({"elicitation": {}}),
            owner: Some("alice".into()),
            log_level: None,
            subscriptions: vec![],
            cancelled: vec![],
        }
    }

    #[tokio::test]
    async fn the_memory_store_keeps_a_session_while_it_is_used_and_forgets_it_after() {
        let s = InMemorySessionStore::new();
        let ttl = Duration::from_millis(150);
        s.create(rec("a"), ttl).await.unwrap();
        for _ in 0..3 {
            tokio::time::sleep(Duration::from_millis(80)).await;
            assert!(
                s.touch("a", ttl, Some("alice")).await.unwrap().is_some(),
                "use restarts the TTL"
            );
        }
        assert!(s
            .update("a", SessionChange::LogLevel(LogLevel::Error))
            .await
            .unwrap());
        assert!(s
            .update("a", SessionChange::Subscribe("file:///x".into()))
            .await
            .unwrap());
        assert!(s
            .update("a", SessionChange::Cancelled("7".into()))
            .await
            .unwrap());
        let r = s.touch("a", ttl, Some("alice")).await.unwrap().unwrap();
        assert_eq!(r.log_level, Some(LogLevel::Error));
        assert_eq!(r.subscriptions, vec!["file:///x".to_string()]);
        assert!(
            r.cancelled.is_empty(),
            "one process needs no stored cancels"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(
            s.touch("a", ttl, Some("alice")).await.unwrap(),
            None,
            "expired"
        );
        assert!(!s
            .update("a", SessionChange::Unsubscribe("x".into()))
            .await
            .unwrap());
        s.create(rec("b"), ttl).await.unwrap();
        assert!(s.remove("b").await.unwrap());
        assert!(!s.remove("b").await.unwrap());
        assert!(s.is_empty());
    }

    #[test]
    fn records_and_signals_round_trip_as_json() {
        let mut r = rec("a");
        r.log_level = Some(LogLevel::Warning);
        for i in 0..40 {
            r.apply(&SessionChange::Cancelled(i.to_string()), true);
        }
        assert_eq!(r.cancelled.len(), MAX_CANCELLED);
        assert_eq!(r.cancelled[0], "8");
        let back: SessionRecord =
            serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
        assert_eq!(back, r);
        let sig = SessionSignal::Changed {
            session: "a".into(),
            change: SessionChange::LogLevel(LogLevel::Debug),
        };
        let j = serde_json::to_value(&sig).unwrap();
        assert_eq!(
            j,
            json!({"t": "changed", "session": "a", "change": {"k": "log_level", "v": "debug"}})
        );
        assert_eq!(serde_json::from_value::<SessionSignal>(j).unwrap(), sig);
    }
}
