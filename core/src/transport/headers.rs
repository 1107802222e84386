//! The mirrored MCP request headers of 2026-07-28 (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`):
//! decoding the `=?base64?…?=` form and comparing against the body.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use http::header::{AsHeaderName, HeaderName};
use http::{HeaderMap, HeaderValue};
use serde_json::Value;
use std::borrow::Cow;

// A header looked up by name, as a `HeaderName`: a lookup by `&str` parses and lower-cases the
// name again on every request, a constant is hashed as it stands. A POST's own headers are
// found by [`PostHeaders::of`] instead.
pub(crate) const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// A header value, trimmed; `None` when absent; `Err` when not visible ASCII or repeated (two
/// `Mcp-Name`s could let an intermediary and this server each read a different one).
pub(crate) fn get(h: &HeaderMap, name: impl AsHeaderName) -> Option<Result<&str, ()>> {
    let mut slot = Slot::default();
    for v in h.get_all(name).iter().take(2) {
        slot.see(v);
    }
    slot.value()
}

/// One header's value as [`HeaderMap::get`] gives it (the first), and whether it was repeated.
#[derive(Clone, Copy, Default)]
pub(crate) struct Slot<'a> {
    first: Option<&'a HeaderValue>,
    repeated: bool,
}

impl<'a> Slot<'a> {
    fn see(&mut self, v: &'a HeaderValue) {
        if self.first.is_none() {
            self.first = Some(v);
        } else {
            self.repeated = true;
        }
    }
    /// The first value, as [`HeaderMap::get`].
    pub(crate) fn first(self) -> Option<&'a HeaderValue> {
        self.first
    }
    /// As [`get`]: trimmed; `Err` when not visible ASCII or repeated. `to_str` admits only
    /// visible ASCII, space and tab, so the ASCII trim is the whole trim (without `str::trim`'s
    /// char decoding, on three headers of every modern call).
    pub(crate) fn value(self) -> Option<Result<&'a str, ()>> {
        let first = self.first?;
        if self.repeated {
            return Some(Err(()));
        }
        Some(first.to_str().map(str::trim_ascii).map_err(|_| ()))
    }
}

/// The headers a POST's checks read, found in one pass over the request's few headers: a
/// `HeaderMap` lookup hashes the name and probes, and a modern call made five of them here
/// (with the guard's two, about 0.5 µs of a call's CPU on a busy server).
#[derive(Clone, Copy, Default)]
pub(crate) struct PostHeaders<'a> {
    pub(crate) content_type: Slot<'a>,
    pub(crate) accept: Slot<'a>,
    pub(crate) protocol_version: Slot<'a>,
    pub(crate) method: Slot<'a>,
    pub(crate) name: Slot<'a>,
}

impl<'a> PostHeaders<'a> {
    pub(crate) fn of(h: &'a HeaderMap) -> Self {
        let mut seen = Self::default();
        for (k, v) in h {
            match k.as_str() {
                "content-type" => seen.content_type.see(v),
                "accept" => seen.accept.see(v),
                "mcp-protocol-version" => seen.protocol_version.see(v),
                "mcp-method" => seen.method.see(v),
                "mcp-name" => seen.name.see(v),
                _ => {}
            }
        }
        seen
    }
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
    accepts_value(h.get(http::header::ACCEPT), mime)
}

/// [`accepts`] for the (first) `Accept` value already found.
pub(crate) fn accepts_value(v: Option<&HeaderValue>, mime: &str) -> bool {
    let Some(v) = v else {
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

    /// The one-pass read answers as a lookup per header does: the first value, a repeated one
    /// refused, names in any case, values trimmed, an absent one `None`.
    #[test]
    fn post_headers_answer_as_lookups_do() {
        let mut h = HeaderMap::new();
        for (k, v) in [
            ("Content-Type", "application/json"),
            ("accept", "text/event-stream"),
            ("MCP-Protocol-Version", " 2026-07-28 "),
            ("mcp-name", "a"),
            ("Mcp-Name", "b"),
            ("x-other", "x"),
            ("accept", "application/json"),
        ] {
            h.append(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h.append("mcp-method", HeaderValue::from_bytes(b"caf\xe9").unwrap());
        let seen = PostHeaders::of(&h);
        let names = [
            ("content-type", seen.content_type),
            ("accept", seen.accept),
            ("mcp-protocol-version", seen.protocol_version),
            ("mcp-method", seen.method),
            ("mcp-name", seen.name),
        ];
        for (name, slot) in names {
            assert_eq!(slot.first(), h.get(name), "{name}");
            assert_eq!(slot.value(), get(&h, name), "{name}");
        }
        assert_eq!(seen.protocol_version.value(), Some(Ok("2026-07-28")));
        assert_eq!(seen.name.value(), Some(Err(())), "two Mcp-Name headers");
        assert_eq!(seen.accept.value(), Some(Err(())), "two Accept headers");
        assert_eq!(seen.method.value(), Some(Err(())), "not visible ASCII");
        assert!(accepts_value(seen.accept.first(), "text/event-stream"));
        assert!(
            !accepts_value(seen.accept.first(), "application/json"),
            "the first one only"
        );
        let empty = HeaderMap::new();
        let none = PostHeaders::of(&empty);
        assert!(none.content_type.first().is_none() && none.name.value().is_none());
    }
}
