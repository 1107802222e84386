//! The 2026-07-28 header rules checked before dispatch: `MCP-Protocol-Version` against `_meta`,
//! `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` (x-mcp-header), each a 400 with -32020/-32022/-32602.

use super::headers;
use super::http::*;
use crate::error::{ErrorCode, McpError};
use crate::protocol::SUPPORTED_VERSIONS;
use crate::server::dispatch::check_version;
use http::{HeaderMap, StatusCode};
use serde_json::{json, Value};

impl HttpHandler {
    pub(super) fn unsupported(&self, id: Value, v: &str) -> HttpResponse {
        let e = McpError::new(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            format!("Unsupported protocol version: {v}"),
        )
        .with_data(json!({"supported": SUPPORTED_VERSIONS, "requested": v}));
        HttpResponse::error(StatusCode::BAD_REQUEST, id, e)
    }

    /// The 2026-07-28 header rules (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`).
    pub(super) fn check_modern_headers(
        &self,
        h: &HeaderMap,
        seen: &headers::PostHeaders<'_>,
        header_version: Option<&str>,
        rq: &crate::jsonrpc::Request,
        caller: Option<&crate::identity::Caller>,
    ) -> Result<(), (StatusCode, McpError)> {
        let (method, params) = (&*rq.method, rq.params.as_ref());
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
            Some(Ok(m)) if m == method => {}
            Some(Ok(m)) => return Err(mismatch(format!("Header mismatch: Mcp-Method header value '{m}' does not match body value '{method}'"))),
            _ => return Err(mismatch("Header mismatch: missing or invalid Mcp-Method header".into())),
        }
        let name_key = match method {
            "tools/call" | "prompts/get" => Some("name"),
            "resources/read" => Some("uri"),
            // The Tasks extension: routing to the replica holding the task.
            "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
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
        if method == "tools/call" {
            self.check_param_headers(h, params, caller)
                .map_err(mismatch)?;
        }
        Ok(())
    }

    pub(super) fn check_param_headers(
        &self,
        h: &HeaderMap,
        params: Option<&Value>,
        caller: Option<&crate::identity::Caller>,
    ) -> Result<(), String> {
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return Ok(());
        };
        // The allow-list first (issue 11, finding 9): a tool hidden from the caller is unknown
        // here too, so its header rules are not checked and a -32020 cannot reveal it; dispatch
        // then answers "Unknown tool" as for any missing one.
        if caller.is_some_and(|c| !c.may_use("tool", name)) {
            return Ok(());
        }
        let reg = self.server.snapshot();
        if !reg.rendered.any_param_headers(&reg.tools) {
            return Ok(());
        }
        let Some(tool) = reg.tools.get(name) else {
            return Ok(());
        };
        let args = params.and_then(|p| p.get("arguments"));
        for (hname, pointer) in &tool.mcp_headers {
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
}
