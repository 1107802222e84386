//! Where the server feeds its Prometheus metrics (`crate::metrics`): the label of a call (from
//! the registry, never from the request), a request's and a call's outcome, and the scrape.
//! Every entry point is a no-op when the server has no metrics.

use super::dispatch::{Outcome, RequestInfo};
use super::env::Env;
use super::Server;
use crate::jsonrpc::Params;
use crate::metrics::{InFlight, Metrics, UNKNOWN};
use crate::protocol::{Era, Method};
use serde_json::Value;
use std::borrow::Cow;
use std::time::Instant;

/// A call being measured: boxed by the pipeline, so a server without metrics carries one null
/// pointer in each call's future.
pub(super) struct Metered<'a> {
    metrics: &'a Metrics,
    kind: &'static str,
    name: Cow<'static, str>,
    started: Instant,
    _in_flight: InFlight<'a>,
}

impl Server {
    /// A call of `method` starts: measured when metrics are on and the method runs a
    /// primitive. `completion/complete` is a request like any other, not a call.
    pub(super) fn metered(&self, method: &Method, params: &Params) -> Option<Box<Metered<'_>>> {
        let metrics = self.inner.metrics.as_deref()?;
        let (kind, name) = self.call_label(method, params)?;
        Some(Box::new(Metered {
            metrics,
            kind,
            name,
            started: Instant::now(),
            _in_flight: metrics.call_started(),
        }))
    }

    /// The kind and registered name a call is counted under: a tool's or prompt's name, a
    /// resource's name, or a template's URI template; `"unknown"` for anything else.
    fn call_label(
        &self,
        method: &Method,
        params: &Params,
    ) -> Option<(&'static str, Cow<'static, str>)> {
        let reg = self.snapshot();
        let arg = |k: &str| params.get(k).and_then(Value::as_str).unwrap_or_default();
        let known = |found: bool, name: &str| -> Cow<'static, str> {
            if found {
                Cow::Owned(name.to_string())
            } else {
                Cow::Borrowed(UNKNOWN)
            }
        };
        Some(match method {
            Method::ToolsCall => {
                let n = arg("name");
                ("tool", known(reg.tools.get(n).is_some(), n))
            }
            Method::PromptsGet => {
                let n = arg("name");
                ("prompt", known(reg.prompts.get(n).is_some(), n))
            }
            Method::ResourcesRead => {
                let uri = arg("uri");
                let name = match reg.resources.get(uri) {
                    Some(r) => r
                        .def
                        .get("name")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    None => reg
                        .resolve_template(uri, |_| true)
                        .map(|(k, _, _)| k.to_string()),
                };
                ("resource", name.map_or(Cow::Borrowed(UNKNOWN), Cow::Owned))
            }
            _ => return None,
        })
    }

    /// A request answered (`None`: cancelled, nothing sent).
    pub(super) fn count_request(&self, rq: &RequestInfo, outcome: &Outcome) {
        let Some(m) = &self.inner.metrics else { return };
        // A method we know has a `'static` name; anything else is one series.
        let method = match &rq.method {
            Method::Other(_) => "other",
            m => m.name(),
        };
        let era = match rq.era {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        };
        let outcome = match outcome {
            Outcome::Result(_) | Outcome::Tool(_) | Outcome::Rendered(_) | Outcome::Contents(_) => {
                "ok"
            }
            Outcome::Error(e) => e.code.class(),
            Outcome::Nothing => "cancelled",
        };
        m.request(method, era, outcome);
    }

    /// A refusal by a limit: its status and which limit.
    pub(crate) fn count_rejection(&self, status: u16, reason: &'static str) {
        if let Some(m) = &self.inner.metrics {
            m.rejected(status, reason);
        }
    }

    /// Credentials the authenticator refused.
    pub(crate) fn count_auth_failure(&self) {
        if let Some(m) = &self.inner.metrics {
            m.auth_failed();
        }
    }

    /// The scrape, `None` when metrics are off. Asks Redis for a PING when the server has one
    /// (`oxmcp_redis_up`).
    pub async fn render_metrics(&self) -> Option<String> {
        let m = self.inner.metrics.as_deref()?;
        #[cfg(feature = "redis")]
        let redis_up = match &self.inner.redis {
            Some(r) => Some(r.ping().await),
            None => None,
        };
        #[cfg(not(feature = "redis"))]
        let redis_up = None;
        let listeners = self
            .inner
            .listeners
            .load(std::sync::atomic::Ordering::Relaxed);
        Some(m.render(
            self.inner.sessions.open(),
            listeners,
            self.inner.tasks.live_count(),
            redis_up,
        ))
    }

    /// Whether the caller is the first to bind the metrics' own address (one per server).
    pub(crate) fn take_metrics_listener(&self) -> bool {
        !self
            .inner
            .metrics_bound
            .swap(true, std::sync::atomic::Ordering::SeqCst)
    }

    /// The metrics options, when metrics are on (the HTTP layer serves them).
    pub fn metrics_options(&self) -> Option<&crate::metrics::MetricsOptions> {
        self.inner.metrics.as_deref().map(Metrics::options)
    }
}

impl Metered<'_> {
    /// The call ended with `outcome` (`env`'s note says why a refusal or error happened).
    pub(super) fn done(self, outcome: &Outcome, env: &Env) {
        let note = *env.audit_note.lock().unwrap_or_else(|e| e.into_inner());
        let outcome = call_outcome(outcome, note);
        self.metrics.call(
            self.kind,
            self.name,
            outcome,
            self.started.elapsed().as_secs_f64(),
        );
    }
}

/// ok | is_error | input_required | task | error | timeout | cancelled: the audit record's
/// outcomes, so a dashboard and the audit log agree.
fn call_outcome(outcome: &Outcome, note: Option<&'static str>) -> &'static str {
    if note == Some("timeout") {
        return "timeout";
    }
    match outcome {
        Outcome::Result(v) => match v.get("resultType").and_then(Value::as_str) {
            _ if note.is_some() => "is_error",
            Some("input_required") => "input_required",
            Some("task") => "task",
            _ if v.get("isError").and_then(Value::as_bool) == Some(true) => "is_error",
            _ => "ok",
        },
        Outcome::Tool(a) if note.is_some() || a.result.is_error => "is_error",
        Outcome::Tool(_) | Outcome::Rendered(_) | Outcome::Contents(_) => "ok",
        Outcome::Error(_) => "error",
        Outcome::Nothing => "cancelled",
    }
}
