//! How options are spelled: serde's field lists, snake_case/camelCase, and serde errors that
//! name the option by its path.

use super::{invalid, ConfigError, ConfigErrorKind, Result, MAX_SAFE_INTEGER};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::time::Duration;

/// The field names serde derived for `T` (asked of its `Deserialize` impl, so the schema's names
/// are written once, in the struct).
pub(super) fn fields<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    struct Probe<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(
            self,
            _: V,
        ) -> std::result::Result<V::Value, Self::Error> {
            Err(de::Error::custom("probe"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> std::result::Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("probe"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut out: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut out));
    out
}

/// The snake_case names of `T`'s options (serde's list also holds the aliases).
pub(super) fn names<T: for<'de> Deserialize<'de>>() -> impl Iterator<Item = &'static str> {
    fields::<T>()
        .iter()
        .copied()
        .filter(|f| !f.chars().any(|c| c.is_ascii_uppercase()))
}

/// `page_size` → `pageSize`.
pub(super) fn camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut up = false;
    for c in snake.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `pageSize` → `page_size` (snake names pass unchanged).
pub(super) fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The name of option `field` as the caller wrote it in `raw` (snake_case unless camelCase was used).
/// Option `field` spelled like `given` (camelCase when that is), for a message that names an
/// option the caller did not write.
pub(super) fn like(given: &str, field: &str) -> String {
    if given.chars().any(|c| c.is_ascii_uppercase()) {
        camel(field)
    } else {
        field.to_string()
    }
}

pub(super) fn spelled(raw: &Map<String, Value>, field: &str) -> String {
    let c = camel(field);
    if raw.contains_key(&c) {
        c
    } else {
        field.to_string()
    }
}

pub(super) fn knows<T: for<'de> Deserialize<'de>>(key: &str) -> bool {
    fields::<T>().contains(&snake(key).as_str())
}

/// JS numbers are doubles, so `100` may arrive as `100.0`; integral values become integers so
/// that integer options accept them. (Non-integral values stay and are refused where an integer
/// is expected.) An integral number beyond [`MAX_SAFE_INTEGER`] either way (`2**64`, `1e300`) is
/// refused here, naming the option by its path, whichever host sent it.
pub(super) fn numbers(v: &mut Value, path: &str) -> Result<()> {
    match v {
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            let integral = n.is_u64() || n.is_i64() || f.fract() == 0.0;
            if integral && f.abs() > MAX_SAFE_INTEGER as f64 {
                let bound = if f > 0.0 {
                    format!("at most {MAX_SAFE_INTEGER}")
                } else {
                    format!("at least -{MAX_SAFE_INTEGER}")
                };
                return Err(invalid(format!("{path} must be {bound}")));
            }
            if !n.is_u64() && !n.is_i64() && integral {
                *v = if f >= 0.0 {
                    Value::from(f as u64)
                } else {
                    Value::from(f as i64)
                };
            }
            Ok(())
        }
        Value::Array(a) => a
            .iter_mut()
            .enumerate()
            .try_for_each(|(i, x)| numbers(x, &format!("{path}[{i}]"))),
        Value::Object(m) => m
            .iter_mut()
            .try_for_each(|(k, x)| numbers(x, &format!("{path}.{k}"))),
        _ => Ok(()),
    }
}

pub(super) fn object(v: Value, what: &str) -> Result<Map<String, Value>> {
    match v {
        Value::Object(mut m) => {
            for (k, x) in m.iter_mut() {
                numbers(x, k)?;
            }
            Ok(m)
        }
        Value::Null => Ok(Map::new()),
        _ => Err(invalid(format!("{what} must be an object"))),
    }
}

/// serde with the path of the value it refused: `cache.tools/list.ttlMs: invalid type: ...`.
pub(super) fn parse<T: for<'de> Deserialize<'de>>(raw: &Map<String, Value>) -> Result<T> {
    serde_path_to_error::deserialize(Value::Object(raw.clone())).map_err(|e| {
        let mut path = e.path().to_string();
        let inner = e.into_inner().to_string();
        // serde's own wording is the only sign of an unknown key; its path ends at that key,
        // which the message names already.
        let kind = if inner.starts_with("unknown field") {
            path = path.rsplit_once('.').map_or(".", |(p, _)| p).to_string();
            ConfigErrorKind::Unknown
        } else {
            ConfigErrorKind::Invalid
        };
        ConfigError {
            kind,
            message: if path == "." {
                inner
            } else {
                format!("{path}: {inner}")
            },
        }
    })
}

pub(super) fn ms(v: Option<u64>) -> Option<Duration> {
    v.map(Duration::from_millis)
}
