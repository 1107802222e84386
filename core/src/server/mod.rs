//! The server: registry of primitives, options, and the dispatcher every transport calls.

pub(crate) mod access;
mod answer;
mod calls;
mod capabilities;
pub mod catalog;
pub(crate) mod dispatch;
mod env;
pub(crate) mod era;
pub mod gate;
mod initiated;
mod legacy;
pub(crate) mod listed_tools;
mod listen;
mod lists;
mod metered;
mod methods;
pub mod middleware;
pub(crate) mod mrtr;
pub mod options;
pub(crate) mod pipeline;
mod refusal;
mod register;
pub(crate) mod registry;
pub(crate) mod search;
mod skills;
mod template_index;
mod tool_search;
pub mod trace;

pub use env::{Env, Transport};
pub use initiated::{SessionHandle, SessionListener};
pub(crate) use listen::ListenerSlot;
pub use methods::check_method_name;
pub(crate) use mrtr::MIN_RING_KEY_LEN as MIN_STATE_RING_KEY_LEN;
pub use register::DiscoveredEntry;

use crate::bus::{Event, EventBus, InMemoryBus};
use crate::client_requests::ClientRequests;
use crate::discovery::Origin;
use crate::error::BuildError;
use crate::prompt::{Prompt, PromptEntry};
use crate::resource::{Resource, ResourceEntry, ResourceTemplate, TemplateEntry};
use crate::schema::SchemaCache;
use crate::session::SessionTable;
use crate::tool::{Tool, ToolEntry};
use options::ServerOptions;
pub(crate) use registry::Registry;
use registry::Table;
use serde_json::{Map, Value};
use std::sync::{Arc, RwLock};
use tokio_util::sync::CancellationToken;

/// How many children `abort` keeps for good (`Inner::_abort_ballast`): its list of children then
/// stays at least this long, and tokio-util shrinks it only below a quarter of its capacity.
const ABORT_BALLAST: usize = 16;

pub(crate) struct Inner {
    /// Shared with every modern answer that carries it in `_meta`.
    pub(crate) info: Arc<answer::ServerInfo>,
    pub(crate) instructions: Option<String>,
    /// Everything registered, in registration order (so lists are deterministic). Copy-on-write:
    /// a request takes a snapshot (one `Arc` clone); a change publishes a new version, which
    /// shares all but O(log N) nodes with the last (see `registry.rs`).
    pub(crate) registry: RwLock<Arc<Registry>>,
    /// One compiled schema per distinct tool schema.
    pub(crate) schemas: SchemaCache,
    pub(crate) options: ServerOptions,
    pub(crate) bus: Arc<dyn EventBus>,
    pub(crate) sealer: mrtr::StateSealer,
    pub(crate) sessions: SessionTable,
    /// Legacy sessions ended lately, here or (heard as a signal) on another replica: a DELETE
    /// repeated by a proxy still answers success (`gate::Gate::end`).
    pub(crate) ended_sessions: gate::EndedSessions,
    /// HTTP+SSE streams held here that other replicas send to.
    pub(crate) held_streams: crate::session::HeldStreams,
    pub(crate) client_requests: Arc<ClientRequests>,
    pub(crate) shutdown: CancellationToken,
    /// Parent of every request's cancellation token: fired when the drain deadline passes.
    pub(crate) abort: CancellationToken,
    /// Children of `abort` that live as long as the server, so that its list of children is
    /// never empty. tokio-util shrinks that list once it is three-quarters empty, so with few
    /// requests in flight every request's token freed it and the next one allocated it again:
    /// one `malloc`/`free` pair per request on the shared parent's lock.
    _abort_ballast: Vec<CancellationToken>,
    pub(crate) listeners: std::sync::atomic::AtomicUsize,
    /// Open listener streams per authenticated caller (identity key), under
    /// `ServerOptions::max_listeners_per_caller`.
    pub(crate) listeners_by_caller: std::sync::Mutex<std::collections::HashMap<String, usize>>,
    /// Tasks running in this process per caller (`access::budget_key`), under
    /// `ServerOptions::max_running_tasks_per_caller`.
    pub(crate) running_tasks: std::sync::Mutex<std::collections::HashMap<String, usize>>,
    /// Capabilities declared even when nothing of that kind is registered yet.
    pub(crate) declared: Declared,
    /// The capabilities to declare instead of the computed ones ([`Server::declare_exactly`]).
    pub(crate) exact: RwLock<Option<Arc<Value>>>,
    /// The Prometheus metrics (`ServerOptions::metrics`); `None` when off.
    pub(crate) metrics: Option<Arc<crate::metrics::Metrics>>,
    /// Whether an HTTP listener of this server bound the metrics' own address already.
    pub(crate) metrics_bound: std::sync::atomic::AtomicBool,
    /// `ServerOptions::max_in_flight` as a semaphore.
    pub(crate) in_flight: Option<Arc<tokio::sync::Semaphore>>,
    /// Set when an HTTP endpoint with auth serves this server: results become `private`.
    pub(crate) auth_on: std::sync::atomic::AtomicBool,
    /// Told of legacy sessions' notifications (`initiated.rs`).
    pub(crate) session_listener: RwLock<Option<Arc<dyn initiated::SessionListener>>>,
    /// The interceptor chain (`middleware.rs`), copy-on-write: a request takes one `Arc` clone.
    pub(crate) middleware: RwLock<Arc<Vec<Arc<dyn middleware::Middleware>>>>,
    /// The `Mcp-Param-*` rules of tools a middleware's `tools/list` answer listed and the
    /// registry does not hold (a low-level server's), for the HTTP header check.
    pub(crate) listed_tools: listed_tools::ListedTools,
    /// The host's methods outside the spec (`methods.rs`).
    pub(crate) methods: methods::Methods,
    /// The Tasks extension: records, running handlers, status events.
    pub(crate) tasks: Arc<crate::tasks::engine::TaskEngine>,
    /// Whether this process listens to other replicas' session signals yet.
    pub(crate) session_signals: std::sync::atomic::AtomicBool,
    /// The deployment's Redis (`ServerBuilder::redis`): legacy sessions, client-request
    /// forwarding and the shared rate limits build on it. `None`: one process.
    #[cfg(feature = "redis")]
    pub(crate) redis: Option<crate::redis::Redis>,
    /// HTTP rate-limit buckets in Redis (`rate_limit_store = "redis"`).
    #[cfg(feature = "redis")]
    pub(crate) shared_rate_limits: bool,
}

#[derive(Clone, Copy, Default)]
pub(crate) struct Declared {
    tools: bool,
    resources: bool,
    prompts: bool,
}

/// An MCP server. Cheap to clone (an `Arc`); serve it with [`crate::transport`].
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.inner.info)
            .finish()
    }
}

/// Builds a [`Server`]; registration errors surface from [`ServerBuilder::build`].
pub struct ServerBuilder {
    info: Map<String, Value>,
    instructions: Option<String>,
    /// Tools are compiled as they are added (their JSON freed at once, their schema interned),
    /// into the registry `build` publishes: a builder of N tools never holds N tool definitions.
    registry: Registry,
    schemas: SchemaCache,
    /// The first registration error, returned by `build`.
    error: Option<BuildError>,
    /// Compiled by `build`, in the order they were given, each with its origin.
    resources: Vec<(Resource, Origin)>,
    templates: Vec<(ResourceTemplate, Origin)>,
    prompts: Vec<(Prompt, Origin)>,
    skills: Vec<crate::skills::SkillSlot>,
    options: ServerOptions,
    bus: Option<Arc<dyn EventBus>>,
    declared: Declared,
    tasks: crate::tasks::TaskConfig,
    session_store: Option<Arc<dyn crate::session::store::SessionStore>>,
    #[cfg(feature = "redis")]
    redis: Option<crate::redis::Redis>,
    #[cfg(feature = "redis")]
    shared_rate_limits: bool,
}

impl Server {
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        let mut info = Map::new();
        info.insert("name".into(), Value::String(name.into()));
        info.insert("version".into(), Value::String(version.into()));
        ServerBuilder {
            info,
            instructions: None,
            registry: Registry::default(),
            schemas: SchemaCache::default(),
            error: None,
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            skills: Vec::new(),
            options: ServerOptions::default(),
            bus: None,
            declared: Declared::default(),
            tasks: crate::tasks::TaskConfig::default(),
            session_store: None,
            #[cfg(feature = "redis")]
            redis: None,
            #[cfg(feature = "redis")]
            shared_rate_limits: false,
        }
    }

    pub fn options(&self) -> &ServerOptions {
        &self.inner.options
    }
    /// The `Implementation` object (`serverInfo`).
    pub fn info(&self) -> &Value {
        &self.inner.info.value
    }

    pub(crate) fn snapshot(&self) -> Arc<Registry> {
        self.inner
            .registry
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Change the registry with `value`: `check` sees the current version and refuses (an
    /// error: nothing changes) or says whether there is anything to do; `apply` then makes the
    /// change and cannot fail, so a change is all or none. `None`: nothing to do, no new version.
    ///
    /// While no request holds a snapshot of the current version (registration before serving,
    /// or a quiet server), the version is changed in place: the persistent maps then copy no
    /// node at all (`rpds`' `insert_mut` copies a node only while another version shares it).
    /// Otherwise the next version is a clone (four roots) that copies the O(log N) nodes on the
    /// changed paths. Either way the answers rendered from the old version are dropped.
    fn update<V, T>(
        &self,
        value: V,
        check: impl FnOnce(&Registry, &V) -> Result<bool, BuildError>,
        apply: impl FnOnce(&mut Registry, V) -> T,
    ) -> Result<Option<T>, BuildError> {
        let mut guard = self
            .inner
            .registry
            .write()
            .unwrap_or_else(|e| e.into_inner());
        if !check(&guard, &value)? {
            return Ok(None);
        }
        if let Some(reg) = Arc::get_mut(&mut guard) {
            reg.rendered = registry::Rendered::default();
            return Ok(Some(apply(reg, value)));
        }
        let mut next = (**guard).clone();
        let out = apply(&mut next, value);
        *guard = Arc::new(next);
        Ok(Some(out))
    }

    /// Add a tool while serving; listeners get `notifications/tools/list_changed`. A tool of
    /// that name that was discovered is replaced (a name registered by hand wins,
    /// [`crate::discovery::admit`]); one registered by hand is an error.
    pub fn add_tool(&self, tool: Tool) -> Result<(), BuildError> {
        self.register_tool(tool, Origin::Manual).map(drop)
    }
    /// Add several tools as one change: all or none are added (a bad or duplicate one is an
    /// error and nothing changes), one new registry version, one `list_changed`.
    pub fn add_tools(&self, tools: impl IntoIterator<Item = Tool>) -> Result<(), BuildError> {
        let mut batch = self.tool_batch();
        for t in tools {
            batch.push(t)?;
        }
        batch.commit()
    }
    /// An empty [`ToolBatch`] for this server: [`Server::add_tools`] for a caller that makes
    /// each `Tool` from a host object and may fail between two of them.
    pub fn tool_batch(&self) -> ToolBatch {
        ToolBatch {
            server: self.clone(),
            entries: Vec::new(),
        }
    }
    /// Replace a tool with the same name, or add it.
    pub fn upsert_tool(&self, tool: Tool) -> Result<(), BuildError> {
        let e = ToolEntry::compile(tool, &self.inner.schemas)?;
        self.update(
            e,
            |_, _| Ok(true),
            |r, e| r.tools.insert(e.name.clone(), Arc::new(e)),
        )?;
        self.inner.bus.publish(Event::ToolsListChanged);
        Ok(())
    }
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = self
            .update(
                name,
                |r, name| Ok(r.tools.contains_key(name)),
                |r, name| r.tools.shift_remove(name),
            )
            .is_ok_and(|r| r.is_some());
        if removed {
            self.inner.bus.publish(Event::ToolsListChanged);
        }
        removed
    }
    pub fn add_resource(&self, res: Resource) -> Result<(), BuildError> {
        self.register_resource(res, Origin::Manual).map(drop)
    }
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = self
            .update(
                uri,
                |r, uri| Ok(r.resources.contains_key(uri)),
                |r, uri| r.resources.shift_remove(uri),
            )
            .is_ok_and(|r| r.is_some());
        if removed {
            self.inner.bus.publish(Event::ResourcesListChanged);
        }
        removed
    }
    pub fn add_resource_template(&self, t: ResourceTemplate) -> Result<(), BuildError> {
        self.register_resource_template(t, Origin::Manual).map(drop)
    }
    pub fn remove_resource_template(&self, template: &str) -> bool {
        let removed = self
            .update(
                template,
                |r, t| Ok(r.templates.contains_key(t)),
                |r, t| r.templates.shift_remove(t),
            )
            .is_ok_and(|r| r.is_some());
        if removed {
            self.inner.bus.publish(Event::ResourcesListChanged);
        }
        removed
    }
    pub fn add_prompt(&self, p: Prompt) -> Result<(), BuildError> {
        self.register_prompt(p, Origin::Manual).map(drop)
    }
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = self
            .update(
                name,
                |r, name| Ok(r.prompts.contains_key(name)),
                |r, name| r.prompts.shift_remove(name),
            )
            .is_ok_and(|r| r.is_some());
        if removed {
            self.inner.bus.publish(Event::PromptsListChanged);
        }
        removed
    }
    /// Tell listeners (and subscribed legacy sessions) that a resource changed.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.inner.bus.publish(Event::ResourceUpdated(uri.into()));
    }
    pub fn tool_names(&self) -> Vec<String> {
        self.snapshot().tools.keys().map(str::to_string).collect()
    }

    /// Ends listen streams and legacy sessions; transports call it when their shutdown fires.
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
        self.inner.sessions.close_all();
    }
    /// Cancel every request still running (the drain deadline has passed).
    pub fn abort_in_flight(&self) {
        self.inner.abort.cancel();
    }

    /// A cancellation token for one request: fires on client cancel or `abort_in_flight`.
    pub fn request_token(&self) -> CancellationToken {
        self.inner.abort.child_token()
    }

    pub fn is_shut_down(&self) -> bool {
        self.inner.shutdown.is_cancelled()
    }

    /// A client's JSON-RPC response to a server→client request, POSTed in legacy session
    /// `session`: wake the handler awaiting it, here or (a shared session store) on the replica
    /// that sent the request. `raw`: the message as the client wrote it, when the transport has
    /// it (the handler is given its `result`'s text too). `Ok(true)` when it was delivered here.
    pub(crate) async fn client_response(
        &self,
        msg: &Value,
        session: Option<&str>,
        raw: Option<&[u8]>,
    ) -> Result<bool, crate::error::McpError> {
        if self.inner.client_requests.resolve(msg, session, raw) {
            return Ok(true);
        }
        let store = &self.inner.sessions.store;
        if let (Some(s), true) = (session, store.is_shared()) {
            store
                .signal(crate::session::store::SessionSignal::Response {
                    session: s.to_string(),
                    msg: msg.clone(),
                })
                .await?;
        }
        Ok(false)
    }

    /// An HTTP endpoint with auth serves this server: lists and results may differ per caller,
    /// so every cacheable result becomes `cacheScope: "private"`.
    pub(crate) fn mark_authenticated(&self) {
        self.inner
            .auth_on
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Tools to add as one change ([`Server::tool_batch`]). Each tool is compiled as it is pushed,
/// and its definition's schemas are shared with the equal ones already compiled, so a batch of
/// thousands holds one descriptor per tool, not every tool's schema JSON until the end (which
/// glibc keeps as RSS after it is freed: 7.9 KB per tool in a Python server of 5,000).
/// Dropped without [`ToolBatch::commit`]: nothing is added.
pub struct ToolBatch {
    server: Server,
    entries: Vec<ToolEntry>,
}

impl ToolBatch {
    /// Compile `tool` into the batch; an invalid one is an error (the batch keeps the others).
    pub fn push(&mut self, tool: Tool) -> Result<(), BuildError> {
        let e = ToolEntry::compile(tool, &self.server.inner.schemas)?;
        self.entries.push(e);
        Ok(())
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// Add every tool of the batch: all or none (a name registered by hand already or twice in
    /// the batch is an error and nothing changes; a discovered one is replaced), one registry
    /// version, one `list_changed`.
    pub fn commit(self) -> Result<(), BuildError> {
        let Self { server, entries } = self;
        if entries.is_empty() {
            return Ok(());
        }
        server.update(
            entries,
            |r, entries| {
                // Every name checked before any is added: a refused batch changes nothing.
                let mut seen = std::collections::HashSet::with_capacity(entries.len());
                for e in entries {
                    let existing = r.tools.origin(&e.name);
                    crate::discovery::admit("tool", &e.name, existing.as_ref(), &Origin::Manual)?;
                    if !seen.insert(e.name.as_str()) {
                        return Err(BuildError::DuplicateName {
                            kind: "tool",
                            name: e.name.clone(),
                        });
                    }
                }
                Ok(true)
            },
            |r, entries| {
                for e in entries {
                    r.tools
                        .insert_from(e.name.clone(), Arc::new(e), Origin::Manual);
                }
            },
        )?;
        server.inner.bus.publish(Event::ToolsListChanged);
        Ok(())
    }
}

/// The builder's insert (a registry no one else sees yet), by the discovery rule
/// ([`crate::discovery::admit`]).
fn insert_from<T>(
    map: &mut Table<T>,
    kind: &'static str,
    key: String,
    v: Arc<T>,
    origin: Origin,
) -> Result<(), BuildError> {
    let existing = map.origin(&key);
    if crate::discovery::admit(kind, &key, existing.as_ref(), &origin)?
        != crate::discovery::Admit::Skip
    {
        map.insert_from(key, v, origin);
    }
    Ok(())
}

impl ServerBuilder {
    fn info_field(mut self, k: &str, v: Value) -> Self {
        self.info.insert(k.into(), v);
        self
    }
    pub fn title(self, t: impl Into<String>) -> Self {
        self.info_field("title", Value::String(t.into()))
    }
    pub fn description(self, d: impl Into<String>) -> Self {
        self.info_field("description", Value::String(d.into()))
    }
    pub fn website_url(self, u: impl Into<String>) -> Self {
        self.info_field("websiteUrl", Value::String(u.into()))
    }
    pub fn icons(self, icons: Value) -> Self {
        self.info_field("icons", icons)
    }
    pub fn instructions(mut self, i: impl Into<String>) -> Self {
        self.instructions = Some(i.into());
        self
    }
    pub fn tool(self, t: Tool) -> Self {
        self.tool_from(t, Origin::Manual)
    }
    fn tool_from(mut self, t: Tool, origin: Origin) -> Self {
        if self.error.is_none() {
            let r = ToolEntry::compile(t, &self.schemas).and_then(|e| {
                insert_from(
                    &mut self.registry.tools,
                    "tool",
                    e.name.clone(),
                    Arc::new(e),
                    origin,
                )
            });
            self.error = r.err();
        }
        self
    }
    pub fn resource(mut self, r: Resource) -> Self {
        self.resources.push((r, Origin::Manual));
        self
    }
    pub fn resource_template(mut self, t: ResourceTemplate) -> Self {
        self.templates.push((t, Origin::Manual));
        self
    }
    pub fn prompt(mut self, p: Prompt) -> Self {
        self.prompts.push((p, Origin::Manual));
        self
    }
    pub fn options(mut self, o: ServerOptions) -> Self {
        self.options = o;
        self
    }
    pub fn options_mut(&mut self) -> &mut ServerOptions {
        &mut self.options
    }
    /// Replace the in-memory event bus (e.g. with a pub/sub one for several replicas).
    pub fn event_bus(mut self, bus: Arc<dyn EventBus>) -> Self {
        self.bus = Some(bus);
        self
    }
    /// Where legacy sessions live (default: this process's memory). A shared store (Redis)
    /// lets every replica serve every session.
    pub fn session_store(mut self, store: Arc<dyn crate::session::store::SessionStore>) -> Self {
        self.session_store = Some(store);
        self
    }
    /// Share this server's state with its other replicas through `redis` (feature `redis`):
    /// change events go on a [`crate::redis::RedisBus`] (unless [`ServerBuilder::event_bus`]
    /// set another) and task records in a [`crate::tasks::redis::RedisTaskStore`] (unless
    /// [`crate::tasks::TaskConfig::store`] set another). Give every replica the same
    /// `ServerOptions::state_key`, or MRTR retries landing on another replica are refused.
    #[cfg(feature = "redis")]
    pub fn redis(mut self, redis: crate::redis::Redis) -> Self {
        self.redis = Some(redis);
        self
    }

    /// HTTP rate limits counted in Redis, shared by the replicas (needs [`ServerBuilder::redis`]).
    #[cfg(feature = "redis")]
    pub fn shared_rate_limits(mut self, on: bool) -> Self {
        self.shared_rate_limits = on;
        self
    }

    /// Task settings (TTL, polling interval, the [`crate::tasks::TaskStore`]).
    pub fn tasks(mut self, config: crate::tasks::TaskConfig) -> Self {
        self.tasks = config;
        self
    }
    /// Declare the tools capability even while no tool is registered (tools added at runtime).
    pub fn declare_tools(mut self) -> Self {
        self.declared.tools = true;
        self
    }
    pub fn declare_resources(mut self) -> Self {
        self.declared.resources = true;
        self
    }
    pub fn declare_prompts(mut self) -> Self {
        self.declared.prompts = true;
        self
    }

    /// The MRTR sealer of these options: the key ring (`state_keys`, each at least
    /// [`mrtr::MIN_RING_KEY_LEN`] bytes) or the single `state_key`, bound to `state_audience`
    /// (the server's name by default).
    fn state_sealer(&self) -> Result<mrtr::StateSealer, BuildError> {
        let o = &self.options;
        if let Some(i) = o
            .state_keys
            .iter()
            .position(|k| k.len() < mrtr::MIN_RING_KEY_LEN)
        {
            return Err(BuildError::InvalidOption {
                kind: "server",
                name: "state_keys".into(),
                message: format!(
                    "state_keys[{i}] must be at least {} bytes",
                    mrtr::MIN_RING_KEY_LEN
                ),
            });
        }
        let keys = if o.state_keys.is_empty() {
            o.state_key.iter().cloned().collect()
        } else {
            o.state_keys.clone()
        };
        if keys.is_empty() {
            tracing::warn!(
                "no MRTR state key configured: using a random per-process key, so requestState \
                 will not survive a restart or a load balancer across replicas"
            );
        }
        let audience = o.state_audience.clone().unwrap_or_else(|| {
            self.info
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        });
        Ok(mrtr::StateSealer::new(keys, audience, o.state_ttl))
    }

    pub fn build(self) -> Result<Server, BuildError> {
        // One registry, filled in place and published once.
        if let Some(e) = self.error {
            return Err(e);
        }
        let sealer = self.state_sealer()?;
        let mut reg = self.registry;
        let schemas = self.schemas;
        for (r, origin) in self.resources {
            let (k, e) = ResourceEntry::compile(r)?;
            insert_from(&mut reg.resources, "resource", k, Arc::new(e), origin)?;
        }
        for (t, origin) in self.templates {
            let (k, e) = TemplateEntry::compile(t)?;
            insert_from(
                &mut reg.templates,
                "resource template",
                k,
                Arc::new(e),
                origin,
            )?;
        }
        for (p, origin) in self.prompts {
            let (k, e) = PromptEntry::compile(p)?;
            insert_from(&mut reg.prompts, "prompt", k, Arc::new(e), origin)?;
        }
        for s in self.skills {
            skills::install(&mut reg, s)?;
        }
        let store: Arc<dyn crate::session::store::SessionStore> = match self.session_store {
            Some(s) => s,
            // With the deployment's Redis, legacy sessions live there too (any replica serves
            // any session).
            #[cfg(feature = "redis")]
            None if self.redis.is_some() => Arc::new(
                crate::session::redis::RedisSessionStore::new(self.redis.clone().expect("checked")),
            ),
            None => Arc::new(crate::session::store::InMemorySessionStore::new()),
        };
        let sessions = SessionTable::new(
            store,
            self.options.session_idle,
            self.options.max_sessions,
            self.options.max_sessions_per_caller,
        );
        let in_flight = self
            .options
            .max_in_flight
            .map(|n| Arc::new(tokio::sync::Semaphore::new(n.max(1))));
        #[cfg(feature = "redis")]
        let (bus, tasks) = match &self.redis {
            Some(r) => {
                if self.options.state_key.is_none() && self.options.state_keys.is_empty() {
                    tracing::error!("redis is configured but no state key is (state_key / OXMCP_STATE_KEY): MRTR retries that land on another replica will be refused");
                }
                let bus: Arc<dyn EventBus> = match self.bus {
                    Some(b) => b,
                    None => Arc::new(crate::redis::RedisBus::new(r.clone())),
                };
                let bus = Some(bus);
                let mut tasks = self.tasks;
                if !tasks.custom_store {
                    tasks.store = Arc::new(crate::tasks::redis::RedisTaskStore::new(r.clone()));
                }
                // The count of each caller's tasks is shared even beside a custom store: the
                // bound is the replicas' together.
                tasks.quota = Arc::new(crate::tasks::redis::RedisTaskQuota::new(r.clone()));
                (bus, tasks)
            }
            None => (self.bus, self.tasks),
        };
        #[cfg(not(feature = "redis"))]
        let (bus, tasks) = (self.bus, self.tasks);
        let bus = bus.unwrap_or_else(|| Arc::new(InMemoryBus::default()));
        let tasks = Arc::new(crate::tasks::engine::TaskEngine::new(tasks, bus.clone()));
        #[cfg(feature = "redis")]
        let with_redis = self.redis.is_some();
        #[cfg(not(feature = "redis"))]
        let with_redis = false;
        let metrics = self.options.metrics.clone().map(|o| {
            let m = Arc::new(crate::metrics::Metrics::new(o, with_redis));
            let hook = m.clone();
            tasks.on_status(Box::new(move |s| hook.task_status(s)));
            #[cfg(feature = "redis")]
            if let Some(r) = &self.redis {
                r.set_metrics(m.redis().clone());
            }
            m
        });
        let abort = CancellationToken::new();
        Ok(Server {
            inner: Arc::new(Inner {
                info: Arc::new(answer::ServerInfo::new(Value::Object(self.info))),
                instructions: self.instructions,
                registry: RwLock::new(Arc::new(reg)),
                schemas,
                options: self.options,
                bus,
                sealer,
                sessions,
                ended_sessions: Default::default(),
                held_streams: Default::default(),
                client_requests: Arc::new(ClientRequests::default()),
                shutdown: CancellationToken::new(),
                abort: abort.clone(),
                _abort_ballast: (0..ABORT_BALLAST).map(|_| abort.child_token()).collect(),
                listeners: std::sync::atomic::AtomicUsize::new(0),
                listeners_by_caller: Default::default(),
                running_tasks: Default::default(),
                declared: self.declared,
                exact: RwLock::new(None),
                metrics,
                metrics_bound: Default::default(),
                in_flight,
                auth_on: std::sync::atomic::AtomicBool::new(false),
                session_listener: RwLock::new(None),
                middleware: RwLock::new(Arc::new(Vec::new())),
                listed_tools: Default::default(),
                methods: Default::default(),
                tasks,
                session_signals: std::sync::atomic::AtomicBool::new(false),
                #[cfg(feature = "redis")]
                redis: self.redis,
                #[cfg(feature = "redis")]
                shared_rate_limits: self.shared_rate_limits,
            }),
        })
    }
}
