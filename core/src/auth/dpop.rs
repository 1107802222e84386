//! DPoP-bound access tokens on the resource server (RFC 9449 §4.3, §7): the proof JWT in the
//! `DPoP` header is checked against the request it came with and the token it came with, and
//! the token's `cnf.jkt` against the proof's key. A leaked bound token is useless without the
//! client's private key.
//!
//! Optionally the server supplies nonces (§9) that proofs must carry, so a proof cannot be made
//! ahead of time. A nonce is its issue time and a MAC over it: nothing is stored, and replicas
//! that share the server's state key take each other's nonces.

use super::metadata::canonical_resource;
use super::SeenIds;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::Mac;
use http::Method;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Whether `Authorization: DPoP` is taken, and whether it is the only scheme taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DpopMode {
    /// Bearer tokens only (a DPoP-bound token is still refused as Bearer).
    #[default]
    Off,
    /// DPoP-bound tokens with a proof, and unbound Bearer tokens.
    Allowed,
    /// DPoP-bound tokens with a proof only.
    Required,
}

impl std::str::FromStr for DpopMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(Self::Off),
            "allowed" => Ok(Self::Allowed),
            "required" => Ok(Self::Required),
            other => Err(format!(
                "{other:?} is not a DPoP mode (off, allowed or required)"
            )),
        }
    }
}

/// The proof signature algorithms taken (asymmetric only: the proof carries its own key, so an
/// HMAC proof would prove nothing), as the challenge's `algs` and the resource metadata's
/// `dpop_signing_alg_values_supported` name them.
pub(super) const DPOP_ALGS: [(&str, Algorithm); 9] = [
    ("ES256", Algorithm::ES256),
    ("ES384", Algorithm::ES384),
    ("EdDSA", Algorithm::EdDSA),
    ("RS256", Algorithm::RS256),
    ("RS384", Algorithm::RS384),
    ("RS512", Algorithm::RS512),
    ("PS256", Algorithm::PS256),
    ("PS384", Algorithm::PS384),
    ("PS512", Algorithm::PS512),
];

/// How far a proof's `iat` may be from the server's clock, either way, by default.
pub const DEFAULT_DPOP_WINDOW: Duration = Duration::from_secs(60);
/// Proof ids remembered at once, by default (each 32 bytes and a time: about 5 MB when full).
pub const DEFAULT_DPOP_REPLAY_CACHE: usize = 65_536;
/// The longest proof read (a proof with an RSA-4096 key is about 1.5 KB).
const MAX_PROOF_BYTES: usize = 8 * 1024;

/// DPoP settings and the proof-id cache of one authenticator.
#[derive(Debug)]
pub struct Dpop {
    pub(super) mode: DpopMode,
    window: Duration,
    replay: Mutex<Replay>,
    /// The replicas' shared memory of proof ids, when the server scales out; `replay` is used
    /// while it cannot be reached.
    shared: OnceLock<Arc<dyn SeenIds>>,
    /// When a failure of `shared` was last logged (seconds since the epoch).
    warned: AtomicU64,
    nonces: Option<Nonces>,
}

impl std::fmt::Debug for dyn SeenIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SeenIds")
    }
}

/// Why a proof was refused: a flaw (`invalid_dpop_proof`, with its description), or no valid
/// server nonce in it (`use_dpop_nonce`: the client retries with the one sent).
#[derive(Debug, PartialEq, Eq)]
pub(super) enum ProofError {
    Invalid(&'static str),
    Nonce,
}

impl From<&'static str> for ProofError {
    fn from(why: &'static str) -> Self {
        Self::Invalid(why)
    }
}

/// A checked proof: the RFC 7638 thumbprint of its key, and its id (recorded once the token it
/// came with is known good: recording before would let anyone fill the cache with self-signed
/// proofs).
#[derive(Debug)]
pub(super) struct Proof {
    pub(super) jkt: String,
    jti: String,
}

impl Dpop {
    pub fn new(mode: DpopMode) -> Self {
        Self {
            mode,
            window: DEFAULT_DPOP_WINDOW,
            replay: Mutex::new(Replay::new(DEFAULT_DPOP_REPLAY_CACHE)),
            shared: OnceLock::new(),
            warned: AtomicU64::new(0),
            nonces: None,
        }
    }
    /// Require a server-provided nonce in every proof (RFC 9449 §9). A nonce is good for the
    /// window (see [`Self::window`]); an older one is answered with a fresh one.
    pub fn nonce(mut self, on: bool) -> Self {
        self.nonces = on.then(Nonces::new);
        self
    }
    /// MAC nonces with a key derived from `secret` (the server's state key), so that every
    /// replica given the same secret takes the nonces any of them issued. Without it, each
    /// process draws its own key.
    pub fn share_key(&self, secret: &[u8]) {
        if let Some(n) = &self.nonces {
            n.derive(secret);
        }
    }
    /// Remember proof ids in `seen`, shared by the replicas, rather than in this process only.
    pub fn share_seen(&self, seen: Arc<dyn SeenIds>) {
        let _ = self.shared.set(seen);
    }
    /// A fresh nonce, when nonces are required.
    pub(super) fn issue_nonce(&self) -> Option<String> {
        self.nonces.as_ref().map(|n| n.issue(unix_now()))
    }
    /// How far `iat` may be from now (at least 1 s). A proof id is remembered for twice this.
    pub fn window(mut self, w: Duration) -> Self {
        self.window = w.max(Duration::from_secs(1));
        self
    }
    /// Most proof ids remembered at once (at least 1). Full of live ids, new proofs are refused
    /// until the oldest expire: the cache never forgets an id a replay could still use.
    pub fn replay_cache(mut self, cap: usize) -> Self {
        self.replay = Mutex::new(Replay::new(cap.max(1)));
        self
    }
    pub fn mode(&self) -> DpopMode {
        self.mode
    }

    /// The `algs` parameter of a DPoP challenge.
    pub(super) fn algs() -> String {
        DPOP_ALGS.map(|(n, _)| n).join(" ")
    }

    /// The RFC 9728 members this adds to the resource metadata.
    pub(super) fn metadata(&self, doc: &mut Map<String, Value>) {
        doc.insert(
            "dpop_signing_alg_values_supported".into(),
            json!(DPOP_ALGS.map(|(n, _)| n)),
        );
        doc.insert(
            "dpop_bound_access_tokens_required".into(),
            json!(self.mode == DpopMode::Required),
        );
    }

    /// Check `proof` (RFC 9449 §4.3) for a request of `method` to one of the `urls` (normalised
    /// with [`normalize_htu`]) carrying `token`. The error is the `error_description`.
    pub(super) fn check(
        &self,
        proof: &str,
        method: &Method,
        urls: &[String],
        token: &str,
    ) -> Result<Proof, ProofError> {
        if proof.len() > MAX_PROOF_BYTES || proof.bytes().filter(|&b| b == b'.').count() != 2 {
            return Err("The DPoP proof is not a JWT".into());
        }
        let (alg, jwk) = proof_header(proof)?;
        let (jkt, key) = public_key(jwk)?;
        let claims = signed_claims(proof, alg, &key)?;
        let jti = self.check_claims(&claims, method, urls, token)?;
        Ok(Proof { jkt, jti })
    }

    /// The signed claims bind the proof to this request (`htm`, `htu`), to now (`iat`, and the
    /// server's `nonce` when it gives them out) and to this access token (`ath`); the proof's id
    /// (`jti`) is what a replay would repeat.
    fn check_claims(
        &self,
        claims: &Value,
        method: &Method,
        urls: &[String],
        token: &str,
    ) -> Result<String, ProofError> {
        let text = |k: &str| claims.get(k).and_then(Value::as_str);
        if text("htm") != Some(method.as_str()) {
            return Err("The DPoP proof's htm is not this request's method".into());
        }
        let htu = text("htu").map(normalize_htu);
        if !htu.is_some_and(|h| urls.contains(&h)) {
            return Err("The DPoP proof's htu is not this request's URL".into());
        }
        let now = unix_now();
        let iat = claims
            .get("iat")
            .and_then(Value::as_u64)
            .ok_or(ProofError::Invalid("The DPoP proof has no iat"))?;
        if now.abs_diff(iat) > self.window.as_secs() {
            return Err("The DPoP proof's iat is outside the accepted window".into());
        }
        let jti = text("jti")
            .filter(|j| !j.is_empty())
            .ok_or(ProofError::Invalid("The DPoP proof has no jti"))?;
        let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()));
        if text("ath") != Some(ath.as_str()) {
            return Err("The DPoP proof's ath is not the hash of this access token".into());
        }
        if let Some(n) = &self.nonces {
            if !text("nonce").is_some_and(|v| n.valid(v, now, self.window)) {
                return Err(ProofError::Nonce);
            }
        }
        Ok(jti.to_string())
    }

    /// Record the proof's id; `Err` when it was seen within the window (a replay) or the cache
    /// is full of ids that are still live. With a shared store, the replicas' memory decides;
    /// while it cannot answer, this process's own.
    pub(super) async fn record(&self, p: &Proof) -> Result<(), &'static str> {
        let mut h = Sha256::new();
        h.update(p.jkt.as_bytes());
        h.update([0]);
        h.update(p.jti.as_bytes());
        let key: [u8; 32] = h.finalize().into();
        // A proof is good while `iat` is within the window of now, and `iat` may be up to one
        // window ahead: its id can be replayed for two windows after it is first seen.
        let keep = self.window * 2;
        if let Some(shared) = self.shared.get() {
            match shared.first_use(key, keep).await {
                Ok(true) => return Ok(()),
                Ok(false) => return Err(REPLAYED),
                Err(e) => {
                    let now = unix_now();
                    if now >= self.warned.load(Ordering::Relaxed) + 10 {
                        self.warned.store(now, Ordering::Relaxed);
                        tracing::warn!(error = %e, "dpop: the shared proof-id store is unavailable; replays are checked per replica until it answers");
                    }
                }
            }
        }
        self.replay
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, keep)
    }
}

const REPLAYED: &str = "The DPoP proof was used before";

/// Seconds since the Unix epoch.
fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

type HmacSha256 = hmac::Hmac<Sha256>;

/// Bytes of the MAC a nonce carries (128 bits: forging one is guessing them).
const NONCE_MAC: usize = 16;

/// Stateless server nonces: `base64url(issued, big-endian u64 seconds ‖ MAC(key, issued))`.
#[derive(Debug)]
struct Nonces {
    key: RwLock<[u8; 32]>,
}

impl Nonces {
    fn new() -> Self {
        Self {
            key: RwLock::new(rand::random()),
        }
    }
    fn derive(&self, secret: &[u8]) {
        let mut m = mac(secret);
        m.update(b"oxmcp dpop nonce key");
        *self.key.write().unwrap_or_else(|e| e.into_inner()) = m.finalize().into_bytes().into();
    }
    fn tag(&self, issued: u64) -> HmacSha256 {
        let key = *self.key.read().unwrap_or_else(|e| e.into_inner());
        let mut m = mac(&key);
        m.update(&issued.to_be_bytes());
        m
    }
    fn issue(&self, now: u64) -> String {
        let mut out = now.to_be_bytes().to_vec();
        out.extend_from_slice(&self.tag(now).finalize().into_bytes()[..NONCE_MAC]);
        URL_SAFE_NO_PAD.encode(out)
    }
    /// Issued here (or by a replica with the same key), within `window` of `now` either way
    /// (clocks of replicas differ a little).
    fn valid(&self, nonce: &str, now: u64, window: Duration) -> bool {
        let Ok(raw) = URL_SAFE_NO_PAD.decode(nonce) else {
            return false;
        };
        let Some((issued, tag)) = raw.split_first_chunk::<8>() else {
            return false;
        };
        let issued = u64::from_be_bytes(*issued);
        tag.len() == NONCE_MAC
            && now.abs_diff(issued) <= window.as_secs()
            && self.tag(issued).verify_truncated_left(tag).is_ok()
    }
}

fn mac(key: &[u8]) -> HmacSha256 {
    HmacSha256::new_from_slice(key).expect("HMAC takes any key length")
}

/// Proof ids seen lately, oldest first, at most `cap`.
#[derive(Debug)]
struct Replay {
    cap: usize,
    seen: HashSet<[u8; 32]>,
    order: VecDeque<([u8; 32], Instant)>,
}

impl Replay {
    fn new(cap: usize) -> Self {
        Self {
            cap,
            seen: HashSet::new(),
            order: VecDeque::new(),
        }
    }
    fn insert(&mut self, key: [u8; 32], keep: Duration) -> Result<(), &'static str> {
        let now = Instant::now();
        while let Some(&(k, at)) = self.order.front() {
            if now.duration_since(at) < keep {
                break;
            }
            self.order.pop_front();
            self.seen.remove(&k);
        }
        if self.seen.contains(&key) {
            return Err(REPLAYED);
        }
        if self.order.len() >= self.cap {
            return Err("Too many DPoP proofs at once; retry shortly");
        }
        self.seen.insert(key);
        self.order.push_back((key, now));
        Ok(())
    }
}

/// The RFC 7638 thumbprint of a public JWK: base64url(SHA-256) of its required members, in
/// lexicographic order, as compact JSON.
pub fn thumbprint(jwk: &Map<String, Value>) -> Option<String> {
    let kty = jwk.get("kty")?.as_str()?;
    let members: &[&str] = match kty {
        "EC" => &["crv", "kty", "x", "y"],
        "RSA" => &["e", "kty", "n"],
        "OKP" => &["crv", "kty", "x"],
        _ => return None,
    };
    let mut canon = Map::new();
    for m in members {
        canon.insert(
            (*m).to_string(),
            Value::String(jwk.get(*m)?.as_str()?.into()),
        );
    }
    // serde_json's map keeps keys sorted (no `preserve_order` feature here), and the members
    // above are strings: the compact form is the RFC's.
    let bytes = serde_json::to_vec(&Value::Object(canon)).ok()?;
    Some(URL_SAFE_NO_PAD.encode(Sha256::digest(bytes)))
}

/// A URL as `htu` is compared (RFC 9449 §4.3: without query and fragment; RFC 3986 §6.2.2-3
/// normalisation of scheme, host and default port; an empty path is `/`).
pub fn normalize_htu(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or("");
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let scheme = scheme.to_ascii_lowercase();
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, "/"),
    };
    let mut authority = authority.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "https" => Some(":443"),
        "http" => Some(":80"),
        _ => None,
    };
    if let Some(p) = default_port {
        if let Some(a) = authority.strip_suffix(p) {
            authority = a.to_string();
        }
    }
    format!("{scheme}://{authority}{path}")
}

/// The URLs a proof for a request to `path` may name. With a resource URI, the public URL is
/// the resource's: the endpoint's own path is the resource itself (whatever path a proxy
/// forwards it to), any other path is under the resource's origin. Without one, the `Host`
/// the request came with, by either scheme (the server may sit behind a TLS proxy).
pub(super) fn expected_urls(
    resource: Option<&str>,
    path: &str,
    endpoint: &str,
    host: Option<&str>,
) -> Vec<String> {
    if let Some(r) = resource {
        let r = canonical_resource(r);
        if path == endpoint {
            return vec![normalize_htu(&r)];
        }
        let after = r.find("://").map_or(0, |i| i + 3);
        let origin = r[after..].find('/').map_or(&r[..], |i| &r[..after + i]);
        return vec![normalize_htu(&format!("{origin}{path}"))];
    }
    match host {
        Some(h) => ["http", "https"]
            .iter()
            .map(|s| normalize_htu(&format!("{s}://{h}{path}")))
            .collect(),
        None => Vec::new(),
    }
}

/// The proof's header: `typ` dpop+jwt, an asymmetric `alg` taken here, and the public `jwk`
/// the proof is signed with.
fn proof_header(proof: &str) -> Result<(Algorithm, Map<String, Value>), ProofError> {
    let head = proof.split('.').next().unwrap_or("");
    let mut header: Value = URL_SAFE_NO_PAD
        .decode(head)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or(ProofError::Invalid("The DPoP proof header is not JSON"))?;
    if !header
        .get("typ")
        .and_then(Value::as_str)
        .is_some_and(|t| t.eq_ignore_ascii_case("dpop+jwt"))
    {
        return Err("The DPoP proof's typ is not dpop+jwt".into());
    }
    let alg = header.get("alg").and_then(Value::as_str).unwrap_or("");
    let Some(&(_, alg)) = DPOP_ALGS.iter().find(|(n, _)| *n == alg) else {
        return Err("The DPoP proof's alg is not an asymmetric algorithm taken here".into());
    };
    let Some(Value::Object(jwk)) = header.get_mut("jwk").map(Value::take) else {
        return Err(ProofError::Invalid("The DPoP proof has no jwk"));
    };
    // A private key's members in the header would mean the client leaked its key.
    const PRIVATE: [&str; 8] = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];
    if PRIVATE.iter().any(|m| jwk.contains_key(*m)) {
        return Err("The DPoP proof's jwk is not a public key".into());
    }
    Ok((alg, jwk))
}

/// The jwk's thumbprint (what a bound token's `cnf.jkt` names) and the key to verify with.
fn public_key(jwk: Map<String, Value>) -> Result<(String, DecodingKey), ProofError> {
    const UNUSABLE: ProofError =
        ProofError::Invalid("The DPoP proof's jwk is not a usable public key");
    let jkt = thumbprint(&jwk).ok_or(UNUSABLE)?;
    let key = serde_json::from_value::<jsonwebtoken::jwk::Jwk>(Value::Object(jwk))
        .ok()
        .and_then(|k| DecodingKey::from_jwk(&k).ok())
        .ok_or(UNUSABLE)?;
    Ok((jkt, key))
}

/// The proof's claims, once its signature verifies with its own key (the time and audience
/// rules of an access token do not apply: [`Dpop::check_claims`] holds a proof's).
fn signed_claims(proof: &str, alg: Algorithm, key: &DecodingKey) -> Result<Value, ProofError> {
    let mut v = Validation::new(alg);
    v.required_spec_claims = HashSet::new();
    v.validate_exp = false;
    v.validate_aud = false;
    jsonwebtoken::decode::<Value>(proof, key, &v)
        .map(|d| d.claims)
        .map_err(|_| ProofError::Invalid("The DPoP proof's signature does not verify with its jwk"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonces_verify_within_the_window_and_under_the_same_key_only() {
        let w = Duration::from_secs(60);
        let a = Nonces::new();
        let n = a.issue(1_000_000);
        assert!(a.valid(&n, 1_000_000, w));
        assert!(a.valid(&n, 1_000_060, w));
        assert!(!a.valid(&n, 1_000_061, w), "expired");
        assert!(!a.valid(&n, 999_939, w), "issued too far ahead");
        // Another process's key refuses it; two that derived their key from one secret agree.
        let b = Nonces::new();
        assert!(!b.valid(&n, 1_000_000, w));
        a.derive(b"0123456789abcdef");
        b.derive(b"0123456789abcdef");
        let n = a.issue(1_000_000);
        assert!(b.valid(&n, 1_000_030, w));
        // A tampered time, a cut tag, and text that is no nonce at all.
        let mut raw = URL_SAFE_NO_PAD.decode(&n).unwrap();
        raw[7] ^= 1;
        assert!(!a.valid(&URL_SAFE_NO_PAD.encode(&raw), 1_000_000, w));
        raw[7] ^= 1;
        raw.pop();
        assert!(!a.valid(&URL_SAFE_NO_PAD.encode(&raw), 1_000_000, w));
        assert!(!a.valid("not a nonce!", 1_000_000, w));
        assert!(!a.valid("", 1_000_000, w));
    }

    #[test]
    fn rfc7638_example_thumbprint() {
        // RFC 7638 §3.1.
        let jwk = json!({"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RS256","kid":"2011-04-29"});
        assert_eq!(
            thumbprint(jwk.as_object().unwrap()).unwrap(),
            "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        );
    }

    #[test]
    fn htu_normalisation_and_expected_urls() {
        assert_eq!(
            normalize_htu("HTTPS://MCP.Example.com:443/mcp?x=1#f"),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(normalize_htu("http://h:8080"), "http://h:8080/");
        let r = Some("https://mcp.example.com/public/mcp");
        assert_eq!(
            expected_urls(r, "/mcp", "/mcp", Some("10.0.0.1:8000")),
            vec!["https://mcp.example.com/public/mcp"]
        );
        assert_eq!(
            expected_urls(r, "/messages", "/mcp", None),
            vec!["https://mcp.example.com/messages"]
        );
        assert_eq!(
            expected_urls(None, "/mcp", "/mcp", Some("127.0.0.1:9")),
            vec!["http://127.0.0.1:9/mcp", "https://127.0.0.1:9/mcp"]
        );
    }

    #[test]
    fn the_replay_cache_is_bounded_and_forgets_expired_ids() {
        let mut r = Replay::new(2);
        let keep = Duration::from_secs(60);
        assert!(r.insert([1; 32], keep).is_ok());
        assert!(r.insert([1; 32], keep).is_err());
        assert!(r.insert([2; 32], keep).is_ok());
        assert!(r.insert([3; 32], keep).is_err());
        assert_eq!(r.order.len(), 2);
        assert!(r.insert([3; 32], Duration::ZERO).is_ok());
        assert_eq!(r.order.len(), 1);
    }

    /// Whatever the shared store says decides; while it cannot answer, this process's own cache
    /// does, so a replay to the same replica is still caught. (The store over a real Redis, two
    /// replicas and Redis down: `redis::tests`.)
    #[tokio::test]
    async fn the_shared_store_decides_and_the_own_cache_stands_in_for_it() {
        struct Store(Mutex<Result<HashSet<[u8; 32]>, ()>>);
        impl SeenIds for Store {
            fn first_use<'a>(
                &'a self,
                id: [u8; 32],
                _keep: Duration,
            ) -> super::super::AuthFuture<'a, Result<bool, String>> {
                let r = match &mut *self.0.lock().unwrap() {
                    Ok(seen) => Ok(seen.insert(id)),
                    Err(()) => Err("down".to_string()),
                };
                Box::pin(async move { r })
            }
        }
        let store = Arc::new(Store(Mutex::new(Ok(HashSet::new()))));
        let (a, b) = (Dpop::new(DpopMode::Required), Dpop::new(DpopMode::Required));
        a.share_seen(store.clone());
        b.share_seen(store.clone());
        let proof = |jti: &str| Proof {
            jkt: "key".into(),
            jti: jti.into(),
        };
        assert_eq!(a.record(&proof("1")).await, Ok(()));
        assert_eq!(b.record(&proof("1")).await, Err(REPLAYED));
        let other = Proof {
            jkt: "other".into(),
            jti: "1".into(),
        };
        assert_eq!(
            b.record(&other).await,
            Ok(()),
            "another key's jti is another id"
        );
        *store.0.lock().unwrap() = Err(());
        assert_eq!(a.record(&proof("2")).await, Ok(()));
        assert_eq!(a.record(&proof("2")).await, Err(REPLAYED));
    }
}
