//! JWT access tokens (RFC 9068 style) validated against a JWKS: signature, `iss`, `aud` (this
//! resource, RFC 8707), `exp` and `nbf` with a small clock skew.

use super::jwks::{parse_jwks, HttpJwksFetcher, Jwks, JwksFetcher, Source};
use super::TokenRejected;
use crate::identity::Caller;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Settings for JWT validation.
pub struct JwtValidator {
    issuers: Vec<String>,
    audiences: Vec<String>,
    leeway: Duration,
    algorithms: Vec<Algorithm>,
    jwks: Jwks,
    name_claims: Vec<String>,
}

impl std::fmt::Debug for JwtValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtValidator")
            .field("issuers", &self.issuers)
            .field("audiences", &self.audiences)
            .finish()
    }
}

/// Asymmetric algorithms only: a JWKS is public, so an HMAC "key" from it would let anyone mint
/// tokens (the classic alg-confusion attack).
const ASYMMETRIC: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

impl JwtValidator {
    /// The default [`JwtValidator::max_stale`]: keys fetched more than an hour ago are dropped
    /// when the JWKS cannot be refetched.
    pub const DEFAULT_MAX_STALE: Duration = Duration::from_secs(3600);

    fn with_source(issuer: impl Into<String>, audience: impl Into<String>, source: Source) -> Self {
        Self {
            issuers: vec![issuer.into()],
            audiences: vec![super::metadata::canonical_resource(&audience.into())],
            leeway: Duration::from_secs(30),
            algorithms: ASYMMETRIC.to_vec(),
            jwks: Jwks {
                source,
                max_age: Duration::from_secs(300),
                min_refresh: Duration::from_secs(10),
                max_stale: Self::DEFAULT_MAX_STALE,
            },
            name_claims: vec!["sub".into(), "client_id".into(), "azp".into()],
        }
    }
    /// Keys given inline (a JWKS document `{"keys": [...]}`).
    pub fn with_jwks(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        jwks: &Value,
    ) -> Result<Self, TokenRejected> {
        let keys = parse_jwks(jwks).map_err(TokenRejected)?;
        if keys.is_empty() {
            return Err(TokenRejected("the JWKS has no usable signing key".into()));
        }
        Ok(Self::with_source(issuer, audience, Source::Inline(keys)))
    }
    /// Keys fetched from `url` (plain HTTP with the built-in fetcher; see [`Self::fetcher`]).
    pub fn with_jwks_url(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        url: impl Into<String>,
    ) -> Self {
        let url = url.into();
        if super::jwks::plain_http_off_loopback(&url) {
            tracing::warn!(url = %url, "the JWKS URL is plain http:// to a non-loopback host: anyone on the path can swap the keys and mint tokens; use https:// (cargo feature `tls`, or a JwksFetcher)");
        }
        Self::with_source(
            issuer,
            audience,
            Source::Url {
                url,
                fetcher: Arc::new(HttpJwksFetcher),
                cache: Mutex::default(),
                refresh: tokio::sync::Mutex::new(()),
            },
        )
    }
    /// Replace the JWKS fetcher (https, proxies, custom trust).
    pub fn fetcher(mut self, f: Arc<dyn JwksFetcher>) -> Self {
        if let Source::Url { fetcher, .. } = &mut self.jwks.source {
            *fetcher = f;
        }
        self
    }
    /// Also accept these issuers.
    pub fn issuers<S: Into<String>>(mut self, more: impl IntoIterator<Item = S>) -> Self {
        self.issuers.extend(more.into_iter().map(Into::into));
        self
    }
    /// Also accept these audiences (e.g. the resource URI with and without a port).
    pub fn audiences<S: Into<String>>(mut self, more: impl IntoIterator<Item = S>) -> Self {
        self.audiences.extend(more.into_iter().map(Into::into));
        self
    }
    /// Clock skew allowed on `exp`/`nbf` (default 30 s).
    pub fn leeway(mut self, d: Duration) -> Self {
        self.leeway = d;
        self
    }
    /// Restrict the accepted algorithms (asymmetric ones only are ever accepted).
    pub fn algorithms(mut self, algs: &[Algorithm]) -> Self {
        self.algorithms = algs
            .iter()
            .copied()
            .filter(|a| ASYMMETRIC.contains(a))
            .collect();
        self
    }
    /// How long fetched keys are trusted before a refetch (default 5 min), and the least time
    /// between two fetches triggered by unknown `kid`s (default 10 s; bounds the fetches a
    /// stream of junk tokens can cause).
    pub fn cache(mut self, max_age: Duration, min_refresh: Duration) -> Self {
        self.jwks.max_age = max_age;
        self.jwks.min_refresh = min_refresh;
        self
    }
    /// How long fetched keys stay usable after the last good fetch while refetching fails
    /// (default [`Self::DEFAULT_MAX_STALE`], 1 hour); after it no token verifies until a fetch succeeds.
    pub fn max_stale(mut self, d: Duration) -> Self {
        self.jwks.max_stale = d;
        self
    }
    /// Claims tried, in order, for the caller's name (default `sub`, then `client_id` and `azp`,
    /// which name the client of a client-credentials token). A token with none is refused (401).
    pub fn name_claims<S: Into<String>>(mut self, claims: impl IntoIterator<Item = S>) -> Self {
        self.name_claims = claims.into_iter().map(Into::into).collect();
        self
    }

    /// Validate a token and describe its caller.
    pub async fn validate(&self, token: &str) -> Result<Caller, TokenRejected> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| TokenRejected(format!("malformed JWT: {e}")))?;
        if let Some(kind) = header.typ.as_deref().and_then(not_an_access_token) {
            return Err(TokenRejected(format!("{kind} is not an access token")));
        }
        if !self.algorithms.contains(&header.alg) {
            return Err(TokenRejected(format!(
                "algorithm {:?} not accepted",
                header.alg
            )));
        }
        let keys = self.jwks.keys_for(header.kid.as_deref()).await;
        if keys.is_empty() {
            return Err(TokenRejected("no key for this token's kid".into()));
        }
        let mut v = Validation::new(header.alg);
        v.leeway = self.leeway.as_secs();
        v.validate_nbf = true;
        v.set_issuer(&self.issuers);
        v.set_audience(&self.audiences);
        v.set_required_spec_claims(&["exp", "iss", "aud"]);
        let mut last = TokenRejected("no key verified the signature".into());
        for k in keys
            .iter()
            .filter(|k| k.alg.is_none_or(|a| a == header.alg))
        {
            match jsonwebtoken::decode::<Value>(token, &k.key, &v) {
                Ok(data) => return self.caller(data.claims),
                Err(e) => {
                    use jsonwebtoken::errors::ErrorKind as K;
                    let fatal = !matches!(
                        e.kind(),
                        K::InvalidSignature | K::InvalidAlgorithm | K::InvalidKeyFormat
                    );
                    last = TokenRejected(e.to_string());
                    if fatal {
                        break;
                    }
                }
            }
        }
        Err(last)
    }

    fn caller(&self, claims: Value) -> Result<Caller, TokenRejected> {
        let name = self
            .name_claims
            .iter()
            .find_map(|c| {
                claims
                    .get(c)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
            })
            .ok_or_else(|| TokenRejected::no_identity(&self.name_claims))?
            .to_string();
        let scopes = scopes_of(&claims);
        Ok(Caller::new(name).with_scopes(scopes).with_claims(claims))
    }
}

/// What a JWT of this `typ` is, when it is a kind that must never be taken as an access token
/// although the same issuer may sign it for this audience: an ID-JAG (the enterprise-managed
/// authorization grant, exchanged at the authorization server's token endpoint for an access
/// token, never sent to the resource) or a DPoP proof. Media types compare without case and
/// with or without `application/` (RFC 7515 §4.1.9).
fn not_an_access_token(typ: &str) -> Option<&'static str> {
    let t = typ.to_ascii_lowercase();
    match t.strip_prefix("application/").unwrap_or(&t) {
        "oauth-id-jag+jwt" => Some("an identity assertion grant (ID-JAG)"),
        "dpop+jwt" => Some("a DPoP proof"),
        _ => None,
    }
}

/// Scopes from `scope` (space-separated, RFC 8693/9068) or `scp` (string or array).
fn scopes_of(claims: &Value) -> Vec<String> {
    let split = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(s)), _) => split(s),
        (_, Some(Value::String(s))) => split(s),
        (_, Some(Value::Array(a))) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}
