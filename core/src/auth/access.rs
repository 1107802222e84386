//! Per-caller allow-lists and scope matching.

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

/// Whether a held scope covers a required one. Scope hierarchies are honoured (the spec's MUST):
/// a broader scope implies the narrower ones below it, where a narrower scope extends the broader
/// one after a `:`, `.` or `/` (`files` covers `files:read`; `api.admin` covers `api.admin.users`).
pub fn scope_covers(held: &str, required: &str) -> bool {
    held == required
        || required
            .strip_prefix(held)
            .is_some_and(|rest| rest.starts_with([':', '.', '/']))
}

/// The required scopes that `held` does not cover (empty: sufficient).
pub fn missing_scopes<'a>(held: &[String], required: &'a [String]) -> Vec<&'a str> {
    required
        .iter()
        .filter(|r| !held.iter().any(|h| scope_covers(h, r)))
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_and_kinds() {
        let a = Allow::none()
            .tools(["echo", "db.*"])
            .resources(["file:///docs/*"]);
        assert!(a.permits("tool", "echo"));
        assert!(a.permits("tool", "db.query"));
        assert!(!a.permits("tool", "echo2"));
        assert!(a.permits("resource", "file:///docs/a.md"));
        assert!(!a.permits("resource", "file:///etc/passwd"));
        assert!(!a.permits("prompt", "greet"));
        assert!(!a.permits("widget", "echo"));
        assert!(Allow::all().permits("prompt", "anything"));
    }

    #[test]
    fn scope_hierarchy() {
        assert!(scope_covers("files", "files:read"));
        assert!(scope_covers("files:read", "files:read"));
        assert!(!scope_covers("files:read", "files"));
        assert!(!scope_covers("file", "files:read"));
        let held = vec!["files".to_string()];
        let req = vec!["files:write".to_string(), "admin".to_string()];
        assert_eq!(missing_scopes(&held, &req), vec!["admin"]);
    }
}
