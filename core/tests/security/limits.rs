//! Limits: per-caller rate limit, concurrency caps, tool timeouts, header caps and slow requests.

use super::common::*;

#[tokio::test]
async fn rate_limit_per_caller() {
    let _serial = serial().await;
    let cfg = HttpConfig::new(loopback())
        .auth(Arc::new(Auth::new().tokens(tokens())))
        .rate_limit(RateLimit::per_second(0.5, 2));
    let s = serve(demo_server(ServerOptions::default()), cfg).await;
    assert_eq!(
        tool_call(s.addr, Some("alice-new"), "echo").await.status,
        200
    );
    assert_eq!(
        tool_call(s.addr, Some("alice-old"), "echo").await.status,
        200
    );
    let r = tool_call(s.addr, Some("alice-new"), "echo").await;
    assert_eq!(r.status, 429);
    let retry: u64 = r.header("retry-after").parse().unwrap();
    assert!((1..=2).contains(&retry), "{retry}");
    assert_eq!(r.json()["error"]["code"], oxmcp::auth::RATE_LIMITED.0);
    assert_eq!(
        tool_call(s.addr, Some("bob-token"), "echo").await.status,
        200,
        "bob has his own bucket"
    );
}

fn blocking_tool(
    name: &str,
    started: Arc<tokio::sync::Notify>,
    release: Arc<tokio::sync::Notify>,
) -> Tool {
    Tool::new(name, json!({"type":"object"})).handler(move |_a: Map<String, Value>, _c: Context| {
        let (started, release) = (started.clone(), release.clone());
        async move {
            started.notify_one();
            release.notified().await;
            Ok::<_, ToolError>(ToolResult::text("done"))
        }
    })
}

#[tokio::test]
async fn concurrency_caps() {
    let _serial = serial().await;
    let (started, release) = (
        Arc::new(tokio::sync::Notify::new()),
        Arc::new(tokio::sync::Notify::new()),
    );
    let server = Server::builder("caps", "1")
        .tool(blocking_tool("one_at_a_time", started.clone(), release.clone()).max_concurrency(1))
        .build()
        .unwrap();
    let s = serve(server, HttpConfig::new(loopback())).await;
    let addr = s.addr;
    let first = tokio::spawn(async move { tool_call(addr, None, "one_at_a_time").await });
    started.notified().await;
    let r = tool_call(s.addr, None, "one_at_a_time").await.json();
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("busy"));
    release.notify_one();
    assert_eq!(
        first.await.unwrap().json()["result"]["content"][0]["text"],
        "done"
    );

    // Global cap: one handler in flight, the next request is refused with 503 + Retry-After.
    let (started, release) = (
        Arc::new(tokio::sync::Notify::new()),
        Arc::new(tokio::sync::Notify::new()),
    );
    let mut o = ServerOptions::default();
    o.max_in_flight = Some(1);
    let server = Server::builder("caps", "1")
        .options(o)
        .tool(blocking_tool("slow", started.clone(), release.clone()))
        .tool(echo("echo"))
        .build()
        .unwrap();
    let s = serve(server, HttpConfig::new(loopback())).await;
    let addr = s.addr;
    let first = tokio::spawn(async move { tool_call(addr, None, "slow").await });
    started.notified().await;
    let r = tool_call(s.addr, None, "echo").await;
    assert_eq!(r.status, 503);
    assert_eq!(r.header("retry-after"), "1");
    assert_eq!(r.json()["error"]["code"], oxmcp::auth::SERVER_BUSY.0);
    release.notify_one();
    assert_eq!(first.await.unwrap().status, 200);
    assert_eq!(
        tool_call(s.addr, None, "echo").await.status,
        200,
        "the slot is free again"
    );
}

/// One pipeline: resources, prompts and completions wait for the same `max_in_flight` permit as
/// tools, and a request refused while being prepared (unknown name, bad arguments) gets its own
/// answer, not the 503, because preparing comes before the guard.
#[tokio::test]
async fn every_handler_kind_takes_the_in_flight_permit_after_prepare() {
    let _serial = serial().await;
    let (started, release) = (
        Arc::new(tokio::sync::Notify::new()),
        Arc::new(tokio::sync::Notify::new()),
    );
    let mut o = ServerOptions::default();
    o.max_in_flight = Some(1);
    let server = Server::builder("caps", "1")
        .options(o)
        .tool(blocking_tool("slow", started.clone(), release.clone()))
        .resource(oxmcp::Resource::text("file:///a", "a", "text/plain", "A"))
        .prompt(
            oxmcp::Prompt::new("greet").handler(|_a: Map<String, Value>, _c: Context| async {
                Ok::<_, ToolError>(oxmcp::PromptResult::new(vec![]))
            }),
        )
        .build()
        .unwrap();
    let s = serve(server, HttpConfig::new(loopback())).await;
    let addr = s.addr;
    let first = tokio::spawn(async move { tool_call(addr, None, "slow").await });
    started.notified().await;
    for (method, params) in [
        ("resources/read", json!({"uri": "file:///a"})),
        ("prompts/get", json!({"name": "greet"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "x", "value": ""}}),
        ),
    ] {
        let r = call(s.addr, None, method, params).await;
        assert_eq!(r.status, 503, "{method}: {}", r.json());
        assert_eq!(r.json()["error"]["code"], oxmcp::ErrorCode::SERVER_BUSY.0);
    }
    let r = tool_call(s.addr, None, "nope").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["error"]["code"], -32602, "prepare answers first");
    let r = call(s.addr, None, "prompts/get", json!({"name": "missing"})).await;
    assert_eq!(r.json()["error"]["code"], -32602, "prepare answers first");
    release.notify_one();
    assert_eq!(first.await.unwrap().status, 200);
    let r = call(s.addr, None, "resources/read", json!({"uri": "file:///a"})).await;
    assert_eq!(r.json()["result"]["contents"][0]["text"], "A");
}

struct SetOnDrop(Arc<AtomicBool>);
impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn timed_out_call_answers_is_error_and_cancels_the_handler() {
    let _serial = serial().await;
    let cap = Capture::default();
    let _g = tracing::subscriber::set_default(cap.subscriber());
    let dropped = Arc::new(AtomicBool::new(false));
    let token_fired = Arc::new(AtomicBool::new(false));
    let (d, f) = (dropped.clone(), token_fired.clone());
    let tool = Tool::new("hang", json!({"type":"object"}))
        .timeout(Duration::from_millis(150))
        .handler(move |_a: Map<String, Value>, ctx: Context| {
            let guard = SetOnDrop(d.clone());
            let fired = f.clone();
            let token = ctx.cancellation().clone();
            tokio::spawn(async move {
                token.cancelled().await;
                fired.store(true, Ordering::SeqCst);
            });
            async move {
                let _g = guard;
                std::future::pending::<()>().await;
                Ok::<_, ToolError>(ToolResult::text("never"))
            }
        });
    let s = serve(
        Server::builder("t", "1").tool(tool).build().unwrap(),
        HttpConfig::new(loopback()),
    )
    .await;
    let r = tool_call(s.addr, None, "hang").await.json();
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(r["result"]["content"][0]["text"], "Tool hang timed out");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        dropped.load(Ordering::SeqCst),
        "the handler future was dropped"
    );
    assert!(
        token_fired.load(Ordering::SeqCst),
        "the handler's cancellation token fired"
    );
    let audit = cap
        .lines()
        .into_iter()
        .find(|l| l["fields"]["name"] == "hang")
        .expect("audit record");
    assert_eq!(audit["fields"]["outcome"], "timeout");
    assert_eq!(audit["fields"]["error_class"], "timeout");
}

#[tokio::test]
async fn header_caps_and_slow_requests() {
    let _serial = serial().await;
    let cfg = HttpConfig::new(loopback())
        .max_headers(20)
        .header_timeout(Duration::from_millis(300))
        .body_timeout(Duration::from_millis(300));
    let s = serve(demo_server(ServerOptions::default()), cfg).await;
    let many: Vec<(String, String)> = (0..40)
        .map(|i| (format!("x-h{i}"), "v".to_string()))
        .collect();
    let h: Vec<(&str, &str)> = many.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        request(s.addr, "POST", "/mcp", &h, b"{}".to_vec())
            .await
            .status,
        431
    );
    let big = "a".repeat(40 * 1024);
    assert_eq!(
        request(s.addr, "POST", "/mcp", &[("x-big", &big)], b"{}".to_vec())
            .await
            .status,
        431
    );
    assert_eq!(
        request(s.addr, "GET", "/healthz", &[], vec![]).await.status,
        200,
        "still serving"
    );

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // Slowloris: a head that never completes is cut off.
    let mut c = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    c.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let mut buf = Vec::new();
    let n = tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut buf))
        .await
        .expect("closed by the server");
    assert!(n.is_ok());
    // An idle connection is closed too.
    let mut c = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let n = tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut buf))
        .await
        .expect("idle connection closed");
    assert!(n.is_ok());
    // A body that trickles in: 408.
    let mut c = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    c.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{").await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut out))
        .await
        .expect("answered");
    assert!(
        String::from_utf8_lossy(&out).starts_with("HTTP/1.1 408"),
        "{}",
        String::from_utf8_lossy(&out)
    );
}

/// The header-read deadline runs only while a connection waits for a head: a handler slower
/// than it, and an SSE response streaming longer than it, are served whole on one keep-alive
/// connection; the connection is closed once it then idles for the deadline.
#[tokio::test]
async fn header_deadline_spares_slow_requests_and_closes_idle_keep_alive() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let _serial = serial().await;
    let deadline = Duration::from_millis(300);
    let slow = Tool::new("slow", json!({"type":"object"})).handler(
        |_a: Map<String, Value>, _c: Context| async {
            tokio::time::sleep(Duration::from_millis(700)).await;
            Ok::<_, ToolError>(ToolResult::text("slow done"))
        },
    );
    let stream = Tool::new("stream", json!({"type":"object"})).handler(
        |_a: Map<String, Value>, c: Context| async move {
            for i in 1..=3 {
                c.progress(f64::from(i), Some(3.0), None).await;
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Ok::<_, ToolError>(ToolResult::text("stream done"))
        },
    );
    let server = Server::builder("deadline", "1")
        .tool(slow)
        .tool(stream)
        .build()
        .unwrap();
    let cfg = HttpConfig::new(loopback()).header_timeout(deadline);
    let s = serve(server, cfg).await;
    // The raw HTTP/1.1 text of a modern tools/call, for one keep-alive connection.
    let post = |name: &str, meta: Value| {
        let (body, h) = modern_request(
            None,
            "tools/call",
            json!({"name": name, "arguments": {}, "_meta": meta}),
        );
        let head: String = h.iter().map(|(k, v)| format!("{k}: {v}\r\n")).collect();
        format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n{head}content-length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    // Read until `done` holds for what came so far (or the server closes).
    async fn read_until(c: &mut tokio::net::TcpStream, done: impl Fn(&str) -> bool) -> String {
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = tokio::time::timeout(Duration::from_secs(5), c.read(&mut buf))
                .await
                .expect("the server answers")
                .unwrap();
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got).into_owned();
            if n == 0 || done(&text) {
                return text;
            }
        }
    }
    let mut c = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    // A handler that runs past the deadline: answered.
    c.write_all(post("slow", json!({})).as_bytes())
        .await
        .unwrap();
    let r = read_until(&mut c, |t| t.contains("slow done") && t.ends_with('}')).await;
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    assert!(r.contains("slow done"), "{r}");
    // An SSE response streaming past the deadline, on the same connection: served whole.
    c.write_all(post("stream", json!({"progressToken": "p"})).as_bytes())
        .await
        .unwrap();
    let r = read_until(&mut c, |t| t.ends_with("0\r\n\r\n")).await;
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    assert!(r.contains("text/event-stream"), "{r}");
    assert_eq!(r.matches("notifications/progress").count(), 3, "{r}");
    assert!(r.contains("stream done"), "{r}");
    // Then idle: closed once the deadline passes, and not before.
    let idle = std::time::Instant::now();
    let mut rest = Vec::new();
    let n = tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut rest))
        .await
        .expect("the idle connection is closed");
    assert!(n.is_ok());
    assert!(rest.is_empty(), "{}", String::from_utf8_lossy(&rest));
    let waited = idle.elapsed();
    assert!(
        waited >= deadline - Duration::from_millis(50),
        "closed after {waited:?}, before the {deadline:?} deadline"
    );
}

/// A response carries its own headers and none of its request's (the request's header map is
/// emptied and reused for the response when nothing kept the request: transport/http.rs,
/// `HttpResponse::json_bytes_in`).
#[tokio::test]
async fn responses_carry_none_of_the_request_headers() {
    let _serial = serial().await;
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback()),
    )
    .await;
    for _ in 0..3 {
        let r = call_with(
            s.addr,
            None,
            "tools/call",
            json!({"name": "echo", "arguments": {}}),
            &[("x-request-secret", "s3cret"), ("cookie", "session=abc")],
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert!(r.body.contains("echo for -"), "{}", r.body);
        let names: Vec<&str> = r.headers.keys().map(|k| k.as_str()).collect();
        assert_eq!(r.header("content-type"), "application/json");
        for leaked in [
            "x-request-secret",
            "cookie",
            "mcp-method",
            "mcp-name",
            "accept",
            "host",
        ] {
            assert!(!names.contains(&leaked), "{leaked} in {names:?}");
        }
    }
}

/// A request's `_meta` is read apart from its params (jsonrpc/read.rs): the handler still sees
/// the object the client sent, member for member, and a malformed `_meta` is refused as any
/// malformed params are, the server serving on.
#[tokio::test]
async fn handlers_see_meta_as_sent_and_bad_meta_is_refused() {
    let _serial = serial().await;
    let echo_meta = Tool::new("meta", json!({"type":"object"})).handler(
        |_a: Map<String, Value>, c: Context| async move {
            let seen = json!({"meta": c.meta(), "progress": c.progress_token()});
            Ok::<_, ToolError>(ToolResult::structured(seen))
        },
    );
    let server = Server::builder("meta", "1")
        .tool(echo_meta)
        .build()
        .unwrap();
    let s = serve(server, HttpConfig::new(loopback())).await;
    let sent = json!({"progressToken": "p1", "x.example/own": [1, {"a": "\u{e9}"}],
                      "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"});
    let r = call(
        s.addr,
        None,
        "tools/call",
        json!({"name": "meta", "_meta": sent}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let seen = &r.json()["result"]["structuredContent"];
    let mut want = sent.clone();
    want["io.modelcontextprotocol/protocolVersion"] = json!(MODERN);
    want["io.modelcontextprotocol/clientCapabilities"] = json!({});
    assert_eq!(seen["meta"], want);
    assert_eq!(seen["progress"], "p1");

    // The raw body, for what a JSON library will not write (a key twice) or a modern client
    // would not send (a version that is not a string).
    let post = |meta: &str| {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"meta","_meta":{meta}}}}}"#
        );
        let (_, h) = modern_request(None, "tools/call", json!({"name": "meta"}));
        async move {
            let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            request(s.addr, "POST", "/mcp", &h, body.into_bytes()).await
        }
    };
    let caps = r#""io.modelcontextprotocol/clientCapabilities":{}"#;
    for (meta, status, code) in [
        (
            format!(r#"{{"io.modelcontextprotocol/protocolVersion":7,{caps}}}"#),
            400,
            -32602,
        ),
        (
            format!(
                r#"{{"io.modelcontextprotocol/protocolVersion":"{MODERN}","io.modelcontextprotocol/protocolVersion":"{MODERN}",{caps}}}"#
            ),
            400,
            -32700,
        ),
        (
            format!(r#"{{"io.modelcontextprotocol/protocolVersion":"{MODERN}",{caps},{caps}}}"#),
            400,
            -32700,
        ),
        (
            format!(r#"{{"io.modelcontextprotocol/protocolVersion":"{MODERN}"}}"#),
            400,
            -32602,
        ),
    ] {
        let r = post(&meta).await;
        assert_eq!(r.status, status, "{meta}: {}", r.body);
        assert_eq!(r.json()["error"]["code"], code, "{meta}: {}", r.body);
    }
    let ok = post(&format!(
        r#"{{"io.modelcontextprotocol/protocolVersion":"{MODERN}",{caps}}}"#
    ))
    .await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert_eq!(ok.json()["id"], 7);
}

/// Shutdown: the request in hand is answered in full, a connection with nothing in hand is
/// closed, no new request is served, and `serve` returns once the last connection ended, not at
/// the drain deadline.
#[tokio::test]
async fn shutdown_answers_the_request_in_hand_and_closes_the_rest() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let _serial = serial().await;
    let slow = Tool::new("slow", json!({"type": "object"})).handler(
        |_a: Map<String, Value>, _c: Context| async {
            tokio::time::sleep(Duration::from_millis(400)).await;
            Ok::<_, ToolError>(ToolResult::text("slow done"))
        },
    );
    let server = Server::builder("shutdown", "1").tool(slow).build().unwrap();
    let mut cfg = HttpConfig::new(loopback());
    cfg.drain_timeout = Duration::from_secs(20);
    let http = HttpServer::bind(server, cfg).await.unwrap();
    let addr = http.local_addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(http.serve(async move {
        let _ = stopped.await;
    }));
    let (body, h) = modern_request(None, "tools/call", json!({"name": "slow", "arguments": {}}));
    let head: String = h.iter().map(|(k, v)| format!("{k}: {v}\r\n")).collect();
    let raw = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\n{head}content-length: {}\r\n\r\n{body}",
        body.len()
    );
    // Read what the server sends until it closes the connection (or 5 s pass).
    async fn read_to_close(c: &mut tokio::net::TcpStream) -> String {
        let mut got = Vec::new();
        tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut got))
            .await
            .expect("the server closes the connection")
            .unwrap();
        String::from_utf8_lossy(&got).into_owned()
    }
    let mut idle = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut busy = tokio::net::TcpStream::connect(addr).await.unwrap();
    busy.write_all(raw.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await; // the handler is running
    let t0 = std::time::Instant::now();
    stop.send(()).unwrap();
    assert_eq!(
        read_to_close(&mut idle).await,
        "",
        "nothing in hand: closed"
    );
    let answer = read_to_close(&mut busy).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("slow done"), "{answer}");
    tokio::time::timeout(Duration::from_secs(5), served)
        .await
        .expect("serve returns once the connections ended")
        .unwrap()
        .unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    // The listener is gone: a new connection is refused, or closed without an answer.
    if let Ok(mut late) = tokio::net::TcpStream::connect(addr).await {
        let _ = late.write_all(raw.as_bytes()).await;
        assert_eq!(read_to_close(&mut late).await, "");
    }
}
