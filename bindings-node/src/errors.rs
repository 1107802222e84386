//! Mapping errors once at the boundary. Every error crosses into JS as an `Error` whose `code`
//! napi sets natively: the error's status is a [`Code`], and napi creates the JS error with
//! `napi_create_error(code, message)`. No "CODE: message" strings; `lib/errors.cjs` only turns a
//! few codes into JS classes (`McpError`, `RegistrationError`), by `err.code`.

use napi::bindgen_prelude::{PromiseRaw, ToNapiValue};
use napi::{Env, JsError, Status};
use oxmcp::{BuildError, HandlerError, McpError};
use std::future::Future;

/// The `err.code` values JS sees (besides napi's own statuses: `InvalidArg`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    InvalidOption,
    InvalidSchema,
    DuplicateName,
    BadUriTemplate,
    InvalidDefinition,
    /// The message is the JSON-RPC error object `{code, message, data}` (JS rebuilds an
    /// `McpError` from it).
    McpError,
    InputRequired,
    Cancelled,
    CallEnded,
    ToolError,
    Closed,
    ListenFailed,
    TransportError,
    /// A napi failure (a value of the wrong type, ...): its status is the code.
    Napi(Status),
}

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        match self {
            Self::InvalidOption => "INVALID_OPTION",
            Self::InvalidSchema => "INVALID_SCHEMA",
            Self::DuplicateName => "DUPLICATE_NAME",
            Self::BadUriTemplate => "BAD_URI_TEMPLATE",
            Self::InvalidDefinition => "INVALID_DEFINITION",
            Self::McpError => "MCP_ERROR",
            Self::InputRequired => "INPUT_REQUIRED",
            Self::Cancelled => "CANCELLED",
            Self::CallEnded => "CALL_ENDED",
            Self::ToolError => "TOOL_ERROR",
            Self::Closed => "CLOSED",
            Self::ListenFailed => "LISTEN_FAILED",
            Self::TransportError => "TRANSPORT_ERROR",
            Self::Napi(s) => s.as_ref(),
        }
    }
}

/// An error on its way to JS: a code and a message (plain data, so it crosses threads).
#[derive(Debug)]
pub struct Coded {
    pub code: Code,
    pub message: String,
}

/// The binding's result type: `#[napi]` functions returning it throw a JS error with
/// `err.code` = the [`Code`].
pub(crate) type Result<T> = std::result::Result<T, Coded>;

pub(crate) fn coded(code: Code, message: impl std::fmt::Display) -> Coded {
    Coded {
        code,
        message: message.to_string(),
    }
}

impl From<napi::Error> for Coded {
    fn from(e: napi::Error) -> Self {
        coded(Code::Napi(e.status), e.reason)
    }
}

/// What napi's generated glue throws for an `Err` (its `JsError::from(err).throw_into(env)`).
impl From<Coded> for JsError<Code> {
    fn from(c: Coded) -> Self {
        napi::Error::new(c.code, c.message).into()
    }
}

/// `env.spawn_future` for futures of this crate's [`Result`]: napi's own rejects with a
/// `Status` code, so the JS error is made here, on the JS thread, with the typed code.
pub(crate) fn spawn<'env, T, F>(env: &'env Env, fut: F) -> Result<PromiseRaw<'env, T>>
where
    T: 'static + Send + ToNapiValue,
    F: 'static + Send + Future<Output = Result<T>>,
{
    Ok(
        env.spawn_future_with_callback(async move { Ok(fut.await) }, |env, r| match r {
            Ok(v) => Ok(v),
            Err(c) => Err(napi::Error::from(
                JsError::<Code>::from(c).into_unknown(*env),
            )),
        })?,
    )
}

pub(crate) fn build(e: BuildError) -> Coded {
    let code = match &e {
        BuildError::InvalidSchema { .. } => Code::InvalidSchema,
        BuildError::DuplicateName { .. } => Code::DuplicateName,
        BuildError::DuplicateDiscovered { .. } => Code::DuplicateName,
        BuildError::BadUriTemplate { .. } => Code::BadUriTemplate,
        _ => Code::InvalidDefinition,
    };
    coded(code, e)
}

/// `McpError` → `MCP_ERROR` with the error object as JSON (JS rebuilds an `McpError`).
pub(crate) fn mcp(e: &McpError) -> Coded {
    coded(Code::McpError, e.to_json())
}

/// `HandlerError` (from `Context::elicit` and friends) → a coded JS error.
pub(crate) fn handler(e: &HandlerError) -> Coded {
    match e {
        HandlerError::InputRequired(_) => coded(
            Code::InputRequired,
            "input required (the call ends with input_required and is retried with the answer)",
        ),
        HandlerError::Cancelled => coded(Code::Cancelled, "the request was cancelled"),
        HandlerError::Mcp(m) => mcp(m),
        HandlerError::Tool(t) => coded(Code::ToolError, &t.message),
        HandlerError::Internal(_) => mcp(&McpError::internal("Internal error")),
        HandlerError::InvalidArguments(_) => mcp(&McpError::invalid_params("Invalid arguments")),
    }
}
