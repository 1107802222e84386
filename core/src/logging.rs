//! Process-wide logging and tracing set up from the environment (cargo feature `logging`).
//!
//! What the example servers and the Python and Node bindings install, so every oxmcp server,
//! whatever it is written in, reads the same variables. A Rust program that sets up its own
//! `tracing` subscriber does not need this (and [`init_from_env`] then leaves it alone).
//!
//! - `OXMCP_LOG`: which events, as a `tracing_subscriber::EnvFilter` directive (default `warn`);
//!   `warn,oxmcp::audit=info` adds the audit record of every call.
//! - `OXMCP_LOG_FORMAT=json`: one JSON object per line (with the span list); otherwise text.
//! - With the `otel` feature: when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
//!   `OTEL_EXPORTER_OTLP_ENDPOINT` is set, each request's span is exported over OTLP/HTTP too
//!   (service name `OTEL_SERVICE_NAME`, else the default given), whatever `OXMCP_LOG` says.
//!
//! Everything is written to stderr: on stdio, stdout carries MCP messages only.

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// What [`init_from_env`] installed. Dropping it (or [`Telemetry::flush`]) sends the spans still
/// queued for export; logging itself needs no guard.
#[must_use = "dropping it shuts the span exporter down"]
#[derive(Debug, Default)]
pub struct Telemetry {
    /// The subscriber was installed (false: the process already had one).
    pub installed: bool,
    #[cfg(feature = "otel")]
    provider: Option<crate::otel::opentelemetry_sdk::trace::SdkTracerProvider>,
}

impl Telemetry {
    /// Whether request spans are being exported over OTLP.
    pub fn exporting(&self) -> bool {
        #[cfg(feature = "otel")]
        return self.provider.is_some();
        #[cfg(not(feature = "otel"))]
        false
    }

    /// Export the spans still queued (e.g. when a server stops but the process goes on).
    pub fn flush(&self) {
        #[cfg(feature = "otel")]
        if let Some(p) = &self.provider {
            let _ = p.force_flush();
        }
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        #[cfg(feature = "otel")]
        if let Some(p) = self.provider.take() {
            let _ = p.shutdown();
        }
    }
}

/// Text-format fields (`name=value ...`) with every control character of every value escaped.
///
/// Values recorded with `%` (tool names, a JWT's `alg`, caller names, error texts) are written
/// raw by `tracing_subscriber`'s default field formatter, so a request that carries CR/LF in a
/// tool name could append a forged line (`oxmcp::audit: auth caller="admin" outcome="ok"`) to
/// the log operators trust. Escaping here, once, for every field of every event and span, covers
/// each field that comes from a request whoever logs it.
///
/// A program that installs its own subscriber instead of [`init_from_env`] should use it on its
/// text layer, or it logs request-borne values raw:
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use tracing_subscriber::prelude::*;
///
/// let log = Arc::new(Mutex::new(Vec::new()));
/// let sink = log.clone();
/// let layer = tracing_subscriber::fmt::layer()
///     .fmt_fields(oxmcp::logging::EscapedFields)
///     .with_writer(move || Sink(sink.clone()));
/// tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
///     tracing::warn!(tool = %"add\nforged line", "refused");
/// });
/// let text = String::from_utf8(log.lock().unwrap().clone()).unwrap();
/// assert_eq!(text.lines().count(), 1, "{text}");
/// assert!(text.contains(r"add\nforged line"), "{text}");
///
/// struct Sink(Arc<Mutex<Vec<u8>>>);
/// impl std::io::Write for Sink {
///     fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
///         self.0.lock().unwrap().extend_from_slice(b);
///         Ok(b.len())
///     }
///     fn flush(&mut self) -> std::io::Result<()> {
///         Ok(())
///     }
/// }
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct EscapedFields;

impl<'w> tracing_subscriber::fmt::FormatFields<'w> for EscapedFields {
    fn format_fields<R: tracing_subscriber::field::RecordFields>(
        &self,
        writer: tracing_subscriber::fmt::format::Writer<'w>,
        fields: R,
    ) -> std::fmt::Result {
        let mut v = EscapingVisitor {
            writer,
            first: true,
            result: Ok(()),
        };
        fields.record(&mut v);
        v.result
    }
}

struct EscapingVisitor<'w> {
    writer: tracing_subscriber::fmt::format::Writer<'w>,
    first: bool,
    result: std::fmt::Result,
}

impl tracing::field::Visit for EscapingVisitor<'_> {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if field.name() == "message" {
            self.record_debug(field, &format_args!("{value}"));
        } else {
            self.record_debug(field, &value);
        }
    }

    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if self.result.is_err() {
            return;
        }
        let raw = format!("{value:?}");
        let text = escape_control(&raw);
        let sep = if self.first { "" } else { " " };
        self.first = false;
        let name = field.name();
        self.result = if name == "message" {
            write!(self.writer, "{sep}{text}")
        } else {
            let name = name.strip_prefix("r#").unwrap_or(name);
            write!(self.writer, "{sep}{name}={text}")
        };
    }
}

/// `s` with control characters (and the Unicode line/paragraph separators) written as escapes:
/// `\n`, `\r`, `\t`, else `\u{..}`. Text without them is returned unchanged.
pub fn escape_control(s: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    if !s.chars().any(bad) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if bad(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Install the process's `tracing` subscriber as the module docs describe. Returns without
/// installing anything when the process already has a global subscriber; an unusable OTLP
/// setting is reported on stderr and export stays off (logging still works).
pub fn init_from_env(default_service_name: &str) -> Telemetry {
    let filter = EnvFilter::try_from_env("OXMCP_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    let json = std::env::var("OXMCP_LOG_FORMAT").is_ok_and(|f| f.eq_ignore_ascii_case("json"));
    let fmt = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let fmt = if json {
        // JSON needs no help: every value is a JSON string, so CR/LF arrive as `\r`/`\n`.
        fmt.json()
            .with_span_list(true)
            .with_current_span(false)
            .with_filter(filter)
            .boxed()
    } else {
        fmt.fmt_fields(EscapedFields).with_filter(filter).boxed()
    };
    let registry = tracing_subscriber::registry().with(fmt);

    #[cfg(feature = "otel")]
    {
        let provider = otlp_from_env(default_service_name);
        // Spans at INFO and above, independent of what OXMCP_LOG logs.
        let otel = provider.as_ref().map(|p| {
            crate::otel::layer(p).with_filter(tracing_subscriber::filter::LevelFilter::INFO)
        });
        let installed = registry.with(otel).try_init().is_ok();
        if let (true, Some(p)) = (installed, &provider) {
            // For handlers that trace through the `opentelemetry` API directly.
            crate::otel::opentelemetry::global::set_text_map_propagator(
                crate::otel::opentelemetry_sdk::propagation::TraceContextPropagator::new(),
            );
            crate::otel::opentelemetry::global::set_tracer_provider(p.clone());
        }
        Telemetry {
            installed,
            provider: if installed { provider } else { None },
        }
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = default_service_name;
        Telemetry {
            installed: registry.try_init().is_ok(),
        }
    }
}

#[cfg(feature = "otel")]
fn otlp_from_env(
    default_service_name: &str,
) -> Option<crate::otel::opentelemetry_sdk::trace::SdkTracerProvider> {
    let set = |k: &str| std::env::var(k).is_ok_and(|v| !v.trim().is_empty());
    if !set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") && !set("OTEL_EXPORTER_OTLP_ENDPOINT") {
        return None;
    }
    let name = std::env::var("OTEL_SERVICE_NAME")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| default_service_name.to_string());
    match crate::otel::Otlp::new(name).provider() {
        Ok(p) => Some(p),
        // Called before the subscriber is installed: stderr is the only place this can be said.
        #[allow(clippy::print_stderr)]
        Err(e) => {
            eprintln!("oxmcp: OpenTelemetry export is off: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_control("plain ünï"), "plain ünï");
        assert_eq!(
            escape_control("a\r\nb\tc\u{1b}[31m\u{2028}\0"),
            "a\\r\\nb\\tc\\u{1b}[31m\\u{2028}\\u{0}"
        );
    }

    #[test]
    fn a_forged_line_stays_inside_its_field() {
        use std::sync::{Arc, Mutex};
        #[derive(Clone, Default)]
        struct Buf(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Buf {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buf = Buf::default();
        let w = buf.clone();
        let sub = tracing_subscriber::fmt()
            .with_ansi(false)
            .fmt_fields(EscapedFields)
            .with_writer(move || w.clone())
            .finish();
        tracing::subscriber::with_default(sub, || {
            let name =
                "x\n2026-01-01T00:00:00Z  INFO oxmcp::audit: auth caller=\"admin\" outcome=\"ok\"";
            tracing::info!(target: "oxmcp::audit", name = %name, alg = ?name, "call\r\nforged");
        });
        let out = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert_eq!(out.lines().count(), 1, "{out}");
        assert!(out.contains("name=x\\n2026"), "{out}");
        assert!(out.contains("call\\r\\nforged"), "{out}");
    }
}
