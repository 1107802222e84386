//! Hostile input against the real `everything` server over HTTP and stdio: each answered with
//! the spec's status/code, the server still serving afterwards, and no handler run for a
//! request the transport rejected (checked through the audit log: every tools/call that
//! reaches dispatch leaves one `oxmcp::audit` line).

use crate::harness::*;
use serde_json::{json, Value};
use std::time::Duration;

const JSON_HEADERS: [(&str, &str); 2] = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

fn call_body(id: Value) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":modern_params(json!({"name":"test_simple_text","arguments":{}}), json!({}))}).to_string()
}

fn modern_headers(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut h = vec![
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "test_simple_text"),
    ];
    h.extend_from_slice(extra);
    h
}

async fn still_serving(s: &HttpServer) {
    let r = s.modern(json!("alive"), "tools/list", json!({})).await;
    assert_eq!(r.status, 200, "the server still serves: {}", r.body);
    assert!(r.result()["tools"]
        .as_array()
        .is_some_and(|t| !t.is_empty()));
}

/// (what, status, JSON-RPC code) for a raw body posted with correct JSON headers.
async fn expect(
    s: &HttpServer,
    what: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
    status: u16,
    code: Option<i64>,
) {
    let r = request(&s.addr, "POST", "/mcp", headers, body).await;
    assert_eq!(r.status, status, "{what}: {}", r.body);
    if let Some(c) = code {
        assert_eq!(r.error_code(), c, "{what}");
    }
}

/// The shared corpus (tests/hostile/corpus.json), also replayed against the Python and Node
/// servers by their own test suites.
fn corpus() -> Value {
    serde_json::from_str(include_str!("../hostile/corpus.json")).expect("corpus.json")
}

/// A case's body, built as the corpus's `body_forms` describe.
fn corpus_body(corpus: &Value, body: &Value) -> Vec<u8> {
    let call = |id: &str| corpus["call_template"].as_str().unwrap().replace("$ID", id);
    if let Some(t) = body["text"].as_str() {
        return t.as_bytes().to_vec();
    }
    if let Some(h) = body["hex"].as_str() {
        return (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect();
    }
    if let Some(parts) = body["repeat"].as_array() {
        let mut out = String::new();
        for p in parts {
            let chunk = p[0].as_str().unwrap().replace("$CALL", &call("1"));
            out.push_str(&chunk.repeat(p[1].as_u64().unwrap() as usize));
        }
        return out.into_bytes();
    }
    let mut out = call(body["call"].as_str().expect("a body form"));
    let x = "x".repeat(body["x"].as_u64().unwrap_or(0) as usize);
    for r in body["replace"].as_array().into_iter().flatten() {
        let (from, to) = (r[0].as_str().unwrap(), r[1].as_str().unwrap());
        assert!(out.contains(from), "{from} is not in the call");
        out = out.replacen(from, &to.replace("$X", &x), 1);
    }
    out.push_str(body["append"].as_str().unwrap_or(""));
    out.into_bytes()
}

#[tokio::test]
async fn hostile_corpus_gets_the_spec_codes_and_runs_no_handler() {
    let mut s =
        HttpServer::start_with("everything", &[("OXMCP_LOG", "warn,oxmcp::audit=info")]).await;
    let corpus = corpus();
    let defaults = corpus["default_headers"].as_object().unwrap();
    for case in corpus["cases"].as_array().unwrap() {
        let what = case["name"].as_str().unwrap();
        let mut headers: Vec<(&str, &str)> = defaults
            .iter()
            .filter(|(k, _)| case["headers"].get(k.as_str()).is_none())
            .map(|(k, v)| (k.as_str(), v.as_str().unwrap()))
            .collect();
        for (k, v) in case["headers"].as_object().into_iter().flatten() {
            headers.push((k.as_str(), v.as_str().unwrap()));
        }
        let code = case["code"].as_i64();
        let status = case["status"].as_u64().unwrap() as u16;
        let body = corpus_body(&corpus, &case["body"]);
        expect(&s, what, &headers, body, status, code).await;
    }
    let h = modern_headers(&[]);

    // Exactly one audit line: the good call below. Nothing above reached a handler.
    let good = s.post(&h, &call_body(json!(424242))).await;
    assert_eq!(good.status, 200, "{}", good.body);
    let mut audit = Vec::new();
    while let Some(l) = s.stderr_line("oxmcp::audit", Duration::from_secs(5)).await {
        let done = l.contains("424242");
        audit.push(l);
        if done {
            break;
        }
    }
    assert_eq!(
        audit.len(),
        1,
        "only the good call was dispatched: {audit:#?}"
    );
    still_serving(&s).await;
}

#[tokio::test]
async fn ids_of_every_valid_type_come_back_unchanged() {
    let s = HttpServer::start("everything").await;
    for id in [
        json!(0),
        json!(-1),
        json!(9007199254740993u64),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(""),
        json!("x".repeat(1000)),
        json!("ünïcødé ✓"),
    ] {
        let r = s.post(&modern_headers(&[]), &call_body(id.clone())).await;
        assert_eq!(r.status, 200, "id {id}: {}", r.body);
        assert_eq!(r.json()["id"], id, "the id comes back unchanged");
    }
    still_serving(&s).await;
}

#[tokio::test]
async fn header_injection_and_raw_protocol_abuse() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = HttpServer::start("everything").await;
    // A CR/LF in a name the server echoes into a header is impossible: such names never match.
    let body = call_body(json!(1)).replace(
        "test_simple_text",
        "test_simple_text\r\nSet-Cookie: pwned=1",
    );
    let r = s.post(&modern_headers(&[]), &body).await;
    assert_eq!(r.status, 400);
    assert!(r.headers.get("set-cookie").is_none());

    let raw = |req: &'static [u8]| {
        let addr = s.addr.clone();
        async move {
            let mut c = tokio::net::TcpStream::connect(&addr).await.unwrap();
            c.write_all(req).await.unwrap();
            let mut out = Vec::new();
            let _ = tokio::time::timeout(Duration::from_secs(10), c.read_to_end(&mut out)).await;
            String::from_utf8_lossy(&out).into_owned()
        }
    };
    for (what, req) in [
        ("bare LF in a header", &b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-A: 1\nX-B: 2\r\nContent-Length: 0\r\n\r\n"[..]),
        ("obs-fold", &b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-A: 1\r\n  folded\r\nContent-Length: 0\r\n\r\n"[..]),
        ("NUL in a header", &b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-A: a\0b\r\nContent-Length: 0\r\n\r\n"[..]),
        ("two Content-Lengths", &b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"[..]),
        ("CL and chunked", &b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"[..]),
        ("garbage request line", &b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n"[..]),
    ] {
        let out = raw(req).await;
        assert!(out.is_empty() || out.starts_with("HTTP/1.1 400") || out.starts_with("HTTP/1.1 4"), "{what}: {out}");
        assert!(!out.starts_with("HTTP/1.1 2"), "{what} must not be accepted: {out}");
    }
    // A declared body far over the cap is refused before it is read.
    let out = raw(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 999999999999\r\n\r\n").await;
    assert!(out.starts_with("HTTP/1.1 413"), "{out}");
    // Too many headers: 431.
    let mut many = String::from("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for i in 0..200 {
        many.push_str(&format!("X-H{i}: v\r\n"));
    }
    many.push_str("Content-Length: 0\r\n\r\n");
    let out = raw(Box::leak(many.into_bytes().into_boxed_slice())).await;
    assert!(out.starts_with("HTTP/1.1 431"), "{out}");
    still_serving(&s).await;
}

#[tokio::test]
async fn concurrent_flood_is_answered_and_the_server_survives() {
    let s = HttpServer::start("everything").await;
    let addr = s.addr.clone();
    let mut tasks = Vec::new();
    for i in 0..200 {
        let addr = addr.clone();
        tasks.push(tokio::spawn(async move {
            let (body, headers): (Vec<u8>, Vec<(&str, &str)>) = if i % 4 == 0 {
                (b"{not json".to_vec(), JSON_HEADERS.to_vec())
            } else {
                let mut h = modern_headers(&[]);
                h.extend_from_slice(&JSON_HEADERS);
                (call_body(json!(i)).into_bytes(), h)
            };
            request(&addr, "POST", "/mcp", &headers, body).await.status
        }));
    }
    let mut ok = 0;
    for (i, t) in tasks.into_iter().enumerate() {
        let status = t.await.unwrap();
        if i % 4 == 0 {
            assert_eq!(status, 400);
        } else {
            assert_eq!(status, 200);
            ok += 1;
        }
    }
    assert_eq!(ok, 150);
    still_serving(&s).await;
}

#[tokio::test]
async fn stdio_survives_hostile_lines() {
    let mut s = StdioServer::start("everything");
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    for (line, code) in [
        (b"{not json".to_vec(), -32700),
        (deep.into_bytes(), -32700),
        (vec![0xff, 0xfe, b'{', b'}'], -32700),
        (
            br#"{"jsonrpc":"2.0","id":null,"method":"x"}"#.to_vec(),
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#.to_vec(),
            -32600,
        ),
        (br#""just a string""#.to_vec(), -32600),
        (
            br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#.to_vec(),
            -32700,
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"{}"}}"#,
                "m".repeat(2 << 20)
            )
            .into_bytes(),
            -32600,
        ),
    ] {
        s.send_raw(&line).await;
        let v = s.recv().await;
        assert_eq!(
            v["error"]["code"],
            code,
            "{}: {v}",
            String::from_utf8_lossy(&line[..line.len().min(40)])
        );
    }
    // A line over the 4 MiB cap is answered -32600 and skipped; the next line is served.
    let mut huge = vec![b'"'; 5 * 1024 * 1024];
    huge.push(b'"');
    s.send_raw(&huge).await;
    assert_eq!(s.recv().await["error"]["code"], -32600);
    let id = json!("after");
    s.send(&json!({"jsonrpc":"2.0","id":id,"method":"tools/list","params":modern_params(json!({}), json!({}))})).await;
    let (r, _) = s.recv_response(&id).await;
    assert!(r["result"]["tools"].is_array(), "{r}");
}
