//! Progress, logging and input requests on real streams: SSE ordering for modern requests,
//! log filtering by level, and the same handlers driving server→client requests in legacy
//! 2025-11-25 sessions (HTTP SSE and stdio).

use crate::harness::*;
use serde_json::{json, Value};
use std::time::Duration;

#[tokio::test]
async fn progress_notifications_precede_the_result_in_order_on_sse() {
    let s = HttpServer::start("everything").await;
    let mut st = s
        .modern_stream(json!(1), "tools/call", json!({"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":"p-1"}}), json!({}))
        .await;
    assert_eq!(st.status, 200);
    assert_eq!(st.content_type(), "text/event-stream");
    assert_eq!(st.headers.get("x-accel-buffering").unwrap(), "no");
    for p in [0, 50, 100] {
        let m = st.expect().await;
        assert_eq!(
            m,
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-1","progress":p,"total":100,"message":format!("Completed step {p}")}})
        );
    }
    let last = st.expect().await;
    assert_eq!(last["id"], 1);
    assert_eq!(
        last["result"]["content"][0]["text"],
        "Progress test completed"
    );
    assert_eq!(last["result"]["resultType"], "complete");
    assert!(
        st.ended_within(Duration::from_secs(5)).await,
        "the stream ends after the response"
    );
    assert!(st.next(Duration::from_millis(10)).await.is_none());

    // An integer token works too; without a token the response is plain JSON.
    let mut st = s
        .modern_stream(
            json!(2),
            "tools/call",
            json!({"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":7}}),
            json!({}),
        )
        .await;
    assert_eq!(st.expect().await["params"]["progressToken"], 7);
    let r = s
        .modern(
            json!(3),
            "tools/call",
            json!({"name":"test_tool_with_progress","arguments":{}}),
        )
        .await;
    assert!(r.content_type().starts_with("application/json"));
    assert_eq!(r.messages().len(), 1);
    assert_eq!(r.result()["content"][0]["text"], "Progress test completed");
}

async fn logs_for(s: &HttpServer, level: Option<&str>) -> (Vec<Value>, Value, String) {
    let mut params = json!({"name":"test_tool_with_logging","arguments":{}});
    if let Some(l) = level {
        params["_meta"] = json!({"io.modelcontextprotocol/logLevel": l});
    }
    let r = s.modern(json!("log"), "tools/call", params).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let mut msgs = r.messages();
    let last = msgs.pop().unwrap();
    (msgs, last, r.content_type().to_string())
}

#[tokio::test]
async fn log_notifications_follow_the_request_log_level() {
    let s = HttpServer::start("everything").await;
    // No logLevel: no notifications/message at all, plain JSON.
    let (notes, last, ct) = logs_for(&s, None).await;
    assert!(notes.is_empty(), "{notes:?}");
    assert!(ct.starts_with("application/json"));
    assert_eq!(
        last["result"]["content"][0]["text"],
        "Logging test completed"
    );
    // warning: the tool's info messages are filtered out.
    let (notes, last, ct) = logs_for(&s, Some("warning")).await;
    assert!(notes.is_empty(), "{notes:?}");
    assert!(ct.starts_with("application/json"));
    assert_eq!(
        last["result"]["content"][0]["text"],
        "Logging test completed"
    );
    // info and debug: all three, in order, before the result.
    for level in ["info", "debug"] {
        let (notes, last, ct) = logs_for(&s, Some(level)).await;
        assert_eq!(ct, "text/event-stream");
        let expected: Vec<Value> = ["Tool execution started", "Tool processing data", "Tool execution completed"]
            .iter()
            .map(|d| json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"test_tool_with_logging","data":d}}))
            .collect();
        assert_eq!(notes, expected, "{level}");
        assert_eq!(last["id"], "log");
    }
    // An invalid level is -32602 (HTTP 400).
    let r = s.modern(json!(1), "tools/call", json!({"name":"test_tool_with_logging","arguments":{},"_meta":{"io.modelcontextprotocol/logLevel":"chatty"}})).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.error_code(), -32602);
}

#[tokio::test]
async fn legacy_session_log_level_is_set_by_logging_set_level() {
    let s = HttpServer::start("everything").await;
    let l = s.initialize("2025-11-25", json!({})).await;
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_tool_with_logging","arguments":{}}});
    assert_eq!(
        l.call(json!(0), "logging/setLevel", json!({"level":"error"}))
            .await
            .result(),
        json!({})
    );
    let r = l.post(&call).await;
    assert_eq!(
        r.messages().len(),
        1,
        "error level filters info: {}",
        r.body
    );
    assert_eq!(
        l.call(json!(0), "logging/setLevel", json!({"level":"info"}))
            .await
            .result(),
        json!({})
    );
    let r = l.post(&call).await;
    let msgs = r.messages();
    assert_eq!(msgs.len(), 4, "{}", r.body);
    assert_eq!(msgs[0]["method"], "notifications/message");
    assert_eq!(msgs[0]["params"]["data"], "Tool execution started");
    assert!(msgs[3]["result"].get("resultType").is_none());
}

/// Drive one legacy tool call whose handler asks the client: answer each server→client request
/// with `answer(method, params)` by POSTing a JSON-RPC response. Returns the requests seen and
/// the final response.
async fn legacy_round_trip(
    l: &Legacy,
    id: Value,
    tool: &str,
    args: Value,
    answer: impl Fn(&str, &Value) -> Value,
) -> (Vec<Value>, Value) {
    let mut st = l.stream(&json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool,"arguments":args}})).await;
    assert_eq!(st.status, 200);
    assert_eq!(st.content_type(), "text/event-stream");
    let mut asked = Vec::new();
    loop {
        let m = st.expect().await;
        if m.get("method").is_some() && m.get("id").is_some() {
            // A server→client request on the POST's stream.
            let rid = m["id"].clone();
            assert!(rid.as_str().is_some_and(|s| s.starts_with("oxmcp-")), "{m}");
            let result = answer(m["method"].as_str().unwrap(), &m["params"]);
            let r = l
                .post(&json!({"jsonrpc":"2.0","id":rid,"result":result}))
                .await;
            assert_eq!(r.status, 202, "{}", r.body);
            assert!(r.body.is_empty());
            asked.push(m);
        } else if m.get("id") == Some(&id) {
            return (asked, m);
        }
    }
}

#[tokio::test]
async fn one_handler_elicits_via_mrtr_and_via_a_legacy_session() {
    let s = HttpServer::start("everything").await;
    let tool = "test_input_required_result_elicitation";
    // Modern: input_required, then the retry with the answer.
    let r = s
        .modern_with(
            json!(1),
            "tools/call",
            &mut json!({"name":tool,"arguments":{}}),
            json!({"elicitation":{}}),
        )
        .await;
    let res = r.result();
    assert_eq!(res["resultType"], "input_required");
    let ask = res["inputRequests"]["user_name"].clone();
    let state = res["requestState"].clone();
    let r = s
        .modern_with(
            json!(2),
            "tools/call",
            &mut json!({"name":tool,"arguments":{},"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}},"requestState":state}),
            json!({"elicitation":{}}),
        )
        .await;
    let modern_text = r.result()["content"][0]["text"].clone();
    assert_eq!(modern_text, "Hello, Ada!");

    // Legacy 2025-11-25: a real elicitation/create on the POST's SSE stream.
    let l = s.initialize("2025-11-25", json!({"elicitation":{}})).await;
    let (asked, resp) = legacy_round_trip(&l, json!("L1"), tool, json!({}), |method, _| {
        assert_eq!(method, "elicitation/create");
        json!({"action":"accept","content":{"name":"Ada"}})
    })
    .await;
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["method"], ask["method"]);
    assert_eq!(
        asked[0]["params"], ask["params"],
        "the same request in both eras"
    );
    assert_eq!(
        resp,
        json!({"jsonrpc":"2.0","id":"L1","result":{"content":[{"type":"text","text":"Hello, Ada!"}]}})
    );

    // The conformance tool (username/email form) the same way.
    let (asked, resp) = legacy_round_trip(
        &l,
        json!("L2"),
        "test_elicitation",
        json!({"message":"Who are you?"}),
        |_, p| {
            assert_eq!(p["message"], "Who are you?");
            json!({"action":"accept","content":{"username":"ada","email":"ada@example.com"}})
        },
    )
    .await;
    assert_eq!(
        asked[0]["params"]["requestedSchema"]["required"],
        json!(["username", "email"])
    );
    assert_eq!(
        resp["result"]["content"][0]["text"],
        "User response: {\"action\":\"accept\",\"content\":{\"email\":\"ada@example.com\",\"username\":\"ada\"}}"
    );
}

#[tokio::test]
async fn legacy_sampling_and_client_errors() {
    let s = HttpServer::start("everything").await;
    let l = s.initialize("2025-11-25", json!({"sampling":{}})).await;
    let (asked, resp) = legacy_round_trip(
        &l,
        json!(5),
        "test_sampling",
        json!({"prompt":"Capital of France?"}),
        |m, p| {
            assert_eq!(m, "sampling/createMessage");
            assert_eq!(p["messages"][0]["content"]["text"], "Capital of France?");
            json!({"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"})
        },
    )
    .await;
    assert_eq!(asked.len(), 1);
    assert_eq!(resp["result"]["content"][0]["text"], "LLM response: Paris");

    // The client answers the server's request with an error: the call fails with that error.
    let mut st = l.stream(&json!({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":"x"}}})).await;
    let req = st.expect().await;
    let r = l.post(&json!({"jsonrpc":"2.0","id":req["id"],"error":{"code":-1,"message":"User rejected sampling request"}})).await;
    assert_eq!(r.status, 202);
    let resp = st.expect().await;
    assert_eq!(resp["id"], 6);
    assert_eq!(resp["error"]["code"], -1);
    assert!(resp["error"]["message"]
        .as_str()
        .unwrap()
        .contains("User rejected sampling request"));

    // A session that did not declare elicitation is never sent elicitation/create.
    let r = l
        .call(
            json!(7),
            "tools/call",
            json!({"name":"test_input_required_result_elicitation","arguments":{}}),
        )
        .await;
    assert_eq!(r.messages().len(), 1, "{}", r.body);
    assert_eq!(r.error_code(), -32021);
}

#[tokio::test]
async fn legacy_stdio_elicitation_and_progress() {
    let mut s = StdioServer::start("everything");
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}})).await;
    let (r, _) = s.recv_response(&json!(1)).await;
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
    s.send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_input_required_result_elicitation","arguments":{}}})).await;
    let req = s.recv().await;
    assert_eq!(req["method"], "elicitation/create");
    assert_eq!(req["params"]["message"], "What is your name?");
    s.send(&json!({"jsonrpc":"2.0","id":req["id"],"result":{"action":"accept","content":{"name":"Grace"}}})).await;
    let (r, notes) = s.recv_response(&json!(2)).await;
    assert!(notes.is_empty());
    assert_eq!(
        r["result"],
        json!({"content":[{"type":"text","text":"Hello, Grace!"}]})
    );
    // Progress on stdout, before the result, in order.
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":"t"}}})).await;
    let (r, notes) = s.recv_response(&json!(3)).await;
    let progress: Vec<&Value> = notes.iter().map(|n| &n["params"]["progress"]).collect();
    assert_eq!(progress, [&json!(0), &json!(50), &json!(100)]);
    assert!(notes
        .iter()
        .all(|n| n["method"] == "notifications/progress" && n["params"]["progressToken"] == "t"));
    assert_eq!(r["result"]["content"][0]["text"], "Progress test completed");
    assert_eq!(s.eof_exit(Duration::from_secs(10)).await.code(), Some(0));
}
