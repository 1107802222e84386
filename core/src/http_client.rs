//! The core's own outbound HTTP/1.1 requests (fetching a JWKS, exporting OTLP spans): one request
//! per connection over the hyper client the server already builds. `https://` needs the `tls`
//! feature: rustls (ring) trusting the Mozilla roots (webpki-roots) plus the PEM certificates in
//! `SSL_CERT_FILE` when it is set (a private CA, as curl and OpenSSL read it).

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full, Limited};

/// Send `request` (its URI absolute, `http://` or `https://`) and collect an answer of at most
/// `max_response` bytes. Errors are messages meant for a log line.
#[cfg_attr(not(any(feature = "auth-jwt", feature = "otel")), allow(dead_code))]
pub(crate) async fn send(
    request: Request<Bytes>,
    max_response: usize,
) -> Result<Response<Bytes>, String> {
    let authority = request
        .uri()
        .authority()
        .map(|a| a.to_string())
        .unwrap_or_default();
    let response = open(request).await?;
    let (parts, body) = response.into_parts();
    let body = Limited::new(body, max_response)
        .collect()
        .await
        .map_err(|e| format!("reading the answer from {authority}: {e}"))?
        .to_bytes();
    Ok(Response::from_parts(parts, body))
}

/// Send `request` and answer as soon as the head arrives: the body is read by the caller as it
/// comes (an SSE stream's events one by one).
pub(crate) async fn open(
    request: Request<Bytes>,
) -> Result<Response<hyper::body::Incoming>, String> {
    let (mut parts, body) = request.into_parts();
    let tls = match parts.uri.scheme_str() {
        Some("http") => false,
        Some("https") => true,
        _ => return Err(format!("{}: not an http(s) URL", parts.uri)),
    };
    let authority = parts
        .uri
        .authority()
        .cloned()
        .ok_or_else(|| format!("{}: no host", parts.uri))?;
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = authority.port_u16().unwrap_or(if tls { 443 } else { 80 });
    let tcp = tokio::net::TcpStream::connect((host.as_str(), port))
        .await
        .map_err(|e| format!("connect to {authority}: {e}"))?;
    let _ = tcp.set_nodelay(true);
    parts.uri = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .parse()
        .map_err(|e| format!("{e}"))?;
    parts.headers.insert(
        http::header::HOST,
        authority.as_str().parse().map_err(|e| format!("{e}"))?,
    );
    let request = Request::from_parts(parts, Full::new(body));
    if tls {
        #[cfg(feature = "tls")]
        {
            let stream = tls::connect(&host, tcp).await?;
            exchange(stream, request).await
        }
        #[cfg(not(feature = "tls"))]
        return Err(format!(
            "https://{authority}: oxmcp was built without its `tls` feature"
        ));
    } else {
        exchange(tcp, request).await
    }
}

async fn exchange<S>(
    stream: S,
    request: Request<Full<Bytes>>,
) -> Result<Response<hyper::body::Incoming>, String>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| format!("HTTP handshake: {e}"))?;
    tokio::spawn(conn);
    sender
        .send_request(request)
        .await
        .map_err(|e| format!("HTTP request: {e}"))
}

#[cfg(feature = "tls")]
mod tls {
    use std::sync::{Arc, OnceLock};
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
    use tokio_rustls::rustls::{ClientConfig, RootCertStore};

    /// Built once per process, at the first `https://` request.
    fn config() -> Result<Arc<ClientConfig>, String> {
        static CONFIG: OnceLock<Result<Arc<ClientConfig>, String>> = OnceLock::new();
        CONFIG
            .get_or_init(|| {
                let mut roots = RootCertStore {
                    roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
                };
                if let Some(file) = std::env::var_os("SSL_CERT_FILE") {
                    let certs = CertificateDer::pem_file_iter(&file)
                        .map_err(|e| format!("SSL_CERT_FILE {}: {e}", file.to_string_lossy()))?;
                    for cert in certs {
                        let cert = cert.map_err(|e| format!("SSL_CERT_FILE: {e}"))?;
                        roots.add(cert).map_err(|e| format!("SSL_CERT_FILE: {e}"))?;
                    }
                }
                let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
                let mut config = ClientConfig::builder_with_provider(provider)
                    .with_safe_default_protocol_versions()
                    .map_err(|e| e.to_string())?
                    .with_root_certificates(roots)
                    .with_no_client_auth();
                config.alpn_protocols = vec![b"http/1.1".to_vec()];
                Ok(Arc::new(config))
            })
            .clone()
    }

    pub(super) async fn connect(
        host: &str,
        tcp: tokio::net::TcpStream,
    ) -> Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>, String> {
        let name = ServerName::try_from(host.to_string())
            .map_err(|e| format!("{host}: not a TLS server name: {e}"))?;
        tokio_rustls::TlsConnector::from(config()?)
            .connect(name, tcp)
            .await
            .map_err(|e| format!("TLS with {host}: {e}"))
    }
}
