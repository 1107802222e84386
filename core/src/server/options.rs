//! Server options: every knob the bindings expose.

use serde_json::{Map, Value};
use std::collections::HashMap;
use std::time::Duration;

/// How a tool call whose arguments fail the input schema is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ValidationMode {
    /// An `isError` result naming every violation (the spec's self-correction path).
    #[default]
    ToolError,
    /// A JSON-RPC -32602 error with `data.violations`.
    JsonRpcError,
}

/// `cacheScope` of a cacheable result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CacheScope {
    Public,
    #[default]
    Private,
}

impl CacheScope {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Private => "private",
        }
    }
}

/// `ttlMs` + `cacheScope` for a cacheable method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CacheHint {
    pub ttl_ms: u64,
    pub scope: CacheScope,
}

/// How `search_tools` matches (`tool_search`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchMode {
    /// Natural language, ranked by BM25 after exact and prefix name matches (`query`).
    Bm25,
    /// A case-insensitive regular expression, matches in registration order (`pattern`).
    Regex,
}

/// The tool-search tools: `tools/list` shows the pinned tools, a search tool and a call proxy
/// instead of the whole catalog (FastMCP's search transforms, under the same names).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ToolSearch {
    pub mode: SearchMode,
    /// Most tools one search returns. 5 by default.
    pub max_results: usize,
    /// Tools still listed beside the two (and left out of search results).
    pub always_visible: Vec<String>,
    pub search_tool_name: String,
    pub call_tool_name: String,
}

impl ToolSearch {
    pub fn new(mode: SearchMode) -> Self {
        Self {
            mode,
            max_results: 5,
            always_visible: Vec::new(),
            search_tool_name: "search_tools".into(),
            call_tool_name: "call_tool".into(),
        }
    }
}

/// The default [`ServerOptions::max_uri_len`]: 8 KiB.
pub const DEFAULT_MAX_URI_LEN: usize = 8 * 1024;

#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ServerOptions {
    pub validation: ValidationMode,
    /// Accept numeric/boolean strings where the schema asks for numbers/booleans.
    pub lenient_coercion: bool,
    /// Default `ttlMs`/`cacheScope` for the six cacheable results.
    pub cache_default: CacheHint,
    /// Per-method overrides (`"tools/list"`, `"resources/read"`, ...).
    pub cache: HashMap<String, CacheHint>,
    /// Items per page of the list methods.
    pub page_size: usize,
    /// Key for sealing MRTR `requestState` (HMAC-SHA256). `None`: a random per-process key.
    pub state_key: Option<Vec<u8>>,
    /// A key ring for sealing MRTR `requestState`, in place of `state_key` when not empty: the
    /// first key seals, every key opens (rotation: add the new key second, then first, then drop
    /// the old one after `state_ttl`). Each key is at least 32 bytes; `build` refuses a shorter one.
    pub state_keys: Vec<Vec<u8>>,
    /// The audience a sealed `requestState` is bound to: a state sealed for one audience opens
    /// for no other. `None`: the server's name.
    pub state_audience: Option<String>,
    /// How long a sealed `requestState` stays valid.
    pub state_ttl: Duration,
    /// Put `io.modelcontextprotocol/serverInfo` in every modern result's `_meta`.
    pub include_server_info: bool,
    /// Default bound on a tool call (per-tool `Tool::timeout` overrides it).
    pub tool_timeout: Option<Duration>,
    /// Cap on open `subscriptions/listen` streams (and legacy GET streams).
    pub max_listeners: usize,
    /// Legacy HTTP sessions: idle expiry and cap.
    pub session_idle: Duration,
    pub max_sessions: usize,
    /// Legacy HTTP sessions one caller may hold in this process at once (503 beyond, as at
    /// `max_sessions`), so that one caller cannot take every slot. Callers are told apart by
    /// [`Caller::key`](crate::identity::Caller::key), anonymous ones by client address (see `access::budget_key`). 100 by
    /// default.
    pub max_sessions_per_caller: usize,
    /// Serve legacy HTTP without issuing `Mcp-Session-Id`.
    pub legacy_stateless: bool,
    /// Serve the 2026-07-28 revision. Off, a modern request gets -32022 naming only the
    /// `initialize`-era revisions, so a dual-era client falls back to `initialize`: how a server
    /// written for an SDK that predates 2026-07-28 stays in the eras its lifecycle hooks
    /// (`oninitialized`, roots read at start) were written for.
    pub modern: bool,
    /// Show handler panics/exception text to clients (debug only).
    pub expose_internal_errors: bool,
    /// Force `cacheScope: "private"` on every cacheable result (also implied when an HTTP
    /// endpoint with auth serves this server).
    pub force_private_cache: bool,
    /// Leave out of `*/list` the tools, resources, templates and prompts whose required scopes
    /// the caller lacks. Off by default: a call is refused with the step-up challenge either
    /// way, and a client (or model) only asks for a scope it needs for something it can see.
    /// Scopes are consent, not secrecy; an allow-list is what hides a primitive.
    pub hide_out_of_scope: bool,
    /// Global cap on handler runs in flight (`tools/call`, `resources/read`, `prompts/get`);
    /// requests beyond it are refused at once (HTTP 503 + `Retry-After`). `None`: no cap.
    pub max_in_flight: Option<usize>,
    /// Prometheus metrics (`crate::metrics`); `None`: none are kept, and none cost anything.
    pub metrics: Option<crate::metrics::MetricsOptions>,
    /// Longest URI `resources/read` (and `ref/resource` completion) accepts, in bytes; longer
    /// ones are refused with -32602 before any template is tried. 8 KiB by default: longer than
    /// any URI a browser or proxy passes on, short enough that matching stays microseconds.
    pub max_uri_len: usize,
    /// Most resources one legacy session may subscribe to (`resources/subscribe`; -32602 beyond).
    /// A session's subscriptions are kept for its life (and copied to and from Redis on every
    /// request of it when replicas share sessions), so they are bounded like everything a caller
    /// can make the server hold. 1,000 by default; each URI is also at most `max_uri_len`.
    pub max_subscriptions: usize,
    /// Most bytes of the URIs one legacy session subscribes to, together (-32602 beyond): the
    /// count alone would still let a session hold `max_subscriptions` × `max_uri_len`. 256 KiB by
    /// default (1,000 URIs of 256 bytes).
    pub max_subscription_bytes: usize,
    /// Most bytes (as JSON) of the `clientInfo` and `capabilities` a legacy `initialize` sends,
    /// together (-32602 beyond). A session keeps them for its life, and a shared store copies
    /// them on every request of it. 64 KiB by default: real clients send a few hundred bytes.
    pub max_client_info_bytes: usize,
    /// Most `taskIds` one `subscriptions/listen` may name (-32602 beyond): each is looked up in
    /// the task store (a Redis read with scale-out) when the stream opens. 100 by default.
    pub max_listen_task_ids: usize,
    /// Most messages in a 2025-03-26 JSON-RPC batch (400 + -32600 above it). 100 by default: a
    /// batch is that many requests at once, each charged to the caller's rate limit.
    pub max_batch_len: usize,
    /// Open `subscriptions/listen` and legacy GET streams per authenticated caller (beside the
    /// global `max_listeners`), so one caller cannot take every slot. 32 by default.
    pub max_listeners_per_caller: usize,
    /// Tasks one caller may have at once, running or finished and kept for their TTL (503
    /// beyond): every task record is held until it expires. 100 by default.
    pub max_tasks_per_caller: usize,
    /// Largest task result kept, in bytes as JSON: a handler whose result is larger ends its
    /// task `failed` with an error that says so, and nothing of the result is stored. 1 MiB by
    /// default.
    pub max_task_result_bytes: usize,
    /// Tasks one caller may have running at once (503 beyond). A running task holds no place
    /// among `max_in_flight` once its request is answered, so without this budget one caller's
    /// long tasks would take every place and others would get "Server busy". 16 by default.
    pub max_running_tasks_per_caller: usize,
    /// `search_tools` + `call_tool` in place of the full tool list. `None`: off.
    pub tool_search: Option<ToolSearch>,
    /// Serve the experimental `oxmcp/tools/search` method (declared under
    /// `capabilities.experimental`), which returns ranked tool definitions.
    pub tool_search_method: bool,
    /// Whether `completions` is declared (and `completion/complete` answered). `None`: whenever
    /// a prompt or resource template is registered. A port of a framework that declares it only
    /// for a completion handler sets it.
    pub completions: Option<bool>,
    /// Extensions declared in `capabilities.extensions` beside the ones the registrations need
    /// (on the same id, these settings are declared): id → settings.
    pub extensions: Map<String, Value>,
    /// Sign every list's catalog digest with this Ed25519 key (`io.oxmcp/catalogSignature`,
    /// the public key in `io.oxmcp/catalogKey`). `None`: lists carry digests, unsigned.
    pub catalog_signing_key: Option<super::catalog::CatalogKey>,
    /// Put the content-addressed catalog on lists: each definition's digest, the catalog digest,
    /// the unchanged answer and the `ETag` (on by default). A port of a framework turns it off,
    /// to list what that framework lists.
    pub catalog_digests: bool,
    /// The text of a tool call's timeout result (`{name}`: the tool; `{timeout}`: its timeout in
    /// seconds). `None`: `Tool {name} timed out`. A port words it as its framework does.
    pub tool_timeout_text: Option<String>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            validation: ValidationMode::default(),
            lenient_coercion: false,
            cache_default: CacheHint::default(),
            cache: HashMap::new(),
            page_size: 100,
            state_key: None,
            state_keys: Vec::new(),
            state_audience: None,
            state_ttl: Duration::from_secs(600),
            include_server_info: true,
            tool_timeout: None,
            max_listeners: 1024,
            session_idle: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            max_sessions_per_caller: 100,
            legacy_stateless: false,
            modern: true,
            expose_internal_errors: false,
            force_private_cache: false,
            hide_out_of_scope: false,
            max_in_flight: None,
            metrics: None,
            max_uri_len: DEFAULT_MAX_URI_LEN,
            max_subscriptions: 1000,
            max_subscription_bytes: 256 * 1024,
            max_client_info_bytes: 64 * 1024,
            max_listen_task_ids: 100,
            max_batch_len: 100,
            max_listeners_per_caller: 32,
            max_tasks_per_caller: 100,
            max_task_result_bytes: 1024 * 1024,
            max_running_tasks_per_caller: 16,
            tool_search: None,
            tool_search_method: false,
            completions: None,
            extensions: Map::new(),
            catalog_signing_key: None,
            catalog_digests: true,
            tool_timeout_text: None,
        }
    }
}

impl ServerOptions {
    pub(crate) fn cache_for(&self, method: &str) -> CacheHint {
        self.cache
            .get(method)
            .copied()
            .unwrap_or(self.cache_default)
    }
}
