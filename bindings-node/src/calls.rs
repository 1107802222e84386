//! The JS handler calls in flight, by number. A JS handler is called with its call's id, not with
//! a native object: every `#[napi]` object handed to JS is `napi_wrap`ped, and V8's scavenger
//! treats the weak handle behind a wrapped object as a root, so one `NativeContext` per call
//! survived two scavenges, was promoted, and waited for a full GC. Under load that grew V8's new
//! space to its maximum and filled the old space with dead contexts (about 50 MiB of RSS for a
//! server whose JS heap holds 4 MiB). Now the JS `ctx` asks for its `NativeContext`
//! (`NativeServer.callContext`) only when a handler reads it, and an async handler's answer comes
//! back through `NativeServer.settle` instead of napi's Promise adapter (which wraps two callbacks
//! per call).

use crate::context::CallState;
use crate::js_handler::NativeEnvelope;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// How long the state of a call that ended early (timed out, cancelled) is kept for a JS handler
/// that has neither answered nor read its `ctx` yet: when it reads `ctx.signal` later it must see
/// the abort. A handler that never settles would otherwise keep its entry for ever.
const LINGER: Duration = Duration::from_secs(600);

/// A JS handler's answer: its envelope, or why it could not be read.
pub(crate) type Answer = std::result::Result<NativeEnvelope, napi::Error>;

#[derive(Default)]
pub(crate) struct Calls(Mutex<Table>);

#[derive(Default)]
struct Table {
    next: u64,
    calls: HashMap<u64, Entry>,
    /// Ended calls kept for their JS side, oldest first.
    lingering: VecDeque<(Instant, u64)>,
}

struct Entry {
    state: Arc<CallState>,
    /// Taken by the handler's answer (`settle`).
    reply: Option<oneshot::Sender<Answer>>,
    /// The JS side holds a `NativeContext` for this call (it needs the entry no more).
    handed_out: bool,
    /// The Rust side of the call has ended (the entry lingers for its JS side).
    ended: bool,
}

impl Calls {
    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Register a call: its id (an integer below 2^53, exact as a JS number) and the receiver of
    /// an asynchronous answer.
    pub(crate) fn start(&self, state: Arc<CallState>) -> (u64, oneshot::Receiver<Answer>) {
        let (tx, rx) = oneshot::channel();
        let mut t = self.table();
        t.sweep(Instant::now());
        t.next += 1;
        let id = t.next;
        t.calls.insert(
            id,
            Entry {
                state,
                reply: Some(tx),
                handed_out: false,
                ended: false,
            },
        );
        (id, rx)
    }

    /// The state behind `ctx` for a JS handler that reads it; `None` once the call has ended and
    /// its entry is gone (the JS side then sees an ended call).
    pub(crate) fn context(&self, id: u64) -> Option<Arc<CallState>> {
        let mut t = self.table();
        let e = t.calls.get_mut(&id)?;
        let state = e.state.clone();
        if e.ended {
            t.calls.remove(&id);
        } else {
            e.handed_out = true;
        }
        Some(state)
    }

    /// An async JS handler's answer. Ignored when the call has already ended.
    pub(crate) fn settle(&self, id: u64, answer: Answer) {
        let mut t = self.table();
        let Some(e) = t.calls.get_mut(&id) else {
            return;
        };
        if let Some(tx) = e.reply.take() {
            let _ = tx.send(answer);
        }
        if e.ended {
            t.calls.remove(&id);
        }
    }

    /// The Rust side of the call ended (`answered`: the JS handler's answer came back with the
    /// call). The entry goes, unless its JS side may still ask for a `ctx` that must show how
    /// the call ended (it was cancelled or timed out before the handler answered).
    pub(crate) fn end(&self, id: u64, answered: bool) {
        let mut t = self.table();
        let Some(e) = t.calls.get_mut(&id) else {
            return;
        };
        let answered = answered || e.reply.is_none();
        if answered || e.handed_out || e.state.finished() {
            t.calls.remove(&id);
        } else {
            e.ended = true;
            t.lingering.push_back((Instant::now(), id));
        }
    }
}

impl Table {
    fn sweep(&mut self, now: Instant) {
        while let Some(&(at, id)) = self.lingering.front() {
            if now.duration_since(at) < LINGER {
                break;
            }
            self.lingering.pop_front();
            self.calls.remove(&id);
        }
        // Lingering entries removed by their JS side leave stale ids behind; keep the queue short.
        if self.lingering.len() > 64 && self.lingering.len() > 2 * self.calls.len() {
            let calls = &self.calls;
            self.lingering.retain(|(_, id)| calls.contains_key(id));
        }
    }
}
