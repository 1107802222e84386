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

use crate::auth::{Allow, Auth, NamedTokens, ProtectedResource};
use crate::limits::{RateLimit, RateLimiter};
use crate::server::options::{CacheHint, CacheScope, ServerOptions, ValidationMode};
use crate::server::{Server, ServerBuilder};
use crate::transport::http::HttpConfig;
use crate::transport::stdio::StdioConfig;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

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
    #[serde(alias = "legacyStateless")]
    pub legacy_stateless: Option<bool>,
    #[serde(alias = "exposeInternalErrors")]
    pub expose_internal_errors: Option<bool>,
    #[serde(alias = "forcePrivateCache")]
    pub force_private_cache: Option<bool>,
    #[serde(alias = "maxInFlight")]
    pub max_in_flight: Option<usize>,
    /// Longest URI `resources/read` accepts, in bytes.
    #[serde(alias = "maxUriLen")]
    pub max_uri_len: Option<usize>,
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
    #[serde(skip)]
    raw: Map<String, Value>,
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
    /// Allow-lists for callers that come from a JWT, keyed by caller name.
    pub allow: Option<BTreeMap<String, AllowConfig>>,
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

// ---- names --------------------------------------------------------------------------------------

/// The field names serde derived for `T` (asked of its `Deserialize` impl, so the schema's names
/// are written once, in the struct).
fn fields<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    struct Probe<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(
            self,
            _: V,
        ) -> std::result::Result<V::Value, Self::Error> {
            Err(de::Error::custom("probe"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> std::result::Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("probe"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut out: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut out));
    out
}

/// The snake_case names of `T`'s options (serde's list also holds the aliases).
fn names<T: for<'de> Deserialize<'de>>() -> impl Iterator<Item = &'static str> {
    fields::<T>()
        .iter()
        .copied()
        .filter(|f| !f.chars().any(|c| c.is_ascii_uppercase()))
}

/// `page_size` → `pageSize`.
fn camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut up = false;
    for c in snake.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `pageSize` → `page_size` (snake names pass unchanged).
fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The name of option `field` as the caller wrote it in `raw` (snake_case unless camelCase was used).
fn spelled(raw: &Map<String, Value>, field: &str) -> String {
    let c = camel(field);
    if raw.contains_key(&c) {
        c
    } else {
        field.to_string()
    }
}

fn knows<T: for<'de> Deserialize<'de>>(key: &str) -> bool {
    fields::<T>().contains(&snake(key).as_str())
}

/// JS numbers are doubles, so `100` may arrive as `100.0`; integral values become integers so
/// that integer options accept them. (Non-integral values stay and are refused where an integer
/// is expected.)
fn integral_numbers(v: &mut Value) {
    match v {
        Value::Number(n) if !n.is_u64() && !n.is_i64() => {
            if let Some(f) = n.as_f64() {
                if f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0 {
                    *v = if f >= 0.0 {
                        Value::from(f as u64)
                    } else {
                        Value::from(f as i64)
                    };
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(integral_numbers),
        Value::Object(m) => m.values_mut().for_each(integral_numbers),
        _ => {}
    }
}

fn object(v: Value, what: &str) -> Result<Map<String, Value>> {
    let mut v = v;
    integral_numbers(&mut v);
    match v {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(Map::new()),
        _ => Err(invalid(format!("{what} must be an object"))),
    }
}

/// serde with the path of the value it refused: `cache.tools/list.ttlMs: invalid type: ...`.
fn parse<T: for<'de> Deserialize<'de>>(raw: &Map<String, Value>) -> Result<T> {
    serde_path_to_error::deserialize(Value::Object(raw.clone())).map_err(|e| {
        let mut path = e.path().to_string();
        let inner = e.into_inner().to_string();
        // serde's own wording is the only sign of an unknown key; its path ends at that key,
        // which the message names already.
        let kind = if inner.starts_with("unknown field") {
            path = path.rsplit_once('.').map_or(".", |(p, _)| p).to_string();
            ConfigErrorKind::Unknown
        } else {
            ConfigErrorKind::Invalid
        };
        ConfigError {
            kind,
            message: if path == "." {
                inner
            } else {
                format!("{path}: {inner}")
            },
        }
    })
}

fn ms(v: Option<u64>) -> Option<Duration> {
    v.map(Duration::from_millis)
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
        Ok(Self {
            server: ServerConfig::from_map(server)?,
            listen: ListenOptions::from_map(listen)?,
        })
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
        ListenOptions::from_map(merged)
    }

    /// `OXMCP_<OPTION>` (upper snake case: `OXMCP_PAGE_SIZE`, `OXMCP_MAX_BODY_BYTES`,
    /// `OXMCP_RATE_LIMIT`, ...) for every option but the identity ones; a value is JSON when it
    /// parses as the option's type, else a string. The auth variables of docs/SECURITY.md fill
    /// `tokens` and `oauth`: `OXMCP_TOKENS` / `OXMCP_TOKENS_FILE`, `OXMCP_RESOURCE`,
    /// `OXMCP_AUTH_SERVERS`, `OXMCP_SCOPES`, `OXMCP_JWKS_URL`, `OXMCP_JWT_ISSUER`,
    /// `OXMCP_JWT_AUDIENCE`.
    pub fn from_env() -> Result<Self> {
        Self::from_vars(std::env::vars())
    }

    /// [`Config::from_env`] over given variables (tests, or a host's own environment).
    pub fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> Result<Self> {
        let vars: BTreeMap<String, String> = vars
            .into_iter()
            .filter(|(k, v)| k.starts_with("OXMCP_") && !v.trim().is_empty())
            .collect();
        let identity = [
            "name",
            "version",
            "title",
            "description",
            "website_url",
            "icons",
        ];
        let mut raw = Map::new();
        let names = names::<ServerConfig>()
            .chain(names::<ListenOptions>())
            .filter(|f| !identity.contains(f) && *f != "instructions");
        for f in names {
            let Some(text) = vars.get(&format!("OXMCP_{}", f.to_ascii_uppercase())) else {
                continue;
            };
            let text = text.trim();
            // JSON when it is a valid value of the option, else the first of: the text, a
            // comma-separated list (`OXMCP_ALLOWED_HOSTS=a,b`), 1/0 as a boolean. When none is,
            // the JSON's (or the text's) error is the clearer one (`page_size must be at least 1`).
            let json = serde_json::from_str::<Value>(text).ok();
            let as_text = Value::String(text.to_string());
            let list: Value = text
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| Value::String(s.into()))
                .collect();
            let flag = match text {
                "1" => Some(Value::Bool(true)),
                "0" => Some(Value::Bool(false)),
                _ => None,
            };
            let found = json
                .iter()
                .chain([&as_text, &list])
                .chain(flag.iter())
                .find(|v| Self::accepts(f, v))
                .cloned();
            let v = found.unwrap_or_else(|| json.unwrap_or(as_text));
            raw.insert(f.to_string(), v);
        }
        if !raw.contains_key("tokens") {
            if let Some(p) = vars.get("OXMCP_TOKENS_FILE") {
                let text = std::fs::read_to_string(p.trim())
                    .map_err(|e| invalid(format!("OXMCP_TOKENS_FILE {}: {e}", p.trim())))?;
                raw.insert("tokens".into(), Value::String(text));
            }
        }
        if !raw.contains_key("oauth") {
            let mut o = Map::new();
            let list = |k: &str| -> Option<Value> {
                vars.get(k).map(|v| {
                    v.split([',', ' '])
                        .filter(|s| !s.is_empty())
                        .map(|s| Value::String(s.into()))
                        .collect()
                })
            };
            for (var, key) in [
                ("OXMCP_RESOURCE", "resource"),
                ("OXMCP_JWKS_URL", "jwks_url"),
                ("OXMCP_JWT_ISSUER", "issuer"),
                ("OXMCP_JWT_AUDIENCE", "audience"),
            ] {
                if let Some(v) = vars.get(var) {
                    o.insert(key.into(), Value::String(v.trim().into()));
                }
            }
            if let Some(s) = list("OXMCP_AUTH_SERVERS").or_else(|| {
                vars.get("OXMCP_JWT_ISSUER")
                    .map(|i| Value::Array(vec![Value::String(i.trim().into())]))
            }) {
                o.insert("authorization_servers".into(), s);
            }
            if let Some(s) = list("OXMCP_SCOPES") {
                o.insert("scopes".into(), s);
            }
            // Metadata alone (no JWKS) documents the server but checks nothing: only with tokens.
            let checks = o.contains_key("jwks_url") || raw.contains_key("tokens");
            if o.contains_key("resource") && checks || o.contains_key("jwks_url") {
                raw.insert("oauth".into(), Value::Object(o));
            }
        }
        Self::from_json(Value::Object(raw)).map_err(|e| ConfigError {
            kind: e.kind,
            message: format!("in the OXMCP_* environment: {}", e.message),
        })
    }

    /// Whether `v` is a valid value of option `field` (for the environment's JSON-or-text rule).
    fn accepts(field: &str, v: &Value) -> bool {
        let mut m = Map::new();
        m.insert(field.into(), v.clone());
        Self::from_json(Value::Object(m)).is_ok()
    }
}

// ---- ServerConfig → ServerOptions, ServerBuilder ----------------------------------------------------

impl ServerConfig {
    /// Every name the server part of the schema takes, snake_case and camelCase (for hosts that
    /// sort keyword arguments, e.g. Python's FastMCP compatibility layer).
    pub fn option_names() -> &'static [&'static str] {
        fields::<Self>()
    }

    /// Only the server's options (and identity); a listener option here is refused.
    pub fn from_json(v: Value) -> Result<Self> {
        Self::from_map(object(v, "options")?)
    }

    fn from_map(raw: Map<String, Value>) -> Result<Self> {
        if let Some(k) = raw.keys().find(|k| !knows::<ServerConfig>(k)) {
            return Err(unknown(format!("unknown server option `{k}`")));
        }
        let mut c: ServerConfig = parse(&raw)?;
        c.raw = raw;
        c.server_options()?;
        Ok(c)
    }

    fn name(&self, field: &str) -> String {
        spelled(&self.raw, field)
    }

    /// The core's options, defaults where unset.
    pub fn server_options(&self) -> Result<ServerOptions> {
        let mut o = ServerOptions::default();
        if let Some(v) = self.validation {
            o.validation = match v {
                Validation::ToolError => ValidationMode::ToolError,
                Validation::JsonRpcError => ValidationMode::JsonRpcError,
            };
        }
        if let Some(b) = self.lenient_coercion {
            o.lenient_coercion = b;
        }
        if let Some(t) = self.cache_ttl_ms {
            o.cache_default.ttl_ms = t;
        }
        if let Some(s) = self.cache_scope {
            o.cache_default.scope = s.into();
        }
        if let Some(per) = &self.cache {
            let hint = |base: CacheHint, h: &CacheHintConfig| CacheHint {
                ttl_ms: h.ttl_ms.unwrap_or(base.ttl_ms),
                scope: h.scope.map(Into::into).unwrap_or(base.scope),
            };
            if let Some(d) = per.get("default") {
                o.cache_default = hint(o.cache_default, d);
            }
            for (method, h) in per.iter().filter(|(m, _)| *m != "default") {
                o.cache.insert(method.clone(), hint(o.cache_default, h));
            }
        }
        if let Some(n) = self.page_size {
            if n == 0 {
                return Err(invalid(format!(
                    "{} must be at least 1",
                    self.name("page_size")
                )));
            }
            o.page_size = usize::try_from(n).unwrap_or(usize::MAX);
        }
        if let Some(k) = &self.state_key {
            o.state_key = self.state_key_bytes(k)?;
        }
        if let Some(t) = ms(self.state_ttl_ms) {
            o.state_ttl = t;
        }
        if let Some(b) = self.include_server_info {
            o.include_server_info = b;
        }
        o.tool_timeout = ms(self.tool_timeout_ms);
        if let Some(n) = self.max_listeners {
            o.max_listeners = n;
        }
        if let Some(t) = ms(self.session_idle_ms) {
            o.session_idle = t;
        }
        if let Some(n) = self.max_sessions {
            o.max_sessions = n;
        }
        if let Some(b) = self.legacy_stateless {
            o.legacy_stateless = b;
        }
        if let Some(b) = self.expose_internal_errors {
            o.expose_internal_errors = b;
        }
        if let Some(b) = self.force_private_cache {
            o.force_private_cache = b;
        }
        o.max_in_flight = self.max_in_flight;
        if let Some(n) = self.max_uri_len {
            o.max_uri_len = n;
        }
        if let Some(n) = self.max_listeners_per_caller {
            o.max_listeners_per_caller = n;
        }
        if let Some(n) = self.max_batch_len {
            o.max_batch_len = n;
        }
        Ok(o)
    }

    fn state_key_bytes(&self, k: &Value) -> Result<Option<Vec<u8>>> {
        let name = self.name("state_key");
        let bytes = match k {
            Value::Null => return Ok(None),
            Value::String(s) => s.as_bytes().to_vec(),
            Value::Array(a) => a
                .iter()
                .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                .collect::<Option<Vec<u8>>>()
                .ok_or_else(|| invalid(format!("{name} bytes must be integers 0..255")))?,
            _ => {
                return Err(invalid(format!(
                    "{name} must be a string or a list of bytes"
                )))
            }
        };
        if bytes.len() < 16 {
            return Err(invalid(format!("{name} must be at least 16 bytes")));
        }
        Ok(Some(bytes))
    }

    /// These options (not the identity) on `b`: [`ServerOptions`] and the task settings.
    pub fn apply_to(&self, b: ServerBuilder) -> Result<ServerBuilder> {
        let mut b = b.options(self.server_options()?);
        if self.task_ttl_ms.is_some() || self.task_poll_interval_ms.is_some() {
            let mut t = crate::tasks::TaskConfig::default();
            if let Some(d) = ms(self.task_ttl_ms) {
                t = t.ttl(Some(d));
            }
            if let Some(d) = ms(self.task_poll_interval_ms) {
                t = t.poll_interval(d);
            }
            b = b.tasks(t);
        }
        Ok(b)
    }

    /// A builder with this identity and these options (`name` and `version` are required).
    pub fn builder(&self) -> Result<ServerBuilder> {
        let name = self
            .name
            .clone()
            .ok_or_else(|| invalid("name is required"))?;
        let version = self
            .version
            .clone()
            .ok_or_else(|| invalid("version is required"))?;
        let mut b = self.apply_to(Server::builder(name, version))?;
        if let Some(s) = &self.title {
            b = b.title(s);
        }
        if let Some(s) = &self.description {
            b = b.description(s);
        }
        if let Some(s) = &self.website_url {
            b = b.website_url(s);
        }
        if let Some(v) = self.icons.clone().filter(|v| !v.is_null()) {
            b = b.icons(v);
        }
        if let Some(s) = &self.instructions {
            b = b.instructions(s);
        }
        Ok(b)
    }
}

// ---- ListenOptions → HttpConfig, StdioConfig ------------------------------------------------------------

impl ListenOptions {
    /// Every name a listener takes, snake_case and camelCase.
    pub fn option_names() -> &'static [&'static str] {
        fields::<Self>()
    }

    /// Only listener options; a server option here is refused, saying where it belongs.
    pub fn from_json(v: Value) -> Result<Self> {
        Self::from_map(object(v, "HTTP options")?)
    }

    fn from_map(raw: Map<String, Value>) -> Result<Self> {
        if let Some(k) = raw.keys().find(|k| !knows::<ListenOptions>(k)) {
            return Err(unknown(if knows::<ServerConfig>(k) {
                format!("unknown HTTP option `{k}` (a server option: give it to the server)")
            } else {
                format!("unknown HTTP option `{k}`")
            }));
        }
        let mut c: ListenOptions = parse(&raw)?;
        c.raw = raw;
        c.apply(HttpConfig::mount())?;
        c.addr(SocketAddr::from(([127, 0, 0, 1], 0)))?;
        Ok(c)
    }

    fn name(&self, field: &str) -> String {
        spelled(&self.raw, field)
    }

    /// `host`/`port` (either defaults to `default`'s); `localhost` is 127.0.0.1.
    pub fn addr(&self, default: SocketAddr) -> Result<SocketAddr> {
        let ip = match self.host.as_deref() {
            None => default.ip(),
            Some("localhost") => IpAddr::from([127, 0, 0, 1]),
            Some(h) => h
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse()
                .map_err(|_| {
                    invalid(format!(
                        "host must be an IP address or localhost, got {h:?}"
                    ))
                })?,
        };
        Ok(SocketAddr::new(ip, self.port.unwrap_or(default.port())))
    }

    /// The HTTP transport's settings, listening on [`ListenOptions::addr`].
    pub fn http_config(&self, default_addr: SocketAddr) -> Result<HttpConfig> {
        self.apply(HttpConfig::new(self.addr(default_addr)?))
    }

    /// These options over `c` (e.g. [`HttpConfig::mount`] for an ASGI/fetch mount).
    pub fn apply(&self, mut c: HttpConfig) -> Result<HttpConfig> {
        if let Some(p) = &self.path {
            if !p.starts_with('/') {
                return Err(invalid(format!("path must start with /, got {p:?}")));
            }
            c.path = p.clone();
        }
        if let Some(o) = &self.allowed_origins {
            c.allowed_origins = o.clone();
        }
        if let Some(h) = &self.allowed_hosts {
            c.allowed_hosts = h.clone();
        }
        if let Some(b) = self.allow_any_host {
            c.allow_any_host = b;
        }
        if let Some(n) = self.max_body_bytes {
            c.max_body = n;
        }
        if let Some(n) = self.max_string_bytes {
            c.max_string = n;
        }
        if let Some(d) = ms(self.keep_alive_ms) {
            c.keep_alive = d;
        }
        if let Some(d) = ms(self.header_timeout_ms) {
            c.header_timeout = d;
        }
        if let Some(d) = ms(self.drain_timeout_ms) {
            c.drain_timeout = d;
        }
        if let Some(d) = ms(self.body_timeout_ms) {
            c.body_timeout = d;
        }
        if let Some(n) = self.max_headers {
            c.max_headers = n;
        }
        if let Some(n) = self.max_header_bytes {
            c.max_header_bytes = n;
        }
        if let Some(a) = self.auth()? {
            c = c.auth(Arc::new(a));
        }
        if let Some(r) = &self.rate_limit {
            c = c.rate_limiter(self.rate_limiter(r)?);
        }
        if let Some(v) = &self.auth_failure_limit {
            c.auth_failure_limit = self.auth_failure_limit(v)?;
        }
        Ok(c)
    }

    /// The stdio transport's settings (`max_line_bytes`, `max_string_bytes`, `drain_timeout_ms`).
    pub fn stdio_config(&self) -> StdioConfig {
        let mut c = StdioConfig::default();
        if let Some(n) = self.max_line_bytes {
            c.max_line = n;
        }
        if let Some(n) = self.max_string_bytes {
            c.max_string = n;
        }
        if let Some(d) = ms(self.drain_timeout_ms) {
            c.drain_timeout = d;
        }
        c
    }

    /// The drain deadline a host waits for at shutdown (the transports' default: 5 s).
    pub fn drain_timeout(&self) -> Duration {
        self.stdio_config().drain_timeout
    }

    /// Named tokens and/or OAuth; `None` when neither is given (auth off).
    fn auth(&self) -> Result<Option<Auth>> {
        let mut auth = Auth::new();
        let mut on = false;
        match &self.tokens {
            None | Some(Value::Null) => {}
            Some(t) => {
                let name = self.name("tokens");
                let table = match t {
                    Value::String(s) => NamedTokens::parse(s),
                    Value::Object(_) => NamedTokens::from_json(t),
                    _ => {
                        return Err(invalid(format!(
                        "{name} must be an object keyed by caller or a \"name=token,...\" string"
                    )))
                    }
                }
                .map_err(|e| invalid(format!("{name}: {}", e.0)))?;
                auth = auth.tokens(table);
                on = true;
            }
        }
        let Some(o) = &self.oauth else {
            return Ok(on.then_some(auth));
        };
        let raw = self.raw.get(&self.name("oauth"));
        let empty = Map::new();
        let raw = raw.and_then(Value::as_object).unwrap_or(&empty);
        let n = |f: &str| format!("{}.{}", self.name("oauth"), spelled(raw, f));
        if let Some(r) = &o.resource {
            let servers = o.authorization_servers.clone().unwrap_or_default().0;
            let mut pr = ProtectedResource::new(r.clone(), servers)
                .scopes(o.scopes.clone().unwrap_or_default().0);
            if let Some(s) = &o.resource_name {
                pr = pr.name(s.clone());
            }
            if let Some(d) = &o.documentation {
                pr = pr.documentation(d.clone());
            }
            auth = auth.resource(pr);
        }
        let jwks = o.jwks.as_ref().filter(|v| !v.is_null());
        if jwks.is_some() || o.jwks_url.is_some() {
            let what = if jwks.is_some() {
                n("jwks")
            } else {
                n("jwks_url")
            };
            let issuer = o
                .issuer
                .clone()
                .ok_or_else(|| invalid(format!("{what} needs {}", n("issuer"))))?;
            let audience = o
                .audience
                .clone()
                .or_else(|| o.resource.clone())
                .ok_or_else(|| {
                    invalid(format!(
                        "{what} needs {} or {}",
                        n("audience"),
                        n("resource")
                    ))
                })?;
            auth = self.jwt(auth, issuer, audience, jwks, o.jwks_url.clone(), &what)?;
            on = true;
        }
        if let Some(per) = &o.allow {
            for (caller, a) in per {
                let list = |s: &Option<Strings>| s.as_ref().map(|s| s.0.clone());
                let mut allow = Allow::default();
                allow.tools = list(&a.tools);
                allow.resources = list(&a.resources);
                allow.prompts = list(&a.prompts);
                auth = auth.allow(caller.clone(), allow);
            }
        }
        if !on {
            return Err(invalid(format!(
                "{}: give {} or {} (or {}) so bearer tokens can be checked",
                self.name("oauth"),
                spelled(raw, "jwks"),
                spelled(raw, "jwks_url"),
                self.name("tokens"),
            )));
        }
        Ok(Some(auth))
    }

    #[cfg(feature = "auth-jwt")]
    fn jwt(
        &self,
        auth: Auth,
        issuer: String,
        audience: String,
        jwks: Option<&Value>,
        url: Option<String>,
        what: &str,
    ) -> Result<Auth> {
        use crate::auth::JwtValidator;
        let v = match (jwks, url) {
            (Some(k), _) => JwtValidator::with_jwks(issuer, audience, k)
                .map_err(|e| invalid(format!("{what}: {}", e.0)))?,
            (None, Some(url)) => JwtValidator::with_jwks_url(issuer, audience, url),
            (None, None) => return Ok(auth),
        };
        Ok(auth.jwt(v))
    }

    #[cfg(not(feature = "auth-jwt"))]
    fn jwt(
        &self,
        _: Auth,
        _: String,
        _: String,
        _: Option<&Value>,
        _: Option<String>,
        what: &str,
    ) -> Result<Auth> {
        Err(invalid(format!(
            "{what}: oxmcp was built without the `auth-jwt` feature"
        )))
    }

    fn rate_limiter(&self, r: &RateLimitConfig) -> Result<RateLimiter> {
        let name = self.name("rate_limit");
        let raw = self.raw.get(&name);
        let per_name = raw
            .and_then(Value::as_object)
            .map(|m| spelled(m, "per_caller"))
            .unwrap_or_else(|| "per_caller".into());
        let mut rl = RateLimiter::new(one_limit(r, &name)?);
        for (caller, l) in r.per_caller.iter().flatten() {
            let what = format!("{name}.{per_name}.{caller}");
            if l.per_caller.is_some() {
                return Err(invalid(format!("{what}: {per_name} does not nest")));
            }
            rl = rl.caller(caller.clone(), one_limit(l, &what)?);
        }
        Ok(rl)
    }
}

impl ListenOptions {
    fn auth_failure_limit(&self, v: &Value) -> Result<Option<RateLimit>> {
        let name = self.name("auth_failure_limit");
        if *v == Value::Bool(false) {
            return Ok(None);
        }
        let r: RateLimitConfig = RateLimitConfig::deserialize(v)
            .map_err(|e| invalid(format!("{name}: {e} (or false for no limit)")))?;
        if r.per_caller.is_some() {
            return Err(invalid(format!("{name} has no per-caller limits")));
        }
        one_limit(&r, &name).map(Some)
    }
}

fn one_limit(r: &RateLimitConfig, what: &str) -> Result<RateLimit> {
    if !(r.rate.is_finite() && r.rate > 0.0) {
        return Err(invalid(format!(
            "{what} must be a positive number of requests per second"
        )));
    }
    let burst = match r.burst {
        None => r.rate.ceil().max(1.0) as u32,
        Some(b) => u32::try_from(b)
            .ok()
            .filter(|b| *b >= 1)
            .ok_or_else(|| invalid(format!("{what}.burst must be at least 1")))?,
    };
    Ok(RateLimit::per_second(r.rate, burst))
}

#[cfg(test)]
mod tests;
