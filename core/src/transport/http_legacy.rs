//! Legacy Streamable HTTP (≤ 2025-11-25): the GET notification stream, DELETE,
//! and 2025-03-26 JSON-RPC batches.

use super::headers;
use super::http::*;
use crate::error::McpError;
use crate::identity::Caller;
use crate::server::Env;
use crate::session::LegacySession;
use bytes::Bytes;
use futures::StreamExt;
use http::{header, HeaderMap, StatusCode};
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::mpsc;

impl HttpHandler {
    /// The session named by `Mcp-Session-Id`, if `caller` may use it ([`crate::server::gate::Gate::session`]).
    pub(super) async fn session_of(
        &self,
        h: &HeaderMap,
        caller: Option<&Caller>,
    ) -> Result<Option<Arc<LegacySession>>, HttpResponse> {
        let id = headers::get(h, headers::MCP_SESSION_ID);
        self.gate.session(id, caller).await.map_err(refused)
    }

    /// DELETE ends a legacy session, on every replica ([`crate::server::gate::Gate::end`]).
    pub(super) async fn delete(&self, h: &HeaderMap, caller: Option<&Caller>) -> HttpResponse {
        let Some(id) = headers::get(h, headers::MCP_SESSION_ID) else {
            return HttpResponse::new(StatusCode::METHOD_NOT_ALLOWED).header(header::ALLOW, "POST");
        };
        match self.gate.end(id, caller).await {
            Ok(()) => HttpResponse::new(StatusCode::OK),
            Err(r) => refused(r),
        }
    }

    /// GET opens a legacy session's stream for server notifications; modern clients get 405.
    pub(super) async fn get(&self, h: &HeaderMap, caller: Option<&Caller>) -> HttpResponse {
        let session = match self.session_of(h, caller).await {
            Ok(Some(s)) => s,
            Ok(None) => {
                return HttpResponse::new(StatusCode::METHOD_NOT_ALLOWED)
                    .header(header::ALLOW, "POST")
            }
            Err(r) => return r,
        };
        if !headers::accepts(h, "text/event-stream") {
            return HttpResponse::error(
                StatusCode::NOT_ACCEPTABLE,
                Value::Null,
                McpError::invalid_request("Accept must include text/event-stream"),
            );
        }
        let Some(slot) = self.server.listener_slot(caller) else {
            return HttpResponse::error(
                StatusCode::SERVICE_UNAVAILABLE,
                Value::Null,
                McpError::internal("Too many open streams"),
            );
        };
        // Server-initiated messages outside a request (server/initiated.rs) go on this stream.
        let (otx, mut orx) = mpsc::unbounded_channel::<Value>();
        session.set_outbound(Some(otx.into()));
        let mut events = self.server.legacy_events(session);
        let (tx, rx) = mpsc::channel::<Bytes>(64);
        let keep_alive = self.config.keep_alive;
        tokio::spawn(async move {
            let _slot = slot;
            let mut tick = tokio::time::interval(keep_alive);
            tick.tick().await;
            loop {
                let msg = tokio::select! {
                    m = events.next() => match m { Some(m) => m, None => break },
                    Some(m) = orx.recv() => m,
                    _ = tick.tick() => {
                        if tx.send(Bytes::from_static(b": keep-alive\n\n")).await.is_err() { break }
                        continue;
                    }
                    _ = tx.closed() => break,
                };
                if tx.send(sse_event(&msg)).await.is_err() {
                    break;
                }
            }
        });
        sse_response(rx)
    }

    /// A legacy (2025-03-26) JSON-RPC batch; the server decides what a batch may hold.
    /// A batch is as many requests as it has elements: it is charged one
    /// rate-limit token per element (the POST itself paid for the first; the server caps the
    /// length).
    pub(super) async fn batch(&self, batch: Vec<Value>, env: impl Fn() -> Env) -> HttpResponse {
        if batch.len() > 1 && batch.len() <= self.server.inner.options.max_batch_len {
            if let Err(r) = self
                .charge(env().caller.as_ref(), (batch.len() - 1) as u32)
                .await
            {
                return r;
            }
        }
        match self.server.dispatch_batch(batch, env).await {
            Err(e) => HttpResponse::error(StatusCode::BAD_REQUEST, Value::Null, e),
            Ok(out) if out.is_empty() => HttpResponse::new(StatusCode::ACCEPTED),
            Ok(out) => HttpResponse::json(StatusCode::OK, &Value::Array(out)),
        }
    }
}
