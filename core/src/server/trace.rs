//! W3C Trace Context (`traceparent` / `tracestate`) carried in a request's `_meta`, and the
//! per-request span that continues it. With the tracing subscriber of your choice (or the
//! `tracing-opentelemetry` layer) the span's `trace_id` / `parent_span_id` / `span_id` fields
//! tie this server's work into the caller's trace. When no subscriber listens, the span is
//! disabled and nothing is parsed or generated.

use serde_json::{Map, Value};

/// A parsed `traceparent` (version 00 layout; future versions read the same leading fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceParent {
    pub trace_id: String,
    pub parent_id: String,
    pub flags: u8,
}

impl TraceParent {
    /// Parse per W3C Trace Context §3.2: lowercase hex, non-zero ids, version ≠ `ff`.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let mut parts = s.split('-');
        let (version, trace_id, parent_id, flags) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        let hex = |x: &str, n: usize| {
            x.len() == n
                && x.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        if !hex(version, 2)
            || version == "ff"
            || !hex(trace_id, 32)
            || !hex(parent_id, 16)
            || !hex(flags, 2)
        {
            return None;
        }
        if version == "00" && parts.next().is_some() {
            return None;
        }
        if trace_id.bytes().all(|b| b == b'0') || parent_id.bytes().all(|b| b == b'0') {
            return None;
        }
        Some(Self {
            trace_id: trace_id.into(),
            parent_id: parent_id.into(),
            flags: u8::from_str_radix(flags, 16).ok()?,
        })
    }

    /// The `traceparent` for work this request starts downstream, with `span_id` as parent.
    pub fn child(&self, span_id: &str) -> String {
        format!("00-{}-{}-{:02x}", self.trace_id, span_id, self.flags)
    }
}

/// A fresh 64-bit span id (hex).
pub fn new_span_id() -> String {
    loop {
        let id: u64 = rand::random();
        if id != 0 {
            return format!("{id:016x}");
        }
    }
}

/// The span for one request: `mcp.request` on target `oxmcp::request`.
pub(crate) fn request_span(
    method: &str,
    meta: &Map<String, Value>,
    caller: Option<&str>,
) -> tracing::Span {
    let span = tracing::info_span!(
        target: "oxmcp::request",
        "mcp.request",
        method = %method,
        caller = caller.unwrap_or("-"),
        trace_id = tracing::field::Empty,
        parent_span_id = tracing::field::Empty,
        span_id = tracing::field::Empty,
        tracestate = tracing::field::Empty,
    );
    if span.is_disabled() {
        return span;
    }
    let span_id = new_span_id();
    span.record("span_id", span_id.as_str());
    match meta
        .get("traceparent")
        .and_then(Value::as_str)
        .and_then(TraceParent::parse)
    {
        Some(tp) => {
            span.record("trace_id", tp.trace_id.as_str());
            span.record("parent_span_id", tp.parent_id.as_str());
            if let Some(ts) = meta.get("tracestate").and_then(Value::as_str) {
                span.record("tracestate", ts);
            }
        }
        None => {
            let trace_id = format!("{:032x}", rand::random::<u128>().max(1));
            span.record("trace_id", trace_id.as_str());
        }
    }
    span
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_w3c_examples() {
        let tp =
            TraceParent::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").unwrap();
        assert_eq!(tp.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(tp.parent_id, "00f067aa0ba902b7");
        assert_eq!(tp.flags, 1);
        assert_eq!(
            tp.child("1111111111111111"),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-1111111111111111-01"
        );
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        ] {
            assert!(TraceParent::parse(bad).is_none(), "{bad}");
        }
        assert!(TraceParent::parse(
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future"
        )
        .is_some());
    }
}
