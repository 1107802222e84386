//! RFC 6570 expansion (section 3.2.1's algorithm) and the path screening of extracted values.

use serde_json::{Map, Value};

use super::VarSpec;

/// One expression expanded (RFC 6570 section 3.2.1's algorithm).
pub(super) fn expand_expr(
    out: &mut String,
    op: Option<char>,
    vars: &[VarSpec],
    values: &Map<String, Value>,
) {
    // (first, separator, named, if-empty, reserved characters allowed)
    let (first, sep, named, ifemp, reserved) = match op {
        None => ("", ",", false, "", false),
        Some('+') => ("", ",", false, "", true),
        Some('#') => ("#", ",", false, "", true),
        Some('.') => (".", ".", false, "", false),
        Some('/') => ("/", "/", false, "", false),
        Some(';') => (";", ";", true, "", false),
        Some('?') => ("?", "&", true, "=", false),
        _ => ("&", "&", true, "=", false),
    };
    let scalar = |v: &Value| -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    };
    let mut started = false;
    for var in vars {
        let Some(value) = values.get(&var.name) else {
            continue;
        };
        let mut piece = String::new();
        let name = |p: &mut String| encode_into(p, &var.name, true);
        match value {
            Value::Null => continue,
            Value::Array(items) => {
                let items: Vec<String> = items.iter().filter_map(scalar).collect();
                if items.is_empty() {
                    continue;
                }
                if !var.explode && named {
                    name(&mut piece);
                    piece.push('=');
                }
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        piece.push_str(if var.explode { sep } else { "," });
                    }
                    if var.explode && named {
                        name(&mut piece);
                        piece.push_str(if item.is_empty() { ifemp } else { "=" });
                    }
                    encode_into(&mut piece, item, reserved);
                }
            }
            Value::Object(pairs) => {
                let pairs: Vec<(&String, String)> = pairs
                    .iter()
                    .filter_map(|(k, v)| scalar(v).map(|v| (k, v)))
                    .collect();
                if pairs.is_empty() {
                    continue;
                }
                if !var.explode && named {
                    name(&mut piece);
                    piece.push('=');
                }
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        piece.push_str(if var.explode { sep } else { "," });
                    }
                    encode_into(&mut piece, k, reserved);
                    piece.push(if var.explode { '=' } else { ',' });
                    encode_into(&mut piece, v, reserved);
                }
            }
            v => {
                let Some(s) = scalar(v) else { continue };
                let s: String = match var.prefix {
                    Some(n) => s.chars().take(n).collect(),
                    None => s,
                };
                if named {
                    name(&mut piece);
                    piece.push_str(if s.is_empty() { ifemp } else { "=" });
                }
                encode_into(&mut piece, &s, reserved);
            }
        }
        out.push_str(if started { sep } else { first });
        started = true;
        out.push_str(&piece);
    }
}

/// Append `s` with every character outside the unreserved set (and, when `reserved`, outside the
/// reserved set, keeping `%XX` triplets as they are) percent-encoded as UTF-8.
pub(super) fn encode_into(out: &mut String, s: &str, reserved: bool) {
    const RESERVED: &[u8] = b":/?#[]@!$&'()*+,;=";
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let keep = c.is_ascii_alphanumeric()
            || b"-._~".contains(&c)
            || reserved
                && (RESERVED.contains(&c)
                    || c == b'%'
                        && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit));
        if keep {
            out.push(c as char);
        } else {
            out.push_str(&format!("%{c:02X}"));
        }
        i += 1;
    }
}

/// Would `value`, joined onto a base directory as a relative path, climb above that base? Only a
/// `..` segment (either separator) that outnumbers the segments before it does: `a/../b` stays
/// inside, `a/../../b` and `..` do not, and `v1..v2` is an ordinary name. A policy that screens
/// extracted template values (FastMCP's and the `mcp` SDK's `ResourceSecurity`) asks this.
pub fn escapes_base(value: &str) -> bool {
    let mut depth = 0usize;
    for seg in value.split(['/', '\\']) {
        match seg {
            ".." => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return true,
            },
            "" | "." => {}
            _ => depth += 1,
        }
    }
    false
}

/// Is `value` an absolute path on some common platform (POSIX `/x`, Windows `\\host`, `\x`,
/// `C:\x`, or drive-relative `C:x`)? Joined onto a base, any of them discards it.
pub fn is_absolute_path(value: &str) -> bool {
    let b = value.as_bytes();
    matches!(b.first(), Some(b'/' | b'\\'))
        || (b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::super::UriTemplate;
    use super::*;

    #[test]
    fn expands_rfc_6570_examples() {
        let vals: Map<String, Value> = serde_json::from_value(serde_json::json!({
            "var": "value", "hello": "Hello World!", "path": "/foo/bar", "empty": "",
            "x": "1024", "y": 768, "list": ["red", "green", "blue"],
            "keys": {"semi": ";", "dot": ".", "comma": ","}, "undef": null, "none": []
        }))
        .unwrap();
        for (t, want) in [
            ("x:{var}", "x:value"),
            ("{hello}", "Hello%20World%21"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("{var:3}", "val"),
            ("{list}", "red,green,blue"),
            ("{list*}", "red,green,blue"),
            ("{keys}", "comma,%2C,dot,.,semi,%3B"),
            ("{keys*}", "comma=%2C,dot=.,semi=%3B"),
            ("{.list*}", ".red.green.blue"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("{?x,undef,none}", "?x=1024"),
            ("{?list}", "?list=red,green,blue"),
            ("{?list*}", "?list=red&list=green&list=blue"),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("a/{undef}{?undef}", "a/"),
            ("caf\u{e9}/{var}", "caf%C3%A9/value"),
            ("50%25/{+hello}", "50%25/Hello%20World!"),
        ] {
            assert_eq!(UriTemplate::parse(t).unwrap().expand(&vals), want, "{t}");
        }
        // Expanding then matching gives the values back.
        let t = UriTemplate::parse("user://{id}/profile{?fields,page}").unwrap();
        let v: Map<String, Value> =
            serde_json::from_value(serde_json::json!({"id": "a b", "fields": "x&y=z"})).unwrap();
        assert_eq!(t.matches(&t.expand(&v)), Some(v));
    }

    #[test]
    fn path_screening() {
        for v in ["../etc/passwd", "..", "a/../../b", "a\\..\\..\\b"] {
            assert!(escapes_base(v), "{v}");
        }
        for v in [
            "HEAD~3..HEAD",
            "v1..v2",
            "foo/../bar",
            ".env",
            "...",
            "./a",
            "",
        ] {
            assert!(!escapes_base(v), "{v}");
        }
        for v in [
            "/etc/passwd",
            "C:\\Windows",
            "C:relative",
            "\\\\server\\share",
        ] {
            assert!(is_absolute_path(v), "{v}");
        }
        for v in ["relative/path", "", "1:x", "é:x"] {
            assert!(!is_absolute_path(v), "{v}");
        }
    }

    #[test]
    fn query_continuations_and_exploded_keys() {
        let t = UriTemplate::parse("data://items{?page}{&size}").unwrap();
        let m = t.matches("data://items?page=2&size=5").unwrap();
        assert_eq!(
            (m["page"].as_str(), m["size"].as_str()),
            (Some("2"), Some("5"))
        );
        let t = UriTemplate::parse("x://i{?a}{&b}{&c*}").unwrap();
        let m = t.matches("x://i?a=1&c=x&b=2&c=y%20z").unwrap();
        assert_eq!(m["b"], "2");
        assert_eq!(m["c"], serde_json::json!(["x", "y z"]));
        let v: Map<String, Value> =
            serde_json::from_value(serde_json::json!({"a": "1", "c": ["p", "q"]})).unwrap();
        assert_eq!(t.matches(&t.expand(&v)), Some(v));
        // A key no query expression names is ignored.
        assert!(!t.matches("x://i?a=1&zzz=2").unwrap().contains_key("zzz"));
    }
}
