//! The Tasks extension (`io.modelcontextprotocol/tasks`): a `tools/call` may answer with a durable
//! task handle (`CreateTaskResult`, `resultType: "task"`) that the client polls with `tasks/get`,
//! feeds with `tasks/update` and stops with `tasks/cancel`.
//!
//! - [`record`]: the task state machine and its wire shapes (`Task`, `DetailedTask`).
//! - [`store`]: [`TaskStore`], the durable records (in memory by default; shaped for Redis).
//! - `engine`: the running side in this process: handler cancellation, the input requests a
//!   handler is waiting on, status events on the server's `EventBus`.
//! - [`redis`] (feature `redis`): `RedisTaskStore` and `RedisTaskQuota`, shared by the replicas.
//! - `server`: the dispatcher's side: whether a `tools/call` becomes a task, running it past the
//!   request, and `tasks/get|update|cancel`.
//!
//! The server decides per request: a tool declares [`TaskSupport`]; a task is created only when
//! the request's client capabilities declare the extension, either at once or once the call has
//! run longer than the tool's budget (`Tool::task_after`).
//!
//! `redis` and `server` sit at the layers of what they use (Redis; the dispatcher), above the
//! records and engine, which `tool` and `context` use: `scripts/check-layers.py` places each.

pub(crate) mod engine;
pub mod quota;
pub mod record;
#[cfg(feature = "redis")]
pub mod redis;
mod server;
pub mod store;

pub use quota::{InMemoryTaskQuota, TaskQuota};
pub use record::{TaskRecord, TaskStatus};
pub use store::{InMemoryTaskStore, StoreError, TaskStore};

use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// The extension's identifier (capability key, `requiredCapabilities` key).
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/tasks";

/// The lease of a running task by default ([`TaskConfig::lease`]).
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// Whether a tool's calls may become tasks (`execution.taskSupport` in `tools/list`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task when the client supports the extension, a plain call otherwise.
    Optional,
    /// Only as a task: a client without the extension gets -32021.
    Required,
}

impl TaskSupport {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "forbidden" => Some(Self::Forbidden),
            "optional" => Some(Self::Optional),
            "required" => Some(Self::Required),
            _ => None,
        }
    }
}

/// Server-wide task settings (`ServerBuilder::tasks`).
#[derive(Clone)]
#[non_exhaustive]
pub struct TaskConfig {
    /// How long a task (and its result) is kept from creation; `None`: until restart.
    pub ttl: Option<Duration>,
    /// The polling interval suggested to clients.
    pub poll_interval: Duration,
    /// How long a running task's lease lasts: the process running its handler renews it every
    /// third of this, and a task whose lease lapsed (that process died) is failed by whichever
    /// replica next reads it. Only a shared store keeps leases.
    pub lease: Duration,
    /// Where records live.
    pub store: Arc<dyn TaskStore>,
    /// How many tasks each caller holds (`ServerOptions::max_tasks_per_caller`): in this
    /// process, or with Redis in Redis.
    pub(crate) quota: Arc<dyn TaskQuota>,
    /// Set by [`TaskConfig::store`]: a `ServerBuilder::redis` server keeps this store instead
    /// of its Redis one.
    pub(crate) custom_store: bool,
}

impl Default for TaskConfig {
    fn default() -> Self {
        Self {
            ttl: Some(Duration::from_secs(3600)),
            poll_interval: Duration::from_millis(500),
            lease: DEFAULT_LEASE,
            store: Arc::new(InMemoryTaskStore::new()),
            quota: Arc::new(InMemoryTaskQuota::default()),
            custom_store: false,
        }
    }
}

impl TaskConfig {
    pub fn ttl(mut self, ttl: Option<Duration>) -> Self {
        self.ttl = ttl;
        self
    }
    pub fn poll_interval(mut self, p: Duration) -> Self {
        self.poll_interval = p;
        self
    }
    /// At least 100 ms (a shorter one is raised to it: its renewals would outrun Redis).
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(100));
        self
    }
    pub fn store(mut self, s: Arc<dyn TaskStore>) -> Self {
        self.store = s;
        self.custom_store = true;
        self
    }
}

/// Whether a `ClientCapabilities` object declares the tasks extension.
pub fn declared_in(caps: &Value) -> bool {
    caps.get("extensions")
        .and_then(|e| e.get(EXTENSION_ID))
        .is_some_and(Value::is_object)
}

/// `requiredCapabilities` for the -32021 error.
pub fn required_json() -> Value {
    serde_json::json!({"extensions": {EXTENSION_ID: {}}})
}

/// The link from a call's `Context` to the task it became, if it did.
#[derive(Clone)]
pub(crate) struct TaskLink {
    pub(crate) engine: Arc<engine::TaskEngine>,
    pub(crate) id: String,
}

impl TaskLink {
    pub(crate) async fn ask(
        &self,
        reqs: Vec<(String, crate::protocol::InputRequest)>,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<Vec<Value>, crate::error::HandlerError> {
        self.engine.ask(&self.id, reqs, cancel).await
    }
    /// Never waits on the store: see `TaskEngine::set_message`.
    pub(crate) fn set_message(&self, m: String) {
        self.engine.set_message(&self.id, m)
    }
}

#[derive(Default)]
pub(crate) struct SlotState {
    pub(crate) link: Option<TaskLink>,
    /// The handler already answered this request with an MRTR round: it stays a plain call.
    pub(crate) mrtr_asked: bool,
}

/// Shared by a call's `Context` and the dispatcher while the call may still become a task.
#[derive(Default)]
pub(crate) struct TaskSlot {
    st: std::sync::Mutex<SlotState>,
}

impl TaskSlot {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, SlotState> {
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }
    pub(crate) fn link(&self) -> Option<TaskLink> {
        self.lock().link.clone()
    }
    /// Turn the call into task `link`; `false` when the handler already asked for MRTR input.
    pub(crate) fn escalate(&self, link: TaskLink) -> bool {
        let mut st = self.lock();
        if st.mrtr_asked {
            return false;
        }
        st.link = Some(link);
        true
    }
}
