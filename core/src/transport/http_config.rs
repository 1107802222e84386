//! The Streamable HTTP endpoint's settings: what [`super::http::HttpHandler`] and the built-in
//! server check every request against (path, Origin/Host, sizes, timeouts, auth, rate limits).
//! Every language's binding builds one of these from its own options; the defaults are here so
//! that they are the same in all three.

use crate::auth::Authenticator;
use crate::server::gate::TrustedProxies;
use crate::server::gate::{DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS_PER_CLIENT};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// Settings of the Streamable HTTP endpoint.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpConfig {
    pub addr: SocketAddr,
    /// The MCP endpoint path.
    pub path: String,
    /// Request body cap (413 above it).
    pub max_body: usize,
    /// Longest JSON string (key or value) in a request, in bytes (413 + -32600 above it).
    pub max_string: usize,
    /// Origins allowed besides the server's own host names (e.g. `https://app.example.com`).
    pub allowed_origins: Vec<String>,
    /// `Host` values accepted (DNS-rebinding protection), `name` (any port) or `name:port`.
    /// Empty: only loopback addresses and `localhost`, wherever the server is bound; binding a
    /// non-loopback address needs this list (or `allow_any_host`).
    pub allowed_hosts: Vec<String>,
    /// Opt out of the `Host` check when `allowed_hosts` is empty (a reverse proxy that checks
    /// `Host` itself). Off by default: without it a non-loopback bind with no `allowed_hosts`
    /// refuses to start.
    pub allow_any_host: bool,
    /// SSE keep-alive comment interval.
    pub keep_alive: Duration,
    /// Slow-request protection: the request head must arrive within this.
    pub header_timeout: Duration,
    /// How long in-flight requests may take to drain at shutdown.
    pub drain_timeout: Duration,
    pub auth: Option<Arc<dyn Authenticator>>,
    /// Per-caller rate limit (429 + `Retry-After` beyond it); anonymous callers share a bucket.
    pub rate_limit: Option<Arc<crate::limits::RateLimiter>>,
    /// Failed authentications per client address (429 + `Retry-After` beyond it, before the
    /// token is checked); default [`crate::limits::DEFAULT_AUTH_FAILURES`]. `None`: no limit.
    /// Applies where the client address is known: the built-in server, and mounts that pass it
    /// to [`super::http::HttpHandler::handle_from`].
    pub auth_failure_limit: Option<crate::limits::RateLimit>,
    /// Most request headers accepted (431 above it).
    pub max_headers: usize,
    /// Most bytes of request headers (names + values) accepted (431 above it).
    pub max_header_bytes: usize,
    /// Slow-body protection: the whole body must arrive within this (408 otherwise).
    pub body_timeout: Duration,
    /// This endpoint keeps no legacy sessions (as a server with `legacy_stateless` does): a
    /// host framework's stateless transport (the TS SDK's `sessionIdGenerator: undefined`) mounts
    /// one beside stateful ones of the same server.
    pub sessionless: bool,
    /// Proxies (CIDRs) whose `X-Forwarded-For` / `Forwarded` is believed: the client address
    /// (the failed-authentication limit's key) is then the first untrusted hop from the right.
    /// Empty (the default): the TCP peer is the client.
    pub trusted_proxies: TrustedProxies,
    /// Most connections the built-in server holds at once (503 + -31503 past it); 0: no cap.
    pub max_connections: usize,
    /// Most connections one client address holds at once (429 + -31429 past it; IPv6 by its
    /// /64; a trusted proxy is capped by `max_connections` only); 0: no cap.
    pub max_connections_per_client: usize,
    /// The 2024-11-05 HTTP+SSE transport beside Streamable HTTP: `None` (the default) serves
    /// none. Off unless asked for: it is a second way in, for clients that predate Streamable
    /// HTTP, and holds a stream open per session.
    pub sse: Option<SseConfig>,
    /// HTTP/2 on the same port as HTTP/1.1 (h2c by prior knowledge: a connection that opens
    /// with the HTTP/2 preface). Off: such a connection is answered as HTTP/1.1 would answer it.
    pub http2: bool,
    /// HTTP/2: most streams (requests) one connection runs at once; a client past it has its
    /// new streams refused (`REFUSED_STREAM`) and retries them. The per-connection counterpart
    /// of one HTTP/1.1 connection per request.
    pub http2_max_concurrent_streams: u32,
    /// HTTP/2: streams a client may open and reset before the server accepted them, per
    /// connection, before the connection is closed (the "rapid reset" flood, CVE-2023-44487).
    pub http2_max_pending_accept_reset_streams: usize,
    /// HTTP/2: streams the server may reset for a client's protocol errors, per connection,
    /// before the connection is closed (a flood of malformed requests).
    pub http2_max_local_error_reset_streams: usize,
    /// TLS: the certificate chain and its private key (PEM files), served with ALPN `h2` and
    /// `http/1.1`, reloaded when the files change. Both or neither; needs the `tls` feature.
    pub tls: Option<TlsFiles>,
    /// Listen on this Unix domain socket instead of `addr` (Unix only). Its connections are
    /// local: their client address is loopback (127.0.0.1, port 0) for limits and audit, and
    /// the `Host` check applies its loopback rule, as for a server bound to 127.0.0.1.
    pub uds: Option<UdsConfig>,
}

/// [`HttpConfig::uds`]: where the socket file is made, and its permissions.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct UdsConfig {
    pub path: std::path::PathBuf,
    /// The socket file's permission bits (default 0o600: only the server's user may connect).
    pub mode: u32,
}

impl UdsConfig {
    /// A socket at `path` with the default mode, [`DEFAULT_UDS_MODE`].
    pub fn new(path: impl Into<std::path::PathBuf>) -> Self {
        Self {
            path: path.into(),
            mode: DEFAULT_UDS_MODE,
        }
    }
    /// See [`UdsConfig::mode`]; bits above 0o777 are refused when the server binds.
    pub fn mode(mut self, mode: u32) -> Self {
        self.mode = mode;
        self
    }
}

/// The socket file's default mode: connecting needs write permission on it, so 0o600 lets only
/// the server's own user in. Unix permissions are the socket's access control.
pub const DEFAULT_UDS_MODE: u32 = 0o600;

/// The 2024-11-05 HTTP+SSE transport's paths and its per-stream bound.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SseConfig {
    /// `GET` here opens a session's event stream (default `/sse`).
    pub sse_path: String,
    /// Where the client POSTs its messages, `?session_id=` naming the stream (default `/messages`).
    pub messages_path: String,
    /// Most bytes queued for one stream that its client has not read yet; a reader that falls
    /// further behind loses its stream (and its session) rather than make the server hold more.
    pub max_queued_bytes: usize,
}

impl Default for SseConfig {
    fn default() -> Self {
        Self {
            sse_path: "/sse".into(),
            messages_path: "/messages".into(),
            max_queued_bytes: 16 * 1024 * 1024,
        }
    }
}

/// The PEM files of [`HttpConfig::tls`].
#[derive(Clone, Debug)]
pub struct TlsFiles {
    pub cert: std::path::PathBuf,
    pub key: std::path::PathBuf,
}

/// See [`HttpConfig::http2_max_concurrent_streams`]. 100, the floor RFC 9113 recommends: enough
/// for a client's concurrent calls and listen streams, and a bounded amount of work per connection.
pub(crate) const DEFAULT_HTTP2_MAX_CONCURRENT_STREAMS: u32 = 100;
/// See [`HttpConfig::http2_max_pending_accept_reset_streams`] (hyper's own default).
pub(crate) const DEFAULT_HTTP2_MAX_PENDING_ACCEPT_RESET_STREAMS: usize = 20;
/// See [`HttpConfig::http2_max_local_error_reset_streams`]: a well-behaved client causes none.
pub(crate) const DEFAULT_HTTP2_MAX_LOCAL_ERROR_RESET_STREAMS: usize = 100;

impl HttpConfig {
    /// Metrics served on the endpoint's own listener (`metrics` without an `address`) need a path
    /// of their own: on the MCP path or an HTTP+SSE path the scrape would never be reached, and
    /// the option would be silently unserved. The one copy of this rule: the configuration checks
    /// it for every listener and mount it makes, and the built-in server again when it binds (for
    /// an `HttpConfig` built by hand).
    pub fn check_metrics_path(
        &self,
        metrics: Option<&crate::metrics::MetricsOptions>,
    ) -> Result<(), String> {
        let Some(m) = metrics.filter(|m| m.address.is_none()) else {
            return Ok(());
        };
        let sse = self.sse.as_ref();
        if m.path == self.path
            || sse.is_some_and(|s| m.path == s.sse_path || m.path == s.messages_path)
        {
            return Err(format!(
                "metrics.path {:?} is a path the MCP endpoint serves: give the metrics another path, or an address of their own",
                m.path
            ));
        }
        Ok(())
    }

    /// For mounting [`super::http::HttpHandler`] inside another HTTP server (ASGI, fetch, Express): no
    /// address is bound, and `Host` checks stay loopback-only until `allowed_hosts` is set.
    pub fn mount() -> Self {
        Self::new(SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            path: "/mcp".into(),
            max_body: 4 * 1024 * 1024,
            max_string: crate::limits::DEFAULT_MAX_STRING,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            allow_any_host: false,
            keep_alive: Duration::from_secs(15),
            header_timeout: Duration::from_secs(10),
            drain_timeout: Duration::from_secs(5),
            auth: None,
            rate_limit: None,
            auth_failure_limit: Some(crate::limits::DEFAULT_AUTH_FAILURES),
            max_headers: 100,
            max_header_bytes: 16 * 1024,
            body_timeout: Duration::from_secs(30),
            sessionless: false,
            trusted_proxies: TrustedProxies::default(),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_client: DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
            sse: None,
            http2: true,
            http2_max_concurrent_streams: DEFAULT_HTTP2_MAX_CONCURRENT_STREAMS,
            http2_max_pending_accept_reset_streams: DEFAULT_HTTP2_MAX_PENDING_ACCEPT_RESET_STREAMS,
            http2_max_local_error_reset_streams: DEFAULT_HTTP2_MAX_LOCAL_ERROR_RESET_STREAMS,
            tls: None,
            uds: None,
        }
    }
    pub fn path(mut self, p: impl Into<String>) -> Self {
        self.path = p.into();
        self
    }
    pub fn allowed_origins(mut self, o: Vec<String>) -> Self {
        self.allowed_origins = o;
        self
    }
    pub fn allowed_hosts(mut self, h: Vec<String>) -> Self {
        self.allowed_hosts = h;
        self
    }
    /// See [`HttpConfig::allow_any_host`].
    pub fn allow_any_host(mut self, yes: bool) -> Self {
        self.allow_any_host = yes;
        self
    }
    pub fn max_body(mut self, n: usize) -> Self {
        self.max_body = n;
        self
    }
    pub fn max_string(mut self, n: usize) -> Self {
        self.max_string = n;
        self
    }
    pub fn auth(mut self, a: Arc<dyn Authenticator>) -> Self {
        self.auth = Some(a);
        self
    }
    pub fn rate_limit(mut self, r: crate::limits::RateLimit) -> Self {
        self.rate_limit = Some(Arc::new(crate::limits::RateLimiter::new(r)));
        self
    }
    /// A rate limiter with per-caller overrides.
    pub fn rate_limiter(mut self, r: crate::limits::RateLimiter) -> Self {
        self.rate_limit = Some(Arc::new(r));
        self
    }
    /// See [`HttpConfig::auth_failure_limit`].
    pub fn auth_failure_limit(mut self, l: Option<crate::limits::RateLimit>) -> Self {
        self.auth_failure_limit = l;
        self
    }
    pub fn header_timeout(mut self, d: Duration) -> Self {
        self.header_timeout = d;
        self
    }
    pub fn body_timeout(mut self, d: Duration) -> Self {
        self.body_timeout = d;
        self
    }
    pub fn max_headers(mut self, n: usize) -> Self {
        self.max_headers = n;
        self
    }
    /// See [`HttpConfig::trusted_proxies`].
    pub fn trusted_proxies(mut self, t: TrustedProxies) -> Self {
        self.trusted_proxies = t;
        self
    }
    /// See [`HttpConfig::max_connections`] and [`HttpConfig::max_connections_per_client`].
    pub fn max_connections(mut self, total: usize, per_client: usize) -> Self {
        self.max_connections = total;
        self.max_connections_per_client = per_client;
        self
    }
    /// Serve the 2024-11-05 HTTP+SSE transport too (see [`HttpConfig::sse`]).
    pub fn sse(mut self, sse: Option<SseConfig>) -> Self {
        self.sse = sse;
        self
    }
    pub fn max_header_bytes(mut self, n: usize) -> Self {
        self.max_header_bytes = n;
        self
    }
    /// Listen on a Unix domain socket (see [`HttpConfig::uds`]).
    pub fn uds(mut self, uds: Option<UdsConfig>) -> Self {
        self.uds = uds;
        self
    }
    /// See [`HttpConfig::http2`].
    pub fn http2(mut self, on: bool) -> Self {
        self.http2 = on;
        self
    }
}
