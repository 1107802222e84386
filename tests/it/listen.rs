//! `subscriptions/listen` fan-out (2026-07-28) and the legacy GET stream, driven by the
//! trigger tools, read incrementally from open SSE streams.

use crate::harness::*;
use serde_json::{json, Value};
use std::time::Duration;

const QUIET: Duration = Duration::from_millis(300);

async fn listen(s: &HttpServer, id: &str, filter: Value) -> Stream {
    let st = s
        .modern_stream(
            json!(id),
            "subscriptions/listen",
            json!({"notifications": filter}),
            json!({}),
        )
        .await;
    assert_eq!(st.status, 200);
    assert_eq!(st.content_type(), "text/event-stream");
    assert_eq!(st.headers.get("x-accel-buffering").unwrap(), "no");
    st
}

async fn trigger(s: &HttpServer, tool: &str) {
    let r = s
        .modern(
            json!(tool),
            "tools/call",
            json!({"name":tool,"arguments":{}}),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_ne!(r.result()["isError"], true);
}

fn note(method: &str, sub: &str) -> Value {
    json!({"jsonrpc":"2.0","method":method,"params":{"_meta":{"io.modelcontextprotocol/subscriptionId":sub}}})
}

#[tokio::test]
async fn listen_fans_out_to_several_listeners_with_their_own_filters() {
    let s = HttpServer::start("everything").await;
    let mut tools_only = listen(&s, "L-tools", json!({"toolsListChanged":true})).await;
    let mut prompts_and_watch = listen(
        &s,
        "L-watch",
        json!({"promptsListChanged":true,"resourceSubscriptions":["test://watched-resource"]}),
    )
    .await;
    let mut tools_and_resources = listen(
        &s,
        "L-both",
        json!({"toolsListChanged":true,"resourcesListChanged":true,"bogus":true}),
    )
    .await;

    // The acknowledgement comes first and names exactly what is honoured.
    assert_eq!(
        tools_only.expect().await,
        json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{
            "_meta":{"io.modelcontextprotocol/subscriptionId":"L-tools"},"notifications":{"toolsListChanged":true}}})
    );
    assert_eq!(
        prompts_and_watch.expect().await["params"]["notifications"],
        json!({"promptsListChanged":true,"resourceSubscriptions":["test://watched-resource"]})
    );
    assert_eq!(
        tools_and_resources.expect().await["params"]["notifications"],
        json!({"toolsListChanged":true,"resourcesListChanged":true})
    );

    trigger(&s, "test_trigger_tool_change").await;
    assert_eq!(
        tools_only.expect().await,
        note("notifications/tools/list_changed", "L-tools")
    );
    assert_eq!(
        tools_and_resources.expect().await,
        note("notifications/tools/list_changed", "L-both")
    );
    // The dynamic tool really appeared.
    let names = s.modern(json!(1), "tools/list", json!({})).await.result()["tools"].clone();
    assert!(names
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "test_dynamic_tool"));

    trigger(&s, "test_trigger_prompt_change").await;
    assert_eq!(
        prompts_and_watch.expect().await,
        note("notifications/prompts/list_changed", "L-watch")
    );

    trigger(&s, "test_trigger_resource_update").await;
    let mut updated = note("notifications/resources/updated", "L-watch");
    updated["params"]["uri"] = json!("test://watched-resource");
    assert_eq!(prompts_and_watch.expect().await, updated);

    // Nobody got anything they did not opt into.
    assert!(tools_only.next(QUIET).await.is_none());
    assert!(tools_and_resources.next(QUIET).await.is_none());
    assert!(prompts_and_watch.next(QUIET).await.is_none());

    // Triggering again removes the dynamic tool: another list_changed.
    trigger(&s, "test_trigger_tool_change").await;
    assert_eq!(
        tools_only.expect().await,
        note("notifications/tools/list_changed", "L-tools")
    );
    let names = s.modern(json!(2), "tools/list", json!({})).await.result()["tools"].clone();
    assert!(!names
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "test_dynamic_tool"));
}

#[tokio::test]
async fn listen_never_carries_progress_or_logs_and_ignores_other_uris() {
    let s = HttpServer::start("everything").await;
    let mut l = listen(
        &s,
        "L",
        json!({"resourceSubscriptions":["test://static-text"]}),
    )
    .await;
    l.expect().await;
    // Progress and logs of other requests stay on their own streams.
    let r = s
        .modern(json!(1), "tools/call", json!({"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":"p","io.modelcontextprotocol/logLevel":"debug"}}))
        .await;
    assert_eq!(r.messages().len(), 4);
    trigger(&s, "test_trigger_resource_update").await;
    trigger(&s, "test_trigger_tool_change").await;
    assert!(l.next(QUIET).await.is_none());
}

#[tokio::test]
async fn listener_cap_and_disconnect_frees_the_slot() {
    let s = HttpServer::start_with("everything", &[("OXMCP_MAX_LISTENERS", "1")]).await;
    let mut first = listen(&s, "one", json!({"toolsListChanged":true})).await;
    first.expect().await;
    let r = s
        .modern(
            json!("two"),
            "subscriptions/listen",
            json!({"notifications":{"toolsListChanged":true}}),
        )
        .await;
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(r.error_code(), -32603);
    assert_eq!(r.json()["error"]["message"], "Too many open subscriptions");
    // Closing the first stream releases its slot (bounded wait for the server to notice).
    drop(first);
    let mut ok = false;
    for _ in 0..50 {
        let mut st = s
            .modern_stream(
                json!("three"),
                "subscriptions/listen",
                json!({"notifications":{"toolsListChanged":true}}),
                json!({}),
            )
            .await;
        if st.status == 200 {
            assert_eq!(
                st.expect().await["method"],
                "notifications/subscriptions/acknowledged"
            );
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        ok,
        "the slot was never released after the listener disconnected"
    );
}

#[tokio::test]
async fn legacy_get_stream_carries_list_changes_and_subscribed_updates() {
    let s = HttpServer::start("everything").await;
    let l = s.initialize("2025-11-25", json!({})).await;
    let h = l.headers();
    let mut h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
    h.push(("Accept", "text/event-stream"));
    let mut get = Stream::open(&s.addr, "GET", &h, Vec::new()).await;
    assert_eq!(get.status, 200);
    assert_eq!(get.content_type(), "text/event-stream");
    // Not subscribed yet: no update; a list change is sent to every session stream.
    trigger(&s, "test_trigger_resource_update").await;
    trigger(&s, "test_trigger_tool_change").await;
    assert_eq!(
        get.expect().await,
        json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})
    );
    assert_eq!(
        l.call(
            json!(1),
            "resources/subscribe",
            json!({"uri":"test://watched-resource"})
        )
        .await
        .result(),
        json!({})
    );
    trigger(&s, "test_trigger_resource_update").await;
    assert_eq!(
        get.expect().await,
        json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched-resource"}})
    );
    assert_eq!(
        l.call(
            json!(2),
            "resources/unsubscribe",
            json!({"uri":"test://watched-resource"})
        )
        .await
        .result(),
        json!({})
    );
    trigger(&s, "test_trigger_resource_update").await;
    assert!(get.next(QUIET).await.is_none());
    // DELETE ends the session and its stream.
    assert_eq!(l.send("DELETE").await.status, 200);
    assert!(
        get.ended_within(Duration::from_secs(5)).await,
        "the GET stream closes with its session"
    );
    // GET without Accept: text/event-stream.
    let h: Vec<(&str, &str)> = vec![("Accept", "application/json")];
    let s2 = s.initialize("2025-11-25", json!({})).await;
    let mut h2 = h.clone();
    let sid = s2.session.clone().unwrap();
    h2.push(("Mcp-Session-Id", &sid));
    let r = request(&s.addr, "GET", "/mcp", &h2, Vec::new()).await;
    assert_eq!(r.status, 406);
}
