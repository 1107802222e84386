//! What a transport tells the dispatcher about one message: an [`Env`] says where it came from
//! (transport, legacy session, caller, the HTTP request), how it is cancelled, and where its
//! notifications go. Transports build it; the dispatcher and the handlers' `Context` read it.

use crate::context::Sink;
use crate::identity::Caller;
use crate::protocol::is_legacy_version;
pub use crate::request::Transport;
use crate::session::{Cancellable, LegacySession};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Where a message came from and where its notifications go. Built by transports.
pub struct Env {
    pub(crate) transport: Transport,
    pub(crate) session: Option<Arc<LegacySession>>,
    /// HTTP: the `MCP-Protocol-Version` header, when sent (the era rule reads it).
    pub(crate) protocol_header: Option<Cow<'static, str>>,
    /// The connection's table for `notifications/cancelled` (stdio: the process's); `None`:
    /// the session's, if any.
    pub(crate) cancellable: Option<Arc<Cancellable>>,
    pub(crate) caller: Option<Caller>,
    /// HTTP: the request that carried the message (`Context::http_request`).
    pub(crate) http: Option<Arc<crate::request::HttpRequestInfo>>,
    /// HTTP: that request's body is this one message (not a batch), so what the message says
    /// can be read from it again ([`crate::request::ArgsDigest`]).
    pub(crate) body_is_message: bool,
    /// HTTP: the endpoint keeps no legacy sessions ([`crate::transport::http_config::HttpConfig::sessionless`]).
    pub(crate) sessionless: bool,
    pub(crate) cancel: CancellationToken,
    pub(crate) sink: Option<Sink>,
    /// Set by `initialize`: the legacy session it created.
    pub(crate) created_session: Mutex<Option<Arc<LegacySession>>>,
    /// What the audit record should call an outcome the result alone does not tell
    /// (`timeout`, `denied`, `busy`, ...).
    pub(crate) audit_note: Mutex<Option<&'static str>>,
    /// HTTP: the catalog digest of the list answered, sent as its `ETag`.
    pub(crate) etag: std::sync::OnceLock<Arc<str>>,
}

impl Env {
    pub fn new(transport: Transport) -> Self {
        Self::with_cancel(transport, CancellationToken::new())
    }
    /// As [`Env::new`] with the request's token from the start: `new` then [`Env::cancel`]
    /// would build and drop a token on every request.
    pub(crate) fn with_cancel(transport: Transport, cancel: CancellationToken) -> Self {
        Self {
            transport,
            session: None,
            protocol_header: None,
            cancellable: None,
            caller: None,
            http: None,
            body_is_message: false,
            sessionless: false,
            cancel,
            sink: None,
            created_session: Mutex::new(None),
            audit_note: Mutex::new(None),
            etag: std::sync::OnceLock::new(),
        }
    }
    pub fn caller(mut self, c: Option<Caller>) -> Self {
        self.caller = c;
        self
    }
    /// The HTTP request that carried the message, for handlers (`Context::http_request`).
    pub fn http(mut self, r: Arc<crate::request::HttpRequestInfo>) -> Self {
        self.http = Some(r);
        self
    }
    pub fn cancel(mut self, c: CancellationToken) -> Self {
        self.cancel = c;
        self
    }
    /// Where notifications (progress, logs, listen events) for this message go.
    pub fn notifications(self, tx: tokio::sync::mpsc::UnboundedSender<Value>) -> Self {
        self.sink(tx.into())
    }
    pub(crate) fn sink(mut self, sink: Sink) -> Self {
        self.sink = Some(sink);
        self
    }
    pub(crate) fn session(mut self, s: Option<Arc<LegacySession>>) -> Self {
        self.session = s;
        self
    }
    pub(crate) fn protocol_header(mut self, v: Option<Cow<'static, str>>) -> Self {
        self.protocol_header = v;
        self
    }
    pub(crate) fn cancellable(mut self, c: Arc<Cancellable>) -> Self {
        self.cancellable = Some(c);
        self
    }
    /// The HTTP request whose body is this message alone, if it came so.
    pub(crate) fn message_body(&self) -> Option<&Arc<crate::request::HttpRequestInfo>> {
        self.http.as_ref().filter(|_| self.body_is_message)
    }
    pub(super) fn cancel_table(&self) -> Option<&Cancellable> {
        self.cancellable
            .as_deref()
            .or(self.session.as_deref().map(|s| &*s.in_flight))
    }
    /// The legacy revision this connection speaks when a request has no `_meta` version: its
    /// session's; else over HTTP the one in `MCP-Protocol-Version`, or 2025-03-26 when there is
    /// no header at all (a client from before the header existed); else none (modern).
    pub(crate) fn legacy_version(&self) -> Option<String> {
        if let Some(s) = &self.session {
            return Some(s.version.clone());
        }
        match (self.transport, &self.protocol_header) {
            (Transport::Http, None) => Some("2025-03-26".into()),
            (Transport::Http, Some(v)) if is_legacy_version(v) => Some(v.to_string()),
            _ => None,
        }
    }
    /// The `Mcp-Session-Id` of the message's legacy HTTP session, if any.
    pub(crate) fn session_id(&self) -> Option<&str> {
        self.session.as_ref().and_then(|s| s.id.as_deref())
    }
    pub(crate) fn note(&self, n: &'static str) {
        *self.audit_note.lock().unwrap_or_else(|e| e.into_inner()) = Some(n);
    }
    pub(crate) fn set_etag(&self, digest: Arc<str>) {
        let _ = self.etag.set(digest);
    }
    pub(crate) fn take_created_session(&self) -> Option<Arc<LegacySession>> {
        self.created_session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}
