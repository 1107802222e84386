//! Legacy-era state: sessions (`Mcp-Session-Id` on HTTP, the process on stdio). The
//! server→client requests awaiting the client's answer are in [`crate::client_requests`].

use crate::client_requests::random_token;
use crate::error::McpError;
use crate::protocol::LogLevel;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
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
    /// Requests in flight per request id (legacy cancellation by `notifications/cancelled`).
    pub(crate) in_flight: Mutex<HashMap<String, CancellationToken>>,
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
            in_flight: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn touch(&self) {
        *self.last_seen.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        let subs = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
        subs.iter().any(|s| super::listen::covers(s, uri))
    }

    /// Cancel a request of this session (legacy `notifications/cancelled`).
    pub(crate) fn cancel_request(&self, id: &Value) {
        let key = id.to_string();
        if let Some(t) = self
            .in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key)
        {
            t.cancel();
        }
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
    ) -> Result<Arc<LegacySession>, McpError> {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        Self::sweep(&mut map, self.idle);
        if map.len() >= self.cap {
            return Err(McpError::internal("too many sessions").with_status(503));
        }
        let id = random_token(16);
        let s = Arc::new(LegacySession::new(
            Some(id.clone()),
            version,
            client_info,
            caps,
        ));
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
