//! Streamable HTTP on a Unix domain socket: a client over the socket (HTTP/1.1 and HTTP/2 by
//! prior knowledge) initializes, lists and calls; the file's mode; a stale file replaced, a
//! live one and a regular file refused (and left alone); the Host rule as on loopback; the
//! file removed at shutdown.
#![cfg(unix)]

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use oxmcp::transport::http::{HttpConfig, UdsConfig};
use oxmcp::transport::http_server::HttpServer;
use oxmcp::{HandlerError, Server, Tool, ToolResult};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

const LEGACY: &str = "2025-06-18";

fn server() -> Server {
    let add = Tool::new(
        "add",
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
    )
    .handler(|args: serde_json::Map<String, Value>, _ctx| async move {
        let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
        Ok::<_, HandlerError>(ToolResult::text(sum.to_string()))
    });
    Server::builder("uds-test", "1.0.0")
        .tool(add)
        .build()
        .unwrap()
}

/// A directory of its own under the system's temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("oxmcp-uds-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir(&p).unwrap();
        Self(p)
    }
    fn sock(&self) -> PathBuf {
        self.0.join("mcp.sock")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn config(uds: UdsConfig) -> HttpConfig {
    HttpConfig::new("127.0.0.1:0".parse().unwrap()).uds(Some(uds))
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777
}

/// One POST over a fresh connection to the socket: status, session id, and the JSON-RPC message
/// (a JSON body, or the first `data:` of an SSE one).
async fn post(
    sock: &Path,
    h2: bool,
    host: &str,
    session: Option<&str>,
    body: Value,
) -> (u16, Option<String>, Value) {
    let stream = tokio::net::UnixStream::connect(sock).await.unwrap();
    let mut req = hyper::Request::post(if h2 {
        format!("http://{host}/mcp")
    } else {
        "/mcp".into()
    })
    .header("content-type", "application/json")
    .header("accept", "application/json, text/event-stream")
    .header("mcp-protocol-version", LEGACY);
    if !h2 {
        req = req.header("host", host);
    }
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    let req = req.body(Full::new(Bytes::from(body.to_string()))).unwrap();
    let resp = if h2 {
        let (mut sender, conn) = hyper::client::conn::http2::handshake(
            hyper_util::rt::TokioExecutor::new(),
            TokioIo::new(stream),
        )
        .await
        .unwrap();
        tokio::spawn(conn);
        sender.send_request(req).await.unwrap()
    } else {
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(conn);
        sender.send_request(req).await.unwrap()
    };
    let status = resp.status().as_u16();
    let sid = resp
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&bytes);
    let json = text
        .lines()
        .find_map(|l| l.strip_prefix("data:"))
        .unwrap_or(&text)
        .trim()
        .to_string();
    (
        status,
        sid,
        serde_json::from_str(&json).unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn serves_mcp_over_a_unix_socket_with_mode_0600() {
    let dir = TempDir::new("serve");
    let sock = dir.sock();
    let http = HttpServer::bind(server(), config(UdsConfig::new(&sock)))
        .await
        .unwrap();
    assert_eq!(http.uds_path(), Some(sock.as_path()));
    assert_eq!(http.address(), format!("unix:{}", sock.display()));
    assert_eq!(mode(&sock), 0o600, "the default mode");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(http.serve(async move {
        let _ = stopped.await;
    }));

    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (status, sid, msg) = post(&sock, false, "localhost", None, init).await;
    assert_eq!(status, 200, "{msg}");
    assert_eq!(msg["result"]["serverInfo"]["name"], "uds-test");
    let sid = sid.expect("a session id");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        post(&sock, false, "localhost", Some(&sid), note).await.0,
        202
    );

    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (status, _, msg) = post(&sock, false, "localhost", Some(&sid), list).await;
    assert_eq!(status, 200);
    assert_eq!(msg["result"]["tools"][0]["name"], "add");

    // HTTP/2 by prior knowledge on the same socket.
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}}});
    let (status, _, msg) = post(&sock, true, "localhost", Some(&sid), call.clone()).await;
    assert_eq!(status, 200, "{msg}");
    assert_eq!(msg["result"]["content"][0]["text"], "5");

    // The DNS-rebinding guard's loopback rule: a rebound name is refused, over either protocol.
    for h2 in [false, true] {
        let (status, _, msg) = post(&sock, h2, "evil.example", Some(&sid), call.clone()).await;
        assert_eq!(status, 403, "h2 {h2}: {msg}");
        assert_eq!(msg["error"]["message"], "Forbidden: Host not allowed");
    }

    let _ = stop.send(());
    serving.await.unwrap().unwrap();
    assert!(!sock.exists(), "the socket file is removed at shutdown");
}

#[tokio::test]
async fn a_custom_mode_is_the_files_mode() {
    let dir = TempDir::new("mode");
    let sock = dir.sock();
    let http = HttpServer::bind(server(), config(UdsConfig::new(&sock).mode(0o660)))
        .await
        .unwrap();
    assert_eq!(mode(&sock), 0o660);
    drop(http);
    assert!(
        !sock.exists(),
        "a bound server that is dropped removes its file"
    );
    let e = HttpServer::bind(server(), config(UdsConfig::new(&sock).mode(0o1777)))
        .await
        .err()
        .unwrap();
    assert!(e.to_string().contains("at most 0o777"), "{e}");
}

#[tokio::test]
async fn a_stale_socket_is_replaced_and_a_live_one_refused() {
    let dir = TempDir::new("stale");
    let sock = dir.sock();
    // A server that ended without removing its file: nobody accepts on it.
    drop(std::os::unix::net::UnixListener::bind(&sock).unwrap());
    assert!(sock.exists());
    let http = HttpServer::bind(server(), config(UdsConfig::new(&sock)))
        .await
        .expect("a stale socket file is replaced");
    assert_eq!(mode(&sock), 0o600);

    // Live: this server answers on it.
    let e = HttpServer::bind(server(), config(UdsConfig::new(&sock)))
        .await
        .err()
        .unwrap();
    assert_eq!(e.kind(), std::io::ErrorKind::AddrInUse);
    assert!(e.to_string().contains("another server is listening"), "{e}");
    assert!(sock.exists(), "the live server keeps its socket");
    drop(http);
}

#[tokio::test]
async fn a_file_that_is_not_a_socket_is_refused_and_left_alone() {
    let dir = TempDir::new("file");
    let sock = dir.sock();
    std::fs::write(&sock, "precious").unwrap();
    let e = HttpServer::bind(server(), config(UdsConfig::new(&sock)))
        .await
        .err()
        .unwrap();
    assert!(e.to_string().contains("is not a socket"), "{e}");
    assert_eq!(std::fs::read_to_string(&sock).unwrap(), "precious");
}
