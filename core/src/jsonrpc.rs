//! JSON-RPC 2.0 envelopes: classifying an incoming message and building responses.

use crate::error::McpError;
use serde_json::{Map, Value};

/// One incoming JSON-RPC message.
#[derive(Debug, PartialEq)]
pub(crate) enum Message {
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// A client's answer to a server→client request (legacy only).
    Response(Value),
}

/// Classify a parsed message; an invalid one yields the id (if readable) and a -32600 error.
pub(crate) fn classify(v: Value) -> Result<Message, (Value, McpError)> {
    let Value::Object(mut m) = v else {
        return Err((
            Value::Null,
            McpError::invalid_request("A JSON-RPC message must be an object"),
        ));
    };
    let id = m.get("id").cloned();
    let id_for_error = match &id {
        Some(i @ (Value::String(_) | Value::Number(_))) => i.clone(),
        _ => Value::Null,
    };
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err((
            id_for_error,
            McpError::invalid_request("jsonrpc must be \"2.0\""),
        ));
    }
    match m.remove("method") {
        Some(Value::String(method)) => {
            let params = m.remove("params");
            match id {
                None => Ok(Message::Notification { method, params }),
                Some(Value::String(_)) => Ok(Message::Request {
                    id: id.unwrap_or_default(),
                    method,
                    params,
                }),
                Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Ok(Message::Request {
                    id: Value::Number(n),
                    method,
                    params,
                }),
                Some(_) => Err((
                    Value::Null,
                    McpError::invalid_request("id must be a string or an integer"),
                )),
            }
        }
        Some(_) => Err((
            id_for_error,
            McpError::invalid_request("method must be a string"),
        )),
        None if id.is_some() && (m.contains_key("result") || m.contains_key("error")) => {
            m.insert("jsonrpc".into(), Value::String("2.0".into()));
            Ok(Message::Response(Value::Object(m)))
        }
        None => Err((id_for_error, McpError::invalid_request("missing method"))),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classifies_messages() {
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","id":1,"method":"x"})),
            Ok(Message::Request { .. })
        ));
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","method":"x"})),
            Ok(Message::Notification { .. })
        ));
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","id":"a","result":{}})),
            Ok(Message::Response(_))
        ));
        for bad in [
            json!([]),
            json!({"id":1,"method":"x"}),
            json!({"jsonrpc":"2.0","id":null,"method":"x"}),
            json!({"jsonrpc":"2.0","id":1.5,"method":"x"}),
            json!({"jsonrpc":"2.0","id":true,"method":"x"}),
            json!({"jsonrpc":"2.0","id":1}),
            json!({"jsonrpc":"2.0","id":1,"method":7}),
        ] {
            let e = classify(bad.clone()).unwrap_err();
            assert_eq!(e.1.code.0, -32600, "{bad}");
        }
    }
}
