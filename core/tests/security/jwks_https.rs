//! The JWKS fetched over `https://` (cargo feature `tls`): a TLS endpoint on loopback with a
//! certificate from a test CA (`tls/`, made with openssl for this test) that `SSL_CERT_FILE`
//! makes trusted. A certificate for another name is refused, and so is every token it would
//! have vouched for.

use super::common::*;
use super::oauth::*;
use std::path::PathBuf;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

fn tls_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/security/tls")
        .join(name)
}

/// A JWKS endpoint on loopback behind TLS with the certificate `name` (`good` or `wrong`).
async fn https_jwks(name: &str, keys: Arc<Mutex<Value>>, fetches: Arc<AtomicUsize>) -> SocketAddr {
    let certs = CertificateDer::pem_file_iter(tls_file(&format!("{name}.pem")))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(tls_file(&format!("{name}.key"))).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (acceptor, keys, fetches) = (acceptor.clone(), keys.clone(), fetches.clone());
            tokio::spawn(async move {
                if let Ok(tls) = acceptor.accept(stream).await {
                    serve_jwks(tls, keys, fetches).await;
                }
            });
        }
    });
    addr
}

#[tokio::test]
async fn jwks_over_https_trusts_ssl_cert_file_and_checks_the_name() {
    let _serial = serial().await;
    // The client's trust store is built once per process, at its first https request.
    std::env::set_var("SSL_CERT_FILE", tls_file("ca.pem"));
    let keys = Arc::new(Mutex::new(json!({"keys": [jwk("k1", K1_X)]})));
    let token = sign(K1_DER, "k1", claims(json!({})));
    for (cert, host, accepted) in [
        ("good", "127.0.0.1", true),
        ("good", "localhost", true),
        ("wrong", "127.0.0.1", false),
    ] {
        let fetches = Arc::new(AtomicUsize::new(0));
        let jwks = https_jwks(cert, keys.clone(), fetches.clone()).await;
        let url = format!("https://{host}:{}/jwks.json", jwks.port());
        let auth = Auth::new()
            .jwt(JwtValidator::with_jwks_url(ISSUER, RESOURCE, url.clone()))
            .resource(protected());
        let s = serve(
            demo_server(ServerOptions::default()),
            HttpConfig::new(loopback()).auth(Arc::new(auth)),
        )
        .await;
        let r = tool_call(s.addr, Some(&token), "whoami").await;
        if accepted {
            assert_eq!(r.status, 200, "{url}: {}", r.body);
            assert_eq!(r.json()["result"]["content"][0]["text"], "whoami for carol");
            assert_eq!(fetches.load(Ordering::SeqCst), 1, "{url}");
        } else {
            assert_eq!(
                r.status, 401,
                "{url}: a certificate for another name: {}",
                r.body
            );
            assert_eq!(
                fetches.load(Ordering::SeqCst),
                0,
                "no request reached {url}"
            );
        }
    }
}
