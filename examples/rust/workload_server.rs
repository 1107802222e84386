//! The server the workload benchmark (`bench/workloads.py`) drives: one tool or resource per
//! workload, its data read once at start from `WL_DATA` (the files `bench/workloads.py` writes,
//! the same bytes every server under test serves).
//!
//! * `records_large` / `records_small`: structured results (`structuredContent` + its JSON as
//!   text) under an `outputSchema`, about 100 KB and 10 KB;
//! * `bench://blob/large|small` (base64, encoded per read) and `bench://text/large|small`
//!   (fixed text: `Resource::text`);
//! * `WL_TOOLS=N` more tools `tool_i` (a `tools/list` of N + the rest; `OXMCP_PAGE_SIZE` raises
//!   the page);
//! * `WL_TEMPLATES=N` resource templates `bench://t{i}/{id}`;
//! * `orders`: a nested argument object validated against a deep schema (`$ref`, `oneOf`);
//! * `confirm`: asks the client once (an elicitation, MRTR) and then answers;
//! * `add`: the smallest call (a legacy session's one call);
//! * `touch`: marks `bench://watched` as updated (one event to every listener);
//! * `job`: a task when the client declares the Tasks extension, done at once.

#![allow(clippy::print_stderr)]
mod cli;

use oxmcp::tasks::TaskSupport;
use oxmcp::{
    Context, HandlerError, Resource, ResourceContents, ResourceTemplate, Server, Tool, ToolResult,
};
use serde_json::{json, Map, Value};
use std::sync::Arc;

type Args = Map<String, Value>;

fn read(dir: &str, name: &str) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    std::fs::read(format!("{dir}/{name}")).map_err(|e| format!("{dir}/{name}: {e}").into())
}

fn count(name: &str) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::var("WL_DATA").map_err(|_| "WL_DATA (the data directory) is not set")?;
    let options = cli::config()?.server;
    let mut b = options.apply_to(Server::builder(
        "oxmcp-workloads",
        env!("CARGO_PKG_VERSION"),
    ))?;

    let out_schema: Value = serde_json::from_slice(&read(&dir, "records_schema.json")?)?;
    for size in ["large", "small"] {
        let records: Arc<Value> = Arc::new(serde_json::from_slice(&read(
            &dir,
            &format!("records_{size}.json"),
        )?)?);
        b = b.tool(
            Tool::new(
                format!("records_{size}"),
                json!({"type": "object", "properties": {}}),
            )
            .description("A page of records")
            .output_schema(out_schema.clone())
            .handler(move |_: Map<String, Value>, _ctx| {
                let records = records.clone();
                async move { Ok::<_, HandlerError>(ToolResult::structured((*records).clone())) }
            }),
        );
        let blob: Arc<Vec<u8>> = Arc::new(read(&dir, &format!("blob_{size}.bin"))?);
        b = b.resource(
            Resource::new(format!("bench://blob/{size}"), format!("blob {size}"))
                .mime_type("application/octet-stream")
                .handler(move |uri: String, _: Args, _: Context| {
                    let blob = blob.clone();
                    async move {
                        Ok::<_, HandlerError>(vec![ResourceContents::blob_from_bytes(
                            uri,
                            "application/octet-stream",
                            &*blob,
                        )])
                    }
                }),
        );
        let text = String::from_utf8(read(&dir, &format!("text_{size}.txt"))?)?;
        b = b.resource(Resource::text(
            format!("bench://text/{size}"),
            format!("text {size}"),
            "text/plain",
            text,
        ));
    }

    for i in 0..count("WL_TOOLS") {
        b = b.tool(
            Tool::new(
                format!("tool_{i:04}"),
                json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"},
                       "note": {"type": "string"}}, "required": ["a", "b"]}),
            )
            .description(format!("Generated tool number {i}: adds a and b."))
            .handler(|args: Map<String, Value>, _ctx| async move {
                let s = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
                Ok::<_, HandlerError>(ToolResult::text(s.to_string()))
            }),
        );
    }
    for i in 0..count("WL_TEMPLATES") {
        b = b.resource_template(
            ResourceTemplate::new(format!("bench://t{i}/{{id}}"), format!("template {i}"))
                .mime_type("text/plain")
                .handler(move |uri: String, vars: Args, _: Context| async move {
                    let id = vars["id"].as_str().unwrap_or_default().to_string();
                    Ok::<_, HandlerError>(vec![ResourceContents::text(
                        uri,
                        "text/plain",
                        format!("t{i}:{id}"),
                    )])
                }),
        );
    }

    let deep: Value = serde_json::from_slice(&read(&dir, "orders_schema.json")?)?;
    b = b.tool(
        Tool::new("orders", deep)
            .description("Checks a batch of orders")
            .handler(|args: Map<String, Value>, _ctx| async move {
                let n = args
                    .get("orders")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                Ok::<_, HandlerError>(ToolResult::text(format!("orders={n}")))
            }),
    );
    b = b.tool(
        Tool::new("confirm", json!({"type": "object", "properties": {}}))
            .description("Asks once, then answers")
            .handler(|_: Args, ctx: Context| async move {
                let r = ctx
                    .elicit(
                        "ok",
                        json!({"message": "Proceed?", "requestedSchema":
                {"type": "object", "properties": {"ok": {"type": "boolean"}}}}),
                    )
                    .await?;
                Ok::<_, HandlerError>(format!("confirmed={}", r["action"].as_str().unwrap_or("")))
            }),
    );
    b = b.tool(
        Tool::new(
            "add",
            json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                   "required": ["a", "b"]}),
        )
        .description("Adds a and b")
        .handler(|args: Args, _ctx| async move {
            let s = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
            Ok::<_, HandlerError>(ToolResult::text(s.to_string()))
        }),
    );
    b = b.tool(
        Tool::new("job", json!({"type": "object", "properties": {}}))
            .description("A task that is done at once")
            .task_support(TaskSupport::Optional)
            .handler(|_: Args, _: Context| async move { Ok::<_, HandlerError>("job done") }),
    );
    b = b.resource(
        Resource::new("bench://watched", "watched")
            .mime_type("text/plain")
            .handler(|uri: String, _: Args, _: Context| async move {
                Ok::<_, HandlerError>(vec![ResourceContents::text(uri, "text/plain", "watched")])
            }),
    );
    let server = b.build()?;
    let s = server.clone();
    server.upsert_tool(
        Tool::new("touch", json!({"type": "object", "properties": {}}))
            .description("Marks bench://watched as updated")
            .handler(move |_: Args, _: Context| {
                let s = s.clone();
                async move {
                    s.notify_resource_updated("bench://watched");
                    Ok::<_, HandlerError>("touched")
                }
            }),
    )?;
    cli::run(server).await
}
