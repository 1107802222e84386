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

/// Install the process's `tracing` subscriber as the module docs describe. Returns without
/// installing anything when the process already has a global subscriber; an unusable OTLP
/// setting is reported on stderr and export stays off (logging still works).
pub fn init_from_env(default_service_name: &str) -> Telemetry {
    let filter = EnvFilter::try_from_env("OXMCP_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    let json = std::env::var("OXMCP_LOG_FORMAT").is_ok_and(|f| f.eq_ignore_ascii_case("json"));
    let fmt = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let fmt = if json {
        fmt.json()
            .with_span_list(true)
            .with_current_span(false)
            .with_filter(filter)
            .boxed()
    } else {
        fmt.with_filter(filter).boxed()
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
        Err(e) => {
            eprintln!("oxmcp: OpenTelemetry export is off: {e}");
            None
        }
    }
}
