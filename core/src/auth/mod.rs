//! Who may call what over HTTP: named bearer tokens, OAuth 2.1 resource-server support (RFC 9728
//! metadata, JWT access tokens against a JWKS, opaque tokens through a verifier hook),
//! per-caller allow-lists and per-tool required scopes. stdio needs none of it (the spec: stdio
//! servers take credentials from the environment).
//!
//! [`Auth`] is the built-in [`Authenticator`]; hand it to
//! [`HttpConfig::auth`](crate::transport::http::HttpConfig::auth). When auth is on, every
//! cacheable result is marked `cacheScope: "private"` (lists differ per caller).

mod access;
mod answers;
mod challenge;
mod credentials;
#[cfg(feature = "auth-jwt")]
mod dpop;
mod host;
#[cfg(feature = "auth-jwt")]
mod jwks;
#[cfg(feature = "auth-jwt")]
mod jwt;
mod metadata;
mod tokens;

pub use access::{missing_scopes, scope_covers, Allow};
use answers::ts_text;
pub use answers::Answers;
pub use challenge::BearerChallenge;
use credentials::credentials;
pub use credentials::{bearer_token, MalformedAuthorization};
#[cfg(feature = "auth-jwt")]
pub use dpop::{
    normalize_htu, thumbprint, Dpop, DpopMode, DEFAULT_DPOP_REPLAY_CACHE, DEFAULT_DPOP_WINDOW,
};
pub use host::{Grant, HostTokens, HostVerifier};
#[cfg(feature = "auth-jwt")]
pub use jwks::{HttpJwksFetcher, JwksFetcher};
#[cfg(feature = "auth-jwt")]
pub use jwt::JwtValidator;
pub use metadata::{canonical_resource, ProtectedResource};
pub use tokens::{token_hash_hex, NamedTokens, TokenConfigError};

use crate::error::{ErrorCode, McpError};
use crate::identity::Caller;
use http::{header, HeaderMap, Method};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// A boxed future borrowing its inputs (verifier and fetcher hooks).
pub type AuthFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// [`ErrorCode::INSUFFICIENT_SCOPE`], kept at its old path.
pub const INSUFFICIENT_SCOPE: ErrorCode = ErrorCode::INSUFFICIENT_SCOPE;
/// [`ErrorCode::RATE_LIMITED`], kept at its old path.
pub const RATE_LIMITED: ErrorCode = ErrorCode::RATE_LIMITED;
/// [`ErrorCode::SERVER_BUSY`], kept at its old path.
pub const SERVER_BUSY: ErrorCode = ErrorCode::SERVER_BUSY;

/// Why an [`Authenticator`] refused a request. The HTTP layer renders it: the status, a
/// `WWW-Authenticate` challenge and an RFC 6750 JSON body `{"error", "error_description"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthRejection {
    /// 401 (no or bad credentials) or 403 (known caller, refused).
    pub status: u16,
    /// The `WWW-Authenticate` value, if any.
    pub challenge: Option<String>,
    /// The OAuth error code (`invalid_token`, `unauthorized`, `insufficient_scope`, ...).
    pub error: String,
    /// Human-readable, safe to send (never the server-side reason).
    pub description: String,
    /// Further `WWW-Authenticate` values, each its own header (a `DPoP` challenge beside the
    /// `Bearer` one when both schemes are taken).
    pub more_challenges: Vec<String>,
    /// A `DPoP-Nonce` to send (RFC 9449 §9): the proof lacked a valid server nonce.
    pub dpop_nonce: Option<String>,
}

impl AuthRejection {
    /// 401 with this challenge.
    pub fn unauthorized(
        challenge: impl Into<String>,
        error: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        Self {
            status: 401,
            challenge: Some(challenge.into()),
            error: error.into(),
            description: description.into(),
            more_challenges: Vec::new(),
            dpop_nonce: None,
        }
    }
    /// 403 (the caller is known but may not use this endpoint).
    pub fn forbidden(error: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            status: 403,
            challenge: None,
            error: error.into(),
            description: description.into(),
            more_challenges: Vec::new(),
            dpop_nonce: None,
        }
    }
    /// The JSON body sent with the status.
    pub fn body(&self) -> Value {
        json!({"error": self.error, "error_description": self.description})
    }
}

/// The parts of a request an [`Authenticator`] may look at: its head, before the body is read.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct AuthRequest<'a> {
    pub method: &'a Method,
    /// The request path, without the query.
    pub path: &'a str,
    pub headers: &'a HeaderMap,
    /// The path of the MCP endpoint this listener serves: a request for it is a request for the
    /// protected resource's URL (whatever path a proxy in front forwards it to).
    pub endpoint: &'a str,
}

impl<'a> AuthRequest<'a> {
    pub fn new(
        method: &'a Method,
        path: &'a str,
        headers: &'a HeaderMap,
        endpoint: &'a str,
    ) -> Self {
        Self {
            method,
            path,
            headers,
            endpoint,
        }
    }
}

/// Decides who is calling (bearer tokens, OAuth), from the request headers.
pub trait Authenticator: Send + Sync + 'static {
    fn authenticate<'a>(
        &'a self,
        headers: &'a HeaderMap,
    ) -> AuthFuture<'a, Result<Option<Caller>, AuthRejection>>;
    /// Decide from the request's head: what the gate calls. The default looks at the headers
    /// only; an authenticator whose check binds to the method and URL (DPoP) overrides it.
    fn authenticate_request<'a>(
        &'a self,
        req: AuthRequest<'a>,
    ) -> AuthFuture<'a, Result<Option<Caller>, AuthRejection>> {
        self.authenticate(req.headers)
    }
    /// The RFC 9728 document served at this `/.well-known/oauth-protected-resource…` path, if any.
    fn protected_resource_metadata(&self, path: &str) -> Option<Value> {
        let _ = path;
        None
    }
    /// The `WWW-Authenticate` value of a 403 for a call that needs `required` scopes.
    fn insufficient_scope(&self, required: &[String]) -> String {
        BearerChallenge::insufficient_scope(required.iter().cloned())
            .error_description(INSUFFICIENT_SCOPE_DESCRIPTION)
            .to_string()
    }
    /// The same, for a caller that came with `Authorization: DPoP` (RFC 9449 §7.1: the refusal
    /// uses the scheme of the request). The default gives the Bearer one.
    fn insufficient_scope_dpop(&self, required: &[String]) -> String {
        self.insufficient_scope(required)
    }
    /// What the server shares with the authenticator when it starts guarding it: its state key
    /// (what the authenticator MACs for clients, DPoP nonces, must verify on every replica) and
    /// the replicas' shared store of used proof ids.
    fn attach(&self, shared: Shared<'_>) {
        let _ = shared;
    }
}

/// See [`Authenticator::attach`].
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct Shared<'a> {
    pub state_key: Option<&'a [u8]>,
    pub seen: Option<Arc<dyn SeenIds>>,
}

impl<'a> Shared<'a> {
    pub fn new(state_key: Option<&'a [u8]>, seen: Option<Arc<dyn SeenIds>>) -> Self {
        Self { state_key, seen }
    }
}

/// Ids used once, remembered by every replica together (Redis when the server scales out), so
/// a DPoP proof replayed to another replica is caught there too.
pub trait SeenIds: Send + Sync + 'static {
    /// Remember `id` for `keep`: `Ok(true)` the first time, `Ok(false)` when it is already
    /// there (a replay), `Err` when the store cannot answer (the caller falls back to its own
    /// memory).
    fn first_use<'a>(
        &'a self,
        id: [u8; 32],
        keep: Duration,
    ) -> AuthFuture<'a, Result<bool, String>>;
}

/// The `error_description` of a step-up refusal, in its challenge and its body: the TS SDK's
/// text. Which scopes are needed is in the challenge's `scope`, all of them (not only the
/// missing ones: a client asks for what the challenge names, and keeps the scopes it has by
/// asking for their union, as the TS and Python clients do).
pub const INSUFFICIENT_SCOPE_DESCRIPTION: &str = "Insufficient scope";

/// The RFC 6750 body of a step-up refusal (403 `insufficient_scope`), as the TS SDK sends it.
pub fn insufficient_scope_body() -> Value {
    json!({"error": "insufficient_scope", "error_description": INSUFFICIENT_SCOPE_DESCRIPTION})
}

/// The error a dispatch returns when the caller lacks scopes; the HTTP layer turns it into a
/// 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`.
pub fn insufficient_scope_error(name: &str, required: &[String]) -> McpError {
    McpError::new(INSUFFICIENT_SCOPE, format!("Insufficient scope for {name}"))
        .with_data(json!({"error": "insufficient_scope", "requiredScopes": required}))
        .with_status(403)
}

/// Why a token was refused (kept server-side: clients only see `invalid_token`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRejected(pub String);

impl std::fmt::Display for TokenRejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for TokenRejected {}

impl TokenRejected {
    /// The start of [`Self::no_identity`]'s text: a refusal a client may read in full, since it
    /// says only what the token lacks.
    const NO_IDENTITY: &'static str = "The access token names no caller";

    /// A valid token with none of the claims that name its caller. It is refused rather than
    /// given a shared anonymous name: callers with one name share tasks, sessions and limits.
    pub fn no_identity(claims: &[String]) -> Self {
        Self(format!(
            "{} (no {} claim)",
            Self::NO_IDENTITY,
            claims.join(", ")
        ))
    }

    /// The `error_description` a client gets: this text when it is safe to show, else the
    /// generic one (why a signature or a key failed stays in the server's log).
    fn public_description(&self) -> &str {
        if self.0.starts_with(Self::NO_IDENTITY) {
            &self.0
        } else {
            "The access token is invalid or expired"
        }
    }
}

/// Verifies tokens the built-in checks do not know (opaque tokens via RFC 7662 introspection,
/// a database of API keys, ...). `Ok(None)`: not mine, try the next; `Err`: refused.
pub trait TokenVerifier: Send + Sync + 'static {
    fn verify<'a>(
        &'a self,
        token: &'a str,
    ) -> AuthFuture<'a, Result<Option<Caller>, TokenRejected>>;
}

impl<F, Fut> TokenVerifier for F
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Option<Caller>, TokenRejected>> + Send + 'static,
{
    fn verify<'a>(
        &'a self,
        token: &'a str,
    ) -> AuthFuture<'a, Result<Option<Caller>, TokenRejected>> {
        Box::pin(self(token.to_string()))
    }
}

/// The built-in authenticator: named tokens, then JWTs, then the verifier hooks, in that order.
/// A request without a valid bearer token gets 401 and a `WWW-Authenticate: Bearer` challenge.
#[derive(Default)]
pub struct Auth {
    tokens: RwLock<NamedTokens>,
    #[cfg(feature = "auth-jwt")]
    jwt: Option<JwtValidator>,
    verifiers: Vec<Arc<dyn TokenVerifier>>,
    resource: Option<ProtectedResource>,
    allow: HashMap<String, Arc<Allow>>,
    realm: Option<String>,
    #[cfg(feature = "auth-jwt")]
    dpop: Option<Dpop>,
    required: Vec<String>,
    answers: Answers,
    metadata_url: Option<String>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Auth");
        d.field("resource", &self.resource);
        #[cfg(feature = "auth-jwt")]
        d.field("jwt", &self.jwt);
        d.finish_non_exhaustive()
    }
}

impl Auth {
    pub fn new() -> Self {
        Self::default()
    }
    /// Named bearer tokens.
    pub fn tokens(mut self, t: NamedTokens) -> Self {
        self.tokens = RwLock::new(t);
        self
    }
    /// Swap the token table while serving (rotation without a restart).
    pub fn replace_tokens(&self, t: NamedTokens) {
        *self.tokens.write().unwrap_or_else(|e| e.into_inner()) = t;
    }
    /// JWT access tokens.
    #[cfg(feature = "auth-jwt")]
    pub fn jwt(mut self, v: JwtValidator) -> Self {
        self.jwt = Some(v);
        self
    }
    /// An extra verifier (opaque tokens).
    pub fn verifier(mut self, v: impl TokenVerifier) -> Self {
        self.verifiers.push(Arc::new(v));
        self
    }
    /// Scopes every request must hold (the `mcp` SDK's `AuthSettings.required_scopes`): a
    /// caller without them is answered 403 `insufficient_scope` before anything is served.
    pub fn required_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.required = scopes.into_iter().map(Into::into).collect();
        self
    }
    /// The metadata URL challenges name, when it is not the one [`Auth::resource`] makes (the
    /// TS SDK's `resourceMetadataUrl`).
    pub fn resource_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_url = Some(url.into());
        self
    }
    fn metadata_url(&self) -> Option<String> {
        let derived = || self.resource.as_ref().map(ProtectedResource::metadata_url);
        self.metadata_url.clone().or_else(derived)
    }
    /// How 401 and 403 answers are worded (see [`Answers`]).
    pub fn answers(mut self, a: Answers) -> Self {
        self.answers = a;
        self
    }
    /// Act as an OAuth protected resource: serve RFC 9728 metadata and point 401s at it.
    pub fn resource(mut self, r: ProtectedResource) -> Self {
        self.resource = Some(r);
        self
    }
    /// Allow-list for a caller that comes from a JWT or a verifier (named tokens carry theirs).
    pub fn allow(mut self, caller: impl Into<String>, a: Allow) -> Self {
        self.allow.insert(caller.into(), Arc::new(a));
        self
    }
    /// `realm` in challenges (RFC 6750); off by default.
    pub fn realm(mut self, r: impl Into<String>) -> Self {
        self.realm = Some(r.into());
        self
    }
    /// DPoP-bound access tokens (RFC 9449): how `Authorization: DPoP` is taken.
    #[cfg(feature = "auth-jwt")]
    pub fn dpop(mut self, d: Dpop) -> Self {
        self.dpop = Some(d);
        self
    }
    fn dpop_mode(&self) -> DpopModeOf {
        #[cfg(feature = "auth-jwt")]
        if let Some(d) = &self.dpop {
            return match d.mode {
                DpopMode::Off => DpopModeOf::Off,
                DpopMode::Allowed => DpopModeOf::Allowed,
                DpopMode::Required => DpopModeOf::Required,
            };
        }
        DpopModeOf::Off
    }
    pub fn protected_resource(&self) -> Option<&ProtectedResource> {
        self.resource.as_ref()
    }

    /// Named tokens from `OXMCP_TOKENS` / `OXMCP_TOKENS_FILE`, a JWKS from `OXMCP_JWKS_URL`
    /// (with `OXMCP_JWT_ISSUER`, `OXMCP_RESOURCE`, `OXMCP_AUTH_SERVERS`, `OXMCP_SCOPES`).
    /// `Ok(None)` when none is set (auth off).
    pub fn from_env() -> Result<Option<Self>, String> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let list = |k: &str| {
            var(k).map(|v| {
                v.split([',', ' '])
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
        };
        let mut auth = Auth::new();
        let mut on = false;
        if let Some(t) = NamedTokens::from_env("OXMCP_TOKENS").map_err(|e| e.to_string())? {
            auth = auth.tokens(t);
            on = true;
        }
        if let Some(resource) = var("OXMCP_RESOURCE") {
            let servers = list("OXMCP_AUTH_SERVERS")
                .or_else(|| var("OXMCP_JWT_ISSUER").map(|i| vec![i]))
                .unwrap_or_default();
            auth = auth.resource(
                ProtectedResource::new(resource, servers)
                    .scopes(list("OXMCP_SCOPES").unwrap_or_default()),
            );
        }
        #[cfg(not(feature = "auth-jwt"))]
        if var("OXMCP_JWKS_URL").is_some() {
            return Err(
                "OXMCP_JWKS_URL is set but oxmcp was built without the `auth-jwt` feature".into(),
            );
        }
        #[cfg(feature = "auth-jwt")]
        if let Some(url) = var("OXMCP_JWKS_URL") {
            let issuer = var("OXMCP_JWT_ISSUER").ok_or("OXMCP_JWKS_URL needs OXMCP_JWT_ISSUER")?;
            let audience = var("OXMCP_JWT_AUDIENCE")
                .or_else(|| auth.resource.as_ref().map(|r| r.resource.clone()))
                .ok_or("OXMCP_JWKS_URL needs OXMCP_RESOURCE or OXMCP_JWT_AUDIENCE")?;
            auth = auth.jwt(JwtValidator::with_jwks_url(issuer, audience, url));
            on = true;
        }
        Ok(on.then_some(auth))
    }

    /// Check a bearer token; `Err` carries the reason (logged, never sent).
    pub async fn check(&self, token: &str) -> Result<Caller, TokenRejected> {
        let named = self
            .tokens
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .lookup(token);
        let mut caller = match named {
            Some(c) => c,
            None => self.check_other(token).await?,
        };
        if caller.allow.is_none() {
            caller.allow = self.allow.get(&caller.name).cloned();
        }
        Ok(caller)
    }

    async fn check_other(&self, token: &str) -> Result<Caller, TokenRejected> {
        #[allow(unused_mut)]
        let mut why = TokenRejected("unknown token".into());
        #[cfg(feature = "auth-jwt")]
        if let Some(j) = &self.jwt {
            if token.bytes().filter(|&b| b == b'.').count() == 2 {
                match j.validate(token).await {
                    Ok(c) => return Ok(c),
                    Err(e) if self.verifiers.is_empty() => return Err(e),
                    Err(e) => why = e,
                }
            }
        }
        for v in &self.verifiers {
            match v.verify(token).await {
                Ok(Some(c)) => return Ok(c),
                Ok(None) => {}
                Err(e) => return Err(e),
            }
        }
        Err(why)
    }

    /// The challenge for a 401 (`error` is `None` when no token was sent).
    pub fn challenge(&self, error: Option<&str>) -> BearerChallenge {
        let mut c = BearerChallenge::new();
        if let Some(r) = &self.realm {
            c = c.realm(r);
        }
        if let Some(e) = error {
            c = c.error(e);
        }
        if let Some(r) = &self.resource {
            c = c
                .resource_metadata(r.metadata_url())
                .scope(r.scopes_supported.iter().cloned());
        }
        c
    }

    /// The 403 challenge for a call that needs `required` scopes.
    fn step_up(&self, required: &[String]) -> BearerChallenge {
        let mut c = BearerChallenge::insufficient_scope(required.iter().cloned())
            .error_description(INSUFFICIENT_SCOPE_DESCRIPTION);
        if let Some(u) = self.metadata_url() {
            c = c.resource_metadata(u);
        }
        c
    }

    /// The 401 for a request that sent `scheme` (`None`: no credentials): the challenge of each
    /// scheme taken, `error` on the one the client used.
    fn unauthorized(
        &self,
        scheme: Option<Scheme>,
        error: Option<&str>,
        description: &str,
    ) -> AuthRejection {
        match self.answers {
            Answers::McpPython => {
                return self.sdk_refusal(401, "invalid_token", "Authentication required", false)
            }
            Answers::McpTs => {
                return self.sdk_refusal(401, "invalid_token", ts_text(description), true)
            }
            Answers::Oxmcp => {}
        }
        let on = |s: Scheme| if scheme == Some(s) { error } else { None };
        let mode = self.dpop_mode();
        let mut challenges = Vec::with_capacity(2);
        if mode != DpopModeOf::Required {
            // Bearer is refused outright under `required`; its error then goes on the DPoP one.
            challenges.push(self.challenge(on(Scheme::Bearer)).to_string());
        }
        #[cfg(feature = "auth-jwt")]
        if mode != DpopModeOf::Off {
            let e = match mode {
                DpopModeOf::Required => error,
                _ => on(Scheme::Dpop),
            };
            challenges.push(self.challenge(e).dpop(Dpop::algs()).to_string());
            if scheme == Some(Scheme::Dpop) {
                // The challenge of the scheme the client used (and its error) comes first.
                challenges.reverse();
            }
        }
        let mut r = AuthRejection::unauthorized(
            challenges.remove(0),
            error.unwrap_or("unauthorized"),
            description,
        );
        r.more_challenges = challenges;
        r
    }

    /// Decide a request from its head; `req` is `None` when only the headers are known (then a
    /// DPoP proof cannot be checked, and `Authorization: DPoP` is refused).
    async fn decide(
        &self,
        headers: &HeaderMap,
        req: Option<AuthRequest<'_>>,
    ) -> Result<Option<Caller>, AuthRejection> {
        let refuse = |scheme, error: &str, why: &str, public: &str| {
            tracing::info!(target: "oxmcp::audit", outcome = "unauthorized", reason = %why, "auth");
            // The TS SDK's wording says what was wrong: it is chosen from the core's reason.
            let public = if self.answers == Answers::McpTs {
                why
            } else {
                public
            };
            self.unauthorized(scheme, Some(error), public)
        };
        let (scheme, token) = match credentials(headers) {
            Ok(Some(c)) => c,
            Ok(None) => {
                tracing::info!(target: "oxmcp::audit", outcome = "unauthorized", reason = "no bearer token", "auth");
                return Err(self.unauthorized(None, None, "Missing bearer token"));
            }
            Err(MalformedAuthorization) => {
                let why = "Malformed Authorization header";
                return Err(refuse(None, "invalid_token", why, why));
            }
        };
        let mode = self.dpop_mode();
        if scheme == Scheme::Dpop {
            #[cfg(feature = "auth-jwt")]
            if let (Some(d), Some(req)) = (self.dpop.as_ref(), req) {
                if mode != DpopModeOf::Off {
                    let caller = self.dpop_check(d, req, token).await?;
                    return self.endpoint_scopes(caller);
                }
            }
            let _ = req;
            tracing::info!(target: "oxmcp::audit", outcome = "unauthorized", reason = "DPoP scheme not taken", "auth");
            return Err(self.unauthorized(None, None, "Missing bearer token"));
        }
        if mode == DpopModeOf::Required {
            let why = "A DPoP-bound access token with a DPoP proof is required";
            return Err(refuse(Some(scheme), "invalid_token", why, why));
        }
        let caller = match self.check(token).await {
            Ok(c) => c,
            Err(e) => {
                return Err(refuse(
                    Some(scheme),
                    "invalid_token",
                    &e.0,
                    e.public_description(),
                ))
            }
        };
        if bound_key(&caller).is_some() {
            // The token's issuer bound it to a key: taken as Bearer, anyone holding a copy of
            // it could use it.
            let why = "The access token is bound to a DPoP key; send it with a DPoP proof";
            return Err(refuse(Some(scheme), "invalid_token", why, why));
        }
        self.endpoint_scopes(caller)
    }

    /// `Authorization: DPoP <token>` with its proof (RFC 9449 §7.1).
    #[cfg(feature = "auth-jwt")]
    async fn dpop_check(
        &self,
        d: &Dpop,
        req: AuthRequest<'_>,
        token: &str,
    ) -> Result<Caller, AuthRejection> {
        let proof_error = |why: &str| {
            tracing::info!(target: "oxmcp::audit", outcome = "unauthorized", reason = %why, "auth");
            self.unauthorized(Some(Scheme::Dpop), Some("invalid_dpop_proof"), why)
        };
        let token_error = |why: &str, public: &str| {
            tracing::info!(target: "oxmcp::audit", outcome = "unauthorized", reason = %why, "auth");
            self.unauthorized(Some(Scheme::Dpop), Some("invalid_token"), public)
        };
        let mut proofs = req.headers.get_all("dpop").iter();
        let proof = match (proofs.next().map(|v| v.to_str()), proofs.next()) {
            (Some(Ok(p)), None) => p.trim(),
            (None, _) => return Err(proof_error("The request has no DPoP proof")),
            _ => return Err(proof_error("Send exactly one DPoP proof")),
        };
        let host = req.headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let resource = self.resource.as_ref().map(|r| r.resource.as_str());
        let urls = dpop::expected_urls(resource, req.path, req.endpoint, host);
        let p = match d.check(proof, req.method, &urls, token) {
            Ok(p) => p,
            Err(dpop::ProofError::Invalid(why)) => return Err(proof_error(why)),
            Err(dpop::ProofError::Nonce) => {
                let why = "Resource server requires nonce in DPoP proof";
                tracing::info!(target: "oxmcp::audit", outcome = "unauthorized", reason = why, "auth");
                let mut r = self.unauthorized(Some(Scheme::Dpop), Some("use_dpop_nonce"), why);
                r.dpop_nonce = d.issue_nonce();
                return Err(r);
            }
        };
        let caller = self
            .check(token)
            .await
            .map_err(|e| token_error(&e.0, e.public_description()))?;
        match bound_key(&caller) {
            Some(jkt) if jkt == p.jkt => {}
            Some(_) => {
                let why = "The access token is bound to another key than the DPoP proof's";
                return Err(token_error(why, why));
            }
            None => {
                let why = "The access token is not bound to a DPoP key";
                return Err(token_error(why, why));
            }
        }
        d.record(&p).await.map_err(proof_error)?;
        Ok(caller)
    }
}

/// Whether the request came with `Authorization: DPoP …`.
pub fn sent_dpop(headers: &HeaderMap) -> bool {
    matches!(credentials(headers), Ok(Some((Scheme::Dpop, _))))
}

/// An `Authorization` scheme taken here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    Bearer,
    Dpop,
}

/// [`DpopMode`], whether or not the `auth-jwt` feature (and so DPoP) is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DpopModeOf {
    Off,
    #[cfg_attr(not(feature = "auth-jwt"), allow(dead_code))]
    Allowed,
    #[cfg_attr(not(feature = "auth-jwt"), allow(dead_code))]
    Required,
}

/// The key thumbprint a token is bound to (`cnf.jkt`, RFC 9449 §6.1), if any.
fn bound_key(c: &Caller) -> Option<&str> {
    c.claims.as_ref()?.get("cnf")?.get("jkt")?.as_str()
}

impl Authenticator for Auth {
    fn authenticate<'a>(
        &'a self,
        headers: &'a HeaderMap,
    ) -> AuthFuture<'a, Result<Option<Caller>, AuthRejection>> {
        Box::pin(self.decide(headers, None))
    }

    fn authenticate_request<'a>(
        &'a self,
        req: AuthRequest<'a>,
    ) -> AuthFuture<'a, Result<Option<Caller>, AuthRejection>> {
        Box::pin(self.decide(req.headers, Some(req)))
    }

    fn protected_resource_metadata(&self, path: &str) -> Option<Value> {
        let r = self.resource.as_ref()?;
        let doc = r
            .well_known_paths()
            .iter()
            .any(|p| p == path)
            .then(|| r.document())?;
        #[cfg(feature = "auth-jwt")]
        let mut doc = doc;
        #[cfg(feature = "auth-jwt")]
        if let (Some(d), Value::Object(m)) = (&self.dpop, &mut doc) {
            if d.mode != DpopMode::Off {
                d.metadata(m);
            }
        }
        Some(doc)
    }

    fn attach(&self, shared: Shared<'_>) {
        #[cfg(feature = "auth-jwt")]
        if let Some(d) = &self.dpop {
            if let Some(k) = shared.state_key {
                d.share_key(k);
            }
            if let Some(seen) = shared.seen {
                d.share_seen(seen);
            }
        }
        let _ = shared;
    }

    fn insufficient_scope(&self, required: &[String]) -> String {
        self.step_up(required).to_string()
    }

    fn insufficient_scope_dpop(&self, required: &[String]) -> String {
        #[cfg(feature = "auth-jwt")]
        if self.dpop_mode() != DpopModeOf::Off {
            return self.step_up(required).dpop(Dpop::algs()).to_string();
        }
        self.step_up(required).to_string()
    }
}
