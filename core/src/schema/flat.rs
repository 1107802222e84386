//! The shape most tool schemas have — an object whose properties are plain JSON types, some of
//! them required — checked directly, without the general JSON Schema engine.
//!
//! Why: building the first `jsonschema` validator of a process builds its Draft 2020-12
//! meta-schema validator too (about 0.5 MiB of heap that stays for the life of the process) and
//! runs the engine's compiler and regex code at start. For this shape neither is needed: the
//! schema is recognised only when it is certainly valid under the meta-schema, and the answer
//! is the one a 2020-12 validator gives. Anything else — another keyword, a nested schema, a
//! `$schema` — goes to the general engine, as before. The engine is also what explains a
//! failure: [`super::CompiledSchema::violations`] compiles it on the first invalid instance, so
//! error messages do not depend on which path said "invalid".

use serde_json::{Map, Value};

/// A recognised flat object schema.
#[derive(Debug)]
pub(super) struct Flat {
    /// Declared properties, sorted by name, with the types each accepts.
    props: Vec<(String, Types)>,
    required: Vec<String>,
    /// `additionalProperties: false`.
    closed: bool,
}

/// A set of JSON Schema type names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Types(u8);

impl Types {
    const NULL: u8 = 1;
    const BOOLEAN: u8 = 2;
    const OBJECT: u8 = 4;
    const ARRAY: u8 = 8;
    const NUMBER: u8 = 16;
    const INTEGER: u8 = 32;
    const STRING: u8 = 64;
    const ANY: Types = Types(127);

    fn named(name: &str) -> Option<u8> {
        Some(match name {
            "null" => Self::NULL,
            "boolean" => Self::BOOLEAN,
            "object" => Self::OBJECT,
            "array" => Self::ARRAY,
            "number" => Self::NUMBER,
            "integer" => Self::INTEGER,
            "string" => Self::STRING,
            _ => return None,
        })
    }

    /// `type`: one name, or a non-empty array of distinct names (the meta-schema's rule).
    fn parse(t: &Value) -> Option<Types> {
        match t {
            Value::String(s) => Self::named(s).map(Types),
            Value::Array(names) if !names.is_empty() => {
                let mut bits = 0;
                for n in names {
                    let b = Self::named(n.as_str()?)?;
                    if bits & b != 0 {
                        return None;
                    }
                    bits |= b;
                }
                Some(Types(bits))
            }
            _ => None,
        }
    }

    fn accepts(self, v: &Value) -> bool {
        let has = |b: u8| self.0 & b != 0;
        match v {
            Value::Null => has(Self::NULL),
            Value::Bool(_) => has(Self::BOOLEAN),
            Value::Object(_) => has(Self::OBJECT),
            Value::Array(_) => has(Self::ARRAY),
            Value::String(_) => has(Self::STRING),
            Value::Number(n) => {
                has(Self::NUMBER)
                    || (has(Self::INTEGER)
                        // 2020-12: an integer is any number with a zero fractional part (1.0 too).
                        && (n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)))
            }
        }
    }
}

/// Annotation keywords: no effect on validity. The value must still be what the meta-schema
/// asks, or the general engine would have refused the schema.
fn annotation_ok(key: &str, v: &Value) -> Option<bool> {
    Some(match key {
        "title" | "description" | "$comment" | "format" => v.is_string(),
        "deprecated" | "readOnly" | "writeOnly" => v.is_boolean(),
        "examples" => v.is_array(),
        "default" => true,
        // Extension keywords (`x-mcp-header`, ...): unknown to JSON Schema, ignored by it.
        k if k.starts_with("x-") => true,
        _ => return None,
    })
}

fn property(schema: &Value) -> Option<Types> {
    let obj = match schema {
        Value::Bool(true) => return Some(Types::ANY),
        Value::Object(o) => o,
        _ => return None,
    };
    let mut types = Types::ANY;
    for (k, v) in obj {
        if k == "type" {
            types = Types::parse(v)?;
        } else if !annotation_ok(k, v)? {
            return None;
        }
    }
    Some(types)
}

impl Flat {
    /// `Some` for `{"type": "object", "properties": {name: {"type": ...}}, "required": [...],
    /// "additionalProperties": bool}` (each part but `type` optional, annotations allowed), when
    /// every part is valid under the meta-schema; `None` for anything else.
    pub(super) fn recognize(schema: &Value) -> Option<Flat> {
        let obj: &Map<String, Value> = schema.as_object()?;
        let mut flat = Flat {
            props: Vec::new(),
            required: Vec::new(),
            closed: false,
        };
        let mut typed = false;
        for (k, v) in obj {
            match k.as_str() {
                "type" => {
                    if v.as_str() != Some("object") {
                        return None;
                    }
                    typed = true;
                }
                "properties" => {
                    for (name, s) in v.as_object()? {
                        flat.props.push((name.clone(), property(s)?));
                    }
                }
                "required" => {
                    for r in v.as_array()? {
                        let r = r.as_str()?;
                        if flat.required.iter().any(|x| x == r) {
                            return None; // the meta-schema wants unique items
                        }
                        flat.required.push(r.to_string());
                    }
                }
                "additionalProperties" => flat.closed = !v.as_bool()?,
                _ => {
                    if !annotation_ok(k, v)? {
                        return None;
                    }
                }
            }
        }
        if !typed {
            return None;
        }
        flat.props.sort_by(|a, b| a.0.cmp(&b.0));
        Some(flat)
    }

    pub(super) fn is_valid(&self, instance: &Value) -> bool {
        let Some(obj) = instance.as_object() else {
            return false;
        };
        if !self.required.iter().all(|r| obj.contains_key(r)) {
            return false;
        }
        obj.iter().all(|(k, v)| {
            match self
                .props
                .binary_search_by(|(name, _)| name.as_str().cmp(k))
            {
                Ok(i) => self.props[i].1.accepts(v),
                Err(_) => !self.closed,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The fast path must agree with the general engine on every schema it takes, and take only
    /// schemas the engine accepts.
    #[test]
    fn agrees_with_jsonschema() {
        let schemas = [
            json!({"type":"object"}),
            json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}),
            json!({"type":"object","properties":{"text":{"type":"string","description":"t"}},"required":["text"],"additionalProperties":false}),
            json!({"type":"object","title":"T","description":"d","properties":{
                "n":{"type":"number"},"i":{"type":["integer","null"],"format":"int64","default":null},
                "s":{"type":"string","format":"email","examples":["a@b"],"x-mcp-header":"X-S"},
                "b":{"type":"boolean","deprecated":true},"o":{"type":"object"},"l":{"type":"array"},
                "any":{},"t":true,"z":{"type":"null","readOnly":true,"$comment":"c"}},
              "required":["n"],"additionalProperties":true}),
        ];
        let instances = [
            json!({}),
            json!([]),
            json!("x"),
            json!(null),
            json!({"a":1,"b":2}),
            json!({"a":1}),
            json!({"a":1.0,"b":-0.0}),
            json!({"a":1.5,"b":2}),
            json!({"a":1e300,"b":18446744073709551615u64}),
            json!({"a":"1","b":2}),
            json!({"a":1,"b":2,"c":3}),
            json!({"text":"hi"}),
            json!({"text":"hi","more":1}),
            json!({"text":5}),
            json!({"n":1}),
            json!({"n":1.5,"i":null,"s":"nope","b":false,"o":{},"l":[],"any":[1],"t":{},"z":null}),
            json!({"n":"1"}),
            json!({"n":1,"i":2.5}),
            json!({"n":1,"i":"x"}),
            json!({"n":1,"o":[]}),
            json!({"n":1,"l":{}}),
            json!({"n":1,"z":0}),
            json!({"n":1,"b":"true"}),
        ];
        for s in &schemas {
            let flat = Flat::recognize(s).unwrap_or_else(|| panic!("not recognised: {s}"));
            let engine = jsonschema::draft202012::new(s).expect("the engine accepts it");
            for i in &instances {
                assert_eq!(flat.is_valid(i), engine.is_valid(i), "{s} with {i}");
            }
        }
    }

    /// Random flat schemas against random instances (a fixed seed, 300 x 40): every schema the
    /// fast path takes, the engine takes, and both say the same of every instance.
    #[test]
    fn agrees_with_jsonschema_on_random_schemas_and_instances() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        const TYPES: [&str; 7] = [
            "string", "integer", "number", "boolean", "null", "object", "array",
        ];
        const NAMES: [&str; 4] = ["a", "b", "c", "d"];
        let value = |next: &mut dyn FnMut(usize) -> usize| match next(12) {
            0 => json!(null),
            1 => json!(true),
            2 => json!(0),
            3 => json!(-7),
            4 => json!(2.5),
            5 => json!(3.0),
            6 => json!(u64::MAX),
            7 => json!(""),
            8 => json!("12"),
            9 => json!([]),
            10 => json!({}),
            _ => json!({"a":1}),
        };
        for _ in 0..300 {
            let mut props = serde_json::Map::new();
            for name in NAMES {
                match next(4) {
                    0 => {}
                    1 => {
                        props.insert(name.into(), json!({"type": TYPES[next(7)]}));
                    }
                    2 => {
                        let (a, b) = (TYPES[next(7)], TYPES[next(7)]);
                        let t = if a == b { json!([a]) } else { json!([a, b]) };
                        props.insert(name.into(), json!({"type": t, "description": "d"}));
                    }
                    _ => {
                        props.insert(name.into(), json!({}));
                    }
                }
            }
            let required: Vec<&str> = NAMES.iter().copied().filter(|_| next(3) == 0).collect();
            let mut schema = json!({"type": "object", "properties": props, "required": required});
            match next(3) {
                0 => schema["additionalProperties"] = json!(false),
                1 => schema["additionalProperties"] = json!(true),
                _ => {}
            }
            let flat =
                Flat::recognize(&schema).unwrap_or_else(|| panic!("not recognised: {schema}"));
            let engine = jsonschema::draft202012::new(&schema).expect("the engine accepts it");
            for _ in 0..40 {
                let instance = if next(8) == 0 {
                    value(&mut next)
                } else {
                    let mut o = serde_json::Map::new();
                    for name in NAMES.iter().chain(["e"].iter()) {
                        if next(2) == 0 {
                            o.insert((*name).into(), value(&mut next));
                        }
                    }
                    Value::Object(o)
                };
                assert_eq!(
                    flat.is_valid(&instance),
                    engine.is_valid(&instance),
                    "{schema} with {instance}"
                );
            }
        }
    }

    #[test]
    fn leaves_everything_else_to_the_engine() {
        for s in [
            json!(true),
            json!({}),
            json!({"properties":{"a":{"type":"integer"}}}),
            json!({"type":"array"}),
            json!({"type":["object"]}),
            json!({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}),
            json!({"type":"object","properties":{"a":{"type":"integer","minimum":0}}}),
            json!({"type":"object","properties":{"a":{"type":"object","properties":{}}}}),
            json!({"type":"object","properties":{"a":{"enum":[1]}}}),
            json!({"type":"object","properties":{"a":{"$ref":"#/$defs/x"}}}),
            json!({"type":"object","properties":{"a":false}}),
            json!({"type":"object","additionalProperties":{"type":"string"}}),
            json!({"type":"object","patternProperties":{"^x":{}}}),
            json!({"type":"object","allOf":[]}),
            json!({"type":"object","unknownKeyword":1}),
            // Not valid under the meta-schema: the engine must see them (and refuse them).
            json!({"type":"object","required":["a","a"]}),
            json!({"type":"object","required":"a"}),
            json!({"type":"object","description":5}),
            json!({"type":"object","properties":{"a":{"type":"integr"}}}),
            json!({"type":"object","properties":{"a":{"type":[]}}}),
            json!({"type":"object","properties":{"a":{"type":["string","string"]}}}),
            json!({"type":"object","properties":{"a":{"examples":5}}}),
            json!({"type":"object","properties":{"a":{"deprecated":"no"}}}),
            json!({"type":"object","properties":{"a":{"format":5}}}),
            json!({"type":"object","additionalProperties":"x"}),
        ] {
            assert!(Flat::recognize(&s).is_none(), "{s}");
        }
    }
}
