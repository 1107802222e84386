//! The shared request table (`tests/config/requests.json`, also replayed by the Python and Node
//! tests): every row gets the same answer from the Rust HTTP server as from the other languages'
//! servers and mounts. The configuration of a row goes through `Config::from_json`, as a host's
//! options do.

use crate::common::*;
use oxmcp::config::Config;
use std::sync::Arc;
use tokio::sync::Notify;

const TABLE: &str = include_str!("../../../tests/config/requests.json");

fn fixture(config: &Config) -> Server {
    let echo = Tool::new(
        "echo",
        json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}),
    )
    .handler(|a: Map<String, Value>, _c: Context| async move {
        Ok::<_, ToolError>(ToolResult::text(
            a["text"].as_str().unwrap_or_default().to_string(),
        ))
    });
    let second = Tool::new("second", json!({"type":"object"})).handler(
        |_a: Map<String, Value>, _c: Context| async { Ok::<_, ToolError>(ToolResult::text("2")) },
    );
    let wait = Tool::new("wait", json!({"type":"object"})).handler(
        |_a: Map<String, Value>, _c: Context| async {
            tokio::time::sleep(std::time::Duration::from_secs(30)).await;
            Ok::<_, ToolError>(ToolResult::text("late"))
        },
    );
    // `hold` stays in flight until `release`; `entered` answers once it is (see the table's
    // `about`). A `Notify` keeps one permit, so neither order of the two sides loses a wake-up.
    let (entered, released) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let (e, r) = (entered.clone(), released.clone());
    let hold = Tool::new("hold", json!({"type":"object"}))
        .max_concurrency(1)
        .handler(move |_a: Map<String, Value>, _c: Context| {
            let (e, r) = (e.clone(), r.clone());
            async move {
                e.notify_one();
                r.notified().await;
                Ok::<_, ToolError>(ToolResult::text("released"))
            }
        });
    let on_entered = Tool::new("entered", json!({"type":"object"})).handler(
        move |_a: Map<String, Value>, _c: Context| {
            let e = entered.clone();
            async move {
                e.notified().await;
                Ok::<_, ToolError>(ToolResult::text("held"))
            }
        },
    );
    let release = Tool::new("release", json!({"type":"object"})).handler(
        move |_a: Map<String, Value>, _c: Context| {
            let r = released.clone();
            async move {
                r.notify_one();
                Ok::<_, ToolError>(ToolResult::text("released"))
            }
        },
    );
    let b = Server::builder("table", "1.0.0")
        .tool(echo)
        .tool(second)
        .tool(wait)
        .tool(hold)
        .tool(on_entered)
        .tool(release);
    config.server.apply_to(b).unwrap().build().unwrap()
}

/// The headers and body a row describes (the same construction in every runner).
fn request_of(c: &Value, addr: SocketAddr) -> (Vec<(String, String)>, Vec<u8>) {
    let mut headers: Vec<(String, String)> = vec![
        ("host".into(), addr.to_string()),
        ("content-type".into(), "application/json".into()),
        (
            "accept".into(),
            "application/json, text/event-stream".into(),
        ),
    ];
    let set = |h: &mut Vec<(String, String)>, k: &str, v: Option<&str>| {
        h.retain(|(n, _)| n != k);
        if let Some(v) = v {
            h.push((k.to_string(), v.to_string()));
        }
    };
    let body = if let Some(raw) = c.get("raw") {
        raw["body"].as_str().unwrap().as_bytes().to_vec()
    } else if let Some(spec) = c.get("legacy") {
        set(&mut headers, "mcp-protocol-version", Some("2025-11-25"));
        serde_json::to_vec(
            &json!({"jsonrpc":"2.0","id":1,"method":spec["method"],"params":spec["params"]}),
        )
        .unwrap()
    } else {
        let spec = &c["modern"];
        let version = spec["version"].as_str().unwrap_or(MODERN);
        let mut params = spec["params"].clone();
        if let Some(pad) = c["pad"].as_u64() {
            let text = params["arguments"]["text"].as_str().unwrap().to_string();
            params["arguments"]["text"] = json!(text + &"x".repeat(pad as usize));
        }
        let mut meta = json!({"io.modelcontextprotocol/protocolVersion": version});
        if spec["no_caps"] != json!(true) {
            meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
        }
        let method = spec["method"].as_str().unwrap();
        set(&mut headers, "mcp-protocol-version", Some(version));
        set(&mut headers, "mcp-method", Some(method));
        if let Some(n) = params["name"].as_str() {
            set(&mut headers, "mcp-name", Some(n));
        }
        params["_meta"] = meta;
        serde_json::to_vec(&json!({"jsonrpc":"2.0","id":1,"method":method,"params":params}))
            .unwrap()
    };
    let mut body = body;
    if let Some(size) = c["size"].as_u64() {
        body.resize(size as usize, b' ');
    }
    if let Some(Value::Object(over)) = c.get("headers") {
        for (k, v) in over {
            set(&mut headers, k, v.as_str());
        }
    }
    (headers, body)
}

/// The parts of an answer a row's `expect` names.
fn outcome(c: &Value, r: &Resp) -> Value {
    let messages: Vec<Value> = if r.body.starts_with('{') {
        vec![serde_json::from_str(&r.body).unwrap()]
    } else {
        r.body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter(|d| !d.trim().is_empty())
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    };
    // The answer to the row's request (id 1), or an error that could name no id (a parse error).
    let answer = messages.iter().find(|m| m["id"] == json!(1)).or_else(|| {
        messages
            .iter()
            .find(|m| m.get("id").is_none() && m["error"].is_object())
    });
    let want = c["expect"].as_object().unwrap();
    let mut got = json!({"status": r.status});
    let error = answer.map(|a| &a["error"]).filter(|e| e.is_object());
    let result = answer.map(|a| &a["result"]).filter(|e| e.is_object());
    if want.contains_key("code") {
        got["code"] = error.map_or(Value::Null, |e| e["code"].clone());
    }
    if want.contains_key("message") {
        got["message"] = error.map_or(Value::Null, |e| e["message"].clone());
    }
    if want.contains_key("oauth_error") {
        got["oauth_error"] = messages
            .first()
            .map(|m| &m["error"])
            .filter(|e| e.is_string())
            .cloned()
            .unwrap_or(Value::Null);
    }
    if want.contains_key("text") {
        got["text"] = result.map_or(Value::Null, |r| r["content"][0]["text"].clone());
    }
    if want.contains_key("cursor") {
        got["cursor"] = json!(result.is_some_and(|r| r.get("nextCursor").is_some()));
    }
    got
}

async fn send(addr: SocketAddr, c: &Value) -> Resp {
    let (headers, body) = request_of(c, addr);
    let headers: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    request(addr, "POST", "/mcp", &headers, body).await
}

fn call_of(name: &str) -> Value {
    json!({"modern": {"method": "tools/call", "params": {"name": name, "arguments": {}}}, "expect": {"text": ""}})
}

/// A `hold: true` row: sent while a `hold` call is in flight (see the table's `about`).
async fn send_while_held(addr: SocketAddr, c: &Value) -> Resp {
    let text_of = |name: &str, r: &Resp| outcome(&call_of(name), r)["text"].clone();
    let held = tokio::spawn(async move { send(addr, &call_of("hold")).await });
    let entered = send(addr, &call_of("entered")).await;
    assert_eq!(text_of("entered", &entered), json!("held"));
    let answer = send(addr, c).await;
    send(addr, &call_of("release")).await;
    let held = held.await.unwrap();
    assert_eq!(text_of("hold", &held), json!("released"));
    answer
}

#[tokio::test]
async fn every_row_gets_the_shared_answer() {
    let table: Value = serde_json::from_str(TABLE).unwrap();
    let mut differ = Vec::new();
    for (name, options) in table["configs"].as_object().unwrap() {
        let config = Config::from_json(options.clone()).unwrap();
        let running = serve(
            fixture(&config),
            config.listen.http_config(loopback()).unwrap(),
        )
        .await;
        for c in table["cases"].as_array().unwrap() {
            if c["config"] != json!(name) {
                continue;
            }
            let r = if c["hold"] == json!(true) {
                send_while_held(running.addr, c).await
            } else {
                send(running.addr, c).await
            };
            let got = outcome(c, &r);
            if got != c["expect"] {
                differ.push(format!(
                    "{}: expected {}, got {got} ({})",
                    c["name"],
                    c["expect"],
                    r.body.chars().take(200).collect::<String>()
                ));
            }
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
