//! Legacy-era state: sessions (`Mcp-Session-Id` on HTTP, the process on stdio). The
//! server→client requests awaiting the client's answer are in `client_requests` (the crate's own module).
//!
//! - this module: `LegacySession` (this process's part of a session: cancel table, GET stream,
//!   close token), `SessionTable` (this process's cache of them), the per-connection cancel
//!   table and the held HTTP+SSE streams;
//! - [`store`]: [`store::SessionStore`], the serialisable `SessionRecord`s and the signals
//!   between replicas (in memory by default);
//! - [`redis`] (feature `redis`): `RedisSessionStore`, shared by the replicas;
//! - `server`: `Server::legacy_session` / `end_session` and the other replicas' signals.
//!
//! `server` sits with the dispatcher, the rest with the services it is built with:
//! `scripts/check-layers.py` places each.

#[cfg(feature = "redis")]
pub mod redis;
mod server;
pub mod store;

use crate::client_requests::{random_token, Sink};
use crate::error::McpError;
use crate::protocol::LogLevel;
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use store::{SessionChange, SessionRecord, SessionSignal, SessionStore};
use tokio_util::sync::CancellationToken;

/// Whether `id` is of the form this table gives out (`random_token(16)`: 32 lowercase hex
/// digits). Any other `Mcp-Session-Id` is unknown without asking the store: a client-chosen
/// value never becomes part of a store key (with Redis, `<id>:cx` named another key type).
fn is_session_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether `uri` is `sub` or below it (`sub` followed by `/`): what a resource subscription
/// covers, for a legacy session's `resources/subscribe` set and for `subscriptions/listen`.
pub(crate) fn covers(sub: &str, uri: &str) -> bool {
    uri == sub || (uri.starts_with(sub) && uri[sub.len()..].starts_with('/'))
}

/// One legacy session in this process: a cache of its [`SessionRecord`] (what `initialize`
/// negotiated, the owner, the log level and subscriptions, kept current from the store and from
/// other replicas' signals) plus what only this process has: the tokens of the requests it runs,
/// its open GET stream, and the signal that the session ended.
pub(crate) struct LegacySession {
    pub(crate) id: Option<String>,
    pub(crate) version: String,
    pub(crate) client_info: Option<Value>,
    pub(crate) client_capabilities: Value,
    pub(crate) log_level: Arc<Mutex<Option<LogLevel>>>,
    pub(crate) subscriptions: Mutex<HashSet<String>>,
    pub(crate) last_seen: Mutex<Instant>,
    /// Fires when the session ends (DELETE, expiry, shutdown).
    pub(crate) closed: CancellationToken,
    /// This session's requests, for `notifications/cancelled` sent on another POST.
    pub(crate) in_flight: Arc<Cancellable>,
    /// The caller that created the session (`initialize`), or on another replica the caller
    /// that loaded it (same identity key); its allow-list filters the session's events.
    pub(crate) owner: Option<crate::identity::Caller>,
    /// `Caller::key()` of the creator: only it may use the session.
    pub(crate) owner_key: Option<String>,
    /// Whose budget of `max_sessions_per_caller` this session counts against
    /// (`access::budget_key`); `None` for a copy loaded from a shared store, which counts on
    /// the replica that created it.
    pub(crate) budget: Option<String>,
    /// Where messages the server starts outside a request go: stdout on stdio, the open GET
    /// stream on HTTP (none while no stream is open). See `initiated.rs`.
    outbound: Mutex<Option<Sink>>,
    outbound_set: tokio::sync::Notify,
}

/// The requests `notifications/cancelled` can reach, by request id: one table per connection
/// (a legacy HTTP session, a stdio process). The dispatcher tracks every request it serves
/// (`Server::request_with_status`) and cancels through the table; transports only hand it over.
#[derive(Default)]
pub(crate) struct Cancellable {
    state: Mutex<CancelState>,
}

#[derive(Default)]
struct CancelState {
    running: HashMap<String, (CancellationToken, Arc<AtomicBool>)>,
    /// Ids cancelled before their request was seen (the notification overtook it on a
    /// concurrent transport). Ids are never reused within a session (the spec's MUST), so the
    /// request is cancelled as soon as it arrives. Bounded: the oldest are forgotten.
    early: VecDeque<String>,
}

const EARLY_CANCELS: usize = 32;

/// Untracks its request when dropped; says whether the client cancelled it.
pub(crate) struct Tracked<'a> {
    table: &'a Cancellable,
    key: String,
    cancelled: Arc<AtomicBool>,
}

impl Tracked<'_> {
    pub(crate) fn cancelled_by_client(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.table.lock().running.remove(&self.key);
    }
}

impl Cancellable {
    fn lock(&self) -> std::sync::MutexGuard<'_, CancelState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Track request `id`: cancelling it fires `token`.
    pub(crate) fn track(&self, id: &Value, token: &CancellationToken) -> Tracked<'_> {
        let key = id.to_string();
        let cancelled = Arc::new(AtomicBool::new(false));
        let mut st = self.lock();
        if let Some(i) = st.early.iter().position(|k| *k == key) {
            st.early.remove(i);
            cancelled.store(true, Ordering::SeqCst);
            token.cancel();
        }
        st.running
            .insert(key.clone(), (token.clone(), cancelled.clone()));
        drop(st);
        Tracked {
            table: self,
            key,
            cancelled,
        }
    }

    /// `notifications/cancelled` for request `id`.
    pub(crate) fn cancel(&self, id: &Value) {
        self.cancel_key(id.to_string())
    }

    /// As [`Cancellable::cancel`], by the id's JSON text (as stored for other replicas).
    pub(crate) fn cancel_key(&self, key: String) {
        let mut st = self.lock();
        match st.running.get(&key) {
            Some((t, flag)) => {
                flag.store(true, Ordering::SeqCst);
                t.cancel();
            }
            None if st.early.contains(&key) => {}
            None => {
                if st.early.len() >= EARLY_CANCELS {
                    st.early.pop_front();
                }
                st.early.push_back(key);
            }
        }
    }
}

impl LegacySession {
    pub(crate) fn new(
        id: Option<String>,
        version: String,
        client_info: Option<Value>,
        caps: Value,
    ) -> Self {
        Self {
            id,
            version,
            client_info,
            client_capabilities: caps,
            log_level: Arc::new(Mutex::new(None)),
            subscriptions: Mutex::new(HashSet::new()),
            last_seen: Mutex::new(Instant::now()),
            closed: CancellationToken::new(),
            in_flight: Arc::default(),
            owner: None,
            owner_key: None,
            budget: None,
            outbound: Mutex::new(None),
            outbound_set: tokio::sync::Notify::new(),
        }
    }

    /// The same session, owned by `owner`.
    pub(crate) fn owned_by(mut self, owner: Option<crate::identity::Caller>) -> Self {
        self.owner_key = owner.as_ref().map(|c| c.key().into_owned());
        self.owner = owner;
        self
    }

    /// This process's copy of a stored session, loaded for `caller`, who passed the owner check
    /// on the stored record (so the owner seen by event filters is the record's).
    fn from_record(rec: &SessionRecord, caller: Option<&crate::identity::Caller>) -> Self {
        let mut s = Self::new(
            Some(rec.id.clone()),
            rec.version.clone(),
            rec.client_info.clone(),
            rec.client_capabilities.clone(),
        );
        s.owner_key = rec.owner.clone();
        s.owner = caller
            .filter(|c| Some(c.key().as_ref()) == rec.owner.as_deref())
            .cloned();
        s.refresh(rec);
        s
    }

    /// The record as stored.
    fn record(&self) -> SessionRecord {
        SessionRecord {
            id: self.id.clone().unwrap_or_default(),
            version: self.version.clone(),
            client_info: self.client_info.clone(),
            client_capabilities: self.client_capabilities.clone(),
            owner: self.owner_key.clone(),
            log_level: *self.log_level.lock().unwrap_or_else(|e| e.into_inner()),
            subscriptions: self
                .subscriptions
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .cloned()
                .collect(),
            cancelled: Vec::new(),
        }
    }

    /// Bring the mutable part up to date with the stored record (another replica may have
    /// changed it, and a signal can be missed while pub/sub reconnects).
    fn refresh(&self, rec: &SessionRecord) {
        *self.log_level.lock().unwrap_or_else(|e| e.into_inner()) = rec.log_level;
        *self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()) =
            rec.subscriptions.iter().cloned().collect();
        for id in &rec.cancelled {
            self.in_flight.cancel_key(id.clone());
        }
    }

    /// Apply a change made here or on another replica.
    pub(crate) fn apply(&self, change: &SessionChange) {
        match change {
            SessionChange::LogLevel(l) => {
                *self.log_level.lock().unwrap_or_else(|e| e.into_inner()) = Some(*l)
            }
            SessionChange::Subscribe(u) => {
                self.subscriptions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(u.clone());
            }
            SessionChange::Unsubscribe(u) => {
                self.subscriptions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(u);
            }
            SessionChange::Cancelled(id) => self.in_flight.cancel_key(id.clone()),
            #[allow(unreachable_patterns)]
            _ => {}
        }
    }

    /// May `caller` use this session? Only its creator (by identity key); a session created
    /// without a caller only by requests without one (a host that authenticates some requests
    /// itself, `admit_as`, must not let an anonymous session be taken over, nor the reverse).
    pub(crate) fn usable_by(&self, caller: Option<&crate::identity::Caller>) -> bool {
        self.owner_key.as_deref() == caller.map(|c| c.key()).as_deref()
    }

    /// The stream to the client for server-initiated messages, if one is open.
    pub(crate) fn outbound(&self) -> Option<Sink> {
        self.outbound
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .filter(|s| !s.is_closed())
    }
    pub(crate) fn set_outbound(&self, sink: Option<Sink>) {
        let has = sink.is_some();
        *self.outbound.lock().unwrap_or_else(|e| e.into_inner()) = sink;
        if has {
            self.outbound_set.notify_waiters();
        }
    }
    /// Resolves when a stream is next set.
    pub(crate) async fn outbound_ready(&self) {
        self.outbound_set.notified().await
    }

    pub(crate) fn touch(&self) {
        *self.last_seen.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        let subs = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
        subs.iter().any(|s| covers(s, uri))
    }

    fn idle_for(&self) -> Duration {
        self.last_seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
    }
}

/// What another replica tells the holder of an HTTP+SSE stream (`transport/sse.rs`).
pub(crate) enum StreamNews {
    /// An event to send down the stream, as its wire text.
    Event(String),
    /// The legacy session `initialize` made for the stream.
    Bound(String),
}

/// The HTTP+SSE streams this process holds, for the other replicas' signals about them (a
/// shared session store only).
#[derive(Default)]
pub(crate) struct HeldStreams {
    map: Mutex<HashMap<String, tokio::sync::mpsc::UnboundedSender<StreamNews>>>,
}

impl HeldStreams {
    fn map(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, tokio::sync::mpsc::UnboundedSender<StreamNews>>>
    {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
    pub(crate) fn hold(&self, id: &str, tx: tokio::sync::mpsc::UnboundedSender<StreamNews>) {
        self.map().insert(id.to_string(), tx);
    }
    pub(crate) fn release(&self, id: &str) {
        self.map().remove(id);
    }
    fn tell(&self, id: &str, news: StreamNews) {
        if let Some(tx) = self.map().get(id) {
            let _ = tx.send(news);
        }
    }
}

/// This process's copies of sessions, with the count of each `max_sessions_per_caller` budget
/// kept beside them: an `initialize` checks its caller's budget without visiting every session.
#[derive(Default)]
struct Cache {
    sessions: HashMap<String, Arc<LegacySession>>,
    budgets: HashMap<String, usize>,
    /// When the idle sweep last ran. It visits every session, so `create` runs it at most once
    /// per [`SessionTable::sweep_every`], and at once when a limit would refuse the session.
    swept: Option<Instant>,
}

impl Cache {
    fn len(&self) -> usize {
        self.sessions.len()
    }
    fn get(&self, id: &str) -> Option<&Arc<LegacySession>> {
        self.sessions.get(id)
    }
    fn count(&mut self, s: &LegacySession, up: bool) {
        let Some(b) = &s.budget else { return };
        if up {
            *self.budgets.entry(b.clone()).or_default() += 1;
        } else if let Some(n) = self.budgets.get_mut(b) {
            *n -= 1;
            if *n == 0 {
                self.budgets.remove(b);
            }
        }
    }
    fn insert(&mut self, id: String, s: Arc<LegacySession>) {
        self.count(&s, true);
        if let Some(old) = self.sessions.insert(id, s) {
            self.count(&old, false);
        }
    }
    fn remove(&mut self, id: &str) -> Option<Arc<LegacySession>> {
        let s = self.sessions.remove(id)?;
        self.count(&s, false);
        Some(s)
    }
    fn drain(&mut self) -> Vec<Arc<LegacySession>> {
        self.budgets.clear();
        self.sessions.drain().map(|(_, s)| s).collect()
    }
    fn held_by(&self, budget: &Option<String>) -> usize {
        budget
            .as_ref()
            .and_then(|b| self.budgets.get(b))
            .copied()
            .unwrap_or(0)
    }
}

/// HTTP legacy sessions: the [`SessionStore`] (the truth, maybe shared by several replicas)
/// and this process's cache of the sessions it has served, with idle expiry and a cap.
pub(crate) struct SessionTable {
    map: Mutex<Cache>,
    pub(crate) store: Arc<dyn SessionStore>,
    idle: Duration,
    cap: usize,
    per_caller: usize,
}

impl SessionTable {
    pub(crate) fn new(
        store: Arc<dyn SessionStore>,
        idle: Duration,
        cap: usize,
        per_caller: usize,
    ) -> Self {
        Self {
            map: Mutex::new(Cache::default()),
            store,
            idle,
            cap,
            per_caller,
        }
    }

    /// Sessions held in this process now (the metrics' gauge).
    pub(crate) fn open(&self) -> usize {
        self.map().len()
    }

    fn map(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Mint a session id (visible ASCII, 128 random bits) and store the session. `budget`:
    /// whose `max_sessions_per_caller` it counts against (`access::budget_key`; `None`: only
    /// `max_sessions` applies).
    pub(crate) async fn create(
        &self,
        version: String,
        client_info: Option<Value>,
        caps: Value,
        owner: Option<crate::identity::Caller>,
        budget: Option<String>,
    ) -> Result<Arc<LegacySession>, McpError> {
        let id = random_token(16);
        let mut s =
            LegacySession::new(Some(id.clone()), version, client_info, caps).owned_by(owner);
        s.budget = budget;
        let s = Arc::new(s);
        {
            // The session holds its places from here on, so that concurrent initializes of one
            // caller cannot all pass the check before any of them is counted.
            let mut map = self.map();
            let shared = self.store.is_shared();
            let due = map.swept.is_none_or(|t| t.elapsed() >= self.sweep_every());
            let full = |m: &Cache| {
                m.len() >= self.cap
                    || (s.budget.is_some() && m.held_by(&s.budget) >= self.per_caller)
            };
            if due || full(&map) {
                Self::sweep(&mut map, self.idle, shared);
            }
            if map.len() >= self.cap {
                return Err(McpError::internal("too many sessions").with_status(503));
            }
            if s.budget.is_some() && map.held_by(&s.budget) >= self.per_caller {
                return Err(McpError::internal(format!(
                    "too many sessions: a caller may hold {} at once",
                    self.per_caller
                ))
                .with_status(503));
            }
            map.insert(id.clone(), s.clone());
        }
        if let Err(e) = self.store.create(s.record(), self.idle).await {
            self.map().remove(&id);
            return Err(e.into());
        }
        Ok(s)
    }

    /// The session `id`, loaded from the store when this process has not seen it yet, for
    /// `caller` (the owner check is the transport's, `LegacySession::usable_by`). Every call is
    /// a use: it restarts the session's TTL in the store. `Ok(None)`: there is no such session
    /// (any more); `Err`: the store cannot be reached.
    pub(crate) async fn get(
        &self,
        id: &str,
        caller: Option<&crate::identity::Caller>,
    ) -> Result<Option<Arc<LegacySession>>, McpError> {
        if !is_session_id(id) {
            return Ok(None);
        }
        // The owner check comes first, from the stored owner: another caller's request neither
        // gets the session nor keeps it alive, nor makes this process load a copy of it.
        let user = caller.map(|c| c.key());
        if !self.store.is_shared() {
            if let Some(s) = self.cached(id) {
                if !s.usable_by(caller) {
                    return Ok(None);
                }
                if !self.store.keep_alive(id, self.idle).await? {
                    self.evict(id);
                    return Ok(None);
                }
                s.touch();
                return Ok(Some(s));
            }
        }
        let rec = self.store.touch(id, self.idle, user.as_deref()).await?;
        let Some(rec) = rec else {
            self.evict(id);
            return Ok(None);
        };
        if !rec.usable_by(user.as_deref()) {
            return Ok(None);
        }
        let s = {
            let mut map = self.map();
            match map.get(id) {
                Some(s) => {
                    s.refresh(&rec);
                    s.clone()
                }
                None => {
                    let s = Arc::new(LegacySession::from_record(&rec, caller));
                    map.insert(id.to_string(), s.clone());
                    s
                }
            }
        };
        s.touch();
        Ok(Some(s))
    }

    /// This process's copy of session `id`, if it has one (no store access).
    pub(crate) fn cached(&self, id: &str) -> Option<Arc<LegacySession>> {
        self.map().get(id).cloned()
    }

    /// Record a change made through this process (the local copy is changed already).
    pub(crate) async fn update(&self, id: &str, change: SessionChange) -> Result<(), McpError> {
        self.store.update(id, change.clone()).await?;
        if self.store.is_shared() {
            self.store
                .signal(SessionSignal::Changed {
                    session: id.to_string(),
                    change,
                })
                .await?;
        }
        Ok(())
    }

    /// End session `id` everywhere (DELETE).
    pub(crate) async fn remove(&self, id: &str) -> Result<bool, McpError> {
        if !is_session_id(id) {
            return Ok(false);
        }
        let removed = self.store.remove(id).await?;
        if self.store.is_shared() {
            self.store
                .signal(SessionSignal::Ended {
                    session: id.to_string(),
                })
                .await?;
        }
        Ok(self.evict(id) || removed)
    }

    /// Drop this process's copy of `id` and close it (its GET stream ends).
    pub(crate) fn evict(&self, id: &str) -> bool {
        match self.map().remove(id) {
            Some(s) => {
                s.closed.cancel();
                true
            }
            None => false,
        }
    }

    pub(crate) fn close_all(&self) {
        for s in self.map().drain() {
            s.closed.cancel();
        }
    }

    /// Forget copies idle here for longer than the TTL. With a shared store one with an open GET
    /// stream stays: the session may be in use on another replica (its end reaches this one as
    /// a signal).
    fn sweep(map: &mut Cache, idle: Duration, shared: bool) {
        map.swept = Some(Instant::now());
        let gone: Vec<String> = map
            .sessions
            .iter()
            .filter(|(_, s)| !(s.idle_for() <= idle || (shared && s.outbound().is_some())))
            .map(|(id, _)| id.clone())
            .collect();
        for id in gone {
            if let Some(s) = map.remove(&id) {
                s.closed.cancel();
            }
        }
    }

    /// How often `create` sweeps at most: a session idle past its TTL is gone within this much
    /// more (a lookup checks the TTL itself), and the sweep's cost is shared by the sessions
    /// created meanwhile instead of paid by each.
    fn sweep_every(&self) -> Duration {
        self.idle.min(Duration::from_secs(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_cancellation_reaches_its_request_even_when_it_arrives_first() {
        let table = Cancellable::default();
        let (a, b) = (CancellationToken::new(), CancellationToken::new());
        {
            let t = table.track(&json!(1), &a);
            table.cancel(&json!(1));
            assert!(a.is_cancelled() && t.cancelled_by_client());
        }
        // The notification overtook its request (concurrent transport): remembered.
        table.cancel(&json!("late"));
        let t = table.track(&json!("late"), &b);
        assert!(b.is_cancelled() && t.cancelled_by_client());
        // An untracked request is not cancelled by a stray id; the memory is bounded.
        for i in 0..100 {
            table.cancel(&json!(i + 1000));
        }
        assert!(table.lock().early.len() <= EARLY_CANCELS);
        let c = CancellationToken::new();
        let t = table.track(&json!(2), &c);
        assert!(!c.is_cancelled() && !t.cancelled_by_client());
    }

    fn table(idle: Duration, per_caller: usize) -> SessionTable {
        let store = Arc::new(super::store::InMemorySessionStore::new());
        SessionTable::new(store, idle, 100, per_caller)
    }

    async fn open(t: &SessionTable, who: &str) -> Result<Arc<LegacySession>, McpError> {
        t.create("2025-11-25".into(), None, json!({}), None, Some(who.into()))
            .await
    }

    #[tokio::test]
    async fn the_budget_counts_follow_every_way_a_session_leaves() {
        let t = table(Duration::from_secs(60), 2);
        let a = open(&t, "alice").await.unwrap();
        open(&t, "alice").await.unwrap();
        let Err(e) = open(&t, "alice").await else {
            panic!("a third is refused")
        };
        assert!(e.to_string().contains("may hold 2"), "{e}");
        open(&t, "bob").await.expect("another budget is apart");
        // Evicted, removed, closed: each gives its place back.
        assert!(t.evict(a.id.as_deref().unwrap()));
        let b = open(&t, "alice").await.expect("room after an eviction");
        assert!(t.remove(b.id.as_deref().unwrap()).await.unwrap());
        open(&t, "alice").await.expect("room after a removal");
        t.close_all();
        assert_eq!(t.open(), 0);
        assert!(t.map().budgets.is_empty());
        open(&t, "alice").await.unwrap();
        open(&t, "alice").await.expect("room after close_all");
    }

    #[tokio::test]
    async fn a_full_budget_sweeps_before_it_refuses() {
        // Between two timed sweeps: the caller's idle sessions are swept at once when they are
        // all that stands in the way.
        let t = table(Duration::from_millis(30), 1);
        open(&t, "alice").await.unwrap();
        tokio::time::sleep(Duration::from_millis(40)).await;
        t.map().swept = Some(Instant::now());
        open(&t, "alice")
            .await
            .expect("the expired session made room");
        assert_eq!(t.map().held_by(&Some("alice".into())), 1);
        assert_eq!(t.open(), 1);
    }
}
