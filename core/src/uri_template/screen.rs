//! The screening of extracted template values by a policy (the `mcp` SDK's and FastMCP's
//! `ResourceSecurity`): which values may stand for a variable, decided here for every binding.

use serde_json::{Map, Value};

use super::expand::{escapes_base, is_absolute_path};

/// Which checks a template's extracted values must pass, and the variables exempt from them.
/// The default is the SDKs' default policy: every check on, nothing exempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueScreen {
    /// Refuse a value that, as a relative path, climbs above its base ([`escapes_base`]).
    pub traversal: bool,
    /// Refuse an absolute path on any common platform ([`is_absolute_path`]).
    pub absolute: bool,
    /// Refuse a value holding a NUL byte (it defeats comparisons and truncates C strings).
    pub null_bytes: bool,
    /// Variables no check applies to.
    pub exempt: Vec<String>,
}

impl Default for ValueScreen {
    fn default() -> Self {
        Self {
            traversal: true,
            absolute: true,
            null_bytes: true,
            exempt: Vec::new(),
        }
    }
}

impl ValueScreen {
    /// Does one value fail an enabled check?
    pub fn refuses_value(&self, value: &str) -> bool {
        (self.null_bytes && value.contains('\0'))
            || (self.traversal && escapes_base(value))
            || (self.absolute && is_absolute_path(value))
    }

    /// Does the value of variable `name` (a string, or a list of them, each checked) fail?
    pub fn refuses(&self, name: &str, value: &Value) -> bool {
        if self.exempt.iter().any(|e| e == name) {
            return false;
        }
        match value {
            Value::String(s) => self.refuses_value(s),
            Value::Array(items) => items
                .iter()
                .any(|v| v.as_str().is_some_and(|s| self.refuses_value(s))),
            _ => false,
        }
    }
}

/// A URI matched against a template under a [`ValueScreen`].
#[derive(Clone, Debug, PartialEq)]
pub enum Screened {
    /// The URI does not have the template's structure.
    NoMatch,
    /// It does, but this variable's value is refused: the URI is read as unknown, and no later
    /// template is tried in this one's place.
    Refused(String),
    /// It matches, with these variables.
    Matched(Map<String, Value>),
}

#[cfg(test)]
mod tests {
    use super::super::UriTemplate;
    use super::*;

    fn screened(t: &str, uri: &str, screen: &ValueScreen) -> Screened {
        UriTemplate::parse(t).unwrap().match_screened(uri, screen)
    }

    fn matched(pairs: Value) -> Screened {
        Screened::Matched(pairs.as_object().unwrap().clone())
    }

    #[test]
    fn the_default_screen_refuses_what_leaves_its_base() {
        let d = ValueScreen::default();
        let refused = |t: &str, uri: &str, name: &str| {
            assert_eq!(
                screened(t, uri, &d),
                Screened::Refused(name.into()),
                "{uri}"
            );
        };
        refused(
            "file://docs/{name}",
            "file://docs/..%2F..%2Fetc%2Fpasswd",
            "name",
        );
        refused("file://docs/{name}", "file://docs/..", "name");
        refused("file://docs/{name}", "file://docs/%2E%2E", "name");
        refused("file://docs/{name}", "file://docs/..%5C..%5Csecret", "name");
        refused("file://docs/{name}", "file://docs/key%00.txt", "name");
        refused(
            "file://docs/{+path}",
            "file://docs/../../etc/passwd",
            "path",
        );
        refused("file://docs/{+path}", "file://docs//etc/passwd", "path");
        refused("api{/parts*}", "api/a/../c", "parts");
        // A literal '/' ends a one-segment variable: no match at all.
        assert_eq!(
            screened("file://docs/{name}", "file://docs/..%2F../etc", &d),
            Screened::NoMatch
        );
        // What stays inside its base stands.
        assert_eq!(
            screened("file://docs/{name}", "file://docs/sub%2Ffile.txt", &d),
            matched(serde_json::json!({"name": "sub/file.txt"}))
        );
        assert_eq!(
            screened("git://refs/{range}", "git://refs/v1.0..v2.0", &d),
            matched(serde_json::json!({"range": "v1.0..v2.0"}))
        );
        assert_eq!(
            screened("api{/parts*}", "api/a/b/c", &d),
            matched(serde_json::json!({"parts": ["a", "b", "c"]}))
        );
    }

    #[test]
    fn a_screen_can_exempt_a_variable_or_drop_a_check() {
        let exempt = ValueScreen {
            exempt: vec!["range".into()],
            ..ValueScreen::default()
        };
        assert_eq!(
            screened("git://diff/{+range}", "git://diff/../foo", &exempt),
            matched(serde_json::json!({"range": "../foo"}))
        );
        let lax = ValueScreen {
            traversal: false,
            absolute: false,
            ..ValueScreen::default()
        };
        assert_eq!(
            screened("file://docs/{name}", "file://docs/..", &lax),
            matched(serde_json::json!({"name": ".."}))
        );
        let nul = ValueScreen {
            null_bytes: false,
            ..ValueScreen::default()
        };
        assert_eq!(
            screened("file://docs/{name}", "file://docs/key%00.txt", &nul),
            matched(serde_json::json!({"name": "key\0.txt"}))
        );
    }

    #[test]
    fn the_unscreened_matcher_keeps_its_own_refusals() {
        let t = UriTemplate::parse("api{/parts*}").unwrap();
        assert_eq!(
            t.matches("api/a/b").unwrap()["parts"],
            serde_json::json!(["a", "b"])
        );
        assert!(t.matches("api/a/../c").is_none());
        let t = UriTemplate::parse("file://docs/{name}").unwrap();
        assert!(t.matches("file://docs/sub%2Ffile.txt").is_none());
    }

    #[test]
    fn a_lone_exploded_variable_spans_segments_where_a_screen_decides() {
        let t = UriTemplate::parse("file:///{path*}").unwrap();
        assert!(t.matches("file:///docs/readme.txt").is_none());
        let t = t.spanning_paths();
        let d = ValueScreen::default();
        assert_eq!(
            t.match_screened("file:///docs/readme.txt", &d),
            matched(serde_json::json!({"path": "docs/readme.txt"}))
        );
        assert_eq!(
            t.match_screened("file:///../etc/passwd", &d),
            Screened::Refused("path".into())
        );
        let off = ValueScreen {
            traversal: false,
            absolute: false,
            null_bytes: false,
            exempt: Vec::new(),
        };
        assert_eq!(
            t.match_screened("file:///../etc/passwd", &off),
            matched(serde_json::json!({"path": "../etc/passwd"}))
        );
    }
}
