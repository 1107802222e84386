//! Prompts: named message templates with string arguments.

use crate::error::BuildError;
use crate::handler::{CompletionHandler, PromptHandler};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone)]
pub struct Prompt {
    pub(crate) name: String,
    pub(crate) def: Map<String, Value>,
    pub(crate) handler: Option<Arc<dyn PromptHandler>>,
    pub(crate) completion: Option<Arc<dyn CompletionHandler>>,
    pub(crate) required_scopes: Vec<String>,
    pub(crate) timeout: Option<Duration>,
}

impl Prompt {
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        let mut def = Map::new();
        def.insert("name".into(), Value::String(name.clone()));
        Self {
            name,
            def,
            handler: None,
            completion: None,
            required_scopes: Vec::new(),
            timeout: None,
        }
    }
    pub fn from_definition(def: Map<String, Value>) -> Result<Self, BuildError> {
        let name = def
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| BuildError::InvalidName {
                kind: "prompt",
                name: String::new(),
                message: "missing name".into(),
            })?;
        Ok(Self {
            name,
            def,
            handler: None,
            completion: None,
            required_scopes: Vec::new(),
            timeout: None,
        })
    }
    fn set(mut self, k: &str, v: Value) -> Self {
        self.def.insert(k.into(), v);
        self
    }
    pub fn title(self, t: impl Into<String>) -> Self {
        self.set("title", Value::String(t.into()))
    }
    pub fn description(self, d: impl Into<String>) -> Self {
        self.set("description", Value::String(d.into()))
    }
    pub fn icons(self, i: Value) -> Self {
        self.set("icons", i)
    }
    pub fn meta(self, m: Map<String, Value>) -> Self {
        self.set("_meta", Value::Object(m))
    }
    /// Declare an argument (`prompts/get` rejects a call missing a required one with -32602).
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        let args = self.def.entry("arguments").or_insert_with(|| json!([]));
        if let Value::Array(a) = args {
            a.push(json!({"name": name.into(), "description": description.into(), "required": required}));
        }
        self
    }
    /// OAuth scopes a caller must hold to get this prompt (when auth is on); see
    /// [`Tool::required_scopes`](crate::Tool::required_scopes).
    pub fn required_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
    /// Bound each `prompts/get` (and completion) by `t` (otherwise the server's `tool_timeout`).
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = Some(t);
        self
    }
    /// [`timeout`](Self::timeout) from milliseconds as a binding gives it, checked by the rule
    /// every registration's timeout follows (above 0, at most 2^53 - 1 ms).
    pub fn timeout_ms(mut self, ms: Option<f64>) -> Result<Self, BuildError> {
        if let Some(t) = ms {
            self.timeout = Some(crate::tool::timeout_of_ms("prompt", &self.name, t)?);
        }
        Ok(self)
    }
    pub fn handler(mut self, h: impl PromptHandler) -> Self {
        self.handler = Some(Arc::new(h));
        self
    }
    pub fn handler_arc(mut self, h: Arc<dyn PromptHandler>) -> Self {
        self.handler = Some(h);
        self
    }
    /// Completions for this prompt's arguments.
    pub fn complete(mut self, h: impl CompletionHandler) -> Self {
        self.completion = Some(Arc::new(h));
        self
    }
    pub fn complete_arc(mut self, h: Arc<dyn CompletionHandler>) -> Self {
        self.completion = Some(h);
        self
    }
}

pub(crate) struct PromptEntry {
    pub(crate) def: Value,
    pub(crate) required: Vec<String>,
    pub(crate) handler: Arc<dyn PromptHandler>,
    pub(crate) completion: Option<Arc<dyn CompletionHandler>>,
    pub(crate) required_scopes: Vec<String>,
    /// The call's own bound (`None`: the server's `tool_timeout`).
    pub(crate) timeout: Option<Duration>,
}

impl PromptEntry {
    pub(crate) fn compile(p: Prompt) -> Result<(String, Self), BuildError> {
        let handler = p.handler.ok_or_else(|| BuildError::InvalidName {
            kind: "prompt",
            name: p.name.clone(),
            message: "prompt has no handler".into(),
        })?;
        let required = p
            .def
            .get("arguments")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter(|x| x.get("required").and_then(Value::as_bool) == Some(true))
                    .filter_map(|x| x.get("name").and_then(Value::as_str).map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        Ok((
            p.name,
            Self {
                def: Value::Object(p.def),
                required,
                handler,
                completion: p.completion,
                required_scopes: p.required_scopes,
                timeout: p.timeout,
            },
        ))
    }
}
