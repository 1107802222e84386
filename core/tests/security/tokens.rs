//! Named bearer tokens: accepted, refused, rotated; per-caller allow-lists; the caller in handlers and audit records.

use super::common::*;

#[tokio::test]
async fn tokens_accepted_refused_and_rotated() {
    let _serial = serial().await;
    let auth = Arc::new(Auth::new().tokens(tokens()));
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback()).auth(auth.clone()),
    )
    .await;

    let r = call(s.addr, None, "tools/list", json!({})).await;
    assert_eq!(r.status, 401);
    assert_eq!(r.header("www-authenticate"), "Bearer");
    assert_eq!(r.json()["error"], "unauthorized");

    let r = call(s.addr, Some("wrong"), "tools/list", json!({})).await;
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate"),
        r#"Bearer error="invalid_token""#
    );
    assert_eq!(r.json()["error"], "invalid_token");

    let r = request(
        s.addr,
        "POST",
        "/mcp",
        &[("authorization", "Basic YWxpY2U6eA==")],
        b"{}".to_vec(),
    )
    .await;
    assert_eq!(r.status, 401, "another scheme is no bearer token");

    for t in ["alice-old", "alice-new", "bob-token"] {
        assert_eq!(
            call(s.addr, Some(t), "tools/list", json!({})).await.status,
            200,
            "{t}"
        );
    }
    // Rotation: drop the old token while serving; the new one keeps working.
    auth.replace_tokens(
        NamedTokens::new()
            .token("alice", "alice-new")
            .token("bob", "bob-token"),
    );
    assert_eq!(
        call(s.addr, Some("alice-old"), "tools/list", json!({}))
            .await
            .status,
        401
    );
    assert_eq!(
        call(s.addr, Some("alice-new"), "tools/list", json!({}))
            .await
            .status,
        200
    );
    // Health stays open.
    assert_eq!(
        request(s.addr, "GET", "/healthz", &[], vec![]).await.status,
        200
    );
}

#[tokio::test]
async fn allow_lists_filter_lists_and_refuse_like_unknown() {
    let _serial = serial().await;
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback()).auth(Arc::new(Auth::new().tokens(tokens()))),
    )
    .await;
    let alice = Some("alice-new");
    let bob = Some("bob-token");

    let r = call(s.addr, alice, "tools/list", json!({})).await;
    assert_eq!(tool_names(&r), vec!["echo", "whoami", "write_file"]);
    assert_eq!(
        r.json()["result"]["cacheScope"],
        "private",
        "lists differ per caller"
    );
    assert_eq!(
        tool_names(&call(s.addr, bob, "tools/list", json!({})).await),
        vec!["echo", "whoami", "secret", "write_file"]
    );

    // A refused tool answers exactly as an unknown one does.
    let refused = tool_call(s.addr, alice, "secret").await;
    let unknown = tool_call(s.addr, alice, "nope").await;
    assert_eq!(refused.status, unknown.status);
    assert_eq!(
        refused.json()["error"]["code"],
        unknown.json()["error"]["code"]
    );
    assert_eq!(refused.json()["error"]["message"], "Unknown tool: secret");
    assert_eq!(unknown.json()["error"]["message"], "Unknown tool: nope");
    assert_eq!(
        tool_call(s.addr, bob, "secret").await.json()["result"]["content"][0]["text"],
        "secret for bob"
    );

    let r = call(s.addr, alice, "resources/list", json!({})).await;
    let v = r.json();
    let uris: Vec<&str> = v["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, vec!["file:///docs/a.md"]);
    let refused = call(
        s.addr,
        alice,
        "resources/read",
        json!({"uri": "file:///etc/passwd"}),
    )
    .await
    .json();
    let unknown = call(
        s.addr,
        alice,
        "resources/read",
        json!({"uri": "file:///nope"}),
    )
    .await
    .json();
    assert_eq!(refused["error"]["code"], unknown["error"]["code"]);
    assert_eq!(refused["error"]["message"], unknown["error"]["message"]);
    assert_eq!(
        call(
            s.addr,
            alice,
            "resources/read",
            json!({"uri": "file:///docs/a.md"})
        )
        .await
        .json()["result"]["contents"][0]["text"],
        "A"
    );

    let r = call(s.addr, alice, "prompts/list", json!({})).await.json();
    assert_eq!(r["result"]["prompts"].as_array().unwrap().len(), 1);
    let refused = call(s.addr, alice, "prompts/get", json!({"name": "admin"}))
        .await
        .json();
    assert_eq!(refused["error"]["message"], "Unknown prompt: admin");
}

#[tokio::test]
async fn caller_reaches_handler_and_audit_record() {
    let _serial = serial().await;
    let cap = Capture::default();
    let _g = tracing::subscriber::set_default(cap.subscriber());
    let s = serve(
        demo_server(ServerOptions::default()),
        HttpConfig::new(loopback()).auth(Arc::new(Auth::new().tokens(tokens()))),
    )
    .await;
    let r = tool_call(s.addr, Some("alice-old"), "whoami").await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "whoami for alice");
    let _ = tool_call(s.addr, Some("alice-old"), "secret").await;
    let _ = call(s.addr, None, "tools/list", json!({})).await;

    let lines = cap.lines();
    let calls: Vec<&Value> = lines
        .iter()
        .filter(|l| l["target"] == "oxmcp::audit" && l["fields"]["message"] == "call")
        .collect();
    let ok = calls
        .iter()
        .find(|l| l["fields"]["name"] == "whoami")
        .expect("an audit record for whoami");
    let f = &ok["fields"];
    assert_eq!(f["caller"], "alice");
    assert_eq!(f["method"], "tools/call");
    assert_eq!(f["outcome"], "ok");
    assert_eq!(f["transport"], "Http");
    assert!(f["duration_us"].as_u64().is_some());
    assert!(f["result_bytes"].as_u64().unwrap() > 20);
    assert_eq!(ok["level"], "INFO");

    let denied = &calls
        .iter()
        .find(|l| l["fields"]["name"] == "secret")
        .expect("refusals are audited")["fields"];
    assert_eq!(denied["outcome"], "error");
    assert_eq!(denied["error_class"], "denied");
    assert_eq!(denied["error_code"], -32602);

    assert!(lines
        .iter()
        .any(|l| l["target"] == "oxmcp::audit" && l["fields"]["outcome"] == "unauthorized"));
}
