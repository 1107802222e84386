//! `WWW-Authenticate: Bearer …` values (RFC 6750 §3, RFC 9728 §5.1), usable outside the
//! built-in server (an ASGI/Express middleware, a reverse proxy's auth hook).

use std::fmt;

/// Builds a `Bearer` (or `DPoP`) challenge. Values are quoted; quotes and backslashes are escaped and
/// control characters dropped, so nothing can break out of the header.
///
/// ```
/// use oxmcp::auth::BearerChallenge;
/// let v = BearerChallenge::new()
///     .resource_metadata("https://mcp.example.com/.well-known/oauth-protected-resource")
///     .scope(["files:read"])
///     .to_string();
/// assert_eq!(v, r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read""#);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    realm: Option<String>,
    error: Option<String>,
    scope: Vec<String>,
    resource_metadata: Option<String>,
    error_description: Option<String>,
    /// Set: a `DPoP` challenge (RFC 9449 §7.1) with these `algs`.
    dpop_algs: Option<String>,
    /// `error_description` right after `error` whatever the error (the `mcp` Python SDK's order).
    description_first: bool,
}

impl BearerChallenge {
    pub fn new() -> Self {
        Self::default()
    }
    /// 401 for a token that was sent but is expired, revoked, malformed or not for us.
    pub fn invalid_token() -> Self {
        Self::new().error("invalid_token")
    }
    /// 403 step-up: every scope the operation needs, in one challenge.
    pub fn insufficient_scope<S: Into<String>>(scopes: impl IntoIterator<Item = S>) -> Self {
        Self::new().error("insufficient_scope").scope(scopes)
    }
    pub fn realm(mut self, r: impl Into<String>) -> Self {
        self.realm = Some(r.into());
        self
    }
    pub fn error(mut self, e: impl Into<String>) -> Self {
        self.error = Some(e.into());
        self
    }
    /// Scopes to request (space-joined). `offline_access` is dropped (spec SHOULD NOT).
    pub fn scope<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scope = scopes
            .into_iter()
            .map(Into::into)
            .filter(|s| s != "offline_access")
            .collect();
        self
    }
    pub fn resource_metadata(mut self, url: impl Into<String>) -> Self {
        self.resource_metadata = Some(url.into());
        self
    }
    pub fn error_description(mut self, d: impl Into<String>) -> Self {
        self.error_description = Some(d.into());
        self
    }
    /// Put `error_description` right after `error`, then `scope` and `resource_metadata`.
    pub fn description_first(mut self) -> Self {
        self.description_first = true;
        self
    }
    /// Make it a `DPoP` challenge (RFC 9449 §7.1) naming the proof algorithms taken.
    pub fn dpop(mut self, algs: impl Into<String>) -> Self {
        self.dpop_algs = Some(algs.into());
        self
    }
    /// The header value.
    pub fn to_header_value(&self) -> String {
        self.to_string()
    }
}

fn quoted(v: &str) -> String {
    let mut out = String::with_capacity(v.len() + 2);
    out.push('"');
    for c in v.chars().filter(|c| !c.is_control()) {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

impl fmt::Display for BearerChallenge {
    /// Parameter order: `error` first; for `insufficient_scope` then `error_description`,
    /// `scope`, `resource_metadata` (the TS SDK's step-up challenge, which clients are tested
    /// against); otherwise `resource_metadata`, `scope`, the description last (the spec's
    /// examples).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut params: Vec<(&str, String)> = Vec::new();
        if let Some(r) = &self.realm {
            params.push(("realm", quoted(r)));
        }
        if let Some(e) = &self.error {
            params.push(("error", quoted(e)));
        }
        let scope = (!self.scope.is_empty()).then(|| ("scope", quoted(&self.scope.join(" "))));
        let rm = self
            .resource_metadata
            .as_deref()
            .map(|u| ("resource_metadata", quoted(u)));
        let description = self
            .error_description
            .as_deref()
            .map(|d| ("error_description", quoted(d)));
        if self.description_first || self.error.as_deref() == Some("insufficient_scope") {
            // The TS SDK's order, byte for byte, so a client that works against it works here.
            params.extend(description);
            params.extend(scope);
            params.extend(rm);
        } else {
            params.extend(rm);
            params.extend(scope);
            params.extend(description);
        }
        if let Some(a) = &self.dpop_algs {
            params.push(("algs", quoted(a)));
        }
        f.write_str(if self.dpop_algs.is_some() {
            "DPoP"
        } else {
            "Bearer"
        })?;
        for (i, (k, v)) in params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { " " } else { ", " })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        let v = BearerChallenge::insufficient_scope(["files:write"])
            .resource_metadata("https://mcp.example.com/.well-known/oauth-protected-resource")
            .error_description("File write permission required for this operation");
        assert_eq!(
            v.to_string(),
            r#"Bearer error="insufficient_scope", error_description="File write permission required for this operation", scope="files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource""#
        );
        assert_eq!(BearerChallenge::new().to_string(), "Bearer");
    }

    #[test]
    fn no_header_injection() {
        let v = BearerChallenge::invalid_token()
            .error_description("bad\r\nSet-Cookie: x=\"1\"\\")
            .to_string();
        assert_eq!(
            v,
            r#"Bearer error="invalid_token", error_description="badSet-Cookie: x=\"1\"\\""#
        );
        assert!(http::HeaderValue::from_str(&v).is_ok());
        assert_eq!(
            BearerChallenge::new()
                .scope(["a", "offline_access", "b"])
                .to_string(),
            r#"Bearer scope="a b""#
        );
    }
}
