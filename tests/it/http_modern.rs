//! 2026-07-28 over Streamable HTTP: every method, stateless, with exact result shapes.

use crate::harness::*;
use serde_json::{json, Value};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

/// A modern `complete` result: `resultType` and serverInfo in `_meta`.
fn assert_modern(res: &Value) {
    assert_eq!(res["resultType"], "complete", "{res}");
    assert_eq!(
        res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "oxmcp-everything",
        "{res}"
    );
}

fn assert_cacheable(res: &Value) {
    assert_modern(res);
    assert_eq!(res["ttlMs"], 0, "{res}");
    assert_eq!(res["cacheScope"], "private", "{res}");
}

fn assert_not_cacheable(res: &Value) {
    assert!(
        res.get("ttlMs").is_none() && res.get("cacheScope").is_none(),
        "cache hints on a non-cacheable result: {res}"
    );
}

async fn call(s: &HttpServer, name: &str, args: Value) -> Value {
    let r = s
        .modern(
            json!(name),
            "tools/call",
            json!({"name": name, "arguments": args}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.content_type().starts_with("application/json"),
        "{}",
        r.content_type()
    );
    let res = r.result();
    assert_modern(&res);
    assert_not_cacheable(&res);
    res
}

#[tokio::test]
async fn discover_lists_every_version_and_carries_cache_hints() {
    let s = HttpServer::start("everything").await;
    let r = s.modern(json!(1), "server/discover", json!({})).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["id"], 1);
    let res = r.result();
    assert_cacheable(&res);
    assert_eq!(
        res["supportedVersions"],
        json!([
            "2026-07-28",
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05"
        ])
    );
    assert_eq!(
        res["instructions"],
        "Conformance fixtures for every MCP feature oxmcp serves."
    );
    assert_eq!(
        res["capabilities"],
        json!({"logging":{},"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},
               "prompts":{"listChanged":true},"completions":{},
               "extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true},
                             "io.modelcontextprotocol/tasks":{}}})
    );
    assert_eq!(
        res["_meta"]["io.modelcontextprotocol/serverInfo"]["title"],
        "oxmcp everything server"
    );
}

#[tokio::test]
async fn tools_list_is_deterministic_and_cacheable() {
    let s = HttpServer::start("everything").await;
    let a = s.modern(json!(1), "tools/list", json!({})).await;
    let b = s.modern(json!(2), "tools/list", json!({})).await;
    assert_eq!(a.status, 200);
    let (ra, rb) = (a.result(), b.result());
    assert_cacheable(&ra);
    assert!(ra.get("nextCursor").is_none());
    assert_eq!(ra["tools"], rb["tools"], "same order every time");
    let names: Vec<&str> = ra["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        &names[..3],
        [
            "test_simple_text",
            "test_image_content",
            "test_audio_content"
        ],
        "registration order"
    );
    assert!(names.contains(&"test_slow") && names.contains(&"add"));
    let add = ra["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "add")
        .unwrap();
    assert!(add["_meta"]["io.oxmcp/digest"]
        .as_str()
        .is_some_and(|d| d.starts_with("sha256:")));
    assert_eq!(
        &without_digest(add),
        &json!({"name":"add","description":"Add two integers",
                "inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]},
                "outputSchema":{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}})
    );
}

#[tokio::test]
async fn list_pagination_with_cursors() {
    let s = HttpServer::start_with("everything", &[("OXMCP_PAGE_SIZE", "2")]).await;
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 0.. {
        assert!(page < 50, "pagination does not end");
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let res = s.modern(json!(page), "prompts/list", params).await.result();
        assert_cacheable(&res);
        let items = res["prompts"].as_array().unwrap();
        assert!(items.len() <= 2);
        names.extend(
            items
                .iter()
                .map(|p| p["name"].as_str().unwrap().to_string()),
        );
        match res.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(
        names,
        [
            "test_simple_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image",
            "test_input_required_result_prompt"
        ]
    );
    let bad = s
        .modern(
            json!("bad"),
            "tools/list",
            json!({"cursor": "not-a-cursor"}),
        )
        .await;
    assert_eq!(bad.status, 200);
    assert_eq!(bad.error_code(), -32602);
    assert_eq!(bad.json()["error"]["message"], "Invalid cursor");
}

#[tokio::test]
async fn tools_call_every_content_type() {
    let s = HttpServer::start("everything").await;
    let res = call(&s, "test_simple_text", json!({})).await;
    assert_eq!(
        res["content"],
        json!([{"type":"text","text":"This is a simple text response for testing."}])
    );
    assert!(res.get("isError").is_none_or(|e| e == false), "{res}");

    let res = call(&s, "test_image_content", json!({})).await;
    assert_eq!(
        res["content"],
        json!([{"type":"image","data":PNG,"mimeType":"image/png"}])
    );
    let res = call(&s, "test_audio_content", json!({})).await;
    assert_eq!(
        res["content"],
        json!([{"type":"audio","data":WAV,"mimeType":"audio/wav"}])
    );
    let res = call(&s, "test_embedded_resource", json!({})).await;
    assert_eq!(
        res["content"],
        json!([{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}])
    );
    let res = call(&s, "test_multiple_content_types", json!({})).await;
    let c = res["content"].as_array().unwrap();
    assert_eq!(c.len(), 3);
    assert_eq!(
        c[0],
        json!({"type":"text","text":"Multiple content types test:"})
    );
    assert_eq!(c[1]["type"], "image");
    assert_eq!(c[2]["resource"]["uri"], "test://mixed-content-resource");

    let res = call(&s, "test_error_handling", json!({})).await;
    assert_eq!(res["isError"], true);
    assert_eq!(
        res["content"],
        json!([{"type":"text","text":"This tool intentionally returns an error for testing"}])
    );

    let res = call(&s, "add", json!({"a": 2, "b": 40})).await;
    assert_eq!(res["structuredContent"], json!({"result": 42}));
    assert_eq!(res["content"], json!([{"type":"text","text":"42"}]));

    let res = call(
        &s,
        "json_schema_2020_12_tool",
        json!({"name":"x","contactMethod":"email","email":"a@b.c"}),
    )
    .await;
    assert_eq!(res["content"][0]["text"], "ok");
    assert_ne!(res["isError"], true);
}

#[tokio::test]
async fn resources_list_templates_and_read() {
    let s = HttpServer::start("everything").await;
    let res = s
        .modern(json!(1), "resources/list", json!({}))
        .await
        .result();
    assert_cacheable(&res);
    let uris: Vec<&str> = res["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        // The skills' files (tests/it/skills.rs) are resources too, listed after these.
        .filter(|u| !u.starts_with("skill://"))
        .collect();
    assert_eq!(
        uris,
        [
            "test://static-text",
            "test://static-binary",
            "test://watched-resource",
            "test://example-resource"
        ]
    );
    assert_eq!(
        without_digest(&res["resources"][0]),
        json!({"uri":"test://static-text","name":"Static Text Resource","mimeType":"text/plain","description":"A static text resource"})
    );

    let res = s
        .modern(json!(2), "resources/templates/list", json!({}))
        .await
        .result();
    assert_cacheable(&res);
    let templates: Vec<Value> = res["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(without_digest)
        .collect();
    assert_eq!(
        Value::Array(templates),
        json!([{"uriTemplate":"test://template/{id}/data","name":"Template Resource","mimeType":"application/json","description":"Data for an id"},
               // The dynamic skill's files (tests/it/skills.rs).
               {"uriTemplate":"skill://live/clock/{+file}","name":"live/clock",
                "description":"Tell the server's time. Use when asked what time it is on the server."}])
    );

    let res = s
        .modern(
            json!(3),
            "resources/read",
            json!({"uri":"test://static-text"}),
        )
        .await
        .result();
    assert_cacheable(&res);
    assert_eq!(
        res["contents"],
        json!([{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}])
    );
    let res = s
        .modern(
            json!(4),
            "resources/read",
            json!({"uri":"test://static-binary"}),
        )
        .await
        .result();
    assert_eq!(
        res["contents"],
        json!([{"uri":"test://static-binary","mimeType":"image/png","blob":PNG}])
    );
    let res = s
        .modern(
            json!(5),
            "resources/read",
            json!({"uri":"test://template/123/data"}),
        )
        .await
        .result();
    assert_cacheable(&res);
    let text = res["contents"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        json!({"id":"123","templateTest":true,"data":"Data for ID: 123"})
    );

    // Modern resource-not-found is -32602 with data.uri (never -32002).
    let r = s
        .modern(json!(6), "resources/read", json!({"uri":"test://nope"}))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["error"],
        json!({"code":-32602,"message":"Resource not found","data":{"uri":"test://nope"}})
    );
}

#[tokio::test]
async fn prompts_list_and_get() {
    let s = HttpServer::start("everything").await;
    let res = s.modern(json!(1), "prompts/list", json!({})).await.result();
    assert_cacheable(&res);
    let with_args = res["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "test_prompt_with_arguments")
        .unwrap();
    assert_eq!(
        with_args["arguments"],
        json!([{"name":"arg1","description":"First test argument","required":true},{"name":"arg2","description":"Second test argument","required":true}])
    );

    let res = s
        .modern(
            json!(2),
            "prompts/get",
            json!({"name":"test_simple_prompt"}),
        )
        .await
        .result();
    assert_modern(&res);
    assert_not_cacheable(&res);
    assert_eq!(
        res["messages"],
        json!([{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}])
    );

    let res = s
        .modern(json!(3), "prompts/get", json!({"name":"test_prompt_with_arguments","arguments":{"arg1":"testValue1","arg2":"testValue2"}}))
        .await
        .result();
    assert_eq!(
        res["messages"][0]["content"]["text"],
        "Prompt with arguments: arg1='testValue1', arg2='testValue2'"
    );

    let res = s
        .modern(
            json!(4),
            "prompts/get",
            json!({"name":"test_prompt_with_image"}),
        )
        .await
        .result();
    assert_eq!(
        res["messages"][0]["content"],
        json!({"type":"image","data":PNG,"mimeType":"image/png"})
    );

    let missing = s
        .modern(
            json!(5),
            "prompts/get",
            json!({"name":"test_prompt_with_arguments","arguments":{"arg1":"x"}}),
        )
        .await;
    assert_eq!(missing.json()["error"]["code"], -32602);
    assert_eq!(
        missing.json()["error"]["message"],
        "Missing required argument: arg2"
    );
    let unknown = s
        .modern(json!(6), "prompts/get", json!({"name":"nope"}))
        .await;
    assert_eq!(unknown.status, 200);
    assert_eq!(
        unknown.json()["error"],
        json!({"code":-32602,"message":"Unknown prompt: nope"})
    );
}

#[tokio::test]
async fn completion_for_prompt_arguments_and_template_variables() {
    let s = HttpServer::start("everything").await;
    let res = s
        .modern(json!(1), "completion/complete", json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"pa"}}))
        .await
        .result();
    assert_modern(&res);
    assert_not_cacheable(&res);
    assert_eq!(
        res["completion"]["values"],
        json!(["paris", "park", "party"])
    );
    let res = s
        .modern(json!(2), "completion/complete", json!({"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"1"}}))
        .await
        .result();
    assert_eq!(res["completion"]["values"], json!(["1", "123"]));
    let r = s
        .modern(
            json!(3),
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"a","value":""}}),
        )
        .await;
    assert_eq!(
        r.json()["error"],
        json!({"code":-32602,"message":"Unknown prompt: nope"})
    );
}

#[tokio::test]
async fn string_and_integer_ids_are_echoed() {
    let s = HttpServer::start("everything").await;
    for id in [json!("req-α"), json!(0), json!(9007199254740993u64)] {
        let r = s.modern(id.clone(), "tools/list", json!({})).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.json()["id"], id);
        assert_eq!(r.json()["jsonrpc"], "2.0");
    }
}

/// A listed definition without the catalog's digest (docs/CATALOG.md), to compare with the
/// definition as registered.
fn without_digest(def: &Value) -> Value {
    let mut d = def.clone();
    if let Some(m) = d.as_object_mut() {
        m.remove("_meta");
    }
    d
}
