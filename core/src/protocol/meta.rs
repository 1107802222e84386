//! A request's `params._meta`, read once.
//!
//! Every 2026-07-28 request carries the same two members, the protocol version and the client's
//! capabilities. Kept in a map they cost five allocations per request (two 40-byte keys, the
//! version string, the `_meta` key, the map's node) and a string search each time the era, the
//! headers or the request's info read them. Here they are fields, the version a `'static` string
//! for every revision we serve; any other member (`progressToken`, `traceparent`, a client's own
//! keys) stays in a map. The whole object, as the client sent it, is built only for someone who
//! asks for it ([`Context::meta`](crate::Context::meta)).

use super::{version_cow, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::OnceLock;

/// The `io.modelcontextprotocol/protocolVersion` member: a string (the usual case), or any other
/// JSON, which the modern era refuses but which must still be seen as present.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MetaVersion {
    Str(Cow<'static, str>),
    Other(Value),
}

/// `params._meta` of one request (an object; any other `_meta` stays in the params).
#[derive(Debug, Default)]
pub(crate) struct RequestMeta {
    version: Option<MetaVersion>,
    caps: Option<Value>,
    /// Every other member.
    rest: Map<String, Value>,
    /// The whole object, built on first use.
    whole: OnceLock<Map<String, Value>>,
}

impl PartialEq for RequestMeta {
    fn eq(&self, o: &Self) -> bool {
        (&self.version, &self.caps, &self.rest) == (&o.version, &o.caps, &o.rest)
    }
}

impl RequestMeta {
    /// From the members read one by one as the request is parsed (`jsonrpc::parse_incoming`).
    pub(crate) fn new(
        version: Option<MetaVersion>,
        caps: Option<Value>,
        rest: Map<String, Value>,
    ) -> Self {
        Self {
            version,
            caps,
            rest,
            whole: OnceLock::new(),
        }
    }

    /// From a parsed object (stdio, a batch's messages, a value handed in by a binding).
    pub(crate) fn from_map(mut m: Map<String, Value>) -> Self {
        let version = m.remove(META_PROTOCOL_VERSION).map(|v| match v {
            Value::String(s) => MetaVersion::Str(version_cow(&s)),
            other => MetaVersion::Other(other),
        });
        let caps = m.remove(META_CLIENT_CAPABILITIES);
        Self::new(version, caps, m)
    }

    /// Whether the protocol version member is there, whatever its value (the era rule).
    pub(crate) fn has_version(&self) -> bool {
        self.version.is_some()
    }

    /// The protocol version, when it is a string.
    pub(crate) fn version(&self) -> Option<&Cow<'static, str>> {
        match &self.version {
            Some(MetaVersion::Str(s)) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn caps(&self) -> Option<&Value> {
        self.caps.as_ref()
    }

    /// A member by name.
    pub(crate) fn get(&self, k: &str) -> Option<&Value> {
        if k == META_PROTOCOL_VERSION || k == META_CLIENT_CAPABILITIES {
            return self.whole().get(k);
        }
        self.rest.get(k)
    }

    /// The object as the client sent it.
    pub(crate) fn whole(&self) -> &Map<String, Value> {
        self.whole.get_or_init(|| self.to_map())
    }

    pub(crate) fn to_map(&self) -> Map<String, Value> {
        let mut m = self.rest.clone();
        match &self.version {
            Some(MetaVersion::Str(s)) => {
                m.insert(META_PROTOCOL_VERSION.into(), Value::String(s.to_string()));
            }
            Some(MetaVersion::Other(v)) => {
                m.insert(META_PROTOCOL_VERSION.into(), v.clone());
            }
            None => {}
        }
        if let Some(c) = &self.caps {
            m.insert(META_CLIENT_CAPABILITIES.into(), c.clone());
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_whole_object_is_what_was_sent() {
        for sent in [
            json!({META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {"x": 1},
                   "progressToken": 7}),
            json!({META_PROTOCOL_VERSION: 5}),
            json!({META_PROTOCOL_VERSION: "1999-01-01", "a": [1]}),
            json!({}),
        ] {
            let Value::Object(m) = sent.clone() else {
                unreachable!()
            };
            let meta = RequestMeta::from_map(m);
            assert_eq!(Value::Object(meta.whole().clone()), sent);
            assert_eq!(
                meta.has_version(),
                sent.get(META_PROTOCOL_VERSION).is_some()
            );
            for k in [
                META_PROTOCOL_VERSION,
                META_CLIENT_CAPABILITIES,
                "progressToken",
                "a",
            ] {
                assert_eq!(meta.get(k), sent.get(k), "{k} of {sent}");
            }
        }
        let m = RequestMeta::from_map(Map::from_iter([(
            META_PROTOCOL_VERSION.to_string(),
            json!("2026-07-28"),
        )]));
        assert!(matches!(m.version(), Some(Cow::Borrowed("2026-07-28"))));
    }
}
