//! Server-initiated traffic in legacy sessions, outside any request: what the TS SDK's
//! `server.listRoots()` after `oninitialized`, `setNotificationHandler(RootsListChanged...)`,
//! `createMessage` / `elicitInput` from a timer and `sendLoggingMessage` outside a call need.
//!
//! A host sets one [`SessionListener`]; the core calls it with a [`SessionHandle`] for every
//! client notification of a legacy session (`notifications/initialized`,
//! `notifications/roots/list_changed`, ...). The handle sends requests and notifications to that
//! session: on stdio to stdout, on HTTP over the session's open GET stream (a request waits a
//! moment for the client to open it, as clients do right after `initialized`).
//!
//! The modern era (2026-07-28) has no sessions, so none of this exists there: a handler gets the
//! client's roots with the request (MRTR, `ctx.list_roots()`), and a server that confines itself
//! to the roots checks them per request.

use super::Server;
use crate::bus::Event;
use crate::error::{HandlerError, McpError};
use crate::protocol::LogLevel;
use crate::session::LegacySession;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// How long a request waits for an HTTP session's GET stream to open.
const STREAM_WAIT: Duration = Duration::from_secs(5);

/// How long a request sent through the other replicas (a shared session store, no GET stream
/// open here) waits for the client's answer.
const REMOTE_ANSWER_WAIT: Duration = Duration::from_secs(60);

/// Told of every client notification of a legacy session. Called on a tokio worker: return
/// quickly (hand the work to the host's own loop).
pub trait SessionListener: Send + Sync + 'static {
    fn on_notification(&self, session: SessionHandle, method: &str, params: Option<&Value>);
}

/// One legacy session, addressed from outside any request. Cheap to clone.
#[derive(Clone)]
pub struct SessionHandle {
    server: Server,
    session: Arc<LegacySession>,
}

impl SessionHandle {
    pub(crate) fn new(server: Server, session: Arc<LegacySession>) -> Self {
        Self { server, session }
    }

    /// The legacy session a handler's request belongs to, which outlives it: the back-channel for
    /// server-to-client requests (`ping`, ...) between the client's requests. `None` when there is
    /// none to send on: a modern (2026-07-28) request, or stateless HTTP.
    pub fn of(ctx: &crate::Context) -> Option<SessionHandle> {
        ctx.inner
            .session
            .as_ref()?
            .downcast_ref::<SessionHandle>()
            .cloned()
    }

    /// The same number for every handle of one session while it lives (a host keys its per-session
    /// state by it: stdio's session has no id).
    pub fn key(&self) -> usize {
        Arc::as_ptr(&self.session) as usize
    }

    /// Resolves when the session ends (DELETE, expiry, end of stdin) or the server shuts down.
    pub async fn closed(&self) {
        tokio::select! {
            _ = self.session.closed.cancelled() => {}
            _ = self.server.inner.shutdown.cancelled() => {}
        }
    }

    /// Send `ping` to the client and wait for its empty result (the liveness check a server may
    /// make in a legacy session; the 2026-07-28 era has no server-to-client requests).
    pub async fn ping(&self) -> Result<(), McpError> {
        match self.request("ping", None).await? {
            Value::Object(_) => Ok(()),
            other => Err(McpError::internal(format!(
                "the client answered ping with {other} (an object was expected)"
            ))),
        }
    }

    /// The `Mcp-Session-Id` (HTTP), or `None` (stdio: the process is the session).
    pub fn id(&self) -> Option<&str> {
        self.session.id.as_deref()
    }
    pub fn protocol_version(&self) -> &str {
        &self.session.version
    }
    pub fn client_info(&self) -> Option<&Value> {
        self.session.client_info.as_ref()
    }
    pub fn client_capabilities(&self) -> &Value {
        &self.session.client_capabilities
    }
    /// The session has not ended (DELETE, expiry, end of stdin, server shutdown).
    pub fn is_open(&self) -> bool {
        !self.session.closed.is_cancelled() && !self.server.is_shut_down()
    }

    /// Send a notification now. Returns whether a stream to the client was open (with a shared
    /// session store and no stream here: whether it went to the other replicas, one of which
    /// may hold the session's GET stream).
    pub fn notify(&self, method: &str, params: Option<Value>) -> bool {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        if let Some(out) = self.session.outbound() {
            return out.send(msg).is_ok();
        }
        match self.remote_sink() {
            Some(out) => out.send(msg).is_ok(),
            None => false,
        }
    }

    /// With a shared session store: a sink whose messages go to the replica holding this
    /// session's GET stream (as `SessionSignal::Outbound`, heard by every replica; the one with
    /// the stream open sends it). Ends with the session.
    fn remote_sink(&self) -> Option<crate::client_requests::Sink> {
        let store = self.server.inner.sessions.store.clone();
        let id = self.session.id.clone()?;
        if !store.is_shared() {
            return None;
        }
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
        let closed = self.session.closed.clone();
        tokio::spawn(async move {
            loop {
                let msg = tokio::select! {
                    m = rx.recv() => match m { Some(m) => m, None => return },
                    _ = closed.cancelled() => return,
                };
                let sig = crate::session::store::SessionSignal::Outbound {
                    session: id.clone(),
                    msg,
                };
                if let Err(e) = store.signal(sig).await {
                    tracing::warn!(error = %e, "a server-initiated message was not sent to the other replicas");
                }
            }
        });
        Some(tx.into())
    }

    /// `notifications/message`, if the session's `logging/setLevel` lets `level` through.
    pub fn log(&self, level: LogLevel, data: Value, logger: Option<String>) -> bool {
        let min = *self
            .session
            .log_level
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if min.is_some_and(|m| level < m) {
            return false;
        }
        let mut p = Map::new();
        p.insert("level".into(), json!(level.as_str()));
        if let Some(l) = logger {
            p.insert("logger".into(), Value::String(l));
        }
        p.insert("data".into(), data);
        self.notify("notifications/message", Some(Value::Object(p)))
    }

    /// Send a request (`roots/list`, `sampling/createMessage`, `elicitation/create`, `ping`) and
    /// wait for the client's answer. Ends with an error when the session closes first.
    pub async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, McpError> {
        let (sink, remote) = match self.session.outbound() {
            Some(s) => (s, false),
            None => match self.remote_sink() {
                Some(s) => (s, true),
                None => {
                    let wait = self.session.outbound_ready();
                    tokio::select! {
                        _ = tokio::time::sleep(STREAM_WAIT) => {}
                        _ = wait => {}
                        _ = self.session.closed.cancelled() => {}
                    }
                    let s = self.session.outbound().ok_or_else(|| {
                        McpError::invalid_request(
                            "no open stream to this session's client (the client has not opened its GET stream)",
                        )
                    })?;
                    (s, false)
                }
            },
        };
        let cancel = self.session.closed.child_token();
        let server_gone = self.server.inner.shutdown.clone();
        let stop = cancel.clone();
        let watcher = tokio::spawn(async move {
            server_gone.cancelled().await;
            stop.cancel();
        });
        let asked = self.server.inner.client_requests.request(
            &sink,
            self.session.id.clone(),
            method,
            params,
            &cancel,
        );
        // Through the other replicas nobody may hold the session's GET stream: bounded.
        let out = if remote {
            match tokio::time::timeout(REMOTE_ANSWER_WAIT, asked).await {
                Ok(r) => r,
                Err(_) => {
                    watcher.abort();
                    return Err(McpError::internal(format!(
                        "no answer to {method} within {} s (is the session's GET stream open on any replica?)",
                        REMOTE_ANSWER_WAIT.as_secs()
                    )));
                }
            }
        } else {
            asked.await
        };
        watcher.abort();
        out.map_err(|e| match e {
            HandlerError::Mcp(e) => e,
            HandlerError::Cancelled => {
                McpError::internal("the session ended before the client answered")
            }
            other => McpError::internal(other.to_string()),
        })
    }
}

impl Server {
    /// Publish a list change as a registry change does (`kind`: "tools", "prompts" or
    /// "resources"): the TS SDK's explicit `sendToolListChanged()` and siblings.
    pub fn notify_list_changed(&self, kind: &str) -> Result<(), String> {
        let e = match kind {
            "tools" => Event::ToolsListChanged,
            "prompts" => Event::PromptsListChanged,
            "resources" => Event::ResourcesListChanged,
            other => {
                return Err(format!(
                    "unknown list {other:?}; expected tools, prompts or resources"
                ))
            }
        };
        self.inner.bus.publish(e);
        Ok(())
    }

    /// Set (or clear) the listener told of legacy sessions' notifications.
    pub fn set_session_listener(&self, listener: Option<Arc<dyn SessionListener>>) {
        *self
            .inner
            .session_listener
            .write()
            .unwrap_or_else(|e| e.into_inner()) = listener;
    }

    /// A client notification of legacy session `session`: tell the listener, if any.
    pub(crate) fn session_notification(
        &self,
        session: &Arc<LegacySession>,
        method: &str,
        params: Option<&Value>,
    ) {
        let listener = self
            .inner
            .session_listener
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(l) = listener {
            let handle = SessionHandle::new(self.clone(), session.clone());
            l.on_notification(handle, method, params);
        }
    }
}
