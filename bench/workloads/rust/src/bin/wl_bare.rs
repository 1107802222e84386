//! The workload benchmark's bare server: hyper 1 + serde_json, no MCP library, written as a
//! minimal hand-written server is: each request parsed into a `serde_json::Value`, the answer
//! built with `json!` and serialized (a 100 KB structured result written twice, structured and
//! as text; a blob base64-encoded per read; the tool list per request), nothing else (no
//! validation, no headers checked, no errors in MCP's shape). `json!` copies the structured
//! result and the tool list into the answer before serializing them, so this is a plain
//! server's cost, not the lowest possible one (that would serialize them by reference).

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::Arc;
use wl_peers::{count, Data};

struct State {
    data: Data,
    tools: Value,
}

fn result(st: &State, req: &Value) -> Value {
    let p = &req["params"];
    match req["method"].as_str().unwrap_or("") {
        "tools/call" => {
            let name = p["name"].as_str().unwrap_or("");
            if let Some((_, v)) = st.data.records.iter().find(|(n, _)| n == name) {
                let text = serde_json::to_string(v).unwrap();
                return json!({"content": [{"type": "text", "text": text}], "structuredContent": v,
                              "resultType": "complete"});
            }
            let a = &p["arguments"];
            let s = a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0);
            json!({"content": [{"type": "text", "text": s.to_string()}], "resultType": "complete"})
        }
        "tools/list" => json!({"tools": st.tools, "resultType": "complete"}),
        "resources/read" => {
            let uri = p["uri"].as_str().unwrap_or("");
            let c = if let Some((u, b)) = st.data.blobs.iter().find(|(u, _)| u == uri) {
                let b64 = base64::engine::general_purpose::STANDARD.encode(b);
                json!({"uri": u, "mimeType": "application/octet-stream", "blob": b64})
            } else if let Some((u, t)) = st.data.texts.iter().find(|(u, _)| u == uri) {
                json!({"uri": u, "mimeType": "text/plain", "text": t})
            } else {
                return json!({"contents": []});
            };
            json!({"contents": [c], "resultType": "complete"})
        }
        _ => json!({}),
    }
}

async fn serve(st: Arc<State>, req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let out = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result(&st, &msg)});
    let bytes = serde_json::to_vec(&out).unwrap();
    Ok(Response::builder().header("content-type", "application/json").body(Full::new(Bytes::from(bytes))).unwrap())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = wl_peers::port();
    let data = Data::load();
    let mut tools = Vec::new();
    for (name, _) in &data.records {
        tools.push(json!({"name": name, "description": "A page of records",
                          "inputSchema": {"type": "object", "properties": {}}, "outputSchema": data.records_schema}));
    }
    for i in 0..count("WL_TOOLS") {
        tools.push(json!({"name": format!("tool_{i:04}"), "description": format!("Generated tool number {i}: adds a and b."),
            "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"},
                            "note": {"type": "string"}}, "required": ["a", "b"]}}));
    }
    let st = Arc::new(State { data, tools: Value::Array(tools) });
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    loop {
        let (sock, _) = listener.accept().await?;
        sock.set_nodelay(true)?;
        let st = st.clone();
        tokio::spawn(async move {
            let svc = service_fn(move |r| serve(st.clone(), r));
            let _ = http1::Builder::new().serve_connection(TokioIo::new(sock), svc).await;
        });
    }
}
