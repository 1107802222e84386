//! Bounds on what one caller can make the server hold, each gone just past over real HTTP
//! against the everything server: subscription bytes per session, sessions per caller, the idle
//! end of a session (in memory and in Redis), tasks per caller, running tasks per caller (which
//! no longer hold the global in-flight places), the size of a kept task result, and the one
//! Redis read of a listen's `taskIds`. The same cases run from Python (tests/python/test_bounds.py)
//! and Node (tests/node/bounds.test.mjs).

use crate::harness::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn task_caps() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// A modern request as the caller holding `token` ("" without auth).
async fn as_caller(s: &HttpServer, token: &str, id: u64, method: &str, mut params: Value) -> Resp {
    let (h, body) = modern_request(json!(id), method, &mut params, task_caps());
    let bearer = format!("Bearer {token}");
    let mut h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
    if !token.is_empty() {
        h.push(("authorization", &bearer));
    }
    s.post(&h, &body).await
}

/// A task of `slow_compute` as `token`'s caller: its id, or the refusal.
async fn task(s: &HttpServer, token: &str, seconds: f64, label: &str) -> Result<String, Resp> {
    let r = as_caller(
        s,
        token,
        1,
        "tools/call",
        json!({"name":"slow_compute","arguments":{"seconds":seconds,"label":label}}),
    )
    .await;
    match r.json()["result"]["taskId"].as_str() {
        Some(id) => Ok(id.to_string()),
        None => Err(r),
    }
}

async fn settled(s: &HttpServer, token: &str, id: &str) -> Value {
    let start = Instant::now();
    loop {
        let t = as_caller(s, token, 2, "tasks/get", json!({"taskId": id}))
            .await
            .result();
        if matches!(
            t["status"].as_str(),
            Some("completed" | "failed" | "cancelled")
        ) {
            return t;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "never settled: {t}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn init_body() -> String {
    json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}})
    .to_string()
}

/// `initialize` as `token`'s caller: the session id, or the refusal.
async fn session(s: &HttpServer, token: &str) -> Result<String, Resp> {
    let bearer = format!("Bearer {token}");
    let h: Vec<(&str, &str)> = if token.is_empty() {
        vec![]
    } else {
        vec![("authorization", &bearer)]
    };
    let r = s.post(&h, &init_body()).await;
    match r.headers.get("mcp-session-id") {
        Some(v) => Ok(v.to_str().unwrap().to_string()),
        None => Err(r),
    }
}

#[tokio::test]
async fn subscription_bytes_are_bounded_per_session() {
    let s = HttpServer::start_with("everything", &[("OXMCP_MAX_SUBSCRIPTION_BYTES", "100")]).await;
    let l = s.initialize("2025-11-25", json!({})).await;
    let sub = |uri: String| json!({"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":uri}});
    // 40-byte URIs: two fit in 100 bytes, the third goes past.
    let uri = |i: u32| format!("test://r/{i}/{}", "x".repeat(40 - 12));
    for i in 0..2 {
        let r = l.post(&sub(uri(i))).await;
        assert!(r.json().get("result").is_some(), "{}", r.body);
    }
    let r = l.post(&sub(uri(2))).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.error_code(), -32602, "{}", r.body);
    assert!(r.body.contains("may total 100 bytes"), "{}", r.body);
    let r = l.post(&sub(uri(0))).await;
    assert!(r.json().get("result").is_some(), "held already: {}", r.body);
    let r = l
        .post(&json!({"jsonrpc":"2.0","id":2,"method":"ping"}))
        .await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn sessions_are_bounded_per_caller() {
    let tokens = json!({"alice": "alice-1", "bob": "bob-1"}).to_string();
    let s = HttpServer::start_with(
        "everything",
        &[
            ("OXMCP_TOKENS", &tokens),
            ("OXMCP_MAX_SESSIONS_PER_CALLER", "2"),
        ],
    )
    .await;
    let first = session(&s, "alice-1").await.expect("a session");
    session(&s, "alice-1").await.expect("a second session");
    let r = session(&s, "alice-1")
        .await
        .expect_err("a third is refused");
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(r.error_code(), -32603, "{}", r.body);
    assert!(r.body.contains("too many sessions"), "{}", r.body);
    // Another caller is not affected; ending one of alice's makes room.
    session(&s, "bob-1").await.expect("bob's session");
    let h = [
        ("authorization", "Bearer alice-1"),
        ("mcp-session-id", first.as_str()),
    ];
    assert_eq!(s.send("DELETE", &h, "").await.status, 200);
    session(&s, "alice-1").await.expect("room again");
}

#[tokio::test]
async fn anonymous_sessions_are_bounded_per_client_address() {
    let s = HttpServer::start_with("everything", &[("OXMCP_MAX_SESSIONS_PER_CALLER", "2")]).await;
    for _ in 0..2 {
        session(&s, "").await.expect("a session");
    }
    let r = session(&s, "")
        .await
        .expect_err("the same address, a third session");
    assert_eq!((r.status, r.error_code()), (503, -32603), "{}", r.body);
}

async fn idle_session_ends(s: &HttpServer) {
    let l = s.initialize("2025-11-25", json!({})).await;
    let ping = json!({"jsonrpc":"2.0","id":1,"method":"ping"});
    // Used within the idle time, it lives on.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(l.post(&ping).await.status, 200);
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let r = l.post(&ping).await;
    assert_eq!(r.status, 404, "an idle session is ended: {}", r.body);
}

#[tokio::test]
async fn an_idle_session_is_ended() {
    let s = HttpServer::start_with("everything", &[("OXMCP_SESSION_IDLE_MS", "1000")]).await;
    idle_session_ends(&s).await;
}

#[tokio::test]
async fn an_idle_session_is_ended_in_redis_too() {
    let redis = RedisServer::start();
    let url = redis.url();
    let s = HttpServer::start_with(
        "everything",
        &[
            ("OXMCP_SESSION_IDLE_MS", "1000"),
            ("OXMCP_REDIS_URL", &url),
            ("OXMCP_STATE_KEY", "it-bounds-state-key-0123456789abcdef"),
        ],
    )
    .await;
    idle_session_ends(&s).await;
}

#[tokio::test]
async fn tasks_are_bounded_per_caller_finished_ones_included() {
    let tokens = json!({"alice": "alice-1", "bob": "bob-1"}).to_string();
    let s = HttpServer::start_with(
        "everything",
        &[
            ("OXMCP_TOKENS", &tokens),
            ("OXMCP_MAX_TASKS_PER_CALLER", "2"),
        ],
    )
    .await;
    for _ in 0..2 {
        let id = task(&s, "alice-1", 0.0, "t").await.expect("a task");
        settled(&s, "alice-1", &id).await;
    }
    let r = task(&s, "alice-1", 0.0, "t").await.expect_err("a third");
    assert_eq!((r.status, r.error_code()), (429, -31429), "{}", r.body);
    assert!(r.body.contains("Too many tasks"), "{}", r.body);
    task(&s, "bob-1", 0.0, "t").await.expect("bob's task");
}

#[tokio::test]
async fn running_tasks_are_bounded_per_caller_and_hold_no_request_place() {
    let tokens = json!({"alice": "alice-1", "bob": "bob-1"}).to_string();
    let s = HttpServer::start_with(
        "everything",
        &[
            ("OXMCP_TOKENS", &tokens),
            ("OXMCP_MAX_IN_FLIGHT", "2"),
            ("OXMCP_MAX_RUNNING_TASKS_PER_CALLER", "2"),
        ],
    )
    .await;
    let mut alice = Vec::new();
    for _ in 0..2 {
        alice.push(task(&s, "alice-1", 30.0, "long").await.expect("a task"));
    }
    let r = task(&s, "alice-1", 30.0, "long")
        .await
        .expect_err("a third");
    assert_eq!((r.status, r.error_code()), (429, -31429), "{}", r.body);
    assert!(r.body.contains("Too many running tasks"), "{}", r.body);
    // Alice's two running tasks hold none of the two in-flight places: bob is served.
    let r = as_caller(
        &s,
        "bob-1",
        3,
        "tools/call",
        json!({"name":"greet","arguments":{"name":"bob"}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.result()["content"][0]["text"], "Hello, bob!");
    task(&s, "bob-1", 0.0, "b").await.expect("bob's task");
    // A task that ends gives its place back.
    let r = as_caller(
        &s,
        "alice-1",
        4,
        "tasks/cancel",
        json!({"taskId": alice[0]}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let start = Instant::now();
    let id = loop {
        match task(&s, "alice-1", 30.0, "again").await {
            Ok(id) => break id,
            Err(r) => assert!(start.elapsed() < Duration::from_secs(5), "{}", r.body),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    for id in [&alice[1], &id] {
        as_caller(&s, "alice-1", 5, "tasks/cancel", json!({"taskId": id})).await;
    }
}

#[tokio::test]
async fn a_task_result_over_the_cap_fails_the_task() {
    let s = HttpServer::start_with("everything", &[("OXMCP_MAX_TASK_RESULT_BYTES", "1000")]).await;
    let id = task(&s, "", 0.0, &"x".repeat(1000)).await.expect("a task");
    let t = settled(&s, "", &id).await;
    assert_eq!(t["status"], "failed", "{t}");
    assert_eq!(t["error"]["code"], -32603, "{t}");
    assert!(
        t["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Task result too large"),
        "{t}"
    );
    assert!(t.get("result").is_none(), "{t}");
    let id = task(&s, "", 0.0, "small").await.expect("a task");
    assert_eq!(settled(&s, "", &id).await["status"], "completed");
}

/// `INFO commandstats` of the test's Redis: calls per command.
fn command_calls(port: u16, command: &str) -> u64 {
    use std::io::{Read, Write};
    let mut c = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    c.write_all(b"*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n")
        .unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    // A bulk reply: "$<len>\r\n<text>\r\n".
    loop {
        let n = c.read(&mut chunk).unwrap();
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf);
        if let Some((head, rest)) = text.split_once("\r\n") {
            let len: usize = head.trim_start_matches('$').parse().unwrap();
            if rest.len() >= len {
                break;
            }
        }
        assert!(n > 0, "redis closed");
    }
    let text = String::from_utf8_lossy(&buf);
    let prefix = format!("cmdstat_{command}:calls=");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .map_or(0, |rest| rest.split(',').next().unwrap().parse().unwrap())
}

#[tokio::test]
async fn a_listen_reads_its_task_ids_from_redis_in_one_mget() {
    let redis = RedisServer::start();
    let url = redis.url();
    let s = HttpServer::start_with(
        "everything",
        &[
            ("OXMCP_REDIS_URL", &url),
            ("OXMCP_STATE_KEY", "it-bounds-state-key-0123456789abcdef"),
        ],
    )
    .await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let id = task(&s, "", 0.0, "t").await.expect("a task");
        // Settled before counting: settling reads the record too.
        settled(&s, "", &id).await;
        ids.push(id);
    }
    let port: u16 = url
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let (gets, mgets) = (command_calls(port, "get"), command_calls(port, "mget"));
    let mut named: Vec<String> = (0..50).map(|i| format!("{i:032x}")).collect();
    named.extend(ids.iter().cloned());
    let params = json!({"notifications": {"taskIds": named}});
    let mut st = s
        .modern_stream(json!(9), "subscriptions/listen", params, task_caps())
        .await;
    let ack = st.expect().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!(ids),
        "{ack}"
    );
    assert_eq!(command_calls(port, "mget"), mgets + 1, "one MGET");
    assert_eq!(command_calls(port, "get"), gets, "no GET per id");
}
