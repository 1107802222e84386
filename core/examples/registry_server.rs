//! The registry-scale benchmark's Rust server (`bench/registry.py`): N generated tools
//! `tool_i(a: int, b: int, note: str = "")` with a description, served on stdio.
//!
//!     OXMCP_BENCH_TOOLS=10000 cargo run --release -p oxmcp --example registry_server
//!
//! A core example (not in `oxmcp-examples`) so that a release build of it needs no SQLite.

use oxmcp::{HandlerError, Server, Tool, ToolResult};
use serde_json::{json, Map, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::var("OXMCP_BENCH_TOOLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10);
    let mut builder = Server::builder("oxmcp-registry-bench", env!("CARGO_PKG_VERSION"));
    for i in 0..n {
        builder = builder.tool(
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
                Ok::<_, HandlerError>(ToolResult::text((a + b).to_string()))
            }),
        );
    }
    let server = builder.build()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    rt.block_on(oxmcp::transport::stdio::serve(
        server,
        std::future::pending(),
    ))?;
    Ok(())
}
