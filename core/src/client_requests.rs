//! Server→client requests in flight (legacy `sampling/createMessage`, `elicitation/create`,
//! `roots/list` sent from a handler's [`Context`](crate::Context)), and the [`Sink`] a request's
//! notifications go to. A leaf: the context sends through it, the dispatcher routes the client's
//! responses back with [`ClientRequests::resolve`].

use crate::error::{ErrorCode, HandlerError, McpError};
use futures::task::AtomicWaker;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// Where notifications (and, in legacy sessions, server→client requests) for one request go.
#[derive(Clone)]
pub(crate) enum Sink {
    Chan(mpsc::UnboundedSender<Value>),
    /// A channel made on the first message: an HTTP POST's, since most requests send none and
    /// a channel per request was a tenth of the allocations of a `tools/call`.
    Lazy(Arc<LazySink>),
}

impl Sink {
    /// `Err` (the message back) when nobody listens any more: the stream or request is over.
    pub(crate) fn send(&self, msg: Value) -> Result<(), Value> {
        match self {
            Self::Chan(tx) => tx.send(msg).map_err(|e| e.0),
            Self::Lazy(l) => l.send(msg),
        }
    }

    /// Nobody listens any more: sends would fail.
    pub(crate) fn is_closed(&self) -> bool {
        match self {
            Self::Chan(tx) => tx.is_closed(),
            Self::Lazy(l) => l.is_closed(),
        }
    }
}

impl From<mpsc::UnboundedSender<Value>> for Sink {
    fn from(tx: mpsc::UnboundedSender<Value>) -> Self {
        Self::Chan(tx)
    }
}

/// The sending half of a channel that exists only once something is sent, and the receiving
/// side's wait for it ([`LazySink::opened`]). The receiver ends it with [`LazySink::close`].
#[derive(Default)]
pub(crate) struct LazySink {
    state: Mutex<Lazy>,
    waker: AtomicWaker,
}

#[derive(Default)]
enum Lazy {
    #[default]
    Unused,
    /// Made by the first send; the receiver is here until [`LazySink::opened`] takes it.
    Open(
        mpsc::UnboundedSender<Value>,
        Option<mpsc::UnboundedReceiver<Value>>,
    ),
    Closed,
}

impl LazySink {
    fn lock(&self) -> std::sync::MutexGuard<'_, Lazy> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn send(&self, msg: Value) -> Result<(), Value> {
        let (sent, opened) = {
            let mut state = self.lock();
            let opened = matches!(*state, Lazy::Unused);
            if opened {
                let (tx, rx) = mpsc::unbounded_channel();
                *state = Lazy::Open(tx, Some(rx));
            }
            let sent = match &*state {
                Lazy::Open(tx, _) => tx.send(msg).map_err(|e| e.0),
                _ => Err(msg),
            };
            (sent, opened)
        };
        // Only the opening is waited for (later messages go through the channel). After the
        // state is set: the receiver registers its waker before it looks.
        if opened {
            self.waker.wake();
        }
        sent
    }

    /// The receiver once the first message was sent (pending until then); `None` once closed.
    fn poll_opened(
        &self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<mpsc::UnboundedReceiver<Value>>> {
        self.waker.register(cx.waker());
        self.take()
            .map_or(std::task::Poll::Pending, std::task::Poll::Ready)
    }

    /// The receiver, if a message was sent and it was not taken yet (`Some(None)`: closed).
    pub(crate) fn take(&self) -> Option<Option<mpsc::UnboundedReceiver<Value>>> {
        match &mut *self.lock() {
            Lazy::Unused => None,
            Lazy::Open(_, rx) => rx.take().map(Some),
            Lazy::Closed => Some(None),
        }
    }

    fn is_closed(&self) -> bool {
        match &*self.lock() {
            Lazy::Unused => false,
            Lazy::Open(tx, _) => tx.is_closed(),
            Lazy::Closed => true,
        }
    }

    /// No more messages: later sends fail, as they do once a channel's receiver is dropped.
    pub(crate) fn close(&self) {
        *self.lock() = Lazy::Closed;
    }

    pub(crate) async fn opened(&self) -> Option<mpsc::UnboundedReceiver<Value>> {
        std::future::poll_fn(|cx| self.poll_opened(cx)).await
    }
}

/// `bytes` random bytes as lowercase hex (a session id, a stream id, a request id).
pub(crate) fn random_token(bytes: usize) -> String {
    use rand::RngCore;
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut b = vec![0u8; bytes];
    rand::thread_rng().fill_bytes(&mut b);
    // By hand: a `format!` per byte was 7 % of a legacy session's instructions.
    let mut s = String::with_capacity(2 * bytes);
    for x in b {
        s.push(char::from(HEX[usize::from(x >> 4)]));
        s.push(char::from(HEX[usize::from(x & 0xf)]));
    }
    s
}

/// A client's `result`, and its JSON text as the client wrote it when the transport kept it: a
/// parsed object's keys are sorted, the text keeps the client's order for a host to parse.
pub(crate) type Answer = (Value, Option<Box<str>>);

/// By request id: the legacy session the request went to (`None`: stdio, stateless HTTP) and
/// the waiting handler.
type Pending = HashMap<String, (Option<String>, oneshot::Sender<Result<Answer, Value>>)>;

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
        let (v, _) = self
            .request_answer(sink, session, method, params, cancel)
            .await?;
        Ok(v)
    }

    /// [`Self::request`], with the answer's text when the transport kept it.
    pub(crate) async fn request_answer(
        &self,
        sink: &Sink,
        session: Option<String>,
        method: &str,
        params: Option<Value>,
        cancel: &CancellationToken,
    ) -> Result<Answer, HandlerError> {
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

    /// Route a JSON-RPC response from the client, which came in legacy session `session`;
    /// `raw`: the message's JSON text, when the transport has it. Returns whether it matched a
    /// request (of that session).
    pub(crate) fn resolve(&self, msg: &Value, session: Option<&str>, raw: Option<&[u8]>) -> bool {
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
                    None => Ok((
                        msg.get("result").cloned().unwrap_or(Value::Null),
                        raw.and_then(result_text),
                    )),
                };
                let _ = tx.send(r);
                true
            }
            None => false,
        }
    }
}

/// The `result` member of a response's JSON text, as written (only a response to a server
/// request is read twice, so no request pays for it).
fn result_text(raw: &[u8]) -> Option<Box<str>> {
    #[derive(serde::Deserialize)]
    struct Response<'a> {
        #[serde(borrow)]
        result: Option<&'a serde_json::value::RawValue>,
    }
    let r: Response<'_> = serde_json::from_slice(raw).ok()?;
    r.result.map(|v| Box::from(v.get()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answers_text_is_its_result_as_the_client_wrote_it() {
        let raw = br#"{"jsonrpc":"2.0","id":"x","result":{"z":1,"a":{"m":2,"b":3}}}"#;
        assert_eq!(
            result_text(raw).as_deref(),
            Some(r#"{"z":1,"a":{"m":2,"b":3}}"#)
        );
        assert_eq!(
            result_text(br#"{"jsonrpc":"2.0","id":"x","error":{"code":1}}"#),
            None
        );
    }

    #[tokio::test]
    async fn lazy_sink_opens_on_the_first_message_and_fails_once_closed() {
        let lazy = Arc::new(LazySink::default());
        let sink = Sink::Lazy(lazy.clone());
        assert!(lazy.take().is_none(), "no channel before a message");
        assert!(!sink.is_closed());

        // The waiting side is woken by a send from another task.
        let waiting = tokio::spawn({
            let lazy = lazy.clone();
            async move { lazy.opened().await }
        });
        tokio::task::yield_now().await;
        sink.send(json!({"n": 1})).unwrap();
        sink.send(json!({"n": 2})).unwrap();
        let mut rx = waiting.await.unwrap().expect("opened, not closed");
        assert_eq!(rx.try_recv().unwrap(), json!({"n": 1}));
        assert_eq!(rx.try_recv().unwrap(), json!({"n": 2}));
        assert!(lazy.take().is_none(), "the receiver is handed out once");

        // A dropped receiver fails later sends, as a plain channel does.
        drop(rx);
        assert_eq!(sink.send(json!(3)), Err(json!(3)));
        assert!(sink.is_closed());
    }

    #[tokio::test]
    async fn a_closed_lazy_sink_refuses_messages_and_makes_no_channel() {
        let lazy = Arc::new(LazySink::default());
        let sink = Sink::Lazy(lazy.clone());
        lazy.close();
        assert_eq!(sink.send(json!(1)), Err(json!(1)));
        assert!(sink.is_closed());
        assert!(matches!(lazy.take(), Some(None)));
        assert!(lazy.opened().await.is_none());
    }

    #[tokio::test]
    async fn a_message_sent_before_close_is_taken_after_it() {
        // The HTTP transport drains what was sent before the answer, then closes.
        let lazy = Arc::new(LazySink::default());
        Sink::Lazy(lazy.clone()).send(json!("early")).unwrap();
        let mut rx = lazy.take().flatten().expect("a channel was made");
        lazy.close();
        assert_eq!(rx.try_recv().unwrap(), json!("early"));
    }
}
