//! Python keyword options → the core's `ServerOptions` (and the HTTP transport's settings).

use oxmcp::server::options::{CacheHint, CacheScope, ServerOptions, ValidationMode};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyDictMethods};
use std::time::Duration;

fn scope(s: &str) -> PyResult<CacheScope> {
    match s {
        "public" => Ok(CacheScope::Public),
        "private" => Ok(CacheScope::Private),
        other => Err(PyValueError::new_err(format!(
            "cache_scope must be 'public' or 'private', not '{other}'"
        ))),
    }
}

/// Keys handled here; the HTTP ones are read by `serve_http`/`http_config`.
pub(crate) const SERVER_KEYS: &[&str] = &[
    "validation",
    "lenient_coercion",
    "cache_ttl_ms",
    "cache_scope",
    "cache",
    "page_size",
    "state_key",
    "state_ttl_ms",
    "include_server_info",
    "tool_timeout_ms",
    "max_listeners",
    "session_idle_ms",
    "max_sessions",
    "legacy_stateless",
    "expose_internal_errors",
    "max_in_flight",
];

pub(crate) fn server_options(opts: &Bound<'_, PyDict>) -> PyResult<ServerOptions> {
    let mut o = ServerOptions::default();
    for (k, v) in opts.iter() {
        let key: String = k.extract()?;
        match key.as_str() {
            "validation" => {
                o.validation = match v.extract::<String>()?.as_str() {
                    "tool_error" => ValidationMode::ToolError,
                    "jsonrpc_error" => ValidationMode::JsonRpcError,
                    other => {
                        return Err(PyValueError::new_err(format!(
                            "validation must be 'tool_error' or 'jsonrpc_error', not '{other}'"
                        )))
                    }
                }
            }
            "lenient_coercion" => o.lenient_coercion = v.extract()?,
            "cache_ttl_ms" => o.cache_default.ttl_ms = v.extract()?,
            "cache_scope" => o.cache_default.scope = scope(&v.extract::<String>()?)?,
            "cache" => {
                // {"tools/list": {"ttl_ms": 60000, "scope": "public"}, ...}
                let d = v.cast::<PyDict>()?;
                for (m, hint) in d.iter() {
                    let hint = hint.cast::<PyDict>()?;
                    let ttl_ms: u64 = match hint.get_item("ttl_ms")? {
                        Some(t) => t.extract()?,
                        None => 0,
                    };
                    let sc = match hint.get_item("scope")? {
                        Some(s) => scope(&s.extract::<String>()?)?,
                        None => CacheScope::Private,
                    };
                    o.cache
                        .insert(m.extract()?, CacheHint { ttl_ms, scope: sc });
                }
            }
            "page_size" => o.page_size = v.extract()?,
            "state_key" => {
                o.state_key = Some(if let Ok(s) = v.extract::<String>() {
                    s.into_bytes()
                } else {
                    v.extract::<Vec<u8>>()?
                })
            }
            "state_ttl_ms" => o.state_ttl = Duration::from_millis(v.extract()?),
            "include_server_info" => o.include_server_info = v.extract()?,
            "tool_timeout_ms" => {
                o.tool_timeout = v.extract::<Option<u64>>()?.map(Duration::from_millis);
            }
            "max_listeners" => o.max_listeners = v.extract()?,
            "session_idle_ms" => o.session_idle = Duration::from_millis(v.extract()?),
            "max_sessions" => o.max_sessions = v.extract()?,
            "legacy_stateless" => o.legacy_stateless = v.extract()?,
            "expose_internal_errors" => o.expose_internal_errors = v.extract()?,
            "max_in_flight" => o.max_in_flight = v.extract()?,
            other if crate::serve::HTTP_KEYS.contains(&other) => {}
            other => {
                return Err(PyTypeError::new_err(format!(
                    "unknown server option '{other}'"
                )))
            }
        }
    }
    Ok(o)
}
