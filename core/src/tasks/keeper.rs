//! Tasks that always end, on a shared store: the keeper of this process renews the leases of the
//! tasks it runs, and a task's end that the store does not accept waits in a bounded outbox
//! until the keeper writes it (the module docs of [`super`] say why).

use super::{Fault, TaskEngine};
use crate::tasks::record::TaskStatus;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// A task's end, as `TaskEngine::finish` writes it.
#[derive(Clone)]
pub(super) struct End {
    status: TaskStatus,
    result: Option<Value>,
    error: Option<Value>,
    message: Option<String>,
    /// Its size as JSON, counted against [`OUTBOX_MAX_BYTES`].
    bytes: usize,
}

/// Most task ends one process holds while the store is unreachable, and their bytes: an end past
/// either is dropped with a warning (its task then fails when its lease lapses).
pub(crate) const OUTBOX_MAX: usize = 10_000;
pub(crate) const OUTBOX_MAX_BYTES: usize = 64 << 20;

/// The ends the store has not accepted yet, by task id.
#[derive(Default)]
pub(super) struct Outbox {
    pub(super) ends: HashMap<String, End>,
    pub(super) bytes: usize,
}

/// How often the keeper retries the outbox at most (and at least every lease third).
const RETRY_EVERY: Duration = Duration::from_millis(500);

impl TaskEngine {
    pub(super) fn outbox(&self) -> std::sync::MutexGuard<'_, Outbox> {
        self.outbox.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether this process is running task `id` or holds its end (its lease is renewed here).
    pub(super) fn holds(&self, id: &str) -> bool {
        self.live().contains_key(id) || self.outbox().ends.contains_key(id)
    }

    /// Start the keeper: every [`RETRY_EVERY`] (or lease third, if shorter) it writes the held
    /// ends the store accepts now, and every lease third it renews the leases of the tasks held
    /// here. Ends with the engine.
    pub(super) fn keep(self: &Arc<Self>) {
        self.keeper.get_or_init(|| {
            let me = Arc::downgrade(self);
            let every = (self.config.lease / 3).max(Duration::from_millis(10));
            let tick = every.min(RETRY_EVERY);
            tokio::spawn(async move {
                let mut renewed: Option<tokio::time::Instant> = None;
                loop {
                    tokio::time::sleep(tick).await;
                    let Some(engine) = me.upgrade() else { return };
                    engine.flush().await;
                    if renewed.is_some_and(|t| t.elapsed() + tick < every) {
                        continue;
                    }
                    let ids: Vec<String> = {
                        let mut ids: Vec<String> = engine.live().keys().cloned().collect();
                        ids.extend(engine.outbox().ends.keys().cloned());
                        ids
                    };
                    if ids.is_empty() {
                        renewed = Some(tokio::time::Instant::now());
                        continue;
                    }
                    match engine
                        .config
                        .store
                        .renew_leases(ids, engine.config.lease)
                        .await
                    {
                        Ok(()) => renewed = Some(tokio::time::Instant::now()),
                        // Retried next tick; a partition longer than the lease lets other
                        // replicas fail these tasks.
                        Err(e) => tracing::debug!(error = %e, "task leases not renewed"),
                    }
                }
            });
            tokio::runtime::Handle::current()
        });
    }

    /// Write the held ends the store accepts now; stops at the first store failure.
    pub(super) async fn flush(&self) {
        let ids: Vec<String> = self.outbox().ends.keys().cloned().collect();
        let mut written = 0usize;
        for id in ids {
            let Some(end) = self.outbox().ends.get(&id).cloned() else {
                continue;
            };
            match self.write_end(&id, &end).await {
                Err(Fault::Store(_)) => break,
                r => {
                    let mut ob = self.outbox();
                    if let Some(e) = ob.ends.remove(&id) {
                        ob.bytes -= e.bytes;
                    }
                    drop(ob);
                    match r {
                        Ok(()) => written += 1,
                        _ => tracing::error!(task = %id, "could not record the end of a task"),
                    }
                }
            }
        }
        if written > 0 {
            let left = self.outbox().ends.len();
            tracing::info!(
                written,
                left,
                "task store reachable again: held task ends written"
            );
        }
    }

    /// Hold the end of task `id` until the store accepts it (see [`Self::flush`]).
    pub(super) fn hold(&self, id: &str, end: End, error: &crate::tasks::StoreError) {
        let mut ob = self.outbox();
        let old = ob.ends.get(id).map_or(0, |e| e.bytes);
        if ob.ends.len() >= OUTBOX_MAX || ob.bytes - old + end.bytes > OUTBOX_MAX_BYTES {
            tracing::warn!(task = %id, held = ob.ends.len(), bytes = ob.bytes, max = OUTBOX_MAX, max_bytes = OUTBOX_MAX_BYTES,
                "task outbox full: the end of this task is dropped (it fails once its lease lapses)");
            return;
        }
        ob.bytes = ob.bytes - old + end.bytes;
        ob.ends.insert(id.to_string(), end);
        tracing::warn!(task = %id, error = %error, held = ob.ends.len(),
            "task store unreachable: the end of this task is held and written once the store accepts it");
    }

    /// Settle a task (first terminal state wins: a cancelled task stays cancelled). When the
    /// store is unreachable the end is held and written later (see the module docs).
    pub(crate) async fn finish(
        &self,
        id: &str,
        status: TaskStatus,
        result: Option<Value>,
        error: Option<Value>,
        message: Option<String>,
    ) {
        let size = |v: &Option<Value>| {
            v.as_ref()
                .map_or(0, |v| serde_json::to_vec(v).map_or(0, |b| b.len()))
        };
        let bytes = size(&result) + size(&error) + message.as_ref().map_or(0, String::len) + 64;
        let end = End {
            status,
            result,
            error,
            message,
            bytes,
        };
        match self.write_end(id, &end).await {
            Ok(()) => {}
            Err(Fault::Store(e)) => self.hold(id, end, &e),
            Err(Fault::Busy) => {
                tracing::error!(task = %id, "could not record the end of a task (it kept changing)")
            }
        }
        self.live().remove(id);
    }

    pub(super) async fn write_end(&self, id: &str, end: &End) -> Result<(), Fault> {
        self.try_mutate(id, |rec| {
            if rec.status.is_terminal() {
                return false;
            }
            rec.status = end.status;
            rec.result = end.result.clone();
            rec.error = end.error.clone();
            rec.input_requests.clear();
            if end.message.is_some() {
                rec.status_message = end.message.clone();
            }
            true
        })
        .await
        .map(|_| ())
    }
}
