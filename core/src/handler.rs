//! The handler traits every primitive is served through. Rust closures implement them directly;
//! the Python and Node bindings implement them for their host callables.

use crate::context::Context;
use crate::error::HandlerError;
use crate::protocol::{Completion, Content, PromptResult, ResourceContents, ToolResult};
use serde_json::{Map, Value};
use std::future::Future;

pub use crate::BoxFuture;

/// Serves `tools/call`. `args` were already validated against the tool's input schema.
pub trait ToolHandler: Send + Sync + 'static {
    fn call(
        &self,
        args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<ToolResult, HandlerError>>;
}

/// Words the refusal of a tool's arguments as a framework words it (a compatibility layer
/// registers one per tool with [`Tool::refusal_wording`](crate::Tool::refusal_wording)). The
/// core has decided that the call is refused and why (`violations`, against the input schema);
/// the wording gives only the text the client reads, or `None` to keep the core's. It cannot
/// let the call through, and a failure of its own keeps the core's text.
pub trait RefusalWording: Send + Sync + 'static {
    fn word(
        &self,
        arguments: Map<String, Value>,
        violations: Vec<crate::schema::Violation>,
        ctx: Context,
    ) -> BoxFuture<Result<Option<String>, HandlerError>>;
}

/// Serves `resources/read` for a static resource (`vars` empty) or a template (`vars` = the
/// template's variables extracted from the URI).
pub trait ResourceHandler: Send + Sync + 'static {
    fn read(
        &self,
        uri: String,
        vars: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<Vec<ResourceContents>, HandlerError>>;
}

/// Serves `prompts/get`. Required arguments were already checked.
pub trait PromptHandler: Send + Sync + 'static {
    fn get(
        &self,
        args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<PromptResult, HandlerError>>;
}

/// Serves `completion/complete` for one prompt or resource template.
pub trait CompletionHandler: Send + Sync + 'static {
    fn complete(
        &self,
        argument: String,
        value: String,
        context_args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<Completion, HandlerError>>;
}

/// Serves a method outside the spec that the host registered (`Server::add_method`): the
/// request's params in, the result object out.
pub trait MethodHandler: Send + Sync + 'static {
    fn call(
        &self,
        params: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<Value, HandlerError>>;
}

impl<F, Fut, E> MethodHandler for F
where
    F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, E>> + Send + 'static,
    E: Into<HandlerError>,
{
    fn call(
        &self,
        params: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<Value, HandlerError>> {
        let fut = self(params, ctx);
        Box::pin(async move { fut.await.map_err(Into::into) })
    }
}

/// Gives, by name, the input schema of a tool the registry does not hold (mcp 2.x's
/// `Server(get_tool_input_schema=...)`): the `Mcp-Param-*` check of a modern HTTP `tools/call`
/// asks it rather than going by the last `tools/list` answer. `None`: nothing to check.
pub trait ToolSchemaLookup: Send + Sync + 'static {
    fn input_schema(&self, name: &str) -> BoxFuture<Option<Value>>;
}

/// What a tool handler may return.
pub trait IntoToolResult {
    fn into_tool_result(self) -> ToolResult;
}

impl IntoToolResult for ToolResult {
    fn into_tool_result(self) -> ToolResult {
        self
    }
}
impl IntoToolResult for String {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self)
    }
}
impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self)
    }
}
impl IntoToolResult for Content {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::new(vec![self])
    }
}
impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::new(self)
    }
}
/// Objects become `structuredContent` (plus a text copy); other JSON values become text.
impl IntoToolResult for Value {
    fn into_tool_result(self) -> ToolResult {
        match self {
            Value::String(s) => ToolResult::text(s),
            v @ Value::Object(_) => ToolResult::structured(v),
            v => ToolResult::text(v.to_string()),
        }
    }
}
macro_rules! scalar_result {
    ($($t:ty),*) => {$(
        impl IntoToolResult for $t {
            fn into_tool_result(self) -> ToolResult { ToolResult::text(self.to_string()) }
        }
    )*};
}
scalar_result!(i8, i16, i32, i64, u8, u16, u32, u64, usize, isize, f32, f64, bool);

/// Wraps a serializable value as structured output (`structuredContent` + a text copy).
#[derive(Clone, Debug)]
pub struct Json<T>(pub T);

impl<T: serde::Serialize> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> ToolResult {
        match serde_json::to_value(self.0) {
            Ok(v) => ToolResult::structured(v),
            Err(e) => ToolResult::error(format!("could not serialize the result: {e}")),
        }
    }
}

impl<F, Fut, R, E> ToolHandler for F
where
    F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, E>> + Send + 'static,
    R: IntoToolResult,
    E: Into<HandlerError>,
{
    fn call(
        &self,
        args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<ToolResult, HandlerError>> {
        let fut = self(args, ctx);
        Box::pin(async move {
            fut.await
                .map(IntoToolResult::into_tool_result)
                .map_err(Into::into)
        })
    }
}

impl<F, Fut, E> ResourceHandler for F
where
    F: Fn(String, Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<ResourceContents>, E>> + Send + 'static,
    E: Into<HandlerError>,
{
    fn read(
        &self,
        uri: String,
        vars: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<Vec<ResourceContents>, HandlerError>> {
        let fut = self(uri, vars, ctx);
        Box::pin(async move { fut.await.map_err(Into::into) })
    }
}

impl<F, Fut, E> PromptHandler for F
where
    F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<PromptResult, E>> + Send + 'static,
    E: Into<HandlerError>,
{
    fn get(
        &self,
        args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<PromptResult, HandlerError>> {
        let fut = self(args, ctx);
        Box::pin(async move { fut.await.map_err(Into::into) })
    }
}

impl<F, Fut, E> CompletionHandler for F
where
    F: Fn(String, String, Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Completion, E>> + Send + 'static,
    E: Into<HandlerError>,
{
    fn complete(
        &self,
        argument: String,
        value: String,
        context_args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<Completion, HandlerError>> {
        let fut = self(argument, value, context_args, ctx);
        Box::pin(async move { fut.await.map_err(Into::into) })
    }
}
