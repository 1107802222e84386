//! Spawning the example servers and speaking to them over real HTTP and stdio.
#![allow(dead_code)]

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
        Self::start_args(name, &[], env).await
    }
    /// Start `name --http 127.0.0.1:0 ARGS...` with extra environment variables.
    pub async fn start_args(name: &str, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut cmd = Command::new(bin(name));
        cmd.args(["--http", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn server");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let addr = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let l = lines
                    .next_line()
                    .await
                    .unwrap()
                    .expect("server exited before listening");
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
        Self {
            child,
            addr,
            stderr: rx,
        }
    }

    pub async fn post(&self, headers: &[(&str, &str)], body: &str) -> Resp {
        request(
            &self.addr,
            "POST",
            "/mcp",
            headers,
            body.as_bytes().to_vec(),
        )
        .await
    }

    /// A modern request with correct headers and `_meta`.
    pub async fn modern(&self, id: Value, method: &str, mut params: Value) -> Resp {
        self.modern_with(id, method, &mut params, json!({})).await
    }

    pub async fn modern_with(
        &self,
        id: Value,
        method: &str,
        params: &mut Value,
        caps: Value,
    ) -> Resp {
        let (h, body) = modern_request(id, method, params, caps);
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        self.post(&h, &body).await
    }

    /// A modern request (correct headers and `_meta`; `params._meta` entries given by the caller,
    /// such as `progressToken` or `logLevel`, are kept), read incrementally.
    pub async fn modern_stream(
        &self,
        id: Value,
        method: &str,
        mut params: Value,
        caps: Value,
    ) -> Stream {
        let (h, body) = modern_request(id, method, &mut params, caps);
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        Stream::open(&self.addr, "POST", &h, body.into_bytes()).await
    }

    /// Any method, path `/mcp`, the default headers unless overridden.
    pub async fn send(&self, method: &str, headers: &[(&str, &str)], body: &str) -> Resp {
        request(
            &self.addr,
            method,
            "/mcp",
            headers,
            body.as_bytes().to_vec(),
        )
        .await
    }

    /// `initialize` at `version` (then `notifications/initialized`): a legacy session.
    pub async fn initialize(&self, version: &str, caps: Value) -> Legacy {
        let body = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":version,"capabilities":caps,"clientInfo":{"name":"oxmcp-it","version":"0"}}});
        let r = self.post(&[], &body.to_string()).await;
        assert_eq!(r.status, 200, "initialize: {}", r.body);
        assert_eq!(r.result()["protocolVersion"], version);
        let session = r
            .headers
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_string());
        let l = Legacy {
            addr: self.addr.clone(),
            version: version.to_string(),
            session,
        };
        let n = l
            .post(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
        assert_eq!(n.status, 202, "notifications/initialized: {}", n.body);
        l
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
    pub headers: hyper::HeaderMap,
    pub body: String,
}

impl Resp {
    pub fn content_type(&self) -> &str {
        self.headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
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
            vec![serde_json::from_str(&self.body)
                .unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", self.body))]
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
        self.json()["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("no error in {}", self.body))
    }
}

/// One HTTP/1.1 request on a fresh connection.
pub async fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Resp {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .expect("handshake");
    tokio::spawn(conn);
    let req = build_request(addr, method, path, headers, body.clone());
    let resp = match tokio::time::timeout(Duration::from_secs(30), sender.send_request(req))
        .await
        .expect("response within 30 s")
    {
        Ok(r) => r,
        // The server answered (413) without reading the whole body, and the client library
        // reports the failed body write instead of that answer: read it on a raw socket.
        Err(e) if format!("{e:?}").contains("BodyWrite") => {
            return raw_request(addr, method, path, headers, body).await
        }
        Err(e) => panic!("response: {e:?}"),
    };
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = tokio::time::timeout(Duration::from_secs(30), resp.into_body().collect())
        .await
        .expect("body within 30 s")
        .expect("body")
        .to_bytes();
    Resp {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// Build a request. `Host`, `Content-Type: application/json` and
/// `Accept: application/json, text/event-stream` are added unless `headers` names them; a
/// header given the value [`OMIT`] is not sent at all.
fn build_request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> hyper::Request<Full<Bytes>> {
    let mut b = hyper::Request::builder().method(method).uri(path);
    let has = |n: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(n));
    if !has("host") {
        b = b.header("host", addr);
    }
    if !has("content-type") {
        b = b.header("content-type", "application/json");
    }
    if !has("accept") {
        b = b.header("accept", "application/json, text/event-stream");
    }
    for (k, v) in headers {
        if *v != OMIT {
            b = b.header(*k, *v);
        }
    }
    b.body(Full::new(Bytes::from(body))).unwrap()
}

/// Header value meaning "do not send this header" (to drop a default one).
pub const OMIT: &str = "\u{0}omit";

/// A response read incrementally: for `subscriptions/listen`, SSE progress and anything whose
/// timing matters. Dropping it closes the connection (a client disconnect).
pub struct Stream {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    body: hyper::body::Incoming,
    buf: Vec<u8>,
    conn: tokio::task::JoinHandle<()>,
    /// SSE comment lines seen so far (keep-alives).
    pub comments: usize,
    ended: bool,
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.conn.abort();
    }
}

impl Stream {
    pub async fn open(addr: &str, method: &str, headers: &[(&str, &str)], body: Vec<u8>) -> Stream {
        let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let (mut sender, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .expect("handshake");
        let conn = tokio::spawn(async move {
            let _ = conn.await;
        });
        let req = build_request(addr, method, "/mcp", headers, body);
        let resp = tokio::time::timeout(Duration::from_secs(30), sender.send_request(req))
            .await
            .expect("response head within 30 s")
            .expect("response");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        Stream {
            status,
            headers,
            body: resp.into_body(),
            buf: Vec::new(),
            conn,
            comments: 0,
            ended: false,
        }
    }

    pub fn content_type(&self) -> &str {
        self.headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The next SSE `data:` message, or `None` if none arrives within `within` or the stream ends.
    pub async fn next(&mut self, within: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(pos) = self.buf.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = self.buf.drain(..pos + 2).collect();
                let text = String::from_utf8_lossy(&event);
                let data: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim)
                    .collect();
                if text.lines().any(|l| l.starts_with(':')) {
                    self.comments += 1;
                }
                if !data.is_empty() {
                    let joined = data.join("\n");
                    return Some(
                        serde_json::from_str(&joined)
                            .unwrap_or_else(|e| panic!("SSE data is not JSON ({e}): {joined}")),
                    );
                }
                continue;
            }
            if self.ended {
                return None;
            }
            match tokio::time::timeout_at(deadline, self.body.frame()).await {
                Err(_) => return None,
                Ok(None) | Ok(Some(Err(_))) => self.ended = true,
                Ok(Some(Ok(f))) => {
                    if let Ok(d) = f.into_data() {
                        self.buf.extend_from_slice(&d);
                    }
                }
            }
        }
    }

    /// The next message, which must arrive within 10 s.
    pub async fn expect(&mut self) -> Value {
        self.next(Duration::from_secs(10))
            .await
            .expect("an SSE message within 10 s")
    }

    /// Whether the server ended the stream (within `within`), draining what is left.
    pub async fn ended_within(&mut self, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        while !self.ended {
            match tokio::time::timeout_at(deadline, self.body.frame()).await {
                Err(_) => return false,
                Ok(None) | Ok(Some(Err(_))) => self.ended = true,
                Ok(Some(Ok(f))) => {
                    if let Ok(d) = f.into_data() {
                        self.buf.extend_from_slice(&d);
                    }
                }
            }
        }
        true
    }
}

/// The headers and body of a modern request: `_meta` filled in (keeping extra keys already in
/// `params._meta`), `MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name` where the method has one.
pub fn modern_request(
    id: Value,
    method: &str,
    params: &mut Value,
    caps: Value,
) -> (Vec<(&'static str, String)>, String) {
    if !params.is_object() {
        *params = json!({});
    }
    let meta = params
        .as_object_mut()
        .unwrap()
        .entry("_meta")
        .or_insert_with(|| json!({}));
    meta["io.modelcontextprotocol/protocolVersion"] = json!(MODERN);
    meta["io.modelcontextprotocol/clientCapabilities"] = caps;
    meta["io.modelcontextprotocol/clientInfo"] = json!({"name":"oxmcp-it","version":"0"});
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .or_else(|| params.get("taskId"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let body = json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string();
    let mut h = vec![
        ("MCP-Protocol-Version", MODERN.to_string()),
        ("Mcp-Method", method.to_string()),
    ];
    if let Some(n) = name {
        if matches!(
            method,
            "tools/call"
                | "prompts/get"
                | "resources/read"
                | "tasks/get"
                | "tasks/update"
                | "tasks/cancel"
        ) {
            h.push(("Mcp-Name", n));
        }
    }
    (h, body)
}

/// A legacy HTTP session (or stateless legacy client when `session` is `None`).
#[derive(Clone, Debug)]
pub struct Legacy {
    pub addr: String,
    pub version: String,
    pub session: Option<String>,
}

impl Legacy {
    /// The headers a client of this version sends after `initialize`.
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        let mut h = Vec::new();
        if let Some(s) = &self.session {
            h.push(("Mcp-Session-Id", s.clone()));
        }
        // MCP-Protocol-Version exists from 2025-06-18 on.
        if self.version.as_str() >= "2025-06-18" {
            h.push(("MCP-Protocol-Version", self.version.clone()));
        }
        h
    }
    pub async fn post(&self, body: &Value) -> Resp {
        let h = self.headers();
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        request(
            &self.addr,
            "POST",
            "/mcp",
            &h,
            body.to_string().into_bytes(),
        )
        .await
    }
    pub async fn call(&self, id: Value, method: &str, params: Value) -> Resp {
        self.post(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}))
            .await
    }
    pub async fn stream(&self, body: &Value) -> Stream {
        let h = self.headers();
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        Stream::open(&self.addr, "POST", &h, body.to_string().into_bytes()).await
    }
    /// Any HTTP method with the session headers (GET stream, DELETE).
    pub async fn send(&self, method: &str) -> Resp {
        let h = self.headers();
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        request(&self.addr, method, "/mcp", &h, Vec::new()).await
    }
}

/// A request written on a raw socket (`Connection: close`) while the answer is read
/// concurrently: for answers the server sends before reading the whole body (413), which an HTTP
/// client library reports as a failed body write. Same default headers as [`request`]; the
/// answer must have a plain (not chunked) body.
pub async fn raw_request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Resp {
    use tokio::io::AsyncReadExt;
    let conn = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (mut rd, mut wr) = conn.into_split();
    let has = |n: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(n));
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in [
        ("Host", addr),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ] {
        if !has(k) {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    for (k, v) in headers {
        if *v != OMIT {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    head.push_str("\r\n");
    let writer = tokio::spawn(async move {
        // The server may stop reading: write errors are expected then.
        if wr.write_all(head.as_bytes()).await.is_ok() {
            let _ = wr.write_all(&body).await;
        }
    });
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let read = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match rd.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "no answer within 30 s");
    writer.abort();
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP response: {text:?}"));
    let mut lines = head.lines();
    let status_line = lines.next().unwrap_or("");
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line: {status_line}"));
    let mut map = hyper::HeaderMap::new();
    for l in lines {
        if let Some((k, v)) = l.split_once(':') {
            if let (Ok(k), Ok(v)) = (
                hyper::header::HeaderName::from_bytes(k.trim().as_bytes()),
                hyper::header::HeaderValue::from_str(v.trim()),
            ) {
                map.append(k, v);
            }
        }
    }
    Resp {
        status,
        headers: map,
        body: body.to_string(),
    }
}

/// [`raw_request`] as a POST to `/mcp`: the status and the body.
pub async fn raw_post(addr: &str, headers: &[(&str, &str)], body: Vec<u8>) -> (u16, String) {
    let r = raw_request(addr, "POST", "/mcp", headers, body).await;
    (r.status, r.body)
}

/// A server process on stdio pipes.
pub struct StdioServer {
    pub child: Child,
    stdin: Option<ChildStdin>,
    stdout: tokio::io::Lines<BufReader<ChildStdout>>,
    pub stderr: tokio::sync::mpsc::UnboundedReceiver<String>,
}

impl StdioServer {
    pub fn start(name: &str) -> Self {
        Self::start_with(name, &[])
    }
    pub fn start_with(name: &str, env: &[(&str, &str)]) -> Self {
        let mut cmd = Command::new(bin(name));
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut err = BufReader::new(child.stderr.take().unwrap()).lines();
        let (tx, stderr) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(Some(l)) = err.next_line().await {
                let _ = tx.send(l);
            }
        });
        Self {
            child,
            stdin: Some(stdin),
            stdout,
            stderr,
        }
    }
    /// The next stdout message within `within`, or `None` (nothing was written).
    pub async fn recv_within(&mut self, within: Duration) -> Option<Value> {
        let l = tokio::time::timeout(within, self.stdout.next_line())
            .await
            .ok()?
            .unwrap()?;
        Some(
            serde_json::from_str(&l)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l}")),
        )
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
    /// Close stdin and wait (bounded) for the process to exit.
    pub async fn eof_exit(mut self, within: Duration) -> std::process::ExitStatus {
        drop(self.stdin.take());
        tokio::time::timeout(within, self.child.wait())
            .await
            .expect("exit after EOF")
            .expect("wait")
    }
    pub async fn send_raw(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
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
    /// Close stdin (EOF for the server), keeping stdout readable.
    pub fn close_stdin_only(&mut self) {
        drop(self.stdin.take());
    }
    pub async fn close_stdin(mut self) -> Child {
        drop(self.stdin.take());
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

/// A `redis-server` of the test's own on a free loopback port, no persistence, killed when
/// dropped; `restart` brings it back on the same port (the Redis-outage tests). A missing
/// `redis-server` fails the test, naming `bash scripts/setup.sh`, which installs it.
pub struct RedisServer {
    child: Option<std::process::Child>,
    port: u16,
}

impl RedisServer {
    pub fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let mut r = Self { child: None, port };
        r.restart();
        r
    }
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
    pub fn restart(&mut self) {
        self.stop();
        let child = std::process::Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run redis-server ({e}): `bash scripts/setup.sh` installs it (apt-get install redis-server)")
            });
        self.child = Some(child);
        let start = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "redis-server did not listen"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}
