//! The mirrored MCP request headers of 2026-07-28 (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`):
//! decoding the `=?base64?…?=` form and comparing against the body.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use http::header::{AsHeaderName, HeaderName};
use http::HeaderMap;
use serde_json::Value;
use std::borrow::Cow;

// The MCP headers as `HeaderName`s: a lookup by `&str` parses and lower-cases the name again on
// every request, a constant is hashed as it stands.
pub(crate) const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
pub(crate) const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
pub(crate) const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
pub(crate) const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// A header value, trimmed; `None` when absent; `Err` when not visible ASCII or repeated (two
/// `Mcp-Name`s could let an intermediary and this server each read a different one).
pub(crate) fn get<'a>(h: &'a HeaderMap, name: impl AsHeaderName) -> Option<Result<&'a str, ()>> {
    let mut all = h.get_all(name).iter();
    let first = all.next()?;
    if all.next().is_some() {
        return Some(Err(()));
    }
    Some(first.to_str().map(str::trim).map_err(|_| ()))
}

/// Decode a header value that may use the Base64 sentinel. `Err` on invalid characters.
/// Borrowed unless it was Base64 (every modern `tools/call` decodes its `Mcp-Name`).
pub(crate) fn decode(raw: &str) -> Result<Cow<'_, str>, ()> {
    if raw.chars().any(|c| c.is_control()) {
        return Err(());
    }
    if let Some(inner) = raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        let bytes = STANDARD.decode(inner).map_err(|_| ())?;
        return String::from_utf8(bytes).map(Cow::Owned).map_err(|_| ());
    }
    Ok(Cow::Borrowed(raw))
}

/// Whether a decoded header value stands for `body` (a string, integer or boolean).
pub(crate) fn matches_value(decoded: &str, body: &Value) -> bool {
    match body {
        Value::String(s) => decoded == s,
        Value::Bool(b) => decoded == if *b { "true" } else { "false" },
        Value::Number(n) => match (decoded.parse::<f64>(), n.as_f64()) {
            (Ok(a), Some(b)) => a == b,
            _ => false,
        },
        _ => false,
    }
}

/// Whether an `Accept` header admits `mime` (exactly, as `type/*` or as `*/*`; parameters such
/// as `q` ignored). Without the header: no.
pub(crate) fn accepts(h: &HeaderMap, mime: &str) -> bool {
    let Some(v) = h.get(http::header::ACCEPT) else {
        return false;
    };
    // What the official SDKs' clients send on every POST: answered by one comparison, not a
    // scan of its ranges (every request asks).
    if v.as_bytes() == b"application/json, text/event-stream"
        && matches!(mime, "application/json" | "text/event-stream")
    {
        return true;
    }
    let Ok(a) = v.to_str() else {
        return false;
    };
    // Every POST asks this: a byte scan, compared in place (no "type/*" built per call).
    let major = mime.split('/').next().unwrap_or("").as_bytes();
    a.as_bytes().split(|&b| b == b',').any(|range| {
        let p = range
            .split(|&b| b == b';')
            .next()
            .unwrap_or_default()
            .trim_ascii();
        p.eq_ignore_ascii_case(mime.as_bytes())
            || p == b"*/*"
            || p.strip_suffix(b"/*")
                .is_some_and(|m| m.eq_ignore_ascii_case(major))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decodes_sentinel_and_compares() {
        assert_eq!(decode("=?base64?aMOpbGxv?=").unwrap(), "héllo");
        assert_eq!(decode("plain").unwrap(), "plain");
        assert!(decode("=?base64?!!?=").is_err());
        assert!(matches_value("42.0", &json!(42)));
        assert!(matches_value("true", &json!(true)));
        assert!(!matches_value("x", &json!("y")));
    }

    #[test]
    fn accept_header_ranges() {
        let with = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(http::header::ACCEPT, v.parse().unwrap());
            h
        };
        let json = "application/json";
        assert!(accepts(&with("application/json, text/event-stream"), json));
        assert!(accepts(
            &with("text/event-stream , Application/JSON;q=0.9"),
            json
        ));
        assert!(accepts(&with("application/*"), json));
        assert!(accepts(&with("*/*;q=0.1"), json));
        assert!(!accepts(&with("text/*"), json));
        assert!(!accepts(&with("application/jsonx"), json));
        assert!(!accepts(&with("application/json-seq, text/plain"), json));
        assert!(accepts(&with("text/*"), "text/event-stream"));
        assert!(!accepts(&HeaderMap::new(), json));
        // The SDKs' exact value, taken by the short path, answers as the scan would.
        let sdk = with("application/json, text/event-stream");
        assert!(accepts(&sdk, "text/event-stream"));
        assert!(!accepts(&sdk, "text/plain"));
        assert!(!accepts(&sdk, "application/jso"));
    }
}
