//! What every security test uses: a tiny HTTP client, the demo server, audit capture.

pub(crate) use bytes::Bytes;
pub(crate) use http_body_util::{BodyExt, Full};
pub(crate) use jsonwebtoken::{EncodingKey, Header};
pub(crate) use oxmcp::auth::{Allow, Auth, JwtValidator, NamedTokens, ProtectedResource};
pub(crate) use oxmcp::limits::RateLimit;
pub(crate) use oxmcp::transport::http::HttpConfig;
pub(crate) use oxmcp::transport::http_server::HttpServer;
pub(crate) use oxmcp::{
    Context, Prompt, PromptResult, Resource, Server, ServerOptions, Tool, ToolError, ToolResult,
};
pub(crate) use serde_json::{json, Map, Value};
pub(crate) use std::net::SocketAddr;
pub(crate) use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
pub(crate) use std::sync::{Arc, Mutex};
pub(crate) use std::time::Duration;

pub(crate) const MODERN: &str = "2026-07-28";

/// The tests run one at a time: several capture the audit record with a thread-scoped
/// subscriber, and tracing's callsite-interest cache can miss an event when another thread
/// registers the same callsite at that moment.
/// A tokio mutex, as the guard is held across the test's awaits (and no panic poisons it).
pub(crate) async fn serial() -> tokio::sync::MutexGuard<'static, ()> {
    static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    SERIAL.lock().await
}

// ---- a tiny client ---------------------------------------------------------------------

pub(crate) struct Resp {
    pub(crate) status: u16,
    pub(crate) headers: http::HeaderMap,
    pub(crate) body: String,
}

impl Resp {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
    pub(crate) fn header(&self, k: &str) -> &str {
        self.headers
            .get(k)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

pub(crate) async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Resp {
    request_over(false, addr, method, path, headers, body).await
}

/// [`request`] over HTTP/1.1, or over HTTP/2 with prior knowledge (`h2`), on a fresh connection.
/// Over HTTP/2 the host is the URI's authority, as an h2 client sends it.
pub(crate) async fn request_over(
    h2: bool,
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Resp {
    let stream = hyper_util::rt::TokioIo::new(tokio::net::TcpStream::connect(addr).await.unwrap());
    let given_host = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("host"));
    let mut b = hyper::Request::builder().method(method);
    if h2 {
        let host = given_host.map_or(addr.to_string(), |(_, v)| v.to_string());
        b = b.uri(format!("http://{host}{path}"));
    } else {
        b = b.uri(path);
        // The client's own Host unless the test gives one.
        if given_host.is_none() {
            b = b.header("host", addr.to_string());
        }
    }
    for (k, v) in headers {
        if !(h2 && k.eq_ignore_ascii_case("host")) {
            b = b.header(*k, *v);
        }
    }
    let req = b.body(Full::new(Bytes::from(body))).unwrap();
    let resp = if h2 {
        let (mut sender, conn) =
            hyper::client::conn::http2::handshake(hyper_util::rt::TokioExecutor::new(), stream)
                .await
                .unwrap();
        tokio::spawn(conn);
        sender.send_request(req).await.unwrap()
    } else {
        let (mut sender, conn) = hyper::client::conn::http1::handshake(stream).await.unwrap();
        tokio::spawn(conn);
        sender.send_request(req).await.unwrap()
    };
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    Resp {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// A modern request's body and headers as a 2026-07-28 client sends them (`_meta` filled in,
/// `Mcp-Name` from `name` or `uri`), with a bearer token when given.
pub(crate) fn modern_request(
    token: Option<&str>,
    method: &str,
    mut params: Value,
) -> (String, Vec<(String, String)>) {
    let meta = params
        .as_object_mut()
        .unwrap()
        .entry("_meta")
        .or_insert_with(|| json!({}));
    meta["io.modelcontextprotocol/protocolVersion"] = json!(MODERN);
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let body = json!({"jsonrpc":"2.0","id":1,"method":method,"params":params}).to_string();
    let mut h: Vec<(String, String)> = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", MODERN),
        ("mcp-method", method),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    if let Some(n) = name {
        h.push(("mcp-name".into(), n));
    }
    if let Some(t) = token {
        h.push(("authorization".into(), format!("Bearer {t}")));
    }
    (body, h)
}

/// A modern request with correct headers, and a bearer token when given.
pub(crate) async fn call(
    addr: SocketAddr,
    token: Option<&str>,
    method: &str,
    params: Value,
) -> Resp {
    call_with(addr, token, method, params, &[]).await
}

/// [`call`] with more request headers.
pub(crate) async fn call_with(
    addr: SocketAddr,
    token: Option<&str>,
    method: &str,
    params: Value,
    extra: &[(&str, &str)],
) -> Resp {
    let (body, h) = modern_request(token, method, params);
    let mut h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    h.extend_from_slice(extra);
    request(addr, "POST", "/mcp", &h, body.into_bytes()).await
}

pub(crate) async fn tool_call(addr: SocketAddr, token: Option<&str>, name: &str) -> Resp {
    call(
        addr,
        token,
        "tools/call",
        json!({"name": name, "arguments": {}}),
    )
    .await
}

pub(crate) fn tool_names(r: &Resp) -> Vec<String> {
    let v = r.json();
    v["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {v}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

// ---- servers -------------------------------------------------------------------------------

pub(crate) fn echo(name: &str) -> Tool {
    let n = name.to_string();
    Tool::new(name, json!({"type":"object"})).handler(
        move |_a: Map<String, Value>, ctx: Context| {
            let text = format!("{n} for {}", ctx.caller().map_or("-", |c| c.name.as_str()));
            async move { Ok::<_, ToolError>(ToolResult::text(text)) }
        },
    )
}

pub(crate) fn demo_server(options: ServerOptions) -> Server {
    Server::builder("sec", "1.0.0")
        .options(options)
        .tool(echo("echo"))
        .tool(echo("whoami"))
        .tool(echo("secret"))
        .tool(echo("write_file").required_scopes(["files:write"]))
        .resource(Resource::text("file:///docs/a.md", "a", "text/plain", "A"))
        .resource(Resource::text(
            "file:///etc/passwd",
            "p",
            "text/plain",
            "root",
        ))
        .prompt(
            Prompt::new("greet").handler(|_a: Map<String, Value>, _c: Context| async {
                Ok::<_, ToolError>(PromptResult::new(vec![]))
            }),
        )
        .prompt(
            Prompt::new("admin").handler(|_a: Map<String, Value>, _c: Context| async {
                Ok::<_, ToolError>(PromptResult::new(vec![]))
            }),
        )
        .build()
        .unwrap()
}

pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    _stop: tokio::sync::oneshot::Sender<()>,
}

pub(crate) async fn serve(server: Server, config: HttpConfig) -> Running {
    let http = HttpServer::bind(server, config).await.unwrap();
    let addr = http.local_addr();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(http.serve(async move {
        let _ = rx.await;
    }));
    Running { addr, _stop: tx }
}

pub(crate) fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

pub(crate) fn tokens() -> NamedTokens {
    NamedTokens::new()
        .token("alice", "alice-old")
        .token("alice", "alice-new")
        .allow(
            "alice",
            Allow::none()
                .tools(["echo", "whoami", "write_file"])
                .resources(["file:///docs/*"])
                .prompts(["greet"]),
        )
        .token("bob", "bob-token")
        .scopes("bob", ["files"])
}

// ---- audit capture -------------------------------------------------------------------------

#[derive(Clone, Default)]
pub(crate) struct Capture(pub(crate) Arc<Mutex<Vec<u8>>>);
impl std::io::Write for Capture {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
impl Capture {
    pub(crate) fn lines(&self) -> Vec<Value> {
        String::from_utf8_lossy(&self.0.lock().unwrap())
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    }
    /// JSON lines, as the example servers write them with `OXMCP_LOG_FORMAT=json`.
    pub(crate) fn subscriber(&self) -> impl tracing::Subscriber + Send + Sync {
        let c = self.clone();
        tracing_subscriber::fmt()
            .json()
            .with_span_list(true)
            .with_current_span(false)
            .with_env_filter("oxmcp::audit=info,oxmcp::request=info")
            .with_writer(move || c.clone())
            .finish()
    }
}
