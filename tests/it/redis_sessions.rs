//! Legacy sessions across replicas: three everything servers share one real
//! `redis-server` (the test's own, on a free loopback port) and one state key, and one
//! 2025-11-25 session is driven across them with raw HTTP: initialize on A, calls on B, the
//! elicitation answer POSTed to C, a cancel on another replica than the call (also one that
//! overtakes its request), a subscription made on A delivering an update triggered on C to B's
//! GET stream, a log level set on one replica holding on another, DELETE on B ending it on A
//! (and the same DELETE re-sent to C succeeding).
//! And with Redis down: legacy session operations answer 503 (-31503), modern calls go on.
//! Missing `redis-server` fails these tests: `bash scripts/setup.sh` installs it.

use crate::harness::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const STATE_KEY: &str = "it-sessions-state-key-0123456789abcdef";

async fn replica(url: &str) -> HttpServer {
    HttpServer::start_with(
        "everything",
        &[("OXMCP_REDIS_URL", url), ("OXMCP_STATE_KEY", STATE_KEY)],
    )
    .await
}

/// The same session, addressed to another replica.
fn on(l: &Legacy, s: &HttpServer) -> Legacy {
    Legacy {
        addr: s.addr.clone(),
        ..l.clone()
    }
}

async fn get_stream(l: &Legacy) -> Stream {
    let mut h = l.headers();
    h.push(("Accept", "text/event-stream".into()));
    let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Stream::open(&l.addr, "GET", &h, Vec::new()).await
}

/// The next message on `st` that is not a keep-alive and matches `want`, within `within`.
async fn until(st: &mut Stream, within: Duration, want: impl Fn(&Value) -> bool) -> Option<Value> {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        match st.next(deadline - Instant::now()).await {
            Some(m) if want(&m) => return Some(m),
            Some(_) => continue,
            None => return None,
        }
    }
    None
}

#[tokio::test]
async fn one_legacy_session_is_served_by_every_replica() {
    let redis = RedisServer::start();
    let url = redis.url();
    let (mut a, b, c) = (
        replica(&url).await,
        replica(&url).await,
        replica(&url).await,
    );
    let la = a.initialize("2025-11-25", json!({"elicitation": {}})).await;
    assert!(la.session.is_some());
    let (lb, lc) = (on(&la, &b), on(&la, &c));

    // B and C know the session A created.
    let r = lb.call(json!(1), "tools/list", json!({})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.result()["tools"]
        .as_array()
        .is_some_and(|t| !t.is_empty()));
    let r = lc.call(json!(2), "ping", json!({})).await;
    assert_eq!(r.status, 200, "{}", r.body);

    // A subscription made on A holds for B's GET stream; the update is triggered on C.
    let mut gb = get_stream(&lb).await;
    assert_eq!(gb.status, 200);
    let r = la
        .call(
            json!(3),
            "resources/subscribe",
            json!({"uri": "test://watched-resource"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // B's GET stream listens to Redis once it is open: trigger on C until the update arrives.
    let start = Instant::now();
    let m = loop {
        let r = lc
            .call(
                json!(format!("trigger-{}", start.elapsed().as_millis())),
                "tools/call",
                json!({"name": "test_trigger_resource_update", "arguments": {}}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        if let Some(m) = until(&mut gb, Duration::from_millis(500), |m| {
            m["method"] == "notifications/resources/updated"
        })
        .await
        {
            break m;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "B's GET stream never got the update of the resource subscribed on A"
        );
    };
    assert_eq!(m["params"]["uri"], "test://watched-resource");

    // An elicitation asked by the handler on B, answered by a POST to C.
    let mut st = lb
        .stream(&json!({"jsonrpc":"2.0","id":"el","method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"Who?"}}}))
        .await;
    assert_eq!(st.status, 200);
    let ask = st.expect().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let answer = json!({"jsonrpc":"2.0","id":ask["id"],"result":{"action":"accept","content":{"username":"ada","email":"ada@example.com"}}});
    // Not from another session (a session with no relation to this one, on C).
    let other = c.initialize("2025-11-25", json!({"elicitation": {}})).await;
    let r = other.post(&answer).await;
    assert_eq!(r.status, 202);
    assert!(
        st.next(Duration::from_millis(500)).await.is_none(),
        "another session's answer is not taken"
    );
    let r = lc.post(&answer).await;
    assert_eq!(r.status, 202, "{}", r.body);
    let done = st.expect().await;
    assert_eq!(done["id"], "el", "{done}");
    assert!(
        done["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("ada@example.com")),
        "{done}"
    );

    // A call running on A, cancelled by a notification POSTed to C: no response.
    let l = la.clone();
    let slow = tokio::spawn(async move {
        l.call(
            json!("slow"),
            "tools/call",
            json!({"name": "test_slow", "arguments": {"ms": 30000}}),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let r = lc
        .post(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"test"}}))
        .await;
    assert_eq!(r.status, 202, "{}", r.body);
    let r = tokio::time::timeout(Duration::from_secs(10), slow)
        .await
        .expect("the cancelled call ends within 10 s")
        .unwrap();
    assert_eq!(
        r.status, 202,
        "no response to a cancelled request: {}",
        r.body
    );
    assert!(
        a.stderr_line("test_slow: cancelled", Duration::from_secs(5))
            .await
            .is_some(),
        "the handler on A saw the cancellation"
    );

    // A cancel that overtakes its request: sent to B before the request reaches C.
    let r = lb
        .post(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"early"}}))
        .await;
    assert_eq!(r.status, 202, "{}", r.body);
    let t0 = Instant::now();
    let r = lc
        .call(
            json!("early"),
            "tools/call",
            json!({"name": "test_slow", "arguments": {"ms": 30000}}),
        )
        .await;
    assert_eq!(
        r.status, 202,
        "cancelled before it started: no response ({})",
        r.body
    );
    assert!(t0.elapsed() < Duration::from_secs(5));

    // logging/setLevel on C holds for a call on A: info logs are filtered out at "error".
    let r = lc
        .call(json!(5), "logging/setLevel", json!({"level": "error"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let r = la
        .call(
            json!(6),
            "tools/call",
            json!({"name": "test_tool_with_logging", "arguments": {}}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let msgs = r.messages();
    assert_eq!(
        msgs.len(),
        1,
        "no notifications/message below the session's level: {msgs:?}"
    );
    let r = lb
        .call(json!(7), "logging/setLevel", json!({"level": "debug"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = la
        .call(
            json!(8),
            "tools/call",
            json!({"name": "test_tool_with_logging", "arguments": {}}),
        )
        .await;
    assert!(
        r.messages()
            .iter()
            .filter(|m| m["method"] == "notifications/message")
            .count()
            >= 3,
        "{}",
        r.body
    );

    // DELETE on B ends it everywhere: A answers 404, B's GET stream ends.
    let r = lb.send("DELETE").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        gb.ended_within(Duration::from_secs(10)).await,
        "B's GET stream ends"
    );
    let r = la.call(json!(9), "ping", json!({})).await;
    assert_eq!(r.status, 404, "{}", r.body);
    // A DELETE re-sent to another replica (a proxy whose first try lost its answer) succeeds
    // there too: C heard that the session ended.
    let r = lc.send("DELETE").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = lc.call(json!(10), "ping", json!({})).await;
    assert_eq!(r.status, 404, "{}", r.body);
}

#[tokio::test]
async fn legacy_sessions_answer_503_while_redis_is_down_and_modern_calls_go_on() {
    let mut redis = RedisServer::start();
    let url = redis.url();
    let (a, b) = (replica(&url).await, replica(&url).await);
    let la = a.initialize("2025-11-25", json!({})).await;
    let lb = on(&la, &b);
    assert_eq!(lb.call(json!(1), "ping", json!({})).await.status, 200);
    redis.stop();
    for l in [&la, &lb] {
        let r = l.call(json!(2), "tools/list", json!({})).await;
        assert_eq!(r.status, 503, "{}", r.body);
        let e: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(e["error"]["code"], -31503, "{e}");
        assert!(r.headers.get("retry-after").is_some());
        // What failed inside (a Redis error kind, an OS error) is for the log, not the client.
        assert_eq!(
            e["error"]["message"],
            "Legacy sessions are unavailable right now; retry later"
        );
    }
    // A new session cannot be stored either: 503, not a session only one replica knows.
    let body = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}});
    let r = a.post(&[], &body.to_string()).await;
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.headers.get("mcp-session-id").is_none());
    // A cancel that cannot reach the other replicas is not accepted silently.
    let r = lb
        .post(
            &json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}),
        )
        .await;
    assert_eq!(r.status, 503, "{}", r.body);
    // Modern stateless calls never touch the session store (even with a stale session header).
    let r = b
        .modern(
            json!(3),
            "tools/call",
            json!({"name": "test_simple_text", "arguments": {}}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let mut p = json!({"name": "test_simple_text", "arguments": {}});
    let (mut h, body) = modern_request(json!(4), "tools/call", &mut p, json!({}));
    h.push(("Mcp-Session-Id", la.session.clone().unwrap()));
    let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = a.post(&h, &body).await;
    assert_eq!(r.status, 200, "{}", r.body);
}

/// A client-chosen `Mcp-Session-Id` never becomes part of a store key: one that is not of the
/// form the server gives out is an unknown session (404), even when it starts with a real one
/// (with Redis, `<id>:cx` named another key of another type, and answered 503).
#[tokio::test]
async fn a_session_id_of_another_form_is_unknown_without_asking_the_store() {
    let redis = RedisServer::start();
    let a = replica(&redis.url()).await;
    let l = a.initialize("2025-11-25", json!({})).await;
    let sid = l.session.clone().unwrap();
    for forged in [
        format!("{sid}:cx"),
        sid.to_uppercase(),
        format!("{sid}0"),
        "x".repeat(32),
    ] {
        let r = a
            .post(
                &[
                    ("Mcp-Session-Id", forged.as_str()),
                    ("MCP-Protocol-Version", "2025-11-25"),
                ],
                &json!({"jsonrpc":"2.0","id":1,"method":"ping"}).to_string(),
            )
            .await;
        assert_eq!(r.status, 404, "{forged}: {}", r.body);
    }
    assert_eq!(l.call(json!(2), "ping", json!({})).await.status, 200);
}

/// A session is its creator's on every replica, decided from the stored owner before anything
/// changes: another caller's requests with the valid session id get 404 from a replica that has
/// never served the session, and do not keep it alive (its idle TTL runs out while they keep
/// trying); the owner's requests do keep it alive.
#[tokio::test]
async fn another_callers_requests_neither_get_a_session_nor_keep_it_alive() {
    let redis = RedisServer::start();
    let url = redis.url();
    let tokens = json!({"alice": "alice-1", "bob": "bob-1"}).to_string();
    let env = [
        ("OXMCP_REDIS_URL", url.as_str()),
        ("OXMCP_STATE_KEY", STATE_KEY),
        ("OXMCP_TOKENS", tokens.as_str()),
        ("OXMCP_SESSION_IDLE_MS", "1500"),
    ];
    let a = HttpServer::start_with("everything", &env).await;
    let b = HttpServer::start_with("everything", &env).await;
    let as_user = |s: &HttpServer,
                   token: &'static str,
                   sid: Option<String>,
                   id: u64,
                   method: &'static str| {
        let addr = s.addr.clone();
        async move {
            let bearer = format!("Bearer {token}");
            let mut h = vec![
                ("MCP-Protocol-Version", "2025-11-25".to_string()),
                ("authorization", bearer),
            ];
            if let Some(sid) = sid {
                h.push(("Mcp-Session-Id", sid));
            }
            let params = if method == "initialize" {
                json!({"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"it","version":"0"}})
            } else {
                json!({})
            };
            let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let body = json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string();
            request(&addr, "POST", "/mcp", &h, body.into_bytes()).await
        }
    };
    let r = as_user(&a, "alice-1", None, 1, "initialize").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.headers["mcp-session-id"].to_str().unwrap().to_string();

    // Bob, on B (which has never served the session), for longer than its idle TTL.
    let t0 = Instant::now();
    let mut n = 2;
    while t0.elapsed() < Duration::from_millis(2200) {
        let r = as_user(&b, "bob-1", Some(sid.clone()), n, "ping").await;
        assert_eq!(r.status, 404, "another caller: {}", r.body);
        n += 1;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Bob's tries kept nothing alive: the session is gone, for its owner too, on both replicas.
    let r = as_user(&b, "alice-1", Some(sid.clone()), n, "ping").await;
    assert_eq!(
        r.status, 404,
        "the session outlived its idle TTL: {}",
        r.body
    );
    let r = as_user(&a, "alice-1", Some(sid.clone()), n + 1, "ping").await;
    assert_eq!(r.status, 404, "{}", r.body);

    // The owner's own use keeps a session alive, through the replica Bob tried first.
    let r = as_user(&a, "alice-1", None, n + 2, "initialize").await;
    let sid = r.headers["mcp-session-id"].to_str().unwrap().to_string();
    let r = as_user(&b, "bob-1", Some(sid.clone()), n + 3, "ping").await;
    assert_eq!(r.status, 404, "{}", r.body);
    for i in 0..8 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let r = as_user(&b, "alice-1", Some(sid.clone()), n + 4 + i, "ping").await;
        assert_eq!(
            r.status, 200,
            "the owner, after another caller loaded it first: {}",
            r.body
        );
    }
}

/// A DELETE re-sent to a replica that never served a legacy session (so never listened for the
/// others' end signals) succeeds too: the end is remembered in Redis for a minute.
#[tokio::test]
async fn a_delete_re_sent_to_a_replica_that_never_served_a_session_succeeds() {
    let redis = RedisServer::start();
    let url = redis.url();
    let (a, b) = (replica(&url).await, replica(&url).await);
    let la = a.initialize("2025-11-25", json!({})).await;
    let r = la.send("DELETE").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let lb = on(&la, &b);
    let r = lb.send("DELETE").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = lb.call(json!(2), "ping", json!({})).await;
    assert_eq!(r.status, 404, "{}", r.body);
    // A session id that never existed is still unknown there.
    let mut other = lb.clone();
    other.session = Some("0123456789abcdef0123456789abcdef".into());
    assert_eq!(other.send("DELETE").await.status, 404);
}
