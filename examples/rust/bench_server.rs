//! The server the benchmark drives: `add(a, b)` and `echo(text)`, nothing else.

#![allow(clippy::print_stderr)]
mod cli;

use oxmcp::{Server, Tool, ToolResult};
use serde_json::{json, Map, Value};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let add = Tool::new(
        "add",
        json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}),
    )
    .description("Add two integers")
    .handler(|args: Map<String, Value>, _ctx| async move {
        let a = args["a"].as_i64().unwrap_or(0);
        let b = args["b"].as_i64().unwrap_or(0);
        Ok::<_, oxmcp::HandlerError>(ToolResult::text((a + b).to_string()))
    });
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
    let server = Server::builder("oxmcp-bench", env!("CARGO_PKG_VERSION"))
        .tool(add)
        .tool(echo)
        .build()?;
    cli::run(server).await
}
