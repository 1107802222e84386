//! Server→client requests in flight (legacy `sampling/createMessage`, `elicitation/create`,
//! `roots/list` sent from a handler's [`Context`](crate::Context)), and the [`Sink`] a request's
//! notifications go to. A leaf: the context sends through it, the dispatcher routes the client's
//! responses back with [`ClientRequests::resolve`].

use crate::error::{ErrorCode, HandlerError, McpError};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// Where notifications (and, in legacy sessions, server→client requests) for one request go.
pub(crate) type Sink = mpsc::UnboundedSender<Value>;

pub(crate) fn random_token(bytes: usize) -> String {
    use rand::RngCore;
    let mut b = vec![0u8; bytes];
    rand::thread_rng().fill_bytes(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// By request id: the legacy session the request went to (`None`: stdio, stateless HTTP) and
/// the waiting handler.
type Pending = HashMap<String, (Option<String>, oneshot::Sender<Result<Value, Value>>)>;

/// Server→client requests in flight. Ids are random, so a response can be routed to its
/// request whichever POST (or stdin line) carries it, and cannot be guessed by another client.
/// A request sent in a legacy session is answered only from that session (whose owner the
/// transport checked): with several replicas the answer may arrive through another replica,
/// which forwards it with its session id (`SessionSignal::Response`).
#[derive(Default)]
pub(crate) struct ClientRequests {
    pending: Mutex<Pending>,
}

impl ClientRequests {
    pub(crate) async fn request(
        &self,
        sink: &Sink,
        session: Option<String>,
        method: &str,
        params: Option<Value>,
        cancel: &CancellationToken,
    ) -> Result<Value, HandlerError> {
        let id = format!("oxmcp-{}", random_token(12));
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), (session, tx));
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

    /// Route a JSON-RPC response from the client, which came in legacy session `session`.
    /// Returns whether it matched a request (of that session).
    pub(crate) fn resolve(&self, msg: &Value, session: Option<&str>) -> bool {
        let Some(id) = msg.get("id").and_then(Value::as_str) else {
            return false;
        };
        let tx = {
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            match pending.get(id) {
                Some((Some(s), _)) if Some(s.as_str()) != session => None,
                Some(_) => pending.remove(id).map(|(_, tx)| tx),
                None => None,
            }
        };
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
