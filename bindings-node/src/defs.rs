//! The definitions `NativeServer.add*` take, as `#[napi(object)]` structs: the generated native
//! typings (native.d.ts) then name every member and its type instead of `def: any`.
//!
//! Each struct becomes the spec-shaped JSON object the core's `from_definition` reads. Members
//! whose shape the spec leaves open (a JSON Schema, `_meta`, annotations) are JSON: a schema
//! crosses as JSON text (`JSON.stringify` in JS, one napi string), not as a JS object that napi
//! walks key by key (`napi_get_property_names` + `napi_get_property` per member, most of what
//! one `addTool` cost). `extraJson`: members the struct does not name, kept verbatim
//! (a low-level server's list handler may return any).

use crate::errors::{coded, Code, Result};
use napi_derive::napi;
use serde_json::{Map, Value};

/// A tool as `tools/list` shows it (the spec's `Tool`).
#[napi(object)]
pub struct NativeToolDef {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The input schema as JSON text (root `type: "object"`); none: `{"type":"object"}`.
    pub input_schema_json: Option<String>,
    /// The output schema as JSON text.
    pub output_schema_json: Option<String>,
    #[napi(ts_type = "import('./index').ToolAnnotations & { [key: string]: unknown }")]
    pub annotations: Option<Value>,
    #[napi(ts_type = "import('./index').Icon[]")]
    pub icons: Option<Value>,
    #[napi(js_name = "_meta", ts_type = "{ [key: string]: unknown }")]
    pub meta: Option<Value>,
    #[napi(
        ts_type = "{ taskSupport?: 'forbidden' | 'optional' | 'required'; [key: string]: unknown }"
    )]
    pub execution: Option<Value>,
    /// Other members of the `Tool` object, as JSON text of an object.
    pub extra_json: Option<String>,
}

/// A static resource as `resources/list` shows it (the spec's `Resource`).
#[napi(object)]
pub struct NativeResourceDef {
    pub uri: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    pub size: Option<f64>,
    #[napi(ts_type = "import('./index').Icon[]")]
    pub icons: Option<Value>,
    #[napi(ts_type = "import('./index').Annotations & { [key: string]: unknown }")]
    pub annotations: Option<Value>,
    #[napi(js_name = "_meta", ts_type = "{ [key: string]: unknown }")]
    pub meta: Option<Value>,
    /// Other members of the `Resource` object, as JSON text of an object.
    pub extra_json: Option<String>,
}

/// A resource template as `resources/templates/list` shows it (the spec's `ResourceTemplate`).
#[napi(object)]
pub struct NativeResourceTemplateDef {
    /// An RFC 6570 URI template.
    pub uri_template: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    #[napi(ts_type = "import('./index').Icon[]")]
    pub icons: Option<Value>,
    #[napi(ts_type = "import('./index').Annotations & { [key: string]: unknown }")]
    pub annotations: Option<Value>,
    #[napi(js_name = "_meta", ts_type = "{ [key: string]: unknown }")]
    pub meta: Option<Value>,
    /// Other members of the `ResourceTemplate` object, as JSON text of an object.
    pub extra_json: Option<String>,
}

/// A prompt as `prompts/list` shows it (the spec's `Prompt`).
#[napi(object)]
pub struct NativePromptDef {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    #[napi(ts_type = "import('./index').PromptArgument[]")]
    pub arguments: Option<Value>,
    #[napi(ts_type = "import('./index').Icon[]")]
    pub icons: Option<Value>,
    #[napi(js_name = "_meta", ts_type = "{ [key: string]: unknown }")]
    pub meta: Option<Value>,
    /// Other members of the `Prompt` object, as JSON text of an object.
    pub extra_json: Option<String>,
}

/// Builds the JSON object of a definition, member by member.
struct Def {
    what: &'static str,
    map: Map<String, Value>,
}

impl Def {
    /// Starts from `extraJson` (the named members then win over it).
    fn new(what: &'static str, extra_json: Option<String>) -> Result<Self> {
        let map = match extra_json {
            None => Map::new(),
            Some(text) => match serde_json::from_str(&text) {
                Ok(Value::Object(m)) => m,
                _ => {
                    return Err(coded(
                        Code::InvalidDefinition,
                        format!("{what} definition: extraJson must be the JSON text of an object"),
                    ))
                }
            },
        };
        Ok(Self { what, map })
    }
    fn str(mut self, key: &str, v: Option<String>) -> Self {
        if let Some(v) = v {
            self.map.insert(key.into(), Value::String(v));
        }
        self
    }
    fn value(mut self, key: &str, v: Option<Value>) -> Self {
        // `null` from JS is "not given", as `undefined` is.
        if let Some(v) = v.filter(|v| !v.is_null()) {
            self.map.insert(key.into(), v);
        }
        self
    }
    /// A member given as JSON text (a schema): a bad text is an INVALID_SCHEMA error naming it.
    fn json(mut self, key: &str, text: Option<String>) -> Result<Self> {
        if let Some(text) = text {
            let v: Value = serde_json::from_str(&text).map_err(|e| {
                let name = self.map.get("name").and_then(Value::as_str).unwrap_or("");
                coded(
                    Code::InvalidSchema,
                    format!("{} {name:?}: {key} is not JSON text: {e}", self.what),
                )
            })?;
            self.map.insert(key.into(), v);
        }
        Ok(self)
    }
}

impl NativeToolDef {
    pub(crate) fn into_map(self) -> Result<Map<String, Value>> {
        Ok(Def::new("tool", self.extra_json)?
            .str("name", Some(self.name))
            .str("title", self.title)
            .str("description", self.description)
            .json("inputSchema", self.input_schema_json)?
            .json("outputSchema", self.output_schema_json)?
            .value("annotations", self.annotations)
            .value("icons", self.icons)
            .value("_meta", self.meta)
            .value("execution", self.execution)
            .map)
    }
}

impl NativeResourceDef {
    pub(crate) fn into_map(self) -> Result<Map<String, Value>> {
        Ok(Def::new("resource", self.extra_json)?
            .str("uri", Some(self.uri))
            .str("name", Some(self.name))
            .str("title", self.title)
            .str("description", self.description)
            .str("mimeType", self.mime_type)
            .value("size", self.size.and_then(size))
            .value("icons", self.icons)
            .value("annotations", self.annotations)
            .value("_meta", self.meta)
            .map)
    }
}

/// A resource's `size` as JSON: an integer when it is one (JS numbers are doubles).
fn size(n: f64) -> Option<Value> {
    if n.fract() == 0.0 && (0.0..9_007_199_254_740_992.0).contains(&n) {
        Some(Value::from(n as u64))
    } else {
        serde_json::Number::from_f64(n).map(Value::Number)
    }
}

impl NativeResourceTemplateDef {
    pub(crate) fn into_map(self) -> Result<Map<String, Value>> {
        Ok(Def::new("resource template", self.extra_json)?
            .str("uriTemplate", Some(self.uri_template))
            .str("name", Some(self.name))
            .str("title", self.title)
            .str("description", self.description)
            .str("mimeType", self.mime_type)
            .value("icons", self.icons)
            .value("annotations", self.annotations)
            .value("_meta", self.meta)
            .map)
    }
}

impl NativePromptDef {
    pub(crate) fn into_map(self) -> Result<Map<String, Value>> {
        Ok(Def::new("prompt", self.extra_json)?
            .str("name", Some(self.name))
            .str("title", self.title)
            .str("description", self.description)
            .value("arguments", self.arguments)
            .value("icons", self.icons)
            .value("_meta", self.meta)
            .map)
    }
}

/// An explicit element's pairing checked by the core's rule (`oxmcp::element::check`): the
/// definition's kind, or the core's error (the same text as in Python). `definition_json`: the
/// spec-shaped definition as JSON text.
#[napi(ts_return_type = "'tool' | 'prompt' | 'resource' | 'resource template'")]
pub fn check_element(
    definition_json: String,
    handler_kind: Option<String>,
) -> Result<&'static str> {
    let def: Value = serde_json::from_str(&definition_json).map_err(|e| {
        coded(
            Code::InvalidDefinition,
            format!("an element's definition: {e}"),
        )
    })?;
    oxmcp::element::check(&def, handler_kind.as_deref()).map_err(crate::errors::build)
}

/// A registration's named completers checked by the core's rule
/// (`oxmcp::completion::check_names`) before it is registered: a prompt's (`arguments`: its
/// argument names) or a resource template's (`name`: its URI template). The same names are
/// refused with the same text as in Python.
#[napi]
pub fn check_completion_names(
    name: String,
    completed: Vec<String>,
    arguments: Option<Vec<String>>,
) -> Result<()> {
    use oxmcp::completion::{check_names, Completed};
    let args: Vec<&str> = arguments.iter().flatten().map(String::as_str).collect();
    let primitive = match &arguments {
        Some(_) => Completed::Prompt {
            name: &name,
            arguments: &args,
        },
        None => Completed::Template {
            uri_template: &name,
        },
    };
    check_names(primitive, &completed).map_err(|e| coded(Code::InvalidDefinition, e))
}
