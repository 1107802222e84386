//! OAuth 2.0 Protected Resource Metadata (RFC 9728): the document at
//! `/.well-known/oauth-protected-resource[/<path>]` telling clients which authorization
//! servers issue tokens for this MCP server, and the URL the 401 challenge points to.

use serde_json::{json, Map, Value};

/// This server as an OAuth protected resource.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProtectedResource {
    /// The canonical server URI (`https://mcp.example.com/mcp`): the `resource` value and the
    /// audience tokens must carry (RFC 8707).
    pub resource: String,
    /// Issuer identifiers of the authorization servers (at least one: spec MUST).
    pub authorization_servers: Vec<String>,
    /// Minimal scopes for basic use; also the `scope` of the 401 challenge.
    pub scopes_supported: Vec<String>,
    pub resource_name: Option<String>,
    pub resource_documentation: Option<String>,
}

/// Lowercase scheme and host, no fragment, no trailing slash (the spec's canonical form).
pub fn canonical_resource(uri: &str) -> String {
    let uri = uri.split('#').next().unwrap_or("");
    let Some((scheme, rest)) = uri.split_once("://") else {
        return uri.trim_end_matches('/').to_string();
    };
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let path = path.trim_end_matches('/');
    format!(
        "{}://{}{}",
        scheme.to_ascii_lowercase(),
        authority.to_ascii_lowercase(),
        path
    )
}

impl ProtectedResource {
    pub fn new<S: Into<String>>(
        resource: impl Into<String>,
        authorization_servers: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            resource: canonical_resource(&resource.into()),
            authorization_servers: authorization_servers.into_iter().map(Into::into).collect(),
            scopes_supported: Vec::new(),
            resource_name: None,
            resource_documentation: None,
        }
    }
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes_supported = scopes
            .into_iter()
            .map(Into::into)
            .filter(|s| s != "offline_access")
            .collect();
        self
    }
    pub fn name(mut self, n: impl Into<String>) -> Self {
        self.resource_name = Some(n.into());
        self
    }
    pub fn documentation(mut self, url: impl Into<String>) -> Self {
        self.resource_documentation = Some(url.into());
        self
    }

    fn origin_and_path(&self) -> (&str, &str) {
        let after = self.resource.find("://").map_or(0, |i| i + 3);
        match self.resource[after..].find('/') {
            Some(i) => self.resource.split_at(after + i),
            None => (&self.resource, ""),
        }
    }

    /// The path-inserted well-known URL (RFC 9728 §3.1): what the 401 challenge names.
    pub fn metadata_url(&self) -> String {
        let (origin, path) = self.origin_and_path();
        format!("{origin}/.well-known/oauth-protected-resource{path}")
    }

    /// The request paths that serve the document: the path-inserted form and the root form.
    pub fn well_known_paths(&self) -> Vec<String> {
        let (_, path) = self.origin_and_path();
        let root = "/.well-known/oauth-protected-resource".to_string();
        if path.is_empty() {
            vec![root]
        } else {
            vec![format!("{root}{path}"), root]
        }
    }

    /// The metadata document.
    pub fn document(&self) -> Value {
        let mut m = Map::new();
        m.insert("resource".into(), json!(self.resource));
        m.insert(
            "authorization_servers".into(),
            json!(self.authorization_servers),
        );
        if !self.scopes_supported.is_empty() {
            m.insert("scopes_supported".into(), json!(self.scopes_supported));
        }
        m.insert("bearer_methods_supported".into(), json!(["header"]));
        if let Some(n) = &self.resource_name {
            m.insert("resource_name".into(), json!(n));
        }
        if let Some(d) = &self.resource_documentation {
            m.insert("resource_documentation".into(), json!(d));
        }
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let r = ProtectedResource::new(
            "HTTPS://MCP.Example.com/public/mcp/",
            ["https://auth.example.com"],
        )
        .scopes(["files:read", "offline_access"]);
        assert_eq!(r.resource, "https://mcp.example.com/public/mcp");
        assert_eq!(
            r.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp"
        );
        assert_eq!(
            r.well_known_paths(),
            vec![
                "/.well-known/oauth-protected-resource/public/mcp",
                "/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(r.document()["scopes_supported"], json!(["files:read"]));
        let root = ProtectedResource::new("https://mcp.example.com", ["https://a"]);
        assert_eq!(
            root.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
    }
}
