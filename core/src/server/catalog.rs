//! The content-addressed catalog: a digest per listed definition, a digest of the whole list a
//! caller can see, the short "unchanged" answer to a client that already holds that list, and
//! an optional Ed25519 signature over the catalog digest. The wire names and the exact
//! construction are in docs/CATALOG.md, which a client follows to recompute them.
//!
//! Why per registry version: a definition's digest is a SHA-256 over its canonical JSON, and
//! a list of thousands would cost milliseconds per request. A `KindCatalog` hangs on the
//! registry version it describes (`Registry::rendered`, which every change resets), so it is
//! built by the first list of a version and shared by every list after it; a caller without an
//! identity (or whose allow-list hides nothing) gets the stamp worked out then. An
//! authenticated caller's stamp is the digest of the definitions it sees: one pass over the
//! list's visibility and one SHA-256 over the visible digests (in digest order, kept with the
//! catalog), per list request.

use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use ed25519_dalek::pkcs8::DecodePrivateKey;
use ed25519_dalek::{Signer, SigningKey, Verifier, VerifyingKey};
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use super::dispatch::{Outcome, RequestInfo};
use super::env::{Env, Transport};
use super::Server;
use crate::jsonrpc::Params;

/// A definition's digest, in its `_meta`.
pub const META_DIGEST: &str = "io.oxmcp/digest";
/// The digest of the whole list the caller can see, in a list result's `_meta`.
pub const META_CATALOG_DIGEST: &str = "io.oxmcp/catalogDigest";
/// The catalog digest a client holds, in a list request's `params._meta`.
pub const META_IF_NONE_MATCH: &str = "io.oxmcp/ifNoneMatch";
/// `true` in the short answer: the list is the one the client holds.
pub const META_UNCHANGED: &str = "io.oxmcp/unchanged";
/// `ed25519:` and the signature over the catalog digest (option `catalog_signing_key`).
pub const META_SIGNATURE: &str = "io.oxmcp/catalogSignature";
/// `ed25519:` and the public key that signature verifies with.
pub const META_KEY: &str = "io.oxmcp/catalogKey";
/// oxmcp's `_meta` namespace: its keys are left out of a definition's digest.
const NAMESPACE: &str = "io.oxmcp/";

/// A SHA-256.
pub(crate) type Digest = [u8; 32];

/// `sha256:` and the lowercase hex of `d` (the Skills extension's digest format).
fn digest_string(d: &Digest) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(71);
    s.push_str("sha256:");
    for b in d {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 15)] as char);
    }
    s
}

/// The digest of a definition as listed: SHA-256 over its RFC 8785 (JCS) canonical JSON,
/// without the `io.oxmcp/*` keys of its `_meta` (and without `_meta` if that empties it).
pub fn definition_digest(def: &Value) -> String {
    digest_string(&digest_of(def))
}

fn digest_of(def: &Value) -> Digest {
    let own = def
        .get("_meta")
        .and_then(Value::as_object)
        .is_some_and(|m| m.keys().any(|k| k.starts_with(NAMESPACE)));
    let mut h = Sha256::new();
    let r = if own {
        let mut d = def.clone();
        strip_own_meta(&mut d);
        serde_json_canonicalizer::to_writer(&d, &mut HashWriter(&mut h))
    } else {
        serde_json_canonicalizer::to_writer(def, &mut HashWriter(&mut h))
    };
    // A `Value` always serialises; an error would mean a bug in the canonicaliser.
    debug_assert!(r.is_ok(), "canonical JSON: {r:?}");
    h.finalize().into()
}

fn strip_own_meta(def: &mut Value) {
    let Some(obj) = def.as_object_mut() else {
        return;
    };
    if let Some(Value::Object(m)) = obj.get_mut("_meta") {
        m.retain(|k, _| !k.starts_with(NAMESPACE));
        if m.is_empty() {
            obj.remove("_meta");
        }
    }
}

struct HashWriter<'a>(&'a mut Sha256);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.update(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The catalog digest of a list: SHA-256 over its definitions' digest strings, sorted, each
/// followed by a newline. The order of the list does not count; an empty list's is the
/// SHA-256 of nothing.
pub fn catalog_digest<'a>(digests: impl IntoIterator<Item = &'a str>) -> String {
    let mut v: Vec<&str> = digests.into_iter().collect();
    v.sort_unstable();
    let mut h = Sha256::new();
    for d in v {
        h.update(d.as_bytes());
        h.update(b"\n");
    }
    digest_string(&h.finalize().into())
}

/// The Ed25519 key that signs catalog digests (`catalog_signing_key`).
#[derive(Clone)]
pub struct CatalogKey {
    key: Arc<SigningKey>,
    /// `ed25519:` and the base64url (no padding) public key.
    public: Arc<str>,
}

impl std::fmt::Debug for CatalogKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl CatalogKey {
    /// A key from PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`, as `openssl genpkey -algorithm
    /// ed25519` writes it).
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self, String> {
        let key = SigningKey::from_pkcs8_pem(pem)
            .map_err(|e| format!("not an Ed25519 private key in PKCS#8 PEM ({e})"))?;
        Ok(Self::from_signing_key(key))
    }

    /// The key in the PEM file at `path`; the error names the file.
    pub fn from_pem_file(path: &std::path::Path) -> Result<Self, String> {
        let pem = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::from_pkcs8_pem(&pem).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// A key from its 32 secret bytes.
    pub fn from_bytes(secret: &[u8; 32]) -> Self {
        Self::from_signing_key(SigningKey::from_bytes(secret))
    }

    fn from_signing_key(key: SigningKey) -> Self {
        let public = format!("ed25519:{}", B64.encode(key.verifying_key().to_bytes()));
        Self {
            key: Arc::new(key),
            public: public.into(),
        }
    }

    /// `ed25519:` and the base64url (no padding) public key, as lists carry it.
    pub fn public_key(&self) -> &str {
        &self.public
    }

    /// `ed25519:` and the base64url (no padding) signature over the ASCII `catalog_digest`.
    pub fn sign(&self, catalog_digest: &str) -> String {
        let sig = self.key.sign(catalog_digest.as_bytes());
        format!("ed25519:{}", B64.encode(sig.to_bytes()))
    }
}

/// Whether `signature` (`ed25519:<base64url>`) is `public_key`'s (`ed25519:<base64url>`) over
/// `catalog_digest`.
pub fn verify_signature(public_key: &str, catalog_digest: &str, signature: &str) -> bool {
    let decode = |s: &str| s.strip_prefix("ed25519:").and_then(|b| B64.decode(b).ok());
    let (Some(k), Some(s)) = (decode(public_key), decode(signature)) else {
        return false;
    };
    let (Ok(k), Ok(s)) = (<[u8; 32]>::try_from(k), <[u8; 64]>::try_from(s)) else {
        return false;
    };
    let Ok(key) = VerifyingKey::from_bytes(&k) else {
        return false;
    };
    key.verify(
        catalog_digest.as_bytes(),
        &ed25519_dalek::Signature::from_bytes(&s),
    )
    .is_ok()
}

/// A list's catalog digest, with its signature when the server signs.
pub(crate) struct Stamp {
    pub(crate) digest: Arc<str>,
    signature: Option<String>,
}

impl Stamp {
    fn new(digest: String, key: Option<&CatalogKey>) -> Self {
        Self {
            signature: key.map(|k| k.sign(&digest)),
            digest: digest.into(),
        }
    }

    /// The list result's `_meta` entries.
    pub(crate) fn put(&self, meta: &mut Map<String, Value>, key: Option<&CatalogKey>) {
        meta.insert(
            META_CATALOG_DIGEST.into(),
            Value::String(self.digest.to_string()),
        );
        if let (Some(sig), Some(k)) = (&self.signature, key) {
            meta.insert(META_SIGNATURE.into(), Value::String(sig.clone()));
            meta.insert(META_KEY.into(), Value::String(k.public_key().into()));
        }
    }
}

/// A list result's catalog entries, put into its `_meta` only when the page is rendered (a
/// page kept from before has them already).
pub(crate) struct ListMeta<'a> {
    stamp: &'a Stamp,
    key: Option<&'a CatalogKey>,
    /// `catalog_digests`: off, lists carry none of it (as a framework being ported lists).
    on: bool,
}

impl ListMeta<'_> {
    pub(crate) fn map(&self) -> Map<String, Value> {
        let mut m = Map::new();
        if self.on {
            self.stamp.put(&mut m, self.key);
        }
        m
    }
    /// `def` with its digest in its `_meta`, when digests are on.
    pub(crate) fn with_digest(&self, def: Value, digest: impl FnOnce() -> String) -> Value {
        if self.on {
            with_digest(def, digest())
        } else {
            def
        }
    }
}

/// One registry version's definitions of one kind, digested.
pub(crate) struct KindCatalog {
    /// Per definition, in registration order.
    digests: Vec<Digest>,
    /// Positions in `digests`, in order of digest (the catalog digest's order).
    by_digest: Vec<u32>,
    /// The stamp of what a caller without an identity sees.
    open: Arc<Stamp>,
}

impl KindCatalog {
    /// `defs`: every definition, in registration order, as listed, with whether a caller
    /// without an identity sees it.
    pub(crate) fn build(
        defs: impl Iterator<Item = (Value, bool)>,
        key: Option<&CatalogKey>,
    ) -> Self {
        let mut digests = Vec::new();
        let mut open = Vec::new();
        for (def, listed) in defs {
            digests.push(digest_of(&def));
            open.push(listed);
        }
        let mut by_digest: Vec<u32> = (0..digests.len() as u32).collect();
        by_digest.sort_unstable_by_key(|&i| digests[i as usize]);
        let mut cat = Self {
            digests,
            by_digest,
            open: Arc::new(Stamp::new(String::new(), None)),
        };
        cat.open = Arc::new(cat.stamp_of(&open, key));
        cat
    }

    /// The digest of the definition at `pos` (registration order).
    pub(crate) fn digest(&self, pos: usize) -> String {
        self.digests.get(pos).map(digest_string).unwrap_or_default()
    }

    /// The stamp of the definitions `visible` marks (by position).
    fn stamp_of(&self, visible: &[bool], key: Option<&CatalogKey>) -> Stamp {
        let mut h = Sha256::new();
        for &i in &self.by_digest {
            if visible.get(i as usize).copied().unwrap_or(false) {
                h.update(digest_string(&self.digests[i as usize]).as_bytes());
                h.update(b"\n");
            }
        }
        Stamp::new(digest_string(&h.finalize().into()), key)
    }
}

/// The catalog digest a request says its client holds: `params._meta["io.oxmcp/ifNoneMatch"]`,
/// or over HTTP an `If-None-Match` entity tag (quoted, possibly weak, possibly one of several).
fn held(rq: &RequestInfo, env: &Env, digest: &str) -> bool {
    if rq.meta.get(META_IF_NONE_MATCH).and_then(Value::as_str) == Some(digest) {
        return true;
    }
    let Some(h) = env.http.as_ref() else {
        return false;
    };
    h.headers
        .get_all(http::header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| {
            let t = t.trim();
            t.strip_prefix("W/").unwrap_or(t).trim_matches('"')
        })
        .any(|t| t == digest)
}

impl Server {
    fn catalog_key(&self) -> Option<&CatalogKey> {
        self.inner.options.catalog_signing_key.as_ref()
    }

    /// A definition answered outside a list (a search result, `skills/get`) as a list carries
    /// it: with its digest when `catalog_digests` is on, so a client can match it to its pin.
    pub(super) fn as_listed(&self, def: Value) -> Value {
        if self.inner.options.catalog_digests {
            let digest = definition_digest(&def);
            with_digest(def, digest)
        } else {
            def
        }
    }

    /// A list answer with its catalog: every definition on the page carries its digest, the
    /// result the stamp of everything the caller sees (all pages). A first-page request whose
    /// client holds that stamp gets the short answer instead (the list empty, no cursor,
    /// `io.oxmcp/unchanged`). `all`: every entry in registration order, the order `cat` was
    /// built in; `visible`: whether the caller sees one; `page`: the answer otherwise, given the
    /// stamp's `_meta` entries and the digest of each visible entry.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn cataloged<T>(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        cat: &KindCatalog,
        all: impl Iterator<Item = T>,
        visible: impl Fn(&T) -> bool,
        key: &str,
        page: impl FnOnce(&ListMeta<'_>) -> Outcome,
    ) -> Outcome {
        let stamp = match env.caller {
            None => cat.open.clone(),
            Some(_) => {
                let seen: Vec<bool> = all.map(|t| visible(&t)).collect();
                Arc::new(cat.stamp_of(&seen, self.catalog_key()))
            }
        };
        self.stamped(rq, params, env, &stamp, key, page)
    }

    /// [`Self::cataloged`] once the stamp is known.
    fn stamped(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        stamp: &Arc<Stamp>,
        key: &str,
        page: impl FnOnce(&ListMeta<'_>) -> Outcome,
    ) -> Outcome {
        let on = self.inner.options.catalog_digests;
        if on && env.transport == Transport::Http {
            env.set_etag(stamp.digest.clone());
        }
        let lm = ListMeta {
            stamp,
            key: self.catalog_key(),
            on,
        };
        let first = params.get("cursor").is_none_or(Value::is_null);
        if on && first && held(rq, env, &stamp.digest) {
            let mut meta = lm.map();
            meta.insert(META_UNCHANGED.into(), Value::Bool(true));
            let mut r = Map::new();
            r.insert(key.into(), Value::Array(Vec::new()));
            r.insert("_meta".into(), Value::Object(meta));
            return Outcome::Result(self.finish(rq, r, true));
        }
        page(&lm)
    }

    /// A small list worked out per request (the tool-search tools and the tools pinned beside
    /// them): each definition's digest put in, the stamp of them all, the short answer if held.
    pub(super) fn cataloged_small(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        defs: Vec<Value>,
        key: &str,
        page: impl FnOnce(Vec<Value>, &ListMeta<'_>) -> Outcome,
    ) -> Outcome {
        let digests: Vec<String> = defs.iter().map(definition_digest).collect();
        let stamp = Arc::new(Stamp::new(
            catalog_digest(digests.iter().map(String::as_str)),
            self.catalog_key(),
        ));
        self.stamped(rq, params, env, &stamp, key, |meta| {
            let defs = defs
                .into_iter()
                .zip(digests)
                .map(|(d, g)| meta.with_digest(d, || g))
                .collect();
            page(defs, meta)
        })
    }
}

/// `def` with `digest` in its `_meta`.
pub(crate) fn with_digest(mut def: Value, digest: String) -> Value {
    if let Value::Object(m) = &mut def {
        let meta = m
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(META_DIGEST.into(), Value::String(digest));
        }
    }
    def
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_digest_is_over_canonical_json_without_our_meta() {
        let a = json!({"name": "t", "inputSchema": {"type": "object"}, "n": 1.0});
        let b = json!({"inputSchema": {"type": "object"}, "n": 1, "name": "t",
                       "_meta": {"io.oxmcp/digest": "x"}});
        assert_eq!(definition_digest(&a), definition_digest(&b));
        // `{"inputSchema":{"type":"object"},"n":1,"name":"t"}`
        let expect =
            crate::skills::digest(br#"{"inputSchema":{"type":"object"},"n":1,"name":"t"}"#);
        assert_eq!(definition_digest(&a), expect);
        let c = json!({"name": "t", "inputSchema": {"type": "object"}, "n": 1, "_meta": {"k": 1}});
        assert_ne!(definition_digest(&a), definition_digest(&c));
    }

    #[test]
    fn the_catalog_digest_ignores_order_and_signs() {
        let d = ["sha256:bb", "sha256:aa"];
        assert_eq!(
            catalog_digest(d),
            catalog_digest(["sha256:aa", "sha256:bb"])
        );
        assert_eq!(
            catalog_digest(d),
            crate::skills::digest(b"sha256:aa\nsha256:bb\n")
        );
        let k = CatalogKey::from_bytes(&[7; 32]);
        let digest = catalog_digest(d);
        let sig = k.sign(&digest);
        assert!(verify_signature(k.public_key(), &digest, &sig));
        assert!(!verify_signature(
            k.public_key(),
            &catalog_digest(["sha256:aa"]),
            &sig
        ));
        assert!(!verify_signature(k.public_key(), &digest, "ed25519:AAAA"));
    }

    #[test]
    fn a_kind_catalog_stamps_what_is_visible() {
        let defs = vec![(json!({"name": "a"}), true), (json!({"name": "b"}), false)];
        let cat = KindCatalog::build(defs.into_iter(), None);
        let a = cat.digest(0);
        assert_eq!(&*cat.open.digest, catalog_digest([a.as_str()]));
        let both = cat.stamp_of(&[true, true], None);
        assert_eq!(
            &*both.digest,
            catalog_digest([a.as_str(), cat.digest(1).as_str()])
        );
    }
}
