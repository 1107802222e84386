//! JSON-RPC 2.0 envelopes: parsing and classifying an incoming message, building responses.

use crate::error::{ErrorCode, McpError};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};
use std::cell::Cell;
use std::fmt;

/// Why an incoming message was refused before it was read as JSON-RPC.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ParseError {
    /// Not JSON, or nested deeper than serde_json's 128 levels: -32700.
    Syntax(String),
    /// An object names the same key twice: -32700. Parsers disagree on which value wins (first,
    /// last, or an error), so a message whose meaning depends on who reads it is refused, as
    /// I-JSON (RFC 7493) requires.
    DuplicateKey(String),
    /// A string (key or value) over the transport's cap: -32600, and HTTP 413.
    StringTooLong { len: usize, max: usize },
}

impl ParseError {
    pub(crate) fn to_mcp(&self) -> McpError {
        match self {
            Self::Syntax(e) => McpError::new(ErrorCode::PARSE_ERROR, format!("Parse error: {e}")),
            Self::DuplicateKey(k) => McpError::new(
                ErrorCode::PARSE_ERROR,
                format!("Parse error: duplicate key {k:?} in an object"),
            ),
            Self::StringTooLong { len, max } => McpError::invalid_request(format!(
                "A string of {len} bytes exceeds the {max}-byte string limit"
            )),
        }
    }
}

/// Parse one incoming message: JSON as serde_json reads it (depth capped at 128), but objects
/// with a duplicate key and strings longer than `max_string` bytes are refused — one pass, the
/// same work as `serde_json::from_slice::<Value>`.
pub(crate) fn parse(bytes: &[u8], max_string: usize) -> Result<Value, ParseError> {
    let refused = Cell::new(None);
    let seed = Strict {
        max_string,
        refused: &refused,
    };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match seed.deserialize(&mut de).and_then(|v| de.end().map(|()| v)) {
        Ok(v) => Ok(v),
        Err(e) => Err(refused
            .take()
            .unwrap_or_else(|| ParseError::Syntax(e.to_string()))),
    }
}

/// Builds a `Value` like serde_json's own visitor, checking as it goes. The reason for a refusal
/// travels beside the error (serde errors carry only a message).
#[derive(Clone, Copy)]
struct Strict<'a> {
    max_string: usize,
    refused: &'a Cell<Option<ParseError>>,
}

/// The key serde_json uses to pass a number through a map when a crate in the build enables its
/// `arbitrary_precision` feature (features unify, so a user's build may have it on).
const ARBITRARY_PRECISION_NUMBER: &str = "$serde_json::private::Number";

impl Strict<'_> {
    /// Stop the parse; `parse` answers with `why`, not with the serde error's text.
    fn refuse<E: de::Error>(&self, why: ParseError) -> E {
        self.refused.set(Some(why));
        E::custom("refused")
    }
    fn check<E: de::Error>(&self, s: &str) -> Result<(), E> {
        if s.len() > self.max_string {
            return Err(self.refuse(ParseError::StringTooLong {
                len: s.len(),
                max: self.max_string,
            }));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        self.check(s)?;
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        self.check(&s)?;
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element_seed(self)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            self.check::<A::Error>(&k)?;
            if out.is_empty() && k == ARBITRARY_PRECISION_NUMBER {
                let n: String = map.next_value()?;
                return n.parse().map(Value::Number).map_err(de::Error::custom);
            }
            let v = map.next_value_seed(self)?;
            match out.entry(k) {
                Entry::Vacant(e) => {
                    e.insert(v);
                }
                Entry::Occupied(e) => {
                    return Err(self.refuse(ParseError::DuplicateKey(e.key().clone())))
                }
            }
        }
        Ok(Value::Object(out))
    }
}

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
    fn parse_reads_what_serde_json_reads() {
        for doc in [
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[1,-2,3.5,1e300,true,null,"s\u00e9\n"],"b":{}}}"#,
            r#"[{"a":1},{"a":1}]"#,
            r#""only a string""#,
            "18446744073709551615",
            "-9223372036854775808",
            " {\"k\" : [ ] } ",
        ] {
            let ours = parse(doc.as_bytes(), 1 << 20).unwrap();
            let theirs: Value = serde_json::from_str(doc).unwrap();
            assert_eq!(ours, theirs, "{doc}");
        }
    }

    #[test]
    fn parse_refuses_duplicate_keys_long_strings_and_junk() {
        let dup = parse(br#"{"a":{"name":"x","name":"y"}}"#, 100).unwrap_err();
        assert_eq!(dup, ParseError::DuplicateKey("name".into()));
        assert_eq!(dup.to_mcp().code, ErrorCode::PARSE_ERROR);
        // Same key in sibling objects is fine.
        assert!(parse(br#"[{"a":1},{"a":2}]"#, 100).is_ok());
        let long = parse(br#"{"a":"0123456789"}"#, 9).unwrap_err();
        assert_eq!(long, ParseError::StringTooLong { len: 10, max: 9 });
        assert_eq!(long.to_mcp().code, ErrorCode::INVALID_REQUEST);
        // Keys count too, and escapes are counted after decoding.
        assert!(matches!(
            parse(br#"{"0123456789":1}"#, 9),
            Err(ParseError::StringTooLong { len: 10, .. })
        ));
        assert!(parse(br#""\u0041\u0041""#, 2).is_ok());
        for junk in [&b"{"[..], b"{\"a\":1} x", b"\xff", b"", b"[1,]", b"NaN"] {
            assert!(
                matches!(parse(junk, 100), Err(ParseError::Syntax(_))),
                "{junk:?}"
            );
        }
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(matches!(
            parse(deep.as_bytes(), 100),
            Err(ParseError::Syntax(_))
        ));
    }

    #[test]
    fn a_success_is_written_as_its_envelope_would_serialise() {
        use crate::server::dispatch::Reply;
        for (id, result) in [
            (
                json!(7),
                json!({"content": [{"type": "text", "text": "3"}], "isError": false}),
            ),
            (json!("a\"b"), json!({})),
        ] {
            let want = serde_json::to_vec(&ok(id.clone(), result.clone())).unwrap();
            let mut got = Vec::new();
            Reply::Ok { id, result }.write_to(&mut got);
            assert_eq!(
                String::from_utf8(got).unwrap(),
                String::from_utf8(want).unwrap()
            );
        }
    }

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
