//! `oxmcp verify TARGET --pin FILE`: has the server's catalog changed since it was pinned?
//!
//! Every definition a server lists (tool, resource, resource template, prompt) carries its digest
//! in `_meta["io.oxmcp/digest"]` (`sha256:<hex>`). A pin file holds those digests by kind and
//! name, and optionally the public key (`ed25519:<base64url>`) that signs the catalog: each list
//! result then carries `_meta["io.oxmcp/catalogDigest"]` and `_meta["io.oxmcp/catalogSignature"]`
//! (`ed25519:<base64url>`, a signature over the ASCII of the catalog digest), and each is checked.
//! Pin file:
//! ```json
//! {"publicKey": "ed25519:...", "tools": {"add": "sha256:..."}, "resources": {"uri": "sha256:..."},
//!  "resourceTemplates": {"t://{x}": "sha256:..."}, "prompts": {"review": "sha256:..."}}
//! ```

use super::CliError;
use base64::Engine;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

use crate::server::catalog::{
    META_CATALOG_DIGEST, META_DIGEST, META_SIGNATURE as META_CATALOG_SIGNATURE,
};

/// The exit code when the catalog differs from the pin.
pub const EXIT_CHANGED: i32 = 3;
/// The exit code when a catalog signature is missing or does not verify with the pinned key.
pub const EXIT_BAD_SIGNATURE: i32 = 4;

/// The kinds a catalog holds: (the pin's and the listing's key, the member that names an item,
/// the word the report uses).
pub(crate) const KINDS: [(&str, &str, &str); 4] = [
    ("tools", "name", "tool"),
    ("resources", "uri", "resource"),
    ("resourceTemplates", "uriTemplate", "resource template"),
    ("prompts", "name", "prompt"),
];

/// Digests by kind, then by name.
pub(crate) type Digests = BTreeMap<&'static str, BTreeMap<String, String>>;

/// The digests of a listing (`{"tools": [...], "resources": [...], ...}`); an item without one
/// is an error (a server that does not give digests cannot be pinned).
pub(crate) fn digests(listing: &Value) -> Result<Digests, CliError> {
    let mut out = Digests::new();
    for (key, id, word) in KINDS {
        let kind = out.entry(key).or_default();
        for item in listing
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = item.get(id).and_then(Value::as_str).unwrap_or_default();
            let digest = item
                .get("_meta")
                .and_then(|m| m.get(META_DIGEST))
                .and_then(Value::as_str)
                .filter(|d| valid_digest(d))
                .ok_or_else(|| {
                    CliError::new(format!(
                        "{word} '{name}' has no {META_DIGEST} (sha256:<hex>) in its _meta: the server does not give digests"
                    ))
                })?;
            kind.insert(name.to_string(), digest.to_string());
        }
    }
    Ok(out)
}

fn valid_digest(d: &str) -> bool {
    d.strip_prefix("sha256:")
        .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A pin file's contents.
pub(crate) struct Pin {
    pub(crate) public_key: Option<String>,
    pub(crate) digests: Digests,
}

pub(crate) fn parse_pin(text: &str, shown: &str) -> Result<Pin, CliError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| CliError::new(format!("{shown} is not a pin file: {e}")))?;
    let obj = v
        .as_object()
        .ok_or_else(|| CliError::new(format!("{shown} is not a pin file: not a JSON object")))?;
    let public_key = match obj.get("publicKey") {
        None | Some(Value::Null) => None,
        Some(Value::String(k)) => {
            public_key(k)?;
            Some(k.clone())
        }
        Some(_) => return Err(CliError::new(format!("{shown}: publicKey is not a string"))),
    };
    let mut digests = Digests::new();
    for (key, _, _) in KINDS {
        let kind = digests.entry(key).or_default();
        match obj.get(key) {
            None => {}
            Some(Value::Object(m)) => {
                for (name, d) in m {
                    match d.as_str().filter(|d| valid_digest(d)) {
                        Some(d) => {
                            kind.insert(name.clone(), d.to_string());
                        }
                        None => {
                            return Err(CliError::new(format!(
                                "{shown}: {key}.{name} is not a sha256:<hex> digest"
                            )))
                        }
                    }
                }
            }
            Some(_) => return Err(CliError::new(format!("{shown}: {key} is not an object"))),
        }
    }
    Ok(Pin {
        public_key,
        digests,
    })
}

pub(crate) fn pin_text(digests: &Digests, public_key: Option<&str>) -> String {
    let mut obj = Map::new();
    if let Some(k) = public_key {
        obj.insert("publicKey".into(), json!(k));
    }
    for (key, _, _) in KINDS {
        let kind: Map<String, Value> = digests
            .get(key)
            .into_iter()
            .flatten()
            .map(|(n, d)| (n.clone(), json!(d)))
            .collect();
        obj.insert(key.into(), Value::Object(kind));
    }
    format!("{}\n", super::output::pretty(&Value::Object(obj)))
}

/// What differs between the pin and the server: (kind word, name, pinned, current).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Diff {
    pub(crate) added: Vec<(&'static str, String, String)>,
    pub(crate) removed: Vec<(&'static str, String, String)>,
    pub(crate) changed: Vec<(&'static str, String, String, String)>,
}

impl Diff {
    pub(crate) fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }

    pub(crate) fn to_json(&self) -> Value {
        let item = |k: &str, n: &str, d: &str| json!({"kind": k, "name": n, "digest": d});
        json!({
            "unchanged": self.is_empty(),
            "added": self.added.iter().map(|(k, n, d)| item(k, n, d)).collect::<Vec<_>>(),
            "removed": self.removed.iter().map(|(k, n, d)| item(k, n, d)).collect::<Vec<_>>(),
            "changed": self.changed.iter().map(|(k, n, p, c)| json!({"kind": k, "name": n, "pinned": p, "current": c})).collect::<Vec<_>>(),
        })
    }

    pub(crate) fn to_text(&self) -> String {
        let mut lines = Vec::new();
        for (k, n, d) in &self.added {
            lines.push(format!("added {k} '{n}' ({d})"));
        }
        for (k, n, d) in &self.removed {
            lines.push(format!("removed {k} '{n}' (was {d})"));
        }
        for (k, n, p, c) in &self.changed {
            lines.push(format!("changed {k} '{n}': {p} -> {c}"));
        }
        lines.join("\n")
    }
}

pub(crate) fn compare(pinned: &Digests, current: &Digests) -> Diff {
    let mut diff = Diff::default();
    let empty = BTreeMap::new();
    for (key, _, word) in KINDS {
        let (p, c) = (
            pinned.get(key).unwrap_or(&empty),
            current.get(key).unwrap_or(&empty),
        );
        for (name, d) in c {
            match p.get(name) {
                None => diff.added.push((word, name.clone(), d.clone())),
                Some(old) if old != d => {
                    diff.changed
                        .push((word, name.clone(), old.clone(), d.clone()))
                }
                Some(_) => {}
            }
        }
        for (name, d) in p {
            if !c.contains_key(name) {
                diff.removed.push((word, name.clone(), d.clone()));
            }
        }
    }
    diff
}

fn b64url(text: &str) -> Option<Vec<u8>> {
    use base64::engine::{
        general_purpose::GeneralPurpose, DecodePaddingMode, GeneralPurposeConfig,
    };
    const URL: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    URL.decode(text).ok()
}

pub(crate) fn public_key(text: &str) -> Result<ed25519_dalek::VerifyingKey, CliError> {
    let bad = || CliError::new(format!("'{text}' is not an ed25519:<base64url> public key"));
    let raw = text
        .strip_prefix("ed25519:")
        .and_then(b64url)
        .ok_or_else(bad)?;
    let bytes: [u8; 32] = raw.try_into().map_err(|_| bad())?;
    ed25519_dalek::VerifyingKey::from_bytes(&bytes).map_err(|_| bad())
}

/// Check one list result's catalog signature with the pinned key. The error says what is wrong.
pub(crate) fn check_signature(
    meta: &Map<String, Value>,
    key: &ed25519_dalek::VerifyingKey,
) -> Result<(), String> {
    let digest = meta
        .get(META_CATALOG_DIGEST)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("no {META_CATALOG_DIGEST} in the result's _meta"))?;
    let sig = meta
        .get(META_CATALOG_SIGNATURE)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("no {META_CATALOG_SIGNATURE} in the result's _meta"))?;
    if !digest.is_ascii() {
        return Err(format!("{META_CATALOG_DIGEST} is not ASCII"));
    }
    let raw = sig
        .strip_prefix("ed25519:")
        .and_then(b64url)
        .ok_or_else(|| format!("{META_CATALOG_SIGNATURE} is not ed25519:<base64url>"))?;
    let sig = ed25519_dalek::Signature::from_slice(&raw)
        .map_err(|_| format!("{META_CATALOG_SIGNATURE} is not an Ed25519 signature"))?;
    key.verify_strict(digest.as_bytes(), &sig)
        .map_err(|_| "the catalog signature does not verify with the pinned key".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signer, SigningKey};

    fn d(c: char) -> String {
        format!("sha256:{}", c.to_string().repeat(64))
    }

    fn tool(name: &str, digest: &str) -> Value {
        json!({"name": name, "inputSchema": {"type": "object"}, "_meta": {META_DIGEST: digest}})
    }

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }

    #[test]
    fn added_removed_and_changed_are_told_apart() {
        let pinned = json!({"tools": [tool("a", &d('a')), tool("b", &d('b'))],
            "prompts": [{"name": "p", "_meta": {META_DIGEST: d('1')}}]});
        let current = json!({"tools": [tool("a", &d('a')), tool("c", &d('c'))],
            "prompts": [{"name": "p", "_meta": {META_DIGEST: d('2')}}],
            "resourceTemplates": [{"uriTemplate": "x://{y}", "_meta": {META_DIGEST: d('3')}}]});
        let diff = compare(&digests(&pinned).unwrap(), &digests(&current).unwrap());
        assert_eq!(
            diff.added,
            vec![
                ("tool", "c".into(), d('c')),
                ("resource template", "x://{y}".into(), d('3'))
            ]
        );
        assert_eq!(diff.removed, vec![("tool", "b".into(), d('b'))]);
        assert_eq!(diff.changed, vec![("prompt", "p".into(), d('1'), d('2'))]);
        assert_eq!(
            diff.to_text().lines().next().unwrap(),
            format!("added tool 'c' ({})", d('c'))
        );
        assert!(compare(&digests(&current).unwrap(), &digests(&current).unwrap()).is_empty());
    }

    #[test]
    fn a_pin_round_trips_and_an_item_without_a_digest_is_refused() {
        let listing = json!({"tools": [tool("a", &d('a'))], "resources": [{"uri": "r://x", "_meta": {META_DIGEST: d('e')}}]});
        let digests_now = digests(&listing).unwrap();
        let key = format!(
            "ed25519:{}",
            b64(SigningKey::from_bytes(&[7; 32]).verifying_key().as_bytes())
        );
        let pin = parse_pin(&pin_text(&digests_now, Some(&key)), "pin.json").unwrap();
        assert_eq!(pin.digests, digests_now);
        assert_eq!(pin.public_key.as_deref(), Some(key.as_str()));
        let bare = json!({"tools": [{"name": "a"}]});
        assert_eq!(
            digests(&bare).unwrap_err().message,
            "tool 'a' has no io.oxmcp/digest (sha256:<hex>) in its _meta: the server does not give digests"
        );
        let bad = json!({"tools": [tool("a", "md5:00")]});
        assert!(digests(&bad).is_err());
        assert!(parse_pin(r#"{"tools": {"a": "sha256:zz"}}"#, "p").is_err());
        assert!(parse_pin(r#"{"publicKey": "ed25519:AAAA"}"#, "p").is_err());
    }

    #[test]
    fn the_catalog_signature_is_checked_against_the_pinned_key() {
        let signer = SigningKey::from_bytes(&[42; 32]);
        let key = public_key(&format!(
            "ed25519:{}",
            b64(signer.verifying_key().as_bytes())
        ))
        .unwrap();
        let digest = d('9');
        let sig = format!(
            "ed25519:{}",
            b64(&signer.sign(digest.as_bytes()).to_bytes())
        );
        let mut meta = Map::new();
        meta.insert(META_CATALOG_DIGEST.into(), json!(digest));
        meta.insert(META_CATALOG_SIGNATURE.into(), json!(sig));
        assert_eq!(check_signature(&meta, &key), Ok(()));
        // Another digest under the same signature: refused.
        let mut tampered = meta.clone();
        tampered.insert(META_CATALOG_DIGEST.into(), json!(d('8')));
        assert_eq!(
            check_signature(&tampered, &key).unwrap_err(),
            "the catalog signature does not verify with the pinned key"
        );
        // Signed by another key: refused.
        let other = SigningKey::from_bytes(&[43; 32]);
        let mut forged = meta.clone();
        forged.insert(
            META_CATALOG_SIGNATURE.into(),
            json!(format!(
                "ed25519:{}",
                b64(&other.sign(digest.as_bytes()).to_bytes())
            )),
        );
        assert!(check_signature(&forged, &key).is_err());
        // Padded base64url is accepted too.
        let mut padded = meta.clone();
        let p = base64::engine::general_purpose::URL_SAFE
            .encode(signer.sign(digest.as_bytes()).to_bytes());
        padded.insert(META_CATALOG_SIGNATURE.into(), json!(format!("ed25519:{p}")));
        assert_eq!(check_signature(&padded, &key), Ok(()));
        // Missing: refused, naming the member.
        let mut missing = meta;
        missing.remove(META_CATALOG_SIGNATURE);
        assert_eq!(
            check_signature(&missing, &key).unwrap_err(),
            "no io.oxmcp/catalogSignature in the result's _meta"
        );
    }
}
