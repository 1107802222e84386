//! stdio: the modern probe, `initialize` selecting legacy for the process, line limits,
//! concurrency, `notifications/cancelled`, and a clean exit at EOF.

use crate::harness::*;
use serde_json::{json, Value};
use std::time::Duration;

fn modern(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":modern_params(params, json!({}))})
}

#[tokio::test]
async fn discover_probe_then_modern_requests() {
    let mut s = StdioServer::start("everything");
    s.send(&modern(json!("probe"), "server/discover", json!({})))
        .await;
    let (r, notes) = s.recv_response(&json!("probe")).await;
    assert!(notes.is_empty());
    let res = &r["result"];
    assert_eq!(res["resultType"], "complete");
    assert_eq!(res["supportedVersions"][0], "2026-07-28");
    assert_eq!(res["ttlMs"], 0);
    assert_eq!(res["cacheScope"], "private");
    s.send(&modern(
        json!(2),
        "tools/call",
        json!({"name":"add","arguments":{"a":2,"b":3}}),
    ))
    .await;
    let (r, _) = s.recv_response(&json!(2)).await;
    assert_eq!(r["result"]["structuredContent"], json!({"result":5}));
    // Modern validation applies: no _meta → -32602; an unsupported version → -32022.
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}))
        .await;
    let (r, _) = s.recv_response(&json!(3)).await;
    assert_eq!(r["error"]["code"], -32602);
    s.send(&json!({"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}})).await;
    let (r, _) = s.recv_response(&json!(4)).await;
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(r["error"]["data"]["requested"], "1999-01-01");
    // Removed methods.
    s.send(&modern(json!(5), "ping", json!({}))).await;
    let (r, _) = s.recv_response(&json!(5)).await;
    assert_eq!(r["error"]["code"], -32601);
    let status = s.eof_exit(Duration::from_secs(10)).await;
    assert_eq!(status.code(), Some(0));
}

#[tokio::test]
async fn initialize_selects_legacy_for_the_process() {
    let mut s = StdioServer::start("everything");
    // Before initialize, a request without _meta is not legacy.
    s.send(&json!({"jsonrpc":"2.0","id":0,"method":"ping"}))
        .await;
    let (r, _) = s.recv_response(&json!(0)).await;
    assert_eq!(r["error"]["code"], -32602);
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}})).await;
    let (r, _) = s.recv_response(&json!(1)).await;
    assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(r["result"]["serverInfo"]["name"], "oxmcp-everything");
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
    s.send(&json!({"jsonrpc":"2.0","id":2,"method":"ping"}))
        .await;
    let (r, _) = s.recv_response(&json!(2)).await;
    assert_eq!(r, json!({"jsonrpc":"2.0","id":2,"result":{}}));
    s.send(
        &json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_simple_text"}}),
    )
    .await;
    let (r, _) = s.recv_response(&json!(3)).await;
    assert_eq!(
        r["result"],
        json!({"content":[{"type":"text","text":"This is a simple text response for testing."}]})
    );
    s.send(
        &json!({"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://nope"}}),
    )
    .await;
    let (r, _) = s.recv_response(&json!(4)).await;
    assert_eq!(r["error"]["code"], -32002);
    // A modern request is still served, statelessly, in the same process.
    s.send(&modern(
        json!(5),
        "resources/read",
        json!({"uri":"test://nope"}),
    ))
    .await;
    let (r, _) = s.recv_response(&json!(5)).await;
    assert_eq!(r["error"]["code"], -32602);
    s.send(&modern(json!(6), "tools/list", json!({}))).await;
    let (r, _) = s.recv_response(&json!(6)).await;
    assert_eq!(r["result"]["resultType"], "complete");
    // 2025-06-18 removed JSON-RPC batches again: one -32600 for the array, nothing dispatched.
    s.send(
        &json!([{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":8,"method":"ping"}]),
    )
    .await;
    let r = s.recv().await;
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert_eq!(r["id"], Value::Null);
    assert_eq!(s.eof_exit(Duration::from_secs(10)).await.code(), Some(0));
}

#[tokio::test]
async fn batches_only_in_a_2025_03_26_session() {
    let mut s = StdioServer::start("everything");
    // Before initialize there is no version that has batches.
    s.send(&json!([{"jsonrpc":"2.0","id":1,"method":"ping"}]))
        .await;
    assert_eq!(s.recv().await["error"]["code"], -32600);
    s.send(&json!({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}})).await;
    let (r, _) = s.recv_response(&json!(2)).await;
    assert_eq!(r["result"]["protocolVersion"], "2025-03-26");
    s.send(
        &json!([{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":8,"method":"ping"}]),
    )
    .await;
    assert_eq!(
        s.recv().await,
        json!([{"jsonrpc":"2.0","id":7,"result":{}},{"jsonrpc":"2.0","id":8,"result":{}}])
    );
    // The same batch rule as HTTP (one owner in the server): `initialize` is refused inside one.
    s.send(&json!([{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}},{"jsonrpc":"2.0","id":10,"method":"ping"}])).await;
    let r = s.recv().await;
    assert_eq!(r[0]["id"], 9, "{r}");
    assert_eq!(r[0]["error"]["code"], -32600, "{r}");
    assert_eq!(r[1], json!({"jsonrpc":"2.0","id":10,"result":{}}));
    assert_eq!(s.eof_exit(Duration::from_secs(10)).await.code(), Some(0));
}

#[tokio::test]
async fn oversize_line_gets_a_clear_error_and_the_server_keeps_serving() {
    let mut s = StdioServer::start_with("everything", &[("OXMCP_MAX_LINE_BYTES", "4096")]);
    let big = modern(
        json!(1),
        "tools/call",
        json!({"name":"echo","arguments":{"text":"x".repeat(10_000)}}),
    );
    s.send(&big).await;
    let r = s.recv().await;
    assert_eq!(
        r,
        json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Message exceeds the 4096-byte line limit"}})
    );
    // Just under the limit is fine, and so is what follows.
    let ok = modern(
        json!(2),
        "tools/call",
        json!({"name":"echo","arguments":{"text":"y".repeat(3000)}}),
    );
    assert!(ok.to_string().len() < 4096);
    s.send(&ok).await;
    let (r, _) = s.recv_response(&json!(2)).await;
    assert_eq!(
        r["result"]["content"][0]["text"].as_str().unwrap().len(),
        3000
    );
    // Garbage lines are parse errors; blank lines are ignored.
    s.send_raw(b"{not json").await;
    let r = s.recv().await;
    assert_eq!(r["error"]["code"], -32700);
    assert!(r.get("id").is_none());
    s.send_raw(b"   ").await;
    s.send(&modern(json!(3), "tools/list", json!({}))).await;
    let (r, notes) = s.recv_response(&json!(3)).await;
    assert!(notes.is_empty(), "{notes:?}");
    assert!(r["result"]["tools"].is_array());
    assert_eq!(s.eof_exit(Duration::from_secs(10)).await.code(), Some(0));
}

#[tokio::test]
async fn default_line_limit_is_four_mebibytes() {
    let mut s = StdioServer::start("everything");
    // Padded with whitespace between JSON tokens: no string comes near the 1 MiB string cap.
    let line = |id: u64, len: usize| {
        let m = modern(
            json!(id),
            "tools/call",
            json!({"name":"echo","arguments":{"text":"padded"}}),
        )
        .to_string();
        format!("{m}{}", " ".repeat(len - m.len()))
    };
    s.send_raw(line(1, 4 * 1024 * 1024 + 1).as_bytes()).await;
    let r = s.recv().await;
    assert_eq!(
        r["error"]["message"],
        "Message exceeds the 4194304-byte line limit"
    );
    s.send_raw(line(2, 4 * 1024 * 1024).as_bytes()).await;
    let (r, _) = s.recv_response(&json!(2)).await;
    assert_eq!(r["result"]["content"][0]["text"], "padded");
}

#[tokio::test]
async fn requests_run_concurrently_and_cancelled_ones_get_no_response() {
    let mut s = StdioServer::start("everything");
    s.send(&modern(
        json!("slow"),
        "tools/call",
        json!({"name":"test_slow","arguments":{"ms":20000}}),
    ))
    .await;
    s.send(&modern(
        json!("fast"),
        "tools/call",
        json!({"name":"test_simple_text","arguments":{}}),
    ))
    .await;
    // The fast one is answered while the slow one runs.
    let r = s.recv().await;
    assert_eq!(r["id"], "fast");
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user"}})).await;
    let line = s
        .stderr_line("test_slow: cancelled", Duration::from_secs(5))
        .await;
    assert!(line.is_some(), "the slow handler saw the cancellation");
    // Nothing is ever written for the cancelled request; the next message is the next answer.
    s.send(&modern(json!("after"), "tools/list", json!({})))
        .await;
    let r = s.recv().await;
    assert_eq!(r["id"], "after", "unexpected message: {r}");
    assert!(s.recv_within(Duration::from_millis(300)).await.is_none());
    // Unknown or malformed cancellations are ignored.
    s.send(
        &json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}),
    )
    .await;
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled"}))
        .await;
    s.send(&modern(json!("last"), "server/discover", json!({})))
        .await;
    assert_eq!(s.recv().await["id"], "last");
    assert_eq!(s.eof_exit(Duration::from_secs(10)).await.code(), Some(0));
}

#[tokio::test]
async fn eof_lets_in_flight_requests_finish_then_exits_zero() {
    let mut s = StdioServer::start("everything");
    s.send(&modern(
        json!(1),
        "tools/call",
        json!({"name":"test_slow","arguments":{"ms":300}}),
    ))
    .await;
    let mut child_out = Vec::new();
    // Close stdin while the call is in flight: its answer still arrives, then the process exits 0.
    let status = {
        let r = s.recv_within(Duration::from_millis(50)).await;
        assert!(r.is_none());
        drop_stdin_and_collect(&mut s, &mut child_out).await
    };
    assert_eq!(status.code(), Some(0));
    assert_eq!(child_out.len(), 1, "{child_out:?}");
    assert_eq!(child_out[0]["result"]["content"][0]["text"], "slept 300 ms");
}

async fn drop_stdin_and_collect(
    s: &mut StdioServer,
    out: &mut Vec<Value>,
) -> std::process::ExitStatus {
    s.close_stdin_only();
    while let Some(v) = s.recv_within(Duration::from_secs(10)).await {
        out.push(v);
    }
    tokio::time::timeout(Duration::from_secs(10), s.child.wait())
        .await
        .expect("exit after EOF")
        .unwrap()
}

/// A client that pipelines its first requests behind `initialize` (without waiting for the
/// answer) must still be served as legacy: `initialize` finishes before the next line is read.
#[tokio::test]
async fn requests_pipelined_behind_initialize_are_legacy() {
    let mut s = StdioServer::start("everything");
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipeliner","version":"0"}}}))
        .await;
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
    s.send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}))
        .await;
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"ping"}))
        .await;
    let mut seen = Vec::new();
    while seen.len() < 3 {
        match s.recv_within(Duration::from_secs(10)).await {
            Some(m) => seen.push(m),
            None => panic!(
                "only {} responses: {:?}",
                seen.len(),
                seen.iter().map(|m| m["id"].clone()).collect::<Vec<_>>()
            ),
        }
    }
    let by_id = |id: i64| {
        seen.iter()
            .find(|m| m["id"] == id)
            .cloned()
            .expect("a response per request")
    };
    let (init, list, ping) = (by_id(1), by_id(2), by_id(3));
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert!(
        list["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{list}"
    );
    assert!(
        list["result"].get("resultType").is_none(),
        "legacy shape: {list}"
    );
    assert_eq!(ping["result"], json!({}));
}
