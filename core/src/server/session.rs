//! Legacy-era state: sessions (`Mcp-Session-Id` on HTTP, the process on stdio). The
//! server→client requests awaiting the client's answer are in [`crate::client_requests`].

use crate::client_requests::{random_token, Sink};
use crate::error::McpError;
use crate::protocol::LogLevel;
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// One legacy session: what `initialize` negotiated, plus per-session settings.
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
    /// The caller that created the session (`initialize`); only it may use the session
    /// (issue 11, finding 8), and its allow-list filters the session's events (finding 4).
    pub(crate) owner: Option<crate::identity::Caller>,
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
        let key = id.to_string();
        let mut st = self.lock();
        match st.running.get(&key) {
            Some((t, flag)) => {
                flag.store(true, Ordering::SeqCst);
                t.cancel();
            }
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
            outbound: Mutex::new(None),
            outbound_set: tokio::sync::Notify::new(),
        }
    }

    /// The same session, owned by `owner`.
    pub(crate) fn owned_by(mut self, owner: Option<crate::identity::Caller>) -> Self {
        self.owner = owner;
        self
    }

    /// May `caller` use this session? Only its creator (by identity key); a session created
    /// without auth is anyone's.
    pub(crate) fn usable_by(&self, caller: Option<&crate::identity::Caller>) -> bool {
        match &self.owner {
            None => true,
            Some(o) => caller.is_some_and(|c| c.key() == o.key()),
        }
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
        subs.iter().any(|s| super::listen::covers(s, uri))
    }
}

/// HTTP legacy sessions, with idle expiry and a cap.
pub(crate) struct SessionTable {
    map: Mutex<HashMap<String, Arc<LegacySession>>>,
    idle: Duration,
    cap: usize,
}

impl SessionTable {
    pub(crate) fn new(idle: Duration, cap: usize) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            idle,
            cap,
        }
    }

    /// Mint a session id (visible ASCII, 128 random bits) and store the session.
    pub(crate) fn create(
        &self,
        version: String,
        client_info: Option<Value>,
        caps: Value,
        owner: Option<crate::identity::Caller>,
    ) -> Result<Arc<LegacySession>, McpError> {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        Self::sweep(&mut map, self.idle);
        if map.len() >= self.cap {
            return Err(McpError::internal("too many sessions").with_status(503));
        }
        let id = random_token(16);
        let s = Arc::new(
            LegacySession::new(Some(id.clone()), version, client_info, caps).owned_by(owner),
        );
        map.insert(id, s.clone());
        Ok(s)
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<LegacySession>> {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        let s = map.get(id)?.clone();
        if s.last_seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
            > self.idle
        {
            map.remove(id);
            s.closed.cancel();
            return None;
        }
        s.touch();
        Some(s)
    }

    pub(crate) fn remove(&self, id: &str) -> bool {
        match self
            .map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id)
        {
            Some(s) => {
                s.closed.cancel();
                true
            }
            None => false,
        }
    }

    pub(crate) fn close_all(&self) {
        for (_, s) in self.map.lock().unwrap_or_else(|e| e.into_inner()).drain() {
            s.closed.cancel();
        }
    }

    fn sweep(map: &mut HashMap<String, Arc<LegacySession>>, idle: Duration) {
        map.retain(|_, s| {
            let alive = s
                .last_seen
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .elapsed()
                <= idle;
            if !alive {
                s.closed.cancel();
            }
            alive
        });
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
}
