//! The numbers a [`Config`] comes to once every default is filled in: what the shared table of
//! option edge values (`tests/config/cases.json`, `accepted`) compares in each language, and
//! what a host may print to show what it serves with.

use super::{Config, Result};
use crate::transport::http::HttpConfig;
use serde_json::{json, Map, Value};
use std::time::Duration;

impl Config {
    /// Every numeric option, by its snake_case name, as it takes effect: sizes and counts as
    /// numbers, times in milliseconds, `null` for "no limit". A listener's are the mount's
    /// (as `ListenOptions::apply` over [`HttpConfig::mount`]) and the stdio transport's.
    pub fn effective(&self) -> Result<Map<String, Value>> {
        let ms = |d: Duration| json!(d.as_millis() as u64);
        let o = self.server.server_options()?;
        let h = self.listen.apply(HttpConfig::mount())?;
        let stdio = self.listen.stdio_config();
        let sse = h.sse.clone().unwrap_or_default();
        let v = json!({
            "cache_ttl_ms": o.cache_default.ttl_ms,
            "page_size": o.page_size,
            "state_ttl_ms": ms(o.state_ttl),
            "tool_timeout_ms": o.tool_timeout.map(ms),
            "max_listeners": o.max_listeners,
            "session_idle_ms": ms(o.session_idle),
            "max_sessions": o.max_sessions,
            "max_sessions_per_caller": o.max_sessions_per_caller,
            "max_in_flight": o.max_in_flight,
            "max_uri_len": o.max_uri_len,
            "max_subscriptions": o.max_subscriptions,
            "max_subscription_bytes": o.max_subscription_bytes,
            "max_client_info_bytes": o.max_client_info_bytes,
            "max_listen_task_ids": o.max_listen_task_ids,
            "max_listeners_per_caller": o.max_listeners_per_caller,
            "max_batch_len": o.max_batch_len,
            "max_tasks_per_caller": o.max_tasks_per_caller,
            "max_task_result_bytes": o.max_task_result_bytes,
            "max_running_tasks_per_caller": o.max_running_tasks_per_caller,
            "max_body_bytes": h.max_body,
            "max_string_bytes": h.max_string,
            "max_line_bytes": stdio.max_line,
            "keep_alive_ms": ms(h.keep_alive),
            "header_timeout_ms": ms(h.header_timeout),
            "body_timeout_ms": ms(h.body_timeout),
            "drain_timeout_ms": ms(h.drain_timeout),
            "max_headers": h.max_headers,
            "max_header_bytes": h.max_header_bytes,
            "max_connections": h.max_connections,
            "max_connections_per_client": h.max_connections_per_client,
            "sse_max_queued_bytes": sse.max_queued_bytes,
            "http2_max_concurrent_streams": h.http2_max_concurrent_streams,
            "http2_max_pending_accept_reset_streams": h.http2_max_pending_accept_reset_streams,
            "http2_max_local_error_reset_streams": h.http2_max_local_error_reset_streams,
        });
        Ok(v.as_object().cloned().unwrap_or_default())
    }
}
