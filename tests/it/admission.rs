//! Admission over the real transport (`server/gate.rs`): authentication from the head before the
//! body is read, the connection caps (total and per client address), the client address
//! through trusted proxies only, and a repeated DELETE of a session just ended.

use crate::harness::*;
use serde_json::json;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A connection from the source address `from` (any 127.x address is this machine).
async fn connect_from(from: &str, addr: &str) -> TcpStream {
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.bind(format!("{from}:0").parse().unwrap()).unwrap();
    sock.connect(addr.parse().unwrap()).await.unwrap()
}

/// A modern `tools/list` POST from `from`, with a token and extra headers; the status and the
/// whole answer (the connection is closed after it).
async fn post_from(
    from: &str,
    addr: &str,
    token: Option<&str>,
    extra: &[(&str, &str)],
) -> (u16, String) {
    let mut c = connect_from(from, addr).await;
    let (h, body) = modern_request(json!(1), "tools/list", &mut json!({}), json!({}));
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in h
        .iter()
        .map(|(k, v)| (*k, v.as_str()))
        .chain(extra.iter().copied())
    {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(t) = token {
        req.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    c.write_all(req.as_bytes()).await.unwrap();
    read_answer(&mut c).await
}

/// Everything the server writes until it closes the connection (within 10 s): the status, and
/// the answer.
async fn read_answer(c: &mut TcpStream) -> (u16, String) {
    let mut out = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match c.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .expect("an answer, and the connection closed, within 10 s");
    let out = String::from_utf8_lossy(&out).into_owned();
    let status = out
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, out)
}

/// Uploads that announce 4 MiB, send 64 KiB of it and stall, with no token: each is answered
/// 401 from its head, at once (not after `body_timeout`), and its connection closed, so none
/// holds a body buffer; the right token is then served.
#[tokio::test]
async fn stalled_uploads_without_a_token_get_401_before_their_body() {
    let s = HttpServer::start_with(
        "everything",
        &[
            ("OXMCP_TOKENS", "alice=s3cret"),
            ("OXMCP_BODY_TIMEOUT_MS", "30000"),
        ],
    )
    .await;
    let started = Instant::now();
    let mut uploads = Vec::new();
    for _ in 0..40 {
        let addr = s.addr.clone();
        uploads.push(tokio::spawn(async move {
            let mut c = TcpStream::connect(&addr).await.unwrap();
            let head = format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
                4 * 1024 * 1024
            );
            c.write_all(head.as_bytes()).await.unwrap();
            let _ = c.write_all(&[b' '; 64 * 1024]).await;
            read_answer(&mut c).await
        }));
    }
    for u in uploads {
        let (status, out) = u.await.unwrap();
        assert_eq!(status, 401, "{out}");
        assert!(
            out.to_ascii_lowercase().contains("www-authenticate"),
            "{out}"
        );
        assert!(
            out.to_ascii_lowercase().contains("connection: close"),
            "{out}"
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "answered from the head, not after the body deadline: {:?}",
        started.elapsed()
    );
    let (status, out) = post_from("127.0.0.1", &s.addr, Some("s3cret"), &[]).await;
    assert_eq!(status, 200, "{out}");
}

/// `n` keep-alive connections from `from`, each of which the server has served (a `/healthz`
/// answered 200), held open. A connection refused (503: the server has not yet let go of one
/// the test closed) is retried, for at most 5 s.
async fn hold(from: &str, addr: &str, n: usize) -> Vec<TcpStream> {
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut held = Vec::new();
    while held.len() < n {
        let mut c = connect_from(from, addr).await;
        let head = format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n\r\n");
        c.write_all(head.as_bytes()).await.unwrap();
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        while !out.ends_with(b"}") {
            match tokio::time::timeout(Duration::from_secs(10), c.read(&mut buf)).await {
                Ok(Ok(0)) | Ok(Err(_)) | Err(_) => break,
                Ok(Ok(k)) => out.extend_from_slice(&buf[..k]),
            }
        }
        if out.starts_with(b"HTTP/1.1 200") {
            held.push(c);
        } else {
            assert!(
                Instant::now() < deadline,
                "{}",
                String::from_utf8_lossy(&out)
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    held
}

/// `max_connections_per_client` (2): a third connection from one address is answered 429
/// (-31429) and closed, while another address is served; `max_connections` (4): a fifth
/// connection is answered 503 (-31503), and served again once one closes.
#[tokio::test]
async fn connections_past_each_cap_are_refused_while_others_are_served() {
    let s = HttpServer::start_with(
        "everything",
        &[
            ("OXMCP_MAX_CONNECTIONS", "4"),
            ("OXMCP_MAX_CONNECTIONS_PER_CLIENT", "2"),
        ],
    )
    .await;
    let held_a = hold("127.0.0.1", &s.addr, 2).await;
    let (status, out) = post_from("127.0.0.1", &s.addr, None, &[]).await;
    assert_eq!(status, 429, "{out}");
    assert!(out.contains("-31429"), "{out}");
    assert!(out.to_ascii_lowercase().contains("retry-after"), "{out}");
    let (status, out) = post_from("127.0.0.2", &s.addr, None, &[]).await;
    assert_eq!(status, 200, "another client is served: {out}");

    let mut held_b = hold("127.0.0.3", &s.addr, 2).await;
    let (status, out) = post_from("127.0.0.4", &s.addr, None, &[]).await;
    assert_eq!(status, 503, "{out}");
    assert!(out.contains("-31503"), "{out}");
    // One closes: a new client is served again.
    drop(held_b.pop());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, out) = post_from("127.0.0.4", &s.addr, None, &[]).await;
        if status == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still refused after a close: {out}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop((held_a, held_b));
}

/// Behind a trusted proxy (127.0.0.1), the failed-authentication limit is keyed by the client
/// the proxy forwards: ten wrong tokens lock out that client only. An untrusted peer's
/// `X-Forwarded-For` is ignored: its guesses count against its own address whatever it claims.
#[tokio::test]
async fn the_failed_authentication_limit_keys_forwarded_clients_through_trusted_proxies_only() {
    let s = HttpServer::start_with(
        "everything",
        &[
            ("OXMCP_TOKENS", "alice=s3cret"),
            ("OXMCP_TRUSTED_PROXIES", "127.0.0.1/32, 10.0.0.0/8"),
        ],
    )
    .await;
    let fwd = |ip: &'static str| [("X-Forwarded-For", ip)];
    for i in 0..10 {
        let (st, out) = post_from(
            "127.0.0.1",
            &s.addr,
            Some(&format!("g{i}")),
            &fwd("203.0.113.5"),
        )
        .await;
        assert_eq!(st, 401, "guess {i}: {out}");
    }
    let (st, out) = post_from("127.0.0.1", &s.addr, Some("s3cret"), &fwd("203.0.113.5")).await;
    assert_eq!(st, 429, "the guessing client waits: {out}");
    // Another client behind the same proxy, also through a second trusted hop, is served.
    let (st, out) = post_from("127.0.0.1", &s.addr, Some("s3cret"), &fwd("203.0.113.6")).await;
    assert_eq!(st, 200, "{out}");
    let two_hops = [("X-Forwarded-For", "203.0.113.5, 203.0.113.7, 10.1.2.3")];
    let (st, out) = post_from("127.0.0.1", &s.addr, Some("s3cret"), &two_hops).await;
    assert_eq!(
        st, 200,
        "the client is the first untrusted hop from the right: {out}"
    );
    let forwarded = [("Forwarded", "for=203.0.113.5")];
    let (st, out) = post_from("127.0.0.1", &s.addr, Some("s3cret"), &forwarded).await;
    assert_eq!(st, 429, "Forwarded names the same client: {out}");

    // An untrusted peer claiming to be a new client each time is still one client.
    for i in 0..10 {
        let claim = [(
            "X-Forwarded-For",
            if i % 2 == 0 {
                "198.51.100.1"
            } else {
                "198.51.100.2"
            },
        )];
        let (st, out) = post_from("127.0.0.2", &s.addr, Some(&format!("g{i}")), &claim).await;
        assert_eq!(st, 401, "guess {i}: {out}");
    }
    let (st, out) = post_from("127.0.0.2", &s.addr, Some("s3cret"), &fwd("198.51.100.3")).await;
    assert_eq!(st, 429, "{out}");
    assert!(out.contains("-31429"), "{out}");
}

/// A DELETE repeated after the session ended (a proxy re-sending one whose answer it lost)
/// answers 200 again; the ended session still answers 404 to anything else, and a session that
/// never existed 404 to DELETE.
#[tokio::test]
async fn a_repeated_delete_of_an_ended_session_succeeds() {
    let s = HttpServer::start("everything").await;
    let l = s.initialize("2025-11-25", json!({})).await;
    assert_eq!(l.send("DELETE").await.status, 200);
    let again = l.send("DELETE").await;
    assert_eq!(again.status, 200, "{}", again.body);
    let r = l.call(json!(1), "ping", json!({})).await;
    assert_eq!(r.status, 404, "{}", r.body);
    let never = Legacy {
        session: Some("0123456789abcdef0123456789abcdef".into()),
        ..l.clone()
    };
    let r = never.send("DELETE").await;
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(r.error_code(), -32600);
}

/// With tokens, only the session's owner gets the repeated DELETE's success; another caller
/// gets the 404 it gets for any session not its own.
#[tokio::test]
async fn a_repeated_delete_succeeds_for_the_sessions_owner_only() {
    let s =
        HttpServer::start_with("everything", &[("OXMCP_TOKENS", "alice=a-tok,bob=b-tok")]).await;
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
    let auth = |t: &'static str| ("Authorization", format!("Bearer {t}"));
    let (k, v) = auth("a-tok");
    let r = s.post(&[(k, v.as_str())], &init.to_string()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.headers["mcp-session-id"].to_str().unwrap().to_string();
    let delete = |tok: &'static str| {
        let sid = sid.clone();
        let s = &s;
        async move {
            let (k, v) = auth(tok);
            let h = [
                ("Mcp-Session-Id", sid.as_str()),
                ("MCP-Protocol-Version", "2025-11-25"),
                (k, v.as_str()),
            ];
            s.send("DELETE", &h, "").await.status
        }
    };
    assert_eq!(delete("a-tok").await, 200);
    assert_eq!(delete("b-tok").await, 404);
    assert_eq!(delete("a-tok").await, 200);
}
