//! The era rule, and what it decides about a request before it is routed: whether a request is
//! modern (2026-07-28) or legacy, and a modern request's `_meta` checks (where its client's
//! capabilities and info are read is in `crate::request`, which the `Context` uses too).
//! Every transport and the dispatcher use these, once each per request.

use super::env::Env;
use crate::error::{ErrorCode, McpError};
use crate::protocol::*;
pub(crate) use crate::request::client_caps;
use serde_json::{json, Value};
use std::borrow::Cow;

/// The era of a request — the one rule every transport uses. Modern when `_meta` names a
/// protocol version; otherwise legacy for `initialize` and on a connection that speaks a legacy
/// revision ([`Env::legacy_version`]); otherwise modern (and `_meta` is then required).
pub(crate) fn era_of(method: &Method, meta: Option<&RequestMeta>, env: &Env) -> Era {
    let modern = meta.is_some_and(RequestMeta::has_version);
    if !modern && (*method == Method::Initialize || env.legacy_version().is_some()) {
        Era::Legacy
    } else {
        Era::Modern
    }
}

/// Validate a modern request's `_meta`. Errors carry HTTP 400 (spec MUST).
pub(crate) fn modern_meta(
    meta: Option<&RequestMeta>,
) -> Result<(Cow<'static, str>, Option<LogLevel>), McpError> {
    let bad = |m: &str| McpError::invalid_params(m.to_string()).with_status(400);
    let meta = meta.ok_or_else(|| bad("Missing _meta"))?;
    let version = meta
        .version()
        .ok_or_else(|| bad("Missing _meta io.modelcontextprotocol/protocolVersion"))?;
    check_version(version)?;
    // Checked here, read from `_meta` where needed (`RequestInfo::caps`): not copied.
    if !matches!(meta.caps(), Some(Value::Object(_))) {
        return Err(bad(
            "Missing _meta io.modelcontextprotocol/clientCapabilities",
        ));
    }
    if meta.get(META_CLIENT_INFO).is_some_and(|v| !v.is_object()) {
        return Err(bad(
            "Invalid _meta io.modelcontextprotocol/clientInfo: not an object",
        ));
    }
    let level = match meta.get(META_LOG_LEVEL) {
        None => None,
        Some(l) => Some(
            l.as_str()
                .and_then(LogLevel::parse)
                .ok_or_else(|| bad("Invalid io.modelcontextprotocol/logLevel"))?,
        ),
    };
    Ok((version.clone(), level))
}

/// -32022 for a modern request to a server that serves only the `initialize`-era revisions
/// (`ServerOptions::modern` off): it lists only those, so a dual-era client falls back to
/// `initialize`, as it does with a server of an SDK that predates 2026-07-28.
pub(crate) fn modern_not_served(meta: Option<&RequestMeta>) -> McpError {
    let requested = meta
        .and_then(RequestMeta::version)
        .map_or(MODERN_VERSION, |v| &**v);
    McpError::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        format!("Unsupported protocol version: {requested}: this server speaks the initialize-era revisions only"),
    )
    .with_data(json!({"supported": LEGACY_VERSIONS, "requested": requested}))
    .with_status(400)
}

/// -32022 unless `version` is the modern revision.
pub(crate) fn check_version(version: &str) -> Result<(), McpError> {
    if version == MODERN_VERSION {
        return Ok(());
    }
    let msg = if is_legacy_version(version) {
        format!(
            "Unsupported protocol version {version} in _meta: legacy versions require initialize"
        )
    } else {
        format!("Unsupported protocol version: {version}")
    };
    Err(McpError::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, msg)
        .with_data(json!({"supported": SUPPORTED_VERSIONS, "requested": version}))
        .with_status(400))
}
