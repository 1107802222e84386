//! The Prometheus scrape (`metrics` option) over HTTP: on the server's own listener at
//! `MetricsOptions::path`, or on a listener of its own (`MetricsOptions::address`).
//!
//! Who may scrape: on the server's listener, whoever passes its Host/Origin rule (the
//! DNS-rebinding guard of the MCP endpoint) and, when `token` is set, sends it as a bearer
//! token. On a listener of its own bound to loopback, the same; bound off loopback, the token is
//! required (the configuration refuses one without) and stands in for the Host rule: a page
//! rebound onto the address cannot know it, and Prometheus scrapes a pod by its IP, which no
//! `allowed_hosts` lists.

use super::http::*;
use http::{header, HeaderMap, Method, StatusCode};
use serde_json::Value;
use subtle::ConstantTimeEq;

impl HttpHandler {
    /// The answer to a request for `path` when it is the scrape this listener serves (`own`:
    /// the metrics' own listener); `None` when it is not (metrics off, another path).
    pub(crate) async fn scrape(
        &self,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
        own: Option<std::net::SocketAddr>,
    ) -> Option<HttpResponse> {
        let o = self.server().metrics_options()?;
        if path != o.path || o.address.is_some() != own.is_some() {
            return None;
        }
        let off_loopback = own.is_some_and(|a| !a.ip().to_canonical().is_loopback());
        if !off_loopback {
            if let Err(r) = self.guard(headers.get(header::HOST), headers.get(header::ORIGIN)) {
                return Some(r);
            }
        }
        if let Some(token) = &o.token {
            let sent = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
                .unwrap_or("");
            if !bool::from(sent.as_bytes().ct_eq(token.as_bytes())) {
                self.server().count_auth_failure();
                return Some(
                    HttpResponse::error(
                        StatusCode::UNAUTHORIZED,
                        Value::Null,
                        crate::error::McpError::invalid_request("Unauthorized"),
                    )
                    .header(header::WWW_AUTHENTICATE, "Bearer realm=\"metrics\""),
                );
            }
        }
        if method != Method::GET && method != Method::HEAD {
            return Some(
                HttpResponse::new(StatusCode::METHOD_NOT_ALLOWED).header(header::ALLOW, "GET"),
            );
        }
        let text = self.server().render_metrics().await.unwrap_or_default();
        let mut r = HttpResponse::new(StatusCode::OK)
            .header(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE);
        r.body = ResponseBody::Full(text.into());
        Some(r)
    }
}
