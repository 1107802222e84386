//! JSON Web Key Sets: given inline or fetched from a URL, cached, and refetched on an unknown
//! `kid` (key rotation) at most once per `min_refresh`, and after `max_age` in any case. When
//! refetching fails the cached keys stay in use, but never longer than `max_stale` after the
//! last good fetch: a key the issuer revoked (and can no longer tell us about, because its JWKS
//! endpoint is down or blocked) must not verify tokens forever.

use super::AuthFuture;
use bytes::Bytes;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::DecodingKey;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Fetches a JWKS document. The built-in [`HttpJwksFetcher`] covers `http://` and, with the
/// `tls` feature, `https://`; supply your own for proxies or client certificates.
pub trait JwksFetcher: Send + Sync + 'static {
    fn fetch<'a>(&'a self, url: &'a str) -> AuthFuture<'a, Result<Vec<u8>, String>>;
}

/// The built-in fetcher: 5 s deadline, 1 MiB cap, 200 only; `https://` needs the `tls` feature.
#[derive(Debug, Default, Clone, Copy)]
pub struct HttpJwksFetcher;

impl JwksFetcher for HttpJwksFetcher {
    fn fetch<'a>(&'a self, url: &'a str) -> AuthFuture<'a, Result<Vec<u8>, String>> {
        Box::pin(async move {
            tokio::time::timeout(Duration::from_secs(5), fetch(url))
                .await
                .map_err(|_| "JWKS fetch timed out".to_string())?
        })
    }
}

async fn fetch(url: &str) -> Result<Vec<u8>, String> {
    let req = http::Request::get(url)
        .header(http::header::ACCEPT, "application/json")
        .body(Bytes::new())
        .map_err(|e| format!("bad JWKS URL {url}: {e}"))?;
    let resp = crate::http_client::send(req, 1 << 20)
        .await
        .map_err(|e| format!("JWKS fetch: {e}"))?;
    if resp.status() != http::StatusCode::OK {
        return Err(format!("JWKS fetch answered {}", resp.status()));
    }
    Ok(resp.into_body().to_vec())
}

/// One usable key.
#[derive(Clone)]
pub(crate) struct Key {
    pub(crate) kid: Option<String>,
    pub(crate) alg: Option<jsonwebtoken::Algorithm>,
    pub(crate) key: Arc<DecodingKey>,
}

/// Parse a JWKS document, skipping keys we cannot use (unknown `kty`, `use` other than `sig`).
pub(crate) fn parse_jwks(v: &Value) -> Result<Vec<Key>, String> {
    let keys = v
        .get("keys")
        .and_then(Value::as_array)
        .ok_or("a JWKS needs a \"keys\" array")?;
    let mut out = Vec::new();
    for k in keys {
        if k.get("use")
            .and_then(Value::as_str)
            .is_some_and(|u| u != "sig")
        {
            continue;
        }
        let Ok(jwk) = serde_json::from_value::<Jwk>(k.clone()) else {
            continue;
        };
        let Ok(key) = DecodingKey::from_jwk(&jwk) else {
            continue;
        };
        let alg = jwk
            .common
            .key_algorithm
            .and_then(|a| a.to_string().parse::<jsonwebtoken::Algorithm>().ok());
        out.push(Key {
            kid: jwk.common.key_id.clone(),
            alg,
            key: Arc::new(key),
        });
    }
    Ok(out)
}

pub(crate) enum Source {
    Inline(Vec<Key>),
    Url {
        url: String,
        fetcher: Arc<dyn JwksFetcher>,
        cache: Mutex<Cache>,
        refresh: tokio::sync::Mutex<()>,
    },
}

#[derive(Default)]
pub(crate) struct Cache {
    keys: Arc<Vec<Key>>,
    fetched: Option<Instant>,
    attempted: Option<Instant>,
}

pub(crate) struct Jwks {
    pub(crate) source: Source,
    pub(crate) max_age: Duration,
    pub(crate) min_refresh: Duration,
    /// The hard limit on a fetched key set's age while refetching fails.
    pub(crate) max_stale: Duration,
}

/// Is this a plain `http://` URL whose host is not loopback (keys an on-path attacker can swap)?
pub(crate) fn plain_http_off_loopback(url: &str) -> bool {
    let lower = url.get(..7).map(str::to_ascii_lowercase);
    if lower.as_deref() != Some("http://") {
        return false;
    }
    let rest = &url[7..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    !crate::authority::Authority::parse(authority).is_some_and(|a| a.is_loopback())
}

impl Jwks {
    /// The cached keys while they are younger than `max_stale` (none after), and whether they
    /// are still fresh (younger than `max_age`).
    fn usable(&self, c: &Cache) -> (Arc<Vec<Key>>, bool) {
        match c.fetched.map(|t| t.elapsed()) {
            Some(age) if age < self.max_stale => (c.keys.clone(), age < self.max_age),
            _ => (Arc::default(), false),
        }
    }

    fn cached(&self) -> (Arc<Vec<Key>>, bool) {
        match &self.source {
            Source::Inline(k) => (Arc::new(k.clone()), true),
            Source::Url { cache, .. } => {
                let c = cache.lock().unwrap_or_else(|e| e.into_inner());
                self.usable(&c)
            }
        }
    }

    /// Keys that may verify a token with this `kid`: from the cache, refetched when the cache is
    /// stale or the `kid` is unknown (rate-limited by `min_refresh`).
    pub(crate) async fn keys_for(&self, kid: Option<&str>) -> Vec<Key> {
        let pick = |keys: &[Key]| -> Vec<Key> {
            match kid {
                Some(k) => keys
                    .iter()
                    .filter(|x| x.kid.as_deref() == Some(k))
                    .cloned()
                    .collect(),
                None => keys.to_vec(),
            }
        };
        let (keys, fresh) = self.cached();
        let found = pick(&keys);
        if fresh && !found.is_empty() {
            return found;
        }
        let Source::Url {
            url,
            fetcher,
            cache,
            refresh,
        } = &self.source
        else {
            return found;
        };
        let _one_at_a_time = refresh.lock().await;
        {
            let c = cache.lock().unwrap_or_else(|e| e.into_inner());
            // Someone else refreshed while we waited, or we tried too recently.
            let (keys, fresh) = self.usable(&c);
            let again = pick(&keys);
            if fresh && !again.is_empty() {
                return again;
            }
            if c.attempted.is_some_and(|t| t.elapsed() < self.min_refresh) {
                return again;
            }
        }
        let fetched = fetcher
            .fetch(url)
            .await
            .and_then(|b| serde_json::from_slice::<Value>(&b).map_err(|e| e.to_string()))
            .and_then(|v| parse_jwks(&v));
        let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
        c.attempted = Some(Instant::now());
        match fetched {
            Ok(k) => {
                tracing::debug!(url = %url, keys = k.len(), "JWKS fetched");
                c.keys = Arc::new(k);
                c.fetched = Some(Instant::now());
            }
            Err(e) => {
                if c.fetched.is_some_and(|t| t.elapsed() < self.max_stale) {
                    tracing::warn!(url = %url, error = %e, "JWKS fetch failed; keeping the cached keys")
                } else {
                    if !c.keys.is_empty() {
                        c.keys = Arc::default();
                    }
                    tracing::warn!(url = %url, error = %e, max_stale_s = self.max_stale.as_secs(), "JWKS fetch failed and the cached keys are older than max_stale; no token verifies until a fetch succeeds")
                }
            }
        }
        let (keys, _) = self.usable(&c);
        pick(&keys)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn plain_http_jwks_off_loopback_is_flagged() {
        use super::plain_http_off_loopback as f;
        assert!(f("http://idp.example.com/jwks.json"));
        assert!(f("HTTP://10.0.0.5:8080/keys"));
        assert!(f("http://127.attacker.example/jwks"));
        assert!(!f("http://127.0.0.1:9000/jwks.json"));
        assert!(!f("http://localhost/jwks"));
        assert!(!f("http://[::1]:1/x"));
        assert!(!f("https://idp.example.com/jwks.json"));
    }
}
