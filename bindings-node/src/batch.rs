//! The tool dispatcher's hop, batched. With one threadsafe-function call per tool
//! call, the server's two busy threads took turns once per call: the tokio worker's
//! `uv_async_send` woke the JS thread, which (having slept) preempted the worker at once on a
//! shared core and ran that one call; its answer woke the worker, which preempted the JS thread in
//! turn. `perf stat` of the bench server (one core, 16 connections): 2 context switches and 5.6
//! syscalls per call.
//!
//! Here a call joins an inbox, and the first of a batch asks for the JS thread only after the
//! worker has run everything else it had (a task that yields once: tokio runs deferred tasks after
//! the ready ones and an I/O poll); one threadsafe-function call then hands every waiting call to
//! JS as three arrays, and the dispatcher answers them as one array. The answers come back through
//! one channel to one task on the runtime (one wakeup), which hands each to its call.
//!
//! When the process may use one CPU only (`taskset`, a one-CPU cgroup quota), the JS thread cannot
//! run beside the worker: waking it while the worker still has work only preempts the worker (a
//! context switch each way per batch, and batches of ~3.5 calls at 16 connections). There the
//! batch is asked for once a poll of the sockets brings no new call: the worker has read, routed
//! and answered everything it could, and looked once more for requests that came in meanwhile,
//! so the batch holds every call that is waiting. (Asking when the worker was about to park left
//! out the requests that came in while it read the others: they waited a whole batch more.) The
//! wait is bounded (1 ms) for requests that never stop coming. With more CPUs the JS thread runs
//! beside the worker and the batch is asked for after one yield. The rule (one CPU or not, the
//! bound, when the worker has run out of new requests) is the core's `oxmcp::handover`, which the
//! Python binding's hand-over of its sync calls uses too.

use crate::calls::Calls;
use crate::js_handler::JsReturn;
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{
    ThreadsafeCallContext, ThreadsafeFunction, ThreadsafeFunctionCallMode,
};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// A JS handler's return value for one call, or why it could not be read.
pub(crate) type Returned = std::result::Result<JsReturn, napi::Error>;

/// `(argsJsons, callIds, toolNames) => answers`: one array slot per call, in order.
pub(crate) type BatchArgs = FnArgs<(Vec<String>, Vec<i64>, Vec<String>)>;
/// `(argsJsons, callIds, toolNames) => (string | envelope | undefined)[]`
pub(crate) type BatchFn<'a> = Function<'a, BatchArgs, Vec<Unknown<'static>>>;

type BatchTsfn = ThreadsafeFunction<Replies, Vec<Unknown<'static>>, BatchArgs, Status, false, true>;

/// Where the replies of the calls one batch took out of the inbox wait for the JS answers.
type Replies = Arc<Mutex<Vec<oneshot::Sender<Returned>>>>;

struct Waiting {
    args: String,
    id: i64,
    name: Arc<str>,
    reply: oneshot::Sender<Returned>,
}

#[derive(Default)]
struct Inbox {
    calls: Vec<Waiting>,
    /// A task will ask for these calls: later calls only join them.
    armed: bool,
    /// The threadsafe-function call for them is queued and has not taken them yet.
    asked: bool,
    /// Calls made since the start: compared across a poll of the sockets (one CPU).
    added: u64,
}

// Whether there is one CPU, the hold's bound and when it ends: the core's, shared with Python.
use oxmcp::handover::{parallel, settled};

pub(crate) struct Batcher {
    inbox: Arc<Mutex<Inbox>>,
    tsfn: BatchTsfn,
    /// To the task that hands the answers to their calls.
    answers: mpsc::UnboundedSender<Vec<(oneshot::Sender<Returned>, Returned)>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Batcher {
    /// On the JS thread (`setToolDispatcher`); `table`: the server's calls, whose entries of
    /// skipped calls go.
    pub(crate) fn new(f: &BatchFn<'_>, table: Arc<Calls>) -> Result<Arc<Self>> {
        let inbox: Arc<Mutex<Inbox>> = Arc::default();
        let taken = inbox.clone();
        let tsfn = f
            .build_threadsafe_function::<Replies>()
            .weak::<true>()
            .callee_handled::<false>()
            .build_callback(move |c: ThreadsafeCallContext<Replies>| {
                let calls = {
                    let mut ib = lock(&taken);
                    ib.armed = false;
                    ib.asked = false;
                    std::mem::take(&mut ib.calls)
                };
                let n = calls.len();
                let (mut args, mut ids, mut names) = (
                    Vec::with_capacity(n),
                    Vec::with_capacity(n),
                    Vec::with_capacity(n),
                );
                let mut replies = lock(&c.value);
                replies.reserve(n);
                for w in calls {
                    // Nobody waits for this answer any more (the client went away or cancelled
                    // while the call waited for the JS thread): its handler must not run.
                    if w.reply.is_closed() {
                        table.abandon(w.id as u64);
                        continue;
                    }
                    args.push(w.args);
                    ids.push(w.id);
                    names.push(w.name.to_string());
                    replies.push(w.reply);
                }
                Ok(FnArgs::from((args, ids, names)))
            })?;
        let (answers, mut rx) =
            mpsc::unbounded_channel::<Vec<(oneshot::Sender<Returned>, Returned)>>();
        napi::bindgen_prelude::spawn(async move {
            // On the runtime: waking the calls from here puts them on this worker's queue.
            while let Some(batch) = rx.recv().await {
                for (tx, r) in batch {
                    let _ = tx.send(r);
                }
            }
        });
        Ok(Arc::new(Self {
            inbox,
            tsfn,
            answers,
        }))
    }

    /// Hand one call to JS: its answer (or `None`: it will `settle`), or why there is none.
    pub(crate) async fn call(self: &Arc<Self>, args: String, id: i64, name: Arc<str>) -> Returned {
        let (reply, rx) = oneshot::channel();
        let first = {
            let mut ib = lock(&self.inbox);
            ib.calls.push(Waiting {
                args,
                id,
                name,
                reply,
            });
            ib.added += 1;
            !std::mem::replace(&mut ib.armed, true)
        };
        if first {
            self.arm();
        }
        rx.await.unwrap_or_else(|_| {
            Err(napi::Error::new(
                Status::GenericFailure,
                "the JS dispatcher's answer was lost",
            ))
        })
    }

    /// Make sure the calls in the inbox will be asked for (the first call of a batch).
    fn arm(self: &Arc<Self>) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return self.ask();
        };
        let me = self.clone();
        rt.spawn(async move {
            if parallel() {
                // After the worker's other ready tasks (and an I/O poll): the calls they start
                // join this batch.
                tokio::task::yield_now().await;
            } else {
                settled(|| lock(&me.inbox).added).await;
            }
            me.ask();
        });
    }

    /// One threadsafe-function call for every call in the inbox, unless one is queued already or
    /// there is nothing to take.
    fn ask(&self) {
        {
            let mut ib = lock(&self.inbox);
            if ib.asked || ib.calls.is_empty() {
                return;
            }
            ib.asked = true;
        }
        let replies: Replies = Arc::default();
        let mine = replies.clone();
        let answers = self.answers.clone();
        let status = self.tsfn.call_with_return_value(
            replies,
            ThreadsafeFunctionCallMode::NonBlocking,
            move |r: Result<Vec<Unknown<'static>>>, _env| {
                let replies = std::mem::take(&mut *lock(&mine));
                let batch = match r {
                    Ok(list) => {
                        let mut list = list.into_iter();
                        replies
                            .into_iter()
                            .map(|tx| {
                                let r = match list.next() {
                                    Some(v) => JsReturn::from_unknown(v),
                                    None => Err(napi::Error::new(
                                        Status::InvalidArg,
                                        "the JS dispatcher answered fewer calls than it was given",
                                    )),
                                };
                                (tx, r)
                            })
                            .collect()
                    }
                    Err(e) => replies
                        .into_iter()
                        .map(|tx| (tx, Err(napi::Error::new(e.status, e.reason.clone()))))
                        .collect(),
                };
                let _ = answers.send(batch);
                Ok(())
            },
        );
        if status != Status::Ok {
            // The threadsafe function is closing (the environment is going away): nobody will
            // take these calls.
            let calls = {
                let mut ib = lock(&self.inbox);
                ib.armed = false;
                ib.asked = false;
                std::mem::take(&mut ib.calls)
            };
            for w in calls {
                let _ = w.reply.send(Err(napi::Error::new(
                    status,
                    "calling the JS dispatcher failed",
                )));
            }
        }
    }
}
