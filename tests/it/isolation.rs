//! Failure isolation: a panicking handler fails only its own call; a client that disconnects
//! cancels its handler (within 100 ms).

use crate::harness::*;
use serde_json::json;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

#[tokio::test]
async fn handler_panic_is_an_error_result_and_the_server_keeps_serving() {
    let s = HttpServer::start("everything").await;
    for i in 0..3 {
        let r = s
            .modern(
                json!(i),
                "tools/call",
                json!({"name":"test_panic","arguments":{}}),
            )
            .await;
        assert_eq!(r.status, 200);
        let res = r.result();
        assert_eq!(res["isError"], true);
        assert_eq!(
            res["content"],
            json!([{"type":"text","text":"Error executing tool test_panic"}])
        );
        assert!(
            !r.body.contains("deliberate panic"),
            "panic text is not exposed by default"
        );
    }
    let r = s
        .modern(
            json!(9),
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":1}}),
        )
        .await;
    assert_eq!(r.result()["structuredContent"], json!({"result":2}));
}

#[tokio::test]
async fn client_disconnect_cancels_the_handler() {
    let mut s = HttpServer::start("everything").await;
    let mut params = json!({"name":"test_slow","arguments":{"ms":20000}});
    let (h, body) = modern_request(json!(1), "tools/call", &mut params, json!({}));
    let mut raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        s.addr,
        body.len()
    );
    for (k, v) in &h {
        raw.push_str(&format!("{k}: {v}\r\n"));
    }
    raw.push_str("\r\n");
    raw.push_str(&body);
    let mut conn = tokio::net::TcpStream::connect(&s.addr).await.unwrap();
    conn.write_all(raw.as_bytes()).await.unwrap();
    conn.flush().await.unwrap();
    // Let the request reach its handler (it sleeps 20 s unless cancelled).
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(s.stderr.try_recv().is_err(), "nothing on stderr yet");
    let dropped = Instant::now();
    drop(conn);
    let line = s
        .stderr_line("test_slow: cancelled", Duration::from_secs(5))
        .await;
    let elapsed = dropped.elapsed();
    assert!(
        line.is_some(),
        "the handler was not cancelled by the disconnect"
    );
    // Well under the handler's 20 s: the disconnect cancelled it, not its own end. (A tighter
    // bound would time the machine, not the server.)
    assert!(
        elapsed < Duration::from_secs(2),
        "cancelled {elapsed:?} after the disconnect"
    );
    // The server is still fine.
    assert_eq!(
        s.modern(json!(2), "tools/list", json!({})).await.status,
        200
    );
}

#[tokio::test]
async fn many_concurrent_calls_are_served_independently() {
    let s = std::sync::Arc::new(HttpServer::start("everything").await);
    let mut tasks = Vec::new();
    for i in 0..32i64 {
        let s = s.clone();
        tasks.push(tokio::spawn(async move {
            let name = if i % 4 == 0 { "test_panic" } else { "add" };
            let r = s
                .modern(
                    json!(i),
                    "tools/call",
                    json!({"name":name,"arguments":{"a":i,"b":1}}),
                )
                .await;
            (i, r.json())
        }));
    }
    for t in tasks {
        let (i, v) = t.await.unwrap();
        assert_eq!(v["id"], i);
        if i % 4 == 0 {
            assert_eq!(v["result"]["isError"], true);
        } else {
            assert_eq!(v["result"]["structuredContent"]["result"], i + 1);
        }
    }
}
