//! Reading an incoming message: JSON as serde_json reads it, with the refusals every transport
//! applies (duplicate keys, over-long strings), in one pass; a message object's envelope, and a
//! request's `params._meta`, are read member by member (no map for what is taken apart anyway).

use super::{Envelope, Incoming, Member, Params, ParamsIn, Version};
use crate::error::{ErrorCode, McpError};
use crate::protocol::{MetaVersion, RequestMeta, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
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
    // JSON text is UTF-8 (RFC 8259 §8.1). Checking the whole body once (core's check runs a
    // word at a time over ASCII) lets serde_json borrow each string without checking it again:
    // a `tools/call` has 10–15 strings, and their one-by-one checks cost more than this one.
    let text = std::str::from_utf8(bytes)
        .map_err(|e| ParseError::Syntax(format!("invalid UTF-8 at byte {}", e.valid_up_to())))?;
    let mut de = serde_json::Deserializer::from_str(text);
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

/// The number such a map carries.
fn precise_number<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Value, A::Error> {
    let n: String = map.next_value()?;
    n.parse().map(Value::Number).map_err(de::Error::custom)
}

impl Strict<'_> {
    /// Stop the parse; `parse` answers with `why`, not with the serde error's text.
    fn refuse<E: de::Error>(&self, why: ParseError) -> E {
        self.refused.set(Some(why));
        E::custom("refused")
    }
    /// Add `k: v` to an object being read; a second `k` refuses the message.
    fn insert<E: de::Error>(
        &self,
        out: &mut Map<String, Value>,
        k: String,
        v: Value,
    ) -> Result<(), E> {
        match out.entry(k) {
            Entry::Vacant(e) => {
                e.insert(v);
                Ok(())
            }
            Entry::Occupied(e) => Err(self.refuse(ParseError::DuplicateKey(e.key().clone()))),
        }
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
                return precise_number(&mut map);
            }
            let v = map.next_value_seed(self)?;
            self.insert(&mut out, k, v)?;
        }
        Ok(Value::Object(out))
    }
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
                "params" => {
                    if env.params.is_some() {
                        return Err(strict.refuse(ParseError::DuplicateKey(k.into_owned())));
                    }
                    let (params, meta) = map.next_value_seed(ParamsSeed(strict))?;
                    (env.params, env.meta) = (Some(params), meta);
                    continue;
                }
                _ => {
                    let v = map.next_value_seed(strict)?;
                    strict.insert(&mut env.rest, k.into_owned(), v)?;
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

/// The `Visitor` methods of a seed that reads any non-object JSON as `Strict` does, and wraps
/// the value with `$wrap`. With `strings`, strings too.
macro_rules! as_strict {
    ($wrap:expr) => {
        fn visit_bool<E: de::Error>(self, b: bool) -> Result<Self::Value, E> {
            Visitor::visit_bool(self.0, b).map($wrap)
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<Self::Value, E> {
            Visitor::visit_i64(self.0, n).map($wrap)
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
            Visitor::visit_u64(self.0, n).map($wrap)
        }
        fn visit_f64<E: de::Error>(self, n: f64) -> Result<Self::Value, E> {
            Visitor::visit_f64(self.0, n).map($wrap)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Visitor::visit_unit(self.0).map($wrap)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            self.0.visit_seq(seq).map($wrap)
        }
    };
    ($wrap:expr, strings) => {
        as_strict!($wrap);
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
            Visitor::visit_str(self.0, s).map($wrap)
        }
        fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
            Visitor::visit_string(self.0, s).map($wrap)
        }
    };
}

/// A request's `params`: an object as [`Params`] (`name` and `arguments` in their slots, no key
/// copied for them), with an object `_meta` read apart into a [`RequestMeta`] (no map, no copied
/// keys for the members every modern request carries). Anything else as `Strict` reads it.
struct ParamsSeed<'a>(Strict<'a>);

impl<'de> DeserializeSeed<'de> for ParamsSeed<'_> {
    type Value = (ParamsIn, Option<RequestMeta>);
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ParamsSeed<'_> {
    type Value = (ParamsIn, Option<RequestMeta>);
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    as_strict!(|v| (ParamsIn::Other(v), None), strings);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let strict = self.0;
        let (mut out, mut meta) = (Params::default(), None);
        let mut first = true;
        while let Some(k) = map.next_key_seed(Key)? {
            strict.check::<A::Error>(&k)?;
            if std::mem::take(&mut first) && k == ARBITRARY_PRECISION_NUMBER {
                return precise_number(&mut map).map(|n| (ParamsIn::Other(n), None));
            }
            if let Some(slot) = out.own_slot(&k) {
                if slot.is_some() {
                    return Err(strict.refuse(ParseError::DuplicateKey(k.into_owned())));
                }
                *slot = Some(map.next_value_seed(strict)?);
                continue;
            }
            if k == "_meta" && meta.is_some() {
                return Err(strict.refuse(ParseError::DuplicateKey(k.into_owned())));
            }
            let v = if k == "_meta" && !out.rest_mut().contains_key("_meta") {
                match map.next_value_seed(MetaObject(strict))? {
                    Ok(m) => {
                        meta = Some(m);
                        continue;
                    }
                    Err(other) => other,
                }
            } else {
                map.next_value_seed(strict)?
            };
            strict.insert(out.rest_mut(), k.into_owned(), v)?;
        }
        Ok((ParamsIn::Object(out), meta))
    }
}

/// `params._meta`: an object as a [`RequestMeta`], any other JSON (`Err`) as `Strict` reads it.
struct MetaObject<'a>(Strict<'a>);

impl<'de> DeserializeSeed<'de> for MetaObject<'_> {
    type Value = Result<RequestMeta, Value>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MetaObject<'_> {
    type Value = Result<RequestMeta, Value>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    as_strict!(Err, strings);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let strict = self.0;
        let (mut version, mut caps, mut rest) = (None, None, Map::new());
        let mut first = true;
        while let Some(k) = map.next_key_seed(Key)? {
            strict.check::<A::Error>(&k)?;
            if std::mem::take(&mut first) && k == ARBITRARY_PRECISION_NUMBER {
                return precise_number(&mut map).map(Err);
            }
            match &*k {
                META_PROTOCOL_VERSION if version.is_none() => {
                    version = Some(map.next_value_seed(VersionMember(strict))?);
                }
                META_CLIENT_CAPABILITIES if caps.is_none() => {
                    caps = Some(map.next_value_seed(strict)?);
                }
                META_PROTOCOL_VERSION | META_CLIENT_CAPABILITIES => {
                    return Err(strict.refuse(ParseError::DuplicateKey(k.into_owned())));
                }
                _ => {
                    let v = map.next_value_seed(strict)?;
                    strict.insert(&mut rest, k.into_owned(), v)?;
                }
            }
        }
        Ok(Ok(RequestMeta::new(version, caps, rest)))
    }
}

/// `_meta`'s protocol version: a string kept as its `'static` revision name when it is one we
/// serve (no copy), any other JSON as `Strict` reads it.
struct VersionMember<'a>(Strict<'a>);

impl<'de> DeserializeSeed<'de> for VersionMember<'_> {
    type Value = MetaVersion;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for VersionMember<'_> {
    type Value = MetaVersion;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    as_strict!(MetaVersion::Other);
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        self.0.check::<E>(s)?;
        Ok(MetaVersion::Str(crate::protocol::version_cow(s)))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(map).map(MetaVersion::Other)
    }
}
