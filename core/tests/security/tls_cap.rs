//! A TLS client over the connection cap reads its refusal: the handshake is completed (with the
//! certificate of the test CA in `tls/`, checked by the client), then the same 503, JSON-RPC
//! error and `Retry-After` as in plain text, over HTTP/2 or HTTP/1.1 as ALPN chose, and the
//! connection is closed. A client that never finishes its handshake is closed within the
//! header-read deadline.

use super::common::*;
use hyper_util::rt::{TokioExecutor, TokioIo};
use oxmcp::transport::http::TlsFiles;
use oxmcp::HandlerError;
use std::path::PathBuf;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};

fn tls_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/security/tls")
        .join(name)
}

/// A TLS connection to `addr` that trusts the test CA only, offering `alpn`.
async fn connect(
    addr: SocketAddr,
    alpn: &[&[u8]],
) -> tokio_rustls::client::TlsStream<tokio::net::TcpStream> {
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(tls_file("ca.pem")).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    connector
        .connect(ServerName::try_from("127.0.0.1").unwrap(), tcp)
        .await
        .unwrap()
}

fn call_body() -> String {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": MODERN,
                      "io.modelcontextprotocol/clientCapabilities": {}});
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": "hold", "arguments": {}, "_meta": meta}})
    .to_string()
}

fn call(uri: &str) -> hyper::Request<Full<Bytes>> {
    hyper::Request::post(uri)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "hold")
        .body(Full::new(Bytes::from(call_body())))
        .unwrap()
}

fn assert_refusal(status: u16, retry_after: Option<&str>, body: &str) {
    assert_eq!(status, 503, "{body}");
    assert!(
        retry_after.is_some_and(|v| v.parse::<u64>().is_ok()),
        "{retry_after:?}"
    );
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(v["jsonrpc"], "2.0", "{body}");
    assert_eq!(v["error"]["code"], -31503, "{body}");
}

#[tokio::test]
async fn a_tls_client_over_the_connection_cap_reads_its_refusal_in_h2_and_http11() {
    // The one place is held by a call that waits until the test lets it go.
    let release = Arc::new(tokio::sync::Notify::new());
    let started = Arc::new(tokio::sync::Notify::new());
    let hold = {
        let (release, started) = (release.clone(), started.clone());
        Tool::new("hold", json!({"type": "object"})).handler(
            move |_a: Map<String, Value>, _c: Context| {
                let (release, started) = (release.clone(), started.clone());
                async move {
                    started.notify_one();
                    release.notified().await;
                    Ok::<_, HandlerError>(ToolResult::text("held"))
                }
            },
        )
    };
    let server = Server::builder("tls-cap", "1.0.0")
        .tool(hold)
        .build()
        .unwrap();
    let mut config = HttpConfig::new(loopback())
        .max_connections(1, 0)
        .header_timeout(Duration::from_secs(2));
    config.tls = Some(TlsFiles {
        cert: tls_file("good.pem"),
        key: tls_file("good.key"),
    });
    let s = serve(server, config).await;
    let authority = format!("127.0.0.1:{}", s.addr.port());
    let uri = format!("https://{authority}/mcp");

    // The held call, over TLS and HTTP/2: served, not refused.
    let (mut held, conn) = hyper::client::conn::http2::handshake(
        TokioExecutor::new(),
        TokioIo::new(connect(s.addr, &[b"h2"]).await),
    )
    .await
    .unwrap();
    tokio::spawn(conn);
    let held_call = tokio::spawn(async move {
        let r = held.send_request(call(&uri)).await.unwrap();
        (
            r.status(),
            r.into_body().collect().await.unwrap().to_bytes(),
        )
    });
    started.notified().await;

    // Over HTTP/2 (ALPN h2): the refusal on the first stream, then the connection ends.
    let tls = connect(s.addr, &[b"h2", b"http/1.1"]).await;
    assert_eq!(tls.get_ref().1.alpn_protocol(), Some(b"h2".as_slice()));
    let (mut sender, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tls))
            .await
            .unwrap();
    let conn = tokio::spawn(conn);
    let r = sender
        .send_request(call(&format!("https://{authority}/mcp")))
        .await
        .unwrap();
    let status = r.status().as_u16();
    let retry = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    let body = r.into_body().collect().await.unwrap().to_bytes();
    assert_refusal(status, retry.as_deref(), &String::from_utf8_lossy(&body));
    tokio::time::timeout(Duration::from_secs(10), conn)
        .await
        .expect("the refused HTTP/2 connection is closed")
        .unwrap()
        .unwrap();

    // Over HTTP/1.1 (ALPN http/1.1): the same answer with `Connection: close`, then EOF.
    let mut tls = connect(s.addr, &[b"http/1.1"]).await;
    let body = call_body();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {authority}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: {MODERN}\r\n\
         mcp-method: tools/call\r\nmcp-name: hold\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    tls.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), tls.read_to_end(&mut raw))
        .await
        .expect("the refused HTTP/1.1 connection is closed")
        .unwrap();
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("{text}"));
    let head = head.to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 503"), "{head}");
    assert!(head.contains("\r\nconnection: close"), "{head}");
    let retry = head
        .lines()
        .find_map(|l| l.strip_prefix("retry-after: "))
        .map(str::trim);
    assert_refusal(503, retry, body);

    // A client that opens a connection and never finishes its handshake is closed by the
    // header-read deadline (2 s here), unanswered.
    let mut silent = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let mut buf = [0u8; 64];
    let n = tokio::time::timeout(Duration::from_secs(10), silent.read(&mut buf))
        .await
        .expect("a silent client is closed by the deadline")
        .unwrap_or(0);
    assert_eq!(n, 0);

    // The held call completes: the server served on.
    release.notify_one();
    let (status, body) = held_call.await.unwrap();
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&body).contains("held"));
}
