//! The tool-search benchmark's Rust server (`bench/search.py`): N tools made from the shared
//! fixture (`tests/config/tools-1000.json`, tool `i` is fixture tool `i % 1000` with the suffix
//! `_{i / 1000}`), with the experimental `oxmcp/tools/search` method on, served on stdio.
//!
//!     OXMCP_BENCH_TOOLS=100000 cargo run --release -p oxmcp --example search_server

use oxmcp::{HandlerError, Server, ServerOptions, Tool, ToolResult};
use serde_json::{Map, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::var("OXMCP_BENCH_TOOLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/config/tools-1000.json"
    );
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let defs = fixture["tools"].as_array().ok_or("no tools")?;
    let mut options = ServerOptions::default();
    options.tool_search_method = true;
    let mut builder =
        Server::builder("oxmcp-search-bench", env!("CARGO_PKG_VERSION")).options(options);
    for i in 0..n {
        let d = &defs[i % defs.len()];
        builder = builder.tool(
            Tool::new(
                format!("{}_{}", d["name"].as_str().unwrap_or("t"), i / defs.len()),
                d["inputSchema"].clone(),
            )
            .description(d["description"].as_str().unwrap_or(""))
            .handler(|_args: Map<String, Value>, _ctx| async move {
                Ok::<_, HandlerError>(ToolResult::text("ok"))
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
