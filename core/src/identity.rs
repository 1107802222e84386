//! Who is calling, and what they may see: [`Caller`] (filled by the HTTP auth layer, `None`
//! without auth) and its allow-list [`Allow`]. A leaf module: the auth layer produces these, the
//! dispatcher and the handlers' [`Context`](crate::Context) read them, and neither depends on the
//! other through it.

use serde_json::Value;
use std::sync::Arc;

/// The authenticated caller of a request (filled by the auth layer; `None` without auth).
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
pub struct Caller {
    pub name: String,
    pub scopes: Vec<String>,
    /// Token claims, when the caller came from a JWT.
    pub claims: Option<Value>,
    /// What this caller may see and use; `None`: everything registered.
    pub allow: Option<Arc<Allow>>,
}

impl Caller {
    /// The caller's identity key: what MRTR state and rate-limit buckets are bound to. The
    /// name, qualified by the token's issuer when the caller came from a JWT (`iss` claim), so
    /// the same `sub` from two issuers, or a JWT subject named like a named-token caller, are
    /// two callers. Allow-lists and per-caller limits stay keyed by name.
    pub fn key(&self) -> std::borrow::Cow<'_, str> {
        match self
            .claims
            .as_ref()
            .and_then(|c| c.get("iss"))
            .and_then(Value::as_str)
        {
            Some(iss) => std::borrow::Cow::Owned(format!("{iss} {}", self.name)),
            None => std::borrow::Cow::Borrowed(&self.name),
        }
    }

    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Default::default()
        }
    }
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
    pub fn with_claims(mut self, claims: Value) -> Self {
        self.claims = Some(claims);
        self
    }
    pub fn with_allow(mut self, allow: Allow) -> Self {
        self.allow = Some(Arc::new(allow));
        self
    }
    /// Whether this caller may see and use the primitive (`kind`: `tool`, `resource`, `prompt`).
    pub fn may_use(&self, kind: &str, name: &str) -> bool {
        self.allow.as_ref().is_none_or(|a| a.permits(kind, name))
    }
}

/// What one caller may see and use. A kind left `None` is unrestricted; `Some(vec![])` hides
/// every primitive of that kind. Patterns are exact names, `*`, or a prefix ending in `*`
/// (`file:///docs/*`). Resource patterns match resource URIs and template strings alike.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Allow {
    pub tools: Option<Vec<String>>,
    pub resources: Option<Vec<String>>,
    pub prompts: Option<Vec<String>>,
}

fn list<S: Into<String>>(items: impl IntoIterator<Item = S>) -> Option<Vec<String>> {
    Some(items.into_iter().map(Into::into).collect())
}

impl Allow {
    /// Everything (the same as no allow-list).
    pub fn all() -> Self {
        Self::default()
    }
    /// Nothing of any kind until a kind is opened with [`Allow::tools`] etc.
    pub fn none() -> Self {
        Self {
            tools: Some(Vec::new()),
            resources: Some(Vec::new()),
            prompts: Some(Vec::new()),
        }
    }
    pub fn tools<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.tools = list(names);
        self
    }
    pub fn resources<S: Into<String>>(mut self, patterns: impl IntoIterator<Item = S>) -> Self {
        self.resources = list(patterns);
        self
    }
    pub fn prompts<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.prompts = list(names);
        self
    }
    /// `kind`: `tool`, `resource` (URIs and templates) or `prompt`; anything else is refused.
    pub fn permits(&self, kind: &str, name: &str) -> bool {
        let l = match kind {
            "tool" => &self.tools,
            "resource" => &self.resources,
            "prompt" => &self.prompts,
            _ => return false,
        };
        l.as_ref()
            .is_none_or(|l| l.iter().any(|p| pattern_matches(p, name)))
    }
}

fn pattern_matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}
