//! OpenTelemetry (feature `otel`) over real HTTP on 127.0.0.1: the request span continues the
//! caller's `_meta.traceparent` / `tracestate` and carries the MCP attributes (checked with a
//! capturing exporter), and `Otlp::init` really exports over OTLP/HTTP (to a receiver the test
//! serves itself on loopback).
//!
//! `cargo test -p oxmcp --features otel --test otel`

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use oxmcp::otel::opentelemetry::trace::{SpanId, SpanKind, Status, TraceId};
use oxmcp::otel::opentelemetry::Value as OtelValue;
use oxmcp::otel::opentelemetry_sdk::error::OTelSdkResult;
use oxmcp::otel::opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use oxmcp::transport::http::HttpConfig;
use oxmcp::transport::http_server::HttpServer;
use oxmcp::{Context, Server, Tool, ToolError, ToolResult};
use serde_json::{json, Map, Value};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt;

const MODERN: &str = "2026-07-28";
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

/// One test at a time: each installs its own subscriber, and one of them the global one.
async fn serial() -> tokio::sync::MutexGuard<'static, ()> {
    static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    SERIAL.lock().await
}

// ---- a tiny MCP client ---------------------------------------------------------------------

/// A modern `method` request with id `id` and `meta` merged into `params._meta`.
async fn call(addr: SocketAddr, id: Value, method: &str, mut params: Value, meta: Value) -> Value {
    let m = params
        .as_object_mut()
        .unwrap()
        .entry("_meta")
        .or_insert_with(|| json!({}));
    m["io.modelcontextprotocol/protocolVersion"] = json!(MODERN);
    m["io.modelcontextprotocol/clientCapabilities"] = json!({});
    for (k, v) in meta.as_object().unwrap() {
        m[k] = v.clone();
    }
    let name = params["name"].as_str().unwrap_or_default().to_string();
    let body = json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string();
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
        .header("mcp-name", name)
        .body(Full::new(Bytes::from(body)))
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&body).unwrap()
}

/// A legacy (2025-11-25) POST, in `session` if given; the answer's `Mcp-Session-Id` and body.
async fn legacy(addr: SocketAddr, session: Option<&str>, body: Value) -> (Option<String>, Value) {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(conn);
    let mut req = hyper::Request::post("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(s) = session {
        req = req
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let resp = sender
        .send_request(req.body(Full::new(Bytes::from(body.to_string()))).unwrap())
        .await
        .unwrap();
    let id = resp
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&body);
    // JSON, or one SSE event whose data is the answer.
    let json = text
        .lines()
        .find_map(|l| l.strip_prefix("data:"))
        .unwrap_or(&text)
        .trim()
        .to_string();
    (id, serde_json::from_str(&json).unwrap_or(Value::Null))
}

fn traceparent(flags: &str) -> Value {
    json!({
        "traceparent": format!("00-{TRACE_ID}-{PARENT_ID}-{flags}"),
        "tracestate": "vendor=x,other=y",
    })
}

// ---- the server ------------------------------------------------------------------------------

fn server() -> Server {
    Server::builder("otel", "1.0.0")
        .tool(Tool::new("echo", json!({"type":"object"})).handler(
            |_a: Map<String, Value>, _c: Context| async {
                // A span of the handler's own: a child of the request span.
                tracing::info_span!("echo.work").in_scope(|| ());
                Ok::<_, ToolError>(ToolResult::text("hi"))
            },
        ))
        .tool(
            Tool::new("slow", json!({"type":"object"}))
                .task_support(oxmcp::tasks::TaskSupport::Required)
                .handler(|_a: Map<String, Value>, _c: Context| async {
                    tracing::info_span!("slow.work").in_scope(|| ());
                    Ok::<_, ToolError>(ToolResult::text("done"))
                }),
        )
        .tool(Tool::new("fails", json!({"type":"object"})).handler(
            |_a: Map<String, Value>, _c: Context| async {
                Err::<ToolResult, _>(ToolError::new("no luck"))
            },
        ))
        .build()
        .unwrap()
}

struct Running {
    addr: SocketAddr,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn serve() -> Running {
    let http = HttpServer::bind(server(), HttpConfig::new("127.0.0.1:0".parse().unwrap()))
        .await
        .unwrap();
    let addr = http.local_addr();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(http.serve(async move {
        let _ = rx.await;
    }));
    Running { addr, _stop: tx }
}

// ---- a capturing exporter ----------------------------------------------------------------------

#[derive(Clone, Debug, Default)]
struct Captured(Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Captured {
    fn export(
        &self,
        batch: Vec<SpanData>,
    ) -> impl std::future::Future<Output = OTelSdkResult> + Send {
        self.0.lock().unwrap().extend(batch);
        std::future::ready(Ok(()))
    }
}

impl Captured {
    fn named(&self, name: &str) -> Option<SpanData> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .find(|s| s.name == name)
            .cloned()
    }
    fn clear(&self) {
        self.0.lock().unwrap().clear();
    }
}

fn attr(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| match &kv.value {
            OtelValue::String(s) => s.as_str().to_string(),
            other => other.to_string(),
        })
}

/// The oxmcp layer over a provider that exports each span as it ends, for this thread only.
fn capture() -> (
    Captured,
    SdkTracerProvider,
    tracing::subscriber::DefaultGuard,
) {
    let captured = Captured::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(captured.clone())
        .build();
    let subscriber = tracing_subscriber::registry().with(oxmcp::otel::layer(&provider));
    let guard = tracing::subscriber::set_default(subscriber);
    (captured, provider, guard)
}

// ---- tests -----------------------------------------------------------------------------------

#[tokio::test]
async fn span_continues_traceparent_and_tracestate_from_meta() {
    let _serial = serial().await;
    let (captured, _provider, _g) = capture();
    let s = serve().await;

    let r = call(
        s.addr,
        json!(7),
        "tools/call",
        json!({"name":"echo","arguments":{}}),
        traceparent("01"),
    )
    .await;
    assert_eq!(r["result"]["content"][0]["text"], "hi", "{r}");

    let span = captured
        .named("tools/call echo")
        .expect("a span named after the method and tool");
    let sc = &span.span_context;
    assert_eq!(sc.trace_id(), TraceId::from_hex(TRACE_ID).unwrap());
    assert_eq!(span.parent_span_id, SpanId::from_hex(PARENT_ID).unwrap());
    assert!(span.parent_span_is_remote);
    assert_ne!(sc.span_id(), SpanId::from_hex(PARENT_ID).unwrap());
    assert!(sc.is_sampled());
    assert_eq!(sc.trace_state().header(), "vendor=x,other=y");
    assert_eq!(span.span_kind, SpanKind::Server);
    assert_eq!(span.status, Status::Unset);
    assert_eq!(span.instrumentation_scope.name(), "oxmcp");

    for (k, v) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "echo"),
        ("jsonrpc.request.id", "7"),
        ("mcp.protocol.version", MODERN),
        ("network.transport", "tcp"),
        ("network.protocol.name", "http"),
    ] {
        assert_eq!(attr(&span, k).as_deref(), Some(v), "{k}");
    }
    assert_eq!(attr(&span, "error.type"), None);
    // The span's `tracing` fields name the exported ids, so log lines match the trace.
    assert_eq!(attr(&span, "trace_id").unwrap(), TRACE_ID);
    assert_eq!(attr(&span, "parent_span_id").unwrap(), PARENT_ID);
    assert_eq!(attr(&span, "span_id").unwrap(), sc.span_id().to_string());

    let work = captured.named("echo.work").expect("the handler's span");
    assert_eq!(work.span_context.trace_id(), sc.trace_id());
    assert_eq!(work.parent_span_id, sc.span_id());
}

#[tokio::test]
async fn errors_unsampled_callers_and_fresh_traces() {
    let _serial = serial().await;
    let (captured, _provider, _g) = capture();
    let s = serve().await;

    // A tool error (`isError`): error.type `tool_error`, status error.
    let r = call(
        s.addr,
        json!("req-1"),
        "tools/call",
        json!({"name":"fails","arguments":{}}),
        traceparent("01"),
    )
    .await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    let span = captured.named("tools/call fails").expect("span");
    assert_eq!(attr(&span, "error.type").as_deref(), Some("tool_error"));
    assert_eq!(attr(&span, "jsonrpc.request.id").as_deref(), Some("req-1"));
    assert!(matches!(span.status, Status::Error { .. }));

    // An unknown tool is the caller's mistake: the JSON-RPC code, but no error.type.
    captured.clear();
    let r = call(
        s.addr,
        json!(2),
        "tools/call",
        json!({"name":"nope","arguments":{}}),
        traceparent("01"),
    )
    .await;
    let code = r["error"]["code"].as_i64().expect("a JSON-RPC error");
    let span = captured.named("tools/call nope").expect("span");
    assert_eq!(
        attr(&span, "rpc.response.status_code"),
        Some(code.to_string())
    );
    assert_eq!(attr(&span, "error.type"), None);
    assert_eq!(span.status, Status::Unset);

    // The caller did not sample its trace: nothing is exported.
    captured.clear();
    call(
        s.addr,
        json!(3),
        "tools/call",
        json!({"name":"echo","arguments":{}}),
        traceparent("00"),
    )
    .await;
    assert!(captured.named("tools/call echo").is_none());

    // No (or a malformed) traceparent: a trace of its own, rooted here.
    for meta in [
        json!({}),
        json!({"traceparent": "00-zz-00f067aa0ba902b7-01"}),
    ] {
        captured.clear();
        call(s.addr, json!(4), "tools/list", json!({}), meta).await;
        let span = captured.named("tools/list").expect("span");
        assert_eq!(span.parent_span_id, SpanId::INVALID);
        assert!(span.span_context.is_valid());
        assert_ne!(
            span.span_context.trace_id(),
            TraceId::from_hex(TRACE_ID).unwrap()
        );
        assert_eq!(
            attr(&span, "mcp.method.name").as_deref(),
            Some("tools/list")
        );
    }
}

// ---- OTLP/HTTP ---------------------------------------------------------------------------------

struct Export {
    method: String,
    path: String,
    content_type: String,
    body: Bytes,
}

/// An OTLP/HTTP receiver on loopback, on a thread and runtime of its own (so the exporter's
/// flush may block the test's runtime), answering every POST with an empty (= full success)
/// protobuf `ExportTraceServiceResponse`. It stops by itself after 60 s.
fn otlp_receiver() -> (SocketAddr, std::sync::mpsc::Receiver<Export>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let accept = async {
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        return;
                    };
                    let tx = tx.clone();
                    tokio::spawn(async move {
                        let svc = hyper::service::service_fn(
                            move |req: hyper::Request<hyper::body::Incoming>| {
                                let tx = tx.clone();
                                async move {
                                    let (parts, body) = req.into_parts();
                                    let body = body.collect().await?.to_bytes();
                                    let content_type = parts
                                        .headers
                                        .get("content-type")
                                        .and_then(|v| v.to_str().ok())
                                        .unwrap_or_default()
                                        .to_string();
                                    let _ = tx.send(Export {
                                        method: parts.method.to_string(),
                                        path: parts.uri.path().to_string(),
                                        content_type,
                                        body,
                                    });
                                    let mut resp = hyper::Response::new(Full::new(Bytes::new()));
                                    resp.headers_mut().insert(
                                        "content-type",
                                        "application/x-protobuf".parse().unwrap(),
                                    );
                                    Ok::<_, hyper::Error>(resp)
                                }
                            },
                        );
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                            .await;
                    });
                }
            };
            let _ = tokio::time::timeout(Duration::from_secs(60), accept).await;
        });
    });
    (addr, rx)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[tokio::test]
async fn otlp_http_export_reaches_a_collector() {
    let _serial = serial().await;
    let (collector, exports) = otlp_receiver();
    let guard = oxmcp::otel::Otlp::new("oxmcp-otel-test")
        .endpoint(format!("http://{collector}/v1/traces"))
        .timeout(Duration::from_secs(5))
        .init()
        .expect("the global subscriber (only this test installs one)");
    let s = serve().await;

    let r = call(
        s.addr,
        json!(1),
        "tools/call",
        json!({"name":"echo","arguments":{}}),
        traceparent("01"),
    )
    .await;
    assert_eq!(r["result"]["content"][0]["text"], "hi", "{r}");

    // Dropping the guard flushes the batch (a blocking call: the receiver runs elsewhere).
    drop(guard);
    let export = exports
        .recv_timeout(Duration::from_secs(20))
        .expect("an OTLP export within 20 s");
    assert_eq!(export.method, "POST");
    assert_eq!(export.path, "/v1/traces");
    assert_eq!(export.content_type, "application/x-protobuf");
    // Protobuf carries ids as raw bytes and strings as UTF-8: all must be in the request.
    let body = &export.body;
    assert!(contains(
        body,
        &TraceId::from_hex(TRACE_ID).unwrap().to_bytes()
    ));
    assert!(contains(
        body,
        &SpanId::from_hex(PARENT_ID).unwrap().to_bytes()
    ));
    for s in [
        "tools/call echo",
        "oxmcp-otel-test",
        "mcp.method.name",
        "gen_ai.tool.name",
    ] {
        assert!(contains(body, s.as_bytes()), "{s} not in the export");
    }
}

#[tokio::test]
async fn a_legacy_sessions_requests_carry_its_id() {
    let _serial = serial().await;
    let (captured, _provider, _g) = capture();
    let s = serve().await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}});
    let (sid, _) = legacy(s.addr, None, init).await;
    let sid = sid.expect("a stateful server names the session");
    let (_, r) = legacy(
        s.addr,
        Some(&sid),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "echo", "arguments": {}}}),
    )
    .await;
    assert_eq!(r["result"]["content"][0]["text"], "hi", "{r}");
    let span = captured.named("tools/call echo").expect("the call's span");
    assert_eq!(attr(&span, "mcp.session.id").as_deref(), Some(sid.as_str()));

    // A modern request belongs to no session.
    captured.clear();
    call(
        s.addr,
        json!(3),
        "tools/call",
        json!({"name":"echo","arguments":{}}),
        json!({}),
    )
    .await;
    let span = captured.named("tools/call echo").expect("the call's span");
    assert_eq!(attr(&span, "mcp.session.id"), None);
}

#[tokio::test]
async fn a_tasks_run_links_to_the_call_that_started_it() {
    let _serial = serial().await;
    let (captured, _provider, _g) = capture();
    let s = serve().await;
    let r = call(
        s.addr,
        json!(4),
        "tools/call",
        json!({"name":"slow","arguments":{}}),
        json!({"io.modelcontextprotocol/clientCapabilities":
               {"extensions": {"io.modelcontextprotocol/tasks": {}}}}),
    )
    .await;
    let task_id = r["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {r}"))
        .to_string();
    let request = captured
        .named("tools/call slow")
        .expect("the request's span");
    let mut run = None;
    for _ in 0..200 {
        run = captured.named("task slow");
        if run.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let run = run.expect("the task's run span");
    assert_eq!(attr(&run, "mcp.task.id").as_deref(), Some(task_id.as_str()));
    assert_eq!(attr(&run, "gen_ai.tool.name").as_deref(), Some("slow"));
    // Not a child of the request (it outlives it) but linked to it.
    assert_ne!(run.parent_span_id, request.span_context.span_id());
    let linked: Vec<_> = run.links.iter().map(|l| l.span_context.span_id()).collect();
    assert_eq!(linked, vec![request.span_context.span_id()]);
    // The handler's own spans are the run's children.
    let work = captured.named("slow.work").expect("the handler's span");
    assert_eq!(work.parent_span_id, run.span_context.span_id());
}
