//! The discovery fixture in Rust: tools submitted with `oxmcp::discoverable!` in nested modules,
//! registered by `discover_under`; `add` is also registered by hand, which wins. The Python and
//! Node fixtures (tests/fixtures/discovery/) define the same tools, and their `tools/list`
//! answers are compared (tests/python/test_discovery.py).
//!
//! `discovery --http 127.0.0.1:0` serves Streamable HTTP; no argument serves stdio.

// A server's own start-up messages (what was discovered, where it listens) go to stderr.
#![allow(clippy::print_stderr)]

mod cli;

use oxmcp::{HandlerError, Server, Tool, ToolResult};
use serde_json::{json, Map, Value};

fn pair_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"]
    })
}

fn int(args: &Map<String, Value>, k: &str) -> i64 {
    args.get(k).and_then(Value::as_i64).unwrap_or(0)
}

mod tools {
    pub(crate) mod math {
        use super::super::*;

        pub(crate) fn add() -> Tool {
            Tool::new("add", pair_schema())
                .description("Add two integers (discovered)")
                .handler(|args: Map<String, Value>, _ctx| async move {
                    Ok::<_, HandlerError>(ToolResult::text(
                        (int(&args, "a") + int(&args, "b")).to_string(),
                    ))
                })
        }

        pub(crate) fn multiply() -> Tool {
            Tool::new("multiply", pair_schema())
                .description("Multiply two integers")
                .handler(|args: Map<String, Value>, _ctx| async move {
                    Ok::<_, HandlerError>(ToolResult::text(
                        (int(&args, "a") * int(&args, "b")).to_string(),
                    ))
                })
        }

        oxmcp::discoverable!(tool: add, tool: multiply);
    }

    pub(crate) mod text {
        pub(crate) mod shout {
            use super::super::super::*;

            pub(crate) fn shout() -> Tool {
                Tool::new(
                    "shout",
                    json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
                )
                .description("Upper-case a text")
                .handler(|args: Map<String, Value>, _ctx| async move {
                    let t = args.get("text").and_then(Value::as_str).unwrap_or_default();
                    Ok::<_, HandlerError>(ToolResult::text(t.to_uppercase()))
                })
            }

            oxmcp::discoverable!(tool: shout);
        }
    }
}

/// Outside `discovery::tools`: not discovered (the other fixtures exclude their `vendor` folder).
mod vendor {
    use super::*;

    fn leaked() -> Tool {
        Tool::new("leaked", json!({"type": "object"}))
            .handler(|_args, _ctx| async { Ok::<_, HandlerError>(ToolResult::text("no")) })
    }

    oxmcp::discoverable!(tool: leaked);
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("discovery", "1.0.0")
        .discover_under("discovery::tools")
        .tool(
            Tool::new("add", pair_schema())
                .description("Add two integers")
                .handler(|args: Map<String, Value>, _ctx| async move {
                    Ok::<_, HandlerError>(ToolResult::text(
                        (int(&args, "a") + int(&args, "b")).to_string(),
                    ))
                }),
        )
        .build()?;
    for d in server.discovered() {
        eprintln!(
            "discovered: {} {} \u{2190} {}:{}",
            d.kind, d.name, d.place.module, d.place.line
        );
    }
    cli::run(server).await
}
