//! The security rules: one test per rule that is not a plain corpus case (those
//! are in tests/hostile/corpus.json), against the real `everything` server over HTTP.

use crate::harness::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

/// A URI over the 8 KiB cap is refused with -32602 at once (no template tried), an
/// adversarial one under the cap costs microseconds, and a `ping` sent while several clients
/// keep sending 512 KiB URIs is answered promptly.
#[tokio::test]
async fn long_uris_are_refused_at_once_and_ping_stays_prompt() {
    let s = HttpServer::start("everything").await;
    let l = s.initialize("2025-06-18", json!({})).await;
    let long = format!("test://template/{}/dat", "a".repeat(512 * 1024));
    let mut floods = Vec::new();
    for i in 0..4 {
        let (l, long) = (l.clone(), long.clone());
        floods.push(tokio::spawn(async move {
            for j in 0..5 {
                let r = l
                    .call(json!(i * 100 + j), "resources/read", json!({"uri": long}))
                    .await;
                assert_eq!(
                    r.error_code(),
                    -32602,
                    "{}",
                    &r.body[..r.body.len().min(300)]
                );
                assert!(
                    r.body.contains("URI too long"),
                    "{}",
                    &r.body[..300.min(r.body.len())]
                );
            }
        }));
    }
    for k in 0..10 {
        let t = Instant::now();
        let r = l.call(json!(format!("ping{k}")), "ping", json!({})).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "ping took {:?} while long URIs were refused",
            t.elapsed()
        );
    }
    for f in floods {
        f.await.unwrap();
    }
    // Just under the cap, built to make a backtracking matcher retry every end position.
    let under = format!("test://template/{}/dat", "a".repeat(8 * 1024 - 40));
    let t = Instant::now();
    let r = l
        .call(json!("under"), "resources/read", json!({"uri": under}))
        .await;
    assert_eq!(
        r.error_code(),
        -32002,
        "{}",
        &r.body[..r.body.len().min(300)]
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let r = l
        .call(
            json!("ok"),
            "resources/read",
            json!({"uri": "test://template/42/data"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.result()["contents"][0].is_object(), "{}", r.body);
}

/// A template variable that decodes to a path separator or a dot segment matches no
/// template, so no handler sees `../../etc/passwd`; an ordinary encoded value still works.
#[tokio::test]
async fn template_values_cannot_walk_out_of_the_template() {
    let s = HttpServer::start("everything").await;
    for uri in [
        "test://template/..%2F..%2Fetc%2Fpasswd/data",
        "test://template/%2E%2E/data",
        "test://template/a%5C..%5Cb/data",
        "test://template/../data",
    ] {
        let r = s
            .modern(json!(uri), "resources/read", json!({ "uri": uri }))
            .await;
        // Unknown resource (-32602 in the 2026-07-28 era).
        assert_eq!(
            r.json()["error"]["message"],
            "Resource not found",
            "{uri}: {}",
            r.body
        );
        assert!(r.json().get("result").is_none(), "{uri}: {}", r.body);
    }
    let r = s
        .modern(
            json!("ok"),
            "resources/read",
            json!({"uri": "test://template/a%20b/data"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("a b"), "{}", r.body);
}

/// CR/LF in a request-derived field (here the tool name of an unauthenticated call,
/// which the audit record carries) stays inside that field's text, so no forged line appears.
#[tokio::test]
async fn forged_log_lines_stay_inside_their_field() {
    let forged = "nope\r\nFORGED oxmcp::audit: auth caller=\"admin\" outcome=\"ok\"";
    for format in ["text", "json"] {
        let mut s = HttpServer::start_with(
            "everything",
            &[
                ("OXMCP_LOG", "warn,oxmcp::audit=info"),
                ("OXMCP_LOG_FORMAT", format),
            ],
        )
        .await;
        let l = s.initialize("2025-06-18", json!({})).await;
        let r = l
            .call(
                json!(1),
                "tools/call",
                json!({"name": forged, "arguments": {}}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        let line = s
            .stderr_line("FORGED", Duration::from_secs(5))
            .await
            .expect("the audit line of the call");
        assert!(
            !line.starts_with("FORGED"),
            "{format}: a forged line: {line}"
        );
        match format {
            "json" => {
                let v: Value = serde_json::from_str(&line).expect("one JSON object per line");
                assert_eq!(v["fields"]["name"], forged, "{line}");
            }
            _ => assert!(line.contains("name=nope\\r\\nFORGED"), "{line}"),
        }
        // Nothing else arrives that begins with the forged text.
        while let Some(l) = s.stderr_line("FORGED", Duration::from_millis(300)).await {
            assert!(!l.starts_with("FORGED"), "{format}: a forged line: {l}");
        }
    }
}

/// Bound to a non-loopback address without `allowed_hosts`, the server refuses to
/// start and names the option; with `allowed_hosts` it serves those names only; with the explicit
/// opt-out it starts.
#[tokio::test]
async fn non_loopback_bind_needs_allowed_hosts_or_an_explicit_opt_out() {
    let out = Command::new(bin("everything"))
        .args(["--http", "0.0.0.0:0"])
        .env_remove("OXMCP_ALLOWED_HOSTS")
        .env_remove("OXMCP_ALLOW_ANY_HOST")
        .stdin(std::process::Stdio::null())
        .output();
    let out = tokio::time::timeout(Duration::from_secs(20), out)
        .await
        .expect("exits at once")
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("allowed_hosts") && err.contains("allow_any_host"),
        "{err}"
    );
    assert!(!err.contains("listening on"), "{err}");

    for (env, host_ok, expect_warning) in [
        (("OXMCP_ALLOWED_HOSTS", "mcp.example.com"), true, true),
        (("OXMCP_ALLOW_ANY_HOST", "1"), true, true),
    ] {
        let mut child = Command::new(bin("everything"))
            .args(["--http", "0.0.0.0:0"])
            .env(env.0, env.1)
            .env("OXMCP_LOG", "warn")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut warned = false;
        let port = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let l = lines.next_line().await.unwrap().expect("listening");
                warned |= l.contains("no authentication");
                if let Some(rest) = l.strip_prefix("listening on http://0.0.0.0:") {
                    return rest.trim_end_matches("/mcp").to_string();
                }
            }
        })
        .await
        .unwrap();
        assert_eq!(warned, expect_warning, "{env:?}: warn when auth is off");
        let addr = format!("127.0.0.1:{port}");
        let (h, body) = modern_request(json!(1), "tools/list", &mut json!({}), json!({}));
        let mut h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        h.push(("host", "mcp.example.com"));
        let r = request(&addr, "POST", "/mcp", &h, body.clone().into_bytes()).await;
        assert_eq!(r.status == 200, host_ok, "{env:?}: {}", r.body);
        if env.0 == "OXMCP_ALLOWED_HOSTS" {
            // Only the listed names: a rebinding name is refused.
            h.pop();
            h.push(("host", "attacker.example"));
            let r = request(&addr, "POST", "/mcp", &h, body.into_bytes()).await;
            assert_eq!(r.status, 403, "{}", r.body);
        }
        let _ = child.kill().await;
    }
}

/// One POST from the source address `from` (any 127.x address is this machine), read whole.
async fn post_from(from: &str, addr: &str, token: Option<&str>) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let mut c = sock.connect(addr.parse().unwrap()).await.unwrap();
    let (h, body) = modern_request(json!(1), "tools/list", &mut json!({}), json!({}));
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in &h {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(t) = token {
        req.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    c.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), c.read_to_end(&mut out))
        .await
        .expect("an answer")
        .unwrap();
    let out = String::from_utf8_lossy(&out).into_owned();
    let status = out
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, out)
}

/// Refused tokens are limited per client address (10, then 429 + Retry-After before
/// any token is checked, the right one included); another address is unaffected; requests
/// without a token do not count.
#[tokio::test]
async fn failed_authentications_are_limited_per_client_address() {
    let s = HttpServer::start_with("everything", &[("OXMCP_TOKENS", "alice=s3cret")]).await;
    for _ in 0..12 {
        assert_eq!(post_from("127.0.0.1", &s.addr, None).await.0, 401);
    }
    for i in 0..10 {
        let (st, out) = post_from("127.0.0.1", &s.addr, Some(&format!("guess{i}"))).await;
        assert_eq!(st, 401, "guess {i}: {out}");
    }
    let (st, out) = post_from("127.0.0.1", &s.addr, Some("guess-more")).await;
    assert_eq!(st, 429, "{out}");
    let retry: u64 = out
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("retry-after: ")
                .map(str::to_string)
        })
        .expect("Retry-After")
        .trim()
        .parse()
        .unwrap();
    assert!((1..=10).contains(&retry), "{retry}");
    assert!(out.contains("-31429"), "{out}");
    // Even the right token waits: a guess must get no answer at all.
    assert_eq!(post_from("127.0.0.1", &s.addr, Some("s3cret")).await.0, 429);
    // Another client address is served.
    let (st, out) = post_from("127.0.0.2", &s.addr, Some("s3cret")).await;
    assert_eq!(st, 200, "{out}");
    assert_eq!(post_from("127.0.0.2", &s.addr, Some("wrong")).await.0, 401);
}

/// A plain-http JWKS URL to a non-loopback host is warned about at start-up; a
/// loopback one is not.
#[tokio::test]
async fn plain_http_jwks_off_loopback_is_warned_about() {
    for (url, warned) in [
        ("http://idp.example.invalid/jwks.json", true),
        ("http://127.0.0.1:9/jwks.json", false),
    ] {
        let mut child = Command::new(bin("everything"))
            .args(["--http", "127.0.0.1:0"])
            .env("OXMCP_JWKS_URL", url)
            .env("OXMCP_JWT_ISSUER", "https://idp.example.invalid")
            .env("OXMCP_RESOURCE", "https://mcp.example.com/mcp")
            .env("OXMCP_LOG", "warn")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut line = None;
        tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let l = lines.next_line().await.unwrap().expect("listening");
                if l.contains("JWKS URL is plain http") {
                    line = Some(l);
                } else if l.starts_with("listening on") {
                    return;
                }
            }
        })
        .await
        .unwrap();
        let _ = child.kill().await;
        assert_eq!(line.is_some(), warned, "{url}: {line:?}");
    }
}
