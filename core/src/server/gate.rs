//! Admission: what a request must pass before the dispatcher sees it, whatever carried it (the
//! built-in HTTP server, the ASGI mount, `nodeHandler()`, `fetch`, the TS-SDK-shaped
//! transports). The HTTP transport reads the head and writes the answer; every decision between
//! is made here, once:
//!
//! - the connection caps, total and per client address ([`Gate::connect`]);
//! - the client address itself, through trusted proxies only ([`TrustedProxies`]);
//! - the failed-authentication limit, authentication, and the per-caller rate limit
//!   ([`Gate::admit`], [`Gate::charge`]);
//! - the legacy session a request names, and ending it (`Gate::session`, `Gate::end`);
//! - readiness ([`Gate::readiness`]).
//!
//! A refusal is a [`Refusal`]: the status, the JSON body (a JSON-RPC error, or the OAuth error an
//! authenticator gives) and the headers that go with it. The transport renders it as it is.

use super::Server;
use crate::auth::{AuthRejection, AuthRequest, Authenticator};
use crate::error::{ErrorCode, McpError};
use crate::identity::Caller;
use crate::limits::{AuthFailureLimiter, RateLimit, RateLimiter};
use crate::session::LegacySession;
use http::{header, HeaderMap, HeaderName, StatusCode};
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Connections the built-in HTTP server holds at once, by default.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Connections one client address holds at once, by default (IPv6 by its /64).
pub const DEFAULT_MAX_CONNECTIONS_PER_CLIENT: usize = 256;
/// How long a DELETE of a session that was just ended still answers success.
pub const ENDED_SESSION_MEMORY: Duration = Duration::from_secs(60);
/// Most recently ended session ids remembered at once.
pub const MAX_ENDED_SESSIONS: usize = 4096;

/// A request (or connection) refused before dispatch.
#[derive(Debug)]
pub struct Refusal {
    pub status: StatusCode,
    pub body: Value,
    pub headers: Vec<(HeaderName, String)>,
}

impl Refusal {
    /// A JSON-RPC error (id null) with `status`.
    pub fn error(status: StatusCode, e: McpError) -> Self {
        Self {
            status,
            body: crate::jsonrpc::error(Value::Null, &e),
            headers: Vec::new(),
        }
    }
    fn retry_after(mut self, wait: Duration) -> Self {
        self.headers
            .push((header::RETRY_AFTER, retry_secs(wait).to_string()));
        self
    }
    /// The answer for a request the [`Authenticator`] refused.
    fn rejected(r: AuthRejection) -> Self {
        let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::UNAUTHORIZED);
        let mut out = Self {
            status,
            body: r.body(),
            headers: Vec::new(),
        };
        for c in r.challenge.into_iter().chain(r.more_challenges) {
            out.headers.push((header::WWW_AUTHENTICATE, c));
        }
        if let Some(n) = r.dpop_nonce {
            out.headers.push((HeaderName::from_static("dpop-nonce"), n));
        }
        out
    }
    /// 503 with the JSON-RPC error (the session store cannot be reached): retry shortly.
    pub fn unavailable(e: McpError) -> Self {
        Self::error(StatusCode::SERVICE_UNAVAILABLE, e).retry_after(Duration::from_secs(1))
    }
    fn session_not_found() -> Self {
        Self::error(
            StatusCode::NOT_FOUND,
            McpError::invalid_request("Session not found"),
        )
    }
}

/// Whole seconds for `Retry-After`, rounded up, at least 1.
pub fn retry_secs(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

/// What admission is configured with: the listener's auth and limits (`HttpConfig` holds them;
/// the transport hands them over when it builds its [`Gate`]).
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct GateConfig {
    pub auth: Option<Arc<dyn Authenticator>>,
    pub rate_limit: Option<Arc<RateLimiter>>,
    pub auth_failure_limit: Option<RateLimit>,
    pub trusted_proxies: TrustedProxies,
    /// 0: no cap.
    pub max_connections: usize,
    /// 0: no cap.
    pub max_connections_per_client: usize,
}

/// Admission for one endpoint. Cheap to share (`Arc`).
pub struct Gate {
    server: Server,
    auth: Option<Arc<dyn Authenticator>>,
    rate_limit: Option<Arc<RateLimiter>>,
    auth_failures: Option<AuthFailureLimiter>,
    /// `rate_limit` counted in Redis (`rate_limit_store = "redis"`).
    #[cfg(feature = "redis")]
    shared_rate: Option<crate::redis::SharedRateLimit>,
    proxies: TrustedProxies,
    connections: Arc<Connections>,
}

impl Gate {
    pub fn new(server: Server, c: GateConfig) -> Self {
        if let Some(a) = &c.auth {
            // Lists and results may differ per caller: never let a shared cache keep them.
            server.mark_authenticated();
            #[cfg(feature = "redis")]
            let seen = server.inner.redis.as_ref().map(|r| {
                Arc::new(crate::redis::RedisSeen::new(r.clone())) as Arc<dyn crate::auth::SeenIds>
            });
            #[cfg(not(feature = "redis"))]
            let seen = None;
            a.attach(crate::auth::Shared::new(
                server
                    .inner
                    .options
                    .state_keys
                    .first()
                    .or(server.inner.options.state_key.as_ref())
                    .map(Vec::as_slice),
                seen,
            ));
        }
        let auth_failures = c
            .auth_failure_limit
            .filter(|_| c.auth.is_some())
            .map(AuthFailureLimiter::new);
        #[cfg(feature = "redis")]
        let shared_rate = match (&server.inner.redis, &c.rate_limit) {
            (Some(r), Some(l)) if server.inner.shared_rate_limits => {
                Some(crate::redis::SharedRateLimit::new(r.clone(), l.clone()))
            }
            _ => None,
        };
        Self {
            server,
            auth: c.auth,
            rate_limit: c.rate_limit,
            auth_failures,
            #[cfg(feature = "redis")]
            shared_rate,
            proxies: c.trusted_proxies,
            connections: Arc::new(Connections {
                max: c.max_connections,
                max_per_client: c.max_connections_per_client,
                counts: Mutex::new((0, HashMap::new())),
            }),
        }
    }

    /// The client's address: the TCP peer, or, when the peer is a trusted proxy, the address it
    /// forwards ([`TrustedProxies::client`]).
    pub fn client_addr(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> Option<IpAddr> {
        let peer = peer?;
        Some(self.proxies.client(peer, headers))
    }

    /// A new connection from `peer`: a permit held while it is open, or the refusal to answer
    /// it with (503 past `max_connections`, 429 past `max_connections_per_client`). A trusted
    /// proxy carries many clients' requests, so only the total caps it.
    pub fn connect(&self, peer: IpAddr) -> Result<ConnPermit, Refusal> {
        let key = (!self.proxies.trusts(peer)).then(|| crate::limits::client_key(peer));
        self.connections.open(key).inspect_err(|r| {
            let reason = if r.status == StatusCode::TOO_MANY_REQUESTS {
                "max_connections_per_client"
            } else {
                "max_connections"
            };
            self.server.count_rejection(r.status.as_u16(), reason);
        })
    }

    /// Authenticate a request from its head alone (before its body is read), under the
    /// failed-authentication limit of `client` (see [`Self::client_addr`]), and charge it one
    /// rate-limit token. The caller (`None` without auth), or the refusal. The authenticator
    /// sees the method and path too: a DPoP proof is bound to them.
    pub async fn admit(
        &self,
        req: AuthRequest<'_>,
        client: Option<IpAddr>,
    ) -> Result<Option<Caller>, Refusal> {
        let headers = req.headers;
        let failures = self.auth_failures.as_ref().zip(client);
        if let Some((limiter, ip)) = failures {
            if let Err(wait) = limiter.check(ip) {
                tracing::info!(target: "oxmcp::audit", peer = %ip, outcome = "auth_rate_limited", "auth");
                self.server.count_rejection(429, "auth_failure_limit");
                let e = McpError::new(
                    ErrorCode::RATE_LIMITED,
                    "Too many failed authentications; retry later",
                );
                return Err(Refusal::error(StatusCode::TOO_MANY_REQUESTS, e).retry_after(wait));
            }
        }
        let caller = match &self.auth {
            // Boxed: the authenticator's future (a JWKS fetch, a host verifier) would otherwise
            // size every request's.
            Some(a) => match Box::pin(a.authenticate_request(req)).await {
                Ok(c) => c,
                Err(r) => {
                    // A presented token that was refused spends one failure; a request without
                    // one (a client discovering that auth is needed) does not, nor does a proof
                    // that only lacked the server's nonce (every client's first request does).
                    let presented =
                        headers.contains_key(header::AUTHORIZATION) && r.error != "use_dpop_nonce";
                    if r.status != 401 || presented {
                        self.server.count_auth_failure();
                    }
                    if let Some((limiter, ip)) = failures {
                        if r.status == 401 && presented {
                            limiter.failed(ip);
                        }
                    }
                    return Err(Refusal::rejected(r));
                }
            },
            None => None,
        };
        self.charge(caller.as_ref(), 1).await?;
        Ok(caller)
    }

    /// Take `n` rate-limit tokens for `caller` (each request costs one; a batch one per
    /// element), or the 429 to answer. Buckets are keyed by the caller's identity key (issuer +
    /// subject for JWTs), per-caller limits by name.
    pub async fn charge(&self, caller: Option<&Caller>, n: u32) -> Result<(), Refusal> {
        let Some(limiter) = self.rate_limit.as_ref().filter(|_| n > 0) else {
            return Ok(());
        };
        let (key, name) = match caller {
            Some(c) => (c.key(), c.name.as_str()),
            None => (std::borrow::Cow::Borrowed(""), ""),
        };
        #[cfg(feature = "redis")]
        let checked = match &self.shared_rate {
            // Boxed: the Redis round trip's future would otherwise size every request's.
            Some(shared) => Box::pin(shared.check_keyed(&key, name, n)).await,
            None => limiter.check_keyed(&key, name, n),
        };
        #[cfg(not(feature = "redis"))]
        let checked = limiter.check_keyed(&key, name, n);
        checked.map_err(|wait| {
            tracing::info!(target: "oxmcp::audit", caller = caller.map_or("-", |c| c.name.as_str()), outcome = "rate_limited", cost = n, "request");
            self.server.count_rejection(429, "rate_limit");
            let e = McpError::new(ErrorCode::RATE_LIMITED, "Too many requests; retry later");
            Refusal::error(StatusCode::TOO_MANY_REQUESTS, e).retry_after(wait)
        })
    }

    /// The legacy session named by `id` (the `Mcp-Session-Id` header as the transport read it:
    /// absent, a value, or invalid), if `caller` may use it: a session belongs to the caller that
    /// created it, and is "not found" (404) for anyone else. A session this replica has not
    /// served yet is loaded from the session store; the store unreachable is a 503.
    pub(crate) async fn session(
        &self,
        id: Option<Result<&str, ()>>,
        caller: Option<&Caller>,
    ) -> Result<Option<Arc<LegacySession>>, Refusal> {
        match id {
            None => Ok(None),
            Some(Ok(id)) => match self.server.legacy_session(id, caller).await {
                Ok(Some(s)) if s.usable_by(caller) => Ok(Some(s)),
                Err(e) => Err(Refusal::unavailable(e)),
                _ => Err(Refusal::session_not_found()),
            },
            Some(Err(())) => Err(Refusal::error(
                StatusCode::BAD_REQUEST,
                McpError::invalid_request("Invalid Mcp-Session-Id"),
            )),
        }
    }

    /// End the legacy session `id` on every replica (DELETE). A session ended within
    /// [`ENDED_SESSION_MEMORY`] ends again with success: a proxy that re-sends a DELETE whose
    /// answer it lost (to this replica or, with a shared store, another) gets the answer the
    /// first one had. `Ok(())` is 200; the refusal is 404, or 503 with the store unreachable.
    pub(crate) async fn end(
        &self,
        id: Result<&str, ()>,
        caller: Option<&Caller>,
    ) -> Result<(), Refusal> {
        let Ok(id) = id else {
            return Err(Refusal::session_not_found());
        };
        let ended = &self.server.inner.ended_sessions;
        if ended.ended_by(id, caller) {
            return Ok(());
        }
        let store = &self.server.inner.sessions.store;
        match self.session(Some(Ok(id)), caller).await {
            Ok(Some(s)) => match self.server.end_session(id).await {
                Ok(true) => {
                    ended.record(id, s.owner_key.clone());
                    // Best effort: without it a re-sent DELETE on another replica gets a 404.
                    let _ = store
                        .mark_ended(id, s.owner_key.as_deref(), ENDED_SESSION_MEMORY)
                        .await;
                    Ok(())
                }
                Ok(false) => Err(Refusal::session_not_found()),
                Err(e) => Err(Refusal::unavailable(e)),
            },
            Ok(None) => Err(Refusal::session_not_found()),
            Err(r) if r.status == StatusCode::NOT_FOUND => {
                // Ended lately by another replica (whose signal this one may not have heard).
                match store.ended(id).await {
                    Ok(Some(owner)) if EndedSessions::owned_by(owner.as_deref(), caller) => Ok(()),
                    _ => Err(r),
                }
            }
            Err(r) => Err(r),
        }
    }

    /// `GET /readyz`, the readiness probe (`GET /healthz` is liveness). 200 while the server
    /// takes requests, 503 once it is shutting down (so a load balancer stops sending it new
    /// ones); the body says whether the deployment's Redis answers a PING (`"up"`, `"down"`, or
    /// `"off"` without one).
    ///
    /// Why Redis down is still 200: every replica shares that Redis, so a readiness that
    /// followed it would take every replica out of the Service at once, while 2026-07-28
    /// stateless calls (which never touch Redis) could still be served. Alerting on Redis is
    /// the body's (or Redis' own) job, not the load balancer's.
    ///
    /// Like `/healthz`, it answers before the Host/Origin check and before auth: a kubelet
    /// probes with the pod's IP as `Host` and no credentials. It reveals nothing a caller could
    /// use (no URL, no names, no counts).
    pub async fn readiness(&self) -> (StatusCode, Value) {
        if self.server.is_shut_down() {
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"status": "shutting_down"}),
            );
        }
        #[cfg(feature = "redis")]
        let redis = match &self.server.inner.redis {
            Some(r) if r.ping().await => "up",
            Some(_) => "down",
            None => "off",
        };
        #[cfg(not(feature = "redis"))]
        let redis = "off";
        (StatusCode::OK, json!({"status": "ok", "redis": redis}))
    }

    /// The authenticator, for the transport's protected-resource document and challenges.
    pub fn auth(&self) -> Option<&Arc<dyn Authenticator>> {
        self.auth.as_ref()
    }
}

/// The open connections, in total and per client key.
struct Connections {
    max: usize,
    max_per_client: usize,
    counts: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

impl Connections {
    fn open(self: &Arc<Self>, key: Option<IpAddr>) -> Result<ConnPermit, Refusal> {
        let mut c = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if self.max > 0 && c.0 >= self.max {
            return Err(Refusal::error(
                StatusCode::SERVICE_UNAVAILABLE,
                McpError::new(ErrorCode::SERVER_BUSY, "Too many connections; retry later"),
            )
            .retry_after(Duration::from_secs(1)));
        }
        if let Some(k) = key {
            let n = c.1.get(&k).copied().unwrap_or(0);
            if self.max_per_client > 0 && n >= self.max_per_client {
                return Err(Refusal::error(
                    StatusCode::TOO_MANY_REQUESTS,
                    McpError::new(
                        ErrorCode::RATE_LIMITED,
                        "Too many connections from this client; retry later",
                    ),
                )
                .retry_after(Duration::from_secs(1)));
            }
            c.1.insert(k, n + 1);
        }
        c.0 += 1;
        Ok(ConnPermit {
            of: self.clone(),
            key,
        })
    }
}

/// An open connection, counted until dropped.
pub struct ConnPermit {
    of: Arc<Connections>,
    key: Option<IpAddr>,
}

impl Drop for ConnPermit {
    fn drop(&mut self) {
        let mut c = self.of.counts.lock().unwrap_or_else(|e| e.into_inner());
        c.0 = c.0.saturating_sub(1);
        if let Some(k) = self.key {
            if let Some(n) = c.1.get_mut(&k) {
                *n -= 1;
                if *n == 0 {
                    c.1.remove(&k);
                }
            }
        }
    }
}

/// Legacy sessions ended lately, each with its owner's key, for [`ENDED_SESSION_MEMORY`] and at
/// most [`MAX_ENDED_SESSIONS`] of them (the oldest forgotten first).
#[derive(Default)]
pub(crate) struct EndedSessions {
    ids: Mutex<VecDeque<(String, Option<String>, Instant)>>,
}

impl EndedSessions {
    /// `id` ended now; `owner` is its creator's [`Caller::key`] (`None`: no auth).
    pub(crate) fn record(&self, id: &str, owner: Option<String>) {
        let mut q = self.ids.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        while q
            .front()
            .is_some_and(|(_, _, at)| now.duration_since(*at) > ENDED_SESSION_MEMORY)
            || q.len() >= MAX_ENDED_SESSIONS
        {
            q.pop_front();
        }
        if !q.iter().any(|(i, _, _)| i == id) {
            q.push_back((id.to_string(), owner, now));
        }
    }

    /// Whether `caller` ended (or might have ended: the owner of) session `id` lately. Another
    /// caller gets the 404 it would get for any session not its own.
    fn ended_by(&self, id: &str, caller: Option<&Caller>) -> bool {
        let q = self.ids.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        q.iter().any(|(i, owner, at)| {
            i == id
                && now.duration_since(*at) <= ENDED_SESSION_MEMORY
                && Self::owned_by(owner.as_deref(), caller)
        })
    }

    /// Whether `caller` may end a session of `owner` (`None`: a session without one).
    fn owned_by(owner: Option<&str>, caller: Option<&Caller>) -> bool {
        match owner {
            None => true,
            Some(o) => caller.is_some_and(|c| *c.key() == *o),
        }
    }
}

/// The proxies whose forwarded client address is believed (`trusted_proxies`: CIDRs).
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies {
    nets: Vec<(IpAddr, u8)>,
}

impl TrustedProxies {
    /// Parse CIDRs (`10.0.0.0/8`, `fd00::/8`) or single addresses; the error names the entry.
    pub fn parse<S: AsRef<str>>(list: &[S]) -> Result<Self, String> {
        let mut nets = Vec::with_capacity(list.len());
        for s in list {
            let s = s.as_ref().trim();
            let (addr, bits) = match s.split_once('/') {
                Some((a, b)) => (a, Some(b)),
                None => (s, None),
            };
            let ip: IpAddr = addr
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse()
                .map_err(|_| format!("{s:?} is not an IP address or CIDR"))?;
            let ip = ip.to_canonical();
            let max = if ip.is_ipv4() { 32 } else { 128 };
            let bits = match bits {
                None => max,
                Some(b) => b
                    .parse::<u8>()
                    .ok()
                    .filter(|b| *b <= max)
                    .ok_or_else(|| format!("{s:?}: the prefix length must be 0 to {max}"))?,
            };
            nets.push((ip, bits));
        }
        Ok(Self { nets })
    }

    pub fn is_empty(&self) -> bool {
        self.nets.is_empty()
    }

    /// Whether `ip` is one of the trusted proxies.
    pub fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.nets.iter().any(|&(net, bits)| in_net(ip, net, bits))
    }

    /// The client's address for a request that `peer` sent: `peer` itself unless it is trusted;
    /// then the forwarded hops (`X-Forwarded-For`, or `Forwarded`'s `for=` when there is none),
    /// right to left, skipping trusted ones: the first untrusted hop is the client. All hops
    /// trusted: the leftmost. A hop that is not an address (`unknown`, an obfuscated name)
    /// stops the walk at the trusted hop that reported it.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if self.nets.is_empty() || !self.trusts(peer) {
            return peer;
        }
        let xff = HeaderName::from_static("x-forwarded-for");
        let hops: Vec<&str> = if headers.contains_key(&xff) {
            headers
                .get_all(&xff)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .collect()
        } else {
            headers
                .get_all(header::FORWARDED)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .filter_map(forwarded_for)
                .collect()
        };
        let mut client = peer;
        for hop in hops.iter().rev() {
            let Some(ip) = parse_hop(hop) else {
                return client;
            };
            client = ip;
            if !self.trusts(ip) {
                return ip;
            }
        }
        client
    }
}

/// The `for=` value of one `Forwarded` element.
fn forwarded_for(element: &str) -> Option<&str> {
    element.split(';').find_map(|pair| {
        let (k, v) = pair.trim().split_once('=')?;
        k.trim().eq_ignore_ascii_case("for").then(|| v.trim())
    })
}

/// An address as a forwarding header writes it: `1.2.3.4`, `1.2.3.4:80`, `"[::1]:80"`, `::1`.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    let h = hop.trim().trim_matches('"');
    if let Ok(ip) = h.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    if let Some(rest) = h.strip_prefix('[') {
        let end = rest.find(']')?;
        return rest[..end]
            .parse::<IpAddr>()
            .ok()
            .map(|ip| ip.to_canonical());
    }
    let (a, _port) = h.rsplit_once(':')?;
    a.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4)
}

fn in_net(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let mask = if bits == 0 {
                0
            } else {
                u32::MAX << (32 - u32::from(bits))
            };
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let mask = if bits == 0 {
                0
            } else {
                u128::MAX << (128 - u32::from(bits))
            };
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut m = HeaderMap::new();
        for (k, v) in pairs {
            m.append(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        m
    }
    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_forwarded_address_is_believed_only_through_a_trusted_hop() {
        let t = TrustedProxies::parse(&["10.0.0.0/8", "fd00::/8"]).unwrap();
        let fwd = h(&[("x-forwarded-for", "6.6.6.6, 1.2.3.4, 10.1.1.1")]);
        // A trusted peer: walk right to left past trusted hops; the spoofed left one is ignored.
        assert_eq!(t.client(ip("10.0.0.5"), &fwd), ip("1.2.3.4"));
        // An untrusted peer's header means nothing.
        assert_eq!(t.client(ip("5.5.5.5"), &fwd), ip("5.5.5.5"));
        // No header: the peer.
        assert_eq!(t.client(ip("10.0.0.5"), &h(&[])), ip("10.0.0.5"));
        // Every hop trusted: the leftmost.
        let all = h(&[("x-forwarded-for", "10.9.9.9, 10.1.1.1")]);
        assert_eq!(t.client(ip("10.0.0.5"), &all), ip("10.9.9.9"));
        // Forwarded (RFC 7239), with ports and quoted IPv6.
        let f = h(&[(
            "forwarded",
            "for=7.7.7.7;proto=https, for=\"[2001:db8::1]:443\"",
        )]);
        assert_eq!(t.client(ip("10.0.0.5"), &f), ip("2001:db8::1"));
        // A hop that is no address stops at the trusted hop that reported it.
        let odd = h(&[("x-forwarded-for", "1.2.3.4, unknown")]);
        assert_eq!(t.client(ip("10.0.0.5"), &odd), ip("10.0.0.5"));
        // IPv4-mapped IPv6 peers match IPv4 CIDRs.
        assert!(t.trusts(ip("::ffff:10.2.3.4")));
        assert!(t.trusts(ip("fd12::1")));
        assert!(!t.trusts(ip("11.0.0.1")));
    }

    #[test]
    fn bad_cidrs_are_named() {
        assert!(TrustedProxies::parse(&["10.0.0.0/33"])
            .unwrap_err()
            .contains("10.0.0.0/33"));
        assert!(TrustedProxies::parse(&["nginx"])
            .unwrap_err()
            .contains("nginx"));
        assert!(TrustedProxies::parse(&["0.0.0.0/0", "::/0", "127.0.0.1"]).is_ok());
    }

    #[test]
    fn connection_caps_count_per_client_and_in_total() {
        let c = Arc::new(Connections {
            max: 3,
            max_per_client: 2,
            counts: Mutex::new((0, HashMap::new())),
        });
        let a = Some(ip("1.1.1.1"));
        let p1 = c.open(a).unwrap();
        let _p2 = c.open(a).unwrap();
        assert_eq!(
            c.open(a).err().unwrap().status,
            StatusCode::TOO_MANY_REQUESTS
        );
        let _p3 = c.open(Some(ip("2.2.2.2"))).unwrap();
        assert_eq!(
            c.open(None).err().unwrap().status,
            StatusCode::SERVICE_UNAVAILABLE
        );
        drop(p1);
        let _p4 = c.open(a).unwrap();
    }
}
