//! A request's `params` object as the dispatcher takes it apart.
//!
//! Why not a plain map: `tools/call` and `prompts/get` (every call a client makes) carry `name`
//! and `arguments`, which the pipeline takes out of the params at once. As map entries they cost
//! two owned keys, a B-tree node (allocated per request for these two alone), two inserts when
//! read and two removals when taken: three allocations and about 1,500 instructions of a
//! ~37,000 instruction `tools/call`. Kept in their own slots (one small box), the
//! reader fills them without a key and the pipeline takes them without a search. Everything
//! else (`uri`, `cursor`, `requestState`, `task`, ...) stays in the map.
//!
//! It behaves as the map it replaces: `get`, `insert` and `remove` see the two slots as members,
//! and [`Params::into_map`] gives the map back (what a middleware sees and passes on).

use serde_json::{Map, Value};

/// A `params` object: `name` and `arguments` in their own slots, every other member in `rest`.
///
/// The slots are boxed, together and only when a message has either member: a `Params` moves
/// through the request's futures (several of them boxed per request, which glibc serves fast only
/// up to 1,032 bytes), and unboxed slots would add 64 bytes to each of its places there; requests
/// without them (lists, `server/discover`, ...) then move a map's 24 bytes and 8 more.
#[derive(Debug, Clone, Default)]
pub(crate) struct Params {
    members: Option<Box<Members>>,
    rest: Map<String, Value>,
}

#[derive(Debug, Clone, Default)]
struct Members {
    name: Option<Value>,
    arguments: Option<Value>,
}

/// The members kept out of the map.
const NAME: &str = "name";
const ARGUMENTS: &str = "arguments";

impl Members {
    fn slot(&mut self, k: &str) -> Option<&mut Option<Value>> {
        match k {
            NAME => Some(&mut self.name),
            ARGUMENTS => Some(&mut self.arguments),
            _ => None,
        }
    }
}

impl PartialEq for Params {
    /// As maps are equal: the same members (an empty slot equals no slot at all).
    fn eq(&self, other: &Self) -> bool {
        self.rest == other.rest
            && self.get(NAME) == other.get(NAME)
            && self.get(ARGUMENTS) == other.get(ARGUMENTS)
    }
}

impl Params {
    /// The params of a message that was a value already (stdio, a batch, a middleware's).
    pub(crate) fn from_map(mut m: Map<String, Value>) -> Self {
        let (name, arguments) = (m.remove(NAME), m.remove(ARGUMENTS));
        let members =
            (name.is_some() || arguments.is_some()).then(|| Box::new(Members { name, arguments }));
        Self { members, rest: m }
    }

    /// The whole object again, as the client sent it (less an object `_meta`).
    pub(crate) fn into_map(self) -> Map<String, Value> {
        let mut m = self.rest;
        if let Some(b) = self.members {
            let Members { name, arguments } = *b;
            if let Some(v) = name {
                m.insert(NAME.into(), v);
            }
            if let Some(v) = arguments {
                m.insert(ARGUMENTS.into(), v);
            }
        }
        m
    }

    pub(crate) fn get(&self, k: &str) -> Option<&Value> {
        match k {
            NAME => self.members.as_ref()?.name.as_ref(),
            ARGUMENTS => self.members.as_ref()?.arguments.as_ref(),
            _ => self.rest.get(k),
        }
    }

    /// Take a member out (no search for `name` or `arguments`).
    pub(crate) fn remove(&mut self, k: &str) -> Option<Value> {
        match k {
            NAME | ARGUMENTS => self.members.as_mut()?.slot(k)?.take(),
            _ => self.rest.remove(k),
        }
    }

    pub(crate) fn insert(&mut self, k: String, v: Value) -> Option<Value> {
        match self.own_slot(&k) {
            Some(s) => s.replace(v),
            None => self.rest.insert(k, v),
        }
    }

    /// For the reader: a member's slot when it has one (`None`: the member goes to the map).
    pub(super) fn own_slot(&mut self, k: &str) -> Option<&mut Option<Value>> {
        match k {
            NAME | ARGUMENTS => self.members.get_or_insert_with(Box::default).slot(k),
            _ => None,
        }
    }

    /// For the reader: the map of the other members.
    pub(super) fn rest_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.rest
    }
}

/// A message's `params` as read: an object, taken apart as [`Params`], or any other JSON (a
/// request's is refused with -32602; a notification's is passed on as it is).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ParamsIn {
    Object(Params),
    Other(Value),
}

impl ParamsIn {
    /// A member, as `Value::get` reads one (`None` when the params are not an object).
    pub(crate) fn get(&self, k: &str) -> Option<&Value> {
        match self {
            Self::Object(p) => p.get(k),
            Self::Other(v) => v.get(k),
        }
    }

    pub(crate) fn into_value(self) -> Value {
        match self {
            Self::Object(p) => Value::Object(p.into_map()),
            Self::Other(v) => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn it_is_the_map_it_replaces() {
        let whole = json!({"name": "add", "arguments": {"a": 1}, "uri": "x://y", "task": {}});
        let mut p = Params::from_map(map(whole.clone()));
        assert_eq!(p.get("name"), Some(&json!("add")));
        assert_eq!(p.get("arguments"), Some(&json!({"a": 1})));
        assert_eq!(p.get("uri"), Some(&json!("x://y")));
        assert!(p.get("task").is_some() && p.get("cursor").is_none());
        assert_eq!(Value::Object(p.clone().into_map()), whole);

        assert_eq!(
            p.insert("arguments".into(), json!({"a": 2})),
            Some(json!({"a": 1}))
        );
        assert_eq!(p.insert("name".into(), json!("sub")), Some(json!("add")));
        assert_eq!(p.insert("cursor".into(), json!("c")), None);
        assert_eq!(p.remove("uri"), Some(json!("x://y")));
        assert_eq!(p.remove("uri"), None);
        assert_eq!(
            Value::Object(p.clone().into_map()),
            json!({"name": "sub", "arguments": {"a": 2}, "task": {}, "cursor": "c"})
        );
        assert_eq!(p.remove("name"), Some(json!("sub")));
        assert!(p.get("name").is_none());
        assert_eq!(Params::from_map(Map::new()), Params::default());
        // An emptied slot is no member at all.
        p.remove("arguments");
        assert_eq!(p, Params::from_map(map(json!({"task": {}, "cursor": "c"}))));
    }

    #[test]
    fn params_that_are_not_an_object_read_as_values_do() {
        let p = ParamsIn::Other(json!([1, 2]));
        assert_eq!(p.get("name"), None);
        assert_eq!(p.into_value(), json!([1, 2]));
        let p = ParamsIn::Object(Params::from_map(map(json!({"name": "n", "z": 1}))));
        assert_eq!(p.get("name"), Some(&json!("n")));
        assert_eq!(p.into_value(), json!({"name": "n", "z": 1}));
    }
}
