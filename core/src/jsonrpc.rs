//! JSON-RPC 2.0 envelopes: parsing and classifying an incoming message, building responses.

use crate::error::{ErrorCode, McpError};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
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
    drive(bytes, &refused, seed)
}

/// Run a seed built on `Strict` over the whole input; the refusal reason wins over serde's text.
fn drive<S, T>(bytes: &[u8], refused: &Cell<Option<ParseError>>, seed: S) -> Result<T, ParseError>
where
    S: for<'de> DeserializeSeed<'de, Value = T>,
{
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
        method: Cow<'static, str>,
        params: Option<Value>,
    },
    Notification {
        method: Cow<'static, str>,
        params: Option<Value>,
    },
    /// A client's answer to a server→client request (legacy only).
    Response(Value),
}

/// What a transport reads first: a batch, or one message's members. A message object's
/// envelope is matched member by member as it is parsed, so no map is built for it (a map of
/// four owned keys per request, only to be taken apart again by [`Envelope::classify`]).
pub(crate) enum Incoming {
    Batch(Vec<Value>),
    One(Envelope),
}

/// The members of one incoming message: the four of JSON-RPC, and the others (a client
/// response's `result` or `error`, or unknown ones). `object` is false when the message is
/// not an object at all.
#[derive(Debug, Default)]
pub(crate) struct Envelope {
    object: bool,
    jsonrpc: Option<Version>,
    id: Option<Value>,
    method: Option<Member>,
    params: Option<Value>,
    rest: Map<String, Value>,
}

/// The `jsonrpc` member: only whether it is the string "2.0" matters, so nothing is kept.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Version {
    V2,
    Other,
}

/// The `method` member: a string (a method we route is kept as its `'static` name, not copied),
/// or any other JSON, which the JSON-RPC rules refuse.
#[derive(Debug)]
enum Member {
    Str(Cow<'static, str>),
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
    /// A method string, kept as its `'static` name when it is one we route.
    fn of(s: Cow<'_, str>) -> Self {
        Member::Str(crate::server::dispatch::method_cow(s))
    }
}

impl Envelope {
    fn from_value(v: Value) -> Self {
        let Value::Object(mut m) = v else {
            return Envelope::default();
        };
        Envelope {
            object: true,
            jsonrpc: m.remove("jsonrpc").map(|v| Version::of(v.as_str())),
            id: m.remove("id"),
            method: m.remove("method").map(|v| match v {
                Value::String(s) => Member::of(Cow::Owned(s)),
                _ => Member::Other,
            }),
            params: m.remove("params"),
            rest: m,
        }
    }

    /// A 2026-07-28 request or notification: a method, and the protocol version in `_meta`.
    pub(crate) fn is_modern(&self) -> bool {
        self.method.is_some()
            && self
                .params
                .as_ref()
                .and_then(|p| p.get("_meta"))
                .and_then(|m| m.get(crate::protocol::META_PROTOCOL_VERSION))
                .is_some()
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
        let (id, params) = (self.id, self.params);
        match self.method {
            Some(Member::Str(method)) => match id {
                None => Ok(Message::Notification { method, params }),
                Some(id @ Value::String(_)) => Ok(Message::Request { id, method, params }),
                Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Ok(Message::Request {
                    id: Value::Number(n),
                    method,
                    params,
                }),
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
                m.extend(params.map(|p| ("params".to_string(), p)));
                Ok(Message::Response(Value::Object(m)))
            }
            None => Err((id_for_error, McpError::invalid_request("missing method"))),
        }
    }
}

/// Classify a parsed message (stdio and batches: the message is a value already).
pub(crate) fn classify(v: Value) -> Result<Message, (Value, McpError)> {
    Envelope::from_value(v).classify()
}

/// As [`parse`], for a message as a transport receives it: the same checks, the same errors.
pub(crate) fn parse_incoming(bytes: &[u8], max_string: usize) -> Result<Incoming, ParseError> {
    let refused = Cell::new(None);
    let seed = Top(Strict {
        max_string,
        refused: &refused,
    });
    drive(bytes, &refused, seed)
}

/// The top level of a message: an array is a batch, an object an envelope, and anything else
/// (checked as `Strict` checks it) a message that is not an object.
struct Top<'a>(Strict<'a>);

impl<'de> DeserializeSeed<'de> for Top<'_> {
    type Value = Incoming;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Incoming, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = Incoming;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Incoming, E> {
        Ok(Incoming::One(Envelope::default()))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Incoming, E> {
        Ok(Incoming::One(Envelope::default()))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Incoming, E> {
        Ok(Incoming::One(Envelope::default()))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Incoming, E> {
        Ok(Incoming::One(Envelope::default()))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Incoming, E> {
        self.0.check::<E>(s)?;
        Ok(Incoming::One(Envelope::default()))
    }
    fn visit_unit<E>(self) -> Result<Incoming, E> {
        Ok(Incoming::One(Envelope::default()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Incoming, A::Error> {
        match self.0.visit_seq(seq)? {
            Value::Array(a) => Ok(Incoming::Batch(a)),
            _ => unreachable!("a sequence is an array"),
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Incoming, A::Error> {
        let strict = self.0;
        let mut env = Envelope {
            object: true,
            ..Envelope::default()
        };
        let mut first = true;
        while let Some(k) = map.next_key_seed(Key)? {
            strict.check::<A::Error>(&k)?;
            if std::mem::take(&mut first) && k == ARBITRARY_PRECISION_NUMBER {
                // A number (serde_json's `arbitrary_precision` passes it as this map).
                let _: String = map.next_value()?;
                return Ok(Incoming::One(Envelope::default()));
            }
            let slot = match &*k {
                "jsonrpc" => {
                    if env.jsonrpc.is_some() {
                        return Err(strict.refuse(ParseError::DuplicateKey(k.into_owned())));
                    }
                    env.jsonrpc = Some(Version::of(map.next_value_seed(Text(strict))?.as_deref()));
                    continue;
                }
                "method" => {
                    if env.method.is_some() {
                        return Err(strict.refuse(ParseError::DuplicateKey(k.into_owned())));
                    }
                    env.method = Some(
                        map.next_value_seed(Text(strict))?
                            .map_or(Member::Other, Member::of),
                    );
                    continue;
                }
                "id" => &mut env.id,
                "params" => &mut env.params,
                _ => {
                    let v = map.next_value_seed(strict)?;
                    match env.rest.entry(k.into_owned()) {
                        Entry::Vacant(e) => {
                            e.insert(v);
                        }
                        Entry::Occupied(e) => {
                            return Err(strict.refuse(ParseError::DuplicateKey(e.key().clone())))
                        }
                    }
                    continue;
                }
            };
            if slot.is_some() {
                return Err(strict.refuse(ParseError::DuplicateKey(k.into_owned())));
            }
            *slot = Some(map.next_value_seed(strict)?);
        }
        Ok(Incoming::One(env))
    }
}

/// A member name, borrowed from the input when it has no escapes.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = std::borrow::Cow<'de, str>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = std::borrow::Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(std::borrow::Cow::Borrowed(s))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(std::borrow::Cow::Owned(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok(std::borrow::Cow::Owned(s))
    }
}

/// A member whose value matters only as a string (`jsonrpc`, `method`): the string, borrowed
/// from the input when it has no escapes, or `None` for any other JSON (checked as `Strict`
/// checks it, then dropped).
struct Text<'a>(Strict<'a>);

impl<'de> DeserializeSeed<'de> for Text<'_> {
    type Value = Option<Cow<'de, str>>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Text<'_> {
    type Value = Option<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        self.0.check::<E>(s)?;
        Ok(Some(Cow::Borrowed(s)))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        self.0.check::<E>(s)?;
        Ok(Some(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
        self.0.check::<E>(&s)?;
        Ok(Some(Cow::Owned(s)))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.0.visit_seq(seq).map(|_| None)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(map).map(|_| None)
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

    /// `parse_incoming` is `parse` then `classify`, message for message: the same answers,
    /// the same refusals, the same era test as reading `params._meta` of the parsed value.
    #[test]
    fn incoming_reads_what_parse_and_classify_read() {
        let docs = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            r#"{"method":"x","jsonrpc":"2.0","id":"s","extra":[1,{"k":2}]}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/x"}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{},"params":{"p":1},"other":true}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m"}}"#,
            r#"{"\u0069d":5,"jsonrpc":"2.0","method":"escaped key"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","more":1,"more":2}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1,"a":2}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"0123456789abcdef"}"#,
            r#"{"jsonrpc":"2\u002e0","id":1,"method":"tools\/call"}"#,
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":{"a":1,"a":2}}"#,
            r#"{"jsonrpc":["0123456789abcdef"],"id":1,"method":"x"}"#,
            r#"{"jsonrpc":2.0,"id":1,"method":["tools/call"]}"#,
            r#"{"0123456789abcdef":1}"#,
            r#""0123456789abcdef""#,
            r#""short""#,
            "42",
            "true",
            "null",
            "{}",
            "[]",
            r#"[{"jsonrpc":"2.0","id":1,"method":"x"},{"a":1}]"#,
            "{",
            r#"{"a":1} x"#,
        ];
        for (doc, max) in docs.iter().flat_map(|d| [(d, 12), (d, 1 << 20)]) {
            let old = parse(doc.as_bytes(), max).map(|v| {
                let modern = v
                    .get("params")
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get(crate::protocol::META_PROTOCOL_VERSION))
                    .is_some()
                    && v.get("method").is_some();
                match v {
                    Value::Array(b) => format!("batch {b:?}"),
                    v => format!("{modern} {:?}", classify(v)),
                }
            });
            let new = parse_incoming(doc.as_bytes(), max).map(|i| match i {
                Incoming::Batch(b) => format!("batch {b:?}"),
                Incoming::One(e) => format!("{} {:?}", e.is_modern(), e.classify()),
            });
            assert_eq!(new, old, "{doc} (strings up to {max} bytes)");
        }
    }

    /// A method we route is kept as its `'static` name from the parse on (no copy per request),
    /// escaped or not; any other method as it came.
    #[test]
    fn known_methods_are_not_copied() {
        let method = |doc: &str| match parse_incoming(doc.as_bytes(), 1 << 20) {
            Ok(Incoming::One(e)) => match e.classify() {
                Ok(Message::Request { method, .. } | Message::Notification { method, .. }) => {
                    method
                }
                other => panic!("{doc}: {other:?}"),
            },
            _ => panic!("{doc}: not one message"),
        };
        for doc in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call"}"#,
        ] {
            assert!(matches!(method(doc), Cow::Borrowed("tools/call")), "{doc}");
        }
        let via_value = classify(json!({"jsonrpc":"2.0","method":"tools/list"}));
        assert!(matches!(
            via_value,
            Ok(Message::Notification {
                method: Cow::Borrowed("tools/list"),
                ..
            })
        ));
        let doc = r#"{"jsonrpc":"2.0","id":1,"method":"x/unknown"}"#;
        assert!(matches!(method(doc), Cow::Owned(m) if m == "x/unknown"));
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
