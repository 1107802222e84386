//! One configuration schema for every host: the options a Python `Server(**options)`, a Node
//! `new Server({...})` / `listen({...})` and the Rust examples' `OXMCP_*` environment give.
//!
//! Why here: the bindings used to map options by hand, twice, and the copies drifted (Python lost
//! four HTTP limits; Node validated values Python did not). Now a binding turns the host's
//! dict/object into JSON, calls [`Config::from_json`] (or [`ListenOptions::from_json`] for the
//! per-listener overrides) and builds from the result; every rule below is the only copy.
//!
//! Names are snake_case with a camelCase alias for each (`page_size` / `pageSize`); an unknown
//! name is refused. Errors name the option as the caller spelled it (`stateKey must be at least
//! 16 bytes`), so the same input gives the same text in every language.

//!
//! The parts: this file holds the schema (the deserialisable types) and [`Config`]; `names`
//! the spelling rules (snake_case/camelCase, serde's field lists, errors with the option's
//! path); `env` the `OXMCP_*` environment; `server` [`ServerConfig`] → [`ServerOptions`] and
//! builder; `listen` [`ListenOptions`] → [`HttpConfig`]/[`StdioConfig`], auth and rate limits.

mod effective;
mod env;
mod listen;
mod names;
mod server;

use crate::server::options::CacheScope;
use names::{knows, object, snake};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

#[cfg(doc)]
use crate::auth::NamedTokens;
#[cfg(doc)]
use crate::server::options::ServerOptions;
#[cfg(doc)]
use crate::transport::{http::HttpConfig, stdio::StdioConfig};

/// What was wrong: a name the schema does not have, or a value it does not accept. Hosts map the
/// first to their "unexpected keyword" error (Python `TypeError`) and the second to a value error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigErrorKind {
    Unknown,
    Invalid,
}

/// A refused configuration; `message` names the option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub kind: ConfigErrorKind,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

fn invalid(message: impl Into<String>) -> ConfigError {
    ConfigError {
        kind: ConfigErrorKind::Invalid,
        message: message.into(),
    }
}

fn unknown(message: impl Into<String>) -> ConfigError {
    ConfigError {
        kind: ConfigErrorKind::Unknown,
        message: message.into(),
    }
}

type Result<T> = std::result::Result<T, ConfigError>;

pub use crate::jsonrpc::MAX_SAFE_INTEGER;

// ---- the schema -------------------------------------------------------------------------------

/// How a tool call whose arguments fail the input schema is answered.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum Validation {
    #[serde(rename = "tool_error", alias = "toolError", alias = "tool-error")]
    ToolError,
    #[serde(
        rename = "jsonrpc_error",
        alias = "jsonRpcError",
        alias = "json-rpc-error",
        alias = "jsonrpc"
    )]
    JsonRpcError,
}

/// Where rate-limit buckets are counted.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RateLimitStore {
    /// In this process: each replica allows the full rate.
    #[default]
    Memory,
    /// In Redis: the replicas share one bucket per caller.
    Redis,
}

/// `tool_search`: how `search_tools` matches.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SearchModeConfig {
    Bm25,
    Regex,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Public,
    Private,
}

impl From<Scope> for CacheScope {
    fn from(s: Scope) -> Self {
        match s {
            Scope::Public => CacheScope::Public,
            Scope::Private => CacheScope::Private,
        }
    }
}

/// One entry of `cache`: `{ttl_ms, scope}`; a missing part inherits `cache_ttl_ms`/`cache_scope`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheHintConfig {
    #[serde(alias = "ttlMs")]
    pub ttl_ms: Option<u64>,
    #[serde(alias = "cacheScope", alias = "cache_scope")]
    pub scope: Option<Scope>,
}

/// The server: its identity and the core's [`ServerOptions`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ServerConfig {
    pub name: Option<String>,
    pub version: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    #[serde(alias = "websiteUrl")]
    pub website_url: Option<String>,
    pub icons: Option<Value>,
    pub instructions: Option<String>,
    pub validation: Option<Validation>,
    #[serde(alias = "lenientCoercion")]
    pub lenient_coercion: Option<bool>,
    #[serde(alias = "cacheTtlMs")]
    pub cache_ttl_ms: Option<u64>,
    #[serde(alias = "cacheScope")]
    pub cache_scope: Option<Scope>,
    /// Per method (`"tools/list"`, ...; `"default"` sets the default).
    pub cache: Option<BTreeMap<String, CacheHintConfig>>,
    #[serde(alias = "pageSize")]
    pub page_size: Option<u64>,
    /// A string (its UTF-8 bytes) or a list of bytes; at least 16 bytes.
    #[serde(alias = "stateKey")]
    pub state_key: Option<Value>,
    /// A key ring in place of `state_key`: a list of keys (each a string or a list of bytes, at
    /// least 32 bytes); the first seals, every one opens.
    #[serde(alias = "stateKeys")]
    pub state_keys: Option<Vec<Value>>,
    /// The audience a sealed `requestState` is bound to (default: the server's name).
    #[serde(alias = "stateAudience")]
    pub state_audience: Option<String>,
    #[serde(alias = "stateTtlMs")]
    pub state_ttl_ms: Option<u64>,
    #[serde(alias = "includeServerInfo")]
    pub include_server_info: Option<bool>,
    #[serde(alias = "toolTimeoutMs")]
    pub tool_timeout_ms: Option<u64>,
    #[serde(alias = "maxListeners")]
    pub max_listeners: Option<usize>,
    #[serde(alias = "sessionIdleMs")]
    pub session_idle_ms: Option<u64>,
    #[serde(alias = "maxSessions")]
    pub max_sessions: Option<usize>,
    /// Legacy HTTP sessions one caller may hold at once.
    #[serde(alias = "maxSessionsPerCaller")]
    pub max_sessions_per_caller: Option<usize>,
    #[serde(alias = "legacyStateless")]
    pub legacy_stateless: Option<bool>,
    /// Serve the 2026-07-28 revision (default true); false: the `initialize`-era ones only.
    pub modern: Option<bool>,
    #[serde(alias = "exposeInternalErrors")]
    pub expose_internal_errors: Option<bool>,
    #[serde(alias = "forcePrivateCache")]
    pub force_private_cache: Option<bool>,
    #[serde(alias = "hideOutOfScope")]
    pub hide_out_of_scope: Option<bool>,
    #[serde(alias = "maxInFlight")]
    pub max_in_flight: Option<usize>,
    /// Prometheus metrics: `true` (`/metrics` on the server's HTTP listener), or
    /// `{path, address, token}` (see [`crate::metrics::MetricsOptions`]).
    pub metrics: Option<Value>,
    /// Longest URI `resources/read` accepts, in bytes.
    #[serde(alias = "maxUriLen")]
    pub max_uri_len: Option<usize>,
    /// Most resources one legacy session may subscribe to.
    #[serde(alias = "maxSubscriptions")]
    pub max_subscriptions: Option<usize>,
    /// Most bytes of the URIs one legacy session subscribes to, together.
    #[serde(alias = "maxSubscriptionBytes")]
    pub max_subscription_bytes: Option<usize>,
    /// Most bytes of `clientInfo` and `capabilities` a legacy `initialize` may send.
    #[serde(alias = "maxClientInfoBytes")]
    pub max_client_info_bytes: Option<usize>,
    /// Most `taskIds` one `subscriptions/listen` may name.
    #[serde(alias = "maxListenTaskIds")]
    pub max_listen_task_ids: Option<usize>,
    /// Open listen / legacy GET streams per authenticated caller.
    #[serde(alias = "maxListenersPerCaller")]
    pub max_listeners_per_caller: Option<usize>,
    /// Most messages in a 2025-03-26 JSON-RPC batch.
    #[serde(alias = "maxBatchLen")]
    pub max_batch_len: Option<usize>,
    /// Tasks (`io.modelcontextprotocol/tasks`): how long a task and its result are kept.
    #[serde(alias = "taskTtlMs")]
    pub task_ttl_ms: Option<u64>,
    /// Tasks: the polling interval suggested to clients.
    #[serde(alias = "taskPollIntervalMs")]
    pub task_poll_interval_ms: Option<u64>,
    /// Tasks one caller may have at once, running or kept.
    #[serde(alias = "maxTasksPerCaller")]
    pub max_tasks_per_caller: Option<usize>,
    /// Largest task result kept, in bytes as JSON.
    #[serde(alias = "maxTaskResultBytes")]
    pub max_task_result_bytes: Option<usize>,
    /// Tasks one caller may have running at once.
    #[serde(alias = "maxRunningTasksPerCaller")]
    pub max_running_tasks_per_caller: Option<usize>,
    /// `search_tools` + `call_tool` in place of the tool list: `bm25` or `regex` (off if unset).
    #[serde(alias = "toolSearch")]
    pub tool_search: Option<SearchModeConfig>,
    /// Most tools one search returns (1..=50, default 5).
    #[serde(alias = "toolSearchMaxResults")]
    pub tool_search_max_results: Option<usize>,
    /// Tools still listed beside the search tools.
    #[serde(alias = "toolSearchAlwaysVisible")]
    pub tool_search_always_visible: Option<Vec<String>>,
    /// The search tool's name (default `search_tools`).
    #[serde(alias = "searchToolName")]
    pub search_tool_name: Option<String>,
    /// The call proxy's name (default `call_tool`).
    #[serde(alias = "callToolName")]
    pub call_tool_name: Option<String>,
    /// Serve the experimental `oxmcp/tools/search` method.
    #[serde(alias = "toolSearchMethod")]
    pub tool_search_method: Option<bool>,
    /// Declare the `completions` capability (and answer `completion/complete`): unset, whenever
    /// a prompt or resource template is registered; `false`, never; `true`, always.
    pub completions: Option<bool>,
    /// A PEM file with the Ed25519 private key (PKCS#8) that signs each list's catalog digest.
    #[serde(alias = "catalogSigningKey")]
    pub catalog_signing_key: Option<String>,
    /// Tasks: how long a running task's lease lasts without renewal (its replica renews it every
    /// third of this); a task whose lease lapsed is failed by the first replica that reads it.
    #[serde(alias = "taskLeaseMs")]
    pub task_lease_ms: Option<u64>,
    /// Scale-out (feature `redis`): the Redis the replicas share (`redis://host:port/db`).
    #[serde(alias = "redisUrl")]
    pub redis_url: Option<String>,
    /// A `rediss://` server is checked against the CA certificates in this PEM file (a private
    /// CA) instead of the system's roots.
    #[serde(alias = "redisTlsCa")]
    pub redis_tls_ca: Option<String>,
    /// Every Redis key and channel starts with it (default `oxmcp:`).
    #[serde(alias = "redisPrefix")]
    pub redis_prefix: Option<String>,
    /// How long one Redis command (or connection attempt) may take before it counts as failed.
    #[serde(alias = "redisTimeoutMs")]
    pub redis_timeout_ms: Option<u64>,
    /// Where HTTP rate-limit buckets live: `memory` (per replica, the default) or `redis`.
    #[serde(alias = "rateLimitStore")]
    pub rate_limit_store: Option<RateLimitStore>,
    /// Extensions the server declares in `capabilities.extensions` beside the ones its
    /// registrations need (an auth extension it supports, say): id → settings object.
    pub extensions: Option<Map<String, Value>>,
    /// The content-addressed catalog on lists (digests, catalog digest, unchanged answer; on by
    /// default).
    #[serde(alias = "catalogDigests")]
    pub catalog_digests: Option<bool>,
    /// The text of a tool call's timeout result: `{name}` becomes the tool's name and
    /// `{timeout}` its timeout in seconds. `Tool {name} timed out` by default.
    #[serde(alias = "toolTimeoutText")]
    pub tool_timeout_text: Option<String>,
    /// The input as given (its spelling names the options in errors).
    #[serde(skip)]
    raw: Map<String, Value>,
}

/// A listener: the HTTP transport's [`HttpConfig`] (auth and rate limit included) and the stdio
/// transport's [`StdioConfig`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ListenOptions {
    /// This endpoint keeps no legacy sessions (the server-wide `legacy_stateless`, per endpoint).
    pub sessionless: Option<bool>,
    pub host: Option<String>,
    pub port: Option<u16>,
    pub path: Option<String>,
    #[serde(alias = "allowedOrigins")]
    pub allowed_origins: Option<Vec<String>>,
    #[serde(alias = "allowedHosts")]
    pub allowed_hosts: Option<Vec<String>>,
    /// Opt out of the `Host` check off loopback (a proxy in front checks it).
    #[serde(alias = "allowAnyHost")]
    pub allow_any_host: Option<bool>,
    #[serde(alias = "maxBodyBytes")]
    pub max_body_bytes: Option<usize>,
    /// HTTP and stdio.
    #[serde(alias = "maxStringBytes")]
    pub max_string_bytes: Option<usize>,
    /// stdio only: the longest line.
    #[serde(alias = "maxLineBytes")]
    pub max_line_bytes: Option<usize>,
    #[serde(alias = "keepAliveMs")]
    pub keep_alive_ms: Option<u64>,
    #[serde(alias = "headerTimeoutMs")]
    pub header_timeout_ms: Option<u64>,
    /// HTTP and stdio.
    #[serde(alias = "drainTimeoutMs")]
    pub drain_timeout_ms: Option<u64>,
    #[serde(alias = "bodyTimeoutMs")]
    pub body_timeout_ms: Option<u64>,
    #[serde(alias = "maxHeaders")]
    pub max_headers: Option<usize>,
    #[serde(alias = "maxHeaderBytes")]
    pub max_header_bytes: Option<usize>,
    /// The core's [`NamedTokens`] JSON, or the compact `"alice=s3cret,bob=t0ken"`.
    pub tokens: Option<Value>,
    pub oauth: Option<OAuthConfig>,
    #[serde(alias = "rateLimit")]
    pub rate_limit: Option<RateLimitConfig>,
    /// Failed authentications per client address: a rate (`{rate, burst}` or per second), or
    /// `false` for no limit. Default: bursts of 10, then one every 6 s.
    #[serde(alias = "authFailureLimit")]
    pub auth_failure_limit: Option<Value>,
    /// Proxies (CIDRs or addresses) whose `X-Forwarded-For` / `Forwarded` names the client.
    #[serde(alias = "trustedProxies")]
    pub trusted_proxies: Option<Strings>,
    /// Most connections the built-in server holds at once (0: no cap).
    #[serde(alias = "maxConnections")]
    pub max_connections: Option<usize>,
    /// Most connections one client address holds at once (0: no cap).
    #[serde(alias = "maxConnectionsPerClient")]
    pub max_connections_per_client: Option<usize>,
    /// Serve the 2024-11-05 HTTP+SSE transport beside Streamable HTTP (off by default).
    pub sse: Option<bool>,
    /// HTTP+SSE: where `GET` opens a stream (default `/sse`).
    #[serde(alias = "ssePath")]
    pub sse_path: Option<String>,
    /// HTTP+SSE: where clients POST their messages (default `/messages`).
    #[serde(alias = "messagesPath")]
    pub messages_path: Option<String>,
    /// HTTP+SSE: most unread bytes queued for one stream before it is closed.
    #[serde(alias = "sseMaxQueuedBytes")]
    pub sse_max_queued_bytes: Option<usize>,
    /// HTTP/2 (h2c by prior knowledge, `h2` by ALPN under TLS) beside HTTP/1.1 on one port.
    pub http2: Option<bool>,
    /// HTTP/2: most concurrent streams per connection.
    #[serde(alias = "http2MaxConcurrentStreams")]
    pub http2_max_concurrent_streams: Option<u32>,
    /// HTTP/2: client resets of not-yet-accepted streams per connection (rapid reset).
    #[serde(alias = "http2MaxPendingAcceptResetStreams")]
    pub http2_max_pending_accept_reset_streams: Option<usize>,
    /// HTTP/2: streams reset for a client's protocol errors per connection.
    #[serde(alias = "http2MaxLocalErrorResetStreams")]
    pub http2_max_local_error_reset_streams: Option<usize>,
    /// TLS: the certificate chain (PEM file); with `tls_key`.
    #[serde(alias = "tlsCert")]
    pub tls_cert: Option<String>,
    /// TLS: the certificate's private key (PEM file); with `tls_cert`.
    #[serde(alias = "tlsKey")]
    pub tls_key: Option<String>,
    /// Listen on this Unix domain socket (a file path) instead of `host`/`port` (Unix only).
    pub uds: Option<String>,
    /// The socket file's mode: octal digits in a string (`"0660"`), or the number itself
    /// (`0o660` written in the host language). Default `"0600"`.
    #[serde(alias = "udsMode")]
    pub uds_mode: Option<Value>,
    #[serde(skip)]
    raw: Map<String, Value>,
    /// The host's token verifier (`oauth.verifier`), given by a binding, never in JSON.
    #[serde(skip)]
    pub token_verifier: Option<VerifierHook>,
}

/// A host's token verifier held by the options ([`ListenOptions::token_verifier`]).
#[derive(Clone)]
pub struct VerifierHook(pub std::sync::Arc<dyn crate::auth::HostVerifier>);

impl std::fmt::Debug for VerifierHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("VerifierHook")
    }
}

/// OAuth resource server: RFC 9728 metadata and JWT access tokens checked against a JWKS.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct OAuthConfig {
    pub resource: Option<String>,
    #[serde(alias = "authorizationServers")]
    pub authorization_servers: Option<Strings>,
    pub scopes: Option<Strings>,
    pub issuer: Option<String>,
    pub audience: Option<String>,
    pub jwks: Option<Value>,
    #[serde(alias = "jwksUrl")]
    pub jwks_url: Option<String>,
    #[serde(alias = "resourceName")]
    pub resource_name: Option<String>,
    pub documentation: Option<String>,
    /// The claims that name a JWT's caller, tried in order (default `sub`, `client_id`, `azp`);
    /// a token with none of them is refused.
    #[serde(alias = "nameClaims")]
    pub name_claims: Option<Strings>,
    /// Allow-lists for callers that come from a JWT, keyed by caller name.
    pub allow: Option<BTreeMap<String, AllowConfig>>,
    /// DPoP-bound access tokens (RFC 9449): `off` (default), `allowed` or `required`.
    pub dpop: Option<String>,
    /// Bearer tokens are checked by the host's verifier ([`ListenOptions::token_verifier`]).
    pub verifier: Option<bool>,
    /// The verifier's grants must name `resource` (a grant for another resource is refused
    /// whatever this says).
    #[serde(alias = "verifierResourceRequired")]
    pub verifier_resource_required: Option<bool>,
    /// The verifier's grants must carry an expiry.
    #[serde(alias = "verifierExpiryRequired")]
    pub verifier_expiry_required: Option<bool>,
    /// Scopes every request must hold (403 `insufficient_scope` without them).
    #[serde(alias = "requiredScopes")]
    pub required_scopes: Option<Strings>,
    /// How 401 and 403 answers are worded: `oxmcp` (default), `mcp-python` or `mcp-ts`.
    pub answers: Option<String>,
    /// The metadata URL challenges name, when not the one `resource` makes.
    #[serde(alias = "resourceMetadataUrl")]
    pub resource_metadata_url: Option<String>,
    /// How far a DPoP proof's `iat` may be from the server's clock, either way (default 60000).
    #[serde(alias = "dpopWindowMs")]
    pub dpop_window_ms: Option<u64>,
    /// Most DPoP proof ids remembered at once for replay detection (default 65536).
    #[serde(alias = "dpopReplayCache")]
    pub dpop_replay_cache: Option<usize>,
    /// Require a server-provided nonce in each DPoP proof (RFC 9449 §9; default false).
    #[serde(alias = "dpopNonce")]
    pub dpop_nonce: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowConfig {
    pub tools: Option<Strings>,
    pub resources: Option<Strings>,
    pub prompts: Option<Strings>,
}

/// Requests per second per caller: a number, or `{rate, burst?, per_caller?}`.
#[derive(Clone, Debug, Default)]
pub struct RateLimitConfig {
    pub rate: f64,
    pub burst: Option<u64>,
    pub per_caller: Option<BTreeMap<String, RateLimitConfig>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RateTable {
    rate: f64,
    burst: Option<u64>,
    #[serde(alias = "perCaller")]
    per_caller: Option<BTreeMap<String, RateLimitConfig>>,
}

impl<'de> Deserialize<'de> for RateLimitConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RateLimitConfig;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number (requests per second) or {rate, burst, per_caller}")
            }
            fn visit_f64<E: de::Error>(self, rate: f64) -> std::result::Result<Self::Value, E> {
                Ok(RateLimitConfig {
                    rate,
                    ..Default::default()
                })
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
                self.visit_f64(v as f64)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
                self.visit_f64(v as f64)
            }
            fn visit_map<A: de::MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let t = RateTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(RateLimitConfig {
                    rate: t.rate,
                    burst: t.burst,
                    per_caller: t.per_caller,
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// A list of strings; a single string is a list of one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Strings(pub Vec<String>);

impl<'de> Deserialize<'de> for Strings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Strings;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or a list of strings")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Self::Value, E> {
                Ok(Strings(vec![s.to_string()]))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    out.push(s);
                }
                Ok(Strings(out))
            }
        }
        d.deserialize_any(V)
    }
}

// ---- Config: everything one server takes ---------------------------------------------------------

/// The server's options and the defaults of its listeners, from one flat object (as Python's
/// `Server(**options)` and Node's `new Server({...})` give them).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Config {
    pub server: ServerConfig,
    pub listen: ListenOptions,
}

impl Config {
    /// Validate and split one flat object; `null` is the empty configuration.
    pub fn from_json(v: Value) -> Result<Self> {
        let raw = object(v, "options")?;
        let (mut server, mut listen) = (Map::new(), Map::new());
        for (k, v) in raw {
            if knows::<ListenOptions>(&k) {
                listen.insert(k, v);
            } else if knows::<ServerConfig>(&k) {
                server.insert(k, v);
            } else {
                return Err(unknown(format!("unknown option `{k}`")));
            }
        }
        let c = Self {
            server: ServerConfig::from_map(server)?,
            listen: ListenOptions::from_map(listen)?,
        };
        c.check_paths(&c.listen)?;
        Ok(c)
    }

    /// The rules between the server's options and a listener's (every listener and mount is made
    /// from one of these, so each is checked where it is made): the metrics' path.
    fn check_paths(&self, listen: &ListenOptions) -> Result<()> {
        let mut endpoint = crate::transport::http::HttpConfig::mount();
        if let Some(p) = &listen.path {
            endpoint.path = p.clone();
        }
        endpoint.sse = listen.sse_config(&endpoint.path)?;
        endpoint
            .check_metrics_path(self.server.metrics_options()?.as_ref())
            .map_err(invalid)
    }

    /// The listener options of one `listen`/`run`: `overrides` over the server's own, key by key.
    pub fn listen_with(&self, overrides: Value) -> Result<ListenOptions> {
        let over = ListenOptions::from_json(overrides)?;
        if over.raw.is_empty() {
            return Ok(self.listen.clone());
        }
        let mut merged: Map<String, Value> = self
            .listen
            .raw
            .iter()
            .filter(|(k, _)| !over.raw.keys().any(|o| snake(o) == snake(k)))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        merged.extend(over.raw);
        let mut listen = ListenOptions::from_map(merged)?;
        listen.token_verifier = self.listen.token_verifier.clone();
        self.check_paths(&listen)?;
        Ok(listen)
    }
}

#[cfg(test)]
mod tests;
