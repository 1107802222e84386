//! Spawning the example servers and speaking to them over real HTTP and stdio.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use serde_json::{json, Value};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

pub const MODERN: &str = "2026-07-28";

pub fn bin(name: &str) -> &'static str {
    match name {
        "everything" => env!("CARGO_BIN_EXE_everything"),
        "sqlite-explorer" => env!("CARGO_BIN_EXE_sqlite-explorer"),
        _ => panic!("unknown binary {name}"),
    }
}

/// A server process serving Streamable HTTP on an ephemeral loopback port.
pub struct HttpServer {
    pub child: Child,
    pub addr: String,
    pub stderr: tokio::sync::mpsc::UnboundedReceiver<String>,
}

impl HttpServer {
    pub async fn start(name: &str) -> Self {
        Self::start_with(name, &[]).await
    }
    pub async fn start_with(name: &str, env: &[(&str, &str)]) -> Self {
        let mut cmd = Command::new(bin(name));
        cmd.args(["--http", "127.0.0.1:0"]).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).kill_on_drop(true);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn server");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let addr = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let l = lines.next_line().await.unwrap().expect("server exited before listening");
                if let Some(rest) = l.strip_prefix("listening on http://") {
                    return rest.trim_end_matches("/mcp").to_string();
                }
            }
        })
        .await
        .expect("server did not start in 20 s");
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(Some(l)) = lines.next_line().await {
                let _ = tx.send(l);
            }
        });
        Self { child, addr, stderr: rx }
    }

    pub async fn post(&self, headers: &[(&str, &str)], body: &str) -> Resp {
        request(&self.addr, "POST", "/mcp", headers, body.as_bytes().to_vec()).await
    }

    /// A modern request with correct headers and `_meta`.
    pub async fn modern(&self, id: Value, method: &str, mut params: Value) -> Resp {
        self.modern_with(id, method, &mut params, json!({})).await
    }

    pub async fn modern_with(&self, id: Value, method: &str, params: &mut Value, caps: Value) -> Resp {
        if !params.is_object() {
            *params = json!({});
        }
        let meta = params.as_object_mut().unwrap().entry("_meta").or_insert_with(|| json!({}));
        meta["io.modelcontextprotocol/protocolVersion"] = json!(MODERN);
        meta["io.modelcontextprotocol/clientCapabilities"] = caps;
        meta["io.modelcontextprotocol/clientInfo"] = json!({"name":"oxmcp-it","version":"0"});
        let name = params.get("name").or_else(|| params.get("uri")).and_then(Value::as_str).map(str::to_string);
        let body = json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string();
        let mut h = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)];
        if let Some(n) = name.as_deref() {
            if matches!(method, "tools/call" | "prompts/get" | "resources/read") {
                h.push(("Mcp-Name", n));
            }
        }
        self.post(&h, &body).await
    }

    /// Wait for a stderr line containing `needle`.
    pub async fn stderr_line(&mut self, needle: &str, within: Duration) -> Option<String> {
        tokio::time::timeout(within, async {
            while let Some(l) = self.stderr.recv().await {
                if l.contains(needle) {
                    return Some(l);
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
    }
}

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: http::HeaderMap,
    pub body: String,
}

impl Resp {
    pub fn content_type(&self) -> &str {
        self.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("")
    }
    /// Every JSON-RPC message in the body (one for JSON, each `data:` line for SSE).
    pub fn messages(&self) -> Vec<Value> {
        if self.content_type().starts_with("text/event-stream") {
            self.body
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| serde_json::from_str(d.trim()).expect("SSE data is JSON"))
                .collect()
        } else if self.body.is_empty() {
            Vec::new()
        } else {
            vec![serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", self.body))]
        }
    }
    /// The final message (the response).
    pub fn json(&self) -> Value {
        self.messages().pop().expect("a response message")
    }
    pub fn result(&self) -> Value {
        let v = self.json();
        assert!(v.get("error").is_none(), "unexpected error: {v}");
        v["result"].clone()
    }
    pub fn error_code(&self) -> i64 {
        self.json()["error"]["code"].as_i64().unwrap_or_else(|| panic!("no error in {}", self.body))
    }
}

/// One HTTP/1.1 request on a fresh connection.
pub async fn request(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: Vec<u8>) -> Resp {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(conn);
    let mut b = hyper::Request::builder().method(method).uri(path).header("host", addr);
    let has = |n: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(n));
    if !has("content-type") {
        b = b.header("content-type", "application/json");
    }
    if !has("accept") {
        b = b.header("accept", "application/json, text/event-stream");
    }
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let resp = tokio::time::timeout(Duration::from_secs(30), sender.send_request(b.body(Full::new(Bytes::from(body))).unwrap()))
        .await
        .expect("response within 30 s")
        .expect("response");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = tokio::time::timeout(Duration::from_secs(30), resp.into_body().collect()).await.expect("body within 30 s").expect("body").to_bytes();
    Resp { status, headers, body: String::from_utf8_lossy(&body).into_owned() }
}

/// A server process on stdio pipes.
pub struct StdioServer {
    pub child: Child,
    stdin: ChildStdin,
    stdout: tokio::io::Lines<BufReader<ChildStdout>>,
}

impl StdioServer {
    pub fn start(name: &str) -> Self {
        let mut child = Command::new(bin(name))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Self { child, stdin, stdout }
    }
    pub async fn send_raw(&mut self, line: &[u8]) {
        self.stdin.write_all(line).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }
    pub async fn send(&mut self, v: &Value) {
        self.send_raw(v.to_string().as_bytes()).await;
    }
    pub async fn recv(&mut self) -> Value {
        let l = tokio::time::timeout(Duration::from_secs(20), self.stdout.next_line())
            .await
            .expect("a line within 20 s")
            .unwrap()
            .expect("stdout closed");
        serde_json::from_str(&l).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l}"))
    }
    /// Read until the response with `id`, returning it and the notifications before it.
    pub async fn recv_response(&mut self, id: &Value) -> (Value, Vec<Value>) {
        let mut notes = Vec::new();
        loop {
            let m = self.recv().await;
            if m.get("id") == Some(id) && m.get("method").is_none() {
                return (m, notes);
            }
            notes.push(m);
        }
    }
    pub async fn close_stdin(self) -> Child {
        drop(self.stdin);
        self.child
    }
}

pub fn modern_params(mut params: Value, caps: Value) -> Value {
    if !params.is_object() {
        params = json!({});
    }
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps,
    });
    params
}
