//! Discovery over real HTTP: primitives submitted with `oxmcp::discoverable!` in modules of this
//! test crate (`discovery::…`), registered by `ServerBuilder::discover_under`, listed by a
//! server on a loopback port; a name registered by hand wins in either order; two discovered
//! primitives with one name are an error naming both places.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use oxmcp::transport::http::HttpConfig;
use oxmcp::transport::http_server::HttpServer;
use oxmcp::{BuildError, HandlerError, Prompt, PromptResult, Resource, Server, Tool, ToolResult};
use serde_json::{json, Value};

const MODERN: &str = "2026-07-28";

fn tool(name: &str, description: &str) -> Tool {
    Tool::new(
        name,
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
    )
    .description(description)
    .handler(|args: serde_json::Map<String, Value>, _ctx| async move {
        let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
        Ok::<_, HandlerError>(ToolResult::text(sum.to_string()))
    })
}

mod fixtures {
    pub(crate) mod math {
        use super::super::tool;
        pub(crate) fn multiply() -> oxmcp::Tool {
            tool("multiply", "Multiply two integers")
        }
        pub(crate) fn add() -> oxmcp::Tool {
            tool("add", "Add two integers (discovered)")
        }
        oxmcp::discoverable!(tool: multiply, tool: add);
    }
    pub(crate) mod text {
        use oxmcp::{HandlerError, Prompt, PromptResult, Resource};
        pub(crate) fn shout() -> oxmcp::Tool {
            super::super::tool("shout", "Shout")
        }
        pub(crate) fn readme() -> Resource {
            Resource::text("doc://readme", "readme", "text/plain", "hello")
        }
        pub(crate) fn greet() -> Prompt {
            Prompt::new("greet")
                .description("Greet")
                .handler(|_args, _ctx| async { Ok::<_, HandlerError>(PromptResult::new(vec![])) })
        }
        oxmcp::discoverable!(tool: shout, resource: readme, prompt: greet);
    }
}

mod dup {
    pub(crate) mod a {
        fn same() -> oxmcp::Tool {
            super::super::tool("same", "one")
        }
        oxmcp::discoverable!(tool: same);
    }
    pub(crate) mod b {
        fn same() -> oxmcp::Tool {
            super::super::tool("same", "two")
        }
        oxmcp::discoverable!(tool: same);
    }
}

/// Serve `server` on a loopback port and answer one modern request over HTTP.
async fn ask(server: Server, method: &str) -> Value {
    let http = HttpServer::bind(server, HttpConfig::new("127.0.0.1:0".parse().unwrap()))
        .await
        .unwrap();
    let addr = http.local_addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(http.serve(async move {
        let _ = stopped.await;
    }));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(conn);
    let req = hyper::Request::post("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method)
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    assert_eq!(resp.status(), 200);
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    let _ = stop.send(());
    let _ = serving.await;
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    v["result"].clone()
}

fn names(list: &Value, key: &str, field: &str) -> Vec<String> {
    list[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t[field].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn discovered_primitives_are_served_in_module_then_name_order() {
    let server = Server::builder("d", "1")
        .discover_under("discovery::fixtures")
        .build()
        .unwrap();
    let tools = ask(server.clone(), "tools/list").await;
    // discovery::fixtures::math (add, multiply), then discovery::fixtures::text (shout).
    assert_eq!(names(&tools, "tools", "name"), ["add", "multiply", "shout"]);
    assert_eq!(
        tools["tools"][0]["inputSchema"]["required"],
        json!(["a", "b"])
    );
    assert_eq!(
        tools["tools"][1]["description"],
        json!("Multiply two integers")
    );
    let resources = ask(server.clone(), "resources/list").await;
    assert_eq!(names(&resources, "resources", "uri"), ["doc://readme"]);
    let prompts = ask(server.clone(), "prompts/list").await;
    assert_eq!(names(&prompts, "prompts", "name"), ["greet"]);
    let found: Vec<String> = server
        .discovered()
        .iter()
        .map(|d| format!("{} {} {}", d.kind, d.name, d.place.module))
        .collect();
    assert_eq!(
        found,
        [
            "tool add discovery::fixtures::math",
            "tool multiply discovery::fixtures::math",
            "tool shout discovery::fixtures::text",
            "resource doc://readme discovery::fixtures::text",
            "prompt greet discovery::fixtures::text",
        ]
    );
    assert!(server.discovered()[0].place.file.ends_with("discovery.rs"));
}

#[tokio::test]
async fn a_module_path_prefix_filters_at_a_segment_boundary() {
    let server = Server::builder("d", "1")
        .discover_under("discovery::fixtures::text")
        .build()
        .unwrap();
    let tools = ask(server, "tools/list").await;
    assert_eq!(names(&tools, "tools", "name"), ["shout"]);
    let none = Server::builder("d", "1")
        .discover_under("discovery::fixtures::tex")
        .declare_tools()
        .build()
        .unwrap();
    assert!(none.tool_names().is_empty());
}

#[tokio::test]
async fn a_manual_registration_wins_in_either_order() {
    let before = Server::builder("d", "1")
        .tool(tool("add", "manual"))
        .prompt(
            Prompt::new("greet")
                .description("manual greet")
                .handler(|_args, _ctx| async { Ok::<_, HandlerError>(PromptResult::new(vec![])) }),
        )
        .discover_under("discovery::fixtures")
        .build()
        .unwrap();
    let after = Server::builder("d", "1")
        .discover_under("discovery::fixtures")
        .tool(tool("add", "manual"))
        .resource(Resource::text(
            "doc://readme",
            "readme",
            "text/plain",
            "by hand",
        ))
        .build()
        .unwrap();
    for server in [before.clone(), after.clone()] {
        let tools = ask(server.clone(), "tools/list").await;
        let add = tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "add")
            .unwrap();
        assert_eq!(add["description"], "manual");
        assert_eq!(names(&tools, "tools", "name").len(), 3);
        assert!(!server.discovered().iter().any(|d| d.name == "add"));
    }
    let prompts = ask(before, "prompts/list").await;
    assert_eq!(prompts["prompts"][0]["description"], "manual greet");
    assert!(!after.discovered().iter().any(|d| d.name == "doc://readme"));
    // At runtime too: adding by hand replaces the discovered tool; a second manual one is refused.
    let server = Server::builder("d", "1")
        .discover_under("discovery::fixtures")
        .build()
        .unwrap();
    server.add_tool(tool("multiply", "manual")).unwrap();
    assert!(matches!(
        server.add_tool(tool("multiply", "again")),
        Err(BuildError::DuplicateName { .. })
    ));
    let tools = ask(server, "tools/list").await;
    assert_eq!(names(&tools, "tools", "name"), ["add", "multiply", "shout"]);
    assert_eq!(tools["tools"][1]["description"], "manual");
}

#[test]
fn two_discovered_with_one_name_are_an_error_naming_both_places() {
    let err = Server::builder("d", "1")
        .discover_under("discovery::dup")
        .build()
        .unwrap_err();
    assert!(
        matches!(err, BuildError::DuplicateDiscovered { .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.starts_with("tool 'same' is discovered twice: in discovery::dup::a (")
            && text.contains(") and in discovery::dup::b (")
            && text.contains("discovery.rs:"),
        "{text}"
    );
    // By hand, the name is taken before discovery looks: neither discovered one is registered.
    let server = Server::builder("d", "1")
        .tool(tool("same", "manual"))
        .discover_under("discovery::dup")
        .build()
        .unwrap();
    assert!(server.discovered().is_empty());
}
