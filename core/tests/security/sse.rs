//! The 2024-11-05 HTTP+SSE transport over real HTTP: the endpoint event, 202 for each POST with
//! the answer on the stream, a server→client request answered by POST, unknown sessions, and
//! the same Host/Origin and authentication rules as Streamable HTTP.

use super::common::*;
use oxmcp::transport::http::SseConfig;

/// An open event stream, read event by event.
struct Events {
    body: hyper::body::Incoming,
    buf: String,
    _sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
}

impl Events {
    /// `GET /sse` with `headers`: the status, and the stream when it is 200.
    async fn open(addr: SocketAddr, headers: &[(&str, &str)]) -> (u16, Option<Self>) {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (mut sender, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(conn);
        let mut b = hyper::Request::builder().method("GET").uri("/sse");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            b = b.header("host", addr.to_string());
        }
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        let resp = sender
            .send_request(b.body(Full::new(Bytes::new())).unwrap())
            .await
            .unwrap();
        let status = resp.status().as_u16();
        if status != 200 {
            return (status, None);
        }
        assert_eq!(resp.headers()["content-type"], "text/event-stream");
        let events = Self {
            body: resp.into_body(),
            buf: String::new(),
            _sender: sender,
        };
        (status, Some(events))
    }

    /// The next event's name and data (keep-alive comments skipped).
    async fn next(&mut self) -> (String, String) {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let raw: String = self.buf.drain(..end + 2).collect();
                let (mut event, mut data) = (String::new(), String::new());
                for line in raw.lines() {
                    if let Some(v) = line.strip_prefix("event: ") {
                        event = v.into();
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        data = v.into();
                    }
                }
                if !event.is_empty() {
                    return (event, data);
                }
                continue;
            }
            let frame = tokio::time::timeout(Duration::from_secs(10), self.body.frame())
                .await
                .expect("an event within 10 s")
                .expect("the stream is open")
                .unwrap();
            if let Ok(d) = frame.into_data() {
                self.buf.push_str(&String::from_utf8_lossy(&d));
            }
        }
    }

    /// The next `event: message`, as JSON.
    async fn message(&mut self) -> Value {
        let (event, data) = self.next().await;
        assert_eq!(event, "message", "{data}");
        serde_json::from_str(&data).unwrap()
    }
}

async fn post(addr: SocketAddr, endpoint: &str, token: Option<&str>, body: Value) -> Resp {
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut h = vec![("content-type", "application/json")];
    if let Some(a) = &auth {
        h.push(("authorization", a.as_str()));
    }
    request(addr, "POST", endpoint, &h, body.to_string().into_bytes()).await
}

fn sse_server() -> Server {
    let ask = Tool::new("ask", json!({"type":"object"})).handler(
        |_a: Map<String, Value>, ctx: Context| async move {
            ctx.progress(0.5, Some(1.0), None).await;
            let r = ctx
                .sample(
                    "q",
                    json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                           "maxTokens": 5}),
                )
                .await
                .map_err(|e| ToolError::new(format!("{e:?}")))?;
            Ok::<_, ToolError>(ToolResult::text(r["content"]["text"].as_str().unwrap_or("?")))
        },
    );
    Server::builder("sse", "1.0.0")
        .tool(echo("echo"))
        .tool(echo("secret"))
        .tool(ask)
        .build()
        .unwrap()
}

/// Open a stream, read its endpoint, and initialize over it.
async fn session(addr: SocketAddr, token: Option<&str>) -> (Events, String) {
    let auth = token.map(|t| format!("Bearer {t}"));
    let h: Vec<(&str, &str)> = auth.iter().map(|a| ("authorization", a.as_str())).collect();
    let (status, events) = Events::open(addr, &h).await;
    assert_eq!(status, 200);
    let mut events = events.unwrap();
    let (event, endpoint) = events.next().await;
    assert_eq!(event, "endpoint");
    let id = endpoint.strip_prefix("/messages?session_id=").unwrap();
    assert!(
        id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
        "{id}"
    );
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2024-11-05","capabilities":{"sampling":{}},
        "clientInfo":{"name":"t","version":"1"}}});
    assert_eq!(post(addr, &endpoint, token, init).await.status, 202);
    let r = events.message().await;
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["protocolVersion"], "2024-11-05");
    let done = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    assert_eq!(post(addr, &endpoint, token, done).await.status, 202);
    (events, endpoint)
}

fn sse_on() -> HttpConfig {
    HttpConfig::new(loopback()).sse(Some(SseConfig::default()))
}

#[tokio::test]
async fn a_session_over_sse() {
    let s = serve(sse_server(), sse_on()).await;
    let (mut events, endpoint) = session(s.addr, None).await;

    let list = json!({"jsonrpc":"2.0","id":2,"method":"tools/list"});
    assert_eq!(post(s.addr, &endpoint, None, list).await.status, 202);
    let r = events.message().await;
    assert_eq!(r["id"], 2);
    assert_eq!(r["result"]["tools"].as_array().unwrap().len(), 3);

    // A call that reports progress and asks the client to sample, all on the stream.
    let call = json!({"jsonrpc":"2.0","id":3,"method":"tools/call",
                      "params":{"name":"ask","arguments":{},"_meta":{"progressToken":"p"}}});
    assert_eq!(post(s.addr, &endpoint, None, call).await.status, 202);
    let p = events.message().await;
    assert_eq!(p["method"], "notifications/progress");
    assert_eq!(p["params"]["progressToken"], "p");
    let ask = events.message().await;
    assert_eq!(ask["method"], "sampling/createMessage");
    let answer = json!({"jsonrpc":"2.0","id":ask["id"],"result":{
        "role":"assistant","model":"m","content":{"type":"text","text":"hello"}}});
    assert_eq!(post(s.addr, &endpoint, None, answer).await.status, 202);
    let r = events.message().await;
    assert_eq!(r["id"], 3);
    assert_eq!(r["result"]["content"][0]["text"], "hello");

    // Refusals on the POST itself.
    assert_eq!(
        post(s.addr, "/messages", None, json!({})).await.status,
        400,
        "no session id"
    );
    let unknown = format!("/messages?session_id={}", "0".repeat(32));
    let r = post(s.addr, &unknown, None, json!({})).await;
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (404, json!(-32600))
    );
    let bad = request(
        s.addr,
        "POST",
        &endpoint,
        &[("content-type", "application/json")],
        b"{not json".to_vec(),
    )
    .await;
    assert_eq!(
        (bad.status, bad.json()["error"]["code"].clone()),
        (400, json!(-32700))
    );
    assert_eq!(
        request(s.addr, "PUT", "/sse", &[], vec![]).await.status,
        405
    );

    // The stream's end ends the session: its POSTs are then unknown.
    drop(events);
    let ping = json!({"jsonrpc":"2.0","id":4,"method":"ping"});
    let mut status = 0;
    for _ in 0..200 {
        status = post(s.addr, &endpoint, None, ping.clone()).await.status;
        if status == 404 {
            break;
        }
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_same_admission_rules() {
    let s = serve(sse_server(), sse_on()).await;
    let (st, _) = Events::open(s.addr, &[("host", "evil.example")]).await;
    assert_eq!(st, 403, "Host outside the allowed set");
    let (st, _) = Events::open(s.addr, &[("origin", "https://evil.example")]).await;
    assert_eq!(st, 403, "foreign Origin");

    let cfg = sse_on().auth(Arc::new(Auth::new().tokens(tokens())));
    let s = serve(sse_server(), cfg).await;
    let (st, _) = Events::open(s.addr, &[]).await;
    assert_eq!(st, 401, "no token");
    let (st, _) = Events::open(s.addr, &[("authorization", "Bearer nope")]).await;
    assert_eq!(st, 401, "a wrong token");
    let (mut events, endpoint) = session(s.addr, Some("alice-new")).await;
    // Another caller cannot use alice's stream: it looks unknown.
    let ping = json!({"jsonrpc":"2.0","id":2,"method":"ping"});
    assert_eq!(
        post(s.addr, &endpoint, Some("bob-token"), ping.clone())
            .await
            .status,
        404
    );
    assert_eq!(
        post(s.addr, &endpoint, None, ping.clone()).await.status,
        401
    );
    // Alice's allow-list applies to what she lists.
    let list = json!({"jsonrpc":"2.0","id":3,"method":"tools/list"});
    assert_eq!(
        post(s.addr, &endpoint, Some("alice-old"), list)
            .await
            .status,
        202
    );
    let r = events.message().await;
    let names: Vec<&str> = r["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.contains(&"secret") && names.contains(&"echo"),
        "{names:?}"
    );
}

#[tokio::test]
async fn off_by_default() {
    let s = serve(sse_server(), HttpConfig::new(loopback())).await;
    assert_eq!(
        request(s.addr, "GET", "/sse", &[], vec![]).await.status,
        404
    );
    let r = post(s.addr, "/messages?session_id=x", None, json!({})).await;
    assert_eq!(r.status, 404);
}

/// DPoP over the HTTP+SSE transport: the stream's GET and each POST to its endpoint need a proof
/// of that request (its method, and the public URL of its own path: `/sse`, `/messages`), as a
/// Streamable HTTP request does; a proof of the other request, or one used before, is refused.
#[tokio::test]
async fn dpop_proofs_of_each_request() {
    use super::dpop::{bound_token, dpop_server, header, proof_claims, proof_with};
    use super::oauth::K2_DER;
    let s = serve(
        sse_server(),
        dpop_server("required").sse(Some(SseConfig::default())),
    )
    .await;
    let token = bound_token();
    let auth = format!("DPoP {token}");
    let proof = |htm: &str, path: &str| {
        let mut c = proof_claims(&token);
        c["htm"] = json!(htm);
        c["htu"] = json!(format!("https://mcp.example.com{path}"));
        proof_with(header(), c, K2_DER)
    };
    let wrong = proof("POST", "/sse");
    let (st, _) = Events::open(s.addr, &[("authorization", &auth), ("dpop", &wrong)]).await;
    assert_eq!(st, 401, "a proof of a POST for the GET");
    let good = proof("GET", "/sse");
    let (st, events) = Events::open(s.addr, &[("authorization", &auth), ("dpop", &good)]).await;
    assert_eq!(st, 200);
    let mut events = events.unwrap();
    let (_, endpoint) = events.next().await;
    let send = |dpop: String, body: Value| {
        let (auth, endpoint) = (auth.clone(), endpoint.clone());
        async move {
            let h = [
                ("content-type", "application/json"),
                ("authorization", auth.as_str()),
                ("dpop", dpop.as_str()),
            ];
            request(s.addr, "POST", &endpoint, &h, body.to_string().into_bytes()).await
        }
    };
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    let r = send(proof("POST", "/sse"), init.clone()).await;
    assert_eq!(
        r.status, 401,
        "the stream's URL for a POST to the endpoint: {}",
        r.body
    );
    assert_eq!(
        r.json()["error_description"],
        "The DPoP proof's htu is not this request's URL"
    );
    let p = proof("POST", "/messages");
    assert_eq!(send(p.clone(), init).await.status, 202);
    assert_eq!(
        events.message().await["result"]["protocolVersion"],
        "2024-11-05"
    );
    let ping = json!({"jsonrpc":"2.0","id":2,"method":"ping"});
    let r = send(p, ping.clone()).await;
    assert_eq!(r.status, 401, "a proof used before");
    assert_eq!(
        r.json()["error_description"],
        "The DPoP proof was used before"
    );
    assert_eq!(send(proof("POST", "/messages"), ping).await.status, 202);
    assert_eq!(events.message().await["id"], 2);
}
