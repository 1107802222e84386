//! OpenTelemetry export (cargo feature `otel`).
//!
//! With the feature on, each request's `mcp.request` span (target `oxmcp::request`) becomes an
//! OpenTelemetry SERVER span through the [`tracing_opentelemetry`] layer: it continues the
//! caller's W3C trace from `_meta.traceparent` / `_meta.tracestate` (so the caller's span is its
//! parent), is named `tools/call <tool>` / `prompts/get <prompt>` / `<method>`, and carries the
//! MCP semantic-convention attributes (`mcp.method.name`, `jsonrpc.request.id`,
//! `gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`, `mcp.protocol.version`,
//! `network.transport`, `rpc.response.status_code`, `error.type`). Spans your handlers open
//! inside it are its children.
//!
//! Nothing else traced in your process: export over OTLP/HTTP in one call, and keep the guard
//! alive (dropping it flushes what is still queued):
//!
//! ```no_run
//! # fn main() -> Result<(), oxmcp::otel::OtelError> {
//! let _otel = oxmcp::otel::Otlp::new("my-mcp-server")
//!     .endpoint("http://127.0.0.1:4318/v1/traces") // default: OTEL_EXPORTER_OTLP_*ENDPOINT, else localhost:4318
//!     .init()?;
//! # Ok(()) }
//! ```
//!
//! Your own `tracing` subscriber (logs to stderr, filters, ...): add [`layer`] to it.
//!
//! ```no_run
//! use tracing_subscriber::prelude::*;
//! # fn main() -> Result<(), oxmcp::otel::OtelError> {
//! let provider = oxmcp::otel::Otlp::new("my-mcp-server").provider()?;
//! tracing_subscriber::registry()
//!     .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
//!     .with(oxmcp::otel::layer(&provider))
//!     .init();
//! // ... serve ...
//! provider.shutdown().ok(); // flush
//! # Ok(()) }
//! ```
//!
//! Any other exporter or tracer provider works the same way: build an
//! [`opentelemetry_sdk::trace::SdkTracerProvider`] and pass it to [`layer`] (or add
//! `tracing_opentelemetry::layer().with_tracer(..)` yourself). The crates are re-exported so
//! their versions match the ones oxmcp was built with.
//!
//! The built-in OTLP client speaks `http://` (a collector or agent on the host or in the pod, the
//! usual deployment) and, with the `tls` feature, `https://` (rustls; Mozilla roots plus
//! `SSL_CERT_FILE`). For anything else (proxies, client certificates), build an
//! [`opentelemetry_otlp::SpanExporter`] with your own client and use [`layer`].
//!
//! Sampling follows the caller: the SDK's default parent-based sampler exports a request whose
//! `traceparent` is sampled (flags `01`) and drops one that is not.

pub use opentelemetry;
pub use opentelemetry_otlp;
pub use opentelemetry_sdk;
pub use tracing_opentelemetry;

use bytes::Bytes;
use http::{Request, Response};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry::InstrumentationScope;
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use std::collections::HashMap;
use std::time::Duration;

/// An OTLP/HTTP (protobuf) span exporter and the tracer provider around it.
#[derive(Clone)]
pub struct Otlp {
    service_name: String,
    endpoint: Option<String>,
    headers: HashMap<String, String>,
    timeout: Option<Duration>,
}

impl Otlp {
    /// Spans are exported with the resource attribute `service.name = service_name`.
    pub fn new(service_name: impl Into<String>) -> Self {
        Self {
            service_name: service_name.into(),
            endpoint: None,
            headers: HashMap::new(),
            timeout: None,
        }
    }

    /// The full traces URL, e.g. `http://127.0.0.1:4318/v1/traces`. Default:
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`,
    /// else `http://localhost:4318/v1/traces`.
    pub fn endpoint(mut self, url: impl Into<String>) -> Self {
        self.endpoint = Some(url.into());
        self
    }

    /// A header sent with every export (e.g. an API key). `OTEL_EXPORTER_OTLP_HEADERS` is read too.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// How long one export request may take. Default: `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT` /
    /// `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds), else 10 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The span exporter alone (for a tracer provider you assemble yourself).
    pub fn exporter(&self) -> Result<opentelemetry_otlp::SpanExporter, OtelError> {
        let timeout = self.timeout.unwrap_or_else(env_timeout);
        let mut b = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(ExportClient::new(timeout).map_err(OtelError::Io)?)
            .with_timeout(timeout);
        if let Some(e) = &self.endpoint {
            b = b.with_endpoint(e.clone());
        }
        if !self.headers.is_empty() {
            b = b.with_headers(self.headers.clone());
        }
        b.build().map_err(OtelError::Exporter)
    }

    /// A tracer provider that batches spans to the OTLP exporter; give it to [`layer`]. Call
    /// `shutdown()` on it (or drop the last clone) before exiting to flush the last batch.
    pub fn provider(&self) -> Result<SdkTracerProvider, OtelError> {
        let resource = opentelemetry_sdk::Resource::builder()
            .with_service_name(self.service_name.clone())
            .build();
        Ok(SdkTracerProvider::builder()
            .with_batch_exporter(self.exporter()?)
            .with_resource(resource)
            .build())
    }

    /// Install a global `tracing` subscriber that exports spans at INFO and above (and nothing
    /// else), the W3C trace-context propagator and the global tracer provider. Fails when a
    /// global subscriber is already set: then use [`Otlp::provider`] and [`layer`].
    pub fn init(&self) -> Result<OtelGuard, OtelError> {
        use tracing_subscriber::layer::SubscriberExt;
        use tracing_subscriber::util::SubscriberInitExt;
        use tracing_subscriber::Layer;
        let provider = self.provider()?;
        tracing_subscriber::registry()
            .with(layer(&provider).with_filter(tracing_subscriber::filter::LevelFilter::INFO))
            .try_init()
            .map_err(OtelError::Subscriber)?;
        opentelemetry::global::set_text_map_propagator(
            opentelemetry_sdk::propagation::TraceContextPropagator::new(),
        );
        opentelemetry::global::set_tracer_provider(provider.clone());
        Ok(OtelGuard { provider })
    }
}

/// Header values (API keys) are not shown.
impl std::fmt::Debug for Otlp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Otlp")
            .field("service_name", &self.service_name)
            .field("endpoint", &self.endpoint)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The `tracing` layer that turns spans (oxmcp's request spans and your own) into OpenTelemetry
/// spans of `provider`, under the instrumentation scope `oxmcp`.
pub fn layer<S>(
    provider: &SdkTracerProvider,
) -> tracing_opentelemetry::OpenTelemetryLayer<S, opentelemetry_sdk::trace::Tracer>
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    let scope = InstrumentationScope::builder("oxmcp")
        .with_version(env!("CARGO_PKG_VERSION"))
        .build();
    tracing_opentelemetry::layer().with_tracer(provider.tracer_with_scope(scope))
}

/// Returned by [`Otlp::init`]: flushes and shuts the exporter down when dropped.
#[must_use = "dropping the guard shuts the exporter down"]
#[derive(Debug)]
pub struct OtelGuard {
    provider: SdkTracerProvider,
}

impl OtelGuard {
    pub fn provider(&self) -> &SdkTracerProvider {
        &self.provider
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        let _ = self.provider.shutdown();
    }
}

/// Why OpenTelemetry export could not be set up.
#[derive(Debug)]
#[non_exhaustive]
pub enum OtelError {
    /// The OTLP exporter's configuration (endpoint, headers, environment) is invalid.
    Exporter(opentelemetry_otlp::ExporterBuildError),
    /// The exporter's I/O thread could not be started.
    Io(std::io::Error),
    /// A global `tracing` subscriber is already installed.
    Subscriber(tracing_subscriber::util::TryInitError),
}

impl std::fmt::Display for OtelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Exporter(_) => f.write_str("invalid OTLP exporter configuration"),
            Self::Io(_) => f.write_str("could not start the OTLP export thread"),
            Self::Subscriber(_) => f.write_str("a global tracing subscriber is already set"),
        }
    }
}

impl std::error::Error for OtelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Exporter(e) => Some(e),
            Self::Io(e) => Some(e),
            Self::Subscriber(e) => Some(e),
        }
    }
}

fn env_timeout() -> Duration {
    [
        "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
        "OTEL_EXPORTER_OTLP_TIMEOUT",
    ]
    .iter()
    .find_map(|k| std::env::var(k).ok()?.trim().parse().ok())
    .map_or(Duration::from_secs(10), Duration::from_millis)
}

type HttpError = opentelemetry_http::HttpError;

/// OTLP responses are a few bytes (a partial-success message at most).
const MAX_RESPONSE_BYTES: usize = 1 << 20;

/// The OTLP exporter's HTTP client: one HTTP/1.1 POST per export over the hyper client the core
/// already builds, run on a current-thread runtime of its own. The SDK's batch processor exports
/// from a plain thread (no Tokio context there), and a flush or shutdown called from inside the
/// application's runtime must not wait on a request that needs that same runtime to progress.
#[derive(Debug)]
struct ExportClient {
    rt: tokio::runtime::Handle,
    timeout: Duration,
    /// Dropping the client (with the exporter) ends the runtime thread.
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl ExportClient {
    fn new(timeout: Duration) -> std::io::Result<Self> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let handle = rt.handle().clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("oxmcp-otlp".into())
            .spawn(move || {
                rt.block_on(async {
                    let _ = stopped.await;
                })
            })?;
        Ok(Self {
            rt: handle,
            timeout,
            _stop: stop,
        })
    }
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for ExportClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let timeout = self.timeout;
        self.rt
            .spawn(async move {
                tokio::time::timeout(timeout, post(request))
                    .await
                    .map_err(|_| HttpError::from("OTLP export timed out"))?
            })
            .await?
    }
}

async fn post(request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
    Ok(crate::http_client::send(request, MAX_RESPONSE_BYTES).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_header_values() {
        let o = Otlp::new("svc").header("x-api-key", "s3cret");
        let d = format!("{o:?}");
        assert!(d.contains("x-api-key") && !d.contains("s3cret"), "{d}");
    }

    #[cfg(not(feature = "tls"))]
    #[tokio::test]
    async fn built_in_client_needs_tls_for_https() {
        let req = Request::post("https://collector.example/v1/traces")
            .body(Bytes::new())
            .unwrap();
        let e = post(req).await.unwrap_err().to_string();
        assert!(e.contains("without its `tls` feature"), "{e}");
    }
}
