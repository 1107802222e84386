//! Sealed MRTR `requestState`: encrypted and authenticated (XChaCha20-Poly1305), bound to the
//! server's audience (its name unless configured), the method, the primitive's name, the caller, a hash of the call's arguments and the input keys
//! the server asked for, and expiring. The client only echoes it: it can neither read it (the
//! answers it carries from earlier rounds may be a user's private input) nor change it, nor
//! move it to another call, tool, caller or set of arguments.
//!
//! Replay: a state stays valid until it expires (`ServerOptions::state_ttl`, 10 min by
//! default), and the server keeps no record of states it has seen (so that any replica can
//! open it). Within that time the *same* caller can send the same state with the same
//! arguments again and the handler runs again with the same earlier answers. A handler whose
//! last round has an effect that must happen once (a payment, a deletion) makes that effect
//! idempotent, e.g. keyed by a value it put in its own state.

use crate::error::McpError;
pub(crate) use crate::request::ArgsDigest;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

type HmacSha256 = Hmac<Sha256>;

/// The shortest key of a key ring (`ServerOptions::state_keys`).
pub(crate) const MIN_RING_KEY_LEN: usize = 32;

/// A key ring: the first key seals, every key opens.
pub(crate) struct StateSealer {
    ring: Vec<XChaCha20Poly1305>,
    audience: String,
    ttl: Duration,
}

/// What a state is bound to: sealed for one, it opens for no other.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Binding<'a> {
    pub(crate) method: &'a str,
    pub(crate) name: &'a str,
    /// The caller's identity key (`None` without auth).
    pub(crate) caller: Option<&'a str>,
    /// [`args_digest`](crate::request::args_digest) of the call's `arguments`.
    pub(crate) args: &'a [u8; 32],
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn rejected() -> McpError {
    // One generic message: do not reveal which check failed.
    McpError::invalid_params("Invalid or expired requestState")
}

impl Binding<'_> {
    /// The associated data the AEAD tag covers.
    /// The bytes of `{"a","c","h","m","n","v"}` as `serde_json::to_vec` writes that object (its keys
    /// sorted), written directly: no map is built per seal and per open.
    fn aad(&self, audience: &str) -> Vec<u8> {
        use crate::jsonrpc::write::write_str;
        let mut out =
            Vec::with_capacity(128 + audience.len() + self.method.len() + self.name.len());
        out.extend_from_slice(br#"{"a":"#);
        write_str(&mut out, audience);
        out.extend_from_slice(br#","c":"#);
        match self.caller {
            Some(c) => write_str(&mut out, c),
            None => out.extend_from_slice(b"null"),
        }
        // URL-safe base64 of 32 bytes: 43 characters, none of which JSON escapes.
        let mut h = [0u8; 43];
        let n = B64.encode_slice(self.args, &mut h).unwrap_or(0);
        out.extend_from_slice(br#","h":""#);
        out.extend_from_slice(&h[..n]);
        out.extend_from_slice(br#"","m":"#);
        write_str(&mut out, self.method);
        out.extend_from_slice(br#","n":"#);
        write_str(&mut out, self.name);
        out.extend_from_slice(br#","v":2}"#);
        out
    }
}

/// The sealed plaintext: the bytes `serde_json::to_vec` makes of
/// `{"x": expires, "k": asked, "p": payload}` (its keys sorted), written without the map.
fn plaintext(asked: &[&str], payload: &Value, expires: u64) -> Vec<u8> {
    use crate::jsonrpc::write::{write_str, write_value};
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(br#"{"k":["#);
    for (i, k) in asked.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(&mut out, k);
    }
    out.extend_from_slice(br#"],"p":"#);
    write_value(&mut out, payload);
    out.extend_from_slice(br#","x":"#);
    out.extend_from_slice(expires.to_string().as_bytes());
    out.push(b'}');
    out
}

impl StateSealer {
    /// `keys` is the ring (the first seals); with none a random per-process key is used (and
    /// the caller warns). Each AEAD key is derived from a configured one, so any length works
    /// here (the options set the minimum).
    pub(crate) fn new(keys: Vec<Vec<u8>>, audience: String, ttl: Duration) -> Self {
        let keys = if keys.is_empty() {
            use rand::RngCore;
            let mut k = vec![0u8; 32];
            rand::thread_rng().fill_bytes(&mut k);
            vec![k]
        } else {
            keys
        };
        let ring = keys
            .iter()
            .map(|key| {
                let mut m =
                    <HmacSha256 as Mac>::new_from_slice(key).expect("HMAC takes any key length");
                m.update(b"oxmcp mrtr requestState xchacha20poly1305");
                XChaCha20Poly1305::new(&m.finalize().into_bytes())
            })
            .collect();
        Self {
            ring,
            audience,
            ttl,
        }
    }

    /// Seal `payload` for `binding`; `asked` are the keys of the input requests this round
    /// sends, the only keys the next round's `inputResponses` may carry.
    pub(crate) fn seal(&self, binding: &Binding<'_>, asked: &[&str], payload: Value) -> String {
        use rand::RngCore;
        let mut nonce = [0u8; 24];
        rand::thread_rng().fill_bytes(&mut nonce);
        let plain = plaintext(asked, &payload, now_secs() + self.ttl.as_secs());
        let aad = binding.aad(&self.audience);
        let sealed = self.ring[0]
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: &plain,
                    aad: &aad,
                },
            )
            .expect("encryption of an in-memory buffer does not fail");
        let mut out = Vec::with_capacity(nonce.len() + sealed.len());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        B64.encode(out)
    }

    /// Open a state for `binding`: its payload, and the keys of the input requests the sealing
    /// round asked for (the only `inputResponses` keys this round may use; others are ignored).
    pub(crate) fn open(
        &self,
        token: &str,
        binding: &Binding<'_>,
    ) -> Result<(Value, Vec<String>), McpError> {
        let raw = B64.decode(token).map_err(|_| rejected())?;
        if raw.len() < 24 + 16 {
            return Err(rejected());
        }
        let (nonce, sealed) = raw.split_first_chunk::<24>().ok_or_else(rejected)?;
        let aad = binding.aad(&self.audience);
        let nonce = XNonce::from(*nonce);
        let plain = self
            .ring
            .iter()
            .find_map(|aead| {
                let payload = Payload {
                    msg: sealed,
                    aad: &aad,
                };
                aead.decrypt(&nonce, payload).ok()
            })
            .ok_or_else(rejected)?;
        let mut v: Value = serde_json::from_slice(&plain).map_err(|_| rejected())?;
        if v["x"].as_u64().is_none_or(|x| x < now_secs()) {
            return Err(rejected());
        }
        let asked = v["k"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        Ok((v["p"].take(), asked))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_aad_is_the_json_of_its_object() {
        let args = [0xfbu8; 32];
        for caller in [None, Some("u\"1é")] {
            let b = Binding {
                method: "tools/call",
                name: "n\\\n",
                caller,
                args: &args,
            };
            let want = serde_json::to_vec(&serde_json::json!({"v": 2, "m": b.method,
                "n": b.name, "c": b.caller, "h": B64.encode(b.args), "a": "s\"é"}))
            .unwrap();
            assert_eq!(String::from_utf8(b.aad("s\"é")), String::from_utf8(want));
        }
    }

    use super::*;
    use crate::request::args_digest;
    use serde_json::json;

    #[test]
    fn the_plaintext_is_the_json_of_its_object() {
        let payload = json!({"b": [1, 2.5, null], "a": "q\"é", "n": {"x": true}});
        for asked in [&[][..], &["k"][..], &["a\"b", "c"][..]] {
            let want =
                serde_json::to_vec(&json!({"x": 1_900_000_000u64, "k": asked, "p": payload}));
            assert_eq!(plaintext(asked, &payload, 1_900_000_000), want.unwrap());
        }
    }

    fn sealer(keys: &[&[u8]], audience: &str, ttl: u64) -> StateSealer {
        let keys = keys.iter().map(|k| k.to_vec()).collect();
        StateSealer::new(keys, audience.into(), Duration::from_secs(ttl))
    }

    #[test]
    fn a_ring_opens_with_every_key_and_seals_with_the_first() {
        let old = sealer(&[b"old"], "srv", 60);
        let rotated = sealer(&[b"new", b"old"], "srv", 60);
        let t = old.seal(&b("a", None, None), &[], json!(1));
        assert_eq!(rotated.open(&t, &b("a", None, None)).unwrap().0, json!(1));
        let t = rotated.seal(&b("a", None, None), &[], json!(2));
        assert!(old.open(&t, &b("a", None, None)).is_err(), "sealed by new");
        assert!(sealer(&[b"new"], "srv", 60)
            .open(&t, &b("a", None, None))
            .is_ok());
        let elsewhere = sealer(&[b"new", b"old"], "other", 60);
        assert!(
            elsewhere.open(&t, &b("a", None, None)).is_err(),
            "other audience"
        );
    }

    fn b<'a>(name: &'a str, caller: Option<&'a str>, args: Option<&Value>) -> Binding<'a> {
        let digest: &'static [u8; 32] = Box::leak(Box::new(args_digest(args)));
        Binding {
            method: "tools/call",
            name,
            caller,
            args: digest,
        }
    }

    #[test]
    fn round_trip_and_tamper() {
        let s = sealer(&[b"k"], "s", 60);
        let args = json!({"a": 1, "b": [1, {"y": 2, "x": 1}]});
        let t = s.seal(&b("a", None, Some(&args)), &["q"], json!({"x":1}));
        assert_eq!(
            s.open(&t, &b("a", None, Some(&args))).unwrap(),
            (json!({"x":1}), vec!["q".to_string()])
        );
        // The same arguments in another key order.
        let reordered: Value = serde_json::from_str(r#"{"b":[1,{"x":1,"y":2}],"a":1}"#).unwrap();
        assert!(s.open(&t, &b("a", None, Some(&reordered))).is_ok());
        assert!(
            s.open(&t, &b("b", None, Some(&args))).is_err(),
            "other tool"
        );
        let other_method = Binding {
            method: "prompts/get",
            ..b("a", None, Some(&args))
        };
        assert!(s.open(&t, &other_method).is_err(), "other method");
        assert!(
            s.open(&t, &b("a", Some("eve"), Some(&args))).is_err(),
            "other caller"
        );
        let changed = json!({"a": 2, "b": [1, {"y": 2, "x": 1}]});
        assert!(
            s.open(&t, &b("a", None, Some(&changed))).is_err(),
            "other arguments"
        );
        assert!(s
            .open(&format!("{t}A"), &b("a", None, Some(&args)))
            .is_err());
        let other = sealer(&[b"k2"], "s", 60);
        assert!(
            other.open(&t, &b("a", None, Some(&args))).is_err(),
            "other key"
        );
        let expired = sealer(&[b"k"], "s", 0);
        let t = expired.seal(&b("a", None, None), &[], json!(1));
        std::thread::sleep(Duration::from_millis(1100));
        assert!(expired.open(&t, &b("a", None, None)).is_err(), "expired");
    }

    #[test]
    fn the_state_is_not_readable() {
        let s = sealer(&[b"k"], "s", 60);
        let t = s.seal(
            &b("a", None, None),
            &["q"],
            json!({"a": {"step1": "my secret answer"}}),
        );
        let raw = B64.decode(&t).unwrap();
        let text = String::from_utf8_lossy(&raw);
        assert!(
            !text.contains("secret") && !text.contains("step1"),
            "{text}"
        );
    }
}
