//! JSON-RPC 2.0 envelopes: classifying an incoming message, building responses. How the bytes
//! are read (with the checks every transport applies) is `read.rs`.

mod params;
mod read;
#[cfg(test)]
mod tests;
pub(crate) mod write;

pub(crate) use params::{Params, ParamsIn};
pub(crate) use read::{parse, parse_incoming, ParseError};

use crate::error::McpError;

/// The largest integer every host holds exactly (JavaScript's `Number.MAX_SAFE_INTEGER`): a JSON
/// number beyond it is a different number in Node than in Rust or Python, so no option or limit
/// takes one (`oxmcp::config` refuses `2**64` and `1e300` by the option's name).
pub const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;
use crate::protocol::{Method, RequestMeta};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// One incoming JSON-RPC message.
#[derive(Debug, PartialEq)]
pub(crate) enum Message {
    Request(Request),
    Notification {
        method: Method,
        params: Option<Value>,
    },
    /// A client's answer to a server→client request (legacy only).
    Response(Value),
}

/// One request as read.
#[derive(Debug, PartialEq)]
pub(crate) struct Request {
    pub(crate) id: Value,
    pub(crate) method: Method,
    /// Without its `_meta` object, which is `meta`.
    pub(crate) params: Option<ParamsIn>,
    /// Shared with the request's `RequestInfo` and its handler's `Context` as it is: and a
    /// request moved whole (it is, several times, and kept in its boxed future) stays small.
    pub(crate) meta: Option<std::sync::Arc<RequestMeta>>,
}

/// What a transport reads first: a batch, or one message's members. A message object's
/// envelope is matched member by member as it is parsed, so no map is built for it (a map of
/// four owned keys per request, only to be taken apart again by [`Envelope::classify`]).
// Read and taken apart at once, never stored: boxing the envelope would add an allocation to
// every request to save stack space for a moment.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Incoming {
    Batch(Vec<Value>),
    One(Envelope),
}

/// The members of one incoming message: the four of JSON-RPC, and the others (a client
/// response's `result` or `error`, or unknown ones). `object` is false when the message is
/// not an object at all. An object `params._meta` is read apart, into `meta`.
#[derive(Debug, Default)]
pub(crate) struct Envelope {
    object: bool,
    jsonrpc: Option<Version>,
    id: Option<Value>,
    method: Option<Member>,
    params: Option<ParamsIn>,
    meta: Option<RequestMeta>,
    rest: Map<String, Value>,
}

/// The `jsonrpc` member: only whether it is the string "2.0" matters, so nothing is kept.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Version {
    V2,
    Other,
}

/// The `method` member: a string, parsed into its [`Method`] as it is read, or any other JSON,
/// which the JSON-RPC rules refuse.
#[derive(Debug)]
enum Member {
    Str(Method),
    Other,
}

impl Version {
    fn of(s: Option<&str>) -> Self {
        match s {
            Some("2.0") => Version::V2,
            _ => Version::Other,
        }
    }
}

impl Member {
    /// A method string, parsed once.
    fn of(s: Cow<'_, str>) -> Self {
        Member::Str(Method::parse(s))
    }
}

impl Envelope {
    fn from_value(v: Value) -> Self {
        let Value::Object(mut m) = v else {
            return Envelope::default();
        };
        let (params, meta) = match m.remove("params") {
            Some(Value::Object(mut p)) => {
                let meta = match p.remove("_meta") {
                    Some(Value::Object(meta)) => Some(RequestMeta::from_map(meta)),
                    Some(other) => {
                        p.insert("_meta".into(), other);
                        None
                    }
                    None => None,
                };
                (Some(ParamsIn::Object(Params::from_map(p))), meta)
            }
            other => (other.map(ParamsIn::Other), None),
        };
        Envelope {
            object: true,
            jsonrpc: m.remove("jsonrpc").map(|v| Version::of(v.as_str())),
            id: m.remove("id"),
            method: m.remove("method").map(|v| match v {
                Value::String(s) => Member::of(Cow::Owned(s)),
                _ => Member::Other,
            }),
            params,
            meta,
            rest: m,
        }
    }

    /// The message's `params`, without an object `_meta`.
    pub(crate) fn params(&self) -> Option<&ParamsIn> {
        self.params.as_ref()
    }

    /// A 2026-07-28 request or notification: a method, and the protocol version in `_meta`.
    pub(crate) fn is_modern(&self) -> bool {
        self.method.is_some() && self.meta.as_ref().is_some_and(RequestMeta::has_version)
    }

    /// The JSON-RPC rules; an invalid message yields the id (if readable) and a -32600 error.
    pub(crate) fn classify(self) -> Result<Message, (Value, McpError)> {
        if !self.object {
            return Err((
                Value::Null,
                McpError::invalid_request("A JSON-RPC message must be an object"),
            ));
        }
        let id_for_error = match &self.id {
            Some(i @ (Value::String(_) | Value::Number(_))) => i.clone(),
            _ => Value::Null,
        };
        if self.jsonrpc != Some(Version::V2) {
            return Err((
                id_for_error,
                McpError::invalid_request("jsonrpc must be \"2.0\""),
            ));
        }
        let (id, params, meta) = (self.id, self.params, self.meta);
        match self.method {
            Some(Member::Str(method)) => match id {
                None => Ok(Message::Notification {
                    method,
                    params: rejoin(params, meta),
                }),
                Some(id @ Value::String(_)) => Ok(Message::Request(Request {
                    id,
                    method,
                    params,
                    meta: meta.map(std::sync::Arc::new),
                })),
                Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {
                    Ok(Message::Request(Request {
                        id: Value::Number(n),
                        method,
                        params,
                        meta: meta.map(std::sync::Arc::new),
                    }))
                }
                Some(_) => Err((
                    Value::Null,
                    McpError::invalid_request("id must be a string or an integer"),
                )),
            },
            Some(Member::Other) => Err((
                id_for_error,
                McpError::invalid_request("method must be a string"),
            )),
            None if id.is_some()
                && (self.rest.contains_key("result") || self.rest.contains_key("error")) =>
            {
                let mut m = self.rest;
                m.insert("jsonrpc".into(), Value::String("2.0".into()));
                m.extend(id.map(|i| ("id".to_string(), i)));
                m.extend(rejoin(params, meta).map(|p| ("params".to_string(), p)));
                Ok(Message::Response(Value::Object(m)))
            }
            None => Err((id_for_error, McpError::invalid_request("missing method"))),
        }
    }
}

/// `params` with its `_meta` back in it, for the messages that are not requests.
fn rejoin(params: Option<ParamsIn>, meta: Option<RequestMeta>) -> Option<Value> {
    match (params, meta) {
        (Some(ParamsIn::Object(p)), Some(m)) => {
            let mut p = p.into_map();
            p.insert("_meta".into(), Value::Object(m.to_map()));
            Some(Value::Object(p))
        }
        (p, _) => p.map(ParamsIn::into_value),
    }
}

/// Classify a parsed message (stdio and batches: the message is a value already).
pub(crate) fn classify(v: Value) -> Result<Message, (Value, McpError)> {
    Envelope::from_value(v).classify()
}

pub(crate) fn ok(id: Value, result: Value) -> Value {
    let mut m = Map::with_capacity(3);
    m.insert("jsonrpc".into(), Value::String("2.0".into()));
    m.insert("id".into(), id);
    m.insert("result".into(), result);
    Value::Object(m)
}

/// An error response. `id` is `Null` only when the request id could not be read.
pub(crate) fn error(id: Value, e: &McpError) -> Value {
    let mut m = Map::with_capacity(3);
    m.insert("jsonrpc".into(), Value::String("2.0".into()));
    if !id.is_null() {
        m.insert("id".into(), id);
    }
    m.insert("error".into(), e.to_json());
    Value::Object(m)
}
