//! The server the benchmark drives: `add(a, b)` and `echo(text)`, nothing else.
//!
//! `OXMCP_BENCH_TOOLS=N` adds N generated tools `tool_i(a: int, b: int, note: str = "")`, each
//! with a description: the registry-scale benchmark (`bench/registry.py`).
//! `OXMCP_BENCH_METRICS=1` turns the Prometheus metrics on (`/metrics`): their cost per call.
//! `OXMCP_BENCH_ADD=typed` registers `add` made by `Tool::typed`, `OXMCP_BENCH_ADD=macro` the
//! same tool made by `#[oxmcp::tool]`: the two cost the same per call (docs/PERFORMANCE.md).

#![allow(clippy::print_stderr)]
mod cli;

use oxmcp::{Args, Context, Server, Tool, ToolResult};
use serde_json::{json, Map, Value};

/// Add two integers
#[oxmcp::tool(name = "add")]
fn add_macro(a: i64, b: i64) -> i64 {
    a + b
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

fn add_typed() -> Tool {
    Tool::typed("add", |Args(p): Args<AddArgs>, _ctx: Context| async move {
        Ok::<_, std::convert::Infallible>(p.a + p.b)
    })
    .description("Add two integers")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let add = match std::env::var("OXMCP_BENCH_ADD").as_deref() {
        Ok("typed") => add_typed(),
        Ok("macro") => add_macro_tool(),
        _ => add_json(),
    };
    let echo = Tool::new(
        "echo",
        json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}),
    )
    .description("Echo the text back")
    .handler(|mut args: Map<String, Value>, _ctx| async move {
        let text = match args.remove("text") {
            Some(Value::String(s)) => s,
            _ => String::new(),
        };
        Ok::<_, oxmcp::HandlerError>(ToolResult::text(text))
    });
    let mut builder = Server::builder("oxmcp-bench", env!("CARGO_PKG_VERSION"))
        .tool(add)
        .tool(echo);
    let generated: usize = std::env::var("OXMCP_BENCH_TOOLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    for i in 0..generated {
        builder = builder.tool(generated_tool(i));
    }
    if std::env::var("OXMCP_BENCH_METRICS").is_ok_and(|v| v == "1") {
        builder.options_mut().metrics = Some(oxmcp::metrics::MetricsOptions::default());
    }
    let server = builder.build()?;
    cli::run(server).await
}

/// `tool_i(a: int, b: int, note: str = "")`: what a generated server (OpenAPI, one tool per
/// table) registers by the thousand. Every one has the same schema shape.
fn generated_tool(i: usize) -> Tool {
    Tool::new(
        format!("tool_{i}"),
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer"},
                "b": {"type": "integer"},
                "note": {"type": "string", "default": ""}
            },
            "required": ["a", "b"]
        }),
    )
    .description(format!("Generated tool number {i}: adds a and b."))
    .handler(|args: Map<String, Value>, _ctx| async move {
        let a = args["a"].as_i64().unwrap_or(0);
        let b = args["b"].as_i64().unwrap_or(0);
        Ok::<_, oxmcp::HandlerError>(ToolResult::text((a + b).to_string()))
    })
}

/// `add` on a hand-written schema, reading the JSON map: the default.
fn add_json() -> Tool {
    Tool::new(
        "add",
        json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}),
    )
    .description("Add two integers")
    .handler(|args: Map<String, Value>, _ctx| async move {
        let a = args["a"].as_i64().unwrap_or(0);
        let b = args["b"].as_i64().unwrap_or(0);
        Ok::<_, oxmcp::HandlerError>(ToolResult::text((a + b).to_string()))
    })
}
