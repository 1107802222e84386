//! Prometheus metrics (option `metrics`): what an operator alerts on, the same names in every
//! language because the core counts them.
//!
//! The text format is written by the `prometheus-client` crate (the Prometheus project's own
//! Rust client), never by hand: escaping, `_total` suffixes, histogram buckets and `+Inf` are its
//! job. Its counters are atomics and its label families a read-locked map, so a call costs a
//! hash lookup and two atomic adds when metrics are on; when they are off the server holds
//! `None` and the request path tests one `Option`.
//!
//! Cardinality is bounded by construction: every label value is a `'static` name of ours (a
//! method the server routes, an outcome, a reason) or a name taken from the registry (a tool's
//! or prompt's name, a resource's name, a template's URI template); a name the registry does
//! not know is `"unknown"`, and a resource URI is never a label.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::borrow::Cow;
use std::net::SocketAddr;

/// The content type of a scrape (the Prometheus text format 0.0.4, which every Prometheus and
/// `promtool check metrics` read).
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// The label value of a name the registry does not know.
pub const UNKNOWN: &str = "unknown";

/// Where and how the metrics are served.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MetricsOptions {
    /// The path on the server's own HTTP endpoint (default `/metrics`).
    pub path: String,
    /// A listener of its own (e.g. `0.0.0.0:9464`) instead of the server's endpoint: the
    /// metrics then stay off the port clients reach.
    pub address: Option<SocketAddr>,
    /// A scrape must send `Authorization: Bearer <token>`; `None`: the endpoint is open to
    /// whoever passes the Host rule (as Prometheus targets usually are, inside the cluster).
    pub token: Option<String>,
}

impl Default for MetricsOptions {
    fn default() -> Self {
        Self {
            path: "/metrics".into(),
            address: None,
            token: None,
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    era: &'static str,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    kind: &'static str,
    name: Cow<'static, str>,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DurationLabels {
    kind: &'static str,
    name: Cow<'static, str>,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RejectionLabels {
    status: u16,
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StatusLabels {
    status: &'static str,
}

/// The Redis counters, shared with the `redis` handle (which counts its own round trips).
#[derive(Clone, Debug, Default)]
pub struct RedisMetrics {
    pub round_trips: Counter,
    pub errors: Counter,
    pub reconnects: Counter,
    pub up: Gauge,
}

/// A server's metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    options: MetricsOptions,
    requests: Family<RequestLabels, Counter>,
    calls: Family<CallLabels, Counter>,
    durations: Family<DurationLabels, Histogram>,
    in_flight: Gauge,
    rejections: Family<RejectionLabels, Counter>,
    auth_failures: Counter,
    sessions: Gauge,
    listeners: Gauge,
    tasks_running: Gauge,
    task_statuses: Family<StatusLabels, Counter>,
    redis: RedisMetrics,
}

/// Latency buckets, seconds: 1 ms to 30 s (a tool call spans both).
const BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

fn histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

impl Metrics {
    /// `with_redis`: the server has one (its families are registered only then: without Redis they
    /// say nothing, and `redis_up 0` would page someone).
    pub fn new(options: MetricsOptions, with_redis: bool) -> Self {
        let mut registry = Registry::with_prefix("oxmcp");
        let requests = Family::default();
        let calls = Family::default();
        let durations = Family::new_with_constructor(histogram as fn() -> Histogram);
        let (in_flight, sessions, listeners, tasks_running): (Gauge, Gauge, Gauge, Gauge) =
            Default::default();
        let rejections = Family::default();
        let auth_failures = Counter::default();
        let task_statuses = Family::default();
        let redis = RedisMetrics::default();
        registry.register(
            "requests",
            "JSON-RPC requests answered, by method, era and outcome (ok, an error class, cancelled)",
            requests.clone(),
        );
        registry.register(
            "calls",
            "Tool, resource and prompt calls, by kind, registered name and outcome",
            calls.clone(),
        );
        registry.register(
            "call_duration_seconds",
            "Tool, resource and prompt call latency, by kind and registered name",
            durations.clone(),
        );
        registry.register(
            "calls_in_flight",
            "Tool, resource and prompt calls running now",
            in_flight.clone(),
        );
        registry.register(
            "rejections",
            "Requests and connections refused by a limit, by HTTP status and the limit",
            rejections.clone(),
        );
        registry.register(
            "auth_failures",
            "Requests whose credentials the authenticator refused",
            auth_failures.clone(),
        );
        registry.register(
            "legacy_sessions",
            "Legacy (initialize-era) HTTP sessions open in this process",
            sessions.clone(),
        );
        registry.register(
            "listen_streams",
            "Open subscriptions/listen and legacy GET streams",
            listeners.clone(),
        );
        registry.register(
            "tasks_running",
            "Tasks whose handler runs in this process",
            tasks_running.clone(),
        );
        registry.register(
            "task_status_changes",
            "Tasks entering a status (working, input_required, completed, failed, cancelled)",
            task_statuses.clone(),
        );
        if with_redis {
            registry.register(
                "redis_round_trips",
                "Redis commands sent",
                redis.round_trips.clone(),
            );
            registry.register(
                "redis_errors",
                "Redis commands that failed or timed out",
                redis.errors.clone(),
            );
            registry.register(
                "redis_reconnects",
                "Reconnections of the Redis subscriber",
                redis.reconnects.clone(),
            );
            registry.register(
                "redis_up",
                "1 when Redis answered a PING at the last scrape, 0 when not (absent without Redis)",
                redis.up.clone(),
            );
        }
        Self {
            registry,
            options,
            requests,
            calls,
            durations,
            in_flight,
            rejections,
            auth_failures,
            sessions,
            listeners,
            tasks_running,
            task_statuses,
            redis,
        }
    }

    pub fn options(&self) -> &MetricsOptions {
        &self.options
    }

    /// The Redis counters (handed to the `redis` handle).
    pub fn redis(&self) -> &RedisMetrics {
        &self.redis
    }

    pub(crate) fn request(&self, method: &'static str, era: &'static str, outcome: &'static str) {
        self.requests
            .get_or_create(&RequestLabels {
                method,
                era,
                outcome,
            })
            .inc();
    }

    /// A call starts: counted in flight until the returned guard is dropped.
    pub(crate) fn call_started(&self) -> InFlight<'_> {
        self.in_flight.inc();
        InFlight(&self.in_flight)
    }

    pub(crate) fn call(
        &self,
        kind: &'static str,
        name: Cow<'static, str>,
        outcome: &'static str,
        seconds: f64,
    ) {
        self.durations
            .get_or_create(&DurationLabels {
                kind,
                name: name.clone(),
            })
            .observe(seconds);
        self.calls
            .get_or_create(&CallLabels {
                kind,
                name,
                outcome,
            })
            .inc();
    }

    pub(crate) fn rejected(&self, status: u16, reason: &'static str) {
        self.rejections
            .get_or_create(&RejectionLabels { status, reason })
            .inc();
    }

    pub(crate) fn auth_failed(&self) {
        self.auth_failures.inc();
    }

    pub(crate) fn task_status(&self, status: &'static str) {
        self.task_statuses
            .get_or_create(&StatusLabels { status })
            .inc();
    }

    /// The scrape: the gauges read from the server's state (`sessions`, `listeners`,
    /// `tasks_running`, and `redis_up` when `Some`), then the text.
    pub(crate) fn render(
        &self,
        sessions: usize,
        listeners: usize,
        tasks_running: usize,
        redis_up: Option<bool>,
    ) -> String {
        self.sessions.set(sessions as i64);
        self.listeners.set(listeners as i64);
        self.tasks_running.set(tasks_running as i64);
        if let Some(up) = redis_up {
            self.redis.up.set(up as i64);
        }
        let mut out = String::with_capacity(4096);
        // Writing to a `String` cannot fail.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry);
        out
    }
}

/// A call counted in flight; dropping it ends the count.
pub(crate) struct InFlight<'a>(&'a Gauge);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_prefixed_and_unknown_names_share_one_series() {
        let m = Metrics::new(MetricsOptions::default(), false);
        m.request("tools/call", "modern", "ok");
        m.call("tool", Cow::Borrowed(UNKNOWN), "error", 0.0);
        m.call("tool", Cow::Borrowed(UNKNOWN), "error", 0.0);
        let text = m.render(0, 0, 0, None);
        assert!(text.contains(
            "oxmcp_requests_total{method=\"tools/call\",era=\"modern\",outcome=\"ok\"} 1\n"
        ));
        assert!(text
            .contains("oxmcp_calls_total{kind=\"tool\",name=\"unknown\",outcome=\"error\"} 2\n"));
        assert!(!text.contains("oxmcp_redis_"), "{text}");
        let with_redis = Metrics::new(MetricsOptions::default(), true);
        assert!(with_redis
            .render(0, 0, 0, Some(false))
            .contains("oxmcp_redis_up 0\n"));
    }
}
