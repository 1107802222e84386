//! Typed errors. Each is mapped to the wire exactly once: `HandlerError` in the dispatcher,
//! `McpError` in the JSON-RPC envelope, HTTP statuses in `transport::http`.

use crate::protocol::Era;
use serde_json::{json, Value};
use std::fmt;

/// A JSON-RPC error code. Newtype so that codes are typed, not bare integers.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    pub const PARSE_ERROR: Self = Self(-32700);
    pub const INVALID_REQUEST: Self = Self(-32600);
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    pub const INVALID_PARAMS: Self = Self(-32602);
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// A mirrored HTTP header is missing, differs from the body, or is malformed (2026-07-28).
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// The request needs a client capability it did not declare (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// The requested protocol version is not served (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);
    /// Legacy (≤ 2025-11-25) resource-not-found. Never sent to modern requests.
    pub const RESOURCE_NOT_FOUND_LEGACY: Self = Self(-32002);
    /// Legacy 2025-11-25 URL elicitation required.
    pub const URL_ELICITATION_REQUIRED: Self = Self(-32042);
    // Ours, in the application-defined range as the spec asks: `-31000 - HTTP status`.
    /// A call refused for missing scopes (HTTP 403 + `insufficient_scope`).
    pub const INSUFFICIENT_SCOPE: Self = Self(-31403);
    /// A request refused by the per-caller rate limit (HTTP 429).
    pub const RATE_LIMITED: Self = Self(-31429);
    /// A request refused by a concurrency cap (HTTP 503).
    pub const SERVER_BUSY: Self = Self(-31503);

    /// The code's name in the audit record (`error_class`).
    pub(crate) fn class(self) -> &'static str {
        match self.0 {
            -32700 => "parse_error",
            -32600 => "invalid_request",
            -32601 => "method_not_found",
            -32602 => "invalid_params",
            -32603 => "internal_error",
            -32020 => "header_mismatch",
            -32021 => "missing_client_capability",
            -32022 => "unsupported_protocol_version",
            -32002 => "resource_not_found",
            -32042 => "url_elicitation_required",
            -31403 => "insufficient_scope",
            -31429 => "rate_limited",
            -31503 => "server_busy",
            _ => "application_error",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A protocol-level error: becomes a JSON-RPC error response.
#[derive(Clone, Debug, PartialEq)]
pub struct McpError {
    pub code: ErrorCode,
    pub message: String,
    pub data: Option<Value>,
    /// HTTP status forced by the rule that produced it (e.g. 400 for malformed `_meta`).
    /// `None` lets the HTTP layer map the code.
    pub(crate) http_status: Option<u16>,
}

impl McpError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
            http_status: None,
        }
    }
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
    /// Force the HTTP status this error travels with (bindings building errors for HTTP).
    pub fn with_status(mut self, status: u16) -> Self {
        self.http_status = Some(status);
        self
    }
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, message)
    }
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message)
    }
    /// -32601 "Method not found", the method in `data`: JSON-RPC's message as the `mcp` and
    /// TypeScript SDKs send it (a client matching the text sees theirs), the method where the
    /// `mcp` SDK puts it.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(ErrorCode::METHOD_NOT_FOUND, "Method not found")
            .with_data(Value::String(method.to_string()))
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, message)
    }
    /// -32021 with `data.requiredCapabilities` (shaped like `ClientCapabilities`).
    pub fn missing_capability(required: Value) -> Self {
        let names: Vec<&str> = required
            .as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        Self::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            format!(
                "Server requires the {} capability for this request",
                names.join(", ")
            ),
        )
        .with_data(json!({ "requiredCapabilities": required }))
        .with_status(400)
    }
    /// The HTTP status this error travels with: what the rule that raised it demands, else the
    /// spec's mapping (modern: -32601 → 404; -32020/-32021/-32022 and framing errors → 400).
    pub fn http_status(&self, era: Era) -> u16 {
        if let Some(s) = self.http_status {
            return s;
        }
        match self.code.0 {
            -32700 | -32600 => 400,
            -32601 if era == Era::Modern => 404,
            -32022..=-32020 => 400,
            _ => 200,
        }
    }
    /// The JSON-RPC `error` object.
    pub fn to_json(&self) -> Value {
        let mut e = json!({ "code": self.code.0, "message": self.message });
        if let Some(d) = &self.data {
            e["data"] = d.clone();
        }
        e
    }
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MCP error {}: {}", self.code, self.message)
    }
}
impl std::error::Error for McpError {}

/// A tool-level failure the model should see: becomes a result with `isError: true`.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolError {
    pub message: String,
    /// Optional structured payload for the error result.
    pub structured: Option<Value>,
}

impl ToolError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            structured: None,
        }
    }
}
impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for ToolError {}
impl From<String> for ToolError {
    fn from(s: String) -> Self {
        Self::new(s)
    }
}
impl From<&str> for ToolError {
    fn from(s: &str) -> Self {
        Self::new(s)
    }
}

/// Why a handler did not produce a normal result.
#[derive(Debug)]
pub enum HandlerError {
    /// Shown to the model as an `isError` result.
    Tool(ToolError),
    /// Sent as a JSON-RPC error.
    Mcp(McpError),
    /// The handler asked for client input it does not have yet (MRTR); only `Context` builds it.
    InputRequired(InputRequired),
    /// The request was cancelled; nothing more is sent for it.
    Cancelled,
    /// The handler failed unexpectedly (an exception a binding caught). The core answers with
    /// its one internal-error text — an `isError` result for tools, -32603 for the other kinds —
    /// plus the detail when one is given (a host passes it only when its settings say the detail
    /// may be shown).
    Internal(Option<String>),
    /// The arguments failed the host's own validation (pydantic, zod, serde) after passing the
    /// input schema. The host hands over *what* failed; the core picks the text and the answer
    /// (an `isError` result or -32602, as `ServerOptions::validation` says), so the text is the
    /// same in every language (see [`Violation::at`](crate::schema::Violation::at) for building
    /// one from a host's path).
    InvalidArguments(Vec<crate::schema::Violation>),
}

/// Marker carried by `HandlerError::InputRequired`; the pending requests live in the `Context`.
#[derive(Debug)]
pub struct InputRequired(pub(crate) ());

impl fmt::Display for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Tool(e) => write!(f, "tool error: {e}"),
            Self::Mcp(e) => write!(f, "{e}"),
            Self::InputRequired(_) => f.write_str("input required"),
            Self::Cancelled => f.write_str("cancelled"),
            Self::Internal(d) => write!(f, "internal error: {}", d.as_deref().unwrap_or("-")),
            Self::InvalidArguments(v) => write!(f, "invalid arguments ({} violations)", v.len()),
        }
    }
}
impl std::error::Error for HandlerError {}

impl From<ToolError> for HandlerError {
    fn from(e: ToolError) -> Self {
        Self::Tool(e)
    }
}
impl From<McpError> for HandlerError {
    fn from(e: McpError) -> Self {
        Self::Mcp(e)
    }
}
impl From<String> for HandlerError {
    fn from(e: String) -> Self {
        Self::Tool(ToolError::new(e))
    }
}
impl From<&str> for HandlerError {
    fn from(e: &str) -> Self {
        Self::Tool(ToolError::new(e))
    }
}
impl From<std::convert::Infallible> for HandlerError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}

/// Errors found while building a server or registering a primitive.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BuildError {
    InvalidSchema {
        name: String,
        message: String,
    },
    DuplicateName {
        kind: &'static str,
        name: String,
    },
    BadUriTemplate {
        template: String,
        message: String,
    },
    InvalidName {
        kind: &'static str,
        name: String,
        message: String,
    },
    /// A primitive's own option (a tool's timeout, its `max_concurrency`) out of its range.
    InvalidOption {
        kind: &'static str,
        name: String,
        message: String,
    },
    /// A skill that breaks a rule of the Skills extension: the file (or directory) and the rule.
    Skill {
        file: String,
        message: String,
    },
    /// Two discovered primitives of one kind with the same name (`crate::discovery::admit`):
    /// the places of both.
    DuplicateDiscovered {
        kind: &'static str,
        name: String,
        first: String,
        second: String,
    },
    /// An explicit element whose handler was made for another kind (a prompt's handler given
    /// with a tool's definition): `handler` is the handler's kind.
    WrongHandler {
        kind: &'static str,
        name: String,
        handler: String,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidSchema { name, message } => {
                write!(f, "invalid schema for '{name}': {message}")
            }
            Self::DuplicateName { kind, name } => write!(f, "duplicate {kind} name '{name}'"),
            Self::InvalidOption {
                kind,
                name,
                message,
            } => write!(f, "{kind} '{name}': {message}"),
            Self::BadUriTemplate { template, message } => {
                write!(f, "bad URI template '{template}': {message}")
            }
            Self::InvalidName {
                kind,
                name,
                message,
            } => write!(f, "invalid {kind} name '{name}': {message}"),
            Self::Skill { file, message } => write!(f, "invalid skill file '{file}': {message}"),
            Self::DuplicateDiscovered {
                kind,
                name,
                first,
                second,
            } => write!(
                f,
                "{kind} '{name}' is discovered twice: in {first} and in {second}"
            ),
            Self::WrongHandler {
                kind,
                name,
                handler,
            } => write!(
                f,
                "{kind} '{name}' is given a {handler} handler: an element's handler must be of its definition's kind"
            ),
        }
    }
}
impl std::error::Error for BuildError {}

#[cfg(test)]
mod tests {
    use super::ErrorCode;

    /// The audit record and the request metrics name oxmcp's own refusals by what they are;
    /// only a handler's own codes fall under `application_error`.
    #[test]
    fn our_refusal_codes_have_their_own_class() {
        assert_eq!(ErrorCode::SERVER_BUSY.class(), "server_busy");
        assert_eq!(ErrorCode::RATE_LIMITED.class(), "rate_limited");
        assert_eq!(ErrorCode::INSUFFICIENT_SCOPE.class(), "insufficient_scope");
        assert_eq!(ErrorCode(-32042).class(), "url_elicitation_required");
        assert_eq!(ErrorCode(-1).class(), "application_error");
    }
}
