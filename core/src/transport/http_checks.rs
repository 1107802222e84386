//! The checks a request passes before dispatch: the DNS-rebinding guard (`Host`, `Origin`:
//! 403), and the 2026-07-28 header rules, `MCP-Protocol-Version` against `_meta`, `Mcp-Method`,
//! `Mcp-Name` and `Mcp-Param-*` (x-mcp-header), each a 400 with -32020/-32022/-32602.

use super::headers;
use super::http::*;
use crate::authority::{origin_entry_matches, Authority, Origin};
use crate::error::{ErrorCode, McpError};
use crate::protocol::{Method, SUPPORTED_VERSIONS};
use crate::server::era::check_version;
use http::{HeaderMap, HeaderValue, StatusCode};
use serde_json::{json, Value};

/// The error for a revision this server does not speak (400).
pub(super) fn unsupported(v: &str) -> McpError {
    McpError::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        format!("Unsupported protocol version: {v}"),
    )
    .with_data(json!({"supported": SUPPORTED_VERSIONS, "requested": v}))
}

impl HttpHandler {
    /// The 2026-07-28 header rules (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`).
    pub(super) fn check_modern_headers(
        &self,
        h: &HeaderMap,
        seen: &headers::PostHeaders<'_>,
        header_version: Option<&str>,
        rq: &crate::jsonrpc::Request,
        caller: Option<&crate::identity::Caller>,
    ) -> Result<(), (StatusCode, McpError)> {
        let (method, params) = (&rq.method, rq.params.as_ref());
        let mismatch = |m: String| {
            (
                StatusCode::BAD_REQUEST,
                McpError::new(ErrorCode::HEADER_MISMATCH, m),
            )
        };
        let meta_version = rq.meta.as_ref().and_then(|m| m.version()).map(|v| &**v);
        let Some(hv) = header_version else {
            return Err(mismatch(
                "Header mismatch: missing MCP-Protocol-Version header".into(),
            ));
        };
        let Some(mv) = meta_version else {
            return Err((
                StatusCode::BAD_REQUEST,
                McpError::invalid_params("Missing _meta io.modelcontextprotocol/protocolVersion"),
            ));
        };
        if hv != mv {
            return Err(mismatch(format!("Header mismatch: MCP-Protocol-Version header value '{hv}' does not match body value '{mv}'")));
        }
        check_version(mv).map_err(|e| (StatusCode::BAD_REQUEST, e))?;
        match seen.method.value() {
            Some(Ok(m)) if m == method.as_str() => {}
            Some(Ok(m)) => return Err(mismatch(format!("Header mismatch: Mcp-Method header value '{m}' does not match body value '{method}'"))),
            _ => return Err(mismatch("Header mismatch: missing or invalid Mcp-Method header".into())),
        }
        let name_key = match method {
            Method::ToolsCall | Method::PromptsGet => Some("name"),
            Method::ResourcesRead => Some("uri"),
            // The Tasks extension: routing to the replica holding the task.
            m if m.is_task() => Some("taskId"),
            _ => None,
        };
        if let Some(k) = name_key {
            if let Some(body) = params.and_then(|p| p.get(k)).and_then(Value::as_str) {
                match seen.name.value().map(|r| r.and_then(headers::decode)) {
                    Some(Ok(n)) if n == body => {}
                    Some(Ok(n)) => {
                        return Err(mismatch(format!("Header mismatch: Mcp-Name header value '{n}' does not match body value '{body}'")))
                    }
                    _ => return Err(mismatch("Header mismatch: missing or invalid Mcp-Name header".into())),
                }
            }
        }
        if *method == Method::ToolsCall {
            self.check_param_headers(h, params, caller)
                .map_err(mismatch)?;
        }
        Ok(())
    }

    pub(super) fn check_param_headers(
        &self,
        h: &HeaderMap,
        params: Option<&crate::jsonrpc::ParamsIn>,
        caller: Option<&crate::identity::Caller>,
    ) -> Result<(), String> {
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return Ok(());
        };
        // The allow-list first: a tool hidden from the caller is unknown
        // here too, so its header rules are not checked and a -32020 cannot reveal it; dispatch
        // then answers "Unknown tool" as for any missing one.
        if caller.is_some_and(|c| !c.may_use("tool", name)) {
            return Ok(());
        }
        // The registry's tool, else one a middleware's `tools/list` listed (a low-level
        // server's): the same rule for both. With a host's lookup by name, a tool the registry
        // does not hold is checked after this, against what the lookup gives
        // (`looked_up_param_check`).
        let reg = self.server.snapshot();
        let registry_headers = reg.rendered.any_param_headers(&reg.tools);
        if !registry_headers && !self.server.any_listed_tool_headers() {
            return Ok(());
        }
        let listed;
        let pairs: &[(String, String)] = match reg.tools.get(name) {
            Some(_) if !registry_headers => return Ok(()),
            Some(tool) => &tool.mcp_headers,
            None if self.server.has_tool_schema_lookup() => return Ok(()),
            None => match self.server.listed_tool_headers(name) {
                Some(h) => {
                    listed = h;
                    &listed
                }
                None => return Ok(()),
            },
        };
        check_pairs(h, params.and_then(|p| p.get("arguments")), pairs)
    }

    /// The `Mcp-Param-*` check of a modern `tools/call` for a tool the registry does not hold,
    /// when the host looks input schemas up by name (`Server::set_tool_schema_lookup`): the
    /// lookup's future, or `None` when there is nothing to check. As the SDK, a call with no
    /// arguments and no `Mcp-Param-*` header is not looked up (nothing can be violated).
    pub(super) fn looked_up_param_check(
        &self,
        rq: &crate::jsonrpc::Request,
        h: &HeaderMap,
        caller: Option<&crate::identity::Caller>,
    ) -> Option<crate::BoxFuture<Result<(), (StatusCode, McpError)>>> {
        if rq.method != Method::ToolsCall || !self.server.has_tool_schema_lookup() {
            return None;
        }
        let params = rq.params.as_ref();
        let name = params.and_then(|p| p.get("name")).and_then(Value::as_str)?;
        if caller.is_some_and(|c| !c.may_use("tool", name))
            || self.server.snapshot().tools.get(name).is_some()
        {
            return None;
        }
        let args = params.and_then(|p| p.get("arguments")).cloned();
        let empty = args
            .as_ref()
            .is_none_or(|a| a.as_object().is_some_and(|m| m.is_empty()));
        let any_header = h.keys().any(|k| k.as_str().starts_with("mcp-param-"));
        if empty && !any_header {
            return None;
        }
        let rules = self.server.looked_up_tool_headers(name);
        let h = h.clone();
        // Boxed here: `post` holds only the pointer, and its future stays small.
        Some(Box::pin(async move {
            let Some(pairs) = rules.await else {
                return Ok(());
            };
            check_pairs(&h, args.as_ref(), &pairs).map_err(|m| {
                (
                    StatusCode::BAD_REQUEST,
                    McpError::new(ErrorCode::HEADER_MISMATCH, m),
                )
            })
        }))
    }
}

/// `Mcp-Param-*` headers against the arguments, by a tool's `(header, pointer)` pairs.
fn check_pairs(
    h: &HeaderMap,
    args: Option<&Value>,
    pairs: &[(String, String)],
) -> Result<(), String> {
    for (hname, pointer) in pairs {
        let full = format!("mcp-param-{}", hname.to_ascii_lowercase());
        let value = args
            .and_then(|a| a.pointer(pointer))
            .filter(|v| !v.is_null());
        let header = headers::get(h, &full);
        match (value, header) {
            (None, None) => {}
            (None, Some(r)) => {
                if r.and_then(headers::decode).is_err() {
                    return Err(format!("Header mismatch: invalid Mcp-Param-{hname} header"));
                }
            }
            (Some(_), None) => {
                return Err(format!("Header mismatch: missing Mcp-Param-{hname} header"))
            }
            (Some(v), Some(r)) => match r.and_then(headers::decode) {
                Ok(d) if headers::matches_value(&d, v) => {}
                _ => {
                    return Err(format!(
                        "Header mismatch: Mcp-Param-{hname} header does not match the argument"
                    ))
                }
            },
        }
    }
    Ok(())
}

impl HttpHandler {
    /// DNS-rebinding protection: `Host` must be allowed; `Origin`, when present, must be too.
    /// Both are parsed ([`Authority`]): loopback means an IP address that `is_loopback()` or the
    /// exact name `localhost`. Without `allowed_hosts` only loopback names pass, wherever the
    /// server is bound, unless `allow_any_host` opts out of the check explicitly.
    /// `host_header` and `origin_header`: the first value of each, if sent.
    // The refusal is the response itself, built once per refused request: a Box would only move
    // it to the heap.
    #[allow(clippy::result_large_err)]
    pub(super) fn guard(
        &self,
        host_header: Option<&HeaderValue>,
        origin_header: Option<&HeaderValue>,
    ) -> Result<(), HttpResponse> {
        let forbidden = |m: &str| {
            Err(HttpResponse::error(
                StatusCode::FORBIDDEN,
                Value::Null,
                McpError::invalid_request(m.to_string()),
            ))
        };
        let raw_host = host_header.and_then(|v| v.to_str().ok()).unwrap_or("");
        // Parsed only where an allow-list or an `Origin` needs it, and then once.
        let parsed_host = std::cell::OnceCell::new();
        let host = || {
            parsed_host
                .get_or_init(|| Authority::parse(raw_host))
                .as_ref()
        };
        let loopback_only = self.config.allowed_hosts.is_empty() && !self.config.allow_any_host;
        let host_ok = if !self.config.allowed_hosts.is_empty() {
            host().is_some_and(|a| self.config.allowed_hosts.iter().any(|e| a.matches_entry(e)))
        } else if loopback_only {
            // HTTP/1.0 without a Host header cannot have been rebound.
            raw_host.is_empty() || Authority::is_loopback_str(raw_host)
        } else {
            true
        };
        if !host_ok {
            return forbidden("Forbidden: Host not allowed");
        }
        if let Some(origin) = origin_header {
            let o = origin.to_str().unwrap_or("");
            let parsed = Origin::parse(o);
            let ok = self
                .config
                .allowed_origins
                .iter()
                .any(|a| origin_entry_matches(a, o, parsed.as_ref()))
                || parsed.as_ref().is_some_and(|p| {
                    host().is_some_and(|h| p.authority == *h)
                        || (loopback_only && p.authority.is_loopback())
                });
            if !ok {
                return forbidden("Forbidden: Origin not allowed");
            }
        }
        Ok(())
    }
}
