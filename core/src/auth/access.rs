//! Scope matching. The allow-list type itself ([`Allow`]) lives in [`crate::identity`].

pub use crate::identity::Allow;

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
