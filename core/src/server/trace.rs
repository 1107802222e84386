//! W3C Trace Context (`traceparent` / `tracestate`) carried in a request's `_meta`, and the
//! per-request span that continues it. With the tracing subscriber of your choice the span's
//! `trace_id` / `parent_span_id` / `span_id` fields tie this server's work into the caller's
//! trace. With the `otel` feature and the `tracing-opentelemetry` layer (see [`crate::otel`]) the
//! span is also an OpenTelemetry SERVER span whose parent is the caller's span, with the MCP
//! semantic-convention attributes. When no subscriber listens, the span is disabled and nothing
//! is parsed or generated.

use super::dispatch::{Outcome, RequestInfo};
use super::env::Env;
use crate::jsonrpc::Params;
#[cfg(not(feature = "otel"))]
use serde_json::Value;

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

/// The span a task-capable call's handler runs in, `task <tool>`: a root of its own, linked
/// to the `tools/call` request span current here, because the task outlives that request and
/// so cannot be its child. `mcp.task.id` is set once the call has become a task.
pub(crate) fn task_span(tool: &str) -> tracing::Span {
    let span = tracing::info_span!(
        target: "oxmcp::request",
        parent: None,
        "mcp.task",
        otel.name = %format_args!("task {tool}"),
        otel.kind = "internal",
        gen_ai.tool.name = %tool,
        mcp.task.id = tracing::field::Empty,
    );
    span.follows_from(tracing::Span::current());
    span
}

pub(crate) fn task_created(span: &tracing::Span, id: &str) {
    span.record("mcp.task.id", id);
}

/// The span for one request: `mcp.request` on target `oxmcp::request`.
#[cfg(not(feature = "otel"))]
pub(super) fn request_span(rq: &RequestInfo, _params: &Params, env: &Env) -> tracing::Span {
    let span = tracing::info_span!(
        target: "oxmcp::request",
        "mcp.request",
        method = %rq.method,
        caller = env.caller.as_ref().map_or("-", |c| c.name.as_str()),
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
    match rq
        .meta
        .get("traceparent")
        .and_then(Value::as_str)
        .and_then(TraceParent::parse)
    {
        Some(tp) => {
            span.record("trace_id", tp.trace_id.as_str());
            span.record("parent_span_id", tp.parent_id.as_str());
            if let Some(ts) = rq.meta.get("tracestate").and_then(Value::as_str) {
                span.record("tracestate", ts);
            }
        }
        None => {
            span.record("trace_id", new_trace_id().as_str());
        }
    }
    span
}

/// Record how the request ended on its span (the `otel` feature's attributes; nothing without).
#[cfg(not(feature = "otel"))]
#[inline(always)]
pub(super) fn finish(_span: &tracing::Span, _outcome: &Outcome) {}

/// The span for one request: `mcp.request` on target `oxmcp::request`, with the OpenTelemetry
/// fields of the MCP semantic conventions (an MCP server span).
#[cfg(feature = "otel")]
pub(super) fn request_span(rq: &RequestInfo, params: &Params, env: &Env) -> tracing::Span {
    use tracing::field::Empty;
    let span = tracing::info_span!(
        target: "oxmcp::request",
        "mcp.request",
        method = %rq.method,
        caller = env.caller.as_ref().map_or("-", |c| c.name.as_str()),
        trace_id = Empty,
        parent_span_id = Empty,
        span_id = Empty,
        tracestate = Empty,
        otel.name = Empty,
        otel.kind = "server",
        otel.status_code = Empty,
        otel.status_description = Empty,
        mcp.method.name = %rq.method,
        mcp.protocol.version = %rq.version,
        mcp.session.id = Empty,
        mcp.resource.uri = Empty,
        jsonrpc.request.id = Empty,
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        network.transport = Empty,
        network.protocol.name = Empty,
        rpc.response.status_code = Empty,
        error.type = Empty,
    );
    if !span.is_disabled() {
        otel::start(&span, rq, params, env);
    }
    span
}

/// Record how the request ended on its span: `rpc.response.status_code` for a JSON-RPC error,
/// and `error.type` with an error status when the server failed (not the caller's request).
#[cfg(feature = "otel")]
pub(super) fn finish(span: &tracing::Span, outcome: &Outcome) {
    if !span.is_disabled() {
        otel::finish(span, outcome);
    }
}

#[cfg(feature = "otel")]
mod otel {
    use super::super::dispatch::{Outcome, RequestInfo};
    use super::super::env::{Env, Transport};
    use crate::error::ErrorCode;
    use crate::jsonrpc::Params;
    use crate::protocol::Method;
    use opentelemetry::propagation::{Extractor, TextMapPropagator};
    use opentelemetry::trace::TraceContextExt;
    use opentelemetry_sdk::propagation::TraceContextPropagator;
    use serde_json::Value;
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    /// `_meta` as a W3C trace-context carrier (string members only).
    struct Meta<'a>(&'a crate::protocol::RequestMeta);

    impl Extractor for Meta<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            self.0.get(key).and_then(Value::as_str)
        }
        fn keys(&self) -> Vec<&str> {
            self.0.whole().keys().map(String::as_str).collect()
        }
    }

    pub(super) fn start(span: &tracing::Span, rq: &RequestInfo, params: &Params, env: &Env) {
        let method = &rq.method;
        let param = |k: &str| params.get(k).and_then(Value::as_str);
        let target = match method {
            Method::ToolsCall => param("name").inspect(|t| {
                span.record("gen_ai.operation.name", "execute_tool");
                span.record("gen_ai.tool.name", *t);
            }),
            Method::PromptsGet => param("name").inspect(|p| {
                span.record("gen_ai.prompt.name", *p);
            }),
            _ => None,
        };
        // A legacy session's requests share its id, which the conventions group by; modern
        // requests belong to no session.
        if let Some(id) = env.session.as_ref().and_then(|s| s.id.as_deref()) {
            span.record("mcp.session.id", id);
        }
        if *method == Method::ResourcesRead {
            if let Some(uri) = param("uri") {
                span.record("mcp.resource.uri", uri);
            }
        }
        match target {
            Some(t) => span.record("otel.name", format!("{method} {t}")),
            None => span.record("otel.name", method.as_str()),
        };
        match &rq.id {
            Value::String(s) => {
                span.record("jsonrpc.request.id", s.as_str());
            }
            Value::Null => {}
            id => {
                span.record("jsonrpc.request.id", id.to_string());
            }
        }
        match env.transport {
            Transport::Http => {
                span.record("network.transport", "tcp");
                span.record("network.protocol.name", "http");
            }
            Transport::Stdio => {
                span.record("network.transport", "pipe");
            }
        }

        let parent_cx = TraceContextPropagator::new()
            .extract_with_context(&opentelemetry::Context::new(), &Meta(&rq.meta));
        let parent = parent_cx.span().span_context().clone();
        if parent.is_valid() {
            // Err when no OpenTelemetry layer listens: the fields below still carry the ids.
            let _ = span.set_parent(parent_cx);
            span.record("parent_span_id", parent.span_id().to_string());
            if let Some(ts) = rq.meta.get("tracestate").and_then(Value::as_str) {
                span.record("tracestate", ts);
            }
        }
        // The exported span's own ids, so log lines carrying these fields match the trace.
        let own = span.context().span().span_context().clone();
        if own.is_valid() {
            span.record("trace_id", own.trace_id().to_string());
            span.record("span_id", own.span_id().to_string());
        } else {
            let trace_id = if parent.is_valid() {
                parent.trace_id().to_string()
            } else {
                super::new_trace_id()
            };
            span.record("trace_id", trace_id);
            span.record("span_id", super::new_span_id());
        }
    }

    pub(super) fn finish(span: &tracing::Span, outcome: &Outcome) {
        match outcome {
            Outcome::Error(e) => {
                let code = e.code.0.to_string();
                span.record("rpc.response.status_code", code.as_str());
                if !callers_fault(e.code) {
                    span.record("error.type", code.as_str());
                    span.record("otel.status_code", "error");
                    span.record("otel.status_description", e.message.as_str());
                }
            }
            Outcome::Result(v) if v.get("isError") == Some(&Value::Bool(true)) => {
                span.record("error.type", "tool_error");
                span.record("otel.status_code", "error");
            }
            Outcome::Tool(a) if a.result.is_error => {
                span.record("error.type", "tool_error");
                span.record("otel.status_code", "error");
            }
            Outcome::Result(_)
            | Outcome::Tool(_)
            | Outcome::Rendered(_)
            | Outcome::Contents(_)
            | Outcome::Nothing => {}
        }
    }

    /// JSON-RPC errors that say the caller sent a request this server could not serve: per the
    /// MCP semantic conventions not a server error (the JSON-RPC ones they list, plus MCP's own
    /// request-validation codes).
    fn callers_fault(code: ErrorCode) -> bool {
        matches!(
            code,
            ErrorCode::PARSE_ERROR
                | ErrorCode::INVALID_REQUEST
                | ErrorCode::METHOD_NOT_FOUND
                | ErrorCode::INVALID_PARAMS
                | ErrorCode::RESOURCE_NOT_FOUND_LEGACY
                | ErrorCode::HEADER_MISMATCH
                | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
                | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
                | ErrorCode::URL_ELICITATION_REQUIRED
        )
    }
}

fn new_trace_id() -> String {
    format!("{:032x}", rand::random::<u128>().max(1))
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
