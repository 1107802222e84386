//! The demo (`sqlite-explorer`): list_tables / describe_table / query over HTTP and stdio, writes
//! refused by SQLite itself, the `schema://{table}` resource template.

use crate::harness::*;
use serde_json::{json, Value};
use std::time::Duration;

fn tool_json(res: &Value) -> Value {
    assert_ne!(res["isError"], true, "{res}");
    res["structuredContent"].clone()
}

#[tokio::test]
async fn explorer_over_http() {
    let s = HttpServer::start("sqlite-explorer").await;
    let tools = s.modern(json!(0), "tools/list", json!({})).await.result();
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["list_tables", "describe_table", "query"]);

    let res = s
        .modern(
            json!(1),
            "tools/call",
            json!({"name":"list_tables","arguments":{}}),
        )
        .await
        .result();
    assert_eq!(
        tool_json(&res),
        json!({"tables":["albums","artists","tracks"]})
    );

    let res = s
        .modern(
            json!(2),
            "tools/call",
            json!({"name":"describe_table","arguments":{"table":"artists"}}),
        )
        .await
        .result();
    let d = tool_json(&res);
    assert_eq!(d["table"], "artists");
    assert_eq!(
        d["columns"],
        json!([{"name":"id","type":"INTEGER","notNull":false,"primaryKey":true},
               {"name":"name","type":"TEXT","notNull":true,"primaryKey":false},
               {"name":"country","type":"TEXT","notNull":false,"primaryKey":false}])
    );
    assert!(d["sql"]
        .as_str()
        .unwrap()
        .starts_with("CREATE TABLE artists"));

    let res = s
        .modern(json!(3), "tools/call", json!({"name":"query","arguments":{"sql":"SELECT name, country FROM artists ORDER BY id","limit":2}}))
        .await
        .result();
    assert_eq!(
        tool_json(&res),
        json!({"columns":["name","country"],"rows":[["Nina Simone","US"],["Fela Kuti","NG"]],"truncated":true})
    );

    // Writes fail in SQLite (read-only connection), and the data is untouched.
    for sql in [
        "DELETE FROM artists",
        "INSERT INTO artists VALUES (9,'x','y')",
        "DROP TABLE tracks",
    ] {
        let res = s
            .modern(
                json!(4),
                "tools/call",
                json!({"name":"query","arguments":{"sql":sql}}),
            )
            .await
            .result();
        assert_eq!(res["isError"], true, "{sql}: {res}");
        let text = res["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("readonly") || text.contains("read-only") || text.contains("read only"),
            "{sql}: {text}"
        );
    }
    let res = s
        .modern(
            json!(5),
            "tools/call",
            json!({"name":"query","arguments":{"sql":"SELECT count(*) AS n FROM artists"}}),
        )
        .await
        .result();
    assert_eq!(tool_json(&res)["rows"], json!([[3]]));

    // Unknown table, bad SQL, schema violations.
    let res = s
        .modern(
            json!(6),
            "tools/call",
            json!({"name":"describe_table","arguments":{"table":"nope"}}),
        )
        .await
        .result();
    assert_eq!(res["isError"], true);
    assert_eq!(res["content"][0]["text"], "no such table: nope");
    let res = s
        .modern(
            json!(7),
            "tools/call",
            json!({"name":"query","arguments":{"sql":"SELEC 1"}}),
        )
        .await
        .result();
    assert_eq!(res["isError"], true);
    let res = s
        .modern(
            json!(8),
            "tools/call",
            json!({"name":"query","arguments":{"sql":"SELECT 1","limit":100000}}),
        )
        .await
        .result();
    assert_eq!(res["isError"], true);
    assert!(res["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("/limit"));

    // No ATTACH of another file; a statement that never ends (every row filtered out, so no
    // row limit stops it) is interrupted after the demo's time limit.
    let res = s
        .modern(
            json!(81),
            "tools/call",
            json!({"name":"query","arguments":{"sql":"ATTACH DATABASE '/tmp/x.db' AS other"}}),
        )
        .await
        .result();
    assert_eq!(res["isError"], true, "{res}");
    let res = s
        .modern(
            json!(82),
            "tools/call",
            json!({"name":"query","arguments":{"sql":"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x < 0"}}),
        )
        .await
        .result();
    assert_eq!(res["isError"], true, "{res}");
    assert!(
        res["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("longer than 2 s"),
        "{res}"
    );

    // schema://{table}
    let t = s
        .modern(json!(9), "resources/templates/list", json!({}))
        .await
        .result();
    assert_eq!(t["resourceTemplates"][0]["uriTemplate"], "schema://{table}");
    let res = s
        .modern(
            json!(10),
            "resources/read",
            json!({"uri":"schema://albums"}),
        )
        .await
        .result();
    assert_eq!(res["contents"][0]["uri"], "schema://albums");
    assert_eq!(res["contents"][0]["mimeType"], "text/plain");
    assert!(res["contents"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("CREATE TABLE albums"));
    let r = s
        .modern(json!(11), "resources/read", json!({"uri":"schema://nope"}))
        .await;
    assert_eq!(
        r.json()["error"],
        json!({"code":-32602,"message":"Resource not found","data":{"uri":"schema://nope"}})
    );
    let r = s
        .modern(json!(12), "resources/read", json!({"uri":"other://albums"}))
        .await;
    assert_eq!(r.json()["error"]["code"], -32602);

    // The prompt and completions.
    let p = s
        .modern(
            json!(13),
            "prompts/get",
            json!({"name":"explore_table","arguments":{"table":"tracks"}}),
        )
        .await
        .result();
    assert!(p["messages"][0]["content"]["text"]
        .as_str()
        .unwrap()
        .contains("schema://tracks"));
    let c = s
        .modern(json!(14), "completion/complete", json!({"ref":{"type":"ref/resource","uri":"schema://{table}"},"argument":{"name":"table","value":"a"}}))
        .await
        .result();
    assert_eq!(c["completion"]["values"], json!(["albums", "artists"]));
}

#[tokio::test]
async fn explorer_over_stdio_legacy_and_modern() {
    let mut s = StdioServer::start("sqlite-explorer");
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}})).await;
    let (r, _) = s.recv_response(&json!(1)).await;
    assert_eq!(r["result"]["serverInfo"]["name"], "oxmcp-sqlite-explorer");
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
    s.send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_tables","arguments":{}}})).await;
    let (r, _) = s.recv_response(&json!(2)).await;
    assert_eq!(
        r["result"]["structuredContent"],
        json!({"tables":["albums","artists","tracks"]})
    );
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"query","arguments":{"sql":"DELETE FROM artists"}}})).await;
    let (r, _) = s.recv_response(&json!(3)).await;
    assert_eq!(r["result"]["isError"], true);
    s.send(
        &json!({"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"schema://nope"}}),
    )
    .await;
    let (r, _) = s.recv_response(&json!(4)).await;
    assert_eq!(
        r["error"],
        json!({"code":-32002,"message":"Resource not found","data":{"uri":"schema://nope"}})
    );
    s.send(&json!({"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"schema://tracks"}})).await;
    let (r, _) = s.recv_response(&json!(5)).await;
    assert!(r["result"]["contents"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("CREATE TABLE tracks"));
    // A modern request in the same process.
    s.send(&json!({"jsonrpc":"2.0","id":6,"method":"tools/call","params":modern_params(json!({"name":"describe_table","arguments":{"table":"tracks"}}), json!({}))})).await;
    let (r, _) = s.recv_response(&json!(6)).await;
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(
        r["result"]["structuredContent"]["columns"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    assert_eq!(s.eof_exit(Duration::from_secs(10)).await.code(), Some(0));
}
