//! The JS handler calls in flight, by number. A JS handler is called with its call's id, and its
//! `ctx` reaches the core through `NativeCalls` (one per server) with that id: no native object
//! per call. Every `#[napi]` object handed to JS is `napi_wrap`ped, and V8's scavenger treats the
//! weak handle behind a wrapped object as a root, so one wrapped context per call survived two
//! scavenges, was promoted, and waited for a full GC; under load that grew V8's new space to its
//! maximum and filled the old space with dead contexts (about 50 MiB of RSS for a server whose JS
//! heap holds 4 MiB). For the same reason an async handler's answer comes back through
//! `NativeCalls.settle` rather than napi's Promise adapter (two wrapped callbacks per call), and
//! `ctx.signal` learns how its call ended from one listener per server (`NativeServer.calls`)
//! rather than a Promise per call (a threadsafe function each).

use crate::context::{CallState, FINISHED_REASON};
use crate::js_handler::JsAnswer;
use napi::bindgen_prelude::FnArgs;
use napi::threadsafe_function::{
    ThreadsafeFunction, ThreadsafeFunctionCallMode, UnknownReturnValue,
};
use napi::Status;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// How long the state of a call that ended early (timed out, cancelled) is kept for a JS handler
/// that has not answered yet: when it reads `ctx.signal` later it must see the abort. A handler
/// that never settles would otherwise keep its entry for ever.
const LINGER: Duration = Duration::from_secs(600);

/// A JS handler's answer (JSON text or an envelope), or why it could not be read.
pub(crate) type Answer = std::result::Result<JsAnswer, napi::Error>;

/// The server's listener for the end of calls whose `ctx.signal` exists: `(id, reason)`.
pub(crate) type EndTsfn = ThreadsafeFunction<
    (i64, Option<&'static str>),
    UnknownReturnValue,
    FnArgs<(i64, Option<&'static str>)>,
    Status,
    false,
    true,
>;

#[derive(Default)]
pub(crate) struct Calls {
    table: Mutex<Table>,
    /// To the task on the runtime that hands settled answers to their calls (`settle_many`).
    relay: std::sync::OnceLock<Relay>,
}

type Settled = Vec<(oneshot::Sender<Answer>, Answer)>;
type Relay = tokio::sync::mpsc::UnboundedSender<Settled>;

#[derive(Default)]
struct Table {
    next: u64,
    calls: HashMap<u64, Entry>,
    /// Ended calls kept for their JS side, oldest first.
    lingering: VecDeque<(Instant, u64)>,
    on_end: Option<Arc<EndTsfn>>,
}

struct Entry {
    state: Arc<CallState>,
    /// Taken by the handler's answer (`settle`).
    reply: Option<oneshot::Sender<Answer>>,
    /// The Rust side of the call has ended (the entry lingers for its JS side).
    ended: bool,
}

impl Calls {
    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Who hears of the end of calls whose `ctx.signal` exists.
    pub(crate) fn set_listener(&self, on_end: EndTsfn) {
        self.table().on_end = Some(Arc::new(on_end));
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
                ended: false,
            },
        );
        (id, rx)
    }

    /// Whether JS may start call `id`'s handler: not when the call ended (the client cancelled or
    /// went away, or it timed out) while it waited for the JS thread. Nobody waits for that
    /// answer, and the handler must not act on a request its client has given up.
    pub(crate) fn claim(&self, id: u64) -> bool {
        let live = self
            .table()
            .calls
            .get(&id)
            .is_some_and(|e| !e.state.abandoned());
        if !live {
            self.abandon(id);
        }
        live
    }

    /// Call `id`'s handler will not run: no answer will settle the entry, so it goes now, or at
    /// the call's end if that has not come yet (else it would linger for a handler that never ran).
    pub(crate) fn abandon(&self, id: u64) {
        let mut t = self.table();
        if let Some(e) = t.calls.get_mut(&id) {
            if e.ended {
                t.calls.remove(&id);
            } else {
                e.reply = None;
            }
        }
    }

    /// The state of a call in flight (or ended early, while its handler has not answered).
    pub(crate) fn state(&self, id: u64) -> Option<Arc<CallState>> {
        self.table().calls.get(&id).map(|e| e.state.clone())
    }

    /// `ctx.signal` of call `id` exists: `None` if the listener will hear how it ends, else how it
    /// has ended already (a call without an entry finished).
    pub(crate) fn watch(&self, id: u64) -> Option<&'static str> {
        let t = self.table();
        let Some(e) = t.calls.get(&id) else {
            return Some(FINISHED_REASON);
        };
        // Under the table's lock, so `end` either sees the flag or left the outcome to us.
        e.state.watched.store(true, Ordering::SeqCst);
        e.state.ending()
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

    /// The answers of the async JS handlers that settled in one JS turn (`NativeCalls.settleMany`,
    /// on the JS thread). They go to their calls from one task on the runtime: one cross-thread
    /// wakeup for all of them, where a `settle` each woke its call's task from the JS thread.
    pub(crate) fn settle_many(&self, answers: impl IntoIterator<Item = (u64, Answer)>) {
        let mut settled = Vec::new();
        {
            let mut t = self.table();
            for (id, answer) in answers {
                let Some(e) = t.calls.get_mut(&id) else {
                    continue;
                };
                if let Some(tx) = e.reply.take() {
                    settled.push((tx, answer));
                }
                if e.ended {
                    t.calls.remove(&id);
                }
            }
        }
        if settled.is_empty() {
            return;
        }
        let relay = self.relay.get_or_init(|| {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Settled>();
            napi::bindgen_prelude::spawn(async move {
                while let Some(batch) = rx.recv().await {
                    for (tx, answer) in batch {
                        let _ = tx.send(answer);
                    }
                }
            });
            tx
        });
        if let Err(e) = relay.send(settled) {
            // The runtime is going away: answer from here.
            for (tx, answer) in e.0 {
                let _ = tx.send(answer);
            }
        }
    }

    /// The Rust side of the call ended (`answered`: the JS handler's answer came back with the
    /// call). A watching `ctx.signal` hears how. The entry goes, unless the handler has not
    /// answered and the call did not finish (it was cancelled or timed out): then its `ctx` must
    /// still say so.
    pub(crate) fn end(&self, id: u64, answered: bool) {
        let mut t = self.table();
        let Some(e) = t.calls.get_mut(&id) else {
            return;
        };
        let reason = e.state.ending().filter(|r| *r != FINISHED_REASON);
        let notify = e.state.watched.load(Ordering::SeqCst);
        if answered || e.reply.is_none() || reason.is_none() {
            t.calls.remove(&id);
        } else {
            e.ended = true;
            t.lingering.push_back((Instant::now(), id));
        }
        let on_end = if notify { t.on_end.clone() } else { None };
        drop(t);
        if let Some(f) = on_end {
            f.call((id as i64, reason), ThreadsafeFunctionCallMode::NonBlocking);
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
