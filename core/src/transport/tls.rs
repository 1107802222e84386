//! TLS for the built-in HTTP server (rustls with ring): the certificate chain and key from PEM
//! files, checked against each other at start, ALPN `h2` and `http/1.1`, and reloaded when the
//! files change, without a restart: a connection gets the certificate current at its handshake.
//!
//! Why a file check rather than SIGHUP: the core installs no signal handlers (the host owns
//! signals). Replacing the files (as certbot or a Kubernetes secret mount does) is seen within
//! [`RECHECK`] by the next handshake; a reload that fails (a half-written pair, a mismatched key)
//! keeps the current certificate and logs a warning.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::sign::CertifiedKey;

/// How often a handshake looks at the files' modification times (at most once per this).
const RECHECK: Duration = Duration::from_secs(1);

fn invalid(msg: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, msg)
}

fn modified(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// The chain and key in `cert` and `key`, or an error that names the file and what is wrong.
fn load(cert: &Path, key: &Path) -> std::io::Result<Arc<CertifiedKey>> {
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|it| it.collect::<Result<Vec<_>, _>>())
        .map_err(|e| invalid(format!("tls_cert {}: {e}", cert.display())))?;
    if chain.is_empty() {
        return Err(invalid(format!(
            "tls_cert {}: no PEM CERTIFICATE in it",
            cert.display()
        )));
    }
    let der = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| invalid(format!("tls_key {}: {e}", key.display())))?;
    let provider = rustls::crypto::ring::default_provider();
    let signing = provider
        .key_provider
        .load_private_key(der)
        .map_err(|e| invalid(format!("tls_key {}: {e}", key.display())))?;
    let ck = CertifiedKey::new(chain, signing);
    ck.keys_match().map_err(|_| {
        invalid(format!(
            "tls_key {} is not the private key of the certificate in tls_cert {}",
            key.display(),
            cert.display()
        ))
    })?;
    Ok(Arc::new(ck))
}

/// The current certificate, reloaded from its files when they change.
#[derive(Debug)]
struct Reloading {
    cert: PathBuf,
    key: PathBuf,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    current: Arc<CertifiedKey>,
    stamps: (Option<SystemTime>, Option<SystemTime>),
    checked: Instant,
}

impl Reloading {
    fn current(&self) -> Arc<CertifiedKey> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.checked.elapsed() < RECHECK {
            return s.current.clone();
        }
        s.checked = Instant::now();
        let stamps = (modified(&self.cert), modified(&self.key));
        if stamps != s.stamps {
            match load(&self.cert, &self.key) {
                Ok(ck) => {
                    tracing::info!(cert = %self.cert.display(), "TLS certificate reloaded");
                    s.current = ck;
                    s.stamps = stamps;
                }
                // Kept: the other file of the pair may not be written yet; tried again later.
                Err(e) => tracing::warn!(error = %e, "TLS certificate not reloaded"),
            }
        }
        s.current.clone()
    }
}

impl rustls::server::ResolvesServerCert for Reloading {
    fn resolve(&self, _hello: rustls::server::ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

/// The acceptor for `cert`/`key` (PEM files), offering `h2` by ALPN when `http2` is on.
/// Refused at start: an unreadable file, no certificate, or a key that is not the certificate's.
pub(crate) fn acceptor(
    cert: &Path,
    key: &Path,
    http2: bool,
) -> std::io::Result<tokio_rustls::TlsAcceptor> {
    let stamps = (modified(cert), modified(key));
    let current = load(cert, key)?;
    let resolver = Reloading {
        cert: cert.to_path_buf(),
        key: key.to_path_buf(),
        state: Mutex::new(State {
            current,
            stamps,
            checked: Instant::now(),
        }),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| invalid(format!("TLS: {e}")))?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(resolver));
    config.alpn_protocols = if http2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}
