//! The Tasks extension over real HTTP: a task outlives the request that created it, is polled
//! on new connections, takes input through `tasks/update`, can be cancelled, expires, stays
//! invisible to other callers, and a panicking handler fails its task without hurting the server.

use crate::harness::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn caps() -> Value {
    json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

async fn call(s: &HttpServer, id: u64, method: &str, mut params: Value) -> Resp {
    s.modern_with(json!(id), method, &mut params, caps()).await
}

async fn create(s: &HttpServer, tool: &str, args: Value) -> String {
    let r = call(s, 1, "tools/call", json!({"name": tool, "arguments": args})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let res = r.result();
    assert_eq!(res["resultType"], "task", "{res}");
    res["taskId"].as_str().expect("taskId").to_string()
}

/// Poll `tasks/get` (a new connection each time) until `done(task)` or 10 s.
async fn poll_until(s: &HttpServer, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let r = call(s, 2, "tasks/get", json!({"taskId": id})).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let t = r.result();
        if done(&t) {
            return t;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "task never got there: {t}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The empty acknowledgement of `tasks/update` and `tasks/cancel`: no task envelope.
fn assert_ack(ack: &Value) {
    assert_eq!(ack["resultType"], "complete", "{ack}");
    for k in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(ack.get(k).is_none(), "{k} in {ack}");
    }
}

fn terminal(t: &Value) -> bool {
    matches!(
        t["status"].as_str(),
        Some("completed" | "failed" | "cancelled")
    )
}

#[tokio::test]
async fn a_task_outlives_its_request_and_is_polled_from_new_connections() {
    let s = HttpServer::start("everything").await;
    let id = create(
        &s,
        "slow_compute",
        json!({"seconds": 1.0, "label": "outlive"}),
    )
    .await;
    // The request that created it is over; the task is still there and working.
    let t = call(&s, 3, "tasks/get", json!({"taskId": id}))
        .await
        .result();
    assert_eq!(t["status"], "working", "{t}");
    assert_eq!(t["resultType"], "complete");
    assert!(
        t["pollIntervalMs"].as_u64().is_some() && t["ttlMs"].as_u64().is_some(),
        "{t}"
    );
    // Progress reaches the task as its statusMessage.
    let t = poll_until(&s, &id, |t| t["statusMessage"].is_string() || terminal(t)).await;
    assert!(
        t["statusMessage"]
            .as_str()
            .unwrap_or_default()
            .contains('/')
            || terminal(&t),
        "{t}"
    );
    let t = poll_until(&s, &id, terminal).await;
    assert_eq!(t["status"], "completed", "{t}");
    assert_eq!(t["result"]["content"][0]["text"], "Computed outlive in 1 s");
}

#[tokio::test]
async fn a_legacy_session_task_is_polled_after_the_client_reconnects() {
    let s = HttpServer::start("everything").await;
    let a = s.initialize("2025-11-25", caps()).await;
    let r = a
        .call(
            json!(1),
            "tools/call",
            json!({"name":"slow_compute","arguments":{"seconds":0.5}}),
        )
        .await;
    let id = r.result()["taskId"].as_str().expect("a task").to_string();
    // The client goes away (its session ends) and comes back with a new session.
    assert!(a.send("DELETE").await.status < 300);
    let b = s.initialize("2025-11-25", caps()).await;
    let start = Instant::now();
    let t = loop {
        let t = b
            .call(json!(2), "tasks/get", json!({"taskId": id}))
            .await
            .result();
        if terminal(&t) || start.elapsed() > Duration::from_secs(10) {
            break t;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(t["status"], "completed", "{t}");
    assert_eq!(t["result"]["content"][0]["text"], "Computed job in 0.5 s");
}

#[tokio::test]
async fn input_required_then_update_then_completion() {
    let s = HttpServer::start("everything").await;
    let id = create(&s, "confirm_delete", json!({"filename": "a.txt"})).await;
    let t = poll_until(&s, &id, |t| t["status"] == "input_required" || terminal(t)).await;
    assert_eq!(t["status"], "input_required", "{t}");
    assert_eq!(
        t["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        t["inputRequests"]["confirm"]["params"]["message"],
        "Delete a.txt?"
    );
    // An unknown key is ignored; the right one resumes the handler.
    let ack = call(
        &s,
        4,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"nope": {"action": "accept"}}}),
    )
    .await
    .result();
    assert_ack(&ack);
    let t = call(&s, 5, "tasks/get", json!({"taskId": id}))
        .await
        .result();
    assert_eq!(t["status"], "input_required", "{t}");
    let ack = call(
        &s,
        6,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}}),
    )
    .await
    .result();
    assert_eq!(ack["resultType"], "complete");
    let t = poll_until(&s, &id, terminal).await;
    assert_eq!(t["status"], "completed", "{t}");
    assert_eq!(t["result"]["content"][0]["text"], "Deleted a.txt");
}

#[tokio::test]
async fn the_same_handler_asks_by_mrtr_in_a_plain_call() {
    // Without the extension, confirm_delete is a plain call and its elicitation an MRTR round.
    let s = HttpServer::start("everything").await;
    let mut p = json!({"name": "confirm_delete", "arguments": {"filename": "b.txt"}});
    let r = s
        .modern_with(json!(1), "tools/call", &mut p, json!({"elicitation": {}}))
        .await
        .result();
    assert_eq!(r["resultType"], "input_required", "{r}");
    let mut p = json!({"name": "confirm_delete", "arguments": {"filename": "b.txt"}, "requestState": r["requestState"],
                       "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
    let r = s
        .modern_with(json!(2), "tools/call", &mut p, json!({"elicitation": {}}))
        .await
        .result();
    assert_eq!(r["content"][0]["text"], "Deleted b.txt", "{r}");
}

#[tokio::test]
async fn cancel_settles_the_task_as_cancelled() {
    let s = HttpServer::start("everything").await;
    let id = create(&s, "slow_compute", json!({"seconds": 30})).await;
    let ack = call(&s, 2, "tasks/cancel", json!({"taskId": id}))
        .await
        .result();
    assert_ack(&ack);
    let t = call(&s, 3, "tasks/get", json!({"taskId": id}))
        .await
        .result();
    assert_eq!(t["status"], "cancelled", "{t}");
    // It stays cancelled (the stopped handler does not overwrite it) and cancel is idempotent.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let ack = call(&s, 4, "tasks/cancel", json!({"taskId": id}))
        .await
        .result();
    assert_ack(&ack);
    let t = call(&s, 5, "tasks/get", json!({"taskId": id}))
        .await
        .result();
    assert_eq!(t["status"], "cancelled", "{t}");
}

#[tokio::test]
async fn a_task_expires_after_its_ttl() {
    // The TTL runs from the task's creation: long enough that a loaded machine still sees the
    // task completed before it expires.
    let s = HttpServer::start_with("everything", &[("OXMCP_TASK_TTL_MS", "3000")]).await;
    let id = create(&s, "slow_compute", json!({"seconds": 0.1})).await;
    let t = poll_until(&s, &id, terminal).await;
    assert_eq!(t["status"], "completed");
    assert_eq!(t["ttlMs"], 3000);
    tokio::time::sleep(Duration::from_millis(3200)).await;
    let r = call(&s, 3, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(r.error_code(), -32602, "{}", r.body);
    assert!(r.body.contains("expired"), "{}", r.body);
    let r = call(&s, 4, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(r.error_code(), -32602, "{}", r.body);
}

async fn as_caller(s: &HttpServer, token: &str, id: u64, method: &str, mut params: Value) -> Resp {
    let (h, body) = modern_request(json!(id), method, &mut params, caps());
    let bearer = format!("Bearer {token}");
    let mut h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
    h.push(("authorization", &bearer));
    s.post(&h, &body).await
}

#[tokio::test]
async fn another_callers_task_is_not_found() {
    let tokens = json!({"alice": "alice-1", "bob": "bob-1"}).to_string();
    let s = HttpServer::start_with("everything", &[("OXMCP_TOKENS", &tokens)]).await;
    let r = as_caller(
        &s,
        "alice-1",
        1,
        "tools/call",
        json!({"name":"slow_compute","arguments":{"seconds":5}}),
    )
    .await;
    let id = r.result()["taskId"].as_str().expect("a task").to_string();
    assert_eq!(id.len(), 32, "128 random bits, hex");
    for (n, method) in ["tasks/get", "tasks/cancel", "tasks/update"]
        .into_iter()
        .enumerate()
    {
        let r = as_caller(
            &s,
            "bob-1",
            2 + n as u64,
            method,
            json!({"taskId": id, "inputResponses": {}}),
        )
        .await;
        assert_eq!(r.error_code(), -32602, "{method}: {}", r.body);
        assert!(r.body.contains("Task not found"), "{}", r.body);
    }
    let t = as_caller(&s, "alice-1", 9, "tasks/get", json!({"taskId": id}))
        .await
        .result();
    assert_eq!(t["status"], "working", "{t}");
}

#[tokio::test]
async fn a_panicking_task_fails_and_the_server_lives_on() {
    let s = HttpServer::start("everything").await;
    let id = create(&s, "protocol_error_job", json!({})).await;
    let t = poll_until(&s, &id, terminal).await;
    assert_eq!(t["status"], "failed", "{t}");
    assert_eq!(t["error"]["code"], -32603);
    assert!(t.get("result").is_none());
    let r = call(
        &s,
        5,
        "tools/call",
        json!({"name":"greet","arguments":{"name":"still here"}}),
    )
    .await
    .result();
    assert_eq!(r["content"][0]["text"], "Hello, still here!");
    // A tool error is not a failure: completed, isError.
    let id = create(&s, "failing_job", json!({})).await;
    let t = poll_until(&s, &id, terminal).await;
    assert_eq!(t["status"], "completed", "{t}");
    assert_eq!(t["result"]["isError"], true);
}
