//! The running side of tasks in this process. The record of each task is in the
//! [`TaskStore`](super::TaskStore); what cannot be stored is here: the cancellation token of the
//! handler still running it and the channels of the input requests it is waiting on.
//!
//! Every change to a record goes through [`TaskEngine::mutate`]: read, change, compare-and-set
//! on the version, retry; a change that happened publishes the new `DetailedTask` on the event
//! bus (`notifications/tasks` for `subscriptions/listen` streams).
//!
//! Tasks that always end, on a shared store:
//! - a running task holds a lease (`TaskConfig::lease`) that the keeper task of this process
//!   renews every third of it; a task whose lease lapsed (the process running it died) is failed
//!   by whichever replica next reads it ([`TaskEngine::unless_orphaned`]);
//! - a task's end that the store does not accept (unreachable) waits in a bounded outbox, written
//!   again by the keeper until the store takes it, its lease renewed meanwhile;
//! - progress messages never wait on the store: the latest one is written, earlier ones are
//!   skipped while a write is under way.

use super::record::{now_ms, TaskRecord, TaskStatus};
use super::TaskConfig;
use crate::bus::{Event, EventBus};
use crate::error::{ErrorCode, HandlerError, McpError};
use crate::protocol::InputRequest;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use keeper::Outbox;

struct Waiter {
    req: InputRequest,
    tx: oneshot::Sender<Value>,
}

/// What this process holds for a task whose handler runs here.
struct Live {
    cancel: CancellationToken,
    waiting: HashMap<String, Waiter>,
    /// Answers already delivered: a handler that asks the same key again gets the same answer
    /// (the key is never reused for a different request, as the spec requires).
    answered: HashMap<String, Value>,
    /// The latest progress message not written yet, and whether a writer is under way.
    progress: Option<String>,
    writing: bool,
}

impl Live {
    fn new(cancel: CancellationToken) -> Self {
        Self {
            cancel,
            waiting: HashMap::new(),
            answered: HashMap::new(),
            progress: None,
            writing: false,
        }
    }
}

/// What a task failed by a lapsed lease says.
pub(crate) const STOPPED: &str = "The server running this task stopped";

/// Why a change was not made.
enum Fault {
    /// The store failed (unreachable, say).
    Store(super::StoreError),
    /// The record kept changing under the compare-and-set.
    Busy,
}

pub(crate) struct TaskEngine {
    pub(crate) config: TaskConfig,
    bus: Arc<dyn EventBus>,
    live: Mutex<HashMap<String, Live>>,
    last_purge_ms: AtomicU64,
    /// Set once this engine hears the bus for `Event::TaskControl` (from its first task on).
    watching: std::sync::OnceLock<()>,
    /// Set once the keeper (lease renewal, outbox) runs, on this runtime (from the first task).
    keeper: std::sync::OnceLock<tokio::runtime::Handle>,
    outbox: Mutex<Outbox>,
    /// Told the status a task enters (the server's metrics), when set.
    status_hook: std::sync::OnceLock<StatusHook>,
}

/// What [`TaskEngine::on_status`] calls.
pub(crate) type StatusHook = Box<dyn Fn(&'static str) + Send + Sync>;

fn not_found() -> McpError {
    McpError::invalid_params("Failed to retrieve task: Task not found")
}

fn store_err(e: super::StoreError) -> McpError {
    tracing::error!(error = %e, "task store failed");
    McpError::internal("Task store unavailable")
}

/// 128 random bits, hex: unguessable, and a valid `Mcp-Name` header value.
fn new_id() -> String {
    use rand::RngCore;
    let mut b = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl TaskEngine {
    pub(crate) fn new(config: TaskConfig, bus: Arc<dyn EventBus>) -> Self {
        Self {
            config,
            bus,
            live: Mutex::new(HashMap::new()),
            status_hook: std::sync::OnceLock::new(),
            last_purge_ms: AtomicU64::new(0),
            watching: std::sync::OnceLock::new(),
            keeper: std::sync::OnceLock::new(),
            outbox: Mutex::new(Outbox::default()),
        }
    }

    /// Hear the cancels and input answers that other processes sharing the bus received for
    /// the tasks whose handlers run here (a balancer sends `tasks/cancel` anywhere).
    fn watch(self: &Arc<Self>) {
        self.watching.get_or_init(|| {
            let mut events = self.bus.subscribe();
            let me = Arc::downgrade(self);
            tokio::spawn(async move {
                use futures::StreamExt;
                while let Some(e) = events.next().await {
                    let Event::TaskControl { id, responses } = e else {
                        continue;
                    };
                    let Some(engine) = me.upgrade() else { return };
                    match responses {
                        None => {
                            if let Some(l) = engine.live().remove(&id) {
                                l.cancel.cancel();
                            }
                        }
                        Some(Value::Object(r)) => {
                            if let Err(e) = engine.deliver(&id, &r).await {
                                tracing::warn!(task = %id, error = %e.message, "forwarded task input not recorded");
                            }
                        }
                        Some(_) => {}
                    }
                }
            });
        });
    }

    /// Call `hook` with each status a task enters (from `working` at its creation on).
    pub(crate) fn on_status(&self, hook: StatusHook) {
        let _ = self.status_hook.set(hook);
    }

    fn status_changed(&self, status: TaskStatus) {
        if let Some(h) = self.status_hook.get() {
            h(status.as_str());
        }
    }

    /// Tasks whose handler runs in this process.
    pub(crate) fn live_count(&self) -> usize {
        self.live()
            .values()
            .filter(|l| !l.cancel.is_cancelled())
            .count()
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, Live>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Create a `working` task owned by `owner`, durably, with `cancel` stopping its handler.
    /// It counts against `budget`'s `max` tasks (`ServerOptions::max_tasks_per_caller`) until
    /// it expires: 429 when that caller holds `max` already (`None`: counted against no one).
    pub(crate) async fn create(
        self: &Arc<Self>,
        owner: &str,
        budget: Option<&str>,
        max: usize,
        cancel: CancellationToken,
    ) -> Result<TaskRecord, McpError> {
        let now = now_ms();
        // Purge at most once a second: bounded work per create, expired records go eventually.
        let last = self.last_purge_ms.load(Ordering::Relaxed);
        if now.saturating_sub(last) >= 1000
            && self
                .last_purge_ms
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            let _ = self.config.store.purge_expired(now).await;
            let mut live = self.live();
            live.retain(|_, l| !l.cancel.is_cancelled());
        }
        self.watch();
        self.keep();
        let mut rec = TaskRecord::new(
            new_id(),
            owner.to_string(),
            self.config.ttl.map(|t| t.as_millis() as u64),
            Some(self.config.poll_interval.as_millis().max(1) as u64),
        );
        let quota = &self.config.quota;
        let counted = match budget {
            Some(b) => quota
                .take(b, &rec.id, rec.expires_at_ms(), max, now)
                .await
                .map_err(store_err)?,
            None => true,
        };
        if !counted {
            return Err(McpError::new(
                ErrorCode::RATE_LIMITED,
                format!(
                    "Too many tasks: a caller may hold {max} at once (a finished task counts until it expires)"
                ),
            )
            .with_status(429));
        }
        rec.lease_ms = Some(self.config.lease.as_millis().max(1) as u64);
        self.live().insert(rec.id.clone(), Live::new(cancel));
        if let Err(e) = self.config.store.insert(rec.clone()).await {
            self.live().remove(&rec.id);
            if let Some(b) = budget {
                let _ = quota.release(b, &rec.id).await;
            }
            return Err(store_err(e));
        }
        self.status_changed(rec.status);
        Ok(rec)
    }

    /// Drop a task that was created but never handed out (the call finished first); it no
    /// longer counts against `budget`.
    pub(crate) async fn discard(&self, id: &str, budget: Option<&str>) {
        self.live().remove(id);
        let _ = self.config.store.remove(id).await;
        if let Some(b) = budget {
            let _ = self.config.quota.release(b, id).await;
        }
    }

    /// The caller's task: another caller's, an unknown and an expired one are all -32602.
    pub(crate) async fn get(&self, id: &str, owner: &str) -> Result<TaskRecord, McpError> {
        let rec = self
            .config
            .store
            .get(id)
            .await
            .map_err(store_err)?
            .filter(|r| r.owner == owner)
            .ok_or_else(not_found)?;
        if rec.is_expired(now_ms()) {
            self.expire(id).await;
            return Err(McpError::invalid_params(
                "Failed to retrieve task: Task has expired",
            ));
        }
        Ok(self.unless_orphaned(rec).await)
    }

    /// `rec` as read, unless it is still running by its record while the lease of the process
    /// running it lapsed: that process stopped, and nothing else would ever settle the task, so
    /// it ends `failed` now (first terminal state wins, as everywhere). Any read of a task
    /// passes through here (or [`Self::settle_orphans`]). A store failure leaves the record as
    /// read.
    pub(crate) async fn unless_orphaned(&self, rec: TaskRecord) -> TaskRecord {
        let mut out = self.settle_orphans(vec![rec]).await;
        out.pop().expect("one record in, one out")
    }

    /// [`Self::unless_orphaned`] for several records, with one store round trip for their
    /// leases (`subscriptions/listen` reads many tasks at once).
    pub(crate) async fn settle_orphans(&self, mut recs: Vec<TaskRecord>) -> Vec<TaskRecord> {
        let running: Vec<String> = recs
            .iter()
            .filter(|r| !r.status.is_terminal() && r.lease_ms.is_some() && !self.holds(&r.id))
            .map(|r| r.id.clone())
            .collect();
        if running.is_empty() {
            return recs;
        }
        let Ok(lapsed) = self.config.store.lapsed(running).await else {
            return recs;
        };
        let error = McpError::internal(STOPPED).to_json();
        for rec in recs.iter_mut().filter(|r| lapsed.contains(&r.id)) {
            let mut failed_here = false;
            let r = self
                .mutate(&rec.id, |r| {
                    failed_here = false;
                    if r.status.is_terminal() {
                        return false;
                    }
                    r.status = TaskStatus::Failed;
                    r.result = None;
                    r.error = Some(error.clone());
                    r.status_message = Some(STOPPED.to_string());
                    r.input_requests.clear();
                    failed_here = true;
                    true
                })
                .await;
            if let Ok(Some(now)) = r {
                if failed_here {
                    tracing::warn!(task = %now.id, "the lease of a running task lapsed (the server running it stopped): the task is failed");
                    // Its end, for the audit log: the replica that ran it could not record it.
                    tracing::info!(target: "oxmcp::audit", owner = %now.owner, task = %now.id, outcome = "failed", error_class = STOPPED, "task");
                }
                *rec = now;
            }
        }
        recs
    }

    /// Which of `ids` are the caller's own unexpired tasks, read in one store round trip
    /// (`subscriptions/listen`'s `taskIds`). Another caller's, unknown and expired ones are
    /// left out, as `get` would refuse them.
    pub(crate) async fn own(&self, ids: Vec<String>, owner: &str) -> Result<Vec<String>, McpError> {
        let recs = self.config.store.get_many(&ids).await.map_err(store_err)?;
        let now = now_ms();
        let owned: Vec<TaskRecord> = recs
            .into_iter()
            .flatten()
            .filter(|r| r.owner == owner && !r.is_expired(now))
            .collect();
        // A read like any other: a task whose process stopped ends failed here (one round trip).
        let owned = self.settle_orphans(owned).await;
        Ok(owned.into_iter().map(|r| r.id).collect())
    }

    async fn expire(&self, id: &str) {
        if let Some(l) = self.live().remove(id) {
            l.cancel.cancel();
        }
        let _ = self.config.store.remove(id).await;
    }

    /// Apply `f` to the stored record (it returns whether it changed anything), with
    /// compare-and-set retries. A change bumps the version and `lastUpdatedAt` and is published.
    async fn mutate(
        &self,
        id: &str,
        f: impl FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, McpError> {
        self.try_mutate(id, f).await.map_err(|e| match e {
            Fault::Store(e) => store_err(e),
            Fault::Busy => McpError::internal("Task changed too often to update"),
        })
    }

    /// [`Self::mutate`], its failure kept apart (a store failure may be retried later).
    async fn try_mutate(
        &self,
        id: &str,
        mut f: impl FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, Fault> {
        for _ in 0..64 {
            let Some(mut rec) = self.config.store.get(id).await.map_err(Fault::Store)? else {
                return Ok(None);
            };
            let expected = rec.version;
            let before = rec.status;
            if !f(&mut rec) {
                return Ok(Some(rec));
            }
            rec.version = expected + 1;
            rec.last_updated_at_ms = now_ms().max(rec.last_updated_at_ms);
            if self
                .config
                .store
                .replace(rec.clone(), expected)
                .await
                .map_err(Fault::Store)?
            {
                self.bus.publish(Event::TaskStatus {
                    owner: rec.owner.clone(),
                    task: Value::Object(rec.detailed_json()),
                });
                if rec.status != before {
                    self.status_changed(rec.status);
                }
                return Ok(Some(rec));
            }
        }
        Err(Fault::Busy)
    }

    /// `tasks/cancel`: cooperative. The record turns `cancelled` at once and the handler's
    /// token fires; a task already terminal is left as it is (the ack is the same).
    pub(crate) async fn cancel(&self, id: &str, owner: &str) -> Result<(), McpError> {
        self.get(id, owner).await?;
        self.mutate(id, |rec| {
            if rec.status.is_terminal() {
                return false;
            }
            rec.status = TaskStatus::Cancelled;
            rec.status_message = Some("Cancelled at the client's request".into());
            rec.input_requests.clear();
            true
        })
        .await?;
        let here = self.live().remove(id);
        match here {
            Some(l) => l.cancel.cancel(),
            // Its handler may run in another process sharing the bus.
            None => self.bus.publish(Event::TaskControl {
                id: id.to_string(),
                responses: None,
            }),
        }
        Ok(())
    }

    /// `tasks/update`: deliver the answers to outstanding keys; unknown, already answered and
    /// malformed ones are ignored (the spec's SHOULD). The task is `working` again once nothing
    /// is outstanding.
    pub(crate) async fn update(
        &self,
        id: &str,
        owner: &str,
        responses: &Map<String, Value>,
    ) -> Result<(), McpError> {
        let rec = self.get(id, owner).await?;
        if !self.live().contains_key(id) {
            // Its handler may run in another process sharing the bus: that one checks them.
            if !responses.is_empty() {
                self.bus.publish(Event::TaskControl {
                    id: id.to_string(),
                    responses: Some(Value::Object(responses.clone())),
                });
                self.await_forwarded(id, &rec, responses).await?;
            }
            return Ok(());
        }
        self.deliver(id, responses).await
    }

    /// After forwarding answers to the process running task `id`: wait (bounded) until the
    /// record no longer lists the keys that process will accept, so that a `tasks/get` sent
    /// anywhere after this `tasks/update`'s answer sees them answered (a balancer sends the
    /// next request to yet another replica).
    async fn await_forwarded(
        &self,
        id: &str,
        rec: &TaskRecord,
        responses: &Map<String, Value>,
    ) -> Result<(), McpError> {
        let keys: Vec<&String> = responses
            .iter()
            .filter(|(k, v)| {
                rec.input_requests
                    .get(*k)
                    .and_then(InputRequest::from_json)
                    .is_some_and(|r| r.accepts(v))
            })
            .map(|(k, _)| k)
            .collect();
        if keys.is_empty() {
            return Ok(());
        }
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(2);
        loop {
            let Some(now) = self.config.store.get(id).await.map_err(store_err)? else {
                return Ok(());
            };
            if now.status.is_terminal() || keys.iter().all(|k| !now.input_requests.contains_key(*k))
            {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                // The running process is gone or slow: the answer stays forwarded, as before.
                return Ok(());
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    /// Hand the answers to the handler running task `id` here (see `update`).
    async fn deliver(&self, id: &str, responses: &Map<String, Value>) -> Result<(), McpError> {
        let mut delivered: Vec<(oneshot::Sender<Value>, Value)> = Vec::new();
        let mut keys: Vec<String> = Vec::new();
        {
            let mut live = self.live();
            if let Some(l) = live.get_mut(id) {
                for (k, v) in responses {
                    let ok = l.waiting.get(k).is_some_and(|w| w.req.accepts(v));
                    if ok {
                        if let Some(w) = l.waiting.remove(k) {
                            l.answered.insert(k.clone(), v.clone());
                            delivered.push((w.tx, v.clone()));
                            keys.push(k.clone());
                        }
                    }
                }
            }
        }
        if keys.is_empty() {
            return Ok(());
        }
        self.mutate(id, |rec| {
            let mut changed = false;
            for k in &keys {
                changed |= rec.input_requests.remove(k).is_some();
            }
            if rec.status == TaskStatus::InputRequired && rec.input_requests.is_empty() {
                rec.status = TaskStatus::Working;
                rec.status_message = None;
                changed = true;
            }
            changed
        })
        .await?;
        for (tx, v) in delivered {
            let _ = tx.send(v);
        }
        Ok(())
    }

    /// A handler running as task `id` asks for input: the task turns `input_required` listing
    /// the requests, and this waits for `tasks/update` to answer every one of them.
    pub(crate) async fn ask(
        &self,
        id: &str,
        reqs: Vec<(String, InputRequest)>,
        cancel: &CancellationToken,
    ) -> Result<Vec<Value>, HandlerError> {
        enum Slot {
            Ready(Value),
            Wait(oneshot::Receiver<Value>),
        }
        let mut slots = Vec::with_capacity(reqs.len());
        let mut new: Vec<(String, Value)> = Vec::new();
        {
            let mut live = self.live();
            let Some(l) = live.get_mut(id) else {
                return Err(HandlerError::Cancelled);
            };
            for (key, req) in reqs {
                if let Some(a) = l.answered.get(&key) {
                    slots.push(Slot::Ready(a.clone()));
                    continue;
                }
                let (tx, rx) = oneshot::channel();
                new.push((key.clone(), req.to_json()));
                // A second ask for a key still outstanding replaces the first waiter.
                l.waiting.insert(key, Waiter { req, tx });
                slots.push(Slot::Wait(rx));
            }
        }
        if !new.is_empty() {
            self.mutate(id, |rec| {
                if rec.status.is_terminal() {
                    return false;
                }
                for (k, v) in &new {
                    rec.input_requests.insert(k.clone(), v.clone());
                }
                rec.status = TaskStatus::InputRequired;
                rec.status_message = Some("Waiting for input from the client".into());
                true
            })
            .await?;
        }
        let mut out = Vec::with_capacity(slots.len());
        for s in slots {
            match s {
                Slot::Ready(v) => out.push(v),
                Slot::Wait(rx) => tokio::select! {
                    r = rx => match r {
                        Ok(v) => out.push(v),
                        Err(_) => return Err(HandlerError::Cancelled),
                    },
                    _ = cancel.cancelled() => return Err(HandlerError::Cancelled),
                },
            }
        }
        Ok(out)
    }

    /// The handler's progress, as the task's `statusMessage` (progress notifications are not
    /// sent for tasks; the spec leaves them out). Never waits on the store: one writer per task
    /// writes the latest message, and messages given while it writes replace each other (with
    /// the store slow or unreachable, a handler reporting progress runs at its own pace).
    pub(crate) fn set_message(self: &Arc<Self>, id: &str, message: String) {
        {
            let mut live = self.live();
            let Some(l) = live.get_mut(id) else { return };
            l.progress = Some(message);
            if l.writing {
                return;
            }
            l.writing = true;
        }
        let Some(rt) = self.keeper.get() else { return };
        let (me, id) = (self.clone(), id.to_string());
        rt.spawn(async move {
            loop {
                let message = {
                    let mut live = me.live();
                    let Some(l) = live.get_mut(&id) else { return };
                    match l.progress.take() {
                        Some(m) => m,
                        None => {
                            l.writing = false;
                            return;
                        }
                    }
                };
                let _ = me
                    .try_mutate(&id, |rec| {
                        if rec.status != TaskStatus::Working
                            || rec.status_message.as_deref() == Some(message.as_str())
                        {
                            return false;
                        }
                        rec.status_message = Some(message.clone());
                        true
                    })
                    .await;
            }
        });
    }
}

#[path = "keeper.rs"]
mod keeper;

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
