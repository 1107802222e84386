//! The security rules of the call pipeline (allow-lists, subscriptions, batches, listen
//! caps, session binding, MRTR state), against the real Rust `everything` server over HTTP with
//! named tokens: alice has allow-lists, bob sees everything.

use crate::harness::*;
use serde_json::{json, Value};
use std::time::Duration;

const QUIET: Duration = Duration::from_millis(400);

fn tokens() -> String {
    json!({
        "alice": {"tokens": ["alice-tok"],
                  "tools": ["test_simple_text", "test_input_required_result_multi_round"],
                  "resources": ["test://static-text"]},
        "bob": {"tokens": ["bob-tok"]}
    })
    .to_string()
}

async fn start(extra: &[(&str, &str)]) -> HttpServer {
    let t = tokens();
    let mut env = vec![("OXMCP_TOKENS", t.as_str())];
    env.extend_from_slice(extra);
    HttpServer::start_with("everything", &env).await
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// A modern request as `token`, with extra headers.
async fn modern_as(
    s: &HttpServer,
    token: &str,
    id: Value,
    method: &str,
    mut params: Value,
    extra: &[(&str, &str)],
) -> Resp {
    let (h, body) = modern_request(id, method, &mut params, json!({"elicitation": {}}));
    let auth = bearer(token);
    let mut h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
    h.push(("authorization", &auth));
    h.extend_from_slice(extra);
    s.post(&h, &body).await
}

async fn listen_as(s: &HttpServer, token: &str, id: &str, filter: Value) -> Stream {
    let mut params = json!({ "notifications": filter });
    let (h, body) = modern_request(json!(id), "subscriptions/listen", &mut params, json!({}));
    let auth = bearer(token);
    let mut h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
    h.push(("authorization", &auth));
    Stream::open(&s.addr, "POST", &h, body.into_bytes()).await
}

/// A legacy session created by `token`: (session id, headers with the token).
async fn legacy_as(s: &HttpServer, token: &str) -> String {
    let body = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"0"}}});
    let auth = bearer(token);
    let r = s.post(&[("authorization", &auth)], &body.to_string()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.headers["mcp-session-id"].to_str().unwrap().to_string();
    let n = legacy_post(
        s,
        token,
        &sid,
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    )
    .await;
    assert_eq!(n.status, 202);
    sid
}

async fn legacy_post(s: &HttpServer, token: &str, sid: &str, body: Value) -> Resp {
    let auth = bearer(token);
    s.post(
        &[
            ("authorization", &auth),
            ("mcp-session-id", sid),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        &body.to_string(),
    )
    .await
}

async fn trigger_update(s: &HttpServer) {
    let r = modern_as(
        s,
        "bob-tok",
        json!("t"),
        "tools/call",
        json!({"name":"test_trigger_resource_update","arguments":{}}),
        &[],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
}

/// The error of a refusal with the URI or name in it replaced, for comparing two refusals.
fn shape(r: &Resp, name: &str) -> (u16, i64, String) {
    let msg = r.json()["error"]["message"]
        .as_str()
        .unwrap_or("")
        .replace(name, "NAME");
    (r.status, r.error_code(), msg)
}

/// `completion/complete` on a hidden resource template is refused exactly as an
/// unknown one, and its completer does not run; a caller who may see it gets completions.
#[tokio::test]
async fn completion_of_a_hidden_resource_template_is_an_unknown_resource() {
    let s = start(&[]).await;
    let complete = |uri: &str| json!({"ref":{"type":"ref/resource","uri":uri},"argument":{"name":"id","value":"1"}});
    let hidden = "test://template/{id}/data";
    let none = "test://no-such/{id}";
    let h = modern_as(
        &s,
        "alice-tok",
        json!(1),
        "completion/complete",
        complete(hidden),
        &[],
    )
    .await;
    let n = modern_as(
        &s,
        "alice-tok",
        json!(2),
        "completion/complete",
        complete(none),
        &[],
    )
    .await;
    assert!(h.json().get("result").is_none(), "{}", h.body);
    assert_eq!(
        shape(&h, hidden),
        shape(&n, none),
        "{} / {}",
        h.body,
        n.body
    );
    let b = modern_as(
        &s,
        "bob-tok",
        json!(3),
        "completion/complete",
        complete(hidden),
        &[],
    )
    .await;
    assert_eq!(b.status, 200, "{}", b.body);
    assert!(b.result()["completion"]["values"].is_array(), "{}", b.body);
}

/// Resource-update subscriptions go through the allow-list, on subscribe and on
/// every event: an exact hidden URI and a prefix (`test:`) deliver nothing hidden.
#[tokio::test]
async fn subscriptions_never_deliver_hidden_resources() {
    let s = start(&[]).await;
    let mut exact = listen_as(
        &s,
        "alice-tok",
        "exact",
        json!({"resourceSubscriptions":["test://watched-resource"]}),
    )
    .await;
    let mut prefix = listen_as(
        &s,
        "alice-tok",
        "prefix",
        json!({"resourceSubscriptions":["test:"]}),
    )
    .await;
    let mut bobs = listen_as(
        &s,
        "bob-tok",
        "bob",
        json!({"resourceSubscriptions":["test://watched-resource"]}),
    )
    .await;
    for st in [&mut exact, &mut prefix, &mut bobs] {
        assert_eq!(st.status, 200);
        assert_eq!(
            st.expect().await["method"],
            "notifications/subscriptions/acknowledged"
        );
    }
    trigger_update(&s).await;
    assert_eq!(
        bobs.expect().await["params"]["uri"],
        "test://watched-resource"
    );
    assert!(
        exact.next(QUIET).await.is_none(),
        "a hidden URI was delivered"
    );
    assert!(
        prefix.next(QUIET).await.is_none(),
        "a prefix reached a hidden URI"
    );

    // Legacy: resources/subscribe + the GET stream.
    let sid = legacy_as(&s, "alice-tok").await;
    let auth = bearer("alice-tok");
    let h = [
        ("authorization", auth.as_str()),
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("accept", "text/event-stream"),
    ];
    let mut get = Stream::open(&s.addr, "GET", &h, Vec::new()).await;
    assert_eq!(get.status, 200);
    let hidden = legacy_post(
        &s,
        "alice-tok",
        &sid,
        json!({"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://watched-resource"}}),
    )
    .await;
    let unknown = legacy_post(
        &s,
        "alice-tok",
        &sid,
        json!({"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://no-such"}}),
    )
    .await;
    assert_eq!(
        (
            hidden.status,
            hidden.body.replace("test://watched-resource", "U")
        ),
        (unknown.status, unknown.body.replace("test://no-such", "U")),
        "a hidden URI is answered as an unknown one"
    );
    trigger_update(&s).await;
    assert!(
        get.next(QUIET).await.is_none(),
        "the GET stream got a hidden update"
    );
}

/// A batch is charged one rate-limit token per element, and its length is capped.
#[tokio::test]
async fn batches_are_charged_per_element_and_capped() {
    let s = HttpServer::start_with(
        "everything",
        &[
            ("OXMCP_RATE_LIMIT", "2"),
            ("OXMCP_LEGACY_STATELESS", "true"),
        ],
    )
    .await;
    let call = |i: usize| json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}});
    // No version header and no session (the server keeps none): served as 2025-03-26, where
    // batches exist.
    let batch: Vec<Value> = (0..20).map(call).collect();
    let r = s.post(&[], &Value::Array(batch).to_string()).await;
    assert_eq!(r.status, 429, "20 calls against a 2/s limit: {}", r.body);
    assert!(r.headers.get("retry-after").is_some());
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let r = s.post(&[], &json!([call(1), call(2)]).to_string()).await;
    assert_eq!(r.status, 200, "two calls fit: {}", r.body);
    assert_eq!(r.json().as_array().map(Vec::len), Some(2));

    let s = HttpServer::start("everything").await;
    let ping = |i: usize| json!({"jsonrpc":"2.0","id":i,"method":"ping"});
    let ok: Vec<Value> = (0..100).map(ping).collect();
    let r = s.post(&[], &Value::Array(ok).to_string()).await;
    assert_eq!(r.status, 200, "{}", &r.body[..r.body.len().min(200)]);
    let over: Vec<Value> = (0..101).map(ping).collect();
    let r = s.post(&[], &Value::Array(over).to_string()).await;
    assert_eq!(r.status, 400, "{}", &r.body[..r.body.len().min(200)]);
    assert_eq!(r.error_code(), -32600);
    assert!(r.body.contains("100"), "{}", r.body);
}

/// One caller cannot take every listen slot; another caller still gets one.
#[tokio::test]
async fn listen_slots_are_capped_per_caller() {
    let s = start(&[("OXMCP_MAX_LISTENERS_PER_CALLER", "2")]).await;
    let f = json!({"toolsListChanged":true});
    let mut mine = Vec::new();
    for i in 0..2 {
        let mut st = listen_as(&s, "alice-tok", &format!("a{i}"), f.clone()).await;
        assert_eq!(st.status, 200);
        st.expect().await;
        mine.push(st);
    }
    let third = listen_as(&s, "alice-tok", "a2", f.clone()).await;
    assert_eq!(third.status, 503, "a third stream for alice");
    let mut other = listen_as(&s, "bob-tok", "b0", f.clone()).await;
    assert_eq!(other.status, 200, "bob still gets a slot");
    other.expect().await;
}

/// A legacy session belongs to the caller who created it: another valid token gets
/// 404 on POST, GET and DELETE, as for an unknown session, and the session lives on.
#[tokio::test]
async fn a_session_is_bound_to_its_creator() {
    let s = start(&[]).await;
    let sid = legacy_as(&s, "alice-tok").await;
    let ping = json!({"jsonrpc":"2.0","id":1,"method":"ping"});
    assert_eq!(
        legacy_post(&s, "bob-tok", &sid, ping.clone()).await.status,
        404
    );
    let auth = bearer("bob-tok");
    let h = [
        ("authorization", auth.as_str()),
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("accept", "text/event-stream"),
    ];
    assert_eq!(s.send("GET", &h, "").await.status, 404);
    assert_eq!(s.send("DELETE", &h, "").await.status, 404);
    let r = legacy_post(&s, "alice-tok", &sid, ping).await;
    assert_eq!(r.status, 200, "alice's session survived: {}", r.body);
}

/// The `Mcp-Param-*` checks of a tool the caller may not see are not run: the
/// refusal is the one for an unknown tool, not a -32020 that reveals the tool.
#[tokio::test]
async fn param_headers_of_a_hidden_tool_reveal_nothing() {
    let s = start(&[]).await;
    let call = |name: &str| json!({"name": name, "arguments": {"region": "eu"}});
    let hidden = modern_as(
        &s,
        "alice-tok",
        json!(1),
        "tools/call",
        call("test_custom_header"),
        &[("mcp-param-region", "us")],
    )
    .await;
    let unknown = modern_as(
        &s,
        "alice-tok",
        json!(1),
        "tools/call",
        call("no_such_tool"),
        &[("mcp-param-region", "us")],
    )
    .await;
    assert_ne!(hidden.error_code(), -32020, "{}", hidden.body);
    assert_eq!(
        shape(&hidden, "test_custom_header"),
        shape(&unknown, "no_such_tool")
    );
    // bob sees the tool, so the header rule applies to him.
    let b = modern_as(
        &s,
        "bob-tok",
        json!(1),
        "tools/call",
        call("test_custom_header"),
        &[("mcp-param-region", "us")],
    )
    .await;
    assert_eq!(b.error_code(), -32020, "{}", b.body);
}

/// An MRTR `requestState` is bound to the call's arguments and the keys asked
/// for, and its content is not readable.
#[tokio::test]
async fn mrtr_state_is_bound_to_the_arguments_and_unreadable() {
    use base64::Engine;
    let s = HttpServer::start("everything").await;
    let name = "test_input_required_result_multi_round";
    let call = |id: i64, args: Value, extra: Value| {
        let mut p = json!({"name": name, "arguments": args});
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        let s = &s;
        async move {
            s.modern_with(json!(id), "tools/call", &mut p, json!({"elicitation":{}}))
                .await
        }
    };
    let state = |r: &Resp| r.result()["requestState"].as_str().unwrap().to_string();
    let r1 = call(1, json!({"topic":"a"}), json!({})).await;
    let s1 = state(&r1);
    let answer = json!({"step1":{"action":"accept","content":{"name":"Ada Lovelace"}}});
    let r2 = call(
        2,
        json!({"topic":"a"}),
        json!({"inputResponses": answer, "requestState": s1}),
    )
    .await;
    let s2 = state(&r2);
    // The second state carries Ada's answer, unreadably.
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(s2.split('.').next().unwrap())
        .unwrap_or_default();
    assert!(
        !String::from_utf8_lossy(&raw).contains("Ada"),
        "the answer is readable in requestState"
    );
    // Other arguments: refused.
    let r = call(
        3,
        json!({"topic":"b"}),
        json!({"inputResponses":{"step2":{"action":"accept","content":{"city":"Paris"}}},"requestState":s2}),
    )
    .await;
    assert_eq!(r.error_code(), -32602, "{}", r.body);
    assert_eq!(
        r.json()["error"]["message"],
        "Invalid or expired requestState"
    );
    // An input response nobody asked for is ignored (DIGEST: SHOULD ignore unknown keys): it
    // cannot overwrite the answer sealed in the state.
    let r = call(
        4,
        json!({"topic":"a"}),
        json!({"inputResponses":{"step1":{"action":"accept","content":{"name":"Eve"}},"step2":{"action":"accept","content":{"city":"Rome"}}},"requestState":s2}),
    )
    .await;
    assert_eq!(r.result()["resultType"], "complete", "{}", r.body);
    let text = r.result()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("Ada") && !text.contains("Eve"), "{text}");
    // The right continuation still completes.
    let r = call(
        5,
        json!({"topic":"a"}),
        json!({"inputResponses":{"step2":{"action":"accept","content":{"city":"Paris"}}},"requestState":s2}),
    )
    .await;
    assert_eq!(r.result()["resultType"], "complete", "{}", r.body);
}
