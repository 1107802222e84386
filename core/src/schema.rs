//! Compiled JSON Schema validators (2020-12 unless `$schema` says otherwise). Schemas are compiled
//! once, at registration; network and file `$ref`s are never fetched (the crate is built without
//! its resolvers, so an external `$ref` fails compilation instead of silently passing).

mod flat;

use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// One schema violation, located by a JSON pointer into the instance.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Violation {
    /// JSON pointer to the failing value ("" is the root).
    pub pointer: String,
    pub message: String,
}

impl Violation {
    /// A violation at a path of object keys and array indexes (pydantic's `loc`, zod's `path`,
    /// serde's path), as a JSON pointer (RFC 6901: `~` and `/` escaped).
    pub fn at<S: std::fmt::Display>(
        path: impl IntoIterator<Item = S>,
        message: impl Into<String>,
    ) -> Self {
        let mut pointer = String::new();
        for seg in path {
            pointer.push('/');
            pointer.push_str(&seg.to_string().replace('~', "~0").replace('/', "~1"));
        }
        Self {
            pointer,
            message: message.into(),
        }
    }

    /// From a host's `{path, message}`: `path` a list of keys/indexes or a JSON pointer string.
    pub fn from_host(v: &Value) -> Option<Self> {
        let message = v.get("message")?.as_str()?.to_string();
        match v.get("path") {
            None | Some(Value::Null) => Some(Self::at(Vec::<String>::new(), message)),
            Some(Value::String(p)) => Some(Self {
                pointer: p.clone(),
                message,
            }),
            Some(Value::Array(a)) => Some(Self::at(
                a.iter().map(|s| match s {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                }),
                message,
            )),
            Some(_) => None,
        }
    }
}

/// A compiled schema plus the source it came from.
///
/// A flat object schema (plain-typed properties, `required`, `additionalProperties: bool`: what
/// most tools declare) is checked by a small direct check instead (see `schema/flat.rs`); the
/// general engine is then compiled only when an instance fails, to explain why.
pub struct CompiledSchema {
    flat: Option<flat::Flat>,
    validator: OnceLock<Result<jsonschema::Validator, String>>,
    source: Value,
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledSchema")
            .field("source", &self.source)
            .finish()
    }
}

impl CompiledSchema {
    pub fn compile(schema: &Value) -> Result<Self, String> {
        Self::compile_owned(schema.clone())
    }

    fn compile_owned(schema: Value) -> Result<Self, String> {
        if !schema.is_object() && !schema.is_boolean() {
            return Err("a schema must be an object or a boolean".into());
        }
        if let Some(s) = schema.get("$schema") {
            let s = s.as_str().unwrap_or_default();
            let known = [
                "https://json-schema.org/draft/2020-12/schema",
                "https://json-schema.org/draft/2019-09/schema",
                "http://json-schema.org/draft-07/schema",
                "http://json-schema.org/draft-06/schema",
                "http://json-schema.org/draft-04/schema",
            ];
            if !known.iter().any(|k| s.trim_end_matches('#') == *k) {
                return Err(format!("unsupported JSON Schema dialect: {s}"));
            }
        }
        let flat = flat::Flat::recognize(&schema);
        let validator = match flat {
            Some(_) => OnceLock::new(),
            None => OnceLock::from(Ok(Self::build(&schema)?)),
        };
        Ok(Self {
            flat,
            validator,
            source: schema,
        })
    }

    fn build(schema: &Value) -> Result<jsonschema::Validator, String> {
        // `draft202012::new` is `options().with_draft(Draft202012).build(..)` behind a
        // non-generic function: the schema compiler and every keyword validator are then
        // instantiated once, inside jsonschema (where its meta-schema validators already use
        // them). Calling the generic `ValidationOptions::build` from here made rustc emit a
        // second copy of all of that in this crate (~1.5 MB of machine code).
        jsonschema::draft202012::new(schema).map_err(|e| e.to_string())
    }

    /// The general engine (compiled now if the fast path took this schema).
    fn engine(&self) -> &Result<jsonschema::Validator, String> {
        self.validator.get_or_init(|| Self::build(&self.source))
    }

    pub fn source(&self) -> &Value {
        &self.source
    }

    pub fn is_valid(&self, instance: &Value) -> bool {
        match &self.flat {
            Some(f) => f.is_valid(instance),
            None => self.engine().as_ref().is_ok_and(|v| v.is_valid(instance)),
        }
    }

    /// Every violation (empty when valid).
    pub fn violations(&self, instance: &Value) -> Vec<Violation> {
        if self.is_valid(instance) {
            return Vec::new();
        }
        let validator = match self.engine() {
            Ok(v) => v,
            // Cannot happen: the fast path only takes schemas the engine compiles.
            Err(e) => {
                return vec![Violation {
                    pointer: String::new(),
                    message: e.clone(),
                }]
            }
        };
        validator
            .iter_errors(instance)
            .map(|e| Violation {
                pointer: e.instance_path().to_string(),
                message: e.to_string(),
            })
            .collect()
    }

    /// Every violation in parts (empty when valid), for a layer that words violations as a
    /// framework's validator words them (the `mcp` SDK 1.x's low-level `Server` shows
    /// python-jsonschema's texts): which keyword failed where, on which value, and with what.
    pub fn failures(&self, instance: &Value) -> Vec<Failure> {
        if self.is_valid(instance) {
            return Vec::new();
        }
        let Ok(validator) = self.engine() else {
            return Vec::new();
        };
        validator
            .iter_errors(instance)
            .map(|e| {
                use jsonschema::error::ValidationErrorKind as K;
                let argument = match e.kind() {
                    K::Required { property } => property.clone(),
                    K::AdditionalProperties { unexpected }
                    | K::UnevaluatedProperties { unexpected } => Value::from(unexpected.clone()),
                    _ => self
                        .source
                        .pointer(e.schema_path().as_str())
                        .cloned()
                        .unwrap_or(Value::Null),
                };
                Failure {
                    pointer: e.instance_path().to_string(),
                    keyword: e.kind().keyword().to_string(),
                    instance: e.instance().clone().into_owned(),
                    argument,
                    message: e.to_string(),
                }
            })
            .collect()
    }
}

/// One failed keyword of a schema check (`CompiledSchema::failures`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Failure {
    /// JSON pointer to the failing value ("" is the root).
    pub pointer: String,
    /// The keyword that failed (`type`, `required`, `enum`, ...).
    pub keyword: String,
    /// The value that failed it.
    pub instance: Value,
    /// What the keyword asked: the missing property for `required`, the unexpected names for
    /// `additionalProperties`, else the keyword's value in the schema (`null` if it is reached
    /// through a `$ref`).
    pub argument: Value,
    /// The core's own text for it (`Violation::message`).
    pub message: String,
}

/// One compiled schema per distinct schema: the tools of a generated server (OpenAPI, one tool
/// per table) declare a handful of schema shapes between thousands of tools, and a compiled
/// schema with its source is a few KB of small JSON nodes. Keyed by the schema's JSON text
/// (`serde_json` maps are sorted, so equal schemas have equal text); the cache holds weak
/// references, so a schema no registered tool uses any more is freed.
#[derive(Default)]
pub(crate) struct SchemaCache {
    inner: Mutex<CacheInner>,
}

#[derive(Default)]
struct CacheInner {
    map: HashMap<String, Weak<CompiledSchema>>,
    /// Prune dead entries when the map grows past this.
    prune_at: usize,
}

impl SchemaCache {
    /// The compiled schema for `schema`: the one already compiled for an equal schema, or a new one.
    pub(crate) fn compile(&self, schema: Value) -> Result<Arc<CompiledSchema>, String> {
        let key = serde_json::to_string(&schema).map_err(|e| e.to_string())?;
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = inner.map.get(&key).and_then(Weak::upgrade) {
            return Ok(hit);
        }
        let compiled = Arc::new(CompiledSchema::compile_owned(schema)?);
        if inner.map.len() >= inner.prune_at {
            inner.map.retain(|_, w| w.strong_count() > 0);
            inner.prune_at = (inner.map.len() * 2).max(64);
        }
        inner.map.insert(key, Arc::downgrade(&compiled));
        Ok(compiled)
    }

    /// Distinct schemas alive (for tests).
    #[cfg(test)]
    pub(crate) fn live(&self) -> usize {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.map.values().filter(|w| w.strong_count() > 0).count()
    }
}

/// Lenient mode: scalars of the wrong JSON type become the type the schema asks for, by the rules
/// of pydantic's lax mode (what FastMCP and the `mcp` SDK's FastMCP apply to tool arguments):
///
/// - boolean: the strings `true false yes no on off t f y n 1 0` (any case), the numbers 0 and 1;
/// - integer: a decimal string (surrounding spaces, `_` between digits, a zero fraction `"3.0"`),
///   `true`/`false` (1/0);
/// - number: a decimal or exponent string, `true`/`false`.
///
/// It follows `properties`, `items` and the branches of `anyOf`/`oneOf` (a value one branch
/// already accepts is left alone, so `str | int` keeps `"3"` a string); a string never becomes
/// anything where the schema allows a string. Returns whether anything changed.
pub(crate) fn coerce_scalars(schema: &Value, value: &mut Value) -> bool {
    if let Some(Value::Array(branches)) = schema.get("anyOf").or_else(|| schema.get("oneOf")) {
        if !matches!(value, Value::Object(_) | Value::Array(_)) {
            if branches.iter().any(|b| accepts_as_is(b, value)) {
                return false;
            }
            for b in branches {
                let mut v = value.clone();
                if coerce_scalars(b, &mut v) {
                    *value = v;
                    return true;
                }
            }
            return false;
        }
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let wants = |t: &str| types.contains(&t);
    let coerced = match value {
        Value::String(_) if wants("string") => None,
        Value::String(s) => {
            let (b, i, n) = (wants("boolean"), wants("integer"), wants("number"));
            let int = i.then(|| lax_int(s)).flatten().map(Value::from);
            int.or_else(|| n.then(|| lax_number(s)).flatten().map(Value::Number))
                .or_else(|| b.then(|| lax_bool(s)).flatten().map(Value::Bool))
        }
        Value::Number(x) if wants("boolean") && !wants("number") && !wants("integer") => {
            // 0 and 1 only (pydantic refuses 2 or 0.5 for a bool).
            let f = x.as_f64();
            (f == Some(0.0) || f == Some(1.0)).then(|| Value::Bool(f == Some(1.0)))
        }
        Value::Bool(b) if !wants("boolean") && (wants("integer") || wants("number")) => {
            Some(Value::from(i64::from(*b)))
        }
        _ => None,
    };
    if let Some(v) = coerced {
        *value = v;
        return true;
    }
    let mut changed = false;
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = schema.get("properties") {
                for (k, sub) in props {
                    if let Some(v) = map.get_mut(k) {
                        changed |= coerce_scalars(sub, v);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for v in items {
                    changed |= coerce_scalars(sub, v);
                }
            }
        }
        _ => {}
    }
    changed
}

/// Whether a branch's `type` takes the scalar as it is (no `type`: any value).
fn accepts_as_is(schema: &Value, value: &Value) -> bool {
    let ok = |t: &str| match value {
        Value::String(_) => t == "string",
        Value::Bool(_) => t == "boolean",
        Value::Null => t == "null",
        Value::Number(n) => {
            t == "number" || (t == "integer" && n.as_f64().is_some_and(|f| f.fract() == 0.0))
        }
        _ => false,
    };
    match schema.get("type") {
        Some(Value::String(t)) => ok(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(ok),
        _ => schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .is_none(),
    }
}

fn lax_bool(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "t" | "y" | "1" => Some(true),
        "false" | "no" | "off" | "f" | "n" | "0" => Some(false),
        _ => None,
    }
}

/// Digits with `_` only between digits, as Python's numeric literals allow.
fn without_underscores(s: &str) -> Option<String> {
    let b = s.as_bytes();
    for (i, c) in b.iter().enumerate() {
        if *c == b'_'
            && !(i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit())
        {
            return None;
        }
    }
    Some(s.replace('_', ""))
}

fn lax_int(s: &str) -> Option<i64> {
    let t = without_underscores(s.trim())?;
    if let Ok(i) = t.parse::<i64>() {
        return Some(i);
    }
    // "3.0": a decimal with a zero fraction (not an exponent: pydantic refuses "1e3" for an int).
    let (whole, frac) = t.split_once('.')?;
    if !frac.is_empty() && frac.bytes().all(|c| c == b'0') {
        whole.parse::<i64>().ok()
    } else {
        None
    }
}

fn lax_number(s: &str) -> Option<serde_json::Number> {
    let t = without_underscores(s.trim())?;
    let lower = t.to_ascii_lowercase();
    if lower.contains("inf") || lower.contains("nan") {
        return None; // not representable in JSON
    }
    t.parse::<f64>().ok().and_then(serde_json::Number::from_f64)
}

/// What is wrong with an `x-mcp-header` annotation ([`header_violation`]).
#[derive(Clone, Debug, PartialEq)]
pub enum HeaderProblem {
    /// On the schema's root, which is no property.
    AtRoot,
    /// The annotation is not a string; the value it is.
    NotString(Value),
    /// The header name is not an HTTP (RFC 9110) token.
    NotToken(String),
    /// The property's `type` keyword is not one string; the keyword (`Null` when absent).
    TypeNotString(Value),
    /// The property's type is not string, integer or boolean.
    NotPrimitive(String),
    /// The name is another property's already (case-insensitively); that property's path.
    Duplicate(String, Vec<String>),
}

/// An `x-mcp-header` annotation a tool may not carry: the property's path and the problem.
#[derive(Clone, Debug, PartialEq)]
pub struct HeaderViolation {
    pub property: Vec<String>,
    pub problem: HeaderProblem,
}

impl std::fmt::Display for HeaderViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = self.property.join(".");
        match &self.problem {
            HeaderProblem::AtRoot => write!(f, "x-mcp-header is not allowed at the schema root"),
            HeaderProblem::NotString(_) => {
                write!(f, "property '{at}': x-mcp-header must be a string")
            }
            HeaderProblem::NotToken(h) => write!(f, "x-mcp-header '{h}' is not an HTTP token"),
            HeaderProblem::TypeNotString(_) | HeaderProblem::NotPrimitive(_) => write!(
                f,
                "property '{at}': x-mcp-header needs a string, integer or boolean property"
            ),
            HeaderProblem::Duplicate(h, _) => write!(f, "x-mcp-header '{h}' is not unique"),
        }
    }
}

/// The first `x-mcp-header` annotation of `schema` the tools page does not allow, if any: only
/// reachable through `properties`, on string/integer/boolean properties, tchar tokens, unique
/// case-insensitively.
pub fn header_violation(schema: &Value) -> Option<HeaderViolation> {
    check_mcp_headers(schema).err()
}

/// Check `x-mcp-header` annotations per the tools page (see [`header_violation`]): the
/// `(header name, JSON pointer into arguments)` of each.
pub(crate) fn check_mcp_headers(schema: &Value) -> Result<Vec<(String, String)>, HeaderViolation> {
    fn walk(
        s: &Value,
        path: &mut Vec<String>,
        out: &mut Vec<(String, String, Vec<String>)>,
    ) -> Result<(), HeaderViolation> {
        let Some(obj) = s.as_object() else {
            return Ok(());
        };
        let fail = |problem| {
            Err(HeaderViolation {
                property: path.clone(),
                problem,
            })
        };
        if let Some(h) = obj.get("x-mcp-header") {
            if path.is_empty() {
                return fail(HeaderProblem::AtRoot);
            }
            let Some(h) = h.as_str() else {
                return fail(HeaderProblem::NotString(h.clone()));
            };
            let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
            if h.is_empty() || !h.chars().all(tchar) {
                return fail(HeaderProblem::NotToken(h.into()));
            }
            match obj.get("type") {
                Some(Value::String(t))
                    if matches!(t.as_str(), "string" | "integer" | "boolean") => {}
                Some(Value::String(t)) => return fail(HeaderProblem::NotPrimitive(t.clone())),
                other => {
                    return fail(HeaderProblem::TypeNotString(
                        other.cloned().unwrap_or(Value::Null),
                    ))
                }
            }
            if let Some((_, _, first)) = out.iter().find(|(x, _, _)| x.eq_ignore_ascii_case(h)) {
                return fail(HeaderProblem::Duplicate(h.into(), first.clone()));
            }
            let pointer: String = path.iter().map(|k| format!("/{k}")).collect();
            out.push((h.to_string(), pointer, path.clone()));
        }
        if let Some(Value::Object(props)) = obj.get("properties") {
            for (k, sub) in props {
                path.push(k.clone());
                walk(sub, path, out)?;
                path.pop();
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out)?;
    Ok(out.into_iter().map(|(h, p, _)| (h, p)).collect())
}

/// Messages for an `isError` result or `data.violations`.
pub(crate) fn violations_json(v: &[Violation]) -> Value {
    Value::Array(
        v.iter()
            .map(|x| {
                let mut m = Map::new();
                m.insert("pointer".into(), Value::String(x.pointer.clone()));
                m.insert("message".into(), Value::String(x.message.clone()));
                Value::Object(m)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host's `{path, message}` (pydantic `loc`, zod `path`) becomes a JSON pointer, escaped.
    #[test]
    fn host_violations_become_json_pointers() {
        let v = |j: Value| Violation::from_host(&j).unwrap().pointer;
        assert_eq!(
            v(serde_json::json!({"path": ["a", 0, "b/c~"], "message": "m"})),
            "/a/0/b~1c~0"
        );
        assert_eq!(v(serde_json::json!({"path": [], "message": "m"})), "");
        assert_eq!(v(serde_json::json!({"message": "m"})), "");
        assert_eq!(v(serde_json::json!({"path": "/x", "message": "m"})), "/x");
        assert!(Violation::from_host(&serde_json::json!({"path": ["a"]})).is_none());
    }
    use serde_json::json;

    #[test]
    fn reports_every_violation_with_pointer() {
        let s = CompiledSchema::compile(&json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a","b"]})).unwrap();
        let v = s.violations(&json!({"a":"x"}));
        assert_eq!(v.len(), 2, "{v:?}");
        assert!(v.iter().any(|x| x.pointer == "/a"));
        assert!(v
            .iter()
            .any(|x| x.pointer.is_empty() && x.message.contains("\"b\"")));
    }

    #[test]
    fn failures_name_the_keyword_the_value_and_what_it_asked() {
        let s = CompiledSchema::compile(&json!({"type":"object","properties":{"a":{"type":"number"},"b":{},"t":{"enum":["Mr","Ms"]}},"required":["a","b"],"additionalProperties":false})).unwrap();
        let f = s.failures(&json!({"a":"five","t":"Prof","x":1}));
        let by = |k: &str| f.iter().find(|x| x.keyword == k).unwrap().clone();
        assert_eq!(by("required").argument, json!("b"));
        assert_eq!(by("required").pointer, "");
        assert_eq!(
            (
                by("type").pointer.as_str(),
                by("type").instance.clone(),
                by("type").argument.clone()
            ),
            ("/a", json!("five"), json!("number"))
        );
        assert_eq!(by("enum").argument, json!(["Mr", "Ms"]));
        assert_eq!(by("additionalProperties").argument, json!(["x"]));
        assert!(s.failures(&json!({"a":1,"b":2})).is_empty());
    }

    #[test]
    fn rejects_unknown_dialect_and_remote_refs() {
        assert!(CompiledSchema::compile(&json!({"$schema":"https://example.com/mine"})).is_err());
        assert!(CompiledSchema::compile(&json!({"$ref":"https://example.com/x.json"})).is_err());
    }

    #[test]
    fn equal_schemas_share_one_compiled_schema() {
        let cache = SchemaCache::default();
        let a = cache
            .compile(json!({"type":"object","properties":{"x":{"type":"integer"}}}))
            .unwrap();
        // the same schema written in another key order
        let b = cache
            .compile(json!({"properties":{"x":{"type":"integer"}},"type":"object"}))
            .unwrap();
        let c = cache
            .compile(json!({"type":"object","properties":{"x":{"type":"string"}}}))
            .unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(cache.live(), 2);
        drop((a, b));
        assert_eq!(cache.live(), 1);
        assert!(cache
            .compile(json!({"$schema":"https://example.com/mine"}))
            .is_err());
        // a general (not flat) schema is shared too
        let g1 = cache
            .compile(json!({"type":"object","properties":{"x":{"type":"integer","minimum":3}}}))
            .unwrap();
        let g2 = cache
            .compile(json!({"type":"object","properties":{"x":{"type":"integer","minimum":3}}}))
            .unwrap();
        assert!(Arc::ptr_eq(&g1, &g2));
        assert!(!g1.is_valid(&json!({"x": 1})) && g1.is_valid(&json!({"x": 4})));
    }

    #[test]
    fn coerces_numeric_strings_in_lenient_mode() {
        let schema = json!({"type":"object","properties":{"n":{"type":"integer"},"f":{"type":"number"},"b":{"type":"boolean"},"s":{"type":"string"}}});
        let mut v = json!({"n":"42","f":"1.5","b":"true","s":"7"});
        assert!(coerce_scalars(&schema, &mut v));
        assert_eq!(v, json!({"n":42,"f":1.5,"b":true,"s":"7"}));
    }

    #[test]
    fn lenient_mode_follows_pydantic_lax_scalars() {
        let schema = json!({"type":"object","properties":{
            "b":{"type":"boolean"},"i":{"type":"integer"},"f":{"type":"number"},
            "ob":{"anyOf":[{"type":"boolean"},{"type":"null"}]},
            "si":{"anyOf":[{"type":"string"},{"type":"integer"}]},
            "bs":{"type":"array","items":{"type":"boolean"}}}});
        for (word, want) in [
            ("yes", true),
            ("No", false),
            ("ON", true),
            ("off", false),
            ("t", true),
            ("f", false),
            ("y", true),
            ("n", false),
            ("1", true),
            ("0", false),
        ] {
            let mut v = json!({"b": word});
            assert!(coerce_scalars(&schema, &mut v), "{word}");
            assert_eq!(v, json!({"b": want}));
        }
        let mut v =
            json!({"b": 1, "i": " 1_000 ", "f": "1e3", "ob": "yes", "si": "3", "bs": ["on", 0]});
        assert!(coerce_scalars(&schema, &mut v));
        assert_eq!(
            v,
            json!({"b": true, "i": 1000, "f": 1000.0, "ob": true, "si": "3", "bs": [true, false]})
        );
        let mut v = json!({"i": "3.0"});
        assert!(coerce_scalars(&schema, &mut v));
        assert_eq!(v, json!({"i": 3}));
        let mut v = json!({"i": true});
        assert!(coerce_scalars(&schema, &mut v));
        assert_eq!(v, json!({"i": 1}));
        // What pydantic refuses stays as it is (and then fails the schema).
        for bad in [
            json!({"b": "maybe"}),
            json!({"b": 2}),
            json!({"i": "3.5"}),
            json!({"i": "1e3"}),
            json!({"i": "1__0"}),
            json!({"f": "inf"}),
            json!({"si": 3.5}),
        ] {
            let mut v = bad.clone();
            assert!(!coerce_scalars(&schema, &mut v), "{bad}");
            assert_eq!(v, bad);
        }
    }
}
