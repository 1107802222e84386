//! The workload benchmark's server on rmcp: the tools and resources of
//! `examples/rust/workload_server.rs` that rmcp can serve, answered by a hand-written
//! `ServerHandler` (rmcp's router macros need the tools at compile time; these come from files).
//! Resource templates are not served: rmcp leaves matching a URI to the handler. `confirm` is
//! MRTR as rmcp offers it: the handler returns `InputRequired` and reads `inputResponses` on the
//! retry; its `requestState` is a plain token (rmcp leaves sealing it to the handler).
//! `WL_STATEFUL=1` serves legacy sessions (rmcp's legacy session mode).

use rmcp::model::{
    InputRequest, InputRequests, InputRequiredResult,
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{RoleServer, ServerHandler};
use base64::Engine as _;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use wl_peers::{count, Data, OrdersArgs};

#[derive(Clone)]
struct Wl {
    data: Arc<Data>,
    tools: Arc<Vec<Tool>>,
}

fn obj(v: Value) -> Arc<Map<String, Value>> {
    Arc::new(v.as_object().cloned().unwrap_or_default())
}

impl Wl {
    fn new() -> Wl {
        let data = Data::load();
        let mut tools = Vec::new();
        for (name, _) in &data.records {
            tools.push(
                Tool::new(name.clone(), "A page of records", obj(json!({"type": "object", "properties": {}})))
                    .with_raw_output_schema(obj(data.records_schema.clone())),
            );
        }
        let orders = serde_json::to_value(schemars::schema_for!(OrdersArgs)).unwrap();
        tools.push(Tool::new("orders", "Checks a batch of orders", obj(orders)));
        tools.push(Tool::new("add", "Adds a and b", obj(json!({"type": "object", "properties":
            {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}))));
        tools.push(Tool::new("confirm", "Asks once, then answers", obj(json!({"type": "object", "properties": {}}))));
        for i in 0..count("WL_TOOLS") {
            tools.push(Tool::new(
                format!("tool_{i:04}"),
                format!("Generated tool number {i}: adds a and b."),
                obj(json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"},
                           "note": {"type": "string"}}, "required": ["a", "b"]})),
            ));
        }
        Wl { data: Arc::new(data), tools: Arc::new(tools) }
    }
}

impl ServerHandler for Wl {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items((*self.tools).clone()))
    }

    async fn call_tool(
        &self,
        req: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(req.arguments.unwrap_or_default());
        if let Some((_, v)) = self.data.records.iter().find(|(n, _)| *n == req.name) {
            let text = serde_json::to_string(v).unwrap();
            let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
            r.structured_content = Some(v.clone());
            return Ok(r.into());
        }
        if req.name == "orders" {
            let o: OrdersArgs = serde_json::from_value(args)
                .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
            return Ok(CallToolResult::success(vec![ContentBlock::text(format!("orders={}", o.orders.len()))]).into());
        }
        if req.name == "confirm" {
            if let Some(answer) = req.input_responses.as_ref().and_then(|r| r.get("ok")) {
                let action = answer["action"].as_str().unwrap_or("");
                return Ok(CallToolResult::success(vec![ContentBlock::text(format!("confirmed={action}"))]).into());
            }
            let ask: InputRequest = serde_json::from_value(json!({"method": "elicitation/create", "params": {
                "mode": "form", "message": "Proceed?",
                "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}))
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            let mut asks = InputRequests::new();
            asks.insert("ok".into(), ask);
            return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(Some(asks), Some("confirm-1".into()))));
        }
        if req.name.starts_with("tool_") || req.name == "add" {
            let s = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
            return Ok(CallToolResult::success(vec![ContentBlock::text(s.to_string())]).into());
        }
        Err(ErrorData::invalid_params(format!("unknown tool {}", req.name), None))
    }

    async fn read_resource(
        &self,
        req: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if let Some((u, b)) = self.data.blobs.iter().find(|(u, _)| *u == req.uri) {
            let b64 = base64::engine::general_purpose::STANDARD.encode(b);
            let c = ResourceContents::blob(b64, u.clone()).with_mime_type("application/octet-stream");
            return Ok(ReadResourceResult::new(vec![c]).into());
        }
        if let Some((u, t)) = self.data.texts.iter().find(|(u, _)| *u == req.uri) {
            let c = ResourceContents::text(t.clone(), u.clone()).with_mime_type("text/plain");
            return Ok(ReadResourceResult::new(vec![c]).into());
        }
        Err(ErrorData::resource_not_found(format!("no resource {}", req.uri), None))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = wl_peers::port();
    let wl = Wl::new();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(std::env::var("WL_STATEFUL").is_ok_and(|v| v == "1"))
        .with_json_response(true)
        .with_sse_keep_alive(None);
    let service: StreamableHttpService<Wl, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(wl.clone()), Default::default(), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    axum::serve(listener, router).await?;
    Ok(())
}
