//! Mapping errors once at the boundary. JS sees `Error` objects whose message starts with a
//! stable `CODE: ` prefix (`lib/errors.cjs` `fromNative` turns them into typed JS errors).

use napi::{Error, Status};
use oxmcp::{HandlerError, McpError};

/// A napi error carrying a stable code prefix.
pub(crate) fn coded(code: &str, message: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, format!("{code}: {message}"))
}

/// `McpError` → `MCP_ERROR: {"code":…,"message":…,"data":…}` (JS rebuilds an `McpError`).
pub(crate) fn mcp(e: &McpError) -> Error {
    coded("MCP_ERROR", e.to_json())
}

/// `HandlerError` (from `Context::elicit` and friends) → a coded JS error.
pub(crate) fn handler(e: &HandlerError) -> Error {
    match e {
        HandlerError::InputRequired(_) => coded(
            "INPUT_REQUIRED",
            "input required (the call ends with input_required and is retried with the answer)",
        ),
        HandlerError::Cancelled => coded("CANCELLED", "the request was cancelled"),
        HandlerError::Mcp(m) => mcp(m),
        HandlerError::Tool(t) => coded("TOOL_ERROR", &t.message),
    }
}
