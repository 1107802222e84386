//! How the authenticator words its 401 and 403 answers ([`Answers`]), and the scopes every
//! request needs ([`Auth::required_scopes`]).

use super::{host, Auth, AuthRejection, BearerChallenge, INSUFFICIENT_SCOPE_DESCRIPTION};
use crate::auth::missing_scopes;
use crate::identity::Caller;

/// How the authenticator words its 401 and 403 answers; what it decides is the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Answers {
    /// RFC 6750 / RFC 9728 challenges naming the scopes to ask for (the TS SDK's step-up).
    #[default]
    Oxmcp,
    /// The `mcp` Python SDK's: every 401 `invalid_token` "Authentication required", a 403
    /// "Required scope: `<the first missing>`", each challenge pointing at the metadata.
    McpPython,
    /// The TS SDK's `requireBearerAuth`: `invalid_token` with a description of what was wrong
    /// ("Missing Authorization header", "Token has expired", ...), the required scopes and the
    /// metadata URL in every challenge; a 403 "Insufficient scope".
    McpTs,
}

/// The TS SDK's description of a refusal (`why` is the core's reason).
pub(super) fn ts_text(why: &str) -> &'static str {
    match why {
        "Missing bearer token" => "Missing Authorization header",
        "Malformed Authorization header" => {
            "Invalid Authorization header format, expected 'Bearer TOKEN'"
        }
        host::EXPIRED => "Token has expired",
        host::NO_EXPIRY => "Token has no expiration time",
        host::OTHER_RESOURCE | host::NO_RESOURCE => "Token was not issued for this resource",
        _ => "Invalid token",
    }
}

impl std::str::FromStr for Answers {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "oxmcp" => Ok(Self::Oxmcp),
            "mcp-python" => Ok(Self::McpPython),
            "mcp-ts" => Ok(Self::McpTs),
            _ => Err(format!(
                "expected \"oxmcp\", \"mcp-python\" or \"mcp-ts\", got {s:?}"
            )),
        }
    }
}

impl Auth {
    /// A refusal worded as an SDK's middleware words it (`scope`: the TS SDK's, naming the
    /// required scopes; the Python SDK's `RequireAuthMiddleware` names none).
    pub(super) fn sdk_refusal(
        &self,
        status: u16,
        error: &str,
        description: &str,
        scope: bool,
    ) -> AuthRejection {
        let mut c = BearerChallenge::new()
            .error(error)
            .error_description(description)
            .description_first();
        if scope {
            c = c.scope(self.required.iter().cloned());
        }
        if let Some(u) = self.metadata_url() {
            c = c.resource_metadata(u);
        }
        let mut r = AuthRejection::unauthorized(c.to_string(), error, description);
        r.status = status;
        r
    }

    /// The scopes every request needs ([`Auth::required_scopes`]): 403 when `caller` lacks one.
    #[allow(clippy::result_large_err)] // the refusal is the authenticator's answer, as `decide`'s
    pub(super) fn endpoint_scopes(&self, caller: Caller) -> Result<Option<Caller>, AuthRejection> {
        let missing = missing_scopes(&caller.scopes, &self.required);
        let Some(first) = missing.first() else {
            return Ok(Some(caller));
        };
        tracing::info!(target: "oxmcp::audit", outcome = "forbidden", reason = "insufficient scope", caller = %caller.name, "auth");
        match self.answers {
            Answers::McpPython => {
                let why = format!("Required scope: {first}");
                return Err(self.sdk_refusal(403, "insufficient_scope", &why, false));
            }
            Answers::McpTs => {
                let why = INSUFFICIENT_SCOPE_DESCRIPTION;
                return Err(self.sdk_refusal(403, "insufficient_scope", why, true));
            }
            Answers::Oxmcp => {}
        }
        let mut r = AuthRejection::forbidden("insufficient_scope", INSUFFICIENT_SCOPE_DESCRIPTION);
        r.challenge = Some(self.step_up(&self.required).to_string());
        Err(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{AuthFuture, Authenticator, HostTokens, HostVerifier, ProtectedResource};
    use http::HeaderMap;
    use serde_json::{json, Value};
    use std::sync::Arc;

    /// Knows `good` (scope `a`) and `bare` (no scope).
    struct Known;
    impl HostVerifier for Known {
        fn verify<'a>(&'a self, token: &'a str) -> AuthFuture<'a, Result<Option<Value>, String>> {
            let scopes = match token {
                "good" => json!(["a"]),
                "bare" => json!([]),
                _ => return Box::pin(async { Ok(None) }),
            };
            Box::pin(async move { Ok(Some(json!({"client_id": "c", "scopes": scopes}))) })
        }
    }

    fn auth(answers: Answers) -> Auth {
        let r = ProtectedResource::new("https://m.example/mcp", ["https://as.example/"]);
        Auth::new()
            .resource(r)
            .required_scopes(["a"])
            .answers(answers)
            .verifier(HostTokens::new(Arc::new(Known)))
    }

    async fn decide(a: &Auth, token: Option<&str>) -> Result<Option<Caller>, AuthRejection> {
        let mut h = HeaderMap::new();
        if let Some(t) = token {
            h.insert("authorization", format!("Bearer {t}").parse().unwrap());
        }
        a.authenticate(&h).await
    }

    const RM: &str = "https://m.example/.well-known/oauth-protected-resource/mcp";

    #[tokio::test]
    async fn each_sdk_wording() {
        let py = auth(Answers::McpPython);
        assert_eq!(
            decide(&py, Some("good")).await.unwrap().unwrap().scopes,
            ["a"]
        );
        for t in [None, Some("nope")] {
            let r = decide(&py, t).await.unwrap_err();
            assert_eq!(
                (r.status, r.description.as_str()),
                (401, "Authentication required")
            );
            let want = format!("Bearer error=\"invalid_token\", error_description=\"Authentication required\", resource_metadata=\"{RM}\"");
            assert_eq!(r.challenge.as_deref(), Some(want.as_str()));
        }
        let r = decide(&py, Some("bare")).await.unwrap_err();
        assert_eq!(
            (r.status, r.description.as_str()),
            (403, "Required scope: a")
        );
        let ts = auth(Answers::McpTs);
        let r = decide(&ts, None).await.unwrap_err();
        let want = format!("Bearer error=\"invalid_token\", error_description=\"Missing Authorization header\", scope=\"a\", resource_metadata=\"{RM}\"");
        assert_eq!(r.challenge.as_deref(), Some(want.as_str()));
        assert_eq!(
            decide(&ts, Some("nope")).await.unwrap_err().description,
            "Invalid token"
        );
        let r = decide(&ts, Some("bare")).await.unwrap_err();
        assert_eq!((r.status, r.error.as_str()), (403, "insufficient_scope"));
        // The core's own wording: a step-up challenge naming the scopes.
        let r = decide(&auth(Answers::Oxmcp), Some("bare"))
            .await
            .unwrap_err();
        assert_eq!(r.status, 403);
        assert!(r.challenge.unwrap().contains("scope=\"a\""));
    }
}
