//! Legacy-era state: sessions (`Mcp-Session-Id` on HTTP, the process on stdio) and the
//! server→client requests awaiting the client's answer.

use crate::context::Sink;
use crate::error::{ErrorCode, HandlerError, McpError};
use crate::protocol::LogLevel;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

fn random_token(bytes: usize) -> String {
    use rand::RngCore;
    let mut b = vec![0u8; bytes];
    rand::thread_rng().fill_bytes(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

type Pending = HashMap<String, oneshot::Sender<Result<Value, Value>>>;

/// Server→client requests in flight. Ids are random, so a response can be routed to its
/// request whichever POST (or stdin line) carries it, and cannot be guessed by another client.
#[derive(Default)]
pub(crate) struct ClientRequests {
    pending: Mutex<Pending>,
}

impl ClientRequests {
    pub(crate) async fn request(
        &self,
        sink: &Sink,
        method: &str,
        params: Option<Value>,
        cancel: &CancellationToken,
    ) -> Result<Value, HandlerError> {
        let id = format!("oxmcp-{}", random_token(12));
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), tx);
        let mut msg = json!({"jsonrpc":"2.0","id":id,"method":method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        if cancel.is_cancelled() || sink.send(msg).is_err() {
            self.forget(&id);
            return Err(HandlerError::Cancelled);
        }
        tokio::select! {
            r = rx => match r {
                Ok(Ok(v)) => Ok(v),
                Ok(Err(e)) => Err(McpError::new(
                    ErrorCode(e.get("code").and_then(Value::as_i64).unwrap_or(-32603) as i32),
                    format!("client answered {method} with an error: {}", e.get("message").and_then(Value::as_str).unwrap_or("")),
                ).into()),
                Err(_) => Err(McpError::internal("the client request was dropped").into()),
            },
            _ = cancel.cancelled() => { self.forget(&id); Err(HandlerError::Cancelled) }
        }
    }

    fn forget(&self, id: &str) {
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
    }

    /// Route a JSON-RPC response from the client. Returns whether it matched a request.
    pub(crate) fn resolve(&self, msg: &Value) -> bool {
        let Some(id) = msg.get("id").and_then(Value::as_str) else {
            return false;
        };
        let tx = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
        match tx {
            Some(tx) => {
                let r = match msg.get("error") {
                    Some(e) => Err(e.clone()),
                    None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = tx.send(r);
                true
            }
            None => false,
        }
    }
}

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
        subs.contains(uri)
            || subs
                .iter()
                .any(|s| uri.starts_with(s.as_str()) && uri[s.len()..].starts_with('/'))
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
