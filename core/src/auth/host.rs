//! A token verifier of the host application's (the `mcp` SDK's `TokenVerifier.verify_token`, the
//! TS SDK's `OAuthTokenVerifier.verifyAccessToken`), asked by the core as it asks its own JWT
//! check: what does this token grant? The answer is a [`Grant`]; the core then applies its own
//! rules to it (expiry, the resource it was issued for, the caller's name), so a verifier is
//! trusted for what it says about the token and for nothing more.

use super::{canonical_resource, AuthFuture, TokenRejected, TokenVerifier};
use crate::identity::Caller;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// Why a grant is refused (kept server-side; [`super::Answers::McpTs`] words each as the TS SDK).
pub(crate) const EXPIRED: &str = "the access token has expired";
pub(crate) const NO_EXPIRY: &str = "the access token has no expiry";
pub(crate) const OTHER_RESOURCE: &str = "the access token was issued for another resource";
pub(crate) const NO_RESOURCE: &str = "the access token names no resource";

/// The host's verifier, as a binding hands it to the core.
pub trait HostVerifier: Send + Sync + 'static {
    /// The token's [`Grant`] as JSON, `Ok(None)` when the verifier does not know the token,
    /// `Err` (why, for the server's log) when it failed.
    fn verify<'a>(&'a self, token: &'a str) -> AuthFuture<'a, Result<Option<Value>, String>>;
}

/// What a verifier says a token grants: the SDKs' `AccessToken` / `AuthInfo` in one spelling.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Grant {
    /// The OAuth client the token was issued to.
    pub client_id: String,
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Seconds since the epoch.
    pub expires_at: Option<f64>,
    /// The resource the token was issued for (RFC 8707).
    pub resource: Option<String>,
    /// The resource owner (`sub`).
    pub subject: Option<String>,
    /// Further claims (`iss`, ...).
    pub claims: Option<Map<String, Value>>,
}

/// A [`HostVerifier`] under the core's rules: the [`TokenVerifier`] the authenticator asks.
#[derive(Clone)]
pub struct HostTokens {
    host: Arc<dyn HostVerifier>,
    resource: Option<String>,
    resource_required: bool,
    expiry_required: bool,
}

impl std::fmt::Debug for HostTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostTokens")
            .field("resource", &self.resource)
            .field("resource_required", &self.resource_required)
            .field("expiry_required", &self.expiry_required)
            .finish_non_exhaustive()
    }
}

impl HostTokens {
    pub fn new(host: Arc<dyn HostVerifier>) -> Self {
        Self {
            host,
            resource: None,
            resource_required: false,
            expiry_required: false,
        }
    }
    /// This server's resource: a grant for another resource is refused; with `required`, a
    /// grant that names no resource is refused too.
    pub fn resource(mut self, resource: impl Into<String>, required: bool) -> Self {
        self.resource = Some(canonical_resource(&resource.into()));
        self.resource_required = required;
        self
    }
    /// Refuse a grant without `expires_at` (the TS SDK's rule).
    pub fn expiry_required(mut self, on: bool) -> Self {
        self.expiry_required = on;
        self
    }

    /// The caller a grant makes, or why it is refused.
    pub fn caller(&self, grant: Grant, now: f64) -> Result<Caller, TokenRejected> {
        let refuse = |why: &str| Err(TokenRejected(why.into()));
        if grant.client_id.is_empty() {
            return refuse("the token verifier's grant names no client");
        }
        match grant.expires_at {
            Some(t) if !t.is_finite() || t < now => return refuse(EXPIRED),
            None if self.expiry_required => return refuse(NO_EXPIRY),
            _ => {}
        }
        if let Some(ours) = &self.resource {
            match grant.resource.as_deref().map(canonical_resource) {
                Some(r) if &r != ours => return refuse(OTHER_RESOURCE),
                None if self.resource_required => return refuse(NO_RESOURCE),
                _ => {}
            }
        }
        let mut claims = grant.claims.unwrap_or_default();
        claims.insert("client_id".into(), Value::String(grant.client_id.clone()));
        if let Some(s) = &grant.subject {
            claims.insert("sub".into(), Value::String(s.clone()));
        }
        if let Some(t) = grant.expires_at {
            claims.insert("exp".into(), serde_json::json!(t as i64));
        }
        if let Some(r) = &grant.resource {
            claims.insert("aud".into(), Value::String(r.clone()));
        }
        // The principal is the client and the resource owner: two owners of one client's
        // tokens are two callers (sessions, tasks and limits are per caller).
        let name = match &grant.subject {
            Some(s) => format!("{}:{}", pct(&grant.client_id), pct(s)),
            None => pct(&grant.client_id),
        };
        Ok(Caller::new(name)
            .with_scopes(grant.scopes)
            .with_claims(Value::Object(claims)))
    }
}

/// Percent-encode all but RFC 3986's unreserved characters (so `:` separates two parts).
fn pct(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl TokenVerifier for HostTokens {
    fn verify<'a>(
        &'a self,
        token: &'a str,
    ) -> AuthFuture<'a, Result<Option<Caller>, TokenRejected>> {
        Box::pin(async move {
            let answer = self
                .host
                .verify(token)
                .await
                .map_err(|e| TokenRejected(format!("the token verifier failed: {e}")))?;
            let Some(v) = answer.filter(|v| !v.is_null()) else {
                return Err(TokenRejected(
                    "the token verifier does not know the token".into(),
                ));
            };
            let grant: Grant = serde_json::from_value(v).map_err(|e| {
                TokenRejected(format!(
                    "the token verifier answered an unusable grant: {e}"
                ))
            })?;
            self.caller(grant, now()).map(Some)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Option<Value>);
    impl HostVerifier for Fixed {
        fn verify<'a>(&'a self, _: &'a str) -> AuthFuture<'a, Result<Option<Value>, String>> {
            let v = self.0.clone();
            Box::pin(async move { Ok(v) })
        }
    }

    fn grant(v: Value) -> Grant {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn rules_on_a_grant() {
        let t = HostTokens::new(Arc::new(Fixed(None))).resource("https://A.example/mcp/", true);
        let ok = grant(
            serde_json::json!({"client_id": "c", "scopes": ["s"], "subject": "u 1",
            "expires_at": 200.0, "resource": "https://a.example/mcp", "claims": {"iss": "i"}}),
        );
        let c = t.caller(ok.clone(), 100.0).unwrap();
        assert_eq!(c.name, "c:u%201");
        assert_eq!(c.scopes, ["s"]);
        assert_eq!(c.key(), "i c:u%201");
        assert_eq!(c.claims.as_ref().unwrap()["client_id"], "c");
        assert!(t.caller(ok.clone(), 300.0).is_err(), "expired");
        let mut other = ok.clone();
        other.resource = Some("https://b.example/mcp".into());
        assert!(t.caller(other, 100.0).is_err(), "another resource");
        let mut none = ok.clone();
        none.resource = None;
        assert!(
            t.caller(none.clone(), 100.0).is_err(),
            "no resource, required"
        );
        let lax = HostTokens::new(Arc::new(Fixed(None))).resource("https://a.example/mcp", false);
        assert!(lax.caller(none, 100.0).is_ok());
        let mut forever = ok;
        forever.expires_at = None;
        assert!(t.caller(forever.clone(), 1e12).is_ok());
        assert!(t
            .clone()
            .expiry_required(true)
            .caller(forever, 1.0)
            .is_err());
    }

    #[tokio::test]
    async fn unknown_and_unusable_answers_are_refused() {
        let none = HostTokens::new(Arc::new(Fixed(None)));
        assert!(none.verify("t").await.is_err());
        let bad = HostTokens::new(Arc::new(Fixed(Some(serde_json::json!({"scopes": []})))));
        assert!(bad.verify("t").await.is_err());
    }
}
