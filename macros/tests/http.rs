//! The attribute macros' tools, prompt and resource, served by a real server over HTTP on
//! 127.0.0.1: one server for the file, one request per behaviour.

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use oxmcp::transport::http::HttpConfig;
use oxmcp::transport::http_server::HttpServer;
use oxmcp::{Args, Context, Server, ToolError};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

const MODERN: &str = "2026-07-28";

/// Add two integers.
#[oxmcp::tool(read_only, idempotent)]
fn add(
    /// The first addend.
    a: i64,
    #[param(description = "The second addend.")] b: i64,
) -> i64 {
    a + b
}

/// Greet someone, politely or not.
#[oxmcp::tool(title = "Greeter")]
async fn greet(name: String, punctuation: Option<String>) -> Result<String, ToolError> {
    if name.is_empty() {
        return Err(ToolError::new("no name"));
    }
    Ok(format!(
        "Hello, {name}{}",
        punctuation.as_deref().unwrap_or(".")
    ))
}

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Point {
    x: i64,
    y: i64,
}

/// Mirror a point through the origin.
#[oxmcp::tool]
fn mirror(Args(p): Args<Point>) -> Point {
    Point { x: -p.x, y: -p.y }
}

/// Which era the call came in.
#[oxmcp::tool]
async fn era(tag: String, ctx: Context) -> String {
    format!("{tag}: {}", ctx.protocol_version())
}

/// A code review request.
#[oxmcp::prompt]
fn review(
    /// The code to review.
    code: String,
    focus: Option<String>,
) -> String {
    format!(
        "Review this ({}): {code}",
        focus.as_deref().unwrap_or("anything")
    )
}

/// The languages a snippet can be in: its values complete `snippet`'s `lang`.
#[derive(schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Lang {
    Rust,
    Ruby,
    Python,
}

/// Completes a level from its first characters, itself.
fn levels(typed: &str) -> Vec<String> {
    ["beginner", "expert"]
        .iter()
        .filter(|l| l.contains(typed))
        .map(|l| l.to_string())
        .collect()
}

/// A snippet in a language, at a level, in a style: each argument completed its own way.
#[oxmcp::prompt]
fn snippet(
    #[param(complete = Lang)] lang: String,
    #[param(complete = levels)] level: Option<String>,
    #[param(complete = ["plain", "pretty", "terse"])] style: Option<String>,
) -> String {
    format!("{lang} {level:?} {style:?}")
}

/// A page of the docs, its section completed from a list.
#[oxmcp::resource(uri = "docs://{section}/page")]
fn page(#[param(complete = ["intro", "install", "api"])] section: String) -> String {
    format!("page {section}")
}

/// The project's readme.
#[oxmcp::resource(uri = "docs://readme", mime_type = "text/markdown")]
fn readme() -> String {
    "# demo".into()
}

/// A counter: its tools share one value.
struct Counter {
    n: AtomicI64,
}

#[oxmcp::server]
impl Counter {
    /// Add `by` to the counter and return the new value.
    #[tool]
    async fn bump(&self, by: i64) -> i64 {
        self.n.fetch_add(by, Ordering::SeqCst) + by
    }

    /// The counter's value, and a note.
    #[tool(name = "counter_value")]
    fn value(&self, ctx: &Context) -> Result<oxmcp::Json<Value>, ToolError> {
        Ok(oxmcp::Json(
            json!({"value": self.n.load(Ordering::SeqCst), "method": ctx.method()}),
        ))
    }

    /// The counter's value as a resource.
    #[resource(uri = "counter://value", mime_type = "text/plain")]
    fn current(&self) -> String {
        self.n.load(Ordering::SeqCst).to_string()
    }

    /// The counter plus an offset, the offset completed from a list.
    #[resource(uri = "counter://plus/{offset}")]
    async fn plus(&self, #[param(complete = ["1", "10", "100"])] offset: String) -> String {
        let by: i64 = offset.parse().unwrap_or(0);
        (self.n.load(Ordering::SeqCst) + by).to_string()
    }
}

fn server() -> Server {
    let counter = Arc::new(Counter {
        n: AtomicI64::new(10),
    });
    let mut b = Server::builder("macros", "1.0.0")
        .tool(add_tool())
        .tool(greet_tool())
        .tool(mirror_tool())
        .tool(era_tool())
        .prompt(review_prompt())
        .prompt(snippet_prompt())
        .resource(readme_resource())
        .resource_template(page_resource());
    for t in counter.tools() {
        b = b.tool(t);
    }
    for r in counter.resources() {
        b = b.resource(r);
    }
    for t in counter.resource_templates() {
        b = b.resource_template(t);
    }
    b.build().expect("the macro-made primitives register")
}

async fn start() -> SocketAddr {
    let s = HttpServer::bind(server(), HttpConfig::new("127.0.0.1:0".parse().unwrap()))
        .await
        .unwrap();
    let addr = s.local_addr();
    tokio::spawn(s.serve(std::future::pending()));
    addr
}

async fn rpc(addr: SocketAddr, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut send, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(conn);
    let mut req = hyper::Request::post("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method);
    if let Some(n) = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
    {
        req = req.header("mcp-name", n);
    }
    let resp = send
        .send_request(req.body(Full::new(Bytes::from(body.to_string()))).unwrap())
        .await
        .unwrap();
    assert_eq!(resp.status(), 200, "{method}");
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    v.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {v}"))
}

async fn call(addr: SocketAddr, name: &str, args: Value) -> Value {
    rpc(addr, "tools/call", json!({"name": name, "arguments": args})).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn macro_primitives_over_http() {
    let addr = start().await;

    let list = rpc(addr, "tools/list", json!({})).await;
    let tools: Vec<&Value> = list["tools"].as_array().unwrap().iter().collect();
    let tool = |n: &str| {
        *tools
            .iter()
            .find(|t| t["name"] == n)
            .unwrap_or_else(|| panic!("{n} listed"))
    };
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 6, "{names:?}");
    let add = tool("add");
    assert_eq!(add["description"], "Add two integers.");
    assert_eq!(
        add["annotations"],
        json!({"readOnlyHint": true, "idempotentHint": true})
    );
    let props = &add["inputSchema"]["properties"];
    assert_eq!(props["a"]["description"], "The first addend.");
    assert_eq!(props["b"]["description"], "The second addend.");
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    assert!(add.get("outputSchema").is_none(), "a number is text: {add}");
    let greet = tool("greet");
    assert_eq!(greet["title"], "Greeter");
    assert_eq!(
        greet["inputSchema"]["required"],
        json!(["name"]),
        "an Option is not required"
    );
    assert_eq!(
        tool("mirror")["outputSchema"]["required"],
        json!(["x", "y"])
    );
    assert_eq!(tool("mirror")["inputSchema"]["required"], json!(["x", "y"]));
    assert_eq!(
        tool("bump")["description"],
        "Add `by` to the counter and return the new value."
    );
    assert!(tool("era")["inputSchema"]["properties"]
        .get("ctx")
        .is_none());

    // A free function, sync, and its text result.
    assert_eq!(
        call(addr, "add", json!({"a": 2, "b": 3})).await["content"][0]["text"],
        "5"
    );
    // Async, `Result`: the value, then the error as the builder maps it (`isError`).
    let r = call(addr, "greet", json!({"name": "Ada", "punctuation": "!"})).await;
    assert_eq!(r["content"][0]["text"], "Hello, Ada!");
    let r = call(addr, "greet", json!({"name": ""})).await;
    assert_eq!(
        (r["isError"].clone(), r["content"][0]["text"].clone()),
        (json!(true), json!("no name"))
    );
    // Arguments are still validated by the core against the derived schema.
    let r = call(addr, "add", json!({"a": "two", "b": 3})).await;
    assert_eq!(r["isError"], true, "{r}");
    // Structured output: `structuredContent` checked against the derived output schema.
    let r = call(addr, "mirror", json!({"x": 1, "y": -2})).await;
    assert_eq!(r["structuredContent"], json!({"x": -1, "y": 2}));
    // The Context, injected by type.
    let r = call(addr, "era", json!({"tag": "era"})).await;
    assert_eq!(r["content"][0]["text"], format!("era: {MODERN}"));
    // `&self` methods share the state.
    assert_eq!(
        call(addr, "bump", json!({"by": 5})).await["content"][0]["text"],
        "15"
    );
    assert_eq!(
        call(addr, "bump", json!({"by": 1})).await["content"][0]["text"],
        "16"
    );
    let r = call(addr, "counter_value", json!({})).await;
    assert_eq!(
        r["structuredContent"],
        json!({"value": 16, "method": "tools/call"})
    );

    // The prompt: its arguments, then a get.
    let list = rpc(addr, "prompts/list", json!({})).await;
    let p = list["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "review")
        .unwrap();
    assert_eq!(p["description"], "A code review request.");
    assert_eq!(
        p["arguments"],
        json!([
            {"name": "code", "description": "The code to review.", "required": true},
            {"name": "focus", "description": "", "required": false}
        ])
    );
    let r = rpc(
        addr,
        "prompts/get",
        json!({"name": "review", "arguments": {"code": "x = 1"}}),
    )
    .await;
    assert_eq!(
        r["messages"][0]["content"]["text"],
        "Review this (anything): x = 1"
    );

    // The resource.
    let r = rpc(addr, "resources/read", json!({"uri": "docs://readme"})).await;
    assert_eq!(
        r["contents"],
        json!([{"uri": "docs://readme", "mimeType": "text/markdown", "text": "# demo"}])
    );

    // Completions: a list and an enum's values matched by prefix in the core, a function's answer
    // as it gave it, an argument without a completer empty.
    let complete = |r: Value, name: &str, value: &str| {
        rpc(
            addr,
            "completion/complete",
            json!({"ref": r, "argument": {"name": name, "value": value}}),
        )
    };
    let snippet = json!({"type": "ref/prompt", "name": "snippet"});
    for (arg, typed, want) in [
        ("lang", "r", json!(["rust", "ruby"])),
        ("lang", "", json!(["rust", "ruby", "python"])),
        ("level", "ert", json!(["expert"])),
        ("style", "p", json!(["plain", "pretty"])),
        ("style", "x", json!([])),
        ("nope", "", json!([])),
    ] {
        let r = complete(snippet.clone(), arg, typed).await;
        assert_eq!(r["completion"]["values"], want, "{arg} {typed:?}: {r}");
    }
    let r = complete(
        json!({"type": "ref/resource", "uri": "docs://{section}/page"}),
        "section",
        "in",
    )
    .await;
    assert_eq!(r["completion"]["values"], json!(["intro", "install"]));

    // The `#[server]` block's resources read the shared state.
    let r = rpc(addr, "resources/read", json!({"uri": "counter://value"})).await;
    assert_eq!(r["contents"][0]["text"], "16");
    let r = rpc(addr, "resources/read", json!({"uri": "counter://plus/10"})).await;
    assert_eq!(r["contents"][0]["text"], "26");
    let r = complete(
        json!({"type": "ref/resource", "uri": "counter://plus/{offset}"}),
        "offset",
        "1",
    )
    .await;
    assert_eq!(r["completion"]["values"], json!(["1", "10", "100"]));
    let list = rpc(addr, "resources/templates/list", json!({})).await;
    let uris: Vec<&str> = list["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&"counter://plus/{offset}"), "{uris:?}");
}

/// The registration check the macros rely on: a tool's input schema must be an object schema,
/// and the builder's error names the tool (a handler of another kind does not compile:
/// `Tool::handler` takes a `ToolHandler` only).
#[test]
fn a_non_object_input_schema_is_refused_by_name() {
    let bad = oxmcp::Tool::new("listy", json!({"type": "array"}))
        .handler(|_: serde_json::Map<String, Value>, _: Context| async { Ok::<_, ToolError>("x") });
    let err = Server::builder("s", "1")
        .tool(bad)
        .build()
        .expect_err("refused");
    let text = err.to_string();
    assert!(
        text.contains("listy") && text.contains("\"object\""),
        "{text}"
    );
}

/// Every attribute-made free primitive is recorded for discovery, at its attribute's place: a
/// server built by `discover()` alone lists and calls them. (`bump` is a method of a `#[server]`
/// block: its constructor needs the state, so it is not discoverable.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_finds_the_attribute_made_primitives() {
    let s = Server::builder("found", "1.0.0")
        .discover()
        .build()
        .expect("the discovered primitives register");
    let found: Vec<(&str, String, String)> = s
        .discovered()
        .into_iter()
        .map(|d| (d.kind, d.name, d.place.file))
        .collect();
    for (kind, name) in [
        ("tool", "add"),
        ("tool", "greet"),
        ("tool", "mirror"),
        ("tool", "era"),
        ("prompt", "review"),
    ] {
        assert!(
            found
                .iter()
                .any(|(k, n, f)| *k == kind && n == name && f.ends_with("http.rs")),
            "{kind} {name} in {found:?}"
        );
    }
    assert!(found.iter().any(|(k, _, _)| *k == "resource"), "{found:?}");
    assert!(!found.iter().any(|(_, n, _)| n == "bump"), "{found:?}");

    let http = HttpServer::bind(s, HttpConfig::new("127.0.0.1:0".parse().unwrap()))
        .await
        .unwrap();
    let addr = http.local_addr();
    tokio::spawn(http.serve(std::future::pending()));
    assert_eq!(
        call(addr, "add", json!({"a": 20, "b": 22})).await["content"][0]["text"],
        "42"
    );
}
