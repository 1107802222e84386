//! Golden JSON-RPC transcripts (tests/transcripts/*.json, format in tests/transcripts/README.md)
//! replayed against the Rust everything server over HTTP and stdio. The Python and Node
//! everything servers replay the same files.

use crate::harness::*;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/transcripts")
}

struct Transcript {
    name: String,
    version: String,
    transports: Vec<String>,
    /// Environment variables the server starts with (README: "env").
    env: Vec<(String, String)>,
    exchanges: Vec<Value>,
}

fn load(name: &str) -> Transcript {
    let path = dir().join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let transports = v["transports"]
        .as_array()
        .expect("transports")
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    Transcript {
        name: name.to_string(),
        version: v["protocolVersion"]
            .as_str()
            .expect("protocolVersion")
            .to_string(),
        transports,
        env: v["env"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            v.as_str().expect("env values are strings").to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
        exchanges: v["exchanges"].as_array().expect("exchanges").clone(),
    }
}

/// Remove what legitimately differs between servers and runs (README: "Matching").
pub fn normalize(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("serverInfo");
            m.remove("instructions");
            if let Some(Value::Object(meta)) = m.get_mut("_meta") {
                meta.remove("io.modelcontextprotocol/serverInfo");
                if meta.is_empty() {
                    m.remove("_meta");
                }
            }
            if let Some(s @ Value::String(_)) = m.get_mut("requestState") {
                *s = Value::String("<requestState>".into());
            }
            m.values_mut().for_each(normalize);
        }
        Value::Array(a) => a.iter_mut().for_each(normalize),
        _ => {}
    }
}

/// `expected` matches `actual`: exactly, or (subset) with extra object keys and extra array
/// elements allowed. `"<any>"` matches any value.
pub fn matches(expected: &Value, actual: &Value, subset: bool, path: &str) -> Result<(), String> {
    if expected.as_str() == Some("<any>") {
        return Ok(());
    }
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            if !subset {
                if let Some(k) = a.keys().find(|k| !e.contains_key(*k)) {
                    return Err(format!("{path}/{k}: unexpected key"));
                }
            }
            for (k, ev) in e {
                let av = a.get(k).ok_or_else(|| format!("{path}/{k}: missing"))?;
                matches(ev, av, subset, &format!("{path}/{k}"))?;
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(a)) if !subset => {
            if e.len() != a.len() {
                return Err(format!(
                    "{path}: {} elements, expected {}",
                    a.len(),
                    e.len()
                ));
            }
            e.iter()
                .zip(a)
                .enumerate()
                .try_for_each(|(i, (ev, av))| matches(ev, av, false, &format!("{path}/{i}")))
        }
        (Value::Array(e), Value::Array(a)) => {
            // Subset: the expected elements appear in this order among the actual ones.
            let mut rest = a.iter();
            for (i, ev) in e.iter().enumerate() {
                if !rest.any(|av| matches(ev, av, true, "").is_ok()) {
                    return Err(format!("{path}/{i}: no matching element for {ev}"));
                }
            }
            Ok(())
        }
        _ if expected == actual => Ok(()),
        _ => Err(format!("{path}: expected {expected}, got {actual}")),
    }
}

fn check(
    t: &Transcript,
    transport: &str,
    i: usize,
    ex: &Value,
    actual: &Value,
    what: &str,
    expected: &Value,
) {
    let mut a = actual.clone();
    let mut e = expected.clone();
    normalize(&mut a);
    normalize(&mut e);
    let subset = ex.get("match").and_then(Value::as_str) == Some("subset");
    if let Err(msg) = matches(&e, &a, subset, "") {
        panic!("{} over {transport}, exchange #{i} ({what}): {msg}\n  request:  {}\n  expected: {e}\n  actual:   {a}", t.name, ex["request"]);
    }
}

/// Substitute `"<requestState>"` in a request with the last `requestState` received.
fn substitute(v: &mut Value, state: Option<&str>) {
    match v {
        Value::String(s) if s == "<requestState>" => {
            *s = state
                .expect("<requestState> used before any response carried one")
                .to_string();
        }
        Value::Object(m) => m.values_mut().for_each(|x| substitute(x, state)),
        Value::Array(a) => a.iter_mut().for_each(|x| substitute(x, state)),
        _ => {}
    }
}

fn last_state(v: &Value) -> Option<String> {
    v.pointer("/result/requestState")
        .and_then(Value::as_str)
        .map(str::to_string)
}

async fn replay_http(t: &Transcript) {
    let env: Vec<(&str, &str)> = t
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let s = HttpServer::start_with("everything", &env).await;
    let mut session: Option<String> = None;
    let mut initialized = false;
    let mut state: Option<String> = None;
    for (i, ex) in t.exchanges.iter().enumerate() {
        let mut req = ex["request"].clone();
        substitute(&mut req, state.as_deref());
        let first = match &req {
            Value::Array(a) => a.first().cloned().unwrap_or(Value::Null),
            v => v.clone(),
        };
        let method = first["method"].as_str().unwrap_or("").to_string();
        let modern_version = first
            .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_string);
        let mut h: Vec<(&str, String)> = Vec::new();
        if let Some(v) = modern_version {
            h.push(("MCP-Protocol-Version", v));
            h.push(("Mcp-Method", method.clone()));
            let name = match method.as_str() {
                "tools/call" | "prompts/get" => first.pointer("/params/name"),
                "resources/read" => first.pointer("/params/uri"),
                _ => None,
            };
            if let Some(n) = name.and_then(Value::as_str) {
                h.push(("Mcp-Name", n.to_string()));
            }
        } else if initialized {
            if let Some(sid) = &session {
                h.push(("Mcp-Session-Id", sid.clone()));
            }
            if t.version.as_str() >= "2025-06-18" {
                h.push(("MCP-Protocol-Version", t.version.clone()));
            }
        }
        let hv: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = s.post(&hv, &req.to_string()).await;
        let expected_status = ex
            .pointer("/http/status")
            .and_then(Value::as_u64)
            .map(|s| s as u16)
            .unwrap_or(if ex["response"].is_null() { 202 } else { 200 });
        assert_eq!(
            r.status, expected_status,
            "{} over http, exchange #{i}: status\n  request: {req}\n  body: {}",
            t.name, r.body
        );
        if ex["response"].is_null() {
            assert!(
                r.body.is_empty(),
                "{} over http, exchange #{i}: a 202 has no body: {}",
                t.name,
                r.body
            );
            continue;
        }
        let mut msgs = r.messages();
        let last = msgs.pop().expect("a response");
        check(t, "http", i, ex, &last, "response", &ex["response"]);
        if let Some(n) = ex.get("notifications") {
            check(t, "http", i, ex, &Value::Array(msgs), "notifications", n);
        }
        if method == "initialize" {
            session = r
                .headers
                .get("mcp-session-id")
                .map(|v| v.to_str().unwrap().to_string());
            initialized = true;
        }
        state = last_state(&last).or(state);
    }
}

async fn replay_stdio(t: &Transcript) {
    let env: Vec<(&str, &str)> = t
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mut s = StdioServer::start_with("everything", &env);
    let mut state: Option<String> = None;
    for (i, ex) in t.exchanges.iter().enumerate() {
        let mut req = ex["request"].clone();
        substitute(&mut req, state.as_deref());
        s.send(&req).await;
        if ex["response"].is_null() {
            continue;
        }
        let mut notes = Vec::new();
        let last = loop {
            let m = s.recv().await;
            let done = match &req {
                Value::Array(_) => m.is_array(),
                r => m.get("method").is_none() && m.get("id") == r.get("id"),
            };
            if done {
                break m;
            }
            assert!(
                m.get("method").is_some() && m.get("id").is_none(),
                "{} over stdio, exchange #{i}: unexpected message {m}",
                t.name
            );
            notes.push(m);
        };
        check(t, "stdio", i, ex, &last, "response", &ex["response"]);
        if let Some(n) = ex.get("notifications") {
            check(t, "stdio", i, ex, &Value::Array(notes), "notifications", n);
        }
        state = last_state(&last).or(state);
    }
    assert!(
        s.recv_within(Duration::from_millis(200)).await.is_none(),
        "{}: a message after the last exchange",
        t.name
    );
    assert_eq!(s.eof_exit(Duration::from_secs(10)).await.code(), Some(0));
}

async fn replay(name: &str) {
    let t = load(name);
    assert!(!t.exchanges.is_empty());
    for transport in &t.transports {
        match transport.as_str() {
            "http" => replay_http(&t).await,
            "stdio" => replay_stdio(&t).await,
            other => panic!("{name}: unknown transport {other}"),
        }
    }
}

#[tokio::test]
async fn transcript_2024_11_05() {
    replay("2024-11-05").await;
}

#[tokio::test]
async fn transcript_2025_03_26() {
    replay("2025-03-26").await;
}

#[tokio::test]
async fn transcript_2025_06_18() {
    replay("2025-06-18").await;
}

#[tokio::test]
async fn transcript_2025_11_25() {
    replay("2025-11-25").await;
}

#[tokio::test]
async fn transcript_2026_07_28() {
    replay("2026-07-28").await;
}

#[tokio::test]
async fn transcript_stdio() {
    replay("stdio").await;
}

#[tokio::test]
async fn transcript_tool_search() {
    replay("tool-search").await;
}

/// Every file in the folder is replayed by a test above, and is well formed.
#[test]
fn every_transcript_file_is_replayed() {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28",
            "stdio",
            "tool-search"
        ]
    );
    for n in &names {
        let t = load(n);
        for ex in &t.exchanges {
            let keys: Vec<&String> = ex.as_object().unwrap().keys().collect();
            assert!(
                keys.iter().all(|k| [
                    "request",
                    "response",
                    "notifications",
                    "match",
                    "http",
                    "comment"
                ]
                .contains(&k.as_str())),
                "{n}: {keys:?}"
            );
        }
    }
}

#[test]
fn the_matcher_itself() {
    use serde_json::json;
    let m = |e: Value, a: Value, subset| matches(&e, &a, subset, "");
    assert!(m(json!({"a":1}), json!({"a":1}), false).is_ok());
    assert!(m(json!({"a":1}), json!({"a":1,"b":2}), false).is_err());
    assert!(m(json!({"a":1}), json!({"a":1,"b":2}), true).is_ok());
    assert!(m(json!({"a":1}), json!({"a":2}), true).is_err());
    assert!(m(json!([1, 3]), json!([1, 2, 3]), true).is_ok());
    assert!(m(json!([3, 1]), json!([1, 2, 3]), true).is_err());
    assert!(m(json!([1, 3]), json!([1, 2, 3]), false).is_err());
    assert!(m(json!({"x":"<any>"}), json!({"x":[1]}), false).is_ok());
    assert!(m(json!({"x":"<any>"}), json!({}), false).is_err());
    let mut v = json!({"result":{"requestState":"abc","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x"}},"serverInfo":{},"instructions":"i"}});
    normalize(&mut v);
    assert_eq!(v, json!({"result":{"requestState":"<requestState>"}}));
}
