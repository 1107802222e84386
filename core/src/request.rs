//! What the server knows about a request besides its message, shared by the transport that
//! builds the request's `Env`, the dispatcher and the handler's `Context`: the transport it
//! arrived on, the HTTP request that carried it, the digest of its arguments that an MRTR
//! state is bound to, and where its client's capabilities and info are read per era. It
//! imports nothing of the server or the transports, so the `Context` below them can hold it.

use crate::error::McpError;
use crate::jsonrpc::Params;
use crate::protocol::{Era, RequestMeta, META_CLIENT_INFO};
use bytes::Bytes;
use http::{HeaderMap, Method};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::net::SocketAddr;
use std::sync::Arc;

/// Which transport a message arrived on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transport {
    Http,
    Stdio,
}

/// The HTTP request that carried a message, as its handler may see it
/// ([`crate::Context::http_request`]): what FastMCP's `get_http_request()` gives Python code.
/// The headers are all of them, `Authorization` included: they are the server's own request.
#[derive(Debug)]
pub struct HttpRequestInfo {
    pub method: Method,
    pub path: String,
    /// The query string, without the `?` (empty when there is none).
    pub query: String,
    pub headers: HeaderMap,
    /// The client's address, when the host knows it.
    pub peer: Option<SocketAddr>,
    /// Over a Unix domain socket: who the client process is, as the kernel tells it.
    pub peer_cred: Option<PeerCred>,
    /// The body as it came: a first round's MRTR digest is read from it if its handler asks for
    /// input ([`ArgsDigest`]).
    pub(crate) body: Bytes,
}

/// The credentials of the process at the other end of a Unix domain socket (`SO_PEERCRED`, or
/// `getpeereid` where that is what the system has): the kernel's word, which a client cannot forge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PeerCred {
    pub uid: u32,
    pub gid: u32,
    /// Not every system tells it.
    pub pid: Option<i32>,
}

tokio::task_local! {
    /// The credentials of the connection a request came in on, while the built-in server serves
    /// it: set around the handler by the connection's task (a Unix socket's only), read where the
    /// request's [`HttpRequestInfo`] is made, so that the transport-neutral handler's signature,
    /// which every host calls, carries nothing only the built-in server knows.
    pub(crate) static PEER_CRED: PeerCred;
}

/// SHA-256 of the canonical JSON of a call's `arguments` (`None`: no arguments).
pub(crate) fn args_digest(args: Option<&Value>) -> [u8; 32] {
    // Streamed into the hasher: no buffer, and no allocation at all for the usual arguments
    // (every tools/call pays this before its handler runs).
    let mut h = Sha256::new();
    canonical(args.unwrap_or(&Value::Null), &mut h);
    h.finalize().into()
}

/// The [`args_digest`] a call's state is bound to, as far as it is known yet. Only a call that
/// seals a state (its handler asked for input) or opens one (a retry) needs it, and few calls
/// do; computing it for every call (a canonical walk and a SHA-256) cost about 0.4 µs of a
/// `tools/call`'s CPU on a busy server. So a request whose HTTP body is that message
/// alone keeps the body (it is in the request's `HttpRequestInfo` already), and the digest is
/// taken from it when it is needed.
#[derive(Clone)]
pub(crate) enum ArgsDigest {
    Known([u8; 32]),
    /// Of the `params.arguments` of the one JSON-RPC message this HTTP body holds.
    InBody(Arc<HttpRequestInfo>),
}

impl Default for ArgsDigest {
    fn default() -> Self {
        Self::Known([0; 32])
    }
}

impl ArgsDigest {
    /// For a request's `params` as the client sent them (`body`, when given, holds that one
    /// message). A legacy request asks its client directly and never seals nor opens a state:
    /// zeros. A retry (it carries a `requestState`) opens its state at every step that reads
    /// answers, so its digest is taken now, once. A first round is read from `body` only if
    /// its handler asks for input; without a body it is taken now.
    pub(crate) fn of(era: Era, params: &Params, body: Option<&Arc<HttpRequestInfo>>) -> Self {
        let retry = params.get("requestState").is_some_and(|s| !s.is_null());
        match (era, body) {
            (Era::Legacy, _) => Self::Known([0; 32]),
            (Era::Modern, Some(info)) if !retry => Self::InBody(info.clone()),
            (Era::Modern, _) => Self::Known(args_digest(params.get("arguments"))),
        }
    }

    pub(crate) fn get(&self) -> Result<[u8; 32], McpError> {
        match self {
            Self::Known(d) => Ok(*d),
            // The body was read once already, within the limits; no limit is applied again.
            Self::InBody(info) => match crate::jsonrpc::parse_incoming(&info.body, usize::MAX) {
                Ok(crate::jsonrpc::Incoming::One(e)) => {
                    Ok(args_digest(e.params().and_then(|p| p.get("arguments"))))
                }
                _ => Err(McpError::internal(
                    "the request's body could not be read again",
                )),
            },
        }
    }
}

/// JSON with object keys sorted at every level: the same arguments hash the same whatever
/// order the client sends their keys in.
fn canonical(v: &Value, out: &mut Sha256) {
    match v {
        Value::Object(m) => {
            out.update(b"{");
            // serde_json's map is sorted already unless a crate in the build turns on its
            // `preserve_order` feature (features unify): sort only then.
            if m.keys().zip(m.keys().skip(1)).all(|(a, b)| a < b) {
                for (i, (k, x)) in m.iter().enumerate() {
                    entry(i, k, x, out);
                }
            } else {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                for (i, k) in keys.into_iter().enumerate() {
                    entry(i, k, &m[k], out);
                }
            }
            out.update(b"}");
        }
        Value::Array(a) => {
            out.update(b"[");
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.update(b",");
                }
                canonical(x, out);
            }
            out.update(b"]");
        }
        other => serde_json::to_writer(&mut *out, other).unwrap_or_default(),
    }
}

fn entry(i: usize, k: &str, v: &Value, out: &mut Sha256) {
    if i > 0 {
        out.update(b",");
    }
    serde_json::to_writer(&mut *out, k).unwrap_or_default();
    out.update(b":");
    canonical(v, out);
}

/// The client's capabilities as a request or its `Context` keeps them: `own` (legacy), or from
/// a modern request's `_meta`.
pub(crate) fn client_caps<'a>(
    own: Option<&'a Value>,
    era: Era,
    meta: &'a RequestMeta,
) -> &'a Value {
    static NONE: Value = Value::Null;
    match (own, era) {
        (Some(c), _) => c,
        (None, Era::Modern) => meta.caps().unwrap_or(&NONE),
        (None, Era::Legacy) => &NONE,
    }
}

/// The client's info as a request or its `Context` keeps it: `own` (legacy), or from a modern
/// request's `_meta`.
pub(crate) fn client_info<'a>(
    own: Option<&'a Value>,
    era: Era,
    meta: &'a RequestMeta,
) -> Option<&'a Value> {
    match (own, era) {
        (Some(i), _) => Some(i),
        (None, Era::Modern) => meta.get(META_CLIENT_INFO),
        (None, Era::Legacy) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_args_digest_is_of_the_sorted_json_text() {
        // The hashed text is fixed: states sealed by an earlier build still open.
        let want: [u8; 32] = Sha256::digest(br#"{"a":[{"x":"s\n","y":2}],"b":null}"#).into();
        let args = json!({"b": null, "a": [{"y": 2, "x": "s\n"}]});
        assert_eq!(args_digest(Some(&args)), want);
        let none: [u8; 32] = Sha256::digest(b"null").into();
        assert_eq!(args_digest(None), none);
    }
}
