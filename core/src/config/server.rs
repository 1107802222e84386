//! [`ServerConfig`] → the core's [`ServerOptions`] and a [`ServerBuilder`].

use super::names::{fields, knows, like, ms, object, parse, spelled};
use super::{invalid, unknown, CacheHintConfig, RateLimitStore, Result, ServerConfig, Validation};
use crate::server::options::{CacheHint, ServerOptions, ValidationMode};
use crate::server::{Server, ServerBuilder};
use serde_json::{Map, Value};

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

    pub(super) fn from_map(raw: Map<String, Value>) -> Result<Self> {
        if let Some(k) = raw.keys().find(|k| !knows::<ServerConfig>(k)) {
            return Err(unknown(format!("unknown server option `{k}`")));
        }
        let mut c: ServerConfig = parse(&raw)?;
        c.raw = raw;
        c.server_options()?;
        c.check_redis()?;
        Ok(c)
    }

    /// The scale-out options together: a Redis that parses, a state key with it (a request state
    /// sealed by one replica must open on the others), `rate_limit_store = "redis"` only with it.
    fn check_redis(&self) -> Result<()> {
        if let Some(p) = &self.redis_prefix {
            if p.is_empty() || p.len() > 64 || p.chars().any(char::is_whitespace) {
                return Err(invalid(format!(
                    "{} must be 1 to 64 characters without spaces",
                    self.name("redis_prefix")
                )));
            }
        }
        if let Some(t) = self.redis_timeout_ms {
            if !(1..=60_000).contains(&t) {
                return Err(invalid(format!(
                    "{} must be 1 to 60000 (milliseconds)",
                    self.name("redis_timeout_ms")
                )));
            }
        }
        let Some(url) = self.redis_url.as_deref().filter(|u| !u.trim().is_empty()) else {
            if let Some(RateLimitStore::Redis) = self.rate_limit_store {
                let store = self.name("rate_limit_store");
                return Err(invalid(format!(
                    "{store} \"redis\" needs {} (OXMCP_REDIS_URL)",
                    like(&store, "redis_url")
                )));
            }
            return Ok(());
        };
        if self.state_key.as_ref().is_none_or(Value::is_null)
            && self.state_keys.as_ref().is_none_or(Vec::is_empty)
        {
            return Err(invalid(format!(
                "{} needs {} (OXMCP_STATE_KEY): every replica must seal MRTR requestState with the same key, or a retry that lands on another replica is refused",
                self.name("redis_url"),
                like(&self.name("redis_url"), "state_key")
            )));
        }
        #[cfg(not(feature = "redis"))]
        {
            let _ = url;
            Err(invalid(format!(
                "{} needs oxmcp built with the `redis` feature",
                self.name("redis_url")
            )))
        }
        #[cfg(feature = "redis")]
        {
            self.open_redis(url).map(|_| ())
        }
    }

    #[cfg(feature = "redis")]
    fn open_redis(&self, url: &str) -> Result<crate::redis::Redis> {
        let prefix = self
            .redis_prefix
            .clone()
            .unwrap_or_else(|| crate::redis::DEFAULT_PREFIX.to_string());
        let ca = match &self.redis_tls_ca {
            None => None,
            Some(path) => Some(
                std::fs::read(path)
                    .map_err(|e| invalid(format!("{} {path}: {e}", self.name("redis_tls_ca"))))?,
            ),
        };
        // The error names the option, never the URL: the URL may carry a password.
        let r = crate::redis::Redis::open_tls(url.trim(), prefix, ca).map_err(|e| {
            invalid(format!(
                "{} is not a usable Redis URL: {}",
                self.name("redis_url"),
                crate::redis::scrub(&e.to_string(), url.trim())
            ))
        })?;
        if let Some(t) = ms(self.redis_timeout_ms) {
            r.set_timeout(t);
        }
        Ok(r)
    }

    /// The deployment's Redis handle when `redis_url` is set (a new handle: nothing connects yet).
    #[cfg(feature = "redis")]
    pub fn redis(&self) -> Result<Option<crate::redis::Redis>> {
        match self.redis_url.as_deref().filter(|u| !u.trim().is_empty()) {
            Some(url) => self.open_redis(url).map(Some),
            None => Ok(None),
        }
    }

    fn name(&self, field: &str) -> String {
        spelled(&self.raw, field)
    }

    /// Every count and duration of the server whose 0 has no meaning of its own: a cap of 0 would
    /// refuse all it caps, a time of 0 would end everything at once. Refused rather than read as
    /// "no limit" or raised to 1, so a typo or a unit mix-up shows at start-up; leave the option
    /// unset for its default. (`cache_ttl_ms` 0 means "not cacheable", its default.)
    fn check_minimums(&self) -> Result<()> {
        let u = |n: Option<usize>| n.map(|n| n as u64);
        let at_least_one = [
            ("page_size", self.page_size),
            ("state_ttl_ms", self.state_ttl_ms),
            ("tool_timeout_ms", self.tool_timeout_ms),
            ("max_listeners", u(self.max_listeners)),
            ("session_idle_ms", self.session_idle_ms),
            ("max_sessions", u(self.max_sessions)),
            ("max_sessions_per_caller", u(self.max_sessions_per_caller)),
            ("max_in_flight", u(self.max_in_flight)),
            ("max_uri_len", u(self.max_uri_len)),
            ("max_subscriptions", u(self.max_subscriptions)),
            ("max_subscription_bytes", u(self.max_subscription_bytes)),
            ("max_client_info_bytes", u(self.max_client_info_bytes)),
            ("max_listen_task_ids", u(self.max_listen_task_ids)),
            ("max_listeners_per_caller", u(self.max_listeners_per_caller)),
            ("max_batch_len", u(self.max_batch_len)),
            ("task_ttl_ms", self.task_ttl_ms),
            ("task_poll_interval_ms", self.task_poll_interval_ms),
            ("max_tasks_per_caller", u(self.max_tasks_per_caller)),
            ("max_task_result_bytes", u(self.max_task_result_bytes)),
            (
                "max_running_tasks_per_caller",
                u(self.max_running_tasks_per_caller),
            ),
        ];
        match at_least_one.iter().find(|(_, n)| *n == Some(0)) {
            Some((k, _)) => Err(invalid(format!("{} must be at least 1", self.name(k)))),
            None => Ok(()),
        }
    }

    /// The core's options, defaults where unset.
    pub fn server_options(&self) -> Result<ServerOptions> {
        self.check_minimums()?;
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
            o.page_size = usize::try_from(n).unwrap_or(usize::MAX);
        }
        if let Some(k) = &self.state_key {
            o.state_key = self.state_key_bytes(k)?;
        }
        if let Some(ring) = &self.state_keys {
            o.state_keys = self.state_ring(ring)?;
        }
        o.state_audience.clone_from(&self.state_audience);
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
        if let Some(b) = self.modern {
            o.modern = b;
        }
        if let Some(b) = self.expose_internal_errors {
            o.expose_internal_errors = b;
        }
        if let Some(b) = self.force_private_cache {
            o.force_private_cache = b;
        }
        if let Some(b) = self.hide_out_of_scope {
            o.hide_out_of_scope = b;
        }
        o.max_in_flight = self.max_in_flight;
        o.metrics = self.metrics_options()?;
        if let Some(n) = self.max_uri_len {
            o.max_uri_len = n;
        }
        if let Some(n) = self.max_subscriptions {
            o.max_subscriptions = n;
        }
        if let Some(n) = self.max_client_info_bytes {
            o.max_client_info_bytes = n;
        }
        if let Some(n) = self.max_listen_task_ids {
            o.max_listen_task_ids = n;
        }
        if let Some(n) = self.max_listeners_per_caller {
            o.max_listeners_per_caller = n;
        }
        if let Some(n) = self.max_batch_len {
            o.max_batch_len = n;
        }
        let counts = [
            (self.max_sessions_per_caller, &mut o.max_sessions_per_caller),
            (self.max_subscription_bytes, &mut o.max_subscription_bytes),
            (self.max_tasks_per_caller, &mut o.max_tasks_per_caller),
            (self.max_task_result_bytes, &mut o.max_task_result_bytes),
            (
                self.max_running_tasks_per_caller,
                &mut o.max_running_tasks_per_caller,
            ),
        ];
        for (given, field) in counts {
            if let Some(n) = given {
                *field = n;
            }
        }
        o.tool_search = self.tool_search()?;
        if let Some(b) = self.tool_search_method {
            o.tool_search_method = b;
        }
        o.completions = self.completions;
        if let Some(ext) = &self.extensions {
            let name = self.name("extensions");
            for (id, settings) in ext {
                // `vendor-prefix/name`, as the spec's extension identifiers are.
                let (prefix, rest) = id.split_once('/').unwrap_or(("", ""));
                if prefix.is_empty() || rest.is_empty() {
                    return Err(invalid(format!(
                        "{name}: {id:?} is not an extension identifier (vendor-prefix/name)"
                    )));
                }
                if !settings.is_object() {
                    return Err(invalid(format!(
                        "{name}.{id} must be an object (the extension's settings, {{}} for none)"
                    )));
                }
            }
            o.extensions = ext.clone();
        }
        if let Some(on) = self.catalog_digests {
            o.catalog_digests = on;
        }
        if let Some(text) = &self.tool_timeout_text {
            o.tool_timeout_text = Some(text.clone());
        }
        if let Some(path) = &self.catalog_signing_key {
            let key = crate::server::catalog::CatalogKey::from_pem_file(path.as_ref())
                .map_err(|e| invalid(format!("{}: {e}", self.name("catalog_signing_key"))))?;
            o.catalog_signing_key = Some(key);
        }
        if self.task_lease_ms.is_some_and(|t| t < 100) {
            return Err(invalid(format!(
                "{} must be at least 100 (milliseconds)",
                self.name("task_lease_ms")
            )));
        }
        Ok(o)
    }

    /// The search tools, or `None`; their settings are refused without `tool_search`, so that
    /// a server meant to hide its catalog behind search never lists it whole.
    fn tool_search(&self) -> Result<Option<crate::server::options::ToolSearch>> {
        use crate::server::options::{SearchMode, ToolSearch};
        let Some(mode) = self.tool_search else {
            let set = [
                (
                    "tool_search_max_results",
                    self.tool_search_max_results.is_some(),
                ),
                (
                    "tool_search_always_visible",
                    self.tool_search_always_visible.is_some(),
                ),
                ("search_tool_name", self.search_tool_name.is_some()),
                ("call_tool_name", self.call_tool_name.is_some()),
            ];
            if let Some((k, _)) = set.iter().find(|(_, s)| *s) {
                return Err(invalid(format!(
                    "{} needs {} (bm25 or regex)",
                    self.name(k),
                    self.name("tool_search")
                )));
            }
            return Ok(None);
        };
        let mut t = ToolSearch::new(match mode {
            super::SearchModeConfig::Bm25 => SearchMode::Bm25,
            super::SearchModeConfig::Regex => SearchMode::Regex,
        });
        if let Some(n) = self.tool_search_max_results {
            if !(1..=crate::server::search::MAX_RESULTS).contains(&n) {
                return Err(invalid(format!(
                    "{} must be 1 to {}",
                    self.name("tool_search_max_results"),
                    crate::server::search::MAX_RESULTS
                )));
            }
            t.max_results = n;
        }
        if let Some(v) = &self.tool_search_always_visible {
            t.always_visible = v.clone();
        }
        for (k, given, field) in [
            (
                "search_tool_name",
                &self.search_tool_name,
                &mut t.search_tool_name,
            ),
            (
                "call_tool_name",
                &self.call_tool_name,
                &mut t.call_tool_name,
            ),
        ] {
            if let Some(n) = given {
                if !crate::tool::valid_name(n) {
                    return Err(invalid(format!(
                        "{} must be 1-128 characters of A-Z a-z 0-9 _ - .",
                        self.name(k)
                    )));
                }
                *field = n.clone();
            }
        }
        if t.search_tool_name == t.call_tool_name {
            return Err(invalid(format!(
                "{} and {} must differ",
                self.name("search_tool_name"),
                self.name("call_tool_name")
            )));
        }
        Ok(Some(t))
    }

    /// `metrics`: a boolean, or `{path, address, token}`.
    pub(super) fn metrics_options(&self) -> Result<Option<crate::metrics::MetricsOptions>> {
        let name = self.name("metrics");
        let table = match &self.metrics {
            None | Some(Value::Null) | Some(Value::Bool(false)) => return Ok(None),
            Some(Value::Bool(true)) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => {
                return Err(invalid(format!(
                    "{name} must be a boolean or {{path, address, token}}"
                )))
            }
        };
        let mut o = crate::metrics::MetricsOptions::default();
        for (k, v) in table {
            let s = v.as_str().map(str::to_string);
            match (k.as_str(), s) {
                ("path", Some(p)) if p.starts_with('/') && !p.contains(char::is_whitespace) => {
                    o.path = p
                }
                ("address", Some(a)) => {
                    o.address = Some(a.parse().map_err(|_| {
                        invalid(format!("{name}.address must be host:port, e.g. 0.0.0.0:9464"))
                    })?)
                }
                ("token", Some(t)) if !t.is_empty() => o.token = Some(t),
                ("path" | "address" | "token", _) => {
                    return Err(invalid(format!(
                        "{name}.{k}: invalid value (path: a string starting with /; address: host:port; token: a non-empty string)"
                    )))
                }
                _ => return Err(unknown(format!("unknown option `{name}.{k}`"))),
            }
        }
        if o.address
            .is_some_and(|a| !a.ip().to_canonical().is_loopback())
            && o.token.is_none()
        {
            return Err(invalid(format!(
                "{name}.address off loopback needs {name}.token: the metrics' own listener then skips the Host check, and the token is what keeps others out"
            )));
        }
        Ok(Some(o))
    }

    fn state_key_bytes(&self, k: &Value) -> Result<Option<Vec<u8>>> {
        let name = self.name("state_key");
        let Some(bytes) = key_bytes(&name, k)? else {
            return Ok(None);
        };
        if bytes.len() < 16 {
            return Err(invalid(format!("{name} must be at least 16 bytes")));
        }
        Ok(Some(bytes))
    }

    /// `state_keys`: not empty, not with `state_key`, each key at least 32 bytes.
    fn state_ring(&self, ring: &[Value]) -> Result<Vec<Vec<u8>>> {
        let name = self.name("state_keys");
        if self.state_key.as_ref().is_some_and(|k| !k.is_null()) {
            let single = like(&name, "state_key");
            return Err(invalid(format!("{name} and {single} are exclusive")));
        }
        if ring.is_empty() {
            return Err(invalid(format!("{name} needs at least one key")));
        }
        let min = crate::server::MIN_STATE_RING_KEY_LEN;
        ring.iter()
            .enumerate()
            .map(|(i, k)| {
                let key = format!("{name}[{i}]");
                let b = key_bytes(&key, k)?.unwrap_or_default();
                if b.len() < min {
                    return Err(invalid(format!(
                        "{key} must be at least {min} bytes of secret randomness; it is {} bytes",
                        b.len()
                    )));
                }
                Ok(b)
            })
            .collect()
    }

    /// These options (not the identity) on `b`: [`ServerOptions`] and the task settings.
    pub fn apply_to(&self, b: ServerBuilder) -> Result<ServerBuilder> {
        let mut b = b.options(self.server_options()?);
        if self.task_ttl_ms.is_some()
            || self.task_poll_interval_ms.is_some()
            || self.task_lease_ms.is_some()
        {
            let mut t = crate::tasks::TaskConfig::default();
            if let Some(d) = ms(self.task_lease_ms) {
                t = t.lease(d);
            }
            if let Some(d) = ms(self.task_ttl_ms) {
                t = t.ttl(Some(d));
            }
            if let Some(d) = ms(self.task_poll_interval_ms) {
                t = t.poll_interval(d);
            }
            b = b.tasks(t);
        }
        #[cfg(feature = "redis")]
        if let Some(r) = self.redis()? {
            b = b
                .redis(r)
                .shared_rate_limits(matches!(self.rate_limit_store, Some(RateLimitStore::Redis)));
        }
        Ok(b)
    }

    /// [`Self::builder`] for a host server: the tools capability always declared (tools come
    /// and go at runtime), and each of `declared` (`tools`, `resources`, `prompts`) even with
    /// nothing registered, for a host layer that answers those lists itself or fills them later.
    pub fn host_builder<S: AsRef<str>>(&self, declared: &[S]) -> Result<ServerBuilder> {
        let mut b = self.builder()?.declare_tools();
        for kind in declared {
            b = match kind.as_ref() {
                "tools" => b,
                "resources" => b.declare_resources(),
                "prompts" => b.declare_prompts(),
                other => {
                    return Err(invalid(format!(
                        "declare: unknown capability {other:?} (tools, resources or prompts)"
                    )))
                }
            };
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

/// A key option's bytes: a string's UTF-8 bytes or a list of bytes; `None` for null.
fn key_bytes(name: &str, k: &Value) -> Result<Option<Vec<u8>>> {
    Ok(Some(match k {
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
    }))
}
