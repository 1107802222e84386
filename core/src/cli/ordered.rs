//! JSON whose objects keep their members' order: a client's configuration file is rewritten with
//! its keys where its owner put them (the crate's `serde_json::Map` sorts them).

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    pub(crate) fn object(members: Vec<(String, Json)>) -> Json {
        Json::Object(members)
    }

    pub(crate) fn strings<I: IntoIterator<Item = String>>(items: I) -> Json {
        Json::Array(items.into_iter().map(Json::String).collect())
    }

    /// The member `key`, made an empty object when it is missing.
    pub(crate) fn entry(members: &mut Vec<(String, Json)>, key: &str) -> usize {
        match members.iter().position(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                members.push((key.to_string(), Json::Object(Vec::new())));
                members.len() - 1
            }
        }
    }

    /// Set `key`, in place when it exists (a JSON object's later duplicate wins, where the first was).
    pub(crate) fn set(members: &mut Vec<(String, Json)>, key: &str, value: Json) -> bool {
        match members.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => {
                *v = value;
                true
            }
            None => {
                members.push((key.to_string(), value));
                false
            }
        }
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(v) => s.serialize_str(v),
            Json::Array(a) => a.serialize(s),
            Json::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v)
            .map(Json::Number)
            .ok_or_else(|| E::custom("not a finite number"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Json::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut out: Vec<(String, Json)> = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            Json::set(&mut out, &k, v);
        }
        Ok(Json::Object(out))
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_their_order_through_a_rewrite() {
        let text = r#"{"z": 1, "a": {"y": [1, 2.5, null], "b": "x"}, "z": 2}"#;
        let v: Json = serde_json::from_str(text).unwrap();
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"z":2,"a":{"y":[1,2.5,null],"b":"x"}}"#
        );
    }
}
