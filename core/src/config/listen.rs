//! [`ListenOptions`] → the HTTP transport's [`HttpConfig`] (auth, rate limits) and the stdio
//! transport's [`StdioConfig`].

use super::names::{fields, knows, ms, object, parse, spelled};
use super::{
    invalid, unknown, ListenOptions, OAuthConfig, RateLimitConfig, Result, ServerConfig, Strings,
};
use crate::auth::{
    Allow, Answers, Auth, AuthFuture, HostTokens, HostVerifier, NamedTokens, ProtectedResource,
};
use crate::limits::{RateLimit, RateLimiter};
use crate::server::gate::TrustedProxies;
use crate::transport::http::{HttpConfig, SseConfig, UdsConfig};
use crate::transport::stdio::StdioConfig;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

impl ListenOptions {
    /// Every name a listener takes, snake_case and camelCase.
    pub fn option_names() -> &'static [&'static str] {
        fields::<Self>()
    }

    /// Only listener options; a server option here is refused, saying where it belongs.
    pub fn from_json(v: Value) -> Result<Self> {
        Self::from_map(object(v, "HTTP options")?)
    }

    pub(super) fn from_map(raw: Map<String, Value>) -> Result<Self> {
        if let Some(k) = raw.keys().find(|k| !knows::<ListenOptions>(k)) {
            return Err(unknown(if knows::<ServerConfig>(k) {
                format!("unknown HTTP option `{k}` (a server option: give it to the server)")
            } else {
                format!("unknown HTTP option `{k}`")
            }));
        }
        let mut c: ListenOptions = parse(&raw)?;
        c.raw = raw;
        c.check_minimums()?;
        c.apply(HttpConfig::mount())?;
        c.addr(SocketAddr::from(([127, 0, 0, 1], 0)))?;
        Ok(c)
    }

    fn name(&self, field: &str) -> String {
        spelled(&self.raw, field)
    }

    /// Every size, count and time of a listener whose 0 has no meaning of its own (a body cap of
    /// 0 refuses every request, a header timeout of 0 every connection) is refused, never raised
    /// to 1. The 0s that mean something: `port` (any free port), `drain_timeout_ms` (cancel what
    /// is in flight at once), `max_connections` and `max_connections_per_client` (no cap).
    fn check_minimums(&self) -> Result<()> {
        let u = |n: Option<usize>| n.map(|n| n as u64);
        let at_least_one = [
            ("max_body_bytes", u(self.max_body_bytes)),
            ("max_string_bytes", u(self.max_string_bytes)),
            ("max_line_bytes", u(self.max_line_bytes)),
            ("keep_alive_ms", self.keep_alive_ms),
            ("header_timeout_ms", self.header_timeout_ms),
            ("body_timeout_ms", self.body_timeout_ms),
            ("max_headers", u(self.max_headers)),
            ("max_header_bytes", u(self.max_header_bytes)),
            ("sse_max_queued_bytes", u(self.sse_max_queued_bytes)),
            (
                "http2_max_concurrent_streams",
                self.http2_max_concurrent_streams.map(u64::from),
            ),
            (
                "http2_max_pending_accept_reset_streams",
                u(self.http2_max_pending_accept_reset_streams),
            ),
            (
                "http2_max_local_error_reset_streams",
                u(self.http2_max_local_error_reset_streams),
            ),
        ];
        match at_least_one.iter().find(|(_, n)| *n == Some(0)) {
            Some((k, _)) => Err(invalid(format!("{} must be at least 1", self.name(k)))),
            None => Ok(()),
        }
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

    /// The HTTP transport's settings, listening on [`ListenOptions::addr`], or on the Unix
    /// socket `uds` (which replaces `host` and `port`: giving both is refused).
    pub fn http_config(&self, default_addr: SocketAddr) -> Result<HttpConfig> {
        let c = self.apply(HttpConfig::new(self.addr(default_addr)?))?;
        if self.uds.is_some() && (self.host.is_some() || self.port.is_some()) {
            return Err(invalid(format!(
                "{} replaces host and port: a server listens on a Unix socket or on a TCP \
                 address, not both (leave host and port out)",
                self.name("uds")
            )));
        }
        Ok(c)
    }

    /// `uds` and `uds_mode` as the server's [`UdsConfig`].
    fn uds_config(&self) -> Result<Option<UdsConfig>> {
        let mode = match &self.uds_mode {
            None | Some(Value::Null) => None,
            Some(v) => Some(self.uds_mode(v)?),
        };
        let Some(path) = &self.uds else {
            if mode.is_some() {
                return Err(invalid(format!(
                    "{} needs {}",
                    self.name("uds_mode"),
                    self.name("uds")
                )));
            }
            return Ok(None);
        };
        if path.is_empty() {
            return Err(invalid(format!("{} must be a file path", self.name("uds"))));
        }
        let mut u = UdsConfig::new(path);
        if let Some(m) = mode {
            u = u.mode(m);
        }
        Ok(Some(u))
    }

    /// A permission mode: octal digits in a string (`"600"`, `"0600"`, `"0o600"`), or the
    /// number itself (`0o600`, i.e. 384). At most 0o777: a number like 600 is a decimal that was
    /// meant as octal, and is refused rather than read as 0o1130.
    fn uds_mode(&self, v: &Value) -> Result<u32> {
        let name = self.name("uds_mode");
        let mode = match v {
            Value::String(s) => {
                let digits = s.trim().trim_start_matches("0o");
                u32::from_str_radix(digits, 8).map_err(|_| {
                    invalid(format!(
                        "{name} must be octal digits like \"0600\", got {s:?}"
                    ))
                })?
            }
            Value::Number(n) => n
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| invalid(format!("{name} must be a permission mode, got {n}")))?,
            _ => {
                return Err(invalid(format!(
                    "{name} must be a string of octal digits (\"0600\") or a number (0o600)"
                )))
            }
        };
        if mode > 0o777 {
            return Err(invalid(format!(
                "{name} {v} is more than 0o777: write the mode in octal, as a string (\"0600\") or \
                 an octal literal (0o600)"
            )));
        }
        Ok(mode)
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
        if let Some(b) = self.sessionless {
            c.sessionless = b;
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
        if let Some(list) = &self.trusted_proxies {
            c.trusted_proxies = TrustedProxies::parse(&list.0)
                .map_err(|e| invalid(format!("{}: {e}", self.name("trusted_proxies"))))?;
        }
        if let Some(n) = self.max_connections {
            c.max_connections = n;
        }
        if let Some(n) = self.max_connections_per_client {
            c.max_connections_per_client = n;
        }
        let sse = self.sse_config(&c.path)?;
        if self.sse.is_some() {
            c.sse = sse;
        }
        if let Some(b) = self.http2 {
            c.http2 = b;
        }
        if let Some(n) = self.http2_max_concurrent_streams {
            c.http2_max_concurrent_streams = n;
        }
        if let Some(n) = self.http2_max_pending_accept_reset_streams {
            c.http2_max_pending_accept_reset_streams = n;
        }
        if let Some(n) = self.http2_max_local_error_reset_streams {
            c.http2_max_local_error_reset_streams = n;
        }
        c.uds = self.uds_config()?;
        match (&self.tls_cert, &self.tls_key) {
            (None, None) => {}
            (Some(cert), Some(key)) => {
                c.tls = Some(crate::transport::http::TlsFiles {
                    cert: cert.into(),
                    key: key.into(),
                })
            }
            _ => {
                return Err(invalid(format!(
                    "{} and {} go together: the certificate and its private key",
                    self.name("tls_cert"),
                    self.name("tls_key")
                )))
            }
        }
        Ok(c)
    }

    /// The HTTP+SSE transport's settings when `sse` is on; its paths start with `/` and are
    /// distinct from each other and from the Streamable HTTP `path`.
    pub(super) fn sse_config(&self, path: &str) -> Result<Option<SseConfig>> {
        let paths = self.sse_path.is_some() || self.messages_path.is_some();
        if self.sse != Some(true) {
            if paths || self.sse_max_queued_bytes.is_some() {
                return Err(invalid(format!(
                    "{}, {} and {} need {}: true",
                    self.name("sse_path"),
                    self.name("messages_path"),
                    self.name("sse_max_queued_bytes"),
                    self.name("sse")
                )));
            }
            return Ok(None);
        }
        let mut c = SseConfig::default();
        for (field, value, slot) in [
            ("sse_path", &self.sse_path, &mut c.sse_path),
            ("messages_path", &self.messages_path, &mut c.messages_path),
        ] {
            if let Some(p) = value {
                if !p.starts_with('/') {
                    return Err(invalid(format!(
                        "{} must start with /, got {p:?}",
                        self.name(field)
                    )));
                }
                *slot = p.clone();
            }
        }
        if c.sse_path == c.messages_path || c.sse_path == path || c.messages_path == path {
            return Err(invalid(format!(
                "{} ({:?}), {} ({:?}) and path ({path:?}) must differ",
                self.name("sse_path"),
                c.sse_path,
                self.name("messages_path"),
                c.messages_path
            )));
        }
        if let Some(n) = self.sse_max_queued_bytes {
            c.max_queued_bytes = n;
        }
        Ok(Some(c))
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

    /// The settings of a connection over a host's message streams (in-process, each message
    /// framed by the host): stdio's, except that its end is not the server's, and cancels its
    /// in-flight requests at once. Such a connection carries no credentials, so a server that
    /// requires them (`tokens`, `oauth`) refuses it rather than serve it unauthenticated.
    pub fn message_streams_config(&self) -> Result<StdioConfig> {
        if !matches!(self.tokens, None | Some(Value::Null)) || self.oauth.is_some() {
            return Err(invalid(format!(
                "this server requires authentication ({} or {}), which a connection over \
                 message streams cannot carry: call it over HTTP with a token",
                self.name("tokens"),
                self.name("oauth")
            )));
        }
        let mut c = self.stdio_config();
        c.drain_timeout = Duration::ZERO;
        c.owns_server = false;
        Ok(c)
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
            let claims = o.name_claims.clone().map(|c| c.0);
            if claims.as_ref().is_some_and(Vec::is_empty) {
                return Err(invalid(format!(
                    "{} must name at least one claim",
                    n("name_claims")
                )));
            }
            auth = self.jwt(
                auth,
                issuer,
                audience,
                jwks,
                o.jwks_url.clone(),
                claims,
                &what,
            )?;
            on = true;
        }
        if let Some(per) = &o.allow {
            for (caller, a) in per {
                let list = |s: &Option<Strings>| s.as_ref().map(|s| s.0.clone());
                let allow = Allow {
                    tools: list(&a.tools),
                    resources: list(&a.resources),
                    prompts: list(&a.prompts),
                };
                auth = auth.allow(caller.clone(), allow);
            }
        }
        auth = self.dpop(auth, o, &n)?;
        on |= self.host_verifier(o, &mut auth, &n)?;
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

    /// `oauth.verifier` (the host's verifier under the core's rules), `oauth.required_scopes`
    /// and `oauth.answers`; true when a verifier checks tokens.
    fn host_verifier(
        &self,
        o: &OAuthConfig,
        auth: &mut Auth,
        n: &dyn Fn(&str) -> String,
    ) -> Result<bool> {
        let mut a = std::mem::take(auth);
        if let Some(s) = &o.required_scopes {
            a = a.required_scopes(s.0.clone());
        }
        if let Some(u) = &o.resource_metadata_url {
            a = a.resource_metadata_url(u.clone());
        }
        if let Some(w) = &o.answers {
            let w: Answers = w
                .parse()
                .map_err(|e: String| invalid(format!("{}: {e}", n("answers"))))?;
            a = a.answers(w);
        }
        let on = o.verifier.unwrap_or(false);
        if !on {
            let set = [
                ("verifier_resource_required", o.verifier_resource_required),
                ("verifier_expiry_required", o.verifier_expiry_required),
            ];
            if let Some((name, _)) = set.iter().find(|(_, s)| s.is_some()) {
                *auth = a;
                return Err(invalid(format!("{} needs {}", n(name), n("verifier"))));
            }
        } else {
            // Without the host's verifier (options checked before it is given) every token is
            // refused: a server that asked for a verifier never serves without one.
            let hook = self
                .token_verifier
                .clone()
                .map_or_else(|| Arc::new(NoVerifier) as Arc<dyn HostVerifier>, |h| h.0);
            let mut t =
                HostTokens::new(hook).expiry_required(o.verifier_expiry_required.unwrap_or(false));
            if let Some(r) = &o.resource {
                t = t.resource(r.clone(), o.verifier_resource_required.unwrap_or(false));
            } else if o.verifier_resource_required == Some(true) {
                *auth = a;
                return Err(invalid(format!(
                    "{} needs {}",
                    n("verifier_resource_required"),
                    n("resource")
                )));
            }
            a = a.verifier(t);
        }
        *auth = a;
        Ok(on)
    }

    /// `oauth.dpop` and its two limits.
    fn dpop(&self, auth: Auth, o: &OAuthConfig, n: &dyn Fn(&str) -> String) -> Result<Auth> {
        let mode = match &o.dpop {
            None => {
                // A DPoP setting without DPoP would be silently ignored: refuse it.
                let set = [
                    ("dpop_window_ms", o.dpop_window_ms.is_some()),
                    ("dpop_replay_cache", o.dpop_replay_cache.is_some()),
                    ("dpop_nonce", o.dpop_nonce.is_some()),
                ];
                if let Some((name, _)) = set.iter().find(|(_, s)| *s) {
                    return Err(invalid(format!("{} needs {}", n(name), n("dpop"))));
                }
                return Ok(auth);
            }
            Some(m) => m,
        };
        #[cfg(feature = "auth-jwt")]
        {
            use crate::auth::{Dpop, DpopMode};
            let mode: DpopMode = mode
                .parse()
                .map_err(|e: String| invalid(format!("{}: {e}", n("dpop"))))?;
            let mut d = Dpop::new(mode);
            if let Some(w) = o.dpop_window_ms {
                if w < 1000 {
                    return Err(invalid(format!(
                        "{} must be at least 1000",
                        n("dpop_window_ms")
                    )));
                }
                d = d.window(Duration::from_millis(w));
            }
            if let Some(c) = o.dpop_replay_cache {
                if c == 0 {
                    return Err(invalid(format!(
                        "{} must be at least 1",
                        n("dpop_replay_cache")
                    )));
                }
                d = d.replay_cache(c);
            }
            d = d.nonce(o.dpop_nonce.unwrap_or(false));
            Ok(auth.dpop(d))
        }
        #[cfg(not(feature = "auth-jwt"))]
        {
            let _ = (auth, mode);
            Err(invalid(format!(
                "{}: oxmcp was built without the `auth-jwt` feature",
                n("dpop")
            )))
        }
    }

    #[cfg(feature = "auth-jwt")]
    #[allow(clippy::too_many_arguments)] // the oauth options the validator is built from, each read once
    fn jwt(
        &self,
        auth: Auth,
        issuer: String,
        audience: String,
        jwks: Option<&Value>,
        url: Option<String>,
        name_claims: Option<Vec<String>>,
        what: &str,
    ) -> Result<Auth> {
        use crate::auth::JwtValidator;
        let mut v = match (jwks, url) {
            (Some(k), _) => JwtValidator::with_jwks(issuer, audience, k)
                .map_err(|e| invalid(format!("{what}: {}", e.0)))?,
            (None, Some(url)) => JwtValidator::with_jwks_url(issuer, audience, url),
            (None, None) => return Ok(auth),
        };
        if let Some(c) = name_claims {
            v = v.name_claims(c);
        }
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
        _: Option<Vec<String>>,
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

/// The verifier of a server whose host has not given its own yet: every token refused.
struct NoVerifier;

impl HostVerifier for NoVerifier {
    fn verify<'a>(
        &'a self,
        _: &'a str,
    ) -> AuthFuture<'a, std::result::Result<Option<Value>, String>> {
        Box::pin(async { Err("no token verifier was given to the server".to_string()) })
    }
}
