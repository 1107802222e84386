//! Multi round-trip requests (2026-07-28): exact `input_required` payloads, sealed
//! `requestState` (tampered, expired, cross-tool, cross-method rejected; shared key across
//! processes accepted), capabilities and answer validation.

use crate::harness::*;
use serde_json::{json, Value};
use std::time::Duration;

fn elicit() -> Value {
    json!({"elicitation":{}})
}

async fn tool(s: &HttpServer, id: i64, name: &str, extra: Value, caps: Value) -> Resp {
    let mut p = json!({"name": name, "arguments": {}});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            p[k] = v;
        }
    }
    s.modern_with(json!(id), "tools/call", &mut p, caps).await
}

/// Split an `input_required` result into (result without requestState, requestState).
fn input_required(r: &Resp) -> (Value, String) {
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.content_type().starts_with("application/json"));
    let mut res = r.result();
    assert_eq!(res["resultType"], "input_required", "{res}");
    assert!(
        res.get("ttlMs").is_none() && res.get("cacheScope").is_none(),
        "input_required is never cacheable"
    );
    let state = res
        .as_object_mut()
        .unwrap()
        .remove("requestState")
        .and_then(|s| s.as_str().map(str::to_string))
        .expect("requestState");
    assert!(!state.is_empty());
    res.as_object_mut()
        .unwrap()
        .remove("_meta")
        .expect("serverInfo in _meta");
    (res, state)
}

#[tokio::test]
async fn multi_round_exact_payloads() {
    let s = HttpServer::start("everything").await;
    let name = "test_input_required_result_multi_round";
    // Round 1: only step1 is asked.
    let (res, state1) = input_required(&tool(&s, 1, name, json!({}), elicit()).await);
    assert_eq!(
        res,
        json!({"resultType":"input_required","inputRequests":{"step1":{"method":"elicitation/create","params":{
            "mode":"form","message":"Step 1: your name?",
            "requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}})
    );
    // Round 2: step1 answered, step2 asked, new state (carrying step1's answer).
    let r = tool(&s, 2, name, json!({"inputResponses":{"step1":{"action":"accept","content":{"name":"Ada"}}},"requestState":state1}), elicit()).await;
    let (res, state2) = input_required(&r);
    assert_eq!(
        res,
        json!({"resultType":"input_required","inputRequests":{"step2":{"method":"elicitation/create","params":{
            "mode":"form","message":"Step 2: your city?",
            "requestedSchema":{"type":"object","properties":{"city":{"type":"string"}}}}}}})
    );
    assert_ne!(state1, state2);
    // Round 3: only step2 in inputResponses; step1 comes back from the sealed state.
    let r = tool(&s, 3, name, json!({"inputResponses":{"step2":{"action":"accept","content":{"city":"Paris"}}},"requestState":state2}), elicit()).await;
    assert_eq!(r.status, 200);
    let res = r.result();
    assert_eq!(res["resultType"], "complete");
    assert_eq!(
        res["content"],
        json!([{"type":"text","text":"Completed two rounds: {\"name\":\"Ada\"} / {\"city\":\"Paris\"}"}])
    );
    assert_eq!(
        res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "oxmcp-everything"
    );
    // Without the state, answering step2 alone re-asks step1 (never a result built on a guess).
    let r = tool(
        &s,
        4,
        name,
        json!({"inputResponses":{"step2":{"action":"accept","content":{"city":"Paris"}}}}),
        elicit(),
    )
    .await;
    let (res, _) = input_required(&r);
    assert_eq!(
        res["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["step1"]
    );
}

#[tokio::test]
async fn multiple_inputs_in_one_round_follow_the_declared_capabilities() {
    let s = HttpServer::start("everything").await;
    let name = "test_input_required_result_multiple_inputs";
    let (res, state) = input_required(
        &tool(
            &s,
            1,
            name,
            json!({}),
            json!({"elicitation":{},"sampling":{},"roots":{}}),
        )
        .await,
    );
    let reqs = res["inputRequests"].as_object().unwrap();
    let mut keys: Vec<&String> = reqs.keys().collect();
    keys.sort();
    assert_eq!(keys, ["capital_question", "client_roots", "user_name"]);
    assert_eq!(reqs["client_roots"], json!({"method":"roots/list"}));
    assert_eq!(reqs["capital_question"]["method"], "sampling/createMessage");
    assert_eq!(reqs["capital_question"]["params"]["maxTokens"], 50);
    // Only sampling declared: only sampling asked.
    let (res, _) = input_required(&tool(&s, 2, name, json!({}), json!({"sampling":{}})).await);
    assert_eq!(
        res["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["capital_question"]
    );
    // All answered (plus an unknown extra key, ignored).
    let answers = json!({
        "user_name":{"action":"accept","content":{"name":"Ada"}},
        "capital_question":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"},
        "client_roots":{"roots":[{"uri":"file:///tmp","name":"tmp"}]},
        "unrelated":{"x":1}});
    let r = tool(
        &s,
        3,
        name,
        json!({"inputResponses":answers,"requestState":state}),
        json!({"elicitation":{},"sampling":{},"roots":{}}),
    )
    .await;
    assert_eq!(r.result()["content"][0]["text"], "Received 3 answers");
}

#[tokio::test]
async fn tampered_expired_and_replayed_elsewhere_state_is_rejected() {
    let s = HttpServer::start("everything").await;
    let name = "test_input_required_result_tampered_state";
    let (_, state) = input_required(&tool(&s, 1, name, json!({}), elicit()).await);
    let answer = json!({"confirm":{"action":"accept","content":{"ok":true}}});
    // The genuine state works.
    let r = tool(
        &s,
        2,
        name,
        json!({"inputResponses":answer,"requestState":state}),
        elicit(),
    )
    .await;
    assert_eq!(r.result()["content"][0]["text"], "Confirmed: \"accept\"");

    let flip = |s: &str, at: usize| {
        let mut b = s.as_bytes().to_vec();
        b[at] = if b[at] == b'A' { b'B' } else { b'A' };
        String::from_utf8(b).unwrap()
    };
    // The state is encrypted: nothing in it is readable, so there is no
    // body to forge; any changed byte (nonce, ciphertext or tag) fails authentication.
    use base64::Engine;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let raw = b64.decode(&state).unwrap();
    assert!(serde_json::from_slice::<Value>(&raw).is_err());
    assert!(!String::from_utf8_lossy(&raw).contains("authorized"));
    let bad_states = [
        flip(&state, 3),
        flip(&state, state.len() / 2),
        flip(&state, state.len() - 2),
        state[..state.len() - 4].to_string(),
        format!("{state}x"),
        "garbage".to_string(),
        String::new(),
    ];
    for (i, bad) in bad_states.iter().enumerate() {
        let r = tool(
            &s,
            10 + i as i64,
            name,
            json!({"inputResponses":answer,"requestState":bad}),
            elicit(),
        )
        .await;
        assert_eq!(r.status, 200);
        assert_eq!(
            r.json()["error"],
            json!({"code":-32602,"message":"Invalid or expired requestState"}),
            "state #{i}"
        );
    }
    let r = tool(
        &s,
        20,
        name,
        json!({"inputResponses":answer,"requestState":42}),
        elicit(),
    )
    .await;
    assert_eq!(r.json()["error"]["code"], -32602);

    // Replayed on another tool, or on another method with the same primitive kind.
    let r = tool(
        &s,
        21,
        "test_input_required_result_request_state",
        json!({"inputResponses":answer,"requestState":state}),
        elicit(),
    )
    .await;
    assert_eq!(
        r.json()["error"],
        json!({"code":-32602,"message":"Invalid or expired requestState"})
    );
    let r = s
        .modern_with(
            json!(22),
            "prompts/get",
            &mut json!({"name":name,"inputResponses":answer,"requestState":state}),
            elicit(),
        )
        .await;
    assert_eq!(r.json()["error"]["code"], -32602);
    let (_, prompt_state) = {
        let r = s
            .modern_with(
                json!(23),
                "prompts/get",
                &mut json!({"name":"test_input_required_result_prompt"}),
                elicit(),
            )
            .await;
        input_required(&r)
    };
    let r = tool(
        &s,
        24,
        name,
        json!({"inputResponses":answer,"requestState":prompt_state}),
        elicit(),
    )
    .await;
    assert_eq!(
        r.json()["error"]["code"],
        -32602,
        "a prompts/get state is not a tools/call state"
    );
}

#[tokio::test]
async fn expired_state_is_rejected() {
    let s = HttpServer::start_with("everything", &[("OXMCP_STATE_TTL_MS", "1")]).await;
    let name = "test_input_required_result_elicitation";
    let (_, state) = input_required(&tool(&s, 1, name, json!({}), elicit()).await);
    // The expiry has one-second resolution: past it for sure after 1.1 s.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let r = tool(&s, 2, name, json!({"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}},"requestState":state}), elicit()).await;
    assert_eq!(
        r.json()["error"],
        json!({"code":-32602,"message":"Invalid or expired requestState"})
    );
}

#[tokio::test]
async fn a_second_process_with_the_same_key_accepts_the_state() {
    let env = [("OXMCP_STATE_KEY", "it-shared-secret-0123456789")];
    let a = HttpServer::start_with("everything", &env).await;
    let b = HttpServer::start_with("everything", &env).await;
    let c = HttpServer::start_with(
        "everything",
        &[("OXMCP_STATE_KEY", "another-secret-0123456789")],
    )
    .await;
    let unkeyed = HttpServer::start("everything").await;
    let name = "test_input_required_result_request_state";
    let (_, state) = input_required(&tool(&a, 1, name, json!({}), elicit()).await);
    let retry = json!({"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":state});
    let r = tool(&b, 2, name, retry.clone(), elicit()).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.result()["content"][0]["text"],
        "state-ok: accept",
        "B sees A's handler state"
    );
    for other in [&c, &unkeyed] {
        let r = tool(other, 3, name, retry.clone(), elicit()).await;
        assert_eq!(r.json()["error"]["code"], -32602);
    }
}

#[tokio::test]
async fn capabilities_and_answer_shapes() {
    let s = HttpServer::start("everything").await;
    // The tool needs elicitation; the client declared none.
    let r = tool(
        &s,
        1,
        "test_input_required_result_elicitation",
        json!({}),
        json!({}),
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32021);
    assert_eq!(
        r.json()["error"]["data"],
        json!({"requiredCapabilities":{"elicitation":{}}})
    );
    // URL-only elicitation does not cover form mode.
    let r = tool(
        &s,
        2,
        "test_input_required_result_elicitation",
        json!({}),
        json!({"elicitation":{"url":{}}}),
    )
    .await;
    assert_eq!(r.status, 400);
    // A fallback: the capabilities tool asks for what was declared.
    let (res, _) = input_required(
        &tool(
            &s,
            3,
            "test_input_required_result_capabilities",
            json!({}),
            json!({"roots":{}}),
        )
        .await,
    );
    assert_eq!(
        res["inputRequests"],
        json!({"client_roots":{"method":"roots/list"}})
    );
    // A malformed answer is a JSON-RPC error, not a result.
    let r = tool(
        &s,
        4,
        "test_input_required_result_elicitation",
        json!({"inputResponses":{"user_name":{"action":"maybe"}}}),
        elicit(),
    )
    .await;
    assert_eq!(
        r.json()["error"],
        json!({"code":-32602,"message":"Invalid input response for 'user_name'"})
    );
    let r = tool(
        &s,
        5,
        "test_input_required_result_elicitation",
        json!({"inputResponses":[1]}),
        elicit(),
    )
    .await;
    assert_eq!(r.json()["error"]["code"], -32602);
    // A declined elicitation is an answer.
    let r = tool(
        &s,
        6,
        "test_input_required_result_elicitation",
        json!({"inputResponses":{"user_name":{"action":"decline"}}}),
        elicit(),
    )
    .await;
    assert_eq!(r.result()["content"][0]["text"], "Hello, stranger!");
    // List methods never answer input_required.
    let r = s
        .modern_with(json!(7), "tools/list", &mut json!({}), elicit())
        .await;
    assert_eq!(r.result()["resultType"], "complete");
}

#[tokio::test]
async fn prompts_and_sampling_and_roots_through_mrtr() {
    let s = HttpServer::start("everything").await;
    let (res, state) = input_required(
        &s.modern_with(
            json!(1),
            "prompts/get",
            &mut json!({"name":"test_input_required_result_prompt"}),
            elicit(),
        )
        .await,
    );
    assert_eq!(
        res["inputRequests"]["topic"]["method"],
        "elicitation/create"
    );
    let r = s
        .modern_with(
            json!(2),
            "prompts/get",
            &mut json!({"name":"test_input_required_result_prompt","inputResponses":{"topic":{"action":"accept","content":{"topic":"Rust"}}},"requestState":state}),
            elicit(),
        )
        .await;
    assert_eq!(
        r.result()["messages"],
        json!([{"role":"user","content":{"type":"text","text":"Tell me about Rust."}}])
    );

    let caps = json!({"sampling":{}});
    let (res, state) = input_required(
        &tool(
            &s,
            3,
            "test_input_required_result_sampling",
            json!({}),
            caps.clone(),
        )
        .await,
    );
    assert_eq!(
        res["inputRequests"],
        json!({"capital_question":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":50}}})
    );
    let answer = json!({"capital_question":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"test-model"}});
    let r = tool(
        &s,
        4,
        "test_input_required_result_sampling",
        json!({"inputResponses":answer,"requestState":state}),
        caps,
    )
    .await;
    assert_eq!(r.result()["content"][0]["text"], "The model said: Paris");

    let caps = json!({"roots":{}});
    let answer = json!({"client_roots":{"roots":[{"uri":"file:///a"},{"uri":"file:///b"}]}});
    let r = tool(
        &s,
        5,
        "test_input_required_result_list_roots",
        json!({"inputResponses":answer}),
        caps,
    )
    .await;
    assert_eq!(r.result()["content"][0]["text"], "The client has 2 roots");
}
