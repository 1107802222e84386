//! MCP Apps from Rust: the SQLite explorer's `ui://` resource and the tool linked to it, over
//! real HTTP (the browser test that renders it is tests/node/apps-browser.test.mjs).

use crate::harness::*;
use serde_json::json;

#[tokio::test]
async fn the_sqlite_explorer_serves_its_app() {
    let s = HttpServer::start("sqlite-explorer").await;
    let d = s
        .modern(json!(1), "server/discover", json!({}))
        .await
        .result();
    assert_eq!(
        d["capabilities"]["extensions"]["io.modelcontextprotocol/ui"],
        json!({"mimeTypes": ["text/html;profile=mcp-app"]})
    );
    let tools = s.modern(json!(2), "tools/list", json!({})).await.result();
    let q = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "query")
        .expect("query tool")
        .clone();
    assert_eq!(
        q["_meta"]["ui"],
        json!({"resourceUri": "ui://sqlite-explorer/query.html", "visibility": ["model", "app"]})
    );
    let list = s
        .modern(json!(3), "resources/list", json!({}))
        .await
        .result();
    let r = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "ui://sqlite-explorer/query.html")
        .expect("the app resource")
        .clone();
    assert_eq!(r["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(r["_meta"]["ui"], json!({"prefersBorder": true}));
    let read = s
        .modern(
            json!(4),
            "resources/read",
            json!({"uri": "ui://sqlite-explorer/query.html"}),
        )
        .await
        .result();
    let item = &read["contents"][0];
    assert_eq!(item["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(item["_meta"]["ui"], json!({"prefersBorder": true}));
    let html = item["text"].as_str().unwrap();
    assert!(
        html.contains("ui/initialize") && html.contains("tools/call"),
        "the app talks postMessage JSON-RPC"
    );
}
