//! Tool argument validation (both answer modes, lenient coercion), unknown tools, missing
//! `arguments`, and `structuredContent` checked against `outputSchema`.

use crate::harness::*;
use serde_json::{json, Value};

async fn call(s: &HttpServer, name: &str, params: Value) -> Resp {
    let mut p = params;
    p["name"] = json!(name);
    s.modern(json!(1), "tools/call", p).await
}

#[tokio::test]
async fn violations_answer_an_is_error_result_naming_each_pointer() {
    let s = HttpServer::start("everything").await;
    let r = call(&s, "add", json!({"arguments":{"a":"one","b":2.5}})).await;
    assert_eq!(r.status, 200);
    let res = r.result();
    assert_eq!(res["resultType"], "complete");
    assert_eq!(res["isError"], true, "{res}");
    let text = res["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Invalid arguments for tool add:\n"),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(lines.len(), 2, "one line per violation: {text}");
    assert!(lines.iter().any(|l| l.starts_with("/a: ")), "{text}");
    assert!(lines.iter().any(|l| l.starts_with("/b: ")), "{text}");
    assert!(res.get("structuredContent").is_none());

    // A missing required property is reported at the root pointer.
    let res = call(&s, "add", json!({"arguments":{"a":1}})).await.result();
    assert_eq!(res["isError"], true);
    let text = res["content"][0]["text"].as_str().unwrap();
    assert!(
        text.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("/: ") && l.contains("\"b\"")),
        "{text}"
    );

    // 2020-12 keywords ($ref, if/then/else, additionalProperties) are enforced.
    let res = call(
        &s,
        "json_schema_2020_12_tool",
        json!({"arguments":{"contactMethod":"phone","extra":1}}),
    )
    .await
    .result();
    assert_eq!(res["isError"], true);
    let text = res["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("phone") && text.contains("extra"), "{text}");
}

#[tokio::test]
async fn jsonrpc_mode_answers_invalid_params_with_violations() {
    let s = HttpServer::start_with("everything", &[("OXMCP_VALIDATION", "jsonrpc")]).await;
    let r = call(&s, "add", json!({"arguments":{"a":"one"}})).await;
    assert_eq!(r.status, 200);
    let e = &r.json()["error"];
    assert_eq!(e["code"], -32602);
    assert_eq!(e["message"], "Invalid arguments for tool add");
    let v = e["data"]["violations"].as_array().expect("data.violations");
    let mut pointers: Vec<&str> = v.iter().map(|x| x["pointer"].as_str().unwrap()).collect();
    pointers.sort();
    assert_eq!(pointers, ["", "/a"]);
    assert!(v
        .iter()
        .all(|x| x["message"].as_str().is_some_and(|m| !m.is_empty())));
    // Valid calls are unaffected.
    assert_eq!(
        call(&s, "add", json!({"arguments":{"a":1,"b":1}}))
            .await
            .result()["structuredContent"],
        json!({"result":2})
    );
}

#[tokio::test]
async fn lenient_mode_accepts_numeric_and_boolean_strings() {
    let strict = HttpServer::start("everything").await;
    let lenient = HttpServer::start_with("everything", &[("OXMCP_LENIENT_COERCION", "true")]).await;
    let args = json!({"arguments":{"a":"40","b":"2"}});
    assert_eq!(
        call(&strict, "add", args.clone()).await.result()["isError"],
        true
    );
    let res = call(&lenient, "add", args).await.result();
    assert_eq!(res["structuredContent"], json!({"result":42}), "{res}");
    // Strings that are not numbers are still violations.
    assert_eq!(
        call(&lenient, "add", json!({"arguments":{"a":"forty","b":"2"}}))
            .await
            .result()["isError"],
        true
    );
}

#[tokio::test]
async fn unknown_tool_missing_and_malformed_arguments() {
    let s = HttpServer::start("everything").await;
    let r = call(&s, "no_such_tool", json!({"arguments":{}})).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["error"],
        json!({"code":-32602,"message":"Unknown tool: no_such_tool"})
    );
    // Missing arguments = {}: fine for a tool without required properties...
    let res = call(&s, "test_simple_text", json!({})).await.result();
    assert_eq!(
        res["content"][0]["text"],
        "This is a simple text response for testing."
    );
    let res = call(&s, "test_simple_text", json!({"arguments": null}))
        .await
        .result();
    assert_ne!(res["isError"], true);
    // ...and a validation failure naming the required ones otherwise.
    let res = call(&s, "add", json!({})).await.result();
    assert_eq!(res["isError"], true);
    let text = res["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("\"a\"") && text.contains("\"b\""), "{text}");
    // arguments that is not an object is a malformed request.
    let r = call(&s, "add", json!({"arguments":[1, 2]})).await;
    assert_eq!(r.json()["error"]["code"], -32602);
    assert_eq!(r.json()["error"]["message"], "arguments must be an object");
    // No name at all (Mcp-Name is then not required).
    let r = s
        .modern(json!(2), "tools/call", json!({"arguments":{}}))
        .await;
    assert_eq!(r.json()["error"]["code"], -32602);
}

#[tokio::test]
async fn structured_content_violating_the_output_schema_is_an_internal_error() {
    let mut s = HttpServer::start_with("everything", &[("OXMCP_EXTRA_FIXTURES", "1")]).await;
    let r = call(&s, "test_bad_output", json!({})).await;
    assert_eq!(r.status, 200);
    let e = &r.json()["error"];
    assert_eq!(e["code"], -32603, "{}", r.body);
    assert_eq!(
        e["message"],
        "Tool test_bad_output returned structured content that does not match its output schema"
    );
    assert!(
        !r.body.contains("not a number"),
        "the bad content is never sent: {}",
        r.body
    );
    // ...and it is logged.
    let line = s
        .stderr_line(
            "structuredContent does not match outputSchema",
            std::time::Duration::from_secs(5),
        )
        .await;
    assert!(line.is_some_and(|l| l.contains("test_bad_output")));
    // Conforming output passes.
    assert_eq!(
        call(&s, "add", json!({"arguments":{"a":1,"b":2}}))
            .await
            .result()["structuredContent"],
        json!({"result":3})
    );
}
