//! Tool definitions: the descriptor `tools/list` shows, the compiled schemas, and the handler.

use crate::context::Context;
use crate::error::{BuildError, HandlerError};
use crate::handler::{BoxFuture, IntoToolResult, RefusalWording, ToolHandler};
use crate::protocol::ToolResult;
use crate::schema::{check_mcp_headers, CompiledSchema, SchemaCache};
use serde_json::{json, Map, Value};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// A tool to register. Build it with [`Tool::new`] (any JSON Schema) or [`Tool::typed`]
/// (schema derived from a Rust type with `schemars`).
#[derive(Clone)]
pub struct Tool {
    pub(crate) name: String,
    pub(crate) def: Map<String, Value>,
    pub(crate) handler: Option<Arc<dyn ToolHandler>>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) required_scopes: Vec<String>,
    pub(crate) max_concurrency: Option<usize>,
    pub(crate) task_after: Option<Duration>,
    pub(crate) wording: Option<Arc<dyn RefusalWording>>,
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("def", &self.def)
            .finish()
    }
}

/// A registration's own timeout from milliseconds, as the bindings give it: the one rule for
/// every kind (tool, resource, template, prompt), so a value is refused with the same text in
/// every language.
pub(crate) fn timeout_of_ms(
    kind: &'static str,
    name: &str,
    t: f64,
) -> Result<Duration, BuildError> {
    let top = crate::jsonrpc::MAX_SAFE_INTEGER;
    if !(t > 0.0 && t <= top as f64) {
        return Err(BuildError::InvalidOption {
            kind,
            name: name.to_string(),
            message: format!("its timeout must be above 0 and at most {top} ms"),
        });
    }
    Ok(Duration::from_secs_f64(t / 1000.0))
}

impl Tool {
    /// A tool whose arguments follow `input_schema` (a JSON Schema object with root `type: object`).
    pub fn new(name: impl Into<String>, input_schema: Value) -> Self {
        let name = name.into();
        let mut def = Map::new();
        def.insert("name".into(), Value::String(name.clone()));
        def.insert("inputSchema".into(), input_schema);
        Self {
            name,
            def,
            handler: None,
            timeout: None,
            required_scopes: Vec::new(),
            max_concurrency: None,
            task_after: None,
            wording: None,
        }
    }

    /// Build a tool from a full spec-shaped `Tool` object (what the bindings pass).
    pub fn from_definition(def: Map<String, Value>) -> Result<Self, BuildError> {
        let name = def
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| BuildError::InvalidName {
                kind: "tool",
                name: String::new(),
                message: "missing name".into(),
            })?;
        let mut def = def;
        def.entry("inputSchema")
            .or_insert_with(|| json!({"type":"object"}));
        Ok(Self {
            name,
            def,
            handler: None,
            timeout: None,
            required_scopes: Vec::new(),
            max_concurrency: None,
            task_after: None,
            wording: None,
        })
    }

    /// A tool whose arguments deserialize into `T`; the input schema is derived from `T`.
    #[cfg(feature = "schemars")]
    pub fn typed<T, F, Fut, R, E>(name: impl Into<String>, f: F) -> Self
    where
        T: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static,
        F: Fn(Args<T>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, E>> + Send + 'static,
        R: IntoToolResult,
        E: Into<HandlerError>,
    {
        let schema = crate::schema_for::<T>();
        Self::new(name, schema).handler(Typed {
            f,
            _t: std::marker::PhantomData::<fn() -> T>,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    fn set(mut self, k: &str, v: Value) -> Self {
        self.def.insert(k.into(), v);
        self
    }
    pub fn title(self, title: impl Into<String>) -> Self {
        self.set("title", Value::String(title.into()))
    }
    pub fn description(self, d: impl Into<String>) -> Self {
        self.set("description", Value::String(d.into()))
    }
    /// Any JSON Schema; `structuredContent` is validated against it.
    pub fn output_schema(self, schema: Value) -> Self {
        self.set("outputSchema", schema)
    }
    /// `ToolAnnotations` (`readOnlyHint`, `destructiveHint`, ...).
    pub fn annotations(self, a: Value) -> Self {
        self.set("annotations", a)
    }
    pub fn icons(self, icons: Value) -> Self {
        self.set("icons", icons)
    }
    pub fn meta(self, meta: Map<String, Value>) -> Self {
        self.set("_meta", Value::Object(meta))
    }
    /// The `_meta` object set so far (empty if none).
    pub(crate) fn meta_map(&self) -> Map<String, Value> {
        match self.def.get("_meta") {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        }
    }
    pub fn handler(mut self, h: impl ToolHandler) -> Self {
        self.handler = Some(Arc::new(h));
        self
    }
    pub fn handler_arc(mut self, h: Arc<dyn ToolHandler>) -> Self {
        self.handler = Some(h);
        self
    }
    /// How a refusal of this tool's arguments is worded (a compatibility layer's framework's
    /// text). Whether a call is refused stays the core's decision; see [`RefusalWording`].
    pub fn refusal_wording(mut self, w: impl RefusalWording) -> Self {
        self.wording = Some(Arc::new(w));
        self
    }
    pub fn refusal_wording_arc(mut self, w: Arc<dyn RefusalWording>) -> Self {
        self.wording = Some(w);
        self
    }
    /// Bound on one call; a timed-out call answers `isError` and its handler is cancelled.
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = Some(t);
        self
    }
    /// OAuth scopes a caller must hold to call this tool (when auth is on). A caller without
    /// them gets HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope"` naming all
    /// of them (JSON-RPC -31403 where there is no HTTP). The tool still shows in `tools/list`
    /// so the client can step up, unless `ServerOptions::hide_out_of_scope` is set.
    pub fn required_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
    /// Whether calls may become tasks (the Tasks extension); shown as `execution.taskSupport`.
    pub fn task_support(mut self, t: crate::tasks::TaskSupport) -> Self {
        let mut exec = match self.def.remove("execution") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        exec.insert("taskSupport".into(), Value::String(t.as_str().into()));
        self.set("execution", Value::Object(exec))
    }
    /// With task support: run the call as a plain request for up to `budget`, and turn it into
    /// a task only if it is still running then (default: a task at once). Input the handler
    /// asks for before that is an ordinary MRTR round.
    pub fn task_after(mut self, budget: Duration) -> Self {
        self.task_after = Some(budget);
        self
    }
    /// At most `n` calls of this tool run at once; calls beyond that answer `isError` at once.
    /// 0 is refused when the tool is registered (it would refuse every call).
    pub fn max_concurrency(mut self, n: usize) -> Self {
        self.max_concurrency = Some(n);
        self
    }

    /// The per-tool limits as a host gives them (numbers as the host's JSON holds them, times in
    /// milliseconds), each checked here so that every binding refuses the same values with the
    /// same text: a timeout above 0, `max_concurrency` a whole number from 1, a task budget of 0
    /// or more; none beyond 2^53-1 (`oxmcp::config::MAX_SAFE_INTEGER`), NaN or infinite.
    /// `None`: unset.
    pub fn limits(
        mut self,
        timeout_ms: Option<f64>,
        max_concurrency: Option<f64>,
        task_after_ms: Option<f64>,
    ) -> Result<Self, BuildError> {
        let top = crate::jsonrpc::MAX_SAFE_INTEGER;
        let max = top as f64;
        let bad = |message: String| BuildError::InvalidOption {
            kind: "tool",
            name: self.name.clone(),
            message,
        };
        let ms = |v: f64| Duration::from_secs_f64(v / 1000.0);
        if let Some(t) = timeout_ms {
            self.timeout = Some(timeout_of_ms("tool", &self.name, t)?);
        }
        if let Some(n) = max_concurrency {
            if !(n >= 1.0 && n <= max && n.fract() == 0.0) {
                return Err(bad(format!(
                    "max_concurrency must be a whole number from 1 to {top}"
                )));
            }
            self.max_concurrency = Some(n as usize);
        }
        if let Some(t) = task_after_ms {
            if !(t >= 0.0 && t <= max) {
                return Err(bad(format!(
                    "its task budget (task_after) must be 0 to {top} ms"
                )));
            }
            self.task_after = Some(ms(t));
        }
        Ok(self)
    }

    /// Link this tool to an MCP App: `_meta.ui.resourceUri` (a `ui://` URI) and who may call
    /// it (`visibility`: `"model"`, `"app"`; both by default).
    pub fn app(self, resource_uri: impl Into<String>, visibility: &[&str]) -> Self {
        let mut ui = Map::new();
        ui.insert("resourceUri".into(), Value::String(resource_uri.into()));
        if !visibility.is_empty() {
            ui.insert("visibility".into(), json!(visibility));
        }
        let mut meta = self.meta_map();
        meta.insert("ui".into(), Value::Object(ui));
        self.meta(meta)
    }
}

/// Typed arguments, deserialized from the validated `arguments` object.
#[derive(Debug, Clone)]
pub struct Args<T>(pub T);

// Only `Tool::typed` (feature `schemars`) builds one.
#[cfg_attr(not(feature = "schemars"), allow(dead_code))]
struct Typed<T, F> {
    f: F,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T, F, Fut, R, E> ToolHandler for Typed<T, F>
where
    T: serde::de::DeserializeOwned + Send + 'static,
    F: Fn(Args<T>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, E>> + Send + 'static,
    R: IntoToolResult,
    E: Into<HandlerError>,
{
    fn call(
        &self,
        args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<ToolResult, HandlerError>> {
        match serde_path_to_error::deserialize::<_, T>(Value::Object(args)) {
            Ok(t) => {
                let fut = (self.f)(Args(t), ctx);
                Box::pin(async move {
                    fut.await
                        .map(IntoToolResult::into_tool_result)
                        .map_err(Into::into)
                })
            }
            Err(e) => {
                // The core renders the text (the same as for a schema violation).
                let path: Vec<String> = e
                    .path()
                    .iter()
                    .filter_map(|s| match s {
                        serde_path_to_error::Segment::Seq { index } => Some(index.to_string()),
                        serde_path_to_error::Segment::Map { key } => Some(key.clone()),
                        serde_path_to_error::Segment::Enum { variant } => Some(variant.clone()),
                        serde_path_to_error::Segment::Unknown => None,
                    })
                    .collect();
                let v = crate::schema::Violation::at(path, e.into_inner().to_string());
                Box::pin(async move { Err(HandlerError::InvalidArguments(vec![v])) })
            }
        }
    }
}

/// A registered tool. Stored once: the descriptor without its schemas, and the compiled
/// schemas shared with every other tool that declares the same one (see [`SchemaCache`]); a
/// `tools/list` page puts them together (it copies what it sends either way).
pub(crate) struct ToolEntry {
    pub(crate) name: String,
    /// The `Tool` object minus `inputSchema` and `outputSchema`, as JSON text: ~100 bytes where
    /// the `Value` kept ~0.8 KB (a `BTreeMap` node is ~630 B even for two keys), for each of
    /// thousands of tools. Parsed again only to render a list page.
    pub(crate) def: Box<serde_json::value::RawValue>,
    pub(crate) input: Arc<CompiledSchema>,
    pub(crate) output: Option<Arc<CompiledSchema>>,
    /// Legacy sessions see the output schema only when it is object-rooted (their schema).
    pub(crate) legacy_output: bool,
    pub(crate) handler: Arc<dyn ToolHandler>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) required_scopes: Vec<String>,
    /// Per-tool concurrency cap.
    pub(crate) slots: Option<Arc<tokio::sync::Semaphore>>,
    /// `(header name, JSON pointer into arguments)` for `x-mcp-header` properties.
    pub(crate) mcp_headers: Vec<(String, String)>,
    /// `execution.taskSupport`.
    pub(crate) task: crate::tasks::TaskSupport,
    /// `Tool::task_after` (`None`: a task at once).
    pub(crate) task_after: Option<Duration>,
    /// `Tool::refusal_wording`.
    pub(crate) wording: Option<Arc<dyn RefusalWording>>,
}

pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
}

impl ToolEntry {
    pub(crate) fn compile(tool: Tool, schemas: &SchemaCache) -> Result<Self, BuildError> {
        let name = tool.name.clone();
        if !valid_name(&name) {
            return Err(BuildError::InvalidName {
                kind: "tool",
                name,
                message: "1-128 characters of A-Z a-z 0-9 _ - .".into(),
            });
        }
        if tool.max_concurrency == Some(0) {
            return Err(BuildError::InvalidOption {
                kind: "tool",
                name,
                message: format!(
                    "max_concurrency must be a whole number from 1 to {}",
                    crate::jsonrpc::MAX_SAFE_INTEGER
                ),
            });
        }
        let handler = tool
            .handler
            .clone()
            .ok_or_else(|| BuildError::InvalidSchema {
                name: name.clone(),
                message: "tool has no handler".into(),
            })?;
        let bad = |message: String| BuildError::InvalidSchema {
            name: name.clone(),
            message,
        };
        crate::apps::check_tool(&tool.def).map_err(bad)?;
        let mut def = tool.def;
        let input_schema = def.remove("inputSchema").unwrap_or(Value::Null);
        check_input_schema(&name, &input_schema)?;
        let input = schemas
            .compile(input_schema)
            .map_err(|e| bad(format!("inputSchema: {e}")))?;
        let mcp_headers = check_mcp_headers(input.source()).map_err(|v| bad(v.to_string()))?;
        let output = match def.remove("outputSchema") {
            Some(s) => Some(
                schemas
                    .compile(s)
                    .map_err(|e| bad(format!("outputSchema: {e}")))?,
            ),
            None => None,
        };
        let legacy_output = output
            .as_ref()
            .is_some_and(|s| s.source().get("type").and_then(Value::as_str) == Some("object"));
        let task = match def.get("execution").map(|e| e.get("taskSupport")) {
            None | Some(None) => crate::tasks::TaskSupport::Forbidden,
            Some(Some(v)) => v
                .as_str()
                .and_then(crate::tasks::TaskSupport::parse)
                .ok_or_else(|| {
                    bad(
                        "execution.taskSupport must be \"forbidden\", \"optional\" or \"required\""
                            .into(),
                    )
                })?,
        };
        let def = serde_json::value::to_raw_value(&def).map_err(|e| bad(e.to_string()))?;
        Ok(Self {
            name,
            def,
            input,
            output,
            legacy_output,
            handler,
            timeout: tool.timeout,
            required_scopes: tool.required_scopes,
            slots: tool
                .max_concurrency
                .map(|n| Arc::new(tokio::sync::Semaphore::new(n))),
            mcp_headers,
            task,
            task_after: tool.task_after,
            wording: tool.wording,
        })
    }

    /// The `Tool` object `tools/list` sends: for modern requests, or for legacy sessions
    /// (which see an object-rooted output schema only).
    pub(crate) fn descriptor(&self, modern: bool) -> Value {
        let mut out: Map<String, Value> = serde_json::from_str(self.def.get()).unwrap_or_default();
        out.insert("inputSchema".into(), self.input.source().clone());
        if let Some(o) = &self.output {
            if modern || self.legacy_output {
                out.insert("outputSchema".into(), o.source().clone());
            }
        }
        Value::Object(out)
    }
}

/// A tool's input schema is an object schema (its arguments are an object): the one check, made
/// when a tool compiles and when an explicit element is paired (`crate::element::check`).
pub(crate) fn check_input_schema(name: &str, schema: &Value) -> Result<(), BuildError> {
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        return Ok(());
    }
    Err(BuildError::InvalidSchema {
        name: name.to_owned(),
        message: "inputSchema must be a JSON Schema object with root type \"object\"".into(),
    })
}
