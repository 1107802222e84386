//! Scale-out on Redis with real processes: a real `redis-server` of the test's own on
//! a free loopback port, and two everything servers sharing it as replicas. What is held here:
//! a 2026-07-28 stateless call needs no Redis at all (it works with Redis stopped, or never
//! started); tasks created on one replica are read, answered and cancelled on the other;
//! list_changed reaches a listen stream on the other replica; rate limits are shared; a server
//! given a Redis but no state key refuses to start; the probes.
//! Missing `redis-server` fails these tests: `bash scripts/setup.sh` installs it.

use crate::harness::*;
use serde_json::{json, Value};
use std::process::Stdio;
use std::time::{Duration, Instant};

const STATE_KEY: &str = "it-redis-state-key-0123456789abcdef";

async fn replica(url: &str, extra: &[(&str, &str)]) -> HttpServer {
    let mut env = vec![("OXMCP_REDIS_URL", url), ("OXMCP_STATE_KEY", STATE_KEY)];
    env.extend_from_slice(extra);
    HttpServer::start_with("everything", &env).await
}

fn task_caps() -> Value {
    json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

async fn task_call(s: &HttpServer, method: &str, mut params: Value) -> Value {
    let r = s
        .modern_with(json!(1), method, &mut params, task_caps())
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.result()
}

async fn simple_call(s: &HttpServer) -> Resp {
    s.modern(
        json!(1),
        "tools/call",
        json!({"name": "test_simple_text", "arguments": {}}),
    )
    .await
}

async fn poll(s: &HttpServer, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let t = task_call(s, "tasks/get", json!({"taskId": id})).await;
        if done(&t) {
            return t;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "never: {t}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn get(s: &HttpServer, path: &str) -> Resp {
    request(&s.addr, "GET", path, &[], Vec::new()).await
}

#[tokio::test]
async fn modern_calls_need_no_redis() {
    let mut redis = RedisServer::start();
    let s = replica(&redis.url(), &[]).await;
    assert_eq!(simple_call(&s).await.result()["content"][0]["type"], "text");
    let r = get(&s, "/readyz").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), json!({"status": "ok", "redis": "up"}));
    redis.stop();
    // Redis stopped: stateless calls go on, fast, every one of them.
    let start = Instant::now();
    for _ in 0..20 {
        let r = simple_call(&s).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.result()["content"][0]["type"], "text");
    }
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    // Ready still (taking every replica out of the balancer would stop these calls too).
    let r = get(&s, "/readyz").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), json!({"status": "ok", "redis": "down"}));
    assert_eq!(get(&s, "/healthz").await.status, 200);
    // A Redis that never was: the server starts and serves.
    let nowhere = replica("redis://127.0.0.1:9/", &[]).await;
    assert_eq!(simple_call(&nowhere).await.status, 200);
}

#[tokio::test]
async fn a_redis_without_a_state_key_refuses_to_start() {
    let out = tokio::process::Command::new(bin("everything"))
        .args(["--http", "127.0.0.1:0"])
        .env("OXMCP_REDIS_URL", "redis://127.0.0.1:9/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    let out = tokio::time::timeout(Duration::from_secs(20), out)
        .await
        .expect("it exits")
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("state_key (OXMCP_STATE_KEY)"), "{err}");
}

#[tokio::test]
async fn tasks_are_read_answered_and_cancelled_on_any_replica() {
    let redis = RedisServer::start();
    let a = replica(&redis.url(), &[]).await;
    let b = replica(&redis.url(), &[]).await;
    // Created on A, its input answered on B: B forwards the answer to A, where the handler waits.
    let t = task_call(
        &a,
        "tools/call",
        json!({"name": "confirm_delete", "arguments": {"filename": "x.txt"}}),
    )
    .await;
    let id = t["taskId"].as_str().expect("a task").to_string();
    let t = poll(&b, &id, |t| t["status"] == "input_required").await;
    assert_eq!(
        t["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    task_call(
        &b,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}}),
    )
    .await;
    // Once the update is answered, a tasks/get anywhere sees the key answered (no polling: a
    // balancer sends the next request to any replica at once).
    let t = task_call(&b, "tasks/get", json!({"taskId": id})).await;
    assert_ne!(t["status"], "input_required", "{t}");
    assert!(t["inputRequests"].get("confirm").is_none(), "{t}");
    let t = poll(&b, &id, |t| t["status"] == "completed").await;
    assert_eq!(t["result"]["content"][0]["text"], "Deleted x.txt");
    // Created on A, cancelled on B: the record says so everywhere, and A's handler stops (a
    // handler that ran on would try to complete it; the record stays cancelled).
    let t = task_call(
        &a,
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": 2}}),
    )
    .await;
    let id = t["taskId"].as_str().unwrap().to_string();
    assert_eq!(poll(&b, &id, |_| true).await["status"], "working");
    task_call(&b, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(poll(&a, &id, |_| true).await["status"], "cancelled");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(poll(&a, &id, |_| true).await["status"], "cancelled");
}

#[tokio::test]
async fn a_list_change_on_one_replica_reaches_a_listener_on_another() {
    let redis = RedisServer::start();
    let a = replica(&redis.url(), &[]).await;
    let b = replica(&redis.url(), &[]).await;
    let mut st = a
        .modern_stream(
            json!("L"),
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
            json!({}),
        )
        .await;
    assert_eq!(st.status, 200);
    let _ack = st.expect().await;
    // A's subscription to Redis starts with the stream: trigger on B until it is live.
    let start = Instant::now();
    loop {
        let r = b
            .modern(
                json!(2),
                "tools/call",
                json!({"name": "test_trigger_tool_change", "arguments": {}}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        if let Some(n) = st.next(Duration::from_millis(500)).await {
            assert_eq!(n["method"], "notifications/tools/list_changed", "{n}");
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "A never heard B");
    }
}

#[tokio::test]
async fn rate_limits_are_shared_by_the_replicas() {
    let redis = RedisServer::start();
    let limit = [
        ("OXMCP_RATE_LIMIT", r#"{"rate": 0.05, "burst": 3}"#),
        ("OXMCP_RATE_LIMIT_STORE", "redis"),
    ];
    let a = replica(&redis.url(), &limit).await;
    let b = replica(&redis.url(), &limit).await;
    assert_eq!(simple_call(&a).await.status, 200);
    assert_eq!(simple_call(&b).await.status, 200);
    assert_eq!(simple_call(&a).await.status, 200);
    let r = simple_call(&b).await;
    assert_eq!(r.status, 429, "{}", r.body);
    let wait: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=20).contains(&wait), "{wait}");
}
