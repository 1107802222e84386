//! Legacy-era (≤ 2025-11-25) methods: `initialize`, `logging/setLevel`, `resources/subscribe`.

use super::dispatch::*;
use super::env::{Env, Transport};
use super::Server;
use crate::error::McpError;
use crate::jsonrpc::Params;
use crate::protocol::*;
use crate::session::store::SessionChange;
use crate::session::LegacySession;
use serde_json::{json, Map, Value};
use std::sync::Arc;

impl Server {
    pub(super) async fn initialize(&self, params: &Params, env: &Env, caps: &Value) -> Outcome {
        let requested = match str_param(params, "protocolVersion") {
            Ok(v) => v,
            Err(e) => return e.into(),
        };
        let version = if is_legacy_version(requested) {
            requested
        } else {
            LEGACY_VERSIONS[0]
        };
        let client_caps = params
            .get("capabilities")
            .filter(|c| c.is_object())
            .cloned()
            .unwrap_or_else(|| json!({}));
        let client_info = params.get("clientInfo").cloned();
        let max = self.inner.options.max_client_info_bytes;
        let size = |v: &Value| {
            let mut n = ByteCount(0);
            serde_json::to_writer(&mut n, v).map_or(usize::MAX, |()| n.0)
        };
        if size(&client_caps).saturating_add(client_info.as_ref().map_or(0, size)) > max {
            return McpError::invalid_params(format!(
                "clientInfo and capabilities are too large (the limit is {max} bytes)"
            ))
            .into();
        }
        let keeps_sessions = env.transport == Transport::Http
            && !self.inner.options.legacy_stateless
            && !env.sessionless;
        let session = if keeps_sessions {
            self.start_session_signals();
            match self
                .inner
                .sessions
                .create(
                    version.to_string(),
                    client_info,
                    client_caps,
                    env.caller.clone(),
                    super::access::budget_key(env),
                )
                .await
            {
                Ok(s) => s,
                Err(e) => {
                    if e.http_status == Some(503) {
                        // A store out of reach answers -31503; the session caps answer with
                        // their own message. Only the caps are a limit's refusal.
                        let reason = if e.code == crate::error::ErrorCode::SERVER_BUSY {
                            "session_store"
                        } else {
                            "max_sessions"
                        };
                        self.count_rejection(503, reason);
                    }
                    return e.into();
                }
            }
        } else {
            Arc::new(
                LegacySession::new(None, version.to_string(), client_info, client_caps)
                    .owned_by(env.caller.clone()),
            )
        };
        *env.created_session
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(session);
        let mut r = Map::new();
        r.insert("protocolVersion".into(), Value::String(version.into()));
        r.insert("capabilities".into(), caps.clone());
        r.insert("serverInfo".into(), self.inner.info.value.clone());
        if let Some(i) = &self.inner.instructions {
            r.insert("instructions".into(), Value::String(i.clone()));
        }
        Outcome::Result(Value::Object(r))
    }

    pub(super) async fn set_level(&self, params: &Params, env: &Env) -> Outcome {
        let Some(level) = params
            .get("level")
            .and_then(Value::as_str)
            .and_then(LogLevel::parse)
        else {
            return McpError::invalid_params("Invalid log level").into();
        };
        if let Some(s) = &env.session {
            let change = SessionChange::LogLevel(level);
            s.apply(&change);
            if let Some(id) = &s.id {
                if let Err(e) = self.inner.sessions.update(id, change).await {
                    return e.into();
                }
            }
        }
        Outcome::Result(json!({}))
    }

    pub(super) async fn subscribe(&self, rq: &RequestInfo, params: &Params, env: &Env) -> Outcome {
        let uri = match str_param(params, "uri") {
            Ok(u) => u.to_string(),
            Err(e) => return e.into(),
        };
        if let Err(e) = self.check_uri_len(&uri) {
            return e.into();
        }
        if let Some(s) = &env.session {
            // A URI the caller may not read is answered like any other (subscribing to an
            // unknown URI is allowed too) but never stored: nothing about it is delivered.
            let change = if rq.method != Method::ResourcesSubscribe {
                Some(SessionChange::Unsubscribe(uri))
            } else if self.may_use(env, "resource", &uri) {
                let o = &self.inner.options;
                let (count, bytes) = {
                    let subs = s.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
                    if subs.contains(&uri) {
                        (0, 0)
                    } else {
                        let held: usize = subs.iter().map(String::len).sum();
                        (subs.len() + 1, held + uri.len())
                    }
                };
                if count > o.max_subscriptions {
                    let max = o.max_subscriptions;
                    return McpError::invalid_params(format!(
                        "Too many subscriptions: a session may subscribe to {max} resources"
                    ))
                    .into();
                }
                if bytes > o.max_subscription_bytes {
                    let max = o.max_subscription_bytes;
                    return McpError::invalid_params(format!(
                        "Too many subscriptions: a session's subscribed URIs may total {max} bytes"
                    ))
                    .into();
                }
                Some(SessionChange::Subscribe(uri))
            } else {
                None
            };
            if let Some(change) = change {
                s.apply(&change);
                if let Some(id) = &s.id {
                    if let Err(e) = self.inner.sessions.update(id, change).await {
                        return e.into();
                    }
                }
            }
            // The host's session listener hears who subscribed to what (initiated.rs).
            self.session_notification(
                s,
                rq.method.as_str(),
                Some(&Value::Object(params.clone().into_map())),
            );
        }
        Outcome::Result(json!({}))
    }
}

/// The length of what is written to it: a value's JSON size without the JSON.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
